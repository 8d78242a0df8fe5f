/* A client written only against the public contract of DESIGN.md, built against an installed
 * opnn. It runs on the CPU and checks cases beyond the basic ones: keepdims 0, negative axes,
 * noop_with_empty_axes, reduce-all to rank 0, strided, offset and zero-stride views, empty sets,
 * NaN, integer wrap and truncation, fp16/bf16 accumulation, and the error statuses with their
 * messages. Prints one line per failed check and "N passed, N failed" at the end. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <opnn/opnn.h>

static int passed, failed;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (cond) {                                                                                \
            passed++;                                                                              \
        } else {                                                                                   \
            failed++;                                                                              \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                 \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

#define F32 ((DLDataType){kDLFloat, 32, 1})
#define F64 ((DLDataType){kDLFloat, 64, 1})
#define F16 ((DLDataType){kDLFloat, 16, 1})
#define BF16 ((DLDataType){kDLBfloat, 16, 1})
#define I32 ((DLDataType){kDLInt, 32, 1})
#define I64 ((DLDataType){kDLInt, 64, 1})

#define GUARD 0xA5
#define NOT_SET (-1)

/* One call: input x, attributes (NOT_SET leaves one unset; naxes NOT_SET: no axes), the
 * expected output rank and shape. The output goes to out, followed by 16 guard bytes. */
typedef struct call {
    const char *op;
    DLTensor x;
    const int64_t *axes;
    int naxes;
    int keepdims, noop;
    int32_t want_ndim;
    int64_t want_shape[8];
} call;

static unsigned char out[1 << 16];
static op_context *ctx;

static size_t elem_size(DLDataType t)
{
    return t.bits / 8u;
}

static op_status set_attrs(const call *c)
{
    op_status st = OP_OK;
    if (c->naxes != NOT_SET)
        st = op_context_set_attr_ints(ctx, "axes", c->axes, (size_t)c->naxes);
    if (st == OP_OK && c->keepdims != NOT_SET)
        st = op_context_set_attr_int(ctx, "keepdims", c->keepdims);
    if (st == OP_OK && c->noop != NOT_SET)
        st = op_context_set_attr_int(ctx, "noop_with_empty_axes", c->noop);
    return st;
}

/* Infers, checks the inferred shape, runs; returns the number of outputs written, or -1. */
static int64_t run(const call *c, const char *what)
{
    int32_t ndim = -1;
    int64_t shape[OP_MAX_DIMS];
    DLDataType dt;
    op_context_clear(ctx);
    op_status st = op_context_set_input(ctx, 0, &c->x);
    if (st == OP_OK)
        st = set_attrs(c);
    if (st == OP_OK)
        st = op_infer_output(c->op, ctx, 0, &ndim, shape, &dt);
    EXPECT(st == OP_OK, "%s: infer: %s: %s", what, op_status_str(st), op_context_error(ctx));
    if (st != OP_OK)
        return -1;
    EXPECT(ndim == c->want_ndim, "%s: rank %d, want %d", what, (int)ndim, (int)c->want_ndim);
    if (ndim != c->want_ndim)
        return -1;
    int64_t n = 1;
    for (int32_t d = 0; d < ndim; d++) {
        EXPECT(shape[d] == c->want_shape[d], "%s: dim %d is %lld, want %lld", what, (int)d,
               (long long)shape[d], (long long)c->want_shape[d]);
        n *= shape[d];
    }
    EXPECT(dt.code == c->x.dtype.code && dt.bits == c->x.dtype.bits && dt.lanes == 1,
           "%s: output dtype differs from the input's", what);
    size_t bytes = (size_t)n * elem_size(dt);
    memset(out, GUARD, bytes + 16);
    DLTensor y = {.data = out, .device = {kDLCPU, 0}, .ndim = ndim, .dtype = dt, .shape = shape};
    st = op_context_set_output(ctx, 0, &y);
    if (st == OP_OK)
        st = op_run(c->op, ctx);
    EXPECT(st == OP_OK, "%s: run: %s: %s", what, op_status_str(st), op_context_error(ctx));
    if (st != OP_OK)
        return -1;
    EXPECT(op_context_error(ctx)[0] == '\0', "%s: error text after success: %s", what,
           op_context_error(ctx));
    for (size_t i = bytes; i < bytes + 16; i++) {
        if (out[i] != GUARD) {
            EXPECT(0, "%s: byte %zu past the output was written", what, i - bytes);
            return -1;
        }
    }
    return n;
}

