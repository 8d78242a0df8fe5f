/* The CPU reduce kernels (kernel/cpu/) called directly, white-box: plans built with
 * opnn__reduce_plan_init, run with opnn_cpu_reduce, compared with the float64 reference of
 * tests/support for every kind x dtype x plan class: odd sizes, tails of every lane group,
 * permuted, gapped and zero strides, size-1 and empty dims, NaN and inf at every position,
 * integer wrap-around, round-to-nearest-even 16-bit outputs, the 2^28 accuracy bound, 2^32
 * elements through a zero stride. Every run is repeated with 2, 3 (and more) threads and with the
 * baseline instruction set, and must be bitwise equal; guard bytes after each output and the
 * input itself must be untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/plan.h"
#include "kernel/cpu/reduce_cpu.h"
#include "kernel/cpu/reduce_cpu_common.h"
#include "kernel/reduce_kernels.h"
#include "support/test_cases.h"
#include "support/test_support.h"

static const char *const kind_names[OPNN_REDUCE_KIND_COUNT_] = {"sum", "mean", "max", "min",
                                                                "prod"};
static const char *const dtype_names[] = {"f32", "f64", "f16", "bf16", "i32", "i64"};
static const char *const float_dtype_names[] = {"f32", "f64", "f16", "bf16"};

/* --- views and plans -------------------------------------------------------------------------- */

/* A view of the input: shape, strides in elements (NULL-like when compact), the reduced axes
 * (num_axes -1: none given, i.e. all unless noop), and the class the planner must give it. */
typedef struct layout_case {
    const char *name;
    int32_t ndim;
    int64_t shape[6];
    bool compact; /* strides NULL */
    int64_t strides[6];
    int num_axes;
    int64_t axes[6];
    bool noop;
    opnn_reduce_class cls;
} layout_case;

static opnn_reduce_plan plan_for(const layout_case *c, DLDataType dt)
{
    opnn_reduce_request req;
    opnn_reduce_plan plan;
    char msg[256] = "";

    memset(&req, 0, sizeof req);
    req.op = c->name;
    req.ndim = c->ndim;
    req.shape = c->shape;
    req.strides = c->compact ? NULL : c->strides;
    req.axes = c->num_axes > 0 ? c->axes : NULL;
    req.num_axes = c->num_axes > 0 ? (size_t)c->num_axes : 0;
    req.noop_with_empty_axes = c->noop;
    req.dtype = dt;
    if (opnn__reduce_plan_init(&plan, &req, msg, sizeof msg) != OP_OK)
        fail_msg("%s: planner refused: %s", c->name, msg);
    if (plan.cls != c->cls)
        fail_msg("%s: planned as %s, the case is about %s", c->name,
                 opnn__reduce_class_name(plan.cls), opnn__reduce_class_name(c->cls));
    return plan;
}

static int64_t storage_of(const layout_case *c)
{
    return ts_storage_elems(c->ndim, c->shape, c->compact ? NULL : c->strides);
}

/* Data a kind can digest: for Prod, factors within 1% of +-1 (floats: long products stay in
 * range) or +-1, +-3 (integers: wrapped products never collapse to 0); otherwise
 * ts_fill_random (floats in [-1, 1), integers in [-1000, 1000]). */
static void fill_for_kind(ts_rng *r, void *base, DLDataType t, int64_t n, opnn_reduce_kind kind)
{
    if (kind != OPNN_REDUCE_PROD) {
        ts_fill_random(r, base, t, n, 1.0);
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        double sign = (ts_next(r) & 1) ? -1.0 : 1.0;
        if (ts_dtype_is_float(t))
            ts_store(base, t, i, sign * exp(ts_uniform(r) * 0.02 - 0.01));
        else
            ts_store(base, t, i, sign * (double)(2 * ts_range(r, 0, 1) + 1));
    }
}

/* --- running and checking --------------------------------------------------------------------- */

/* Runs plan with t threads and the given instruction set into a fresh guarded buffer. */
static ts_buf run_kernel(const opnn_reduce_plan *plan, opnn_reduce_kind kind, const void *in,
                         int threads, opnn_cpu_isa isa, const char *what)
{
    size_t es = ts_dtype_size(plan->dtype);
    ts_buf out = ts_buf_alloc((size_t)plan->out_numel * es);
    char msg[256] = "";
    op_status st;

    assert_non_null(out.data);
    if (!opnn__cpu_reduce_set_isa(isa))
        fail_msg("%s: cannot select instruction set %d", what, (int)isa);
    omp_set_num_threads(threads);
    st = opnn_cpu_reduce(plan, kind, in, out.data, msg, sizeof msg);
    opnn__cpu_reduce_set_isa(OPNN_CPU_ISA_AUTO);
    if (st != OP_OK)
        fail_msg("%s: opnn_cpu_reduce returned %d: %s", what, (int)st, msg);
    if (!ts_buf_guard_ok(&out))
        fail_msg("%s (%d threads, isa %d): wrote past the end of the output", what, threads,
                 (int)isa);
    return out;
}

static bool have_avx2(void)
{
    bool ok = opnn__cpu_reduce_set_isa(OPNN_CPU_ISA_AVX2);
    opnn__cpu_reduce_set_isa(OPNN_CPU_ISA_AUTO);
    return ok;
}

/* The thread counts every result is repeated with; all must be bitwise equal. */
static const int thread_counts[] = {1, 2, 3};

/* Runs plan over in (storage elements) with every thread count and instruction set, checks
 * each against the reference x (a view of in) and the first run bitwise, and that in is
 * unchanged. */
static void check_plan(const opnn_reduce_plan *plan, opnn_reduce_kind kind, const ts_tensor *x,
                       int64_t storage, const char *what)
{
    DLDataType dt = plan->dtype;
    size_t es = ts_dtype_size(dt), out_bytes = (size_t)plan->out_numel * es;
    int64_t n = plan->out_numel > 0 ? plan->out_numel : 1;
    double *ref_f = malloc(sizeof(double) * (size_t)n);
    int64_t *ref_i = malloc(sizeof(int64_t) * (size_t)n);
    void *in_copy = malloc((size_t)(storage > 0 ? storage : 1) * es);
    ts_buf first;
    char label[320];

    assert_true(ref_f && ref_i && in_copy);
    memcpy(in_copy, x->t.data, (size_t)storage * es);
    assert_int_equal(ts_reference((ts_op)kind, &x->t, plan->red_mask, ref_f, ref_i),
                     plan->out_numel);

    /* run: one thread, the best instruction set */
    first = run_kernel(plan, kind, x->t.data, 1, OPNN_CPU_ISA_AUTO, what);
    /* check: f32 1e-5, f64 1e-12, f16 1e-3, bf16 8e-3 relative plus an accumulation term in
     * sqrt(N) (ts_check); integers, Max and Min exact; NaN exactly where the reference has it */
    snprintf(label, sizeof label, "%s (1 thread)", what);
    if (!ts_check(label, first.data, dt, plan->out_numel, ref_f, ref_i, plan->red_numel,
                  (ts_op)kind))
        fail_msg("%s: differs from the float64 reference", what);

    /* the same bits with any thread count and with the baseline instruction set */
    for (size_t i = 1; i < N_OF(thread_counts) + 1; i++) {
        bool base = i == N_OF(thread_counts);
        int t = base ? 2 : thread_counts[i];
        opnn_cpu_isa isa = base ? OPNN_CPU_ISA_BASE : OPNN_CPU_ISA_AUTO;
        ts_buf again = run_kernel(plan, kind, x->t.data, t, isa, what);
        if (out_bytes && memcmp(again.data, first.data, out_bytes) != 0)
            fail_msg("%s: %d threads%s differ bitwise from 1 thread", what, t,
                     base ? " (baseline instruction set)" : "");
        ts_buf_free(&again);
    }
    if (memcmp(in_copy, x->t.data, (size_t)storage * es) != 0)
        fail_msg("%s: the input was modified", what);
    omp_set_num_threads(omp_get_num_procs());
    ts_buf_free(&first);
    free(in_copy);
    free(ref_f);
    free(ref_i);
}

/* Plans case c for (kind, dtype), fills fresh data and checks every way of running it. */
static void check_layout(const layout_case *c, opnn_reduce_kind kind, DLDataType dt, ts_rng *r)
{
    opnn_reduce_plan plan = plan_for(c, dt);
    int64_t storage = storage_of(c);
    size_t es = ts_dtype_size(dt);
    ts_buf in = ts_buf_alloc((size_t)(storage > 0 ? storage : 1) * es);
    ts_tensor x;
    char what[200];

    assert_non_null(in.data);
    fill_for_kind(r, in.data, dt, storage, kind);
    ts_tensor_init(&x, in.data, kDLCPU, dt, c->ndim, c->shape, c->compact ? NULL : c->strides);
    snprintf(what, sizeof what, "%s %s/%s (%s)", c->name, kind_names[kind], ts_dtype_name(dt),
             opnn__reduce_class_name(plan.cls));
    check_plan(&plan, kind, &x, storage, what);
    ts_buf_free(&in);
}

