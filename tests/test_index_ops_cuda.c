/* Reduction indices on CUDA (label gpu): tp_index's ops (tests/plugins/tp_index.c) sum x * w(i),
 * where i is the element's reduction index, in exact 64-bit integer arithmetic. The CUDA result
 * must equal the CPU kernels' bit for bit (both follow the plan's merged order), on views that
 * reach each walk of the kernel families: segments read as the vectors that cover them (off 16
 * bytes, at an offset, with gaps, broadcast), aligned and element walks, rows, columns (super-rows,
 * runs of vectors), middles and generic views; and random views. On compact views the CPU
 * result must also equal a sum taken here in row-major order of the reduced axes (it runs
 * without a device). Each op gives the kernels the operator another way (map alone; fold; fold
 * and fold_vec). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <opnn/opnn.h>

#include "plugins/tp_index.h"
#include "support/test_support.h"

#if defined(OPNN_HAVE_CUDA)
#include <cuda_runtime_api.h>
#define CU(call) assert_int_equal((int)(call), (int)cudaSuccess)
#endif

static const char *const ops[] = {"TpIndexMap", "TpIndexFold", "TpIndexFoldVec"};
static const char *const dtypes[] = {"i32", "i64"};
#define NOPS (sizeof(ops) / sizeof(ops[0]))
#define NDTYPES (sizeof(dtypes) / sizeof(dtypes[0]))

static op_plugin *plugin;

static int load_plugin(void **state)
{
    (void)state;
    if (op_load_plugin(OPNN_TEST_PLUGIN_DIR "/tp_index.so", &plugin) != OP_OK) {
        printf("cannot load %s/tp_index.so: %s\n", OPNN_TEST_PLUGIN_DIR, op_plugin_error());
        return -1;
    }
    return 0;
}

static int unload_plugin(void **state)
{
    (void)state;
    return plugin ? (int)op_unload_plugin(plugin) : 0;
}

/* A case: shape, reduced axes, and the layout (strides NULL: compact) at an element offset. */
typedef struct icase {
    const char *name;
    int32_t ndim;
    int64_t shape[5];
    int naxes;
    int64_t axes[5];
    bool strided;
    int64_t strides[5];
    int64_t offset;
} icase;

static const icase fixed_cases[] = {
    /* [N, C, H, W] over (0, 2, 3): segments of H * W read as covering vectors (i32 324 bytes,
     * i64 648: off 16), or vectors (aligned), or elements (under 32 bytes) */
    {"cover", 4, {4, 501, 9, 9}, 3, {0, 2, 3}, false, {0}, 0},
    {"cover_offset", 4, {2, 450, 7, 7}, 3, {0, 2, 3}, false, {0}, 3},
    {"cover_gaps", 3, {5, 420, 13}, 2, {0, 2}, true, {8400, 20, 1}, 1},
    {"cover_r1_gap", 3, {5, 420, 13}, 2, {0, 2}, true, {9000, 20, 1}, 0},
    {"cover_broadcast", 4, {3, 100, 9, 9}, 3, {0, 2, 3}, true, {0, 81, 9, 1}, 0},
    {"cover_broadcast_offset", 4, {3, 100, 9, 9}, 3, {0, 2, 3}, true, {0, 81, 9, 1}, 3},
    {"cover_long", 4, {32, 64, 14, 14}, 3, {0, 2, 3}, false, {0}, 0},
    {"vecs", 4, {8, 64, 16, 16}, 3, {0, 2, 3}, false, {0}, 0},
    {"elems", 4, {16, 64, 2, 3}, 3, {0, 2, 3}, false, {0}, 0},
    {"outer_inner_few", 3, {512, 3, 4096}, 2, {0, 2}, false, {0}, 1},
    /* rows: tiny, sub-warp, warp, block, split across blocks */
    {"row_tiny", 2, {100003, 3}, 1, {1}, false, {0}, 0},
    {"row_sub", 2, {20001, 37}, 1, {1}, false, {0}, 2},
    {"row_warp", 2, {4096, 301}, 1, {1}, false, {0}, 1},
    {"row_block", 2, {64, 100003}, 1, {1}, false, {0}, 0},
    {"row_split", 2, {3, 1 << 20}, 1, {1}, false, {0}, 3},
    {"full", 1, {(1 << 22) + 5}, 1, {0}, false, {0}, 1},
    /* columns: wide, narrow, short; super-rows with a row left over; a run of vectors */
    {"col_wide", 2, {3000, 1031}, 1, {0}, false, {0}, 0},
    {"col_narrow", 2, {1 << 20, 4}, 1, {0}, false, {0}, 0},
    {"col_short", 2, {5, 1 << 19}, 1, {0}, false, {0}, 1},
    {"col_super_left", 2, {16433, 1021}, 1, {0}, false, {0}, 0},
    {"col_run", 2, {100003, 49}, 1, {0}, false, {0}, 0},
    /* middles: [A, R, B], slabs of narrow columns; warp tiles of 32 lanes (planned for 2 SMs) */
    {"middle", 3, {64, 3000, 7}, 1, {1}, false, {0}, 0},
    {"middle_slab", 3, {3001, 64, 2}, 1, {1}, false, {0}, 0},
    {"middle_warp_tiles", 3, {70, 40, 296}, 1, {1}, false, {0}, 0},
    {"middle_two", 4, {8, 30, 20, 64}, 2, {1, 2}, false, {0}, 0},
    /* views the families do not take: permuted, two reduced dims apart */
    {"generic_permuted", 3, {300, 7, 50}, 1, {0}, true, {1, 15000, 300}, 0},
    {"generic_two", 4, {20, 3, 30, 40}, 2, {0, 2}, true, {1, 20, 60, 1800}, 0},
};
#define NFIXED (sizeof(fixed_cases) / sizeof(fixed_cases[0]))