/* Expects op_run (after binding an output of the given shape and dtype) to fail with want,
 * and the message to name the op and contain needle. */
static void run_fails(const call *c, int32_t ondim, const int64_t *oshape, DLDataType odt,
                      op_status want, const char *needle, const char *what)
{
    op_context_clear(ctx);
    op_status st = op_context_set_input(ctx, 0, &c->x);
    if (st == OP_OK)
        st = set_attrs(c);
    DLTensor y = {.data = out,
                  .device = {kDLCPU, 0},
                  .ndim = ondim,
                  .dtype = odt,
                  .shape = (int64_t *)oshape};
    if (st == OP_OK)
        st = op_context_set_output(ctx, 0, &y);
    if (st == OP_OK)
        st = op_run(c->op, ctx);
    const char *msg = op_context_error(ctx);
    EXPECT(st == want, "%s: status %s, want %s (%s)", what, op_status_str(st), op_status_str(want),
           msg);
    EXPECT(strstr(msg, c->op) != NULL, "%s: message does not name %s: '%s'", what, c->op, msg);
    EXPECT(strstr(msg, needle) != NULL, "%s: message lacks '%s': '%s'", what, needle, msg);
}

static DLTensor tensor(void *data, DLDataType t, int32_t ndim, int64_t *shape, int64_t *strides)
{
    return (DLTensor){.data = data,
                      .device = {kDLCPU, 0},
                      .ndim = ndim,
                      .dtype = t,
                      .shape = shape,
                      .strides = strides};
}

static float f32_at(int64_t i)
{
    float v;
    memcpy(&v, out + 4 * i, 4);
    return v;
}

static bool near(double got, double want, double tol)
{
    return fabs(got - want) <= tol * (1.0 + fabs(want));
}