/* --- every kind x dtype on every plan class --------------------------------------------------- */

#define STRIDES(...) .compact = false, .strides = {__VA_ARGS__}
#define AXES(n, ...) .num_axes = (n), .axes = {__VA_ARGS__}

/* Sizes around the blocking of kernel/cpu/reduce_cpu_common.h: 32 f32 lanes (16 for 64-bit
 * types), leaves of 2048 elements, 8-vector column tiles, panels of 8 KiB of input, column leaves
 * of 16 to 128 rows (rows narrower than a vector: 128 periods of 2 to 8 rows), parallel work from
 * 32768 elements. */
/* clang-format off */
static const layout_case layout_cases[] = {
    {"rank0", 0, {0}, true, {0}, -1, {0}, false, OPNN_CLASS_FULL},
    {"full_1", 1, {1}, true, {0}, -1, {0}, false, OPNN_CLASS_FULL},
    {"full_3", 1, {3}, true, {0}, -1, {0}, false, OPNN_CLASS_FULL},
    {"full_49", 1, {49}, true, {0}, -1, {0}, false, OPNN_CLASS_FULL},
    {"full_1023", 1, {1023}, true, {0}, -1, {0}, false, OPNN_CLASS_FULL},
    {"full_6149_three_leaves", 1, {6149}, true, {0}, -1, {0}, false, OPNN_CLASS_FULL},
    {"full_100003_parallel", 1, {100003}, true, {0}, -1, {0}, false, OPNN_CLASS_FULL},
    {"full_size1_dims_dropped", 3, {1, 37, 1}, true, {0}, AXES(1, 1), false, OPNN_CLASS_FULL},
    {"full_all_axes_merged", 3, {7, 9, 11}, true, {0}, -1, {0}, false, OPNN_CLASS_FULL},
    {"row_odd_k", 2, {37, 49}, true, {0}, AXES(1, 1), false, OPNN_CLASS_ROW},
    {"row_tiny_k3", 2, {1001, 3}, true, {0}, AXES(1, -1), false, OPNN_CLASS_ROW},
    {"row_tiny_k16", 2, {999, 16}, true, {0}, AXES(1, 1), false, OPNN_CLASS_ROW},
    {"row_k32", 2, {77, 32}, true, {0}, AXES(1, 1), false, OPNN_CLASS_ROW},
    {"row_k33", 2, {65, 33}, true, {0}, AXES(1, 1), false, OPNN_CLASS_ROW},
    {"row_k1023", 2, {9, 1023}, true, {0}, AXES(1, 1), false, OPNN_CLASS_ROW},
    {"row_few_long", 2, {3, 70001}, true, {0}, AXES(1, 1), false, OPNN_CLASS_ROW},
    {"row_many_parallel", 2, {3001, 57}, true, {0}, AXES(1, 1), false, OPNN_CLASS_ROW},
    {"row_gapped", 2, {50, 49}, STRIDES(64, 1), AXES(1, 1), false, OPNN_CLASS_ROW},
    {"row_tiny_gapped", 2, {203, 5}, STRIDES(7, 1), AXES(1, 1), false, OPNN_CLASS_ROW},
    {"row_broadcast_rows", 2, {40, 49}, STRIDES(0, 1), AXES(1, 1), false, OPNN_CLASS_ROW},
    {"row_noop_copy", 2, {13, 7}, true, {0}, AXES(0), true, OPNN_CLASS_ROW},
    {"row_nothing_reduced", 3, {5, 1, 7}, true, {0}, AXES(1, 1), false, OPNN_CLASS_ROW},
    {"col_odd", 2, {49, 37}, true, {0}, AXES(1, 0), false, OPNN_CLASS_COL},
    {"col_narrow_3", 2, {5000, 3}, true, {0}, AXES(1, 0), false, OPNN_CLASS_COL},
    {"col_narrow_16_parallel", 2, {40000, 16}, true, {0}, AXES(1, 0), false, OPNN_CLASS_COL},
    {"col_tile_widths", 2, {21, 127}, true, {0}, AXES(1, 0), false, OPNN_CLASS_COL},
    {"col_three_panels", 2, {7, 4131}, true, {0}, AXES(1, 0), false, OPNN_CLASS_COL},
    {"col_short_wide", 2, {3, 4099}, true, {0}, AXES(1, 0), false, OPNN_CLASS_COL},
    {"col_gapped", 2, {33, 20}, STRIDES(27, 1), AXES(1, 0), false, OPNN_CLASS_COL},
    {"col_broadcast_rows", 2, {100, 24}, STRIDES(0, 1), AXES(1, 0), false, OPNN_CLASS_COL},
    {"middle_odd", 3, {5, 33, 19}, true, {0}, AXES(1, 1), false, OPNN_CLASS_MIDDLE},
    {"middle_long", 3, {3, 1000, 70}, true, {0}, AXES(1, 1), false, OPNN_CLASS_MIDDLE},
    {"middle_gapped", 3, {4, 9, 10}, STRIDES(200, 11, 1), AXES(1, 1), false, OPNN_CLASS_MIDDLE},
    /* rows of fewer contiguous elements than a vector, read as one run (ctile_flat): periods of
     * 8 rows (B 3, 7; 4 for f64 B 3), 4 (B 2, 6) or 2 (B 4), slabs ending inside one (rows past
     * the last whole period), several leaves a slab, and split between threads */
    {"middle_narrow_3", 3, {7, 1001, 3}, true, {0}, AXES(1, 1), false, OPNN_CLASS_MIDDLE},
    {"middle_narrow_6", 3, {5, 2003, 6}, true, {0}, AXES(1, 1), false, OPNN_CLASS_MIDDLE},
    {"middle_narrow_7_leaves", 3, {2, 9001, 7}, true, {0}, AXES(1, 1), false, OPNN_CLASS_MIDDLE},
    {"col_narrow_2_parallel", 2, {70001, 2}, true, {0}, AXES(1, 0), false, OPNN_CLASS_COL},
    {"col_narrow_4", 2, {3003, 4}, true, {0}, AXES(1, 0), false, OPNN_CLASS_COL},
    {"middle_narrow_gapped", 3, {3, 17, 3}, STRIDES(60, 3, 1), AXES(1, 1), false,
     OPNN_CLASS_MIDDLE},
    {"middle_narrow_broadcast", 3, {3, 17, 3}, STRIDES(0, 3, 1), AXES(1, 1), false,
     OPNN_CLASS_MIDDLE},
    {"middle_narrow_short", 3, {301, 5, 3}, true, {0}, AXES(1, 1), false, OPNN_CLASS_MIDDLE},
    /* inner runs of up to 8 vectors (f32: 64) are grouped columns, longer ones runs */
    {"outer_inner_odd", 3, {7, 5, 49}, true, {0}, AXES(2, 0, 2), false, OPNN_CLASS_OUTER_INNER},
    {"outer_inner_few_c", 3, {300, 2, 50}, true, {0}, AXES(2, 0, 2), false,
     OPNN_CLASS_OUTER_INNER},
    {"outer_inner_many_c", 3, {3, 130, 20}, true, {0}, AXES(2, 0, 2), false,
     OPNN_CLASS_OUTER_INNER},
    {"outer_inner_nchw", 4, {3, 6, 7, 7}, true, {0}, AXES(3, 0, 2, 3), false,
     OPNN_CLASS_OUTER_INNER},
    {"outer_inner_short_runs_panels", 3, {3, 1700, 5}, true, {0}, AXES(2, 0, 2), false,
     OPNN_CLASS_OUTER_INNER},
    {"outer_inner_long_runs", 3, {3, 4, 300}, true, {0}, AXES(2, 0, 2), false,
     OPNN_CLASS_OUTER_INNER},
    /* a kept unit-stride dim of a vector or more goes in the lanes (f32, f64 here; not f16) */
    {"generic_alternating", 4, {6, 7, 8, 9}, true, {0}, AXES(2, 0, 2), false, OPNN_CLASS_GENERIC},
    {"generic_lanes_krkrk", 5, {4, 5, 6, 7, 40}, true, {0}, AXES(2, 1, 3), false,
     OPNN_CLASS_GENERIC},
    {"generic_lanes_broadcast_rows", 3, {9, 4, 33}, STRIDES(0, 40, 1), AXES(1, 0), false,
     OPNN_CLASS_GENERIC},
    /* the innermost dim (stride 1) is kept but not last in the output */
    {"generic_permuted", 3, {10, 12, 14}, STRIDES(1, 140, 10), AXES(1, 2), false,
     OPNN_CLASS_GENERIC},
    {"generic_strided_1d", 1, {999}, STRIDES(3), -1, {0}, false, OPNN_CLASS_GENERIC},
    {"generic_zero_strides", 3, {5, 6, 7}, STRIDES(0, 8, 0), AXES(2, 0, 2), false,
     OPNN_CLASS_GENERIC},
    {"generic_few_outputs", 3, {2, 300, 130}, STRIDES(1, 520, 2), AXES(2, 1, 2), false,
     OPNN_CLASS_GENERIC},
    {"fill_reduced_zero", 2, {5, 0}, true, {0}, AXES(1, 1), false, OPNN_CLASS_FILL},
    {"fill_middle_zero", 3, {3, 0, 4}, true, {0}, AXES(1, 1), false, OPNN_CLASS_FILL},
    {"fill_full_zero", 1, {0}, true, {0}, -1, {0}, false, OPNN_CLASS_FILL},
    {"empty_kept_zero", 2, {0, 5}, true, {0}, AXES(1, 1), false, OPNN_CLASS_EMPTY},
};
/* clang-format on */

