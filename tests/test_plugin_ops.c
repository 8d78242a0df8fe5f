/* The example plugins' ops on the CPU (examples/plugins: reduce_extra.so, argminmax.so): every op
 * x dtype on random shapes, axes and layouts against the float64 reference of test_support; the
 * kernel families' large classes; special values, ties, empty sets; bad calls. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <opnn/opnn.h>

#include "support/test_support.h"

static const char *const dtypes[] = {"f32", "f64", "f16", "bf16", "i32", "i64"};
#define NDTYPES (sizeof(dtypes) / sizeof(dtypes[0]))

/* One op call on the CPU: output allocated compact with guard bytes. */
typedef struct call {
    op_status st;
    char msg[512];
    ts_buf out;
    int64_t nout;
    DLDataType odt;
} call;

static void run_case(ts_xop op, const ts_xcase *c, const DLTensor *x, DLDataType out_dtype_override,
                     call *r)
{
    op_context *ctx;
    int32_t ondim;
    int64_t oshape[OP_MAX_DIMS];
    memset(r, 0, sizeof(*r));
    assert_int_equal(op_context_create(&ctx), OP_OK);
    assert_int_equal(op_context_set_input(ctx, 0, x), OP_OK);
    assert_int_equal(ts_xset_attrs(ctx, op, c), OP_OK);
    r->st = op_infer_output(ts_xop_names[op], ctx, 0, &ondim, oshape, &r->odt);
    if (r->st == OP_OK) {
        if (out_dtype_override.bits)
            r->odt = out_dtype_override;
        r->nout = ts_numel(ondim, oshape);
        r->out = ts_buf_alloc((size_t)r->nout * ts_dtype_size(r->odt));
        assert_non_null(r->out.data);
        DLTensor y = {r->out.data, {kDLCPU, 0}, ondim, r->odt, oshape, NULL, 0};
        assert_int_equal(op_context_set_output(ctx, 0, &y), OP_OK);
        r->st = op_run(ts_xop_names[op], ctx);
    }
    snprintf(r->msg, sizeof(r->msg), "%s", op_context_error(ctx));
    op_context_destroy(ctx);
}

/* Runs the case on random data (mode) and checks it against the reference. */
static void check_case(ts_rng *rng, uint64_t seed, ts_xop op, const char *dt, const ts_xcase *c,
                       ts_xfill_mode mode, const char *label)
{
    /* set up */
    DLDataType t = ts_dtype(dt);
    int64_t ns = ts_xstorage_elems(c);
    ts_buf in = ts_buf_alloc((size_t)(ns ? ns : 1) * ts_dtype_size(t));
    assert_non_null(in.data);
    ts_xfill(rng, op, in.data, t, ns, mode);
    ts_tensor x;
    ts_xtensor(&x, c, in.data, kDLCPU, t);
    /* run */
    call r;
    run_case(op, c, &x.t, (DLDataType){0, 0, 0}, &r);
    /* check */
    char what[256];
    snprintf(what, sizeof(what), "%s %s %s rank %d (seed %llu)", ts_xop_names[op], dt, label,
             (int)c->ndim, (unsigned long long)seed);
    if (r.st != OP_OK)
        printf("%s: %s: %s\n", what, op_status_str(r.st), r.msg);
    assert_int_equal(r.st, OP_OK);
    double *ref_f = malloc((size_t)(r.nout + 1) * sizeof(double));
    int64_t *ref_i = malloc((size_t)(r.nout + 1) * sizeof(int64_t));
    assert_non_null(ref_f);
    assert_non_null(ref_i);
    bool last = c->select_last == 1;
    assert_int_equal(ts_xreference(op, &x.t, ts_xmask(op, c), last, ref_f, ref_i), r.nout);
    bool ok = ts_xcheck(what, op, r.out.data, r.odt, r.nout, ref_f, ref_i);
    if (!ok) {
        printf("  shape [");
        for (int i = 0; i < c->ndim; i++)
            printf("%s%lld", i ? "," : "", (long long)c->shape[i]);
        printf("] strides ");
        for (int i = 0; i < c->ndim && !c->compact; i++)
            printf("%s%lld", i ? "," : "[", (long long)c->strides[i]);
        printf("%s axes", c->compact ? "compact" : "]");
        for (int i = 0; i < c->naxes; i++)
            printf(" %lld", (long long)c->axes[i]);
        printf(" (n %d) keepdims %d noop %d last %d offset %lld\n", c->naxes, c->keepdims, c->noop,
               c->select_last, (long long)c->offset);
    }
    assert_true(ok);
    assert_true(ts_buf_guard_ok(&r.out));
    free(ref_f);
    free(ref_i);
    ts_buf_free(&r.out);
    ts_buf_free(&in);
}