static void test_registry(void)
{
    const char *names[64];
    size_t n = op_list(NULL, 0);
    EXPECT(n >= 5, "op_list counts %zu ops", n);
    size_t got = op_list(names, 64);
    EXPECT(got == n, "op_list returned %zu then %zu", n, got);
    const char *builtins[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"};
    for (size_t b = 0; b < 5; b++) {
        bool found = false;
        for (size_t i = 0; i < got && i < 64; i++)
            found = found || strcmp(names[i], builtins[b]) == 0;
        EXPECT(found, "%s is not listed", builtins[b]);
    }
    EXPECT(strcmp(op_status_str(OP_OK), op_status_str(OP_ERR_NOT_FOUND)) != 0, "status texts");
    EXPECT(op_status_str((op_status)1234) != NULL, "unknown status text is NULL");
    EXPECT(op_context_error(NULL) != NULL, "op_context_error(NULL) is NULL");
    op_context_destroy(NULL);
}

static void test_keepdims0_negative_axes(void)
{
    /* [2,3,4] = 0..23 summed over axes {-1, 0} without keepdims: [3] */
    float x[24];
    for (int i = 0; i < 24; i++)
        x[i] = (float)i;
    int64_t shape[] = {2, 3, 4};
    const int64_t axes[] = {-1, 0};
    call c = {"ReduceSum", tensor(x, F32, 3, shape, NULL), axes, 2, 0, NOT_SET, 1, {3}};
    if (run(&c, "sum keepdims=0 axes=[-1,0]") == 3) {
        for (int j = 0; j < 3; j++) {
            double want = 0;
            for (int i = 0; i < 2; i++)
                for (int k = 0; k < 4; k++)
                    want += 12 * i + 4 * j + k;
            EXPECT(f32_at(j) == (float)want, "out[%d] = %g, want %g", j, f32_at(j), want);
        }
    }
}

static void test_reduce_all(void)
{
    float x[6] = {1, 2, 3, 4, 5, 6};
    int64_t shape[] = {2, 3};
    /* no axes attribute: everything; keepdims 0 gives a rank-0 result */
    call c = {"ReduceMean", tensor(x, F32, 2, shape, NULL), NULL, NOT_SET, 0, NOT_SET, 0, {0}};
    if (run(&c, "mean of all, keepdims=0") == 1)
        EXPECT(near(f32_at(0), 3.5, 1e-6), "mean %g", f32_at(0));
    /* an empty list is the same as no attribute; keepdims defaults to 1 */
    call k = {"ReduceMax", tensor(x, F32, 2, shape, NULL), NULL, 0, NOT_SET, NOT_SET, 2, {1, 1}};
    if (run(&k, "max of all, axes=[]") == 1)
        EXPECT(f32_at(0) == 6.0f, "max %g", f32_at(0));
}

static void test_noop_with_empty_axes(void)
{
    float x[6] = {1.5f, -2, 3, 4, 5, -6.25f};
    int64_t shape[] = {2, 3};
    call c = {"ReduceSum", tensor(x, F32, 2, shape, NULL), NULL, 0, 0, 1, 2, {2, 3}};
    if (run(&c, "noop_with_empty_axes=1") == 6)
        EXPECT(memcmp(out, x, sizeof x) == 0, "noop did not copy the input");
    /* with axes given, noop_with_empty_axes changes nothing */
    const int64_t axes[] = {1};
    call d = {"ReduceSum", tensor(x, F32, 2, shape, NULL), axes, 1, 0, 1, 1, {2}};
    if (run(&d, "noop=1 with axes") == 2)
        EXPECT(f32_at(0) == 2.5f && f32_at(1) == 2.75f, "sums %g %g", f32_at(0), f32_at(1));
}

static void test_views(void)
{
    /* a transposed view: logical [3,2] over a row-major [2,3] buffer */
    double buf[6] = {1, 2, 3, 10, 20, 30};
    int64_t shape[] = {3, 2}, strides[] = {1, 3};
    const int64_t ax1[] = {1};
    call c = {"ReduceMean", tensor(buf, F64, 2, shape, strides), ax1, 1, 0, NOT_SET, 1, {3}};
    if (run(&c, "mean of a transposed view") == 3) {
        double *o = (double *)out;
        EXPECT(o[0] == 5.5 && o[1] == 11.0 && o[2] == 16.5, "means %g %g %g", o[0], o[1], o[2]);
    }

    /* byte_offset: skip the first two floats */
    float f[6] = {100, 100, 1, 2, 3, 4};
    int64_t s4[] = {4};
    DLTensor x = tensor(f, F32, 1, s4, NULL);
    x.byte_offset = 2 * sizeof(float);
    call o = {"ReduceSum", x, NULL, NOT_SET, 0, NOT_SET, 0, {0}};
    if (run(&o, "byte_offset") == 1)
        EXPECT(f32_at(0) == 10.0f, "sum %g, want 10", f32_at(0));

    /* a zero stride: a [4, 100000] broadcast of 4 values */
    float v[4] = {0.5f, -1, 2, 0.25f};
    int64_t bshape[] = {4, 100000}, bstrides[] = {1, 0};
    const int64_t axm1[] = {-1};
    call b = {"ReduceSum", tensor(v, F32, 2, bshape, bstrides), axm1, 1, 1, NOT_SET, 2, {4, 1}};
    if (run(&b, "zero-stride broadcast") == 4)
        for (int i = 0; i < 4; i++)
            EXPECT(f32_at(i) == v[i] * 100000.0f, "out[%d] = %g", i, f32_at(i));
}

static void test_empty_sets(void)
{
    float dummy = 0;
    int64_t shape[] = {3, 0};
    const int64_t ax[] = {1};
    struct {
        const char *op;
        double want;
    } cases[] = {{"ReduceSum", 0.0},
                 {"ReduceProd", 1.0},
                 {"ReduceMax", -INFINITY},
                 {"ReduceMin", INFINITY},
                 {"ReduceMean", NAN}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        call c = {cases[i].op, tensor(&dummy, F32, 2, shape, NULL), ax, 1, 0, NOT_SET, 1, {3}};
        if (run(&c, cases[i].op) != 3)
            continue;
        for (int j = 0; j < 3; j++) {
            float g = f32_at(j);
            bool ok = isnan(cases[i].want) ? isnan(g) : g == (float)cases[i].want;
            EXPECT(ok, "%s of an empty set: %g, want %g", cases[i].op, g, cases[i].want);
        }
    }
    /* an empty kept dim: success, nothing written */
    int64_t eshape[] = {0, 5};
    call e = {"ReduceSum", tensor(NULL, F32, 2, eshape, NULL), ax, 1, 1, NOT_SET, 2, {0, 1}};
    EXPECT(run(&e, "empty output") == 0, "empty output");
}

static void test_nan_and_negative_max(void)
{
    float x[8] = {-5, -3, -4, -7, 1, 2, 3, NAN};
    int64_t shape[] = {2, 4};
    const int64_t ax[] = {1};
    call c = {"ReduceMax", tensor(x, F32, 2, shape, NULL), ax, 1, 0, NOT_SET, 1, {2}};
    if (run(&c, "max with NaN last") == 2) {
        EXPECT(f32_at(0) == -3.0f, "max of negatives %g, want -3 (not 0)", f32_at(0));
        EXPECT(isnan(f32_at(1)), "NaN not propagated: %g", f32_at(1));
    }
    x[7] = 9;
    x[4] = NAN; /* NaN first */
    call m = {"ReduceMin", tensor(x, F32, 2, shape, NULL), ax, 1, 0, NOT_SET, 1, {2}};
    if (run(&m, "min with NaN first") == 2) {
        EXPECT(f32_at(0) == -7.0f, "min %g", f32_at(0));
        EXPECT(isnan(f32_at(1)), "NaN not propagated: %g", f32_at(1));
    }
}

static void test_integers(void)
{
    int32_t w[2] = {INT32_MAX, 1};
    int64_t s2[] = {2};
    call c = {"ReduceSum", tensor(w, I32, 1, s2, NULL), NULL, NOT_SET, 0, NOT_SET, 0, {0}};
    if (run(&c, "int32 wrap") == 1)
        EXPECT(*(int32_t *)out == INT32_MIN, "sum %d, want INT32_MIN", *(int32_t *)out);

    int64_t m[4] = {-3, -4, 7, 2};
    int64_t s22[] = {2, 2};
    const int64_t ax[] = {-1};
    call d = {"ReduceMean", tensor(m, I64, 2, s22, NULL), ax, 1, 0, NOT_SET, 1, {2}};
    if (run(&d, "int64 mean truncates") == 2) {
        int64_t *o = (int64_t *)out;
        EXPECT(o[0] == -3 && o[1] == 4, "means %lld %lld, want -3 4", (long long)o[0],
               (long long)o[1]);
    }

    int32_t none = 0;
    int64_t s0[] = {0};
    call e = {"ReduceMax", tensor(&none, I32, 1, s0, NULL), NULL, NOT_SET, 0, NOT_SET, 0, {0}};
    if (run(&e, "int32 max of nothing") == 1)
        EXPECT(*(int32_t *)out == INT32_MIN, "max %d", *(int32_t *)out);

    run_fails(
        &(call){"ReduceMean", tensor(&none, I32, 1, s0, NULL), NULL, NOT_SET, 0, NOT_SET, 0, {0}},
        0, NULL, I32, OP_ERR_INVALID_ARGUMENT, "", "integer mean of an empty set");
}

static void test_half_accumulation(void)
{
    /* 4096 ones: an fp16 accumulator would stop at 2048, a bf16 one at 256 */
    static uint16_t h[4096];
    int64_t s[] = {4096};
    for (int i = 0; i < 4096; i++)
        h[i] = 0x3C00; /* 1.0 in fp16 */
    call c = {"ReduceSum", tensor(h, F16, 1, s, NULL), NULL, NOT_SET, 0, NOT_SET, 0, {0}};
    if (run(&c, "fp16 sum") == 1)
        EXPECT(*(uint16_t *)out == 0x6C00, "fp16 sum bits %#x, want 0x6c00 (4096)",
               *(uint16_t *)out);
    for (int i = 0; i < 4096; i++)
        h[i] = 0x3F80; /* 1.0 in bf16 */
    call b = {"ReduceSum", tensor(h, BF16, 1, s, NULL), NULL, NOT_SET, 0, NOT_SET, 0, {0}};
    if (run(&b, "bf16 sum") == 1)
        EXPECT(*(uint16_t *)out == 0x4580, "bf16 sum bits %#x, want 0x4580 (4096)",
               *(uint16_t *)out);
}

static void test_rank0(void)
{
    double v = 2.5;
    call c = {"ReduceSum", tensor(&v, F64, 0, NULL, NULL), NULL, NOT_SET, NOT_SET, NOT_SET, 0, {0}};
    if (run(&c, "rank-0 input") == 1)
        EXPECT(*(double *)out == 2.5, "sum %g", *(double *)out);
    const int64_t ax[] = {0};
    run_fails(&(call){"ReduceSum", tensor(&v, F64, 0, NULL, NULL), ax, 1, NOT_SET, NOT_SET, 0, {0}},
              0, NULL, F64, OP_ERR_INVALID_ARGUMENT, "rank", "axis on a rank-0 input");
}

static void test_errors(void)
{
    float x[6] = {0};
    int64_t shape[] = {2, 3}, o2[] = {2, 1}, o3[] = {3, 1};
    const int64_t bad[] = {3}, dup[] = {0, -2}, ok[] = {1};
    DLTensor t = tensor(x, F32, 2, shape, NULL);

    run_fails(&(call){"ReduceSum", t, bad, 1, NOT_SET, NOT_SET, 0, {0}}, 2, o2, F32,
              OP_ERR_INVALID_ARGUMENT, "3", "axis out of range");
    run_fails(&(call){"ReduceSum", t, dup, 2, NOT_SET, NOT_SET, 0, {0}}, 2, o2, F32,
              OP_ERR_INVALID_ARGUMENT, "axis", "duplicate axes");
    run_fails(&(call){"ReduceSum", t, ok, 1, NOT_SET, NOT_SET, 0, {0}}, 2, o3, F32,
              OP_ERR_INVALID_ARGUMENT, "output", "wrong output shape");
    run_fails(&(call){"ReduceSum", t, ok, 1, NOT_SET, NOT_SET, 0, {0}}, 2, o2, F64,
              OP_ERR_INVALID_ARGUMENT, "output", "wrong output dtype");

    /* an op that does not exist, and an attribute the op does not define */
    op_context_clear(ctx);
    op_context_set_input(ctx, 0, &t);
    op_status st = op_run("ReduceNothing", ctx);
    EXPECT(st == OP_ERR_NOT_FOUND, "unknown op: %s", op_status_str(st));
    EXPECT(strstr(op_context_error(ctx), "ReduceNothing") != NULL, "message '%s'",
           op_context_error(ctx));
    op_context_set_attr_int(ctx, "keepdim", 0); /* sic */
    int32_t nd;
    int64_t sh[OP_MAX_DIMS];
    DLDataType dt;
    st = op_infer_output("ReduceSum", ctx, 0, &nd, sh, &dt);
    EXPECT(st == OP_ERR_NOT_FOUND, "unknown attribute: %s", op_status_str(st));
    EXPECT(strstr(op_context_error(ctx), "keepdim") != NULL, "message '%s'", op_context_error(ctx));
    /* an attribute of the wrong type */
    op_context_clear(ctx);
    op_context_set_input(ctx, 0, &t);
    op_context_set_attr_float(ctx, "keepdims", 1.0);
    st = op_infer_output("ReduceSum", ctx, 0, &nd, sh, &dt);
    EXPECT(st == OP_ERR_INVALID_ARGUMENT, "float keepdims: %s", op_status_str(st));
    /* NULLs are statuses, not crashes */
    EXPECT(op_run("ReduceSum", NULL) == OP_ERR_INVALID_ARGUMENT, "NULL context");
    EXPECT(op_run(NULL, ctx) == OP_ERR_INVALID_ARGUMENT, "NULL op name");
    EXPECT(op_context_set_input(ctx, 0, NULL) == OP_ERR_INVALID_ARGUMENT, "NULL tensor");
    EXPECT(op_context_create(NULL) == OP_ERR_INVALID_ARGUMENT, "NULL out");

    /* after a failure, a good call succeeds and clears the message */
    call good = {"ReduceSum", t, ok, 1, 0, NOT_SET, 1, {2}};
    x[0] = 1;
    x[4] = 2;
    if (run(&good, "good call after failures") == 2)
        EXPECT(f32_at(0) == 1.0f && f32_at(1) == 2.0f, "sums %g %g", f32_at(0), f32_at(1));
}

int main(void)
{
    op_status st = op_context_create(&ctx);
    if (st != OP_OK) {
        printf("op_context_create: %s\n", op_status_str(st));
        return 1;
    }
    test_registry();
    test_keepdims0_negative_axes();
    test_reduce_all();
    test_noop_with_empty_axes();
    test_views();
    test_empty_sets();
    test_nan_and_negative_max();
    test_integers();
    test_half_accumulation();
    test_rank0();
    test_errors();
    op_context_destroy(ctx);
    printf("install client: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