static void cpu_reduce__layout_matches_reference(void **state)
{
    const layout_case *c = *state;
    ts_rng rng = {ts_seed_mix(ts_seed("cpu_reduce__layout_matches_reference"), c->name)};

    for (int k = 0; k < OPNN_REDUCE_KIND_COUNT_; k++)
        for (size_t d = 0; d < N_OF(dtype_names); d++)
            check_layout(c, (opnn_reduce_kind)k, ts_dtype(dtype_names[d]), &rng);
}

/* --- larger views: the parallel splits, compared across more thread counts -------------------- */

typedef struct big_case {
    const char *name;
    layout_case layout;
} big_case;

/* clang-format off */
static const big_case big_cases[] = {
    {"full", {"full", 1, {1000003}, true, {0}, -1, {0}, false, OPNN_CLASS_FULL}},
    {"row_few", {"row_few", 2, {3, 300007}, true, {0}, AXES(1, 1), false, OPNN_CLASS_ROW}},
    {"row_tiny", {"row_tiny", 2, {100003, 16}, true, {0}, AXES(1, 1), false, OPNN_CLASS_ROW}},
    {"col_narrow", {"col_narrow", 2, {200003, 5}, true, {0}, AXES(1, 0), false, OPNN_CLASS_COL}},
    /* one and two full vectors of columns: subtrees read row by row in step */
    {"col_narrow_8", {"col_narrow_8", 2, {100003, 8}, true, {0}, AXES(1, 0), false,
                      OPNN_CLASS_COL}},
    {"col_narrow_16", {"col_narrow_16", 2, {100003, 16}, true, {0}, AXES(1, 0), false,
                       OPNN_CLASS_COL}},
    /* and a partial last vector: read whole, in step where there are two vectors in all and
     * every row's read ends inside the tensor, else a stream at a time (three) */
    {"col_narrow_12", {"col_narrow_12", 2, {100003, 12}, true, {0}, AXES(1, 0), false,
                       OPNN_CLASS_COL}},
    {"col_narrow_17", {"col_narrow_17", 2, {100003, 17}, true, {0}, AXES(1, 0), false,
                       OPNN_CLASS_COL}},
    {"col_narrow_23", {"col_narrow_23", 2, {100003, 23}, true, {0}, AXES(1, 0), false,
                       OPNN_CLASS_COL}},
    {"col_wide", {"col_wide", 2, {301, 2050}, true, {0}, AXES(1, 0), false, OPNN_CLASS_COL}},
    {"middle", {"middle", 3, {2, 20001, 24}, true, {0}, AXES(1, 1), false, OPNN_CLASS_MIDDLE}},
    /* slabs of a leaf each, shorter than a period (rows read as vectors) and longer */
    {"middle_narrow_short", {"middle_narrow_short", 3, {20011, 5, 3}, true, {0}, AXES(1, 1),
                             false, OPNN_CLASS_MIDDLE}},
    {"middle_narrow_slabs", {"middle_narrow_slabs", 3, {3001, 14, 7}, true, {0}, AXES(1, 1),
                             false, OPNN_CLASS_MIDDLE}},
    {"outer_inner", {"outer_inner", 3, {2001, 3, 150}, true, {0}, AXES(2, 0, 2), false,
                     OPNN_CLASS_OUTER_INNER}},
    /* enough kept channels for every thread: each reads its slab of every outer index */
    {"outer_inner_many_c", {"outer_inner_many_c", 3, {41, 37, 150}, true, {0}, AXES(2, 0, 2),
                            false, OPNN_CLASS_OUTER_INNER}},
    {"outer_inner_short_runs", {"outer_inner_short_runs", 3, {20001, 7, 3}, true, {0},
                                AXES(2, 0, 2), false, OPNN_CLASS_OUTER_INNER}},
    {"outer_inner_short_runs_wide", {"outer_inner_short_runs_wide", 3, {3000, 100, 3}, true, {0},
                                     AXES(2, 0, 2), false, OPNN_CLASS_OUTER_INNER}},
    {"generic", {"generic", 3, {3, 4001, 100}, STRIDES(1, 303, 3), AXES(2, 1, 2), false,
                 OPNN_CLASS_GENERIC}},
    {"generic_lanes", {"generic_lanes", 4, {30, 7, 300, 48}, true, {0}, AXES(2, 0, 2), false,
                       OPNN_CLASS_GENERIC}},
};
/* clang-format on */

static void cpu_reduce__parallel_splits_thread_independent(void **state)
{
    const big_case *bc = *state;
    const layout_case *c = &bc->layout;
    static const opnn_reduce_kind kinds[] = {OPNN_REDUCE_SUM, OPNN_REDUCE_MEAN, OPNN_REDUCE_MAX};
    static const char *const dts[] = {"f32", "f16", "bf16", "f64", "i32"};
    static const int more_threads[] = {4, 5, 8};
    ts_rng rng = {ts_seed_mix(ts_seed("cpu_reduce__parallel_splits_thread_independent"), bc->name)};

    for (size_t k = 0; k < N_OF(kinds); k++) {
        for (size_t d = 0; d < N_OF(dts); d++) {
            /* set up */
            DLDataType dt = ts_dtype(dts[d]);
            opnn_reduce_plan plan = plan_for(c, dt);
            int64_t storage = storage_of(c);
            size_t es = ts_dtype_size(dt);
            ts_buf in = ts_buf_alloc((size_t)storage * es), first;
            ts_tensor x;
            char what[200];

            assert_non_null(in.data);
            fill_for_kind(&rng, in.data, dt, storage, kinds[k]);
            ts_tensor_init(&x, in.data, kDLCPU, dt, c->ndim, c->shape,
                           c->compact ? NULL : c->strides);
            snprintf(what, sizeof what, "%s %s/%s", c->name, kind_names[kinds[k]], dts[d]);
            /* run, check: the reference and 1, 2, 3 threads, baseline ISA */
            check_plan(&plan, kinds[k], &x, storage, what);
            /* check: more threads than cores, odd counts */
            first = run_kernel(&plan, kinds[k], in.data, 1, OPNN_CPU_ISA_AUTO, what);
            for (size_t t = 0; t < N_OF(more_threads); t++) {
                ts_buf again =
                    run_kernel(&plan, kinds[k], in.data, more_threads[t], OPNN_CPU_ISA_AUTO, what);
                if (memcmp(again.data, first.data, (size_t)plan.out_numel * es) != 0)
                    fail_msg("%s: %d threads differ bitwise from 1", what, more_threads[t]);
                ts_buf_free(&again);
            }
            omp_set_num_threads(omp_get_num_procs());
            ts_buf_free(&first);
            ts_buf_free(&in);
        }
    }
}

/* --- NaN and infinities at every position ----------------------------------------------------- */

/* Small views: every storage position in turn holds the special value. */
static const layout_case special_cases[] = {
    {"full_37", 1, {37}, true, {0}, -1, {0}, false, OPNN_CLASS_FULL},
    {"full_70", 1, {70}, true, {0}, -1, {0}, false, OPNN_CLASS_FULL},
    {"row_tiny", 2, {9, 13}, true, {0}, AXES(1, 1), false, OPNN_CLASS_ROW},
    {"row", 2, {3, 41}, true, {0}, AXES(1, 1), false, OPNN_CLASS_ROW},
    {"col", 2, {11, 21}, true, {0}, AXES(1, 0), false, OPNN_CLASS_COL},
    {"middle", 3, {2, 5, 9}, true, {0}, AXES(1, 1), false, OPNN_CLASS_MIDDLE},
    {"middle_narrow", 3, {2, 19, 3}, true, {0}, AXES(1, 1), false, OPNN_CLASS_MIDDLE},
    {"outer_inner", 3, {3, 2, 11}, true, {0}, AXES(2, 0, 2), false, OPNN_CLASS_OUTER_INNER},
    {"generic", 4, {3, 2, 4, 3}, true, {0}, AXES(2, 0, 2), false, OPNN_CLASS_GENERIC},
};

/* Runs c with special value v at each storage position p in turn (and, with v2 not 0, v2 at
 * a position p2 that moves the other way), for the float dtypes and the given kinds. */