static bool served(ts_xop op, const char *dt)
{
    return !ts_xop_floats_only(op) || ts_dtype_is_float(ts_dtype(dt));
}

/* --- every op x dtype on random cases --------------------------------------------------------- */

static void plugin_ops__random_cases_match_reference(void **state)
{
    const ts_xop op = *(const ts_xop *)*state;
    uint64_t seed = ts_seed(ts_xop_names[op]);
    ts_rng rng = {seed};
    for (size_t d = 0; d < NDTYPES; d++) {
        if (!served(op, dtypes[d]))
            continue;
        for (int k = 0; k < 120; k++) {
            ts_xcase c;
            ts_xcase_random(&rng, op, 20000, &c);
            /* plain data, few distinct values (ties), and with NaN and infinities */
            const ts_xfill_mode mode = (ts_xfill_mode)(k % 3);
            check_case(&rng, seed, op, dtypes[d], &c, mode, "random");
        }
    }
}

/* --- the families' large classes (threads, split trees) --------------------------------------- */

static const ts_xbig big_cases[] = {
    {"full", 1, {1 << 17}, 0, {0}, false},
    {"few_long_rows", 2, {3, 70001}, 1, {1}, false},
    {"many_short_rows", 2, {1 << 15, 5}, 1, {1}, false},
    {"col_few_tiles", 2, {70001, 3}, 1, {0}, false},
    {"col_tiles", 2, {600, 333}, 1, {0}, false},
    {"middle", 3, {5, 3000, 70}, 1, {1}, false},
    {"outer_inner", 3, {50, 7, 300}, 2, {0, 2}, false},
    {"outer_inner_few", 3, {300, 2, 400}, 2, {0, 2}, false},
    {"generic_permuted", 3, {300, 7, 50}, 1, {0}, true},
    {"generic_two", 4, {20, 3, 30, 40}, 2, {0, 2}, true},
};

static void plugin_ops__large_classes_match_reference(void **state)
{
    const ts_xbig *b = (const ts_xbig *)*state;
    uint64_t seed = ts_seed(b->name);
    ts_rng rng = {seed};
    for (int op = 0; op < TS_X_COUNT; op++) {
        if (ts_xop_is_arg((ts_xop)op) && b->naxes != 1)
            continue;
        for (size_t d = 0; d < NDTYPES; d++) {
            if (!served((ts_xop)op, dtypes[d]))
                continue;
            ts_xcase c;
            ts_xcase_from_big(b, d, (ts_xop)op, &c);
            ts_xfill_mode mode = ts_xop_is_arg((ts_xop)op) ? TS_XFILL_TIES : TS_XFILL_PLAIN;
            check_case(&rng, seed, (ts_xop)op, dtypes[d], &c, mode, b->name);
        }
    }
}

/* --- fixed behaviours ------------------------------------------------------------------------- */

/* Runs op on a [n] vector of dtype t (all axes) and returns the one output as double (or
 * index). */
static double run_vec_t(const char *opname, const void *v, DLDataType t, int64_t n, ts_xcase *c)
{
    ts_xop op = TS_X_COUNT;
    for (int i = 0; i < TS_X_COUNT; i++)
        if (!strcmp(ts_xop_names[i], opname))
            op = (ts_xop)i;
    assert_true(op != TS_X_COUNT);
    int64_t shape[1] = {n};
    DLTensor x = {(void *)v, {kDLCPU, 0}, 1, t, shape, NULL, 0};
    call r;
    run_case(op, c, &x, (DLDataType){0, 0, 0}, &r);
    assert_int_equal(r.st, OP_OK);
    assert_int_equal(r.nout, 1);
    double res = ts_xop_is_arg(op) ? (double)((int64_t *)r.out.data)[0] : ts_load(r.out.data, t, 0);
    ts_buf_free(&r.out);
    return res;
}

