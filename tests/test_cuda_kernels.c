/* White-box tests of the CUDA reduce kernels (kernel/cuda) and their launch geometry
 * (core/plan_launch.c): opnn_cuda_reduce against the float64 reference of tests/support, for
 * every kind x dtype x family that can serve a shape, random layouts, NaN/inf, determinism, a
 * tensor past 2^31 elements, streams, graph capture and bad pointers. Every test skip()s without
 * a CUDA device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launch.h"
#include "core/plan.h"
#include "kernel/reduce_kernels.h"
#include "support/test_support.h"

#if defined(OPNN_HAVE_CUDA)
#include <cuda_runtime_api.h>

static opnn_device_props g_props;
/* The device the plans are made for: g_props, or a smaller one (shift__every_kind_dtype) */
static const opnn_device_props *g_plan_props = &g_props;
static bool g_have;
/* tile_folds__every_kind_dtype: the fold a ROW_TILE slab plan is run with (launch.ranges 1, 2 or
 * 3, and launch.sub lanes), whatever the planner chose; 0: the planner's */
static int g_tile_ranges, g_tile_sub;

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            fail_msg("%s: %s", #call, cudaGetErrorString(e_));                                     \
    } while (0)

/* --- one reduction, checked ---------------------------------------------------------------- */

typedef struct shape_case {
    const char *name;
    int32_t ndim;
    int64_t shape[6];
    int64_t strides[6]; /* used when has_strides */
    bool has_strides;
    size_t naxes;
    int64_t axes[6];
    int64_t offset; /* elements before the first one (byte_offset) */
} shape_case;

typedef enum fill_kind {
    FILL_RANDOM = 0,
    FILL_SPECIAL
} fill_kind;

static const char *const kind_names[] = {"sum", "mean", "max", "min", "prod"};
static const char *const dtype_names[] = {"f32", "f64", "f16", "bf16", "i32", "i64"};

static void fill_host(ts_rng *rng, void *h, DLDataType t, int64_t n, opnn_reduce_kind kind,
                      fill_kind fk)
{
    if (kind == OPNN_REDUCE_PROD && ts_dtype_is_float(t)) {
        /* factors near 1 keep long products (3e5 factors: e^(-5 +- 3)) finite and away from
         * subnormals, where a float product loses its relative precision */
        for (int64_t i = 0; i < n; i++)
            ts_store(h, t, i, 1.0 + 0.01 * (ts_uniform(rng) * 2 - 1));
    } else if (kind == OPNN_REDUCE_PROD) {
        for (int64_t i = 0; i < n; i++)
            ts_store(h, t, i, (double)ts_range(rng, -3, 3));
    } else {
        ts_fill_random(rng, h, t, n, 1.0);
    }
    if (fk == FILL_SPECIAL && ts_dtype_is_float(t) && n > 0) {
        /* a few NaNs and infinities at random places */
        const double specials[] = {NAN, INFINITY, -INFINITY};
        int64_t count = n / 97 + 1;
        for (int64_t i = 0; i < count; i++)
            ts_store(h, t, ts_range(rng, 0, n - 1), specials[ts_range(rng, 0, 2)]);
    }
}

typedef struct run_result {
    bool ran;       /* false: the family cannot serve this plan */
    bool shift;     /* the plan read rows off 16 bytes as covering vectors */
    bool tail;      /* ... with whole tiles, then split ones (launch.whole) */
    bool super;     /* the plan read k rows off 16 bytes as one row (super-rows, ranges 3) */
    bool warp_tile; /* the plan took a warp a column tile of 32 lanes (ranges 1) */
    bool warp_unit; /* ... or a warp a unit of any lanes a row (ranges 1) */
    bool deep;      /* a block a unit, 16-byte loads 8 deep (ranges 2 * OPNN_CUDA_UNROLL) */
    void *host_out; /* outputs (malloc'ed), for determinism checks */
    size_t out_bytes;
} run_result;

/* Plans c, forces `family` (-1: the planner's choice), runs kind over dtype t, and checks the
 * outputs against the float64 reference and the guard bytes after them. */
static run_result run_checked(const shape_case *c, DLDataType t, opnn_reduce_kind kind, int family,
                              fill_kind fk, uint64_t seed, cudaStream_t stream,
                              opnn_cuda_state **state)
{
    run_result res = {false, false, false, false, false, false, false, NULL, 0};
    size_t es = ts_dtype_size(t);
    const int64_t *st = c->has_strides ? c->strides : NULL;
    int64_t storage = ts_storage_elems(c->ndim, c->shape, st) + c->offset;
    opnn_reduce_request req = {
        .op = "test",
        .ndim = c->ndim,
        .shape = c->shape,
        .strides = st,
        .axes = c->axes,
        .num_axes = c->naxes,
        .noop_with_empty_axes = false,
        .dtype = t,
    };
    opnn_reduce_plan plan;
    char msg[512] = "";
    char what[256];
    ts_rng rng = {seed};

    assert_int_equal(opnn__reduce_plan_init(&plan, &req, msg, sizeof msg), OP_OK);
    if (family < 0)
        opnn__reduce_plan_launch(&plan, g_plan_props);
    else if (!opnn__reduce_launch_family(&plan, g_plan_props, family))
        return res;
    if (g_tile_ranges) {
        if (plan.launch.kernel != OPNN_KERNEL_ROW_TILE || plan.cls != OPNN_CLASS_MIDDLE ||
            g_tile_sub > plan.r)
            return res;
        plan.launch.ranges = g_tile_ranges;
        plan.launch.sub = g_tile_sub;
    }
    res.ran = true;
    res.shift =
        plan.launch.kernel == OPNN_KERNEL_OUTER && plan.launch.ranges == OPNN_CUDA_SHIFT_RANGES;
    res.tail = res.shift && plan.launch.whole > 0;
    res.super = plan.launch.kernel == OPNN_KERNEL_OUTER && plan.launch.ranges == 3;
    res.warp_unit = plan.launch.kernel == OPNN_KERNEL_OUTER && plan.launch.ranges == 1;
    res.warp_tile = res.warp_unit && plan.launch.sub == 32;
    res.deep =
        plan.launch.kernel == OPNN_KERNEL_OUTER && plan.launch.ranges == 2 * OPNN_CUDA_UNROLL;
    snprintf(what, sizeof what, "%s %s %s family %s ranges %d sub %d (class %s, seed %llu)",
             c->name, kind_names[kind], ts_dtype_name(t),
             opnn__cuda_family_name(plan.launch.family), plan.launch.ranges, plan.launch.sub,
             opnn__reduce_class_name(plan.cls), (unsigned long long)seed);

    /* set up */
    size_t in_bytes = (size_t)(storage > 0 ? storage : 1) * es;
    void *h_in = malloc(in_bytes);
    assert_non_null(h_in);
    fill_host(&rng, h_in, t, storage, kind, fk);
    void *d_in = NULL, *d_out = NULL;
    int64_t nout = plan.out_numel;
    size_t out_bytes = (size_t)nout * es;
    CUDA_OK(cudaMalloc(&d_in, in_bytes));
    CUDA_OK(cudaMemcpy(d_in, h_in, in_bytes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMalloc(&d_out, out_bytes + TS_GUARD_BYTES));
    CUDA_OK(cudaMemset(d_out, TS_GUARD_BYTE, out_bytes + TS_GUARD_BYTES));

    /* run */
    op_status s = opnn_cuda_reduce(&plan, kind, (char *)d_in + c->offset * (int64_t)es, d_out,
                                   stream, state, msg, sizeof msg);
    if (s != OP_OK)
        fail_msg("%s: opnn_cuda_reduce returned %d: %s", what, (int)s, msg);
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaGetLastError());

    /* check */
    ts_buf out = ts_buf_alloc(out_bytes);
    assert_non_null(out.data);
    CUDA_OK(cudaMemcpy(out.data, d_out, out_bytes + TS_GUARD_BYTES, cudaMemcpyDeviceToHost));
    if (!ts_buf_guard_ok(&out))
        fail_msg("%s: bytes after the output were written", what);
    ts_tensor x;
    ts_tensor_init(&x, h_in, kDLCPU, t, c->ndim, c->shape, st);
    x.t.byte_offset = (uint64_t)(c->offset * (int64_t)es);
    double *ref_f = malloc(sizeof(double) * (size_t)(nout + 1));
    int64_t *ref_i = malloc(sizeof(int64_t) * (size_t)(nout + 1));
    assert_non_null(ref_f);
    assert_non_null(ref_i);
    assert_int_equal(ts_reference((ts_op)kind, &x.t, plan.red_mask, ref_f, ref_i), nout);
    if (!ts_check(what, out.data, t, nout, ref_f, ref_i, plan.red_numel, (ts_op)kind))
        fail_msg("%s: mismatch against the float64 reference", what);

    res.host_out = malloc(out_bytes + 1);
    assert_non_null(res.host_out);
    memcpy(res.host_out, out.data, out_bytes);
    res.out_bytes = out_bytes;
    free(ref_f);
    free(ref_i);
    ts_buf_free(&out);
    CUDA_OK(cudaFree(d_in));
    CUDA_OK(cudaFree(d_out));
    free(h_in);
    return res;
}

/* --- the shapes: each meant to reach one family or an edge of one -------------------------- */

#define S(...)                                                                                     \
    {                                                                                              \
        __VA_ARGS__                                                                                \
    }
