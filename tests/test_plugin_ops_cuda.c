/* The example plugins' ops on CUDA (label gpu; skipped without a device): every op x dtype on
 * random shapes, axes and layouts and on shapes that reach the split kernel families, against
 * the float64 reference of test_support; two runs bitwise equal; guard bytes after outputs. */
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

#if defined(OPNN_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

#if defined(OPNN_HAVE_CUDA)

static const char *const dtypes[] = {"f32", "f64", "f16", "bf16", "i32", "i64"};
#define NDTYPES (sizeof(dtypes) / sizeof(dtypes[0]))

static bool served(ts_xop op, const char *dt)
{
    return !ts_xop_floats_only(op) || ts_dtype_is_float(ts_dtype(dt));
}

#define CU(call) assert_int_equal((int)(call), (int)cudaSuccess)

/* Runs the case on CUDA twice (the second time on a fresh context, so it plans again) and checks
 * both against the reference and each other, bitwise. */
static void check_case(ts_rng *rng, uint64_t seed, ts_xop op, const char *dt, const ts_xcase *c,
                       ts_xfill_mode mode, const char *label)
{
    /* set up */
    DLDataType t = ts_dtype(dt);
    const size_t es = ts_dtype_size(t);
    const int64_t ns = ts_xstorage_elems(c);
    ts_buf in = ts_buf_alloc((size_t)(ns ? ns : 1) * es);
    assert_non_null(in.data);
    ts_xfill(rng, op, in.data, t, ns, mode);
    void *d_in = NULL, *d_out = NULL;
    CU(cudaMalloc(&d_in, (size_t)(ns ? ns : 1) * es));
    CU(cudaMemcpy(d_in, in.data, (size_t)ns * es, cudaMemcpyHostToDevice));
    ts_tensor x, xh;
    ts_xtensor(&x, c, d_in, kDLCUDA, t);
    ts_xtensor(&xh, c, in.data, kDLCPU, t);

    char what[256];
    snprintf(what, sizeof(what), "%s %s %s rank %d (seed %llu)", ts_xop_names[op], dt, label,
             (int)c->ndim, (unsigned long long)seed);
    ts_buf out[2] = {{NULL, 0}, {NULL, 0}};
    int64_t nout = 0;
    DLDataType odt = {0, 0, 0};
    for (int run = 0; run < 2; run++) {
        op_context *ctx;
        int32_t ondim;
        int64_t oshape[OP_MAX_DIMS];
        assert_int_equal(op_context_create(&ctx), OP_OK);
        assert_int_equal(op_context_set_input(ctx, 0, &x.t), OP_OK);
        assert_int_equal(ts_xset_attrs(ctx, op, c), OP_OK);
        assert_int_equal(op_infer_output(ts_xop_names[op], ctx, 0, &ondim, oshape, &odt), OP_OK);
        nout = ts_numel(ondim, oshape);
        const size_t ob = (size_t)nout * ts_dtype_size(odt);
        if (run == 0)
            CU(cudaMalloc(&d_out, ob + TS_GUARD_BYTES));
        CU(cudaMemset(d_out, 0x5A, ob));
        CU(cudaMemset((char *)d_out + ob, TS_GUARD_BYTE, TS_GUARD_BYTES));
        DLTensor y = {d_out, {kDLCUDA, 0}, ondim, odt, oshape, NULL, 0};
        assert_int_equal(op_context_set_output(ctx, 0, &y), OP_OK);
        /* run */
        op_status st = op_run(ts_xop_names[op], ctx);
        if (st != OP_OK)
            printf("%s: %s: %s\n", what, op_status_str(st), op_context_error(ctx));
        assert_int_equal(st, OP_OK);
        CU(cudaDeviceSynchronize());
        out[run] = ts_buf_alloc(ob);
        assert_non_null(out[run].data);
        CU(cudaMemcpy(out[run].data, d_out, ob + TS_GUARD_BYTES, cudaMemcpyDeviceToHost));
        op_context_destroy(ctx);
    }
    /* check */
    double *ref_f = malloc((size_t)(nout + 1) * sizeof(double));
    int64_t *ref_i = malloc((size_t)(nout + 1) * sizeof(int64_t));
    assert_non_null(ref_f);
    assert_non_null(ref_i);
    assert_int_equal(ts_xreference(op, &xh.t, ts_xmask(op, c), c->select_last == 1, ref_f, ref_i),
                     nout);
    assert_true(ts_xcheck(what, op, out[0].data, odt, nout, ref_f, ref_i));
    assert_true(ts_buf_guard_ok(&out[0]));
    assert_true(ts_buf_guard_ok(&out[1]));
    if (memcmp(out[0].data, out[1].data, out[0].bytes) != 0)
        printf("%s: two runs differ\n", what);
    assert_memory_equal(out[0].data, out[1].data, out[0].bytes);
    free(ref_f);
    free(ref_i);
    ts_buf_free(&out[0]);
    ts_buf_free(&out[1]);
    ts_buf_free(&in);
    CU(cudaFree(d_in));
    CU(cudaFree(d_out));
}