static double run_vec(const char *opname, const float *v, int64_t n, ts_xcase *c)
{
    return run_vec_t(opname, v, (DLDataType){kDLFloat, 32, 1}, n, c);
}

static void plugin_ops__special_values(void **state)
{
    (void)state;
    ts_xcase c;
    memset(&c, 0, sizeof(c));
    c.naxes = -1, c.keepdims = -1, c.noop = -1, c.select_last = -1;
    const float nan_in[] = {1, NAN, 2}, inf_in[] = {1, INFINITY, -INFINITY};
    const float big[] = {1000, 999, -1000}, ninf[] = {-INFINITY, -INFINITY};
    assert_true(isnan(run_vec("ReduceL1", nan_in, 3, &c)));
    assert_true(isnan(run_vec("ReduceLogSumExp", nan_in, 3, &c)));
    assert_true(run_vec("ReduceL2", inf_in, 3, &c) == INFINITY);
    assert_true(run_vec("ReduceLogSumExp", inf_in, 3, &c) == INFINITY);
    assert_true(isnan(run_vec("ReduceLogSum", inf_in, 3, &c))); /* inf - inf */
    assert_true(run_vec("ReduceLogSumExp", ninf, 2, &c) == -INFINITY);
    /* max shift: exp(1000) overflows, the result does not */
    assert_float_equal(run_vec("ReduceLogSumExp", big, 3, &c), 1000 + log1p(exp(-1.0)), 1e-3);
    assert_float_equal(run_vec("ReduceL2", (const float[]){3, -4}, 2, &c), 5.0, 0);
}

static void plugin_ops__argmax_nan_and_ties(void **state)
{
    (void)state;
    ts_xcase c;
    memset(&c, 0, sizeof(c));
    c.naxes = -1, c.keepdims = 0, c.noop = -1, c.select_last = -1;
    const float ties[] = {1, 5, 2, 5, 0, 5, -1};
    const float nans[] = {1, NAN, 7, NAN, 9};
    assert_int_equal((int64_t)run_vec("ArgMax", ties, 7, &c), 1);
    assert_int_equal((int64_t)run_vec("ArgMin", ties, 7, &c), 6);
    assert_int_equal((int64_t)run_vec("ArgMax", nans, 5, &c), 1);
    assert_int_equal((int64_t)run_vec("ArgMin", nans, 5, &c), 1);
    c.select_last = 1;
    assert_int_equal((int64_t)run_vec("ArgMax", ties, 7, &c), 5);
    assert_int_equal((int64_t)run_vec("ArgMax", nans, 5, &c), 3);
    assert_int_equal((int64_t)run_vec("ArgMin", nans, 5, &c), 3);
    /* ties across leaves and threads: every element equal, 100000 of them */
    float *flat = malloc(100000 * sizeof(float));
    assert_non_null(flat);
    for (int i = 0; i < 100000; i++)
        flat[i] = 2.5f;
    assert_int_equal((int64_t)run_vec("ArgMin", flat, 100000, &c), 99999);
    c.select_last = 0;
    assert_int_equal((int64_t)run_vec("ArgMin", flat, 100000, &c), 0);
    flat[77777] = NAN;
    flat[88888] = NAN;
    assert_int_equal((int64_t)run_vec("ArgMax", flat, 100000, &c), 77777);
    c.select_last = 1;
    assert_int_equal((int64_t)run_vec("ArgMax", flat, 100000, &c), 88888);
    free(flat);
    /* -0 equals +0 */
    const float zeros[] = {-0.0f, 0.0f, -0.0f};
    const double dzeros[] = {0.0, -0.0};
    c.select_last = 0;
    assert_int_equal((int64_t)run_vec("ArgMax", zeros, 3, &c), 0);
    assert_int_equal((int64_t)run_vec("ArgMin", zeros, 3, &c), 0);
    assert_int_equal((int64_t)run_vec_t("ArgMin", dzeros, ts_dtype("f64"), 2, &c), 0);
    c.select_last = 1;
    assert_int_equal((int64_t)run_vec("ArgMax", zeros, 3, &c), 2);
    assert_int_equal((int64_t)run_vec_t("ArgMax", dzeros, ts_dtype("f64"), 2, &c), 1);
    /* the integer extremes tie with nothing but themselves */
    const int32_t i32[] = {INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN};
    const int64_t i64[] = {INT64_MIN, INT64_MAX, INT64_MIN, INT64_MAX};
    const DLDataType ti32 = ts_dtype("i32"), ti64 = ts_dtype("i64");
    c.select_last = 0;
    assert_int_equal((int64_t)run_vec_t("ArgMax", i32, ti32, 4, &c), 0);
    assert_int_equal((int64_t)run_vec_t("ArgMin", i32, ti32, 4, &c), 1);
    assert_int_equal((int64_t)run_vec_t("ArgMax", i64, ti64, 4, &c), 1);
    assert_int_equal((int64_t)run_vec_t("ArgMin", i64, ti64, 4, &c), 0);
    c.select_last = 1;
    assert_int_equal((int64_t)run_vec_t("ArgMax", i32, ti32, 4, &c), 2);
    assert_int_equal((int64_t)run_vec_t("ArgMin", i32, ti32, 4, &c), 3);
    assert_int_equal((int64_t)run_vec_t("ArgMax", i64, ti64, 4, &c), 3);
    assert_int_equal((int64_t)run_vec_t("ArgMin", i64, ti64, 4, &c), 2);
}