static const shape_case family_cases[] = {
    {"full_small", 1, S(1000), S(0), false, 0, S(0), 0},
    {"full_big", 1, S(300001), S(0), false, 0, S(0), 0},
    {"full_offset", 1, S(100003), S(0), false, 0, S(0), 3},
    {"full_one", 1, S(1), S(0), false, 0, S(0), 0},
    {"full_grid", 1, S(3000017), S(0), false, 0, S(0), 1},
    {"row_tiny3", 2, S(20001, 3), S(0), false, 1, S(1), 0},
    {"row_tiny3_offset", 2, S(20001, 3), S(0), false, 1, S(1), 1},
    {"row_vec16", 2, S(5003, 4), S(0), false, 1, S(1), 0},
    {"row_k2", 2, S(7001, 2), S(0), false, 1, S(-1), 0},
    {"row_vec64", 2, S(3001, 16), S(0), false, 1, S(1), 0},
    {"row_vec64_offset", 2, S(1001, 16), S(0), false, 1, S(1), 1},
    {"row_vec512", 2, S(1000, 128), S(0), false, 1, S(1), 0},
    {"row_vec8", 2, S(4099, 8), S(0), false, 1, S(1), 0},
    /* 8 lanes a row for f32 (4 for f16, 16 for f64): a warp tile's 4 rows a group reduced
     * together, the last tile partial */
    {"row_vec32", 2, S(2999, 32), S(0), false, 1, S(1), 0},
    {"row_49", 2, S(3001, 49), S(0), false, 1, S(1), 0},
    {"row_33_offset", 2, S(999, 33), S(0), false, 1, S(1), 1},
    /* row tiles: 8-, 16-byte and element chunks, a pack of one row, tiles of one pack, rows
     * past the last pack, no whole pack at all */
    {"row_tile_6", 2, S(10007, 6), S(0), false, 1, S(1), 0},
    {"row_tile_12", 2, S(3001, 12), S(0), false, 1, S(1), 0},
    {"row_tile_100_offset", 2, S(1003, 100), S(0), false, 1, S(1), 1},
    {"row_tile_127", 2, S(2001, 127), S(0), false, 1, S(1), 0},
    {"row_tile_5", 2, S(99999, 5), S(0), false, 1, S(1), 0},
    {"row_tile_no_pack", 2, S(3, 7), S(0), false, 1, S(1), 0},
    /* odd 2-byte rows past 128 elements (packs of 8 rows, 201 vectors: 2 lanes a row); rows of
     * 12 (tiles of 4 rounds of 32 rows, the last tile short) */
    {"row_tile_201", 2, S(1001, 201), S(0), false, 1, S(1), 0},
    {"row_tile_12_rounds", 2, S(4099, 12), S(0), false, 1, S(1), 0},
    /* rows past 208 bytes from an aligned start (2 or 4 lanes a row, cp.async tiles): 16-byte
     * chunks (f32 rows of 100), 8-byte chunks (f32 rows of 54), 2-byte rows from covering
     * vectors (f16 rows of 127) */
    {"row_tile_100", 2, S(1003, 100), S(0), false, 1, S(1), 0},
    {"row_tile_54", 2, S(1001, 54), S(0), false, 1, S(1), 0},
    /* 68-byte f32 rows from covering vectors, 34-byte f16 rows as word pairs */
    {"row_tile_17", 2, S(5003, 17), S(0), false, 1, S(1), 0},
    /* 2-byte rows of 5 and 7: packs of 5 and 7 vectors through shared memory, a partial warp */
    {"row_pack_7", 2, S(20011, 7), S(0), false, 1, S(1), 0},
    {"row_pack_5", 2, S(8 * 32 * 3 + 77, 5), S(0), false, 1, S(1), 0},
    {"row_mid", 2, S(2000, 256), S(0), false, 1, S(1), 0},
    {"row_long", 2, S(37, 20011), S(0), false, 1, S(1), 0},
    {"row_few_long", 2, S(3, 100003), S(0), false, 1, S(1), 0},
    {"row_gapped", 2, S(300, 50), S(64, 1), true, 1, S(1), 0},
    {"row_broadcast", 2, S(40, 77), S(0, 1), true, 1, S(1), 0},
    {"col_wide", 2, S(301, 1037), S(0), false, 1, S(0), 0},
    {"col_wide_offset", 2, S(97, 1024), S(0), false, 1, S(0), 2},
    /* a split of 3 slices (every dtype): fewer than a round of the last block's combine, its
     * loads past the split clamped to the last slice */
    {"col_split_rest", 2, S(1000, 4096), S(0), false, 1, S(0), 0},
    /* rows off 32-byte sectors (f32, f16) with a split: units in (slice, tile) order; f64 and
     * 8-byte accumulators (splits of 5 and 11) take 2 and 4 threads a column in the combine,
     * their last round clamped */
    {"col_split_unaligned", 2, S(3001, 2500), S(0), false, 1, S(0), 0},
    {"col_split_offset", 2, S(3001, 2496), S(0), false, 1, S(0), 1},
    /* rows 8 (f32) or 4 (f16) bytes off 16, with a split; a pointer 8 or 4 bytes off; a middle
     * view: items of 8 or 4 bytes */
    {"col_items_split", 2, S(3001, 2502), S(0), false, 1, S(0), 0},
    {"col_items_offset", 2, S(601, 1000), S(0), false, 1, S(0), 2},
    {"middle_items", 3, S(7, 301, 1002), S(0), false, 1, S(1), 0},
    /* rows off 16 bytes, items as wide as they allow: 49 columns (2 column tiles, the second
     * partial); 257 with a split; an odd pointer offset; padded views of 4 and 12 columns (rows
     * of 5 and 13); a middle view at an offset */
    {"col_odd_49", 2, S(4001, 49), S(0), false, 1, S(0), 0},
    {"col_odd_257_split", 2, S(6001, 257), S(0), false, 1, S(0), 0},
    {"col_odd_offset", 2, S(1001, 2501), S(0), false, 1, S(0), 3},
    /* middle views of 2 aligned slabs of rows off 16 bytes, plain and gapped with 3 rows past a
     * multiple of 4, which super-rows do not take (columns of single floats; super-rows:
     * super_cases_8sm) */
    {"middle_super", 3, S(2, 4096, 1025), S(0), false, 1, S(1), 0},
    {"middle_super_gapped", 3, S(2, 4099, 1025), S(4100 * 1025, 1025, 1), true, 1, S(1), 0},
    {"col_padded_b4", 2, S(300, 4), S(5, 1), true, 1, S(0), 0},
    {"col_padded_b12", 2, S(301, 12), S(13, 1), true, 1, S(0), 1},
    {"middle_odd_offset", 3, S(5, 401, 130), S(0), false, 1, S(1), 1},
    /* contiguous rows off 16 bytes of at most 1 KB, read as one run of vectors: the first
     * vector before the tensor and the last past it (an odd offset), rows of 5 over many
     * slices, 255 columns (a thread's lanes 8 columns for f16), 50 columns (f32 and f16: a
     * step of 25 vectors, 250 threads), a middle of 3 slabs, 17 f64 columns (2 lanes); 3
     * columns at an odd offset and 31 columns: threads a multiple of 8 * 3 (240) and 8 * 31
     * (248), so that warps start on 128-byte lines (the middle's 7 columns: 224, its slabs off
     * 128 bytes) */
    {"col_stage_17_offset", 2, S(3001, 17), S(0), false, 1, S(0), 3},
    {"col_stage_5", 2, S(70001, 5), S(0), false, 1, S(0), 0},
    {"col_stage_255", 2, S(2001, 255), S(0), false, 1, S(0), 0},
    {"col_stage_50_offset", 2, S(3001, 50), S(0), false, 1, S(0), 1},
    {"middle_stage", 3, S(3, 2999, 7), S(0), false, 1, S(1), 0},
    {"col_stage_17", 2, S(6007, 17), S(0), false, 1, S(0), 0},
    {"col_stage_3_offset", 2, S(40001, 3), S(0), false, 1, S(0), 1},
    {"col_stage_31", 2, S(9001, 31), S(0), false, 1, S(0), 0},
    {"col_narrow", 2, S(20001, 5), S(0), false, 1, S(0), 0},
    {"col_narrow16", 2, S(20000, 16), S(0), false, 1, S(0), 0},
    {"col_tiny_r", 2, S(7, 30001), S(0), false, 1, S(0), 0},
    {"col_r3", 2, S(3, 30001), S(0), false, 1, S(0), 0},
    {"col_r2_vec", 2, S(2, 40000), S(0), false, 1, S(0), 0},
    {"col_r16_vec", 2, S(16, 4100), S(0), false, 1, S(0), 0},
    {"col_r4_offset", 2, S(4, 4096), S(0), false, 1, S(0), 1},
    {"col_r3_padded", 2, S(3, 1001), S(1004, 1), true, 1, S(0), 0},
    /* rows that start 4 or 8 bytes off 16: items of 4 or 8 bytes */
    {"col_r3_words", 2, S(3, 30002), S(0), false, 1, S(0), 0},
    {"col_r5_pairs", 2, S(5, 30004), S(0), false, 1, S(0), 0},
    {"col_padded", 2, S(200, 49), S(64, 1), true, 1, S(0), 0},
    {"col_broadcast", 2, S(100, 64), S(0, 1), true, 1, S(0), 0},
    {"col_transposed", 2, S(40, 30), S(1, 40), true, 1, S(0), 0},
    {"middle", 3, S(13, 301, 67), S(0), false, 1, S(1), 0},
    {"middle_aligned", 3, S(9, 123, 256), S(0), false, 1, S(1), 0},
    /* narrow B: the rows of a warp fold by shuffles before the block tree */
    {"middle_b4", 3, S(37, 300, 4), S(0), false, 1, S(1), 0},
    {"middle_b2_offset", 3, S(100, 301, 2), S(0), false, 1, S(1), 1},
    /* narrow slabs of 16-byte loads, 1 to 16 lanes a row: 8 lanes a row of 4 floats, 4 of 8
     * halves, 16 of 2 doubles; 16 of 4 floats, 8 of 8 halves; 4 lanes of 4 floats over 12
     * columns, 8 of 2 doubles over 12; a block a unit here (too few units to fill an H200 a
     * warp each), a warp a unit in warp_tile_cases_2sm */
    {"middle_warp_b24", 3, S(1500, 40, 24), S(0), false, 1, S(1), 0},
    {"middle_warp_b40", 3, S(700, 33, 40), S(0), false, 1, S(1), 0},
    {"middle_warp_b12", 3, S(900, 20, 12), S(0), false, 1, S(1), 0},
    /* narrow slabs past a tile, fewer than the SMs (NHWC pooled over HW): column tiles
     * narrowed to fill them (on an H200 a thread across, 6 tiles a slab of floats); enough of
     * them to fill the SMs: a block a slab, loads 8 deep */
    {"middle_narrow_few_units", 3, S(40, 700, 24), S(0), false, 1, S(1), 0},
    {"middle_narrow_deep", 3, S(150, 700, 24), S(0), false, 1, S(1), 0},
    /* slabs that a split would cut: unsplit tiles of 32 bytes a row instead (f32: 12 tiles of
     * 2 threads a slab, f16 3 of 4, f64 24 of 2, on an H200) */
    {"middle_narrow_split_tiles", 3, S(6, 2000, 96), S(0), false, 1, S(1), 0},
    /* slabs of 2..128 whole vectors, two or four columns: ROW_VEC folds element c into column
     * c % B, a vector a lane below 16 vectors a slab (f16 [., 8, 4]: 4), 4 vectors a lane from
     * 16 (f32 [., 64, 2]: 32; f16 [., 32, 4]: 16), aligned or not */
    {"middle_slab_b2", 3, S(3001, 64, 2), S(0), false, 1, S(1), 0},
    {"middle_slab_b4", 3, S(2003, 8, 4), S(0), false, 1, S(1), 0},
    {"middle_slab_b2_offset", 3, S(517, 16, 2), S(0), false, 1, S(1), 1},
    {"middle_slab_g2", 3, S(3001, 4, 2), S(0), false, 1, S(1), 0},
    {"middle_slab_g128", 3, S(301, 256, 2), S(0), false, 1, S(1), 0},
    {"middle_slab_b4_deep", 3, S(2003, 32, 4), S(0), false, 1, S(1), 0},
    {"middle_slab_deep_offset", 3, S(517, 64, 2), S(0), false, 1, S(1), 1},
    /* rows of one whole vector (f32 B = 4, f64 B = 2, f16 B = 8): column c is element c; rows
     * of 2 or 4 vectors (f32 B = 8 and 16, f64 B = 4 and 8, f16 B = 16): column (j % K) * V + c
     * is element c of a slab's vector j; 16 f64 columns (8 vectors a row) the column kernel */
    {"middle_slab_b8", 3, S(2003, 16, 8), S(0), false, 1, S(1), 0},
    {"middle_slab_b8_offset", 3, S(517, 4, 8), S(0), false, 1, S(1), 1},
    {"middle_slab_b4_g64", 3, S(301, 64, 4), S(0), false, 1, S(1), 0},
    {"middle_slab_b16", 3, S(1001, 8, 16), S(0), false, 1, S(1), 0},
    {"middle_slab_b16_offset", 3, S(257, 2, 16), S(0), false, 1, S(1), 1},
    {"middle_slab_b16_g128", 3, S(129, 32, 16), S(0), false, 1, S(1), 0},
    /* other contiguous slabs whose pack fits a tile (ROW_TILE, a slab a row of the tile, g lanes
     * an output): slabs of 3 columns (packs of 1, 2, 4 or 8 slabs by dtype; f32 and f64 from a
     * staggered row), 17 (f64: 1088 bytes), 24 of 16 rows (f64: 3 KB, 2 a tile), a slab of 3
     * rows, an unaligned start, more slabs than whole packs (block 0 takes the rest); gapped
     * slabs the column kernel. Columns over g lanes (rows h, h + g, ... each, then shuffles;
     * the planner's g and stagger, tile_col_plan): 64 rows (f32 g = 1 staggered, f16 g = 4,
     * f64 g = 2); 128 rows (f32 g = 2 staggered, f16 and f64 g = 4); 129 rows (f64 g = 4: lanes
     * of 33 and 32 rows); 5 columns of 300 rows (f32: one slab a tile, g = 4; f16: 2 a tile, g = 2)
     * or 2 of 776 (f32 g = 16: lanes of 49 and 48 rows, f16 8); 2000-byte slabs, 2 a tile (whole
     * sectors), f32 g = 2; 128 rows from a start off 16 bytes (element loads into the tile) */
    {"middle_tile_b3", 3, S(3001, 16, 3), S(0), false, 1, S(1), 0},
    {"middle_tile_b17", 3, S(1001, 8, 17), S(0), false, 1, S(1), 0},
    {"middle_tile_b24", 3, S(301, 16, 24), S(0), false, 1, S(1), 0},
    {"middle_tile_r3", 3, S(2001, 3, 5), S(0), false, 1, S(1), 0},
    {"middle_tile_offset", 3, S(777, 5, 6), S(0), false, 1, S(1), 1},
    {"middle_tile_packs", 3, S(1003, 3, 3), S(0), false, 1, S(1), 0},
    {"middle_tile_gapped", 3, S(500, 16, 3), S(64, 3, 1), true, 1, S(1), 0},
    {"middle_tile_lanes2_stagger", 3, S(301, 64, 3), S(0), false, 1, S(1), 0},
    {"middle_tile_few_outputs", 3, S(301, 128, 3), S(0), false, 1, S(1), 0},
    {"middle_tile_lanes_odd_rows", 3, S(301, 129, 3), S(0), false, 1, S(1), 0},
    {"middle_tile_one_slab", 3, S(203, 300, 5), S(0), false, 1, S(1), 0},
    {"middle_tile_lanes16", 3, S(101, 776, 2), S(0), false, 1, S(1), 0},
    {"middle_tile_sectors", 3, S(301, 100, 5), S(0), false, 1, S(1), 0},
    {"middle_tile_lanes_offset", 3, S(301, 128, 3), S(0), false, 1, S(1), 1},
    /* slabs of 3, 5, 6 or 7 columns whose rows are whole packs (P rows spanning whole 16-byte
     * vectors; B = 3, 5, 7: 8 for 16-bit, 4 for f32, 2 for f64; B = 6: 4, 2, 1), which the tile can
     * also fold a pack at a time (launch.ranges 3, tile_folds__every_kind_dtype; the planner's fold
     * here): f16 [., 32, 3] 4 packs, f32 8, f64 16; 5 columns of 16 rows (f16 2 packs, f64 8); 6 of
     * 8 (f16 packs of 4 rows, f64 of one); 7 of 64 (f64 32 packs); f16 slabs of 128 packs; 6 packs
     * a slab (f16; f32 12, f64 24); from a start off 16 bytes (element loads) */
    {"middle_tile_packs_b3", 3, S(3001, 32, 3), S(0), false, 1, S(1), 0},
    {"middle_tile_packs_b5", 3, S(1001, 16, 5), S(0), false, 1, S(1), 0},
    {"middle_tile_packs_b6", 3, S(1001, 8, 6), S(0), false, 1, S(1), 0},
    {"middle_tile_packs_b7", 3, S(501, 64, 7), S(0), false, 1, S(1), 0},
    {"middle_tile_packs_wide", 3, S(37, 1024, 3), S(0), false, 1, S(1), 0},
    {"middle_tile_packs_odd", 3, S(1001, 48, 3), S(0), false, 1, S(1), 0},
    {"middle_tile_packs_offset", 3, S(777, 16, 3), S(0), false, 1, S(1), 1},
    /* rows 2 or 4 bytes off 16 (f16, f32) in several slabs, gapped rows 4 or 2 bytes off with
     * a pointer off too, and aligned rows with a pointer off 16 bytes (8 for f64, i64): the
     * column kernel's narrower items, from every row offset */
    {"middle_rows_off16", 3, S(5, 301, 1001), S(0), false, 1, S(1), 0},
    {"middle_gaps_off16", 3, S(4, 200, 333), S(70001, 351, 1), true, 1, S(1), 1},
    {"col_pointer_off16", 2, S(301, 1024), S(0), false, 1, S(0), 1},
    /* [R1, A, R, B]: slabs of a middle view; whole slabs a slice, pieces of one, odd B */
    {"slabs_whole", 4, S(64, 3, 40, 64), S(0), false, 2, S(0, 2), 0},
    {"slabs_pieces", 4, S(2, 3, 5000, 64), S(0), false, 2, S(0, 2), 0},
    {"slabs_odd_offset", 4, S(5, 4, 33, 19), S(0), false, 2, S(0, 2), 1},
    {"outer_inner", 3, S(17, 23, 301), S(0), false, 2, S(0, 2), 0},
    {"outer_inner_short", 3, S(100, 300, 5), S(0), false, 2, S(0, 2), 0},
    {"outer_inner_nchw", 4, S(4, 8, 14, 14), S(0), false, 3, S(0, 2, 3), 0},
    /* a block a channel, few blocks: twice the loads in flight (the block kernel's DEPTH 2) */
    {"outer_inner_deep", 4, S(4, 200, 30, 70), S(0), false, 3, S(0, 2, 3), 0},
    {"outer_inner_offset", 3, S(64, 200, 99), S(0), false, 2, S(0, 2), 1},
    /* several segments a block (the flat walk): vectors, then covering vectors (odd K; the
     * segments of 5 of outer_inner_short go by elements, under 32 bytes, but for f64) */
    {"outer_inner_flat", 3, S(300, 3, 64), S(0), false, 2, S(0, 2), 0},
    {"outer_inner_flat_odd", 3, S(257, 5, 49), S(0), false, 2, S(0, 2), 0},
    /* segments off 16 bytes read as the 16-byte vectors that cover them: each segment at its
     * own offset (K = 81); the tensor's first and last segments, whose vectors reach outside
     * its memory (offset 3), walked by elements; gaps between channels, then also between the
     * R1 slabs (f16 K = 13, 26 bytes: elements); R1 broadcast (stride 0: every segment of a
     * unit the same, the last unit's reaching past the end: by elements). Reads outside the
     * tensor leave the results as they are: memcheck (RESULTS.md) is what checks them. */
    {"outer_inner_cover", 4, S(4, 501, 9, 9), S(0), false, 3, S(0, 2, 3), 0},
    {"outer_inner_cover_offset", 4, S(2, 450, 7, 7), S(0), false, 3, S(0, 2, 3), 3},
    {"outer_inner_cover_gaps", 3, S(5, 420, 13), S(8400, 20, 1), true, 2, S(0, 2), 1},
    {"outer_inner_cover_r1_gap", 3, S(5, 420, 13), S(9000, 20, 1), true, 2, S(0, 2), 1},
    {"outer_inner_cover_broadcast", 4, S(4, 501, 9, 9), S(0, 81, 9, 1), true, 3, S(0, 2, 3), 0},
    {"outer_inner_cover_broadcast_offset", 4, S(4, 501, 9, 9), S(0, 81, 9, 1), true, 3, S(0, 2, 3),
     3},
    {"generic", 4, S(6, 7, 8, 9), S(0), false, 2, S(0, 2), 0},
    {"generic_strided", 3, S(5, 6, 7), S(300, 2, 43), true, 2, S(0, 1), 1},
    {"size_one_dims", 4, S(1, 500, 1, 3), S(0), false, 2, S(1, 3), 0},
    {"fill", 3, S(5, 0, 3), S(0), false, 1, S(1), 0},
    {"empty", 2, S(0, 4), S(0), false, 1, S(1), 0},
};
#define NUM_FAMILY_CASES (sizeof family_cases / sizeof family_cases[0])