#endif /* OPNN_HAVE_CUDA */

/* --- every op x dtype on random cases --------------------------------------------------------- */

static void plugin_ops_cuda__random_cases_match_reference(void **state)
{
    if (!ts_have_cuda())
        skip();
#if defined(OPNN_HAVE_CUDA)
    const ts_xop op = *(const ts_xop *)*state;
    uint64_t seed = ts_seed(ts_xop_names[op]);
    ts_rng rng = {seed};
    for (size_t d = 0; d < NDTYPES; d++) {
        if (!served(op, dtypes[d]))
            continue;
        for (int k = 0; k < 60; k++) {
            ts_xcase c;
            ts_xcase_random(&rng, op, 50000, &c);
            /* plain data, few distinct values (ties), and with NaN and infinities */
            check_case(&rng, seed, op, dtypes[d], &c, (ts_xfill_mode)(k % 3), "random");
        }
    }
#else
    (void)state;
#endif
}

/* --- shapes that reach the split families ----------------------------------------------------- */

static const ts_xbig big_cases[] = {
    {"full_split", 1, {1 << 22}, 0, {0}, false},
    {"row_split", 2, {4, 1 << 20}, 1, {1}, false},
    {"row_block", 2, {64, 100003}, 1, {1}, false},
    {"row_warp", 2, {4096, 301}, 1, {1}, false},
    {"row_tiny", 2, {1 << 20, 3}, 1, {1}, false},
    {"col_split", 2, {1 << 20, 4}, 1, {0}, false},
    {"col_wide", 2, {3000, 1031}, 1, {0}, false},
    /* super-rows (k rows of 1021 a row of 16-byte loads, from 32 MB and 3000 KB an SM: planned
     * with OPNN_CUDA_PLAN_SMS=8) with a row left over: each element's index from its
     * sub-column */
    {"col_super_left", 2, {16433, 1021}, 1, {0}, false},
    {"col_short", 2, {5, 1 << 19}, 1, {0}, false},
    {"middle", 3, {64, 3000, 7}, 1, {1}, false},
    /* a warp a column tile of 32 lanes, few rows (planned with OPNN_CUDA_PLAN_SMS=2): ops
     * whose accumulators of a vector pass 32 bytes read it as block units */
    {"middle_warp_tiles", 3, {70, 40, 296}, 1, {1}, false},
    /* rows off 16 bytes read as one run of vectors: a lane's row and column from its slot */
    {"col_staged", 2, {100003, 49}, 1, {0}, false},
    /* slabs of 2 or 4 narrow columns (ROW_VEC): the index each element is folded with */
    {"middle_slab", 3, {3001, 64, 2}, 1, {1}, false},
    {"middle_slab_b4", 3, {2003, 32, 4}, 1, {1}, false},
    {"outer_inner", 3, {64, 30, 1000}, 2, {0, 2}, false},
    {"outer_inner_few", 3, {512, 3, 4096}, 2, {0, 2}, false},
    {"generic_permuted", 3, {3000, 7, 50}, 1, {0}, true},
    {"generic_two", 4, {20, 3, 30, 400}, 2, {0, 2}, true},
};