static void plugin_ops__empty_sets_and_noop(void **state)
{
    (void)state;
    ts_xcase c;
    memset(&c, 0, sizeof(c));
    c.naxes = -1, c.keepdims = -1, c.noop = -1, c.select_last = -1;
    const float one = 0;
    assert_true(run_vec("ReduceL1", &one, 0, &c) == 0);
    assert_true(run_vec("ReduceL2", &one, 0, &c) == 0);
    assert_true(run_vec("ReduceSumSquare", &one, 0, &c) == 0);
    assert_true(run_vec("ReduceLogSum", &one, 0, &c) == -INFINITY);
    assert_true(run_vec("ReduceLogSumExp", &one, 0, &c) == -INFINITY);
    /* noop_with_empty_axes: the elementwise step still applies */
    const float v[] = {-3};
    c.noop = 1;
    c.naxes = 0;
    assert_true(run_vec("ReduceL1", v, 1, &c) == 3);
    assert_true(run_vec("ReduceL2", v, 1, &c) == 3);
    assert_true(run_vec("ReduceSumSquare", v, 1, &c) == 9);
    assert_true(isnan(run_vec("ReduceLogSum", v, 1, &c)));
    assert_true(run_vec("ReduceLogSumExp", v, 1, &c) == -3);
}

/* --- bad calls -------------------------------------------------------------------------------- */

static op_status run_bad(const char *opname, DLDataType dt, const int64_t *shape, int32_t ndim,
                         const ts_xcase *c, DLDataType out_dt, char *msg, size_t msg_len)
{
    ts_xop op = TS_X_COUNT;
    for (int i = 0; i < TS_X_COUNT; i++)
        if (!strcmp(ts_xop_names[i], opname))
            op = (ts_xop)i;
    int64_t data[64] = {0};
    DLTensor x = {data, {kDLCPU, 0}, ndim, dt, (int64_t *)shape, NULL, 0};
    call r;
    run_case(op, c, &x, out_dt, &r);
    snprintf(msg, msg_len, "%s", r.msg);
    if (r.out.data) {
        assert_true(ts_buf_guard_ok(&r.out));
        ts_buf_free(&r.out);
    }
    return r.st;
}