/* Rows off 16 bytes read as the vectors that cover them, a warp or half a warp a row
 * (OPNN_CUDA_SHIFT_RANGES), planned for a device of 2 SMs (shift_cases_4sm: 4; on the
 * real one these shapes make too few units for that plan and read single elements): a split of
 * several slabs, 259 columns (2 to 5 tiles, the last short), the view's first vector before it
 * and its last past it (offset 1); a split column of 491; slabs broadcast (a_stride 0); fewer
 * rows than the block's rows, the first and last rows of a slab one thread's; gapped rows; a
 * column of 5 rows whose first row is also its last; a middle of 1001 columns (f32 rows at 4
 * phases, f16 at 8). These take a warp a row; half a warp (test_plan's
 * launch__shift_test_shapes): columns of 5 rows, 259 wide (f32, i32) and 517 wide (f16, bf16),
 * and columns of 257 split, 1109 rows (f32, i32) and 1734 (f16, bf16). The "_tail_" shapes make
 * a few more tiles than a wave of slots, and the planner splits those last ones only
 * (launch.whole): a column of 1601 (700 rows in 5 slices, f64 3, the view's last row in the
 * last slice, offset 1); 3 slabs of 1051 columns, the third's last tiles in 2 slices. Exact
 * tiles of 32 vectors (test_plan's launch__shift_test_shapes): the column of 5 rows of 1001 in
 * f16 and bf16, and 2 slabs of 50 rows of 251 at offset 1 in f32 and i32.
 * Reads outside the tensor leave the results as they are: memcheck (RESULTS.md) is what checks
 * them. */
static const shape_case shift_cases[] = {
    {"middle_shift_split", 3, S(3, 4001, 259), S(0), false, 1, S(1), 1},
    {"col_shift_split_491", 2, S(8001, 491), S(0), false, 1, S(0), 1},
    {"col_shift_half_warp_259", 2, S(5, 259), S(0), false, 1, S(0), 1},
    {"col_shift_half_warp_517", 2, S(5, 517), S(0), false, 1, S(0), 1},
    {"middle_shift_broadcast", 3, S(3, 500, 301), S(0, 301, 1), true, 1, S(1), 1},
    {"middle_shift_few_rows", 3, S(2, 9, 1001), S(0), false, 1, S(1), 3},
    {"middle_shift_gaps", 3, S(4, 200, 333), S(70201, 351, 1), true, 1, S(1), 1},
    {"col_shift_short", 2, S(5, 1001), S(0), false, 1, S(0), 1},
    {"middle_shift_1001", 3, S(5, 301, 1001), S(0), false, 1, S(1), 0},
    {"col_shift_tail_1601", 2, S(700, 1601), S(0), false, 1, S(0), 1},
    {"middle_shift_tail_1051", 3, S(3, 300, 1051), S(0), false, 1, S(1), 0},
    {"middle_shift_exact", 3, S(2, 50, 251), S(0), false, 1, S(1), 1},
};
#define NUM_SHIFT_CASES (sizeof shift_cases / sizeof shift_cases[0])
/* shift_cases planned for a device of 4 SMs */
static const shape_case shift_cases_4sm[] = {
    {"col_shift_half_warp_split_1109", 2, S(1109, 257), S(0), false, 1, S(0), 1},
    {"col_shift_half_warp_split_1734", 2, S(1734, 257), S(0), false, 1, S(0), 1},
};
#define NUM_SHIFT_CASES_4SM (sizeof shift_cases_4sm / sizeof shift_cases_4sm[0])
/* Super-rows, planned for a device of 8 SMs (on the real one they take 3000 KB an SM, 405 MB on
 * an H200, and these shapes other plans): k rows off 16 bytes read as one row of 16-byte loads,
 * a row left over (f32 and i32 k 4, f16 and bf16 8, 34 MB or more) */
static const shape_case super_cases_8sm[] = {
    {"col_super_left", 2, S(16433, 1021), S(0), false, 1, S(0), 0},
};
#define NUM_SUPER_CASES_8SM (sizeof super_cases_8sm / sizeof super_cases_8sm[0])
/* Column tiles of 16-byte loads in at most 1.5 blocks an SM, 8 loads deep, planned for the H200's
 * 132 SMs (the planner's choice for them there): a middle of 258 rows a slice over 8 rows at
 * once (each thread 32 or 33 rows: 4 rounds of 8, then for some a clamped round of one), 4
 * slices (f64: 80 blocks of 2-element loads); columns of 2 slices (f16, bf16: 8-byte loads, not
 * deep) */