static void check_specials(const layout_case *c, double v, double v2, const opnn_reduce_kind *kinds,
                           size_t nkinds, const char *test)
{
    ts_rng rng = {ts_seed_mix(ts_seed(test), c->name)};

    for (size_t d = 0; d < N_OF(float_dtype_names); d++) {
        DLDataType dt = ts_dtype(float_dtype_names[d]);
        opnn_reduce_plan plan = plan_for(c, dt);
        int64_t storage = storage_of(c);
        size_t es = ts_dtype_size(dt);
        for (size_t k = 0; k < nkinds; k++) {
            for (int64_t p = 0; p < storage; p++) {
                /* set up */
                ts_buf in = ts_buf_alloc((size_t)storage * es);
                ts_tensor x;
                char what[200];
                assert_non_null(in.data);
                fill_for_kind(&rng, in.data, dt, storage, kinds[k]);
                ts_store(in.data, dt, p, v);
                if (v2 != 0)
                    ts_store(in.data, dt, storage - 1 - p, v2);
                ts_tensor_init(&x, in.data, kDLCPU, dt, c->ndim, c->shape,
                               c->compact ? NULL : c->strides);
                snprintf(what, sizeof what, "%s %s/%s, %g at %lld", c->name, kind_names[kinds[k]],
                         float_dtype_names[d], v, (long long)p);
                /* run, check */
                check_plan(&plan, kinds[k], &x, storage, what);
                ts_buf_free(&in);
            }
        }
    }
}

static void cpu_reduce__nan_propagates_from_any_position(void **state)
{
    static const opnn_reduce_kind kinds[] = {OPNN_REDUCE_MAX, OPNN_REDUCE_MIN, OPNN_REDUCE_SUM,
                                             OPNN_REDUCE_PROD};
    check_specials(*state, NAN, 0, kinds, N_OF(kinds),
                   "cpu_reduce__nan_propagates_from_any_position");
}

/* +inf at one position, -inf at another: Sum and Mean NaN where both meet, Max +inf, Min -inf;
 * one inf alone (the two positions in different outputs) stays inf. */
static void cpu_reduce__infinities(void **state)
{
    static const opnn_reduce_kind kinds[] = {OPNN_REDUCE_SUM, OPNN_REDUCE_MEAN, OPNN_REDUCE_MAX,
                                             OPNN_REDUCE_MIN};
    check_specials(*state, INFINITY, -INFINITY, kinds, N_OF(kinds), "cpu_reduce__infinities");
}

/* --- integers --------------------------------------------------------------------------------- */

typedef struct int_case {
    const char *name;
    const char *dtype;
    opnn_reduce_kind kind;
    int64_t value; /* every element, or ... */
    int64_t alt;   /* ... value and alt alternating */
    int64_t n;     /* reduced extent */
    int64_t want;  /* every output, exactly */
} int_case;

static const int_case int_cases[] = {
    /* 7 * 2^30 wraps to 3 * 2^30 in 64 bits truncated to 32: -2^30 */
    {"i32_sum_wraps", "i32", OPNN_REDUCE_SUM, (int64_t)1 << 30, (int64_t)1 << 30, 7,
     -((int64_t)1 << 30)},
    {"i32_sum_wraps_long", "i32", OPNN_REDUCE_SUM, INT32_MAX, INT32_MAX, 1001, 2147482647},
    {"i64_sum_wraps", "i64", OPNN_REDUCE_SUM, INT64_MAX, INT64_MAX, 3,
     (int64_t)(3u * (uint64_t)INT64_MAX)},
    {"i32_prod_wraps", "i32", OPNN_REDUCE_PROD, 3, 3, 41, 0x7b5fb863},
    {"i64_prod_wraps", "i64", OPNN_REDUCE_PROD, 3, 3, 41, (int64_t)0xfa2a1cf67b5fb863ull},
    /* the Mean of an int32 sum past 2^31 is taken in 64 bits: no wrap before dividing */
    {"i32_mean_wide_sum", "i32", OPNN_REDUCE_MEAN, INT32_MAX, INT32_MAX - 2, 1000, INT32_MAX - 1},
    /* -7, 0, -7, 0, -7: -21 / 5 is -4 (toward zero, not -5) */
    {"i32_mean_truncates_negative", "i32", OPNN_REDUCE_MEAN, -7, 0, 5, -4},
    {"i64_mean_truncates_positive", "i64", OPNN_REDUCE_MEAN, 7, 0, 5, 4},
    {"i32_max_from_int_min", "i32", OPNN_REDUCE_MAX, INT32_MIN, INT32_MIN, 37, INT32_MIN},
    {"i64_max_negative", "i64", OPNN_REDUCE_MAX, -5, -3, 37, -3},
    {"i64_min_from_int_max", "i64", OPNN_REDUCE_MIN, INT64_MAX, INT64_MAX, 37, INT64_MAX},
    {"i32_min_positive", "i32", OPNN_REDUCE_MIN, 5, 9, 37, 5},
};

static void cpu_reduce__integer_semantics(void **state)
{
    const int_case *ic = *state;
    DLDataType dt = ts_dtype(ic->dtype);
    size_t es = ts_dtype_size(dt);
    /* the same values as one full reduction, as rows (one per output) and as columns */
    const layout_case views[] = {
        {"full", 1, {ic->n}, true, {0}, -1, {0}, false, OPNN_CLASS_FULL},
        {"rows", 2, {5, ic->n}, true, {0}, AXES(1, 1), false, OPNN_CLASS_ROW},
        {"cols", 2, {ic->n, 6}, true, {0}, AXES(1, 0), false, OPNN_CLASS_COL},
    };

    for (size_t v = 0; v < N_OF(views); v++) {
        /* set up: element i of each reduced set is value or alt by the parity of i */
        const layout_case *c = &views[v];
        opnn_reduce_plan plan = plan_for(c, dt);
        int64_t storage = storage_of(c), red_stride = v == 2 ? 6 : 1;
        ts_buf in = ts_buf_alloc((size_t)storage * es);
        char what[160];
        assert_non_null(in.data);
        for (int64_t i = 0; i < storage; i++) {
            int64_t val = ((i / red_stride) % ic->n) % 2 ? ic->alt : ic->value;
            if (dt.bits == 32)
                ((int32_t *)in.data)[i] = (int32_t)val;
            else
                ((int64_t *)in.data)[i] = val;
        }
        snprintf(what, sizeof what, "%s as %s", ic->name, c->name);
        for (size_t t = 0; t < N_OF(thread_counts); t++) {
            /* run */
            ts_buf out =
                run_kernel(&plan, ic->kind, in.data, thread_counts[t], OPNN_CPU_ISA_AUTO, what);
            /* check: exact */
            for (int64_t o = 0; o < plan.out_numel; o++) {
                int64_t got = ts_load_int(out.data, dt, o);
                if (got != ic->want)
                    fail_msg("%s, %d threads: output %lld is %lld, expected %lld", what,
                             thread_counts[t], (long long)o, (long long)got, (long long)ic->want);
            }
            ts_buf_free(&out);
        }
        omp_set_num_threads(omp_get_num_procs());
        ts_buf_free(&in);
    }
}

/* --- FILL and EMPTY --------------------------------------------------------------------------- */

typedef struct kind_dtype_case {
    const char *name;
    opnn_reduce_kind kind;
    const char *dtype;
} kind_dtype_case;

/* clang-format off */
#define KD_ROW_(k, K, dt) {#k "_" #dt, OPNN_REDUCE_##K, #dt},
#define KD_DTYPES_(k, K)                                                                           \
    KD_ROW_(k, K, f32) KD_ROW_(k, K, f64) KD_ROW_(k, K, f16)                                       \
    KD_ROW_(k, K, bf16) KD_ROW_(k, K, i32) KD_ROW_(k, K, i64)
static const kind_dtype_case kind_dtype_cases[] = {
    KD_DTYPES_(sum, SUM) KD_DTYPES_(mean, MEAN) KD_DTYPES_(max, MAX) KD_DTYPES_(min, MIN)
    KD_DTYPES_(prod, PROD)
};
/* clang-format on */
#undef KD_ROW_
#undef KD_DTYPES_

/* The identity, finalized: Sum 0, Prod 1, Max -inf / integer min, Min +inf / integer max, Mean
 * NaN (integers: 0, which the caller never asks for). */