static void to_xcase(const icase *f, ts_xcase *c)
{
    memset(c, 0, sizeof(*c));
    c->ndim = f->ndim;
    memcpy(c->shape, f->shape, sizeof(f->shape));
    c->compact = !f->strided;
    if (f->strided)
        memcpy(c->strides, f->strides, sizeof(f->strides));
    c->offset = f->offset;
    c->naxes = f->naxes;
    memcpy(c->axes, f->axes, sizeof(f->axes));
    c->keepdims = -1;
    c->noop = -1;
    c->select_last = -1;
}

/* Runs op on x (host or device data) into a fresh output; returns the output's bytes (host
 * copy, guard bytes after it) in *out and its element count. */
static int64_t run_op(const char *op, const ts_xcase *c, const ts_tensor *x, ts_buf *out,
                      const char *what)
{
    op_context *ctx;
    int32_t ondim;
    int64_t oshape[OP_MAX_DIMS];
    DLDataType odt;
    const bool dev = x->t.device.device_type == kDLCUDA;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    assert_int_equal(op_context_set_input(ctx, 0, &x->t), OP_OK);
    assert_int_equal(ts_xset_attrs(ctx, TS_X_L1, c), OP_OK);
    assert_int_equal(op_infer_output(op, ctx, 0, &ondim, oshape, &odt), OP_OK);
    const int64_t n = ts_numel(ondim, oshape);
    const size_t ob = (size_t)n * ts_dtype_size(odt);
    *out = ts_buf_alloc(ob);
    assert_non_null(out->data);
    void *dst = out->data;
#if defined(OPNN_HAVE_CUDA)
    if (dev) {
        CU(cudaMalloc(&dst, ob + TS_GUARD_BYTES));
        CU(cudaMemset(dst, 0x5A, ob));
        CU(cudaMemset((char *)dst + ob, TS_GUARD_BYTE, TS_GUARD_BYTES));
    }
#endif
    DLTensor y = {dst, {dev ? kDLCUDA : kDLCPU, 0}, ondim, odt, oshape, NULL, 0};
    assert_int_equal(op_context_set_output(ctx, 0, &y), OP_OK);
    const op_status st = op_run(op, ctx);
    if (st != OP_OK)
        printf("%s: %s: %s\n", what, op_status_str(st), op_context_error(ctx));
    assert_int_equal(st, OP_OK);
#if defined(OPNN_HAVE_CUDA)
    if (dev) {
        CU(cudaDeviceSynchronize());
        CU(cudaMemcpy(out->data, dst, ob + TS_GUARD_BYTES, cudaMemcpyDeviceToHost));
        CU(cudaFree(dst));
    }
#endif
    op_context_destroy(ctx);
    return n;
}