static const shape_case deep_cases_132sm[] = {
    {"middle_deep_tail", 3, S(2, 1031, 600), S(0), false, 1, S(1), 0},
    {"col_deep_two_slices", 2, S(517, 4100), S(0), false, 1, S(0), 0},
};
#define NUM_DEEP_CASES_132SM (sizeof deep_cases_132sm / sizeof deep_cases_132sm[0])
/* Warp tiles of 32 lanes (a warp a tile of few rows, no block tree: WARP_TILE_MAX_ROWS), planned
 * for a device of 2 SMs so that these shapes make a wave of warps: 296 columns (f32 3 tiles, the
 * last of 10 vectors; f16 2, the last of 5; f64 5); R1 slabs of them; at an offset (single
 * elements, 32 lanes a row). Then narrow slabs a warp a unit of fewer lanes a row (the middle_warp
 * cases of shape_cases, which on a full device are too few units to fill it a warp each and run a
 * block a unit): 8 lanes a row of 4 floats, 4 of 8 halves, 16 of 2 doubles, and so on */
static const shape_case warp_tile_cases_2sm[] = {
    {"middle_warp_tiles", 3, S(70, 40, 296), S(0), false, 1, S(1), 0},
    {"slabs_warp_tiles", 4, S(3, 70, 20, 296), S(0), false, 2, S(0, 2), 0},
    {"middle_warp_tiles_offset", 3, S(70, 40, 296), S(0), false, 1, S(1), 1},
    {"middle_warp_units_b24", 3, S(1500, 40, 24), S(0), false, 1, S(1), 0},
    {"middle_warp_units_b40", 3, S(700, 33, 40), S(0), false, 1, S(1), 0},
    {"middle_warp_units_b12", 3, S(900, 20, 12), S(0), false, 1, S(1), 0},
};
#define NUM_WARP_TILE_CASES_2SM (sizeof warp_tile_cases_2sm / sizeof warp_tile_cases_2sm[0])

/* Slabs [A, R, B] of ROW_TILE, for tile_folds__every_kind_dtype (shape[1] R, shape[2] B): 3
 * columns of 16, 32 and 48 rows (f16 2, 4 and 6 packs of 8 rows; f32 4, 8, 12 of 4; f64 8, 16,
 * 24 of 2), of 64 (f32 g 1 staggered by the planner), 129 (whole packs for no dtype) and 1024
 * (f16 and bf16 128 packs, the only dtypes whose slab fits a tile); 5 columns of 16 rows, 6 of 8
 * (f16 packs of 4 rows, f64 of one), 7 of 64; 17 columns (no pack fold); a start off 16 bytes
 * (element loads into the tile). */
static const shape_case tile_fold_cases[] = {
    {"middle_tile_b3_r16", 3, S(1001, 16, 3), S(0), false, 1, S(1), 0},
    {"middle_tile_b3_r32", 3, S(1001, 32, 3), S(0), false, 1, S(1), 0},
    {"middle_tile_b3_r48", 3, S(301, 48, 3), S(0), false, 1, S(1), 0},
    {"middle_tile_b3_r64", 3, S(301, 64, 3), S(0), false, 1, S(1), 0},
    {"middle_tile_no_packs", 3, S(101, 129, 3), S(0), false, 1, S(1), 0},
    {"middle_tile_b3_r1024", 3, S(37, 1024, 3), S(0), false, 1, S(1), 0},
    {"middle_tile_b5_r16", 3, S(1001, 16, 5), S(0), false, 1, S(1), 0},
    {"middle_tile_b6_r8", 3, S(1001, 8, 6), S(0), false, 1, S(1), 0},
    {"middle_tile_b7_r64", 3, S(201, 64, 7), S(0), false, 1, S(1), 0},
    {"middle_tile_b17_r8", 3, S(1001, 8, 17), S(0), false, 1, S(1), 0},
    {"middle_tile_b3_r32_offset", 3, S(777, 32, 3), S(0), false, 1, S(1), 1},
};
#define NUM_TILE_FOLD_CASES (sizeof tile_fold_cases / sizeof tile_fold_cases[0])

/* Shapes of millions of elements, for the planner's plan only (every kind and dtype). */
static const shape_case planner_cases[] = {
    /* f32 rows of 196 vectors, a warp each: one round of 8 vectors a lane (the group kernel's
     * ranges 8), aligned or not */
    {"row_warp_one_round", 2, S(3001, 784), S(0), false, 1, S(1), 0},
    {"row_warp_one_round_offset", 2, S(1001, 784), S(0), false, 1, S(1), 3},
    /* a warp a row over 1600 tiles: blocks of 4 warps (f32, f64 one round of 4 vectors deep;
     * f16, bf16 of 8), aligned or not */
    {"row_warp_blocks_of_4", 2, S(6400, 1100), S(0), false, 1, S(1), 0},
    {"row_warp_blocks_of_4_offset", 2, S(6400, 1100), S(0), false, 1, S(1), 1},
    /* a split of 136 slices (68 for f16): the last block's combine 8 loads deep, 16-byte loads
     * of 4 or 2 columns (aligned) or one (offset) */
    {"col_split_deep", 2, S(70001, 128), S(0), false, 1, S(0), 0},
    {"col_split_deep_offset", 2, S(70001, 128), S(0), false, 1, S(0), 1},
    /* 500 channels of 64 KB (f32) or 128 KB (f64): one to two waves of units, 2 blocks an SM
     * striding over them at DEPTH 2 (f16: a persistent grid of 3 an SM) */
    {"outer_inner_two_waves", 4, S(8, 500, 32, 64), S(0), false, 3, S(0, 2, 3), 0},
    /* 16-byte column loads in few blocks: 32 rows a thread (11 slices of 273 rows, not 5) */
    {"col_few_blocks", 2, S(3001, 1000), S(0), false, 1, S(0), 0},
    /* a flat walk whose threads have 2 or 3 vectors after the whole rounds: one clamped round
     * (f32: 539 vectors a unit, f16: 286 covering vectors); DEPTH 2 (f32, f64): 2 of a round
     * of 7 */
    {"outer_inner_tail_round", 4, S(32, 100, 14, 14), S(0), false, 3, S(0, 2, 3), 0},
    {"outer_inner_tail_round_deep", 4, S(9, 500, 32, 64), S(0), false, 3, S(0, 2, 3), 0},
    /* 500 units of a few loads a thread: blocks of 64 threads, a flat walk of vectors (f32
     * [., 14, 14]) or of covering vectors (the others) */
    {"outer_inner_small_units", 4, S(16, 500, 14, 14), S(0), false, 3, S(0, 2, 3), 0},
    {"outer_inner_small_units_odd", 4, S(16, 500, 7, 7), S(0), false, 3, S(0, 2, 3), 0},
    /* a warp tile of groups a warp over thousands of blocks, the last tile partly past the
     * end, rows past the last whole group */
    {"row_pack_deep2", 2, S(1200007, 2), S(0), false, 1, S(1), 0},
    {"row_pack_deep3", 2, S(900001, 3), S(0), false, 1, S(1), 0},
};
#define NUM_PLANNER_CASES (sizeof planner_cases / sizeof planner_cases[0])

static int group_setup(void **state)
{
    (void)state;
    g_have = ts_have_cuda();
    if (g_have) {
        char msg[256];
        if (opnn_cuda_device_props(&g_props, msg, sizeof msg) != OP_OK) {
            fprintf(stderr, "no device props: %s\n", msg);
            g_have = false;
        }
    }
    return 0;
}

#define NEED_CUDA()                                                                                \
    do {                                                                                           \
        if (!g_have)                                                                               \
            skip();                                                                                \
    } while (0)

/* One family (-1: the planner's choice) for every kind and dtype: how many of the kind-dtype
 * pairs tried it served (*tried: how many were tried). */
static int every_kind_dtype(const shape_case *c, int family, opnn_cuda_state **cs, int *tried)
{
    uint64_t seed = ts_seed(c->name) + (uint64_t)(family + 1) * 131;
    int served = 0;

    *tried = 0;
    for (size_t d = 0; d < sizeof dtype_names / sizeof dtype_names[0]; d++) {
        DLDataType t = ts_dtype(dtype_names[d]);
        for (int k = 0; k < OPNN_REDUCE_KIND_COUNT_; k++) {
            /* OPNN_TEST_QUICK (under compute-sanitizer): one kind per dtype */
            if (getenv("OPNN_TEST_QUICK") && (size_t)k != d % OPNN_REDUCE_KIND_COUNT_)
                continue;
            /* integer Mean of an empty set is refused before any kernel (op level) */
            if (k == OPNN_REDUCE_MEAN && !ts_dtype_is_float(t) && !strcmp(c->name, "fill"))
                continue;
            (*tried)++;
            run_result r = run_checked(c, t, (opnn_reduce_kind)k, family, FILL_RANDOM,
                                       seed + d * 7 + (uint64_t)k, 0, cs);
            if (!r.ran)
                continue; /* this family cannot serve the shape (for this dtype) */
            served++;
            free(r.host_out);
        }
    }
    return served;
}

/* Every family that can serve the shape (and the planner's own choice), for every kind and
 * dtype. */
static void families__every_kind_dtype(void **state)
{
    const shape_case *c = *state;
    opnn_cuda_state *cs = NULL;
    int served = 0, tried = 0;

    NEED_CUDA();
    for (int family = -1; family < OPNN_FAMILY_COUNT_; family++)
        served += every_kind_dtype(c, family, &cs, &tried);
    assert_true(served > 0);
    opnn_cuda_state_destroy(cs);
}

/* The planner's plan for every kind and dtype. */
static void planner__every_kind_dtype(void **state)
{
    const shape_case *c = *state;
    opnn_cuda_state *cs = NULL;
    int served, tried = 0;

    NEED_CUDA();
    /* the planner serves every kind and dtype it was given */
    served = every_kind_dtype(c, -1, &cs, &tried);
    assert_true(tried > 0);
    assert_int_equal(served, tried);
    opnn_cuda_state_destroy(cs);
}

/* Max/Min propagate NaN wherever it is; Sum meets +inf and -inf. */
static void families__nan_inf(void **state)
{
    const shape_case *c = *state;
    opnn_cuda_state *cs = NULL;
    uint64_t seed = ts_seed(c->name);
    const char *floats[] = {"f32", "f64", "f16", "bf16"};
    const opnn_reduce_kind kinds[] = {OPNN_REDUCE_MAX, OPNN_REDUCE_MIN, OPNN_REDUCE_SUM};

    NEED_CUDA();
    for (int family = -1; family < OPNN_FAMILY_COUNT_; family++)
        for (size_t d = 0; d < 4; d++)
            for (size_t k = 0; k < 3; k++) {
                run_result r = run_checked(c, ts_dtype(floats[d]), kinds[k], family, FILL_SPECIAL,
                                           seed + (uint64_t)family * 17 + d * 3 + k, 0, &cs);
                free(r.host_out);
            }
    opnn_cuda_state_destroy(cs);
}

/* Teardown: the planner's fold again (also after a failure, which leaves the test early). */
static int tile_fold_reset(void **state)
{
    (void)state;
    g_tile_ranges = g_tile_sub = 0;
    return 0;
}

/* ROW_TILE's slab plan run with each of its folds, whatever the planner chose: element by
 * element over g lanes an output (ranges 1), from a staggered row (ranges 2), and from whole
 * packs of rows, g lanes a slab (ranges 3, where the slab's B has a pack fold and its rows are
 * whole packs for the dtype; g past the slab's packs leaves lanes without one), g every power of
 * two up to 32 and the column's rows; every kind and dtype, and NaN/inf for the floats. */