static void cpu_reduce__fill_writes_finalized_identity(void **state)
{
    const kind_dtype_case *kc = *state;
    DLDataType dt = ts_dtype(kc->dtype);
    const layout_case c = {"fill", 3, {3, 0, 4}, true, {0}, AXES(1, 1), false, OPNN_CLASS_FILL};
    opnn_reduce_plan plan = plan_for(&c, dt);
    bool isf = ts_dtype_is_float(dt);
    int64_t imin = dt.bits == 32 ? INT32_MIN : INT64_MIN,
            imax = dt.bits == 32 ? INT32_MAX : INT64_MAX;
    int64_t want_i = 0;
    double want_f = 0;

    switch (kc->kind) {
    case OPNN_REDUCE_SUM:
        break;
    case OPNN_REDUCE_MEAN:
        want_f = NAN;
        break;
    case OPNN_REDUCE_MAX:
        want_f = -INFINITY, want_i = imin;
        break;
    case OPNN_REDUCE_MIN:
        want_f = INFINITY, want_i = imax;
        break;
    default:
        want_f = 1, want_i = 1;
        break;
    }
    assert_int_equal(plan.out_numel, 12);
    /* run: no input is read */
    ts_buf out = run_kernel(&plan, kc->kind, NULL, 2, OPNN_CPU_ISA_AUTO, kc->name);
    omp_set_num_threads(omp_get_num_procs());
    /* check */
    for (int64_t o = 0; o < plan.out_numel; o++) {
        if (isf) {
            double got = ts_load(out.data, dt, o);
            if (!(got == want_f || (isnan(want_f) && isnan(got))))
                fail_msg("%s: output %lld is %g, expected %g", kc->name, (long long)o, got, want_f);
        } else if (ts_load_int(out.data, dt, o) != want_i) {
            fail_msg("%s: output %lld is %lld, expected %lld", kc->name, (long long)o,
                     (long long)ts_load_int(out.data, dt, o), (long long)want_i);
        }
    }
    ts_buf_free(&out);
}

static void cpu_reduce__empty_writes_nothing(void **state)
{
    const kind_dtype_case *kc = *state;
    DLDataType dt = ts_dtype(kc->dtype);
    const layout_case c = {"empty", 3, {4, 0, 5}, true, {0}, AXES(1, 2), false, OPNN_CLASS_EMPTY};
    opnn_reduce_plan plan = plan_for(&c, dt);
    unsigned char sentinel[16];
    char msg[128] = "";

    memset(sentinel, 0xA5, sizeof sentinel);
    /* run: with NULL pointers too, nothing is touched */
    assert_int_equal(opnn_cpu_reduce(&plan, kc->kind, NULL, NULL, msg, sizeof msg), OP_OK);
    assert_int_equal(opnn_cpu_reduce(&plan, kc->kind, sentinel, sentinel, msg, sizeof msg), OP_OK);
    /* check */
    for (size_t i = 0; i < sizeof sentinel; i++)
        assert_int_equal(sentinel[i], 0xA5);
}

/* --- 16-bit outputs --------------------------------------------------------------------------- */

typedef struct half_case {
    const char *name;
    const char *dtype;
    opnn_reduce_kind kind;
    int n;
    float in[4];
    uint16_t want; /* bits */
} half_case;

static const half_case half_cases[] = {
    /* accumulated in f32: 2048 + 1 + 1 is 2050 (in f16 arithmetic it would stay 2048) */
    {"f16_accumulates_in_f32", "f16", OPNN_REDUCE_SUM, 3, {2048, 1, 1}, 0x6801},
    /* 2049 and 2051 lie halfway between f16 neighbours: to the even mantissa */
    {"f16_tie_rounds_down_to_even", "f16", OPNN_REDUCE_SUM, 2, {2048, 1}, 0x6800},
    {"f16_tie_rounds_up_to_even", "f16", OPNN_REDUCE_SUM, 2, {2048, 3}, 0x6802},
    {"f16_overflow_is_inf", "f16", OPNN_REDUCE_SUM, 2, {60000, 60000}, 0x7c00},
    {"f16_negative_overflow_is_minus_inf", "f16", OPNN_REDUCE_SUM, 2, {-60000, -60000}, 0xfc00},
    {"f16_subnormal_result", "f16", OPNN_REDUCE_MEAN, 2, {0x1p-14f, 0}, 0x0200},
    {"f16_max_negative", "f16", OPNN_REDUCE_MAX, 3, {-5, -3, -7}, 0xc200},
    {"bf16_accumulates_in_f32", "bf16", OPNN_REDUCE_SUM, 3, {256, 1, 1}, 0x4381},
    {"bf16_tie_rounds_down_to_even", "bf16", OPNN_REDUCE_SUM, 2, {256, 1}, 0x4380},
    {"bf16_tie_rounds_up_to_even", "bf16", OPNN_REDUCE_SUM, 2, {256, 3}, 0x4382},
    {"bf16_min_positive", "bf16", OPNN_REDUCE_MIN, 3, {5, 3, 7}, 0x4040},
};

/* The layouts a 16-bit result is checked in: one output (written alone), 19 rows of n (two
 * batches of 8 narrowed a vector at a time, three rows alone), n rows of 19 columns (two vectors
 * of outputs, three alone) and 5 slabs [n, 3] (each slab's 3 outputs from one vector). Every
 * output gets the elements in[0, n), in order. */
enum {
    HALF_LAYOUTS = 4,
    HALF_OUTS = 19
};

static int64_t half_layout(int which, int n, const uint16_t *in, uint16_t *x, layout_case *c)
{
    static const char *names[HALF_LAYOUTS] = {"full", "rows", "cols", "slabs"};
    int64_t outs = 1;

    if (which == 0) {
        *c = (layout_case){names[0], 1, {n}, true, {0}, -1, {0}, false, OPNN_CLASS_FULL};
        memcpy(x, in, (size_t)n * sizeof *x);
    } else if (which == 1) {
        *c = (layout_case){names[1], 2,          {HALF_OUTS, n}, true,
                           {0},      AXES(1, 1), false,          OPNN_CLASS_ROW};
        outs = HALF_OUTS;
        for (int64_t a = 0; a < outs; a++)
            memcpy(x + a * n, in, (size_t)n * sizeof *x);
    } else if (which == 2) {
        *c = (layout_case){names[2], 2,          {n, HALF_OUTS}, true,
                           {0},      AXES(1, 0), false,          OPNN_CLASS_COL};
        outs = HALF_OUTS;
        for (int r = 0; r < n; r++)
            for (int64_t b = 0; b < outs; b++)
                x[r * outs + b] = in[r];
    } else {
        *c = (layout_case){names[3], 3, {5, n, 3}, true, {0}, AXES(1, 1), false, OPNN_CLASS_MIDDLE};
        outs = 15;
        for (int a = 0; a < 5; a++)
            for (int r = 0; r < n; r++)
                for (int b = 0; b < 3; b++)
                    x[(a * n + r) * 3 + b] = in[r];
    }
    return outs;
}

static void cpu_reduce__half_output_rounds_to_nearest_even(void **state)
{
    const half_case *hc = *state;
    DLDataType dt = ts_dtype(hc->dtype);
    uint16_t in[4], x[5 * 4 * 3 + HALF_OUTS * 4];

    /* set up: the inputs are exact in the dtype */
    for (int i = 0; i < hc->n; i++)
        in[i] = dt.code == kDLBfloat ? ts_f32_to_bf16(hc->in[i]) : ts_f32_to_f16(hc->in[i]);
    for (int l = 0; l < HALF_LAYOUTS; l++) {
        layout_case c;
        int64_t outs = half_layout(l, hc->n, in, x, &c);
        opnn_reduce_plan plan = plan_for(&c, dt);
        for (opnn_cpu_isa isa = OPNN_CPU_ISA_AUTO; isa <= OPNN_CPU_ISA_BASE; isa++) {
            /* run */
            ts_buf out = run_kernel(&plan, hc->kind, x, 1, isa, hc->name);
            /* check: every output bit exact */
            for (int64_t o = 0; o < outs; o++) {
                uint16_t got = ((const uint16_t *)out.data)[o];
                if (got != hc->want)
                    fail_msg("%s, %s, output %" PRId64 " (isa %d): got 0x%04x, expected 0x%04x",
                             hc->name, c.name, o, (int)isa, got, hc->want);
            }
            ts_buf_free(&out);
        }
    }
}

/* A NaN input gives a NaN, for every kind, with the same bits in every layout as one output
 * alone (its result narrowed by the scalar code): the payload dropped for f16, its top kept for
 * bf16, whichever of its sign and the others' the kind keeps. */
static void cpu_reduce__half_nan_stays_nan(void **state)
{
    (void)state;
    for (int d = 2; d < 4; d++) {
        DLDataType dt = ts_dtype(float_dtype_names[d]);
        uint16_t in[3], x[5 * 3 * 3 + HALF_OUTS * 3];
        in[0] = d == 3 ? ts_f32_to_bf16(1.0f) : ts_f32_to_f16(1.0f);
        in[1] = d == 3 ? 0xffc1 : 0xfe01; /* a negative quiet NaN with a payload */
        in[2] = in[0];
        for (int k = 0; k < OPNN_REDUCE_KIND_COUNT_; k++) {
            uint16_t want = 0;
            for (int l = 0; l < HALF_LAYOUTS; l++) {
                layout_case c;
                int64_t outs = half_layout(l, 3, in, x, &c);
                opnn_reduce_plan plan = plan_for(&c, dt);
                for (opnn_cpu_isa isa = OPNN_CPU_ISA_AUTO; isa <= OPNN_CPU_ISA_BASE; isa++) {
                    ts_buf out = run_kernel(&plan, (opnn_reduce_kind)k, x, 1, isa, kind_names[k]);
                    if (l == 0 && isa == OPNN_CPU_ISA_AUTO) {
                        want = *(const uint16_t *)out.data;
                        if (!isnan(ts_load(out.data, dt, 0)))
                            fail_msg("%s/%s: NaN became 0x%04x", kind_names[k],
                                     float_dtype_names[d], want);
                    }
                    for (int64_t o = 0; o < outs; o++) {
                        uint16_t got = ((const uint16_t *)out.data)[o];
                        if (got != want)
                            fail_msg("%s/%s, %s, output %" PRId64
                                     " (isa %d): 0x%04x, where one output alone is 0x%04x",
                                     kind_names[k], float_dtype_names[d], c.name, o, (int)isa, got,
                                     want);
                    }
                    ts_buf_free(&out);
                }
            }
        }
    }
}