static void plugin_ops_cuda__split_families_match_reference(void **state)
{
    if (!ts_have_cuda())
        skip();
#if defined(OPNN_HAVE_CUDA)
    const ts_xbig *b = (const ts_xbig *)*state;
    uint64_t seed = ts_seed(b->name);
    ts_rng rng = {seed};
    const char *sms = ts_plan_sms_for(b->name);
    if (sms)
        setenv("OPNN_CUDA_PLAN_SMS", sms, 1);
    for (int op = 0; op < TS_X_COUNT; op++) {
        const bool arg = ts_xop_is_arg((ts_xop)op);
        if (arg && b->naxes != 1)
            continue;
        for (size_t d = 0; d < NDTYPES; d++) {
            if (!served((ts_xop)op, dtypes[d]))
                continue;
            ts_xcase c;
            ts_xcase_from_big(b, d, (ts_xop)op, &c);
            /* ArgMax on few distinct values: ties across blocks and splits */
            check_case(&rng, seed, (ts_xop)op, dtypes[d], &c, arg ? TS_XFILL_TIES : TS_XFILL_PLAIN,
                       b->name);
        }
    }
    if (sms)
        unsetenv("OPNN_CUDA_PLAN_SMS");
#else
    (void)state;
#endif
}

/* OPNN_CUDA_PLAN_SMS: a plan made for 1 SM runs and is right; values that are not a count of
 * the device's SMs are refused, the message naming the op, the variable and the value */