/* The sum of x * w(f) over the reduced elements in row-major order of the reduced axes (f the
 * flat position among them), for each output in row-major order of the kept ones: the index
 * the plan's merged order gives on a compact view. */
static void reference(const ts_xcase *c, const void *base, DLDataType t, int64_t *ref)
{
    const uint32_t mask = ts_xmask(TS_X_L1, c);
    int64_t st[8], ks[8], kst[8], rs[8], rst[8], nout = 1, nred = 1;
    int nk = 0, nr = 0;
    for (int i = c->ndim - 1; i >= 0; i--)
        st[i] = i == c->ndim - 1 ? 1 : st[i + 1] * c->shape[i + 1];
    for (int i = 0; i < c->ndim; i++) {
        if (mask & (1u << i)) {
            rs[nr] = c->shape[i];
            rst[nr++] = st[i];
            nred *= c->shape[i];
        } else {
            ks[nk] = c->shape[i];
            kst[nk++] = st[i];
            nout *= c->shape[i];
        }
    }
    for (int64_t o = 0; o < nout; o++) {
        int64_t off = c->offset, q = o;
        for (int i = nk - 1; i >= 0; i--) {
            off += (q % ks[i]) * kst[i];
            q /= ks[i];
        }
        uint64_t acc = 0;
        for (int64_t f = 0; f < nred; f++) {
            int64_t e = off, g = f;
            for (int i = nr - 1; i >= 0; i--) {
                e += (g % rs[i]) * rst[i];
                g /= rs[i];
            }
            acc += (uint64_t)TP_INDEX_TERM(ts_load_int(base, t, e), f);
        }
        ref[o] = t.bits == 32 ? (int64_t)(int32_t)(uint32_t)acc : (int64_t)acc;
    }
}

/* op on case c in dtype dt: the CPU result against the reference (compact views), and with a
 * device, the CUDA result against the CPU one, bitwise, twice (the second on a fresh plan). */
static void check(ts_rng *rng, uint64_t seed, const char *op, const char *dt, const ts_xcase *c,
                  const char *label, bool cuda)
{
    const DLDataType t = ts_dtype(dt);
    const size_t es = ts_dtype_size(t);
    const int64_t ns = ts_xstorage_elems(c);
    ts_buf in = ts_buf_alloc((size_t)(ns ? ns : 1) * es);
    assert_non_null(in.data);
    ts_fill_random(rng, in.data, t, ns, 1.0);
    char what[256];
    snprintf(what, sizeof(what), "%s %s %s rank %d (seed %llu)", op, dt, label, (int)c->ndim,
             (unsigned long long)seed);

    ts_tensor xh;
    ts_xtensor(&xh, c, in.data, kDLCPU, t);
    ts_buf cpu;
    const int64_t n = run_op(op, c, &xh, &cpu, what);
    assert_true(ts_buf_guard_ok(&cpu));
    if (c->compact) {
        int64_t *ref = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
        assert_non_null(ref);
        reference(c, in.data, t, ref);
        for (int64_t i = 0; i < n; i++)
            if (ts_load_int(cpu.data, t, i) != ref[i]) {
                printf("%s: CPU output %lld is %lld, expected %lld\n", what, (long long)i,
                       (long long)ts_load_int(cpu.data, t, i), (long long)ref[i]);
                fail();
            }
        free(ref);
    }
#if defined(OPNN_HAVE_CUDA)
    if (cuda) {
        void *d_in = NULL;
        CU(cudaMalloc(&d_in, (size_t)(ns ? ns : 1) * es));
        CU(cudaMemcpy(d_in, in.data, (size_t)ns * es, cudaMemcpyHostToDevice));
        ts_tensor xd;
        ts_xtensor(&xd, c, d_in, kDLCUDA, t);
        for (int run = 0; run < 2; run++) {
            ts_buf gpu;
            assert_int_equal(run_op(op, c, &xd, &gpu, what), n);
            assert_true(ts_buf_guard_ok(&gpu));
            for (int64_t i = 0; i < n; i++)
                if (ts_load_int(gpu.data, t, i) != ts_load_int(cpu.data, t, i)) {
                    printf("%s: CUDA output %lld is %lld, the CPU's %lld (run %d)\n", what,
                           (long long)i, (long long)ts_load_int(gpu.data, t, i),
                           (long long)ts_load_int(cpu.data, t, i), run);
                    fail();
                }
            ts_buf_free(&gpu);
        }
        CU(cudaFree(d_in));
    }
#else
    (void)cuda;
#endif
    ts_buf_free(&cpu);
    ts_buf_free(&in);
}