/* The vector narrowing the kernels store 16-bit results with gives, for every instruction set,
 * the bits of the test's own scalar narrowing: over every f32 whose low 13 (f16) or 16 (bf16)
 * bits are one of those where rounding turns (0, half an ulp, a tie, just past it ...), every
 * 4099th f32, and random ones. */
static void cpu_reduce__narrow16_matches_scalar(void **state)
{
    enum {
        CHUNK = 8192
    };
    static const uint32_t low16[] = {0x0000, 0x0001, 0x07ff, 0x0800, 0x0801, 0x0fff,
                                     0x1000, 0x1001, 0x17ff, 0x1800, 0x1801, 0x1fff};
    static const uint32_t low_bf[] = {0x0000, 0x0001, 0x3fff, 0x7fff, 0x8000,
                                      0x8001, 0xbfff, 0xc000, 0xffff};
    ts_rng rng = {ts_seed("cpu_reduce__narrow16_matches_scalar")};
    float *in = malloc(CHUNK * sizeof *in);
    uint16_t *out = malloc(CHUNK * sizeof *out);
    int64_t checked = 0;

    (void)state;
    assert_non_null(in);
    assert_non_null(out);
    for (int bf = 0; bf < 2; bf++) {
        const uint32_t *low = bf ? low_bf : low16;
        int nlow = bf ? (int)N_OF(low_bf) : (int)N_OF(low16), shift = bf ? 16 : 13;
        /* patterns: [0, 2^(32 - shift) * nlow) the boundary ones, then 2^32 / 4099 strided,
         * then 2^20 random */
        int64_t nb = ((int64_t)1 << (32 - shift)) * nlow, ns = ((int64_t)1 << 32) / 4099 + 1,
                total = nb + ns + ((int64_t)1 << 20);
        for (int64_t base = 0; base < total; base += CHUNK) {
            int64_t m = total - base < CHUNK ? total - base : CHUNK;
            m -= m % 8;
            for (int64_t i = 0; i < m; i++) {
                int64_t k = base + i;
                uint32_t u;
                if (k < nb)
                    u = (uint32_t)(k / nlow) << shift | low[k % nlow];
                else if (k < nb + ns)
                    u = (uint32_t)((k - nb) * 4099);
                else
                    u = (uint32_t)ts_next(&rng);
                memcpy(&in[i], &u, sizeof u);
            }
            for (opnn_cpu_isa isa = OPNN_CPU_ISA_AVX2; isa >= OPNN_CPU_ISA_BASE; isa--) {
                if (!opnn__cpu_narrow16(isa, bf, in, out, m)) {
                    assert_true(isa == OPNN_CPU_ISA_AVX2 && !have_avx2());
                    continue;
                }
                for (int64_t i = 0; i < m; i++) {
                    uint16_t want = bf ? ts_f32_to_bf16(in[i]) : ts_f32_to_f16(in[i]);
                    uint32_t u;
                    memcpy(&u, &in[i], sizeof u);
                    if (out[i] != want)
                        fail_msg("%s, isa %d: 0x%08x narrowed to 0x%04x, expected 0x%04x",
                                 bf ? "bf16" : "f16", (int)isa, u, out[i], want);
                }
                checked += m;
            }
        }
    }
    /* a count not a multiple of 8 is refused */
    assert_false(opnn__cpu_narrow16(OPNN_CPU_ISA_BASE, false, in, out, 7));
    print_message("[ info ] %" PRId64 " narrowings checked\n", checked);
    free(in);
    free(out);
}

/* --- accuracy and size ------------------------------------------------------------------------ */

/* DESIGN.md: an f32 Sum of 2^28 uniform [0, 1) values is within 1e-6 relative of the float64
 * result (one serial f32 chain would be off by 87%), with 1 and 2 threads alike. */
static void cpu_reduce__f32_sum_2pow28_within_1e6(void **state)
{
    const int64_t n = (int64_t)1 << 28;
    const layout_case c = {"sum_2pow28", 1, {n}, true, {0}, -1, {0}, false, OPNN_CLASS_FULL};
    ts_rng rng = {ts_seed("cpu_reduce__f32_sum_2pow28_within_1e6")};
    opnn_reduce_plan plan = plan_for(&c, ts_dtype("f32"));
    float *x = malloc((size_t)n * sizeof(float));
    double exact = 0, comp = 0;
    float got[2];

    (void)state;
    if (!x)
        skip();
    /* set up: the float64 sum, compensated */
    for (int64_t i = 0; i < n; i++) {
        double v, t;
        x[i] = (float)ts_uniform(&rng);
        v = x[i];
        t = exact + v;
        comp += fabs(exact) >= v ? (exact - t) + v : (v - t) + exact;
        exact = t;
    }
    exact += comp;
    for (int t = 0; t < 2; t++) {
        /* run */
        ts_buf out = run_kernel(&plan, OPNN_REDUCE_SUM, x, t + 1, OPNN_CPU_ISA_AUTO, c.name);
        got[t] = *(const float *)out.data;
        ts_buf_free(&out);
        /* check */
        if (fabs(got[t] - exact) > 1e-6 * exact)
            fail_msg("%d threads: %.9g, float64 %.9g, relative error %.3g", t + 1, got[t], exact,
                     fabs(got[t] - exact) / exact);
    }
    omp_set_num_threads(omp_get_num_procs());
    assert_true(got[0] == got[1]);
    free(x);
}

typedef struct huge_case {
    const char *name;
    const char *dtype;
    opnn_reduce_kind kind;
    int32_t ndim;
    double value;
    double want;
} huge_case;

static const huge_case huge_cases[] = {
    {"f32_sum", "f32", OPNN_REDUCE_SUM, 1, 0.75, 3221225472.0},
    {"f32_sum_2d", "f32", OPNN_REDUCE_SUM, 2, 0.75, 3221225472.0},
    {"f32_mean", "f32", OPNN_REDUCE_MEAN, 1, 0.75, 0.75},
    {"f32_max", "f32", OPNN_REDUCE_MAX, 1, -0.5, -0.5},
    {"f16_mean", "f16", OPNN_REDUCE_MEAN, 1, 0.5, 0.5},
    {"bf16_sum", "bf16", OPNN_REDUCE_SUM, 2, 1.0, 4294967296.0},
    {"i64_sum", "i64", OPNN_REDUCE_SUM, 1, 3, 12884901888.0},
    {"i32_sum_wraps", "i32", OPNN_REDUCE_SUM, 2, 3, 0},
};

/* [2^32] (or [2^16, 2^16]) elements through zero strides: 64-bit counts, nothing allocated. */
static void cpu_reduce__zero_stride_2pow32_elements(void **state)
{
    const huge_case *hc = *state;
    DLDataType dt = ts_dtype(hc->dtype);
    layout_case c = {hc->name, 1,     {(int64_t)1 << 32}, STRIDES(0), -1,
                     {0},      false, OPNN_CLASS_GENERIC};
    unsigned char one[8];
    opnn_reduce_plan plan;
    double got;

    if (hc->ndim == 2) {
        c.ndim = 2;
        c.shape[0] = c.shape[1] = (int64_t)1 << 16;
        c.strides[0] = c.strides[1] = 0;
    }
    plan = plan_for(&c, dt);
    assert_int_equal(plan.red_numel, (int64_t)1 << 32);
    ts_store(one, dt, 0, hc->value);
    /* run: all threads */
    ts_buf out = run_kernel(&plan, hc->kind, one, omp_get_num_procs(), OPNN_CPU_ISA_AUTO, hc->name);
    /* check: exact (every partial sum is a power-of-two multiple of the value) */
    got = ts_load(out.data, dt, 0);
    if (got != hc->want)
        fail_msg("%s: got %.17g, expected %.17g", hc->name, got, hc->want);
    ts_buf_free(&out);
}

/* --- reads stay inside the input ------------------------------------------------------------ */

/* bytes of storage placed against an inaccessible page: ending where it begins (tail) or
 * starting where it ends: a read past either end of the input faults. */
typedef struct fenced {
    void *map;
    size_t len;
    void *data;
} fenced;