static void plugin_ops_cuda__plan_sms_env(void **state)
{
    (void)state;
    if (!ts_have_cuda())
        skip();
#if defined(OPNN_HAVE_CUDA)
    static const char *const bad[] = {"abc", "0", "-3", "8x", "", "1000000"};
    const size_t nbad = sizeof bad / sizeof bad[0];
    int64_t shape[2] = {64, 1000}, oshape[1] = {64}, axes[1] = {1};
    float *h = malloc(64 * 1000 * sizeof(float)), got[64];
    void *d_in = NULL, *d_out = NULL;
    assert_non_null(h);
    for (int i = 0; i < 64 * 1000; i++)
        h[i] = (float)(i % 7);
    CU(cudaMalloc(&d_in, 64 * 1000 * sizeof(float)));
    CU(cudaMalloc(&d_out, sizeof got));
    CU(cudaMemcpy(d_in, h, 64 * 1000 * sizeof(float), cudaMemcpyHostToDevice));
    DLTensor x = {d_in, {kDLCUDA, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
    DLTensor y = {d_out, {kDLCUDA, 0}, 1, {kDLFloat, 32, 1}, oshape, NULL, 0};
    for (size_t i = 0; i <= nbad; i++) {
        const char *v = i < nbad ? bad[i] : "1";
        op_context *ctx;
        setenv("OPNN_CUDA_PLAN_SMS", v, 1);
        assert_int_equal(op_context_create(&ctx), OP_OK);
        assert_int_equal(op_context_set_input(ctx, 0, &x), OP_OK);
        assert_int_equal(op_context_set_output(ctx, 0, &y), OP_OK);
        assert_int_equal(op_context_set_attr_ints(ctx, "axes", axes, 1), OP_OK);
        assert_int_equal(op_context_set_attr_int(ctx, "keepdims", 0), OP_OK);
        op_status st = op_run("ReduceSum", ctx);
        if (i < nbad) {
            char quoted[32];
            const char *m = op_context_error(ctx);
            snprintf(quoted, sizeof quoted, "\"%s\"", v);
            assert_int_equal(st, OP_ERR_INVALID_ARGUMENT);
            if (!strstr(m, "ReduceSum") || !strstr(m, "OPNN_CUDA_PLAN_SMS") || !strstr(m, quoted))
                fail_msg("OPNN_CUDA_PLAN_SMS=%s: message \"%s\"", v, m);
        } else {
            assert_int_equal(st, OP_OK);
            CU(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
            for (int r = 0; r < 64; r++) {
                double want = 0;
                for (int k = 0; k < 1000; k++)
                    want += h[r * 1000 + k];
                assert_true(got[r] == (float)want);
            }
        }
        op_context_destroy(ctx);
    }
    unsetenv("OPNN_CUDA_PLAN_SMS");
    CU(cudaFree(d_in));
    CU(cudaFree(d_out));
    free(h);
#endif
}

/* --- ArgMax/ArgMin ties on CUDA ------------------------------------------------------------ */

#if defined(OPNN_HAVE_CUDA)
/* ArgMax or ArgMin over a [n] vector of dtype t on CUDA: the index. */
static int64_t arg_vec(const char *op, const void *v, DLDataType t, int64_t n, int last)
{
    int64_t shape[1] = {n}, res = -2, *d_out = NULL;
    void *d_in = NULL;
    CU(cudaMalloc(&d_in, (size_t)n * ts_dtype_size(t)));
    CU(cudaMalloc((void **)&d_out, sizeof(int64_t)));
    CU(cudaMemcpy(d_in, v, (size_t)n * ts_dtype_size(t), cudaMemcpyHostToDevice));
    DLTensor x = {d_in, {kDLCUDA, 0}, 1, t, shape, NULL, 0};
    DLTensor y = {d_out, {kDLCUDA, 0}, 0, {kDLInt, 64, 1}, NULL, NULL, 0};
    op_context *ctx;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    assert_int_equal(op_context_set_input(ctx, 0, &x), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &y), OP_OK);
    assert_int_equal(op_context_set_attr_int(ctx, "keepdims", 0), OP_OK);
    assert_int_equal(op_context_set_attr_int(ctx, "select_last_index", last), OP_OK);
    assert_int_equal(op_run(op, ctx), OP_OK);
    CU(cudaMemcpy(&res, d_out, sizeof(res), cudaMemcpyDeviceToHost));
    op_context_destroy(ctx);
    CU(cudaFree(d_in));
    CU(cudaFree(d_out));
    return res;
}
#endif

static void plugin_ops_cuda__arg_signed_zeros_and_extremes(void **state)
{
    (void)state;
    if (!ts_have_cuda())
        skip();
#if defined(OPNN_HAVE_CUDA)
    const float zeros[] = {-0.0f, 0.0f, -0.0f}, nans[] = {1, NAN, 7, NAN, 9};
    const int32_t i32[] = {INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN};
    const int64_t i64[] = {INT64_MIN, INT64_MAX, INT64_MIN, INT64_MAX};
    const DLDataType f32 = ts_dtype("f32"), ti32 = ts_dtype("i32"), ti64 = ts_dtype("i64");
    assert_int_equal(arg_vec("ArgMax", zeros, f32, 3, 0), 0); /* -0 equals +0 */
    assert_int_equal(arg_vec("ArgMin", zeros, f32, 3, 1), 2);
    assert_int_equal(arg_vec("ArgMin", nans, f32, 5, 0), 1); /* the first NaN */
    assert_int_equal(arg_vec("ArgMax", nans, f32, 5, 1), 3); /* the last NaN */
    assert_int_equal(arg_vec("ArgMax", i32, ti32, 4, 0), 0);
    assert_int_equal(arg_vec("ArgMin", i32, ti32, 4, 1), 3);
    assert_int_equal(arg_vec("ArgMax", i64, ti64, 4, 1), 3);
    assert_int_equal(arg_vec("ArgMin", i64, ti64, 4, 0), 0);
#endif
}

/* --- bad calls on CUDA ------------------------------------------------------------------------ */

static void plugin_ops_cuda__bad_calls_rejected(void **state)
{
    (void)state;
    if (!ts_have_cuda())
        skip();
#if defined(OPNN_HAVE_CUDA)
    int64_t shape[2] = {2, 3}, oshape[1] = {3};
    void *d = NULL;
    CU(cudaMalloc(&d, 256));
    op_context *ctx;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    DLTensor x = {d, {kDLCUDA, 0}, 2, {kDLInt, 32, 1}, shape, NULL, 0};
    DLTensor y = {(char *)d + 128, {kDLCUDA, 0}, 2, {kDLInt, 32, 1}, oshape, NULL, 0};
    /* no integer LogSum */
    y.ndim = 1;
    assert_int_equal(op_context_set_input(ctx, 0, &x), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &y), OP_OK);
    int64_t ax = 0;
    assert_int_equal(op_context_set_attr_ints(ctx, "axes", &ax, 1), OP_OK);
    assert_int_equal(op_context_set_attr_int(ctx, "keepdims", 0), OP_OK);
    assert_int_equal(op_run("ReduceLogSum", ctx), OP_ERR_UNSUPPORTED);
    /* ArgMax: bad axis, wrong output dtype */
    op_context_clear(ctx);
    x.dtype = (DLDataType){kDLFloat, 32, 1};
    y.dtype = (DLDataType){kDLFloat, 32, 1};
    assert_int_equal(op_context_set_input(ctx, 0, &x), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &y), OP_OK);
    assert_int_equal(op_context_set_attr_int(ctx, "axis", 2), OP_OK);
    assert_int_equal(op_context_set_attr_int(ctx, "keepdims", 0), OP_OK);
    assert_int_equal(op_run("ArgMax", ctx), OP_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(op_context_error(ctx), "axis"));
    assert_int_equal(op_context_set_attr_int(ctx, "axis", 0), OP_OK);
    assert_int_equal(op_run("ArgMax", ctx), OP_ERR_INVALID_ARGUMENT); /* f32 output */
    /* host memory passed as CUDA */
    float host[6] = {0};
    int64_t hout[3];
    x.data = host;
    y.data = hout;
    y.dtype = (DLDataType){kDLInt, 64, 1};
    assert_int_equal(op_context_set_input(ctx, 0, &x), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &y), OP_OK);
    assert_int_equal(op_run("ArgMax", ctx), OP_ERR_INVALID_ARGUMENT);
    op_context_destroy(ctx);
    CU(cudaFree(d));