static void tile_folds__every_kind_dtype(void **state)
{
    const shape_case *c = *state;
    opnn_cuda_state *cs = NULL;
    uint64_t seed = ts_seed(c->name);
    const int64_t r = c->shape[1], b = c->shape[2];
    const opnn_reduce_kind kinds[] = {OPNN_REDUCE_MAX, OPNN_REDUCE_MIN, OPNN_REDUCE_SUM};
    int served = 0, packs = 0;

    NEED_CUDA();
    for (int ranges = 1; ranges <= 3; ranges++)
        for (int g = 1; g <= 32 && g <= r; g *= 2) {
            g_tile_ranges = ranges;
            g_tile_sub = g;
            for (size_t d = 0; d < sizeof dtype_names / sizeof dtype_names[0]; d++) {
                DLDataType t = ts_dtype(dtype_names[d]);
                const int64_t row = b * (int64_t)ts_dtype_size(t);
                const int64_t prow = 16 / (row % 16 == 0  ? 16
                                           : row % 8 == 0 ? 8
                                           : row % 4 == 0 ? 4
                                                          : 2);
                if (ranges == 3 && (!OPNN_CUDA_ROW_TILE_PACK_COLS(b) || r % prow != 0))
                    continue;
                for (int k = 0; k < OPNN_REDUCE_KIND_COUNT_; k++) {
                    if (getenv("OPNN_TEST_QUICK") && (size_t)k != d % OPNN_REDUCE_KIND_COUNT_)
                        continue;
                    run_result res = run_checked(c, t, (opnn_reduce_kind)k, OPNN_FAMILY_ROW_TILE,
                                                 FILL_RANDOM, seed + d * 7 + (uint64_t)k, 0, &cs);
                    served += res.ran;
                    packs += res.ran && ranges == 3;
                    free(res.host_out);
                }
                if (!ts_dtype_is_float(t))
                    continue;
                for (size_t k = 0; k < 3; k++) {
                    run_result res = run_checked(c, t, kinds[k], OPNN_FAMILY_ROW_TILE, FILL_SPECIAL,
                                                 seed + d * 3 + k, 0, &cs);
                    free(res.host_out);
                }
            }
        }
    tile_fold_reset(NULL);
    assert_true(served > 0);
    /* the cases are chosen so that some dtype folds packs, but for the one without */
    if (OPNN_CUDA_ROW_TILE_PACK_COLS(b) && strcmp(c->name, "middle_tile_no_packs") != 0)
        assert_true(packs > 0);
    opnn_cuda_state_destroy(cs);
}

/* --- random layouts ------------------------------------------------------------------------ */

static void random__layouts(void **state)
{
    (void)state;
    uint64_t seed = ts_seed("random__layouts");
    ts_rng rng = {seed};
    opnn_cuda_state *cs = NULL;

    NEED_CUDA();
    for (int it = 0; it < 300; it++) {
        shape_case c;
        char name[64];
        int64_t perm[6], compact[6], total = 1;
        memset(&c, 0, sizeof c);
        snprintf(name, sizeof name, "random_%d", it);
        c.name = name;
        c.ndim = (int32_t)ts_range(&rng, 1, 5);
        for (int i = 0; i < c.ndim; i++) {
            /* mostly small dims, sometimes long ones, rarely 0 or 1 */
            int64_t r = ts_range(&rng, 0, 19);
            c.shape[i] = r == 0 ? 1 : r == 1 ? ts_range(&rng, 200, 3000) : ts_range(&rng, 2, 13);
            total *= c.shape[i];
        }
        if (total > 400000)
            continue;
        for (int i = 0; i < c.ndim; i++)
            if (ts_range(&rng, 0, 2) == 0)
                c.axes[c.naxes++] = i - (ts_range(&rng, 0, 1) ? c.ndim : 0);
        if (ts_range(&rng, 0, 1)) {
            /* a permuted, gapped view: strides of a random dim order with padding */
            for (int i = 0; i < c.ndim; i++)
                perm[i] = i;
            for (int i = c.ndim - 1; i > 0; i--) {
                int64_t j = ts_range(&rng, 0, i), tmp = perm[i];
                perm[i] = perm[j];
                perm[j] = tmp;
            }
            int64_t step = 1;
            for (int i = c.ndim - 1; i >= 0; i--) {
                compact[perm[i]] = step;
                step *= c.shape[perm[i]] + (ts_range(&rng, 0, 3) == 0 ? ts_range(&rng, 1, 3) : 0);
            }
            for (int i = 0; i < c.ndim; i++)
                c.strides[i] = compact[i];
            c.has_strides = true;
        }
        c.offset = ts_range(&rng, 0, 3) == 0 ? ts_range(&rng, 1, 7) : 0;
        DLDataType t = ts_dtype(dtype_names[ts_range(&rng, 0, 5)]);
        opnn_reduce_kind k = (opnn_reduce_kind)ts_range(&rng, 0, OPNN_REDUCE_KIND_COUNT_ - 1);
        if (k == OPNN_REDUCE_MEAN && !ts_dtype_is_float(t))
            k = OPNN_REDUCE_SUM; /* an empty integer Mean is refused at the op level */
        run_result r = run_checked(&c, t, k, -1, FILL_RANDOM, ts_next(&rng), 0, &cs);
        free(r.host_out);
    }
    opnn_cuda_state_destroy(cs);
}

/* --- determinism --------------------------------------------------------------------------- */

static void determinism__split_families_bitwise(void **state)
{
    (void)state;
    static const shape_case cases[] = {
        {"det_full", 1, S(1234567), S(0), false, 0, S(0), 0},
        {"det_row_split", 2, S(5, 400001), S(0), false, 1, S(1), 0},
        {"det_col_split", 2, S(20000, 300), S(0), false, 1, S(0), 0},
        {"det_col_narrow", 2, S(200000, 7), S(0), false, 1, S(0), 0},
        {"det_outer_inner", 3, S(64, 16, 3001), S(0), false, 2, S(0, 2), 0},
        /* super-rows (f32: 4 rows of 301, 34 MB, planned for 8 SMs) and their fold (last: the
         * cases before keep their seeds) */
        {"det_col_super", 2, S(28001, 301), S(0), false, 1, S(0), 0},
    };
    opnn_cuda_state *cs = NULL;
    uint64_t seed = ts_seed("determinism__split_families_bitwise");
    /* static: a failed check leaves the test by longjmp; plan_props_reset puts g_props back */
    static opnn_device_props eight;
    int supers = 0;

    NEED_CUDA();
    eight = g_props;
    eight.sm_count = 8;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        g_plan_props = strcmp(cases[i].name, "det_col_super") == 0 ? &eight : &g_props;
        for (int family = -1; family < OPNN_FAMILY_COUNT_; family++) {
            const char *dts[] = {"f32", "bf16", "f64"};
            for (int d = 0; d < 3; d++) {
                DLDataType t = ts_dtype(dts[d]);
                run_result a = run_checked(&cases[i], t, OPNN_REDUCE_SUM, family, FILL_RANDOM,
                                           seed + i, 0, &cs);
                if (!a.ran)
                    break;
                run_result b = run_checked(&cases[i], t, OPNN_REDUCE_SUM, family, FILL_RANDOM,
                                           seed + i, 0, &cs);
                supers += a.super;
                assert_int_equal(a.out_bytes, b.out_bytes);
                if (memcmp(a.host_out, b.host_out, a.out_bytes) != 0)
                    fail_msg("%s %s family %d: two runs differ", cases[i].name, dts[d], family);
                free(a.host_out);
                free(b.host_out);
            }
        }
    }
    g_plan_props = &g_props;
    opnn_cuda_state_destroy(cs);
    assert_true(supers > 0);
}

/* --- past 2^31 elements (f16, real memory) ------------------------------------------------- */

static uint16_t f16_bits(float f)
{
    return ts_f32_to_f16(f);
}

/* Runs kind on [rows, cols] f16 over `mask` (1: axis 1, 2: axis 0, 3: all) with the data on the
 * device; copies back the first and last `keep` outputs. */