static fenced fenced_alloc(size_t bytes, bool tail)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = (bytes + pg - 1) / pg * pg + pg;
    fenced f = {NULL, len, NULL};
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (m == MAP_FAILED)
        return f;
    if (mprotect(tail ? (char *)m + len - pg : m, pg, PROT_NONE) != 0) {
        munmap(m, len);
        return f;
    }
    f.map = m;
    f.data = tail ? (char *)m + len - pg - bytes : (char *)m + pg;
    return f;
}

/* Row lengths to try: 1 to 70, then 127 to 129 (the longest rows read in batches of 8 for
 * 32-bit dtypes: 4 * RC_W), and 200. */
static int64_t next_row_length(int64_t K)
{
    return K < 70 ? K + 1 : K < 127 ? 127 : K < 129 ? K + 1 : K < 200 ? 200 : K + 1;
}

/* Runs [A, R, B] over axis 1 (slab stride R * B + gap; B 0: [A, R], row stride R + gap; A0 > 0:
 * [A0, A, R, B] over axis 2, A0's stride an element more than A slabs, so the outer dims stay
 * two) with Sum and Max from storage in an ordinary buffer, then from fenced storage on either
 * side with 1 and 2 threads: the same bits. */
static int check_fenced(DLDataType dt, int64_t A0, int64_t A, int64_t R, int64_t B, int64_t gap,
                        ts_rng *r)
{
    static const opnn_reduce_kind kinds[] = {OPNN_REDUCE_SUM, OPNN_REDUCE_MAX};
    layout_case c = {"fenced",   3,     {A, R, B},        false, {R * B + gap, B, 1},
                     AXES(1, 1), false, OPNN_CLASS_MIDDLE};
    opnn_reduce_request req;
    opnn_reduce_plan plan;
    char msg[256] = "", what[160];
    int64_t storage;
    size_t es = ts_dtype_size(dt), bytes;
    ts_buf in;
    int runs = 0;

    if (B == 0) {
        c.ndim = 2;
        c.strides[0] = R + gap;
        c.strides[1] = 1;
    } else if (A0 > 0) {
        layout_case c4 = {
            "fenced",   4,     {A0, A, R, B},    false, {A * (R * B + gap) + 1, R * B + gap, B, 1},
            AXES(1, 2), false, OPNN_CLASS_MIDDLE};
        c = c4;
    }
    storage = storage_of(&c);
    bytes = (size_t)storage * es;
    in = ts_buf_alloc(bytes);
    memset(&req, 0, sizeof req);
    req.op = "fenced";
    req.ndim = c.ndim;
    req.shape = c.shape;
    req.strides = c.strides;
    req.axes = c.axes;
    req.num_axes = 1;
    req.dtype = dt;
    if (opnn__reduce_plan_init(&plan, &req, msg, sizeof msg) != OP_OK)
        fail_msg("fenced [%lld, %lld, %lld, %lld]: planner refused: %s", (long long)A0,
                 (long long)A, (long long)R, (long long)B, msg);
    assert_non_null(in.data);
    ts_fill_random(r, in.data, dt, storage, 1.0);
    for (size_t k = 0; k < N_OF(kinds); k++) {
        ts_buf want;
        snprintf(what, sizeof what, "fenced [%lld, %lld, %lld, %lld] gap %lld %s/%s (%s)",
                 (long long)A0, (long long)A, (long long)R, (long long)B, (long long)gap,
                 kind_names[kinds[k]], ts_dtype_name(dt), opnn__reduce_class_name(plan.cls));
        want = run_kernel(&plan, kinds[k], in.data, 1, OPNN_CPU_ISA_AUTO, what);
        for (int side = 0; side < 2; side++) {
            fenced f = fenced_alloc(bytes, side == 0);
            assert_non_null(f.map);
            memcpy(f.data, in.data, bytes);
            for (int t = 1; t <= 2; t++, runs++) {
                ts_buf got = run_kernel(&plan, kinds[k], f.data, t, OPNN_CPU_ISA_AUTO, what);
                if (memcmp(got.data, want.data, (size_t)plan.out_numel * es) != 0)
                    fail_msg("%s: %d threads, fenced %s: other bits", what, t,
                             side == 0 ? "after" : "before");
                ts_buf_free(&got);
            }
            munmap(f.map, f.len);
        }
        ts_buf_free(&want);
    }
    ts_buf_free(&in);
    return runs;
}

/* Narrow slabs [A, R, B] (B 1 to 7: under a vector for every dtype but f64; 9 to 63: whole
 * vectors and a partial one; R around a period of 2 to 8 rows, and 8 leaves of 128 periods and
 * 3 rows; slabs packed or an element apart), [1, R, B] (narrow columns) and short rows [A, K],
 * each input against an inaccessible page on either side: the kernels may read a whole vector
 * past a row only where the tensor goes on (ctile_flat, flat_vslabs, rows_short_over), never
 * past the input. */
static void cpu_reduce__reads_stay_inside_the_input(void **state)
{
    static const int64_t Bs[] = {1, 2, 3, 4, 5, 6, 7, 9, 12, 17, 40, 63},
                         Rs[] = {1, 2, 3, 5, 7, 9, 17, 1027}, As[] = {1, 2, 3, 5};
    ts_rng rng = {ts_seed("cpu_reduce__reads_stay_inside_the_input")};
    int runs = 0;

    (void)state;
    for (size_t d = 0; d < N_OF(dtype_names); d++)
        for (size_t bi = 0; bi < N_OF(Bs); bi++)
            for (size_t ri = 0; ri < N_OF(Rs); ri++)
                for (size_t ai = 0; ai < N_OF(As); ai++)
                    for (int64_t gap = 0; gap <= (As[ai] > 1); gap++)
                        runs += check_fenced(ts_dtype(dtype_names[d]), 0, As[ai], Rs[ri], Bs[bi],
                                             gap, &rng);
    /* two outer dims: reads past a slab checked against the view's extent (colg.xn), not a
     * slab's neighbour in one outer walk */
    for (size_t d = 0; d < N_OF(dtype_names); d++)
        for (size_t bi = 0; bi < N_OF(Bs); bi++)
            for (size_t ri = 0; ri < 4; ri++)
                runs += check_fenced(ts_dtype(dtype_names[d]), 3, 2, Rs[ri], Bs[bi], 1, &rng);
    omp_set_num_threads(omp_get_num_procs());
    /* rows of 1 to 200 elements: batches of 8 rows or not (rows_short_over), and longer rows 4
     * at a time or not (rows_multi) */
    for (size_t d = 0; d < N_OF(dtype_names); d++)
        for (int64_t K = 1; K <= 200; K = next_row_length(K))
            for (int64_t A = 7; A <= 25; A += 9)
                for (int64_t gap = 0; gap <= 1; gap++)
                    runs += check_fenced(ts_dtype(dtype_names[d]), 0, A, K, 0, gap, &rng);
    print_message("[ info ] %d fenced runs\n", runs);
}

/* Rows of 1 to 200 elements (next_row_length), all alike (random, with -0 first and, for floats, a
 * NaN in every fifth row-length), 8 * 3 + 5 of them: rows read whole past their end (in batches of
 * 8, or 4 side by side), those near the tensor's end that may not be, and the rows past the last
 * batch or group take different code; every row's result must have the same bits, for every kind
 * and dtype. */
static void cpu_reduce__equal_rows_equal_bits(void **state)
{
    ts_rng rng = {ts_seed("cpu_reduce__equal_rows_equal_bits")};
    const int64_t A = 8 * 3 + 5;

    (void)state;
    for (size_t d = 0; d < N_OF(dtype_names); d++)
        for (int k = 0; k < OPNN_REDUCE_KIND_COUNT_; k++)
            for (int64_t K = 1; K <= 200; K = next_row_length(K)) {
                DLDataType dt = ts_dtype(dtype_names[d]);
                layout_case c = {"equal_rows", 2,          {A, K}, true,
                                 {0},          AXES(1, 1), false,  OPNN_CLASS_ROW};
                opnn_reduce_plan plan = plan_for(&c, dt);
                size_t es = ts_dtype_size(dt);
                ts_buf in = ts_buf_alloc((size_t)(A * K) * es), out;
                char what[160];

                assert_non_null(in.data);
                fill_for_kind(&rng, in.data, dt, K, (opnn_reduce_kind)k);
                if (dt.code == kDLFloat || dt.code == kDLBfloat) {
                    ts_store(in.data, dt, 0, -0.0);
                    if (K % 5 == 4)
                        ts_store(in.data, dt, K / 2, NAN);
                }
                for (int64_t a = 1; a < A; a++)
                    memcpy((char *)in.data + (size_t)(a * K) * es, in.data, (size_t)K * es);
                snprintf(what, sizeof what, "equal rows [%lld, %lld] %s/%s", (long long)A,
                         (long long)K, kind_names[k], dtype_names[d]);
                for (int t = 1; t <= 2; t++)
                    for (int isa = 0; isa < 2; isa++) {
                        out = run_kernel(&plan, (opnn_reduce_kind)k, in.data, t,
                                         isa ? OPNN_CPU_ISA_BASE : OPNN_CPU_ISA_AUTO, what);
                        for (int64_t a = 1; a < A; a++)
                            if (memcmp((char *)out.data + (size_t)a * es, out.data, es) != 0)
                                fail_msg("%s (%d threads%s): row %lld's bits differ from row 0's",
                                         what, t, isa ? ", baseline" : "", (long long)a);
                        ts_buf_free(&out);
                    }
                ts_buf_free(&in);
            }
    omp_set_num_threads(omp_get_num_procs());
}