#endif
}

int main(void)
{
    static const ts_xop ops[] = {TS_X_L1,        TS_X_L2,     TS_X_SUMSQ, TS_X_LOGSUM,
                                 TS_X_LOGSUMEXP, TS_X_ARGMAX, TS_X_ARGMIN};
    enum {
        NOPS = sizeof(ops) / sizeof(ops[0]),
        NBIG = sizeof(big_cases) / sizeof(big_cases[0])
    };
    static char names[NOPS + NBIG][96];
    struct CMUnitTest tests[NOPS + NBIG + 3];
    size_t n = 0;
    for (size_t i = 0; i < NOPS; i++) {
        struct CMUnitTest t = cmocka_unit_test_prestate(
            plugin_ops_cuda__random_cases_match_reference, (void *)&ops[i]);
        snprintf(names[n], sizeof(names[n]), "plugin_ops_cuda__random_cases_match_reference(%s)",
                 ts_xop_names[ops[i]]);
        t.name = names[n];
        tests[n++] = t;
    }
    for (size_t i = 0; i < NBIG; i++) {
        struct CMUnitTest t = cmocka_unit_test_prestate(
            plugin_ops_cuda__split_families_match_reference, (void *)&big_cases[i]);
        snprintf(names[n], sizeof(names[n]), "plugin_ops_cuda__split_families_match_reference(%s)",
                 big_cases[i].name);
        t.name = names[n];
        tests[n++] = t;
    }
    tests[n++] =
        (struct CMUnitTest)cmocka_unit_test(plugin_ops_cuda__arg_signed_zeros_and_extremes);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(plugin_ops_cuda__bad_calls_rejected);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(plugin_ops_cuda__plan_sms_env);
    return _cmocka_run_group_tests("plugin_ops_cuda", tests, n, ts_load_example_plugins,
                                   ts_unload_example_plugins);
}