static void plugin_ops__bad_calls_rejected(void **state)
{
    (void)state;
    char msg[512];
    ts_xcase c;
    const int64_t s23[] = {2, 3}, s20[] = {2, 0}, s02[] = {0, 2};
    const DLDataType f32 = {kDLFloat, 32, 1}, i32 = {kDLInt, 32, 1}, none = {0, 0, 0};
    memset(&c, 0, sizeof(c));
    c.naxes = -1, c.keepdims = -1, c.noop = -1, c.select_last = -1;

    /* no integer kernel for the logs */
    assert_int_equal(run_bad("ReduceLogSum", i32, s23, 2, &c, none, msg, sizeof msg),
                     OP_ERR_UNSUPPORTED);
    assert_int_equal(run_bad("ReduceLogSumExp", i32, s23, 2, &c, none, msg, sizeof msg),
                     OP_ERR_UNSUPPORTED);
    /* axis out of range: op, argument and value named */
    c.naxes = 1, c.axes[0] = 2;
    assert_int_equal(run_bad("ArgMax", f32, s23, 2, &c, none, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "ArgMax"));
    assert_non_null(strstr(msg, "axis"));
    assert_non_null(strstr(msg, "2"));
    c.axes[0] = -3;
    assert_int_equal(run_bad("ArgMin", f32, s23, 2, &c, none, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "-3"));
    /* a rank-0 input has no axis */
    c.axes[0] = 0;
    assert_int_equal(run_bad("ArgMax", f32, NULL, 0, &c, none, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    /* an empty axis has no index; an empty output is fine */
    c.axes[0] = 1;
    assert_int_equal(run_bad("ArgMax", f32, s20, 2, &c, none, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "ArgMax"));
    assert_int_equal(run_bad("ArgMax", f32, s02, 2, &c, none, msg, sizeof msg), OP_OK);
    /* ArgMax writes int64 only */
    c.axes[0] = 0;
    assert_int_equal(run_bad("ArgMax", f32, s23, 2, &c, f32, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    /* flags are 0 or 1 */
    c.select_last = 2;
    assert_int_equal(run_bad("ArgMin", f32, s23, 2, &c, none, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "select_last_index"));
    c.select_last = -1;
    c.keepdims = 3;
    assert_int_equal(run_bad("ReduceL2", f32, s23, 2, &c, none, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    /* a reduce op's bad axis, and the wrong output dtype */
    c.keepdims = -1;
    c.naxes = 1, c.axes[0] = 5;
    assert_int_equal(run_bad("ReduceL1", f32, s23, 2, &c, none, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(msg, "ReduceL1"));
    c.axes[0] = 1;
    assert_int_equal(run_bad("ReduceSumSquare", f32, s23, 2, &c, i32, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    static const ts_xop ops[] = {TS_X_L1,        TS_X_L2,     TS_X_SUMSQ, TS_X_LOGSUM,
                                 TS_X_LOGSUMEXP, TS_X_ARGMAX, TS_X_ARGMIN};
    struct CMUnitTest
        tests[sizeof(ops) / sizeof(ops[0]) + sizeof(big_cases) / sizeof(big_cases[0]) + 4];
    static char names[sizeof(ops) / sizeof(ops[0]) + sizeof(big_cases) / sizeof(big_cases[0])][96];
    size_t n = 0;
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        struct CMUnitTest t =
            cmocka_unit_test_prestate(plugin_ops__random_cases_match_reference, (void *)&ops[i]);
        snprintf(names[n], sizeof(names[n]), "plugin_ops__random_cases_match_reference(%s)",
                 ts_xop_names[ops[i]]);
        t.name = names[n];
        tests[n++] = t;
    }
    for (size_t i = 0; i < sizeof(big_cases) / sizeof(big_cases[0]); i++) {
        struct CMUnitTest t = cmocka_unit_test_prestate(plugin_ops__large_classes_match_reference,
                                                        (void *)&big_cases[i]);
        snprintf(names[n], sizeof(names[n]), "plugin_ops__large_classes_match_reference(%s)",
                 big_cases[i].name);
        t.name = names[n];
        tests[n++] = t;
    }
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(plugin_ops__special_values);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(plugin_ops__argmax_nan_and_ties);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(plugin_ops__empty_sets_and_noop);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(plugin_ops__bad_calls_rejected);
    return _cmocka_run_group_tests("plugin_ops", tests, n, ts_load_example_plugins,
                                   ts_unload_example_plugins);
}