/* Columns of a slab of one leaf (rows up to rc_col_leaf_rows(B)), B of 1 to 9 vectors, the
 * last whole or of 1, 3 or RC_VL - 1 lanes: each column's Sum is its rows added in order, from
 * +0, in the accumulator's type (f32 for 16-bit inputs), then narrowed once, whichever code
 * reads the slabs (a slab a unit, or slabs of up to RC_VSLAB_MAX vectors flat, a partial vector
 * read whole but near the tensor's end). COL [R, B] and MIDDLE [5, R, B], every float dtype, 1
 * and 2 threads, both instruction sets; the input buffer ends with the tensor. */
static void cpu_reduce__slab_columns_in_row_order(void **state)
{
    ts_rng rng = {ts_seed("cpu_reduce__slab_columns_in_row_order")};
    int runs = 0;

    (void)state;
    for (size_t d = 0; d < N_OF(float_dtype_names); d++) {
        DLDataType dt = ts_dtype(float_dtype_names[d]);
        int64_t vl = dt.bits == 64 ? 4 : 8, es = dt.bits / 8;
        for (int64_t nb = 0; nb < 9 * 4; nb++) {
            int64_t nv = 1 + nb / 4, tail[] = {0, 1, 3, vl - 1}, B = nv * vl + tail[nb % 4];
            int64_t rows[] = {2, 7, 16, 33, rc_col_leaf_rows(B)};
            if (nb % 4 && (tail[nb % 4] == tail[nb % 4 - 1] || nv == 9))
                continue;
            for (size_t ri = 0; ri < N_OF(rows); ri++)
                for (int mid = 0; mid < 2 && rows[ri] <= rows[N_OF(rows) - 1]; mid++) {
                    int64_t R = rows[ri], A = mid ? 5 : 1;
                    layout_case c =
                        mid ? (layout_case){"slab_cols", 3,          {A, R, B}, true,
                                            {0},         AXES(1, 1), false,     OPNN_CLASS_MIDDLE}
                            : (layout_case){"slab_cols", 2,          {R, B}, true,
                                            {0},         AXES(1, 0), false,  OPNN_CLASS_COL};
                    opnn_reduce_plan plan = plan_for(&c, dt);
                    ts_buf in = ts_buf_alloc((size_t)(A * R * B * es));
                    char what[160];
                    assert_non_null(in.data);
                    ts_fill_random(&rng, in.data, dt, A * R * B, 1.0);
                    snprintf(what, sizeof what, "slab columns [%lld, %lld, %lld] %s", (long long)A,
                             (long long)R, (long long)B, float_dtype_names[d]);
                    for (int t = 1; t <= 2; t++)
                        for (int isa = 0; isa < 2; isa++) {
                            ts_buf out =
                                run_kernel(&plan, OPNN_REDUCE_SUM, in.data, t,
                                           isa ? OPNN_CPU_ISA_BASE : OPNN_CPU_ISA_AUTO, what);
                            for (int64_t o = 0; o < A * B; o++) {
                                int64_t a = o / B, b = o % B;
                                double got = ts_load(out.data, dt, o), want;
                                float f = 0.0f;
                                double g = 0.0;
                                for (int64_t r = 0; r < R; r++) {
                                    double v = ts_load(in.data, dt, (a * R + r) * B + b);
                                    f += (float)v;
                                    g += v;
                                }
                                want = dt.bits == 64          ? g
                                       : dt.bits == 32        ? f
                                       : dt.code == kDLBfloat ? ts_bf16_to_f32(ts_f32_to_bf16(f))
                                                              : ts_f16_to_f32(ts_f32_to_f16(f));
                                if (memcmp(&got, &want, sizeof got) != 0)
                                    fail_msg("%s (%d threads%s): output %lld is %a, the rows "
                                             "in order give %a",
                                             what, t, isa ? ", baseline" : "", (long long)o, got,
                                             want);
                            }
                            ts_buf_free(&out);
                            runs++;
                        }
                    ts_buf_free(&in);
                }
        }
    }
    omp_set_num_threads(omp_get_num_procs());
    print_message("[ info ] %d runs\n", runs);
}

/* --- arguments -------------------------------------------------------------------------------- */

static void cpu_reduce__rejects_bad_arguments(void **state)
{
    const layout_case c = {"args", 1, {5}, true, {0}, -1, {0}, false, OPNN_CLASS_FULL};
    opnn_reduce_plan plan = plan_for(&c, ts_dtype("f32"));
    float in[5] = {1, 2, 3, 4, 5}, out = -1;
    char msg[256];

    (void)state;
    msg[0] = '\0';
    assert_int_equal(opnn_cpu_reduce(NULL, OPNN_REDUCE_SUM, in, &out, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "plan"));
    msg[0] = '\0';
    assert_int_equal(opnn_cpu_reduce(&plan, OPNN_REDUCE_KIND_COUNT_, in, &out, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "kind"));
    assert_int_equal(opnn_cpu_reduce(&plan, OPNN_REDUCE_SUM, NULL, &out, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(opnn_cpu_reduce(&plan, OPNN_REDUCE_SUM, in, NULL, NULL, 0),
                     OP_ERR_INVALID_ARGUMENT);
    plan.dtype = (DLDataType){kDLUInt, 8, 1};
    msg[0] = '\0';
    assert_int_equal(opnn_cpu_reduce(&plan, OPNN_REDUCE_SUM, in, &out, msg, sizeof msg),
                     OP_ERR_UNSUPPORTED);
    assert_non_null(strstr(msg, "dtype"));
    plan.dtype = (DLDataType){kDLFloat, 32, 4};
    assert_int_equal(opnn_cpu_reduce(&plan, OPNN_REDUCE_SUM, in, &out, msg, sizeof msg),
                     OP_ERR_UNSUPPORTED);
    assert_true(out == -1); /* nothing written on failure */
    plan.dtype = ts_dtype("f32");
    assert_int_equal(opnn_cpu_reduce(&plan, OPNN_REDUCE_SUM, in, &out, NULL, 0), OP_OK);
    assert_true(out == 15);
}

static void cpu_reduce__isa_selection(void **state)
{
    (void)state;
    assert_true(opnn__cpu_reduce_set_isa(OPNN_CPU_ISA_BASE));
    assert_int_equal(opnn__cpu_reduce_isa(), OPNN_CPU_ISA_BASE);
    assert_true(opnn__cpu_reduce_set_isa(OPNN_CPU_ISA_AUTO));
    assert_int_equal(opnn__cpu_reduce_isa(), have_avx2() ? OPNN_CPU_ISA_AVX2 : OPNN_CPU_ISA_BASE);
    assert_false(opnn__cpu_reduce_set_isa((opnn_cpu_isa)42));
    print_message("[ info ] AVX2+F16C kernels %s\n", have_avx2() ? "used" : "not available");
}

int main(void)
{
    struct CMUnitTest tests[256];
    size_t n = 0;

    ADD_TEST(tests, n, cpu_reduce__isa_selection);
    ADD_CASES(tests, n, cpu_reduce__layout_matches_reference, layout_cases);
    ADD_CASES(tests, n, cpu_reduce__parallel_splits_thread_independent, big_cases);
    ADD_CASES(tests, n, cpu_reduce__nan_propagates_from_any_position, special_cases);
    ADD_CASES(tests, n, cpu_reduce__infinities, special_cases);
    ADD_CASES(tests, n, cpu_reduce__integer_semantics, int_cases);
    ADD_CASES(tests, n, cpu_reduce__fill_writes_finalized_identity, kind_dtype_cases);
    ADD_CASES(tests, n, cpu_reduce__empty_writes_nothing, kind_dtype_cases);
    ADD_CASES(tests, n, cpu_reduce__half_output_rounds_to_nearest_even, half_cases);
    ADD_TEST(tests, n, cpu_reduce__half_nan_stays_nan);
    ADD_TEST(tests, n, cpu_reduce__narrow16_matches_scalar);
    ADD_TEST(tests, n, cpu_reduce__rejects_bad_arguments);
    ADD_CASES(tests, n, cpu_reduce__zero_stride_2pow32_elements, huge_cases);
    ADD_TEST(tests, n, cpu_reduce__reads_stay_inside_the_input);
    ADD_TEST(tests, n, cpu_reduce__equal_rows_equal_bits);
    ADD_TEST(tests, n, cpu_reduce__slab_columns_in_row_order);
    ADD_TEST(tests, n, cpu_reduce__f32_sum_2pow28_within_1e6);
    assert_true(n <= N_OF(tests));
    return _cmocka_run_group_tests("test_reduce_cpu_kernels", tests, n, NULL, NULL);
}