/* --- the fixed views ----------------------------------------------------------------------------
 */

static void index_ops__fixed_views(void **state, bool cuda)
{
    const icase *f = (const icase *)*state;
    const uint64_t seed = ts_seed(f->name);
    ts_rng rng = {seed};
    ts_xcase c;
    /* super-rows and warp tiles: planned for a smaller device (ts_plan_sms_for) */
    const char *sms = cuda ? ts_plan_sms_for(f->name) : NULL;
    to_xcase(f, &c);
    if (sms)
        setenv("OPNN_CUDA_PLAN_SMS", sms, 1);
    for (size_t o = 0; o < NOPS; o++)
        for (size_t d = 0; d < NDTYPES; d++)
            check(&rng, seed, ops[o], dtypes[d], &c, f->name, cuda);
    if (sms)
        unsetenv("OPNN_CUDA_PLAN_SMS");
}

static void index_ops_cuda__fixed_view_matches_cpu(void **state)
{
    if (!ts_have_cuda())
        skip();
    index_ops__fixed_views(state, true);
}

/* CPU against the reference on the compact ones (no device needed) */
static void index_ops__cpu_fixed_view_matches_reference(void **state)
{
    if (!((const icase *)*state)->strided)
        index_ops__fixed_views(state, false);
}

/* --- random views --------------------------------------------------------------------------------
 */

static void index_ops__random(bool cuda)
{
    const uint64_t seed = ts_seed(cuda ? "index_random_cuda" : "index_random");
    ts_rng rng = {seed};
    for (size_t o = 0; o < NOPS; o++)
        for (size_t d = 0; d < NDTYPES; d++)
            for (int k = 0; k < (cuda ? 60 : 20); k++) {
                ts_xcase c;
                ts_xcase_random(&rng, TS_X_L1, 50000, &c);
                check(&rng, seed, ops[o], dtypes[d], &c, "random", cuda);
            }
}

static void index_ops_cuda__random_views_match_cpu(void **state)
{
    (void)state;
    if (!ts_have_cuda())
        skip();
    index_ops__random(true);
}

static void index_ops__cpu_random_compact_views_match_reference(void **state)
{
    (void)state;
    index_ops__random(false);
}

/* One test per fixed view: fn on it, named "label(view)". */
static size_t add_fixed(struct CMUnitTest *tests, char (*names)[96], size_t n,
                        CMUnitTestFunction fn, const char *label)
{
    for (size_t i = 0; i < NFIXED; i++, n++) {
        tests[n] = (struct CMUnitTest)cmocka_unit_test_prestate(fn, (void *)&fixed_cases[i]);
        snprintf(names[n], sizeof(names[n]), "%s(%s)", label, fixed_cases[i].name);
        tests[n].name = names[n];
    }
    return n;
}

int main(void)
{
    struct CMUnitTest tests[2 * NFIXED + 2];
    static char names[2 * NFIXED][96];
    size_t n = add_fixed(tests, names, 0, index_ops__cpu_fixed_view_matches_reference,
                         "index_ops__cpu_fixed_view_matches_reference");
    n = add_fixed(tests, names, n, index_ops_cuda__fixed_view_matches_cpu,
                  "index_ops_cuda__fixed_view_matches_cpu");
    tests[n++] =
        (struct CMUnitTest)cmocka_unit_test(index_ops__cpu_random_compact_views_match_reference);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(index_ops_cuda__random_views_match_cpu);
    return cmocka_run_group_tests(tests, load_plugin, unload_plugin);
}