static void big_run(void *d_in, int64_t rows, int64_t cols, uint32_t axes_mask,
                    opnn_reduce_kind kind, uint16_t *first, uint16_t *last, int64_t keep,
                    int64_t *nout, opnn_cuda_state **cs, const char *what)
{
    int64_t shape[2] = {rows, cols}, axes[2];
    size_t na = 0;
    if (axes_mask & 2)
        axes[na++] = 0;
    if (axes_mask & 1)
        axes[na++] = 1;
    opnn_reduce_request req = {.op = "big",
                               .ndim = 2,
                               .shape = shape,
                               .strides = NULL,
                               .axes = axes,
                               .num_axes = na,
                               .noop_with_empty_axes = false,
                               .dtype = ts_dtype("f16")};
    opnn_reduce_plan plan;
    char msg[512] = "";
    void *d_out = NULL;

    assert_int_equal(opnn__reduce_plan_init(&plan, &req, msg, sizeof msg), OP_OK);
    opnn__reduce_plan_launch(&plan, &g_props);
    printf("[ big  ] %s: class %s family %s, %lld outputs\n", what,
           opnn__reduce_class_name(plan.cls), opnn__cuda_family_name(plan.launch.family),
           (long long)plan.out_numel);
    CUDA_OK(cudaMalloc(&d_out, (size_t)plan.out_numel * 2));
    op_status s = opnn_cuda_reduce(&plan, kind, d_in, d_out, NULL, cs, msg, sizeof msg);
    if (s != OP_OK)
        fail_msg("%s: %s", what, msg);
    CUDA_OK(cudaDeviceSynchronize());
    *nout = plan.out_numel;
    if (keep > plan.out_numel)
        keep = plan.out_numel;
    CUDA_OK(cudaMemcpy(first, d_out, (size_t)keep * 2, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(last, (uint16_t *)d_out + plan.out_numel - keep, (size_t)keep * 2,
                       cudaMemcpyDeviceToHost));
    CUDA_OK(cudaFree(d_out));
}

/* A device buffer of n f16 elements, each 0x3C3C (1.05859375) but the first (0.5) and element
 * `at_hi` (2.0); the test skips where the device lacks the memory. */
static void *big_alloc(int64_t n, int64_t at_hi)
{
    uint16_t lo = f16_bits(0.5f), hi = f16_bits(2.0f);
    void *d = NULL;

    NEED_CUDA();
    if (cudaMalloc(&d, (size_t)n * 2) != cudaSuccess) {
        (void)cudaGetLastError();
        skip();
    }
    CUDA_OK(cudaMemset(d, 0x3C, (size_t)n * 2));
    CUDA_OK(cudaMemcpy(d, &lo, 2, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy((uint16_t *)d + at_hi, &hi, 2, cudaMemcpyHostToDevice));
    return d;
}

static void large__f16_past_2e31(void **state)
{
    (void)state;
    /* 4 * 536870913 = 2^31 + 4 elements: every element 0x3C3C (1.05859375), the first 0.5 and
     * the last 2.0, so every expected value is known without a host pass over 4 GB */
    const int64_t rows4 = 4, cols4 = ((int64_t)1 << 29) + 1, n = rows4 * cols4;
    const float fill = ts_f16_to_f32(0x3C3C);
    uint16_t first[1024], last[1024], lo = f16_bits(0.5f), hi = f16_bits(2.0f);
    opnn_cuda_state *cs = NULL;
    void *d = big_alloc(n, n - 1);
    int64_t nout;

    /* full: Max, Min and Mean */
    big_run(d, 1, n, 3, OPNN_REDUCE_MAX, first, last, 1, &nout, &cs, "full max");
    assert_int_equal(first[0], hi);
    big_run(d, 1, n, 3, OPNN_REDUCE_MIN, first, last, 1, &nout, &cs, "full min");
    assert_int_equal(first[0], lo);
    big_run(d, 1, n, 3, OPNN_REDUCE_MEAN, first, last, 1, &nout, &cs, "full mean");
    {
        double want = ((double)fill * (double)(n - 2) + 0.5 + 2.0) / (double)n;
        assert_int_equal(first[0], f16_bits((float)want));
    }
    /* rows: 4 rows of 2^29 + 1 (block / split), and 2^29 + 1 rows of 4 (tiny rows) */
    big_run(d, rows4, cols4, 1, OPNN_REDUCE_MAX, first, last, 4, &nout, &cs, "row max");
    assert_int_equal(nout, 4);
    assert_int_equal(first[0], 0x3C3C);
    assert_int_equal(first[3], hi);
    big_run(d, rows4, cols4, 1, OPNN_REDUCE_MIN, first, last, 4, &nout, &cs, "row min");
    assert_int_equal(first[0], lo);
    assert_int_equal(first[3], 0x3C3C);
    big_run(d, cols4, rows4, 1, OPNN_REDUCE_MAX, first, last, 1024, &nout, &cs, "tiny rows max");
    assert_int_equal(nout, cols4);
    assert_int_equal(first[0], 0x3C3C);
    assert_int_equal(last[1023], hi);
    assert_int_equal(last[1022], 0x3C3C);
    big_run(d, cols4, rows4, 1, OPNN_REDUCE_SUM, first, last, 1024, &nout, &cs, "tiny rows sum");
    assert_int_equal(first[0], f16_bits(0.5f + 3 * fill));
    assert_int_equal(first[1], f16_bits(4 * fill));
    assert_int_equal(last[1023], f16_bits(2.0f + 3 * fill));
    /* columns: [4, 2^29 + 1] over axis 0 */
    big_run(d, rows4, cols4, 2, OPNN_REDUCE_MAX, first, last, 1024, &nout, &cs, "col max");
    assert_int_equal(nout, cols4);
    assert_int_equal(first[0], 0x3C3C);
    assert_int_equal(last[1023], hi);
    big_run(d, rows4, cols4, 2, OPNN_REDUCE_MIN, first, last, 1024, &nout, &cs, "col min");
    assert_int_equal(first[0], lo);
    assert_int_equal(last[1023], 0x3C3C);

    CUDA_OK(cudaFree(d));
    opnn_cuda_state_destroy(cs);
}

/* Rows of 16 vectors past 2^31 elements (ROW_TILE from 1 GiB): [2^24 + 1, 128] (2^31 + 128
 * elements) of 0x3C3C, the first 0.5 and element 3 of the last row 2.0. A test of its own, so
 * that the sanitizers can take it in a process of its own. */
static void large__f16_rows_past_2e31(void **state)
{
    (void)state;
    const int64_t rows128 = ((int64_t)1 << 24) + 1, n = rows128 * 128;
    const float fill = ts_f16_to_f32(0x3C3C);
    uint16_t first[1024], last[1024], hi = f16_bits(2.0f);
    opnn_cuda_state *cs = NULL;
    void *d = big_alloc(n, (rows128 - 1) * 128 + 3);
    int64_t nout;

    big_run(d, rows128, 128, 1, OPNN_REDUCE_MAX, first, last, 1024, &nout, &cs, "128-rows max");
    assert_int_equal(nout, rows128);
    assert_int_equal(first[0], 0x3C3C);
    assert_int_equal(last[1023], hi);
    assert_int_equal(last[1022], 0x3C3C);
    big_run(d, rows128, 128, 1, OPNN_REDUCE_SUM, first, last, 1024, &nout, &cs, "128-rows sum");
    assert_int_equal(first[0], f16_bits(0.5f + 127 * fill));
    assert_int_equal(first[1], f16_bits(128 * fill));
    assert_int_equal(last[1023], f16_bits(2.0f + 127 * fill));

    CUDA_OK(cudaFree(d));
    opnn_cuda_state_destroy(cs);
}

/* --- streams and graphs -------------------------------------------------------------------- */

/* Plans and fills one case on the device; returns the plan and device buffers. */
typedef struct dev_case {
    opnn_reduce_plan plan;
    void *h_in, *d_in, *d_out;
    size_t in_bytes, out_bytes;
    ts_tensor x;
} dev_case;

static void dev_case_init(dev_case *dc, const int64_t *shape, int32_t ndim, const int64_t *axes,
                          size_t naxes, DLDataType t, uint64_t seed)
{
    opnn_reduce_request req = {.op = "dev",
                               .ndim = ndim,
                               .shape = shape,
                               .strides = NULL,
                               .axes = axes,
                               .num_axes = naxes,
                               .noop_with_empty_axes = false,
                               .dtype = t};
    char msg[256];
    ts_rng rng = {seed};

    memset(dc, 0, sizeof *dc);
    assert_int_equal(opnn__reduce_plan_init(&dc->plan, &req, msg, sizeof msg), OP_OK);
    opnn__reduce_plan_launch(&dc->plan, &g_props);
    dc->in_bytes = (size_t)ts_numel(ndim, shape) * ts_dtype_size(t);
    dc->out_bytes = (size_t)dc->plan.out_numel * ts_dtype_size(t);
    dc->h_in = malloc(dc->in_bytes);
    assert_non_null(dc->h_in);
    ts_fill_random(&rng, dc->h_in, t, ts_numel(ndim, shape), 1.0);
    CUDA_OK(cudaMalloc(&dc->d_in, dc->in_bytes));
    CUDA_OK(cudaMalloc(&dc->d_out, dc->out_bytes));
    CUDA_OK(cudaMemcpy(dc->d_in, dc->h_in, dc->in_bytes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaDeviceSynchronize()); /* before work on a non-blocking stream reads it */
    ts_tensor_init(&dc->x, dc->h_in, kDLCPU, t, ndim, shape, NULL);
}

static void dev_case_check(dev_case *dc, ts_op op, const char *what)
{
    void *out = malloc(dc->out_bytes);
    double *ref_f = malloc(sizeof(double) * (size_t)dc->plan.out_numel);
    int64_t *ref_i = malloc(sizeof(int64_t) * (size_t)dc->plan.out_numel);
    assert_non_null(out);
    assert_non_null(ref_f);
    assert_non_null(ref_i);
    CUDA_OK(cudaMemcpy(out, dc->d_out, dc->out_bytes, cudaMemcpyDeviceToHost));
    ts_reference(op, &dc->x.t, dc->plan.red_mask, ref_f, ref_i);
    if (!ts_check(what, out, dc->x.t.dtype, dc->plan.out_numel, ref_f, ref_i, dc->plan.red_numel,
                  op))
        fail_msg("%s: mismatch", what);
    free(out);
    free(ref_f);
    free(ref_i);
}

/* Enqueues kind over dc on stream st with state *cs, into out (NULL: dc's own output). */
static op_status dev_case_run(dev_case *dc, opnn_reduce_kind kind, void *out, cudaStream_t st,
                              opnn_cuda_state **cs)
{
    char msg[512];
    return opnn_cuda_reduce(&dc->plan, kind, dc->d_in, out ? out : dc->d_out, st, cs, msg,
                            sizeof msg);
}

/* New random input for dc from rng, on the device before work on any stream reads it (a copy
 * from pageable memory may still be in flight when cudaMemcpy returns, and a non-blocking
 * stream does not wait for the legacy stream). */
static void dev_case_refill(dev_case *dc, ts_rng *rng)
{
    ts_fill_random(rng, dc->h_in, dc->x.t.dtype, dc->plan.out_numel * dc->plan.red_numel, 1.0);
    CUDA_OK(cudaMemcpy(dc->d_in, dc->h_in, dc->in_bytes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaDeviceSynchronize());
}

static void dev_case_free(dev_case *dc)
{
    cudaFree(dc->d_in);
    cudaFree(dc->d_out);
    free(dc->h_in);
}

static void graph__capture_and_replay(void **state)
{
    (void)state;
    const int64_t s1[] = {1000003}, s2[] = {20000, 300}, ax2[] = {0};
    uint64_t seed = ts_seed("graph__capture_and_replay");
    opnn_cuda_state *cs = NULL, *fresh = NULL;
    cudaStream_t st;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    dev_case a, b;
    char msg[512];

    NEED_CUDA();
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    dev_case_init(&a, s1, 1, NULL, 0, ts_dtype("f32"), seed);
    dev_case_init(&b, s2, 2, ax2, 1, ts_dtype("bf16"), seed + 1);
    assert_true(a.plan.launch.split > 1); /* the counters must reset themselves in replays */
    assert_true(b.plan.launch.split > 1);

    /* warm-up: the workspace is allocated outside the capture */
    assert_int_equal(dev_case_run(&a, OPNN_REDUCE_SUM, NULL, st, &cs), OP_OK);
    assert_int_equal(dev_case_run(&b, OPNN_REDUCE_MAX, NULL, st, &cs), OP_OK);
    CUDA_OK(cudaStreamSynchronize(st));

    CUDA_OK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    op_status sa = dev_case_run(&a, OPNN_REDUCE_SUM, NULL, st, &cs);
    op_status sb = dev_case_run(&b, OPNN_REDUCE_MAX, NULL, st, &cs);
    /* a state that would have to allocate refuses cleanly inside a capture */
    op_status sf =
        opnn_cuda_reduce(&a.plan, OPNN_REDUCE_SUM, a.d_in, a.d_out, st, &fresh, msg, sizeof msg);
    CUDA_OK(cudaStreamEndCapture(st, &g));
    assert_int_equal(sa, OP_OK);
    assert_int_equal(sb, OP_OK);
    assert_int_equal(sf, OP_ERR_UNSUPPORTED);
    assert_non_null(strstr(msg, "capture"));
    CUDA_OK(cudaGraphInstantiate(&ge, g, 0));

    for (int rep = 0; rep < 3; rep++) {
        ts_rng rng = {seed + 100 + (uint64_t)rep};
        dev_case_refill(&a, &rng);
        dev_case_refill(&b, &rng);
        CUDA_OK(cudaGraphLaunch(ge, st));
        CUDA_OK(cudaStreamSynchronize(st));
        dev_case_check(&a, TS_SUM, "graph replay full sum");
        dev_case_check(&b, TS_MAX, "graph replay col max");
    }
    CUDA_OK(cudaGraphExecDestroy(ge));
    CUDA_OK(cudaGraphDestroy(g));
    opnn_cuda_state_destroy(cs);
    opnn_cuda_state_destroy(fresh);
    dev_case_free(&a);
    dev_case_free(&b);
    CUDA_OK(cudaStreamDestroy(st));
}

/* Small calls repeated with the same plan and pointers are replayed as graphs: each replay
 * reads the input as it is then, split launches reset their counters, a new output pointer is
 * a new graph, more keys than slots evict, OPNN_CUDA_GRAPHS=0 turns it off. */
static void graph__small_calls_replayed(void **state)
{
    (void)state;
    const int64_t s1[] = {64, 1024}, s2[] = {4096}, s3[] = {250000}, ax1[] = {1};
    uint64_t seed = ts_seed("graph__small_calls_replayed");
    opnn_cuda_state *cs = NULL, *off = NULL;
    cudaStream_t st;
    dev_case a, b, c;

    NEED_CUDA();
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    dev_case_init(&a, s1, 2, ax1, 1, ts_dtype("f32"), seed);
    dev_case_init(&b, s2, 1, NULL, 0, ts_dtype("f16"), seed + 1);
    dev_case_init(&c, s3, 1, NULL, 0, ts_dtype("f32"), seed + 2);
    assert_true(c.plan.launch.split > 1); /* partials and counters inside the graph */
    for (int rep = 0; rep < 4; rep++) {
        ts_rng rng = {seed + 10 + (uint64_t)rep};
        dev_case_refill(&a, &rng);
        dev_case_refill(&b, &rng);
        dev_case_refill(&c, &rng);
        assert_int_equal(dev_case_run(&a, OPNN_REDUCE_SUM, NULL, st, &cs), OP_OK);
        assert_int_equal(dev_case_run(&b, OPNN_REDUCE_MAX, NULL, st, &cs), OP_OK);
        assert_int_equal(dev_case_run(&c, OPNN_REDUCE_SUM, NULL, st, &cs), OP_OK);
        CUDA_OK(cudaStreamSynchronize(st));
        dev_case_check(&a, TS_SUM, "replayed rows sum");
        dev_case_check(&b, TS_MAX, "replayed full max");
        dev_case_check(&c, TS_SUM, "replayed split full sum");
        assert_int_equal(opnn_cuda_state_graphs(cs), rep == 0 ? 0 : 3);
    }

    /* six more outputs in turn, three times: nine keys for eight slots (one evicted); every
     * result still lands, and the six get graphs */
    float *outs = NULL, host[6 * 64];
    CUDA_OK(cudaMalloc((void **)&outs, sizeof host));
    for (int round = 0; round < 3; round++)
        for (int k = 0; k < 6; k++)
            assert_int_equal(dev_case_run(&a, OPNN_REDUCE_SUM, outs + 64 * k, st, &cs), OP_OK);
    CUDA_OK(cudaStreamSynchronize(st));
    CUDA_OK(cudaMemcpy(host, outs, sizeof host, cudaMemcpyDeviceToHost));
    float ref[64];
    CUDA_OK(cudaMemcpy(ref, a.d_out, sizeof ref, cudaMemcpyDeviceToHost));
    for (int k = 0; k < 6; k++)
        assert_memory_equal(host + 64 * k, ref, sizeof ref); /* same plan: bitwise equal */
    assert_true(opnn_cuda_state_graphs(cs) >= 6);

    setenv("OPNN_CUDA_GRAPHS", "0", 1);
    for (int rep = 0; rep < 3; rep++)
        assert_int_equal(dev_case_run(&a, OPNN_REDUCE_SUM, NULL, st, &off), OP_OK);
    unsetenv("OPNN_CUDA_GRAPHS");
    CUDA_OK(cudaStreamSynchronize(st));
    dev_case_check(&a, TS_SUM, "rows sum without graphs");
    assert_int_equal(opnn_cuda_state_graphs(off), 0);

    CUDA_OK(cudaFree(outs));
    opnn_cuda_state_destroy(cs);
    opnn_cuda_state_destroy(off);
    dev_case_free(&a);
    dev_case_free(&b);
    dev_case_free(&c);
    CUDA_OK(cudaStreamDestroy(st));
}

static void streams__two_states_concurrently(void **state)
{
    (void)state;
    const int64_t s1[] = {7, 300001}, ax1[] = {1}, s2[] = {64, 32, 3001}, ax2[] = {0, 2};
    uint64_t seed = ts_seed("streams__two_states_concurrently");
    opnn_cuda_state *c1 = NULL, *c2 = NULL;
    cudaStream_t st1, st2;
    dev_case a, b;

    NEED_CUDA();
    CUDA_OK(cudaStreamCreateWithFlags(&st1, cudaStreamNonBlocking));
    CUDA_OK(cudaStreamCreateWithFlags(&st2, cudaStreamNonBlocking));
    dev_case_init(&a, s1, 2, ax1, 1, ts_dtype("f32"), seed);
    dev_case_init(&b, s2, 3, ax2, 2, ts_dtype("f16"), seed + 1);
    assert_true(a.plan.launch.split > 1);
    assert_true(b.plan.launch.split > 1);
    /* no synchronisation between the calls: the two states' counters and partials are
     * separate, each stream orders its own launches */
    for (int rep = 0; rep < 20; rep++) {
        assert_int_equal(dev_case_run(&a, OPNN_REDUCE_SUM, NULL, st1, &c1), OP_OK);
        assert_int_equal(dev_case_run(&b, OPNN_REDUCE_SUM, NULL, st2, &c2), OP_OK);
    }
    CUDA_OK(cudaStreamSynchronize(st1));
    CUDA_OK(cudaStreamSynchronize(st2));
    dev_case_check(&a, TS_SUM, "stream 1 row split sum");
    dev_case_check(&b, TS_SUM, "stream 2 outer_inner sum");
    opnn_cuda_state_destroy(c1);
    opnn_cuda_state_destroy(c2);
    dev_case_free(&a);
    dev_case_free(&b);
    CUDA_OK(cudaStreamDestroy(st1));
    CUDA_OK(cudaStreamDestroy(st2));
}

/* --- bad input ----------------------------------------------------------------------------- */

static void pointers__host_and_foreign_rejected(void **state)
{
    (void)state;
    char msg[512];
    float stack_val = 0;
    void *host = malloc(64), *dev = NULL;
    int ndev = 0;

    NEED_CUDA();
    CUDA_OK(cudaMalloc(&dev, 64));
    assert_int_equal(opnn_cuda_check_pointer(dev, "ReduceSum", "input 0", msg, sizeof msg), OP_OK);
    assert_int_equal(opnn_cuda_check_pointer(host, "ReduceSum", "input 0", msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "ReduceSum"));
    assert_non_null(strstr(msg, "input 0"));
    assert_int_equal(opnn_cuda_check_pointer(&stack_val, "ReduceMax", "output 0", msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "output 0"));
    assert_int_equal(opnn_cuda_check_pointer(NULL, "ReduceMax", "input 0", msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    CUDA_OK(cudaGetDeviceCount(&ndev));
    if (ndev > 1) {
        void *other = NULL;
        int cur = 0;
        CUDA_OK(cudaGetDevice(&cur));
        CUDA_OK(cudaSetDevice(1 - cur));
        CUDA_OK(cudaMalloc(&other, 64));
        CUDA_OK(cudaSetDevice(cur));
        assert_int_equal(opnn_cuda_check_pointer(other, "ReduceSum", "input 0", msg, sizeof msg),
                         OP_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(msg, "cuda:"));
        CUDA_OK(cudaFree(other));
    }
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaFree(dev));
    free(host);
}

static void reduce__bad_arguments_rejected(void **state)
{
    (void)state;
    const int64_t shape[] = {1000};
    opnn_reduce_request req = {.op = "t", .ndim = 1, .shape = shape, .dtype = ts_dtype("f32")};
    opnn_reduce_plan plan;
    opnn_cuda_state *cs = NULL;
    char msg[512];
    void *d = NULL, *o = NULL;

    NEED_CUDA();
    CUDA_OK(cudaMalloc(&d, 4096 + 16));
    CUDA_OK(cudaMalloc(&o, 1024));
    assert_int_equal(opnn__reduce_plan_init(&plan, &req, msg, sizeof msg), OP_OK);
    /* no launch geometry yet */
    assert_int_equal(opnn_cuda_reduce(&plan, OPNN_REDUCE_SUM, d, o, NULL, &cs, msg, sizeof msg),
                     OP_ERR_INTERNAL);
    opnn__reduce_plan_launch(&plan, &g_props);
    assert_int_equal(opnn_cuda_reduce(&plan, OPNN_REDUCE_SUM, NULL, o, NULL, &cs, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(opnn_cuda_reduce(&plan, OPNN_REDUCE_SUM, d, NULL, NULL, &cs, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(
        opnn_cuda_reduce(&plan, (opnn_reduce_kind)99, d, o, NULL, &cs, msg, sizeof msg),
        OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(opnn_cuda_reduce(NULL, OPNN_REDUCE_SUM, d, o, NULL, &cs, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    /* an f32 tensor that starts inside an element */
    assert_int_equal(
        opnn_cuda_reduce(&plan, OPNN_REDUCE_SUM, (char *)d + 1, o, NULL, &cs, msg, sizeof msg),
        OP_ERR_UNSUPPORTED);
    assert_int_equal(opnn_cuda_reduce(&plan, OPNN_REDUCE_SUM, d, o, NULL, &cs, msg, sizeof msg),
                     OP_OK);
    /* a block row plan (256 lanes a range) run with a block of 128 threads: refused, not an
     * endless kernel */
    const int64_t rows[2] = {4, 256}, last[1] = {1};
    opnn_reduce_request rreq = {
        .op = "t", .ndim = 2, .shape = rows, .axes = last, .num_axes = 1, .dtype = ts_dtype("f32")};
    assert_int_equal(opnn__reduce_plan_init(&plan, &rreq, msg, sizeof msg), OP_OK);
    assert_true(opnn__reduce_launch_family(&plan, &g_props, OPNN_FAMILY_ROW_BLOCK));
    plan.launch.block = 128;
    assert_int_equal(opnn_cuda_reduce(&plan, OPNN_REDUCE_SUM, d, o, NULL, &cs, msg, sizeof msg),
                     OP_ERR_INTERNAL);
    assert_non_null(strstr(msg, "256 lanes a range in a block of 128 threads"));
    /* a column plan run with a block of 192 threads (6 warps: the column kernel's trees halve a
     * power of two of rows, and 6 would drop two): refused; 256 runs */
    const int64_t cols[2] = {16, 64}, first[1] = {0};
    opnn_reduce_request creq = {.op = "t",
                                .ndim = 2,
                                .shape = cols,
                                .axes = first,
                                .num_axes = 1,
                                .dtype = ts_dtype("f32")};
    assert_int_equal(opnn__reduce_plan_init(&plan, &creq, msg, sizeof msg), OP_OK);
    assert_true(opnn__reduce_launch_family(&plan, &g_props, OPNN_FAMILY_COL_WIDE));
    assert_int_equal(plan.launch.kernel, OPNN_KERNEL_OUTER);
    plan.launch.block = 192;
    assert_int_equal(opnn_cuda_reduce(&plan, OPNN_REDUCE_SUM, d, o, NULL, &cs, msg, sizeof msg),
                     OP_ERR_INTERNAL);
    assert_non_null(strstr(msg, "in a block of 192 threads"));
    plan.launch.block = 256;
    assert_int_equal(opnn_cuda_reduce(&plan, OPNN_REDUCE_SUM, d, o, NULL, &cs, msg, sizeof msg),
                     OP_OK);
    /* a row tile plan (rows of 49: 392-vector tiles, two a warp from an aligned start) run with
     * blocks of 256 threads would need 100 KB of shared memory: refused with the sizes, no
     * launch failure; the planner's 64 threads run */
    const int64_t rows49[2] = {64, 49};
    opnn_reduce_request treq = {.op = "t",
                                .ndim = 2,
                                .shape = rows49,
                                .axes = last,
                                .num_axes = 1,
                                .dtype = ts_dtype("f32")};
    void *d49 = NULL;
    CUDA_OK(cudaMalloc(&d49, 64 * 49 * 4));
    assert_int_equal(opnn__reduce_plan_init(&plan, &treq, msg, sizeof msg), OP_OK);
    assert_true(opnn__reduce_launch_family(&plan, &g_props, OPNN_FAMILY_ROW_TILE));
    assert_int_equal(plan.launch.block, OPNN_CUDA_ROW_TILE_BLOCK);
    plan.launch.block = 256;
    assert_int_equal(opnn_cuda_reduce(&plan, OPNN_REDUCE_SUM, d49, o, NULL, &cs, msg, sizeof msg),
                     OP_ERR_INTERNAL);
    assert_non_null(strstr(msg, "ROW_TILE tiles of 392 vectors in blocks of 256 threads"));
    plan.launch.block = OPNN_CUDA_ROW_TILE_BLOCK;
    assert_int_equal(opnn_cuda_reduce(&plan, OPNN_REDUCE_SUM, d49, o, NULL, &cs, msg, sizeof msg),
                     OP_OK);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaFree(d49));
    opnn_cuda_state_destroy(cs);
    CUDA_OK(cudaFree(d));
    CUDA_OK(cudaFree(o));
}

/* shift_cases planned for a device of 2 SMs (shift_cases_4sm: 4): every family that serves
 * them, every kind and dtype, and NaN/inf; the covering vectors' plan must be among them.
 * super_cases_8sm (8 SMs) so too, the super-rows' plan among them; warp_tile_cases_2sm (2 SMs),
 * warp tiles of 32 lanes among them (warp units of any lanes a row for its warp_units cases). */
static void shift__every_kind_dtype(void **state)
{
    const shape_case *c = *state;
    opnn_cuda_state *cs = NULL;
    /* static: a failed check leaves the test by longjmp; plan_props_reset puts g_props back */
    static opnn_device_props small;
    uint64_t seed = ts_seed(c->name);
    const char *floats[] = {"f32", "f64", "f16", "bf16"};
    const opnn_reduce_kind special[] = {OPNN_REDUCE_MAX, OPNN_REDUCE_MIN, OPNN_REDUCE_SUM};
    const bool super = c >= super_cases_8sm && c < super_cases_8sm + NUM_SUPER_CASES_8SM;
    const bool warp = c >= warp_tile_cases_2sm && c < warp_tile_cases_2sm + NUM_WARP_TILE_CASES_2SM;
    /* its narrow cases count warp units of any lanes a row, the others warp tiles of 32 */
    const bool units = warp && strstr(c->name, "warp_units") != NULL;
    int shifted = 0, tails = 0, supers = 0, warps = 0;

    NEED_CUDA();
    small = g_props;
    small.sm_count = super                                                               ? 8
                     : c >= shift_cases_4sm && c < shift_cases_4sm + NUM_SHIFT_CASES_4SM ? 4
                                                                                         : 2;
    g_plan_props = &small;
    for (int family = -1; family < OPNN_FAMILY_COUNT_; family++) {
        for (size_t d = 0; d < sizeof dtype_names / sizeof dtype_names[0]; d++)
            for (int k = 0; k < OPNN_REDUCE_KIND_COUNT_; k++) {
                if (getenv("OPNN_TEST_QUICK") && (size_t)k != d % OPNN_REDUCE_KIND_COUNT_)
                    continue;
                run_result r = run_checked(c, ts_dtype(dtype_names[d]), (opnn_reduce_kind)k, family,
                                           FILL_RANDOM, seed + d * 7 + (uint64_t)k, 0, &cs);
                shifted += r.shift;
                tails += r.tail;
                supers += r.super;
                warps += units ? r.warp_unit : r.warp_tile;
                free(r.host_out);
            }
        for (size_t d = 0; d < 4; d++)
            for (size_t k = 0; k < 3; k++) {
                run_result r = run_checked(c, ts_dtype(floats[d]), special[k], family, FILL_SPECIAL,
                                           seed + (uint64_t)family * 17 + d * 3 + k, 0, &cs);
                shifted += r.shift;
                tails += r.tail;
                supers += r.super;
                warps += units ? r.warp_unit : r.warp_tile;
                free(r.host_out);
            }
    }
    g_plan_props = &g_props;
    opnn_cuda_state_destroy(cs);
    assert_true(super ? supers > 0 : warp ? warps > 0 : shifted > 0);
    if (strstr(c->name, "_tail_"))
        assert_true(tails > 0);
}

/* teardown of shift__every_kind_dtype, also after a failed check */
static int plan_props_reset(void **state)
{
    (void)state;
    g_plan_props = &g_props;
    return 0;
}

/* The planner's deep column plans (deep_cases_132sm), planned for 132 SMs: every kind and dtype
 * against the reference and two runs bitwise equal, then NaN and +-inf for Max, Min and Sum. */
static void deep__every_kind_dtype(void **state)
{
    const shape_case *c = *state;
    opnn_cuda_state *cs = NULL;
    /* static: a failed check leaves the test by longjmp; plan_props_reset puts g_props back */
    static opnn_device_props h200;
    uint64_t seed = ts_seed(c->name);
    const char *floats[] = {"f32", "f64", "f16", "bf16"};
    const opnn_reduce_kind special[] = {OPNN_REDUCE_MAX, OPNN_REDUCE_MIN, OPNN_REDUCE_SUM};
    int deep = 0;

    NEED_CUDA();
    h200 = g_props;
    h200.sm_count = 132;
    g_plan_props = &h200;
    for (size_t d = 0; d < sizeof dtype_names / sizeof dtype_names[0]; d++)
        for (int k = 0; k < OPNN_REDUCE_KIND_COUNT_; k++) {
            if (getenv("OPNN_TEST_QUICK") && (size_t)k != d % OPNN_REDUCE_KIND_COUNT_)
                continue;
            const DLDataType t = ts_dtype(dtype_names[d]);
            const uint64_t s = seed + d * 7 + (uint64_t)k;
            run_result a = run_checked(c, t, (opnn_reduce_kind)k, -1, FILL_RANDOM, s, 0, &cs);
            run_result b = run_checked(c, t, (opnn_reduce_kind)k, -1, FILL_RANDOM, s, 0, &cs);
            assert_true(a.ran && b.ran);
            assert_int_equal(a.out_bytes, b.out_bytes);
            if (memcmp(a.host_out, b.host_out, a.out_bytes) != 0)
                fail_msg("%s %s %s: two runs differ", c->name, dtype_names[d], kind_names[k]);
            deep += a.deep;
            free(a.host_out);
            free(b.host_out);
        }
    for (size_t d = 0; d < 4; d++)
        for (size_t k = 0; k < 3; k++) {
            run_result r = run_checked(c, ts_dtype(floats[d]), special[k], -1, FILL_SPECIAL,
                                       seed + 1000 + d * 3 + k, 0, &cs);
            deep += r.deep;
            free(r.host_out);
        }
    g_plan_props = &g_props;
    opnn_cuda_state_destroy(cs);
    assert_true(deep > 0);
}

static void props__device_described(void **state)
{
    (void)state;
    NEED_CUDA();
    assert_true(opnn_cuda_available());
    assert_true(g_props.sm_count > 0);
    assert_true(g_props.max_threads_per_sm >= OPNN_CUDA_BLOCK * OPNN_CUDA_BLOCKS_PER_SM);
    assert_int_equal(g_props.warp_size, 32);
    printf("[ dev  ] cuda:%d sm_%d%d, %d SMs, %zu MB L2\n", g_props.device_id, g_props.cc_major,
           g_props.cc_minor, g_props.sm_count, g_props.l2_bytes >> 20);
}

#define NUM_CASE_TESTS                                                                             \
    (2 * NUM_FAMILY_CASES + NUM_PLANNER_CASES + NUM_SHIFT_CASES + NUM_SHIFT_CASES_4SM +            \
     NUM_SUPER_CASES_8SM + NUM_WARP_TILE_CASES_2SM + NUM_DEEP_CASES_132SM + NUM_TILE_FOLD_CASES)

/* Appends one test of fn a case, named prefix/case, to tests[*n]; names[*n] holds the name. */
static void add_case_tests(struct CMUnitTest *tests, char (*names)[96], size_t *n,
                           const char *prefix, CMUnitTestFunction fn, const shape_case *cases,
                           size_t ncases)
{
    for (size_t i = 0; i < ncases; i++, (*n)++) {
        snprintf(names[*n], sizeof names[0], "%s/%s", prefix, cases[i].name);
        tests[*n] = (struct CMUnitTest)cmocka_unit_test_prestate(fn, (void *)&cases[i]);
        tests[*n].name = names[*n];
    }
}

int main(void)
{
    struct CMUnitTest tests[1 + NUM_CASE_TESTS + 16];
    static char names[1 + NUM_CASE_TESTS][96];
    size_t n = 0;

    tests[n++] = (struct CMUnitTest)cmocka_unit_test(props__device_described);
    add_case_tests(tests, names, &n, "families__every_kind_dtype", families__every_kind_dtype,
                   family_cases, NUM_FAMILY_CASES);
    add_case_tests(tests, names, &n, "families__nan_inf", families__nan_inf, family_cases,
                   NUM_FAMILY_CASES);
    add_case_tests(tests, names, &n, "planner__every_kind_dtype", planner__every_kind_dtype,
                   planner_cases, NUM_PLANNER_CASES);
    add_case_tests(tests, names, &n, "tile_folds__every_kind_dtype", tile_folds__every_kind_dtype,
                   tile_fold_cases, NUM_TILE_FOLD_CASES);
    for (size_t i = n - NUM_TILE_FOLD_CASES; i < n; i++)
        tests[i].teardown_func = tile_fold_reset;
    add_case_tests(tests, names, &n, "shift__every_kind_dtype", shift__every_kind_dtype,
                   shift_cases, NUM_SHIFT_CASES);
    add_case_tests(tests, names, &n, "shift__every_kind_dtype", shift__every_kind_dtype,
                   shift_cases_4sm, NUM_SHIFT_CASES_4SM);
    add_case_tests(tests, names, &n, "super__every_kind_dtype", shift__every_kind_dtype,
                   super_cases_8sm, NUM_SUPER_CASES_8SM);
    add_case_tests(tests, names, &n, "warp_tiles__every_kind_dtype", shift__every_kind_dtype,
                   warp_tile_cases_2sm, NUM_WARP_TILE_CASES_2SM);
    for (size_t i = n - NUM_SHIFT_CASES - NUM_SHIFT_CASES_4SM - NUM_SUPER_CASES_8SM -
                    NUM_WARP_TILE_CASES_2SM;
         i < n; i++)
        tests[i].teardown_func = plan_props_reset;
    add_case_tests(tests, names, &n, "deep__every_kind_dtype", deep__every_kind_dtype,
                   deep_cases_132sm, NUM_DEEP_CASES_132SM);
    for (size_t i = n - NUM_DEEP_CASES_132SM; i < n; i++)
        tests[i].teardown_func = plan_props_reset;
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(random__layouts);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test_teardown(determinism__split_families_bitwise,
                                                              plan_props_reset);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(graph__capture_and_replay);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(graph__small_calls_replayed);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(streams__two_states_concurrently);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(pointers__host_and_foreign_rejected);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(reduce__bad_arguments_rejected);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(large__f16_past_2e31);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(large__f16_rows_past_2e31);
    /* OPNN_TEST_FILTER=pattern runs a subset (e.g. under compute-sanitizer), OPNN_TEST_SKIP=
     * pattern leaves one out: together they split the suite among processes run at once */
    if (getenv("OPNN_TEST_FILTER"))
        cmocka_set_test_filter(getenv("OPNN_TEST_FILTER"));
    if (getenv("OPNN_TEST_SKIP"))
        cmocka_set_skip_filter(getenv("OPNN_TEST_SKIP"));
    /* OPNN_TEST_SHARD=i/n keeps every n-th test from the i-th (0-based), so that n processes
     * share a filtered run (compute-sanitizer's racecheck takes ~14 s a families case) */
    const char *shard = getenv("OPNN_TEST_SHARD");
    if (shard) {
        int si = -1, sn = 0;
        if (sscanf(shard, "%d/%d", &si, &sn) != 2 || sn < 1 || si < 0 || si >= sn) {
            fprintf(stderr, "test_cuda_kernels: OPNN_TEST_SHARD=%s is not i/n, 0 <= i < n\n",
                    shard);
            return 2;
        }
        size_t kept = 0;
        for (size_t i = 0; i < n; i++)
            if (i % (size_t)sn == (size_t)si)
                tests[kept++] = tests[i];
        n = kept;
    }
    return _cmocka_run_group_tests("test_cuda_kernels", tests, n, group_setup, NULL);
}

#else /* no CUDA in this build: the same suite, skipped */

static void cuda__not_built(void **state)
{
    (void)state;
    assert_false(opnn_cuda_available());
    skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(cuda__not_built)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
