/* The built-in reductions on the CPU through op_run, against the float64 reference of
 * tests/support: every op x dtype on random views (rank 0..8, odd sizes, permuted, gapped and
 * zero strides, byte_offset), and every rule of DESIGN.md's "Reduce semantics": empty axes with
 * and without noop_with_empty_axes, empty-set identities, zero-size kept dims, NaN and inf,
 * integer wrap and truncating Mean, fp16/bf16 accumulated in fp32, Max from -inf, 2^32 elements
 * through zero strides, determinism. Black-box: public headers and tests/support only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opnn/opnn.h"
#include "support/test_cases.h"
#include "support/test_support.h"

/* The op x dtype table, written once. */
#define FOR_DTYPES(X, op) X(op, f32) X(op, f64) X(op, f16) X(op, bf16) X(op, i32) X(op, i64)
/* clang-format lays this list out differently from one run to the next. */
/* clang-format off */
#define FOR_OPS_DTYPES(X)                                                                          \
    FOR_DTYPES(X, ReduceSum) FOR_DTYPES(X, ReduceMean) FOR_DTYPES(X, ReduceMax)                   \
    FOR_DTYPES(X, ReduceMin) FOR_DTYPES(X, ReduceProd)
/* clang-format on */

typedef struct op_dtype_case {
    const char *name;
    const char *op;
    const char *dtype;
} op_dtype_case;

#define OP_DTYPE_ROW_(op, dt) {#op "/" #dt, #op, #dt},
static const op_dtype_case op_dtype_cases[] = {FOR_OPS_DTYPES(OP_DTYPE_ROW_)};
#undef OP_DTYPE_ROW_

/* --- one call: bind, run, check what every successful call must satisfy ----------------------- */

typedef struct reduce_call {
    const char *op;
    DLTensor x;           /* the input view; its shape and strides arrays belong to the caller */
    size_t storage_bytes; /* bytes of x.data the view may read (checked unmodified) */
    int n_axes;           /* -1: axes not set */
    const int64_t *axes;
    int keepdims; /* -1: not set (default 1) */
    int noop;     /* -1: not set (default 0) */
} reduce_call;

typedef struct reduce_result {
    ts_buf out;
    int32_t ndim;
    int64_t shape[OP_MAX_DIMS];
    int64_t n;     /* outputs */
    int64_t red;   /* elements combined into each output */
    uint32_t mask; /* reduced dims */
} reduce_result;

/* The output shape and reduced dims per DESIGN.md, computed here independently of opnn. */
static void expected_output(const reduce_call *c, reduce_result *res)
{
    int nd = c->x.ndim;
    res->mask = 0;
    for (int i = 0; i < (c->n_axes > 0 ? c->n_axes : 0); i++)
        res->mask |= 1u << (c->axes[i] < 0 ? c->axes[i] + nd : c->axes[i]);
    if (c->n_axes <= 0 && c->noop != 1)
        res->mask = nd ? (uint32_t)((1ull << nd) - 1) : 0;
    bool keep = c->keepdims != 0;
    res->ndim = 0;
    res->n = 1;
    res->red = 1;
    for (int i = 0; i < nd; i++) {
        if (res->mask & (1u << i)) {
            res->red *= c->x.shape[i];
            if (keep)
                res->shape[res->ndim++] = 1;
        } else {
            res->shape[res->ndim++] = c->x.shape[i];
            res->n *= c->x.shape[i];
        }
    }
}

static op_status reduce_bind_run(op_context *ctx, const reduce_call *c, reduce_result *res)
{
    ts_tensor y;
    op_context_clear(ctx);
    ts_tensor_init(&y, res->out.data, kDLCPU, c->x.dtype, res->ndim, res->shape, NULL);
    assert_int_equal(op_context_set_input(ctx, 0, &c->x), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &y.t), OP_OK);
    if (c->n_axes >= 0)
        assert_int_equal(op_context_set_attr_ints(ctx, "axes", c->axes, (size_t)c->n_axes), OP_OK);
    if (c->keepdims >= 0)
        assert_int_equal(op_context_set_attr_int(ctx, "keepdims", c->keepdims), OP_OK);
    if (c->noop >= 0)
        assert_int_equal(op_context_set_attr_int(ctx, "noop_with_empty_axes", c->noop), OP_OK);
    return op_run(c->op, ctx);
}

/* Runs c into a fresh compact output with guard bytes and checks: OP_OK, "" as the message,
 * op_infer_output agrees with the expected shape and the input dtype, the guard is intact and the
 * input storage unmodified. The caller frees res->out. */
static void reduce_run(op_context *ctx, const reduce_call *c, reduce_result *res, const char *what)
{
    expected_output(c, res);
    res->out = ts_buf_alloc((size_t)res->n * ts_dtype_size(c->x.dtype));
    assert_non_null(res->out.data);
    void *copy = NULL;
    if (c->storage_bytes) {
        copy = malloc(c->storage_bytes);
        assert_non_null(copy);
        memcpy(copy, c->x.data, c->storage_bytes);
    }
    op_status st = reduce_bind_run(ctx, c, res);
    if (st != OP_OK)
        fail_msg("%s: %s returned %s: %s", what, c->op, op_status_str(st), op_context_error(ctx));
    assert_string_equal(op_context_error(ctx), "");
    if (!ts_buf_guard_ok(&res->out))
        fail_msg("%s: guard bytes after the output overwritten", what);
    if (copy && memcmp(copy, c->x.data, c->storage_bytes) != 0)
        fail_msg("%s: the input was modified", what);
    free(copy);
    int32_t ndim = -1;
    int64_t shape[OP_MAX_DIMS];
    DLDataType dt = {0, 0, 0};
    assert_int_equal(op_infer_output(c->op, ctx, 0, &ndim, shape, &dt), OP_OK);
    if (ndim != res->ndim)
        fail_msg("%s: inferred rank %d, expected %d", what, ndim, res->ndim);
    for (int i = 0; i < ndim; i++)
        if (shape[i] != res->shape[i])
            fail_msg("%s: inferred dim %d is %lld, expected %lld", what, i, (long long)shape[i],
                     (long long)res->shape[i]);
    if (dt.code != c->x.dtype.code || dt.bits != c->x.dtype.bits || dt.lanes != 1)
        fail_msg("%s: output dtype differs from the input's", what);
}

/* Compares res with ts_reference. Tolerances are ts_check's, per dtype: f32 1e-5, f64 1e-12,
 * f16 1e-3, bf16 8e-3 relative plus an accumulation term growing with sqrt(N) (N elements per
 * output); integers, Max and Min exact; NaN only where the reference has NaN. */
static void reduce_check_reference(const reduce_call *c, const reduce_result *res, const char *what)
{
    int64_t n = res->n > 0 ? res->n : 1;
    double *ref_f = malloc(sizeof(double) * (size_t)n);
    int64_t *ref_i = malloc(sizeof(int64_t) * (size_t)n);
    assert_true(ref_f && ref_i);
    ts_op op = ts_op_from_name(c->op);
    assert_int_equal(ts_reference(op, &c->x, res->mask, ref_f, ref_i), res->n);
    bool ok = ts_check(what, res->out.data, c->x.dtype, res->n, ref_f, ref_i, res->red, op);
    free(ref_f);
    free(ref_i);
    if (!ok)
        fail_msg("%s: differs from the float64 reference", what);
}

static void reduce_run_and_check(op_context *ctx, const reduce_call *c, const char *what)
{
    reduce_result res;
    reduce_run(ctx, c, &res, what);
    reduce_check_reference(c, &res, what);
    ts_buf_free(&res.out);
}

/* Data an op can digest: for Prod, factors within 1% of +-1 (floats: products of 10^6 of them
 * stay in fp32 range) or odd integers (wrapped products never collapse to 0); otherwise
 * ts_fill_random. */
static void fill_for_op(ts_rng *r, void *base, DLDataType t, int64_t n, ts_op op)
{
    if (op != TS_PROD) {
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

/* --- random views ----------------------------------------------------------------------------- */

typedef struct view {
    int32_t ndim;
    int64_t shape[8];
    int64_t strides[8];
    bool null_strides;
    int64_t offset;  /* elements before the view (byte_offset = offset * element size) */
    int64_t storage; /* elements the buffer holds */
} view;

static const int64_t odd_sizes[] = {1, 2, 3, 5, 7, 9, 11, 13, 17, 31, 33, 63, 65, 127, 129, 257};

static void shuffle(ts_rng *r, int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)ts_range(r, 0, i), t = a[i];
        a[i] = a[j], a[j] = t;
    }
}

/* Rank 0..8, odd sizes with at most max_numel elements, and one of: NULL strides, compact
 * strides, a permuted view with gaps, a permuted view with gaps and zero (broadcast) strides. */
static void random_view(ts_rng *r, view *v, int64_t max_numel)
{
    v->ndim = (int32_t)ts_range(r, 0, 8);
    int64_t numel = 1;
    for (int i = 0; i < v->ndim; i++) {
        int64_t s = 1;
        for (int tries = 0; tries < 8; tries++) {
            int64_t cand = odd_sizes[ts_range(r, 0, (int64_t)N_OF(odd_sizes) - 1)];
            if (numel * cand <= max_numel) {
                s = cand;
                break;
            }
        }
        v->shape[i] = s;
        numel *= s;
    }
    int layout = (int)ts_range(r, 0, 3);
    int perm[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    if (layout >= 2)
        shuffle(r, perm, v->ndim);
    v->null_strides = layout == 0;
    int64_t acc = 1;
    for (int k = v->ndim - 1; k >= 0; k--) {
        int d = perm[k];
        if (layout == 3 && ts_range(r, 0, 3) == 0) {
            v->strides[d] = 0;
            continue;
        }
        v->strides[d] = acc;
        acc *= v->shape[d] + (layout >= 2 && v->shape[d] > 1 ? ts_range(r, 0, 1) : 0);
    }
    v->offset = ts_range(r, 0, 1) ? ts_range(r, 1, 5) : 0;
    v->storage =
        v->offset + ts_storage_elems(v->ndim, v->shape, v->null_strides ? NULL : v->strides);
}

static void describe_view(char *buf, size_t len, const view *v, const reduce_call *c)
{
    int k = snprintf(buf, len, "shape [");
    for (int i = 0; i < v->ndim; i++)
        k += snprintf(buf + k, len - (size_t)k, "%s%lld", i ? "," : "", (long long)v->shape[i]);
    k += snprintf(buf + k, len - (size_t)k, "] strides ");
    if (v->null_strides) {
        k += snprintf(buf + k, len - (size_t)k, "NULL");
    } else {
        k += snprintf(buf + k, len - (size_t)k, "[");
        for (int i = 0; i < v->ndim; i++)
            k += snprintf(buf + k, len - (size_t)k, "%s%lld", i ? "," : "",
                          (long long)v->strides[i]);
        k += snprintf(buf + k, len - (size_t)k, "]");
    }
    k += snprintf(buf + k, len - (size_t)k, " offset %lld axes ", (long long)v->offset);
    if (c->n_axes < 0) {
        k += snprintf(buf + k, len - (size_t)k, "unset");
    } else {
        k += snprintf(buf + k, len - (size_t)k, "[");
        for (int i = 0; i < c->n_axes; i++)
            k += snprintf(buf + k, len - (size_t)k, "%s%lld", i ? "," : "", (long long)c->axes[i]);
        k += snprintf(buf + k, len - (size_t)k, "]");
    }
    snprintf(buf + k, len - (size_t)k, " keepdims %d noop %d", c->keepdims, c->noop);
}

/* --- every op x dtype on random views --------------------------------------------------------- */

enum {
    RANDOM_TRIALS = 40,
    RANDOM_MAX_NUMEL = 6000
};

static void run__matches_reference(void **state)
{
    const op_dtype_case *cs = *state;
    /* set up */
    ts_rng rng = {ts_seed_mix(ts_seed("run__matches_reference"), cs->name)};
    DLDataType dt = ts_dtype(cs->dtype);
    size_t es = ts_dtype_size(dt);
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    for (int trial = 0; trial < RANDOM_TRIALS; trial++) {
        view v;
        random_view(&rng, &v, RANDOM_MAX_NUMEL);
        void *buf = malloc((size_t)v.storage * es + 1);
        assert_non_null(buf);
        fill_for_op(&rng, buf, dt, v.storage, ts_op_from_name(cs->op));
        int64_t axes[8];
        int n_axes = 0, order[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        shuffle(&rng, order, v.ndim);
        for (int k = 0; k < v.ndim; k++)
            if (ts_range(&rng, 0, 1))
                axes[n_axes++] = ts_range(&rng, 0, 1) ? order[k] : order[k] - v.ndim;
        reduce_call c = {cs->op,
                         {buf,
                          {kDLCPU, 0},
                          v.ndim,
                          dt,
                          v.shape,
                          v.null_strides ? NULL : v.strides,
                          (uint64_t)v.offset * es},
                         (size_t)v.storage * es,
                         n_axes ? n_axes : (int)ts_range(&rng, -1, 0),
                         axes,
                         (int)ts_range(&rng, -1, 1),
                         (int)ts_range(&rng, -1, 1)};
        char what[512];
        int k = snprintf(what, sizeof what, "%s trial %d: ", cs->name, trial);
        describe_view(what + k, sizeof what - (size_t)k, &v, &c);
        /* run, check */
        reduce_run_and_check(ctx, &c, what);
        free(buf);
    }
    op_context_destroy(ctx);
}

/* --- larger views through the contiguous classes and the generic path ------------------------- */

typedef struct big_shape {
    int32_t ndim;
    int64_t shape[3];
    int n_axes;
    int64_t axes[2];
    bool transpose; /* view the buffer with its first two dims swapped */
} big_shape;

static const big_shape big_shapes[] = {
    {1, {1000003}, -1, {0}, false},        /* full */
    {2, {3, 100003}, 1, {1}, false},       /* row */
    {2, {100003, 3}, 1, {0}, false},       /* column */
    {3, {33, 1027, 17}, 1, {1}, false},    /* middle */
    {3, {17, 65, 129}, 2, {0, 2}, false},  /* outer + inner */
    {2, {1031, 517}, 1, {1}, true},        /* transposed: generic */
    {3, {4099, 3, 61}, 2, {-3, -1}, true}, /* transposed: generic */
};

typedef struct big_case {
    const char *name;
    const char *op;
    const char *dtype;
} big_case;

static const big_case big_cases[] = {
    {"ReduceSum/f32", "ReduceSum", "f32"},     {"ReduceSum/f16", "ReduceSum", "f16"},
    {"ReduceSum/i32", "ReduceSum", "i32"},     {"ReduceMean/f64", "ReduceMean", "f64"},
    {"ReduceMean/bf16", "ReduceMean", "bf16"}, {"ReduceMax/bf16", "ReduceMax", "bf16"},
    {"ReduceMin/i64", "ReduceMin", "i64"},     {"ReduceProd/f32", "ReduceProd", "f32"},
};

static void run__large_views_match_reference(void **state)
{
    const big_case *bc = *state;
    /* set up */
    ts_rng rng = {ts_seed_mix(ts_seed("run__large_views_match_reference"), bc->name)};
    DLDataType dt = ts_dtype(bc->dtype);
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    for (size_t s = 0; s < N_OF(big_shapes); s++) {
        const big_shape *b = &big_shapes[s];
        int64_t numel = ts_numel(b->ndim, b->shape);
        void *buf = malloc((size_t)numel * ts_dtype_size(dt));
        assert_non_null(buf);
        fill_for_op(&rng, buf, dt, numel, ts_op_from_name(bc->op));
        int64_t shape[3], strides[3];
        for (int i = 0; i < b->ndim; i++)
            shape[i] = b->shape[i];
        strides[b->ndim - 1] = 1;
        for (int i = b->ndim - 2; i >= 0; i--)
            strides[i] = strides[i + 1] * shape[i + 1];
        if (b->transpose) {
            int64_t t = shape[0];
            shape[0] = shape[1], shape[1] = t;
            t = strides[0];
            strides[0] = strides[1], strides[1] = t;
        }
        reduce_call c = {bc->op,
                         {buf, {kDLCPU, 0}, b->ndim, dt, shape, strides, 0},
                         (size_t)numel * ts_dtype_size(dt),
                         b->n_axes,
                         b->axes,
                         -1,
                         -1};
        char what[128];
        snprintf(what, sizeof what, "%s shape #%zu", bc->name, s);
        /* run, check */
        reduce_run_and_check(ctx, &c, what);
        free(buf);
    }
    op_context_destroy(ctx);
}

/* --- rank 0 and rank 8 ------------------------------------------------------------------------ */

static void run__rank0_input(void **state)
{
    const op_dtype_case *cs = *state;
    /* set up */
    ts_rng rng = {ts_seed_mix(ts_seed("run__rank0_input"), cs->name)};
    DLDataType dt = ts_dtype(cs->dtype);
    double buf[2];
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    static const int attrs[][3] = {
        /* n_axes, keepdims, noop */
        {-1, -1, -1}, {0, 0, -1}, {0, 1, 0}, {-1, -1, 1}, {0, 0, 1},
    };
    for (size_t a = 0; a < N_OF(attrs); a++) {
        fill_for_op(&rng, buf, dt, 1, ts_op_from_name(cs->op));
        int64_t no_dims[1] = {99}; /* rank 0 reads no dims (test_context covers shape NULL) */
        reduce_call c = {cs->op,
                         {buf, {kDLCPU, 0}, 0, dt, no_dims, NULL, 0},
                         ts_dtype_size(dt),
                         attrs[a][0],
                         NULL,
                         attrs[a][1],
                         attrs[a][2]};
        char what[96];
        snprintf(what, sizeof what, "%s rank 0, attributes #%zu", cs->name, a);
        /* run */
        reduce_result res;
        reduce_run(ctx, &c, &res, what);
        /* check: a rank-0 output holding the element (Mean of one element is itself) */
        assert_int_equal(res.ndim, 0);
        reduce_check_reference(&c, &res, what);
        if (ts_dtype_is_float(dt))
            assert_true(ts_load(res.out.data, dt, 0) == ts_load(buf, dt, 0));
        else
            assert_int_equal(ts_load_int(res.out.data, dt, 0), ts_load_int(buf, dt, 0));
        ts_buf_free(&res.out);
    }
    op_context_destroy(ctx);
}

static void run__rank8_input(void **state)
{
    const op_dtype_case *cs = *state;
    /* set up: [2,3,1,5,3,1,2,3] (540 elements), compact and as a permuted view with gaps */
    ts_rng rng = {ts_seed_mix(ts_seed("run__rank8_input"), cs->name)};
    DLDataType dt = ts_dtype(cs->dtype);
    static const int64_t shape[8] = {2, 3, 1, 5, 3, 1, 2, 3};
    static const int64_t permuted[8] = {1, 1000, 7, 2, 200, 3, 100, 600}; /* distinct, gapped */
    static const struct {
        int n;
        int64_t axes[8];
    } axes_sets[] = {
        {4, {0, 3, 5, 7}},
        {4, {1, 2, 4, 6}},
        {1, {-1}},
        {2, {-8, 4}},
        {8, {7, 6, 5, 4, 3, 2, 1, 0}},
        {0, {0}},
    };
    size_t es = ts_dtype_size(dt);
    int64_t storage = ts_storage_elems(8, shape, permuted);
    void *buf = malloc((size_t)storage * es);
    assert_non_null(buf);
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    for (int layout = 0; layout < 2; layout++) {
        for (size_t a = 0; a < N_OF(axes_sets); a++) {
            for (int keep = 0; keep < 2; keep++) {
                fill_for_op(&rng, buf, dt, storage, ts_op_from_name(cs->op));
                reduce_call c = {cs->op,
                                 {buf,
                                  {kDLCPU, 0},
                                  8,
                                  dt,
                                  (int64_t *)shape,
                                  layout ? (int64_t *)permuted : NULL,
                                  0},
                                 (size_t)storage * es,
                                 axes_sets[a].n,
                                 axes_sets[a].axes,
                                 keep,
                                 -1};
                char what[96];
                snprintf(what, sizeof what, "%s rank 8 %s axes #%zu keepdims %d", cs->name,
                         layout ? "permuted" : "compact", a, keep);
                /* run, check */
                reduce_run_and_check(ctx, &c, what);
            }
        }
    }
    free(buf);
    op_context_destroy(ctx);
}

/* --- output dtype ----------------------------------------------------------------------------- */

static void infer_output__dtype_equals_input(void **state)
{
    const op_dtype_case *cs = *state;
    /* set up */
    DLDataType dt = ts_dtype(cs->dtype);
    double buf[6] = {0};
    static const int64_t shape[2] = {2, 3}, axes[1] = {0};
    ts_tensor x;
    ts_tensor_init(&x, buf, kDLCPU, dt, 2, shape, NULL);
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    assert_int_equal(op_context_set_input(ctx, 0, &x.t), OP_OK);
    assert_int_equal(op_context_set_attr_ints(ctx, "axes", axes, 1), OP_OK);
    int32_t ndim;
    int64_t oshape[OP_MAX_DIMS];
    DLDataType odt = {0, 0, 0};
    /* run */
    op_status st = op_infer_output(cs->op, ctx, 0, &ndim, oshape, &odt);
    /* check */
    assert_int_equal(st, OP_OK);
    assert_int_equal(odt.code, dt.code);
    assert_int_equal(odt.bits, dt.bits);
    assert_int_equal(odt.lanes, 1);
    assert_int_equal(ndim, 2);
    assert_int_equal(oshape[0], 1);
    assert_int_equal(oshape[1], 3);
    op_context_destroy(ctx);
}

/* --- empty axes, with and without noop_with_empty_axes ---------------------------------------- */

typedef struct dtype_case {
    const char *name;
} dtype_case;

static const dtype_case dtype_cases[] = {{"f32"}, {"f64"}, {"f16"}, {"bf16"}, {"i32"}, {"i64"}};

static void run__empty_axes(void **state)
{
    const dtype_case *cs = *state;
    /* set up: a permuted, gapped [5, 3, 7] view at a byte offset */
    ts_rng rng = {ts_seed_mix(ts_seed("run__empty_axes"), cs->name)};
    DLDataType dt = ts_dtype(cs->name);
    static const char *const ops[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                      "ReduceProd"};
    static const int64_t shape[3] = {5, 3, 7}, strides[3] = {3, 1, 16};
    size_t es = ts_dtype_size(dt);
    int64_t storage = 2 + ts_storage_elems(3, shape, strides);
    void *buf = malloc((size_t)storage * es);
    assert_non_null(buf);
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    for (size_t o = 0; o < N_OF(ops); o++) {
        for (int absent = 0; absent < 2; absent++) {
            for (int noop = -1; noop <= 1; noop++) {
                for (int keep = -1; keep <= 0; keep++) {
                    fill_for_op(&rng, buf, dt, storage, ts_op_from_name(ops[o]));
                    reduce_call c = {
                        ops[o],
                        {buf, {kDLCPU, 0}, 3, dt, (int64_t *)shape, (int64_t *)strides, 2 * es},
                        (size_t)storage * es,
                        absent ? -1 : 0,
                        NULL,
                        keep,
                        noop};
                    char what[128];
                    snprintf(what, sizeof what, "%s %s axes %s noop %d keepdims %d", ops[o],
                             cs->name, absent ? "unset" : "[]", noop, keep);
                    /* run */
                    reduce_result res;
                    reduce_run(ctx, &c, &res, what);
                    /* check: noop 1 copies the whole view, otherwise one output */
                    assert_int_equal(res.n, noop == 1 ? 105 : 1);
                    reduce_check_reference(&c, &res, what);
                    ts_buf_free(&res.out);
                }
            }
        }
    }
    free(buf);
    op_context_destroy(ctx);
}

/* --- empty reduction sets: the identities ----------------------------------------------------- */

static const op_dtype_case identity_cases[] = {
#define IDENTITY_ROW_(op, dt) {#op "/" #dt, #op, #dt},
    FOR_DTYPES(IDENTITY_ROW_, ReduceSum) FOR_DTYPES(IDENTITY_ROW_, ReduceMax)
        FOR_DTYPES(IDENTITY_ROW_, ReduceMin) FOR_DTYPES(IDENTITY_ROW_, ReduceProd)
            IDENTITY_ROW_(ReduceMean, f32) IDENTITY_ROW_(ReduceMean, f64)
                IDENTITY_ROW_(ReduceMean, f16) IDENTITY_ROW_(ReduceMean, bf16)
#undef IDENTITY_ROW_
};

static void expect_identity(const char *what, const void *out, DLDataType t, int64_t n, ts_op op)
{
    for (int64_t i = 0; i < n; i++) {
        if (ts_dtype_is_float(t)) {
            double v = ts_load(out, t, i);
            bool ok = op == TS_SUM    ? v == 0.0
                      : op == TS_PROD ? v == 1.0
                      : op == TS_MAX  ? isinf(v) && v < 0
                      : op == TS_MIN  ? isinf(v) && v > 0
                                      : isnan(v);
            if (!ok)
                fail_msg("%s: output %lld is %g, not the identity", what, (long long)i, v);
        } else {
            int64_t v = ts_load_int(out, t, i), want;
            bool w32 = t.bits == 32;
            want = op == TS_SUM    ? 0
                   : op == TS_PROD ? 1
                   : op == TS_MAX  ? (w32 ? INT32_MIN : INT64_MIN)
                                   : (w32 ? INT32_MAX : INT64_MAX);
            if (v != want)
                fail_msg("%s: output %lld is %lld, not the identity %lld", what, (long long)i,
                         (long long)v, (long long)want);
        }
    }
}

static void run__empty_set_gives_identity(void **state)
{
    const op_dtype_case *cs = *state;
    /* set up */
    DLDataType dt = ts_dtype(cs->dtype);
    static const struct {
        int32_t ndim;
        int64_t shape[3];
        int n_axes;
        int64_t axes[2];
        int keepdims;
        int64_t outputs;
    } shapes[] = {
        {3, {3, 0, 2}, 1, {1}, 1, 6},  /* [3,1,2] of identities */
        {3, {3, 0, 2}, 1, {-2}, 0, 6}, /* [3,2] */
        {1, {0}, -1, {0}, 0, 1},       /* reduce all to a scalar */
        {2, {4, 0}, 0, {0}, 1, 1},     /* empty axes: all, [1,1] */
        {2, {0, 5}, 2, {0, 1}, 1, 1},
    };
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    for (size_t s = 0; s < N_OF(shapes); s++) {
        double dummy[1];
        reduce_call c = {
            cs->op,
            {dummy, {kDLCPU, 0}, shapes[s].ndim, dt, (int64_t *)shapes[s].shape, NULL, 0},
            0,
            shapes[s].n_axes,
            shapes[s].axes,
            shapes[s].keepdims,
            -1};
        char what[96];
        snprintf(what, sizeof what, "%s empty set #%zu", cs->name, s);
        /* run */
        reduce_result res;
        reduce_run(ctx, &c, &res, what);
        /* check */
        assert_int_equal(res.n, shapes[s].outputs);
        expect_identity(what, res.out.data, dt, res.n, ts_op_from_name(cs->op));
        ts_buf_free(&res.out);
    }
    op_context_destroy(ctx);
}

/* --- a zero-size kept dim: success, nothing written ------------------------------------------- */

static void run__zero_size_kept_dim_writes_nothing(void **state)
{
    const op_dtype_case *cs = *state;
    /* set up */
    DLDataType dt = ts_dtype(cs->dtype);
    static const struct {
        int32_t ndim;
        int64_t shape[3];
        int n_axes;
        int64_t axes[2];
        int keepdims;
        bool null_data;
    } shapes[] = {
        {2, {0, 5}, 1, {1}, 1, false},       {2, {0, 5}, 1, {1}, 0, true},
        {3, {4, 0, 3}, 2, {0, 2}, 1, false}, {3, {4, 3, 0}, 1, {1}, 0, true},
        {2, {0, 5}, 0, {0}, 1, false}, /* noop below: a copy of nothing */
    };
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    for (size_t s = 0; s < N_OF(shapes); s++) {
        double dummy[1];
        reduce_call c = {cs->op,
                         {shapes[s].null_data ? NULL : dummy,
                          {kDLCPU, 0},
                          shapes[s].ndim,
                          dt,
                          (int64_t *)shapes[s].shape,
                          NULL,
                          0},
                         0,
                         shapes[s].n_axes,
                         shapes[s].axes,
                         shapes[s].keepdims,
                         shapes[s].n_axes == 0 ? 1 : -1};
        reduce_result res;
        expected_output(&c, &res);
        assert_int_equal(res.n, 0);
        res.out = ts_buf_alloc(0);
        if (shapes[s].null_data) {
            ts_buf_free(&res.out);
            res.out.data = NULL;
            res.out.bytes = 0;
        }
        /* run */
        op_status st = reduce_bind_run(ctx, &c, &res);
        /* check */
        if (st != OP_OK)
            fail_msg("%s zero-size case #%zu: %s: %s", cs->name, s, op_status_str(st),
                     op_context_error(ctx));
        assert_string_equal(op_context_error(ctx), "");
        if (res.out.data)
            assert_true(ts_buf_guard_ok(&res.out));
        ts_buf_free(&res.out);
    }
    op_context_destroy(ctx);
}

/* --- NaN and infinities ----------------------------------------------------------------------- */

typedef enum layout {
    LAYOUT_FULL,
    LAYOUT_ROW,
    LAYOUT_COL,
    LAYOUT_STRIDED
} layout;

typedef struct nan_case {
    const char *name;
    const char *op;
    const char *dtype;
    layout lay;
} nan_case;

#define NAN_ROWS_(op, dt)                                                                          \
    {#op "/" #dt "/full", #op, #dt, LAYOUT_FULL}, {#op "/" #dt "/row", #op, #dt, LAYOUT_ROW},      \
        {#op "/" #dt "/col", #op, #dt, LAYOUT_COL},                                                \
        {#op "/" #dt "/strided", #op, #dt, LAYOUT_STRIDED},
static const nan_case nan_cases[] = {
    NAN_ROWS_(ReduceMax, f32) NAN_ROWS_(ReduceMax, f64) NAN_ROWS_(ReduceMax, f16)
        NAN_ROWS_(ReduceMax, bf16) NAN_ROWS_(ReduceMin, f32) NAN_ROWS_(ReduceMin, f64)
            NAN_ROWS_(ReduceMin, f16) NAN_ROWS_(ReduceMin, bf16) NAN_ROWS_(ReduceSum, f32)
                NAN_ROWS_(ReduceMean, f16) NAN_ROWS_(ReduceProd, bf16)};
#undef NAN_ROWS_

enum {
    NAN_L = 1001,
    NAN_LANES = 4
};

/* The view for a layout: NAN_LANES outputs (one for FULL), each reducing NAN_L elements;
 * layout_index gives the storage index of element pos of output lane. */
static void layout_view(layout lay, int32_t *ndim, int64_t *shape, int64_t *strides, int64_t *axes,
                        int *n_axes, int64_t *storage)
{
    switch (lay) {
    case LAYOUT_FULL:
        *ndim = 1, shape[0] = NAN_L, strides[0] = 1, *n_axes = -1, *storage = NAN_L;
        break;
    case LAYOUT_ROW:
        *ndim = 2, shape[0] = NAN_LANES, shape[1] = NAN_L, strides[0] = NAN_L, strides[1] = 1;
        axes[0] = 1, *n_axes = 1, *storage = NAN_LANES * NAN_L;
        break;
    case LAYOUT_COL:
        *ndim = 2, shape[0] = NAN_L, shape[1] = NAN_LANES, strides[0] = NAN_LANES, strides[1] = 1;
        axes[0] = 0, *n_axes = 1, *storage = NAN_LANES * NAN_L;
        break;
    case LAYOUT_STRIDED: /* [L, lanes] over a transposed, gapped buffer */
        *ndim = 2, shape[0] = NAN_L, shape[1] = NAN_LANES, strides[0] = 1, strides[1] = NAN_L + 3;
        axes[0] = 0, *n_axes = 1, *storage = (NAN_LANES - 1) * (NAN_L + 3) + NAN_L;
        break;
    }
}

static int64_t layout_index(layout lay, int lane, int64_t pos)
{
    switch (lay) {
    case LAYOUT_FULL:
        return pos;
    case LAYOUT_ROW:
        return (int64_t)lane * NAN_L + pos;
    case LAYOUT_COL:
        return pos * NAN_LANES + lane;
    case LAYOUT_STRIDED:
        return (int64_t)lane * (NAN_L + 3) + pos;
    }
    return 0;
}

static void run__nan_propagates_from_any_position(void **state)
{
    const nan_case *cs = *state;
    /* set up */
    ts_rng rng = {ts_seed_mix(ts_seed("run__nan_propagates_from_any_position"), cs->name)};
    DLDataType dt = ts_dtype(cs->dtype);
    static const int64_t positions[] = {0,  1,  2,  3,  7,   8,         15,
                                        16, 31, 32, 63, 500, NAN_L - 2, NAN_L - 1};
    int32_t ndim;
    int64_t shape[2], strides[2], axes[1], storage = 0;
    int n_axes;
    layout_view(cs->lay, &ndim, shape, strides, axes, &n_axes, &storage);
    int lanes = cs->lay == LAYOUT_FULL ? 1 : NAN_LANES;
    void *buf = malloc((size_t)storage * ts_dtype_size(dt));
    assert_non_null(buf);
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    for (size_t p = 0; p < N_OF(positions); p++) {
        fill_for_op(&rng, buf, dt, storage, ts_op_from_name(cs->op));
        int lane = (int)(p % (size_t)lanes);
        ts_store(buf, dt, layout_index(cs->lay, lane, positions[p]), NAN);
        reduce_call c = {cs->op,
                         {buf, {kDLCPU, 0}, ndim, dt, shape, strides, 0},
                         (size_t)storage * ts_dtype_size(dt),
                         n_axes,
                         axes,
                         0,
                         -1};
        char what[128];
        snprintf(what, sizeof what, "%s NaN at %lld of output %d", cs->name,
                 (long long)positions[p], lane);
        /* run */
        reduce_result res;
        reduce_run(ctx, &c, &res, what);
        /* check: that output is NaN, the others match the reference */
        if (!isnan(ts_load(res.out.data, dt, lane)))
            fail_msg("%s: got %g", what, ts_load(res.out.data, dt, lane));
        reduce_check_reference(&c, &res, what);
        ts_buf_free(&res.out);
    }
    free(buf);
    op_context_destroy(ctx);
}

static const op_dtype_case inf_cases[] = {
#define INF_ROW_(op, dt) {#op "/" #dt, #op, #dt},
#define INF_FLOATS_(op) INF_ROW_(op, f32) INF_ROW_(op, f64) INF_ROW_(op, f16) INF_ROW_(op, bf16)
    INF_FLOATS_(ReduceSum) INF_FLOATS_(ReduceMean) INF_FLOATS_(ReduceMax) INF_FLOATS_(ReduceMin)
        INF_FLOATS_(ReduceProd)
#undef INF_FLOATS_
#undef INF_ROW_
};

static void run__infinities(void **state)
{
    const op_dtype_case *cs = *state;
    /* set up: rows of 37: +inf; -inf; +inf and -inf; +inf twice; NaN and +inf; none */
    ts_rng rng = {ts_seed_mix(ts_seed("run__infinities"), cs->name)};
    DLDataType dt = ts_dtype(cs->dtype);
    enum {
        ROWS = 6,
        COLS = 37
    };
    static const int64_t shape[2] = {ROWS, COLS}, axes[1] = {1};
    double buf[ROWS * COLS];
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    for (int layout = 0; layout < 2; layout++) {
        fill_for_op(&rng, buf, dt, ROWS * COLS, ts_op_from_name(cs->op));
        int64_t a = ts_range(&rng, 0, COLS - 1), b = (a + 1 + ts_range(&rng, 0, COLS - 2)) % COLS;
        ts_store(buf, dt, 0 * COLS + a, INFINITY);
        ts_store(buf, dt, 1 * COLS + a, -INFINITY);
        ts_store(buf, dt, 2 * COLS + a, INFINITY);
        ts_store(buf, dt, 2 * COLS + b, -INFINITY);
        ts_store(buf, dt, 3 * COLS + a, INFINITY);
        ts_store(buf, dt, 3 * COLS + b, INFINITY);
        ts_store(buf, dt, 4 * COLS + a, NAN);
        ts_store(buf, dt, 4 * COLS + b, INFINITY);
        /* layout 1: the same rows read through a column-major view of the transpose */
        static const int64_t tshape[2] = {COLS, ROWS}, tstrides[2] = {1, COLS}, taxes[1] = {0};
        reduce_call c = {cs->op,
                         {buf,
                          {kDLCPU, 0},
                          2,
                          dt,
                          (int64_t *)(layout ? tshape : shape),
                          layout ? (int64_t *)tstrides : NULL,
                          0},
                         ROWS * COLS * ts_dtype_size(dt),
                         1,
                         layout ? taxes : axes,
                         0,
                         -1};
        char what[96];
        snprintf(what, sizeof what, "%s infinities, layout %d", cs->name, layout);
        /* run, check */
        reduce_run_and_check(ctx, &c, what);
    }
    op_context_destroy(ctx);
}

/* --- integers: wrap, truncating Mean, extremes ------------------------------------------------ */

typedef struct int_case {
    const char *name;
    const char *op;
    const char *dtype;
    int n;
    int64_t values[4];
    int64_t want;
} int_case;

/* ts_store goes through double, which cannot hold every int64. */
static void store_int(void *base, DLDataType t, int64_t i, int64_t v)
{
    if (t.bits == 32)
        ((int32_t *)base)[i] = (int32_t)v;
    else
        ((int64_t *)base)[i] = v;
}

static const int_case int_cases[] = {
    {"i32_sum_wraps_up", "ReduceSum", "i32", 2, {INT32_MAX, 1}, INT32_MIN},
    {"i32_sum_wraps_down", "ReduceSum", "i32", 2, {INT32_MIN, -1}, INT32_MAX},
    {"i32_sum_wraps_twice", "ReduceSum", "i32", 3, {INT32_MAX, INT32_MAX, INT32_MAX}, 2147483645},
    {"i64_sum_wraps", "ReduceSum", "i64", 2, {INT64_MAX, 1}, INT64_MIN},
    {"i32_prod_wraps_to_zero", "ReduceProd", "i32", 2, {65536, 65536}, 0},
    {"i32_prod_wraps_negative", "ReduceProd", "i32", 3, {65536, 32768, 3}, INT32_MIN},
    {"i64_prod_wraps", "ReduceProd", "i64", 2, {3037000500, 3037000500}, -9223372036709301616},
    {"i32_mean_sums_in_int64", "ReduceMean", "i32", 2, {INT32_MAX, INT32_MAX}, INT32_MAX},
    {"i32_mean_sums_in_int64_neg",
     "ReduceMean",
     "i32",
     3,
     {INT32_MIN, INT32_MIN, INT32_MIN},
     INT32_MIN},
    {"i64_mean_of_wrapped_sum", "ReduceMean", "i64", 2, {INT64_MAX, 1}, -4611686018427387904},
    {"i32_mean_minus_7_over_2", "ReduceMean", "i32", 2, {-7, 0}, -3},
    {"i32_mean_7_over_2", "ReduceMean", "i32", 2, {7, 0}, 3},
    {"i32_mean_minus_5_over_3", "ReduceMean", "i32", 3, {-5, 0, 0}, -1},
    {"i32_mean_minus_1_over_2", "ReduceMean", "i32", 2, {0, -1}, 0},
    {"i64_mean_minus_7_over_2", "ReduceMean", "i64", 2, {-3, -4}, -3},
    {"i64_mean_minus_11_over_4", "ReduceMean", "i64", 4, {-11, 0, 0, 0}, -2},
    {"i32_max_all_min", "ReduceMax", "i32", 3, {INT32_MIN, INT32_MIN, INT32_MIN}, INT32_MIN},
    {"i64_max_all_min", "ReduceMax", "i64", 2, {INT64_MIN, INT64_MIN}, INT64_MIN},
    {"i32_min_all_max", "ReduceMin", "i32", 2, {INT32_MAX, INT32_MAX}, INT32_MAX},
    {"i64_min_all_max", "ReduceMin", "i64", 3, {INT64_MAX, INT64_MAX, INT64_MAX}, INT64_MAX},
    {"i64_max_negative", "ReduceMax", "i64", 3, {-9, -5, -7}, -5},
    {"i32_min_positive", "ReduceMin", "i32", 3, {9, 5, 7}, 5},
};

static void run__integer_semantics(void **state)
{
    const int_case *cs = *state;
    /* set up: the values as a row, as a column of a [n, 3] view, and spread through a zero-padded
     * strided buffer (so each contiguous class and the generic path see them) */
    DLDataType dt = ts_dtype(cs->dtype);
    int64_t buf[64];
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    for (int layout = 0; layout < 3; layout++) {
        memset(buf, 0, sizeof buf);
        int64_t shape[2] = {cs->n, 3}, strides[2] = {3, 1}, axes[1] = {0};
        int32_t ndim = layout == 0 ? 1 : 2;
        if (layout == 2)
            strides[0] = 7, strides[1] = 2;
        for (int i = 0; i < cs->n; i++)
            for (int j = 0; j < (layout ? 3 : 1); j++)
                store_int(buf, dt, layout ? i * strides[0] + j * strides[1] : i, cs->values[i]);
        reduce_call c = {
            cs->op,     {buf, {kDLCPU, 0}, ndim, dt, shape, layout ? strides : NULL, 0},
            sizeof buf, 1,
            axes,       0,
            -1};
        char what[96];
        snprintf(what, sizeof what, "%s layout %d", cs->name, layout);
        /* run */
        reduce_result res;
        reduce_run(ctx, &c, &res, what);
        /* check: every output is the expected value exactly */
        for (int64_t o = 0; o < res.n; o++)
            if (ts_load_int(res.out.data, dt, o) != cs->want)
                fail_msg("%s: output %lld is %lld, expected %lld", what, (long long)o,
                         (long long)ts_load_int(res.out.data, dt, o), (long long)cs->want);
        reduce_check_reference(&c, &res, what);
        ts_buf_free(&res.out);
    }
    op_context_destroy(ctx);
}

/* --- fp16/bf16 accumulate in fp32 ------------------------------------------------------------- */

typedef struct half_case {
    const char *name;
    const char *op;
    const char *dtype;
    layout lay;
} half_case;

#define HALF_ROWS_(op, dt)                                                                         \
    {#op "/" #dt "/full", #op, #dt, LAYOUT_FULL}, {#op "/" #dt "/row", #op, #dt, LAYOUT_ROW},      \
        {#op "/" #dt "/col", #op, #dt, LAYOUT_COL},                                                \
        {#op "/" #dt "/strided", #op, #dt, LAYOUT_STRIDED},
static const half_case half_cases[] = {HALF_ROWS_(ReduceSum, f16) HALF_ROWS_(
    ReduceSum, bf16) HALF_ROWS_(ReduceMean, f16) HALF_ROWS_(ReduceMean, bf16)};
#undef HALF_ROWS_

static void run__half_accumulates_in_fp32(void **state)
{
    const half_case *cs = *state;
    /* set up: 4096 ones per output. A 16-bit accumulator stalls (fp16 at 2048, bf16 at 256); in
     * fp32 the sum is exactly 4096, representable in both. */
    enum {
        L = 4096
    };
    DLDataType dt = ts_dtype(cs->dtype);
    int64_t shape[2], strides[2], axes[1];
    int32_t ndim = 0;
    int n_axes = 0, lanes = cs->lay == LAYOUT_FULL ? 1 : 4;
    int64_t storage = 0;
    switch (cs->lay) {
    case LAYOUT_FULL:
        ndim = 1, shape[0] = L, strides[0] = 1, n_axes = -1, storage = L;
        break;
    case LAYOUT_ROW:
        ndim = 2, shape[0] = 4, shape[1] = L, strides[0] = L, strides[1] = 1, axes[0] = 1;
        n_axes = 1, storage = 4 * L;
        break;
    case LAYOUT_COL:
        ndim = 2, shape[0] = L, shape[1] = 4, strides[0] = 4, strides[1] = 1, axes[0] = 0;
        n_axes = 1, storage = 4 * L;
        break;
    case LAYOUT_STRIDED:
        ndim = 2, shape[0] = L, shape[1] = 4, strides[0] = 1, strides[1] = L + 5, axes[0] = 0;
        n_axes = 1, storage = 3 * (L + 5) + L;
        break;
    }
    uint16_t *buf = malloc((size_t)storage * 2);
    assert_non_null(buf);
    for (int64_t i = 0; i < storage; i++)
        ts_store(buf, dt, i, 1.0);
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    reduce_call c = {cs->op,
                     {buf, {kDLCPU, 0}, ndim, dt, shape, strides, 0},
                     (size_t)storage * 2,
                     n_axes,
                     axes,
                     0,
                     -1};
    /* run */
    reduce_result res;
    reduce_run(ctx, &c, &res, cs->name);
    /* check: exact */
    double want = ts_op_from_name(cs->op) == TS_MEAN ? 1.0 : (double)L;
    assert_int_equal(res.n, lanes);
    for (int o = 0; o < lanes; o++)
        if (ts_load(res.out.data, dt, o) != want)
            fail_msg("%s: output %d is %g, expected %g", cs->name, o, ts_load(res.out.data, dt, o),
                     want);
    ts_buf_free(&res.out);
    /* set up: 4096 copies of 60000 (near the fp16 maximum 65504). In fp32 the sum 2.5e8 is
     * exact and the Mean is the value again; a 16-bit accumulator would overflow to inf. */
    for (int64_t i = 0; i < storage; i++)
        ts_store(buf, dt, i, 60000.0);
    double v = ts_load(buf, dt, 0);
    unsigned char rounded[2];
    ts_store(rounded, dt, 0, v * L); /* the exact sum rounded once to the dtype (fp16: inf) */
    want = ts_op_from_name(cs->op) == TS_MEAN ? v : ts_load(rounded, dt, 0);
    /* run */
    reduce_run(ctx, &c, &res, cs->name);
    /* check: exact */
    for (int o = 0; o < lanes; o++)
        if (ts_load(res.out.data, dt, o) != want)
            fail_msg("%s: large values: output %d is %g, expected %g", cs->name, o,
                     ts_load(res.out.data, dt, o), want);
    ts_buf_free(&res.out);
    free(buf);
    op_context_destroy(ctx);
}

static void run__f32_sum_not_one_serial_chain(void **state)
{
    (void)state;
    /* set up: 2^25 ones through a zero stride. One serial fp32 chain stalls at 2^24; blocked or
     * pairwise sums reach 2^25 exactly. */
    float one = 1.0f;
    static const int64_t shape[1] = {1 << 25}, strides[1] = {0};
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    reduce_call c = {
        "ReduceSum",
        {&one, {kDLCPU, 0}, 1, ts_dtype("f32"), (int64_t *)shape, (int64_t *)strides, 0},
        sizeof one,
        -1,
        NULL,
        0,
        -1};
    /* run */
    reduce_result res;
    reduce_run(ctx, &c, &res, "ReduceSum f32 2^25 ones");
    /* check: exact */
    float got = *(const float *)res.out.data;
    if (got != 33554432.0f)
        fail_msg("sum of 2^25 ones is %.1f, expected 33554432", got);
    ts_buf_free(&res.out);
    op_context_destroy(ctx);
}

/* --- Max starts from -inf, Min from +inf ------------------------------------------------------ */

static const op_dtype_case extreme_cases[] = {
#define EXTREME_ROW_(op, dt) {#op "/" #dt, #op, #dt},
    FOR_DTYPES(EXTREME_ROW_, ReduceMax) FOR_DTYPES(EXTREME_ROW_, ReduceMin)
#undef EXTREME_ROW_
};

static void run__extremes_start_from_infinity(void **state)
{
    const op_dtype_case *cs = *state;
    /* set up: Max over all-negative values, Min over all-positive ones, tiny and large, in
     * several layouts (a start from 0 or FLT_MIN would show) */
    ts_rng rng = {ts_seed_mix(ts_seed("run__extremes_start_from_infinity"), cs->name)};
    DLDataType dt = ts_dtype(cs->dtype);
    double sign = ts_op_from_name(cs->op) == TS_MAX ? -1.0 : 1.0;
    int32_t ndim;
    int64_t shape[2], strides[2], axes[1], storage;
    int n_axes;
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    for (int lay = LAYOUT_FULL; lay <= LAYOUT_STRIDED; lay++) {
        for (int scale = 0; scale < 2; scale++) {
            layout_view((layout)lay, &ndim, shape, strides, axes, &n_axes, &storage);
            void *buf = malloc((size_t)storage * ts_dtype_size(dt));
            assert_non_null(buf);
            for (int64_t i = 0; i < storage; i++) {
                double mag = ts_dtype_is_float(dt)
                                 ? (scale ? 1e3 : 1e-3) * (0.25 + ts_uniform(&rng))
                                 : (double)ts_range(&rng, 1, scale ? 1000000 : 3);
                ts_store(buf, dt, i, sign * mag);
            }
            reduce_call c = {cs->op,
                             {buf, {kDLCPU, 0}, ndim, dt, shape, strides, 0},
                             (size_t)storage * ts_dtype_size(dt),
                             n_axes,
                             axes,
                             0,
                             -1};
            char what[96];
            snprintf(what, sizeof what, "%s layout %d scale %d", cs->name, lay, scale);
            /* run */
            reduce_result res;
            reduce_run(ctx, &c, &res, what);
            /* check: every output has the sign of the inputs, and matches the reference */
            for (int64_t o = 0; o < res.n; o++)
                if (!(ts_load(res.out.data, dt, o) * sign > 0))
                    fail_msg("%s: output %lld is %g", what, (long long)o,
                             ts_load(res.out.data, dt, o));
            reduce_check_reference(&c, &res, what);
            ts_buf_free(&res.out);
            free(buf);
        }
    }
    op_context_destroy(ctx);
}

/* --- byte_offset ------------------------------------------------------------------------------ */

static void run__byte_offset_honoured(void **state)
{
    const op_dtype_case *cs = *state;
    /* set up: a [3, 5] view 7 elements into a buffer whose other elements are poison (NaN for
     * floats, the integer extremes otherwise); reading them would show in every op */
    ts_rng rng = {ts_seed_mix(ts_seed("run__byte_offset_honoured"), cs->name)};
    DLDataType dt = ts_dtype(cs->dtype);
    enum {
        OFF = 7,
        N = 15,
        TOTAL = OFF + N + 9
    };
    double buf[TOTAL];
    static const int64_t shape[2] = {3, 5}, axes[1] = {1};
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    for (int i = 0; i < TOTAL; i++) {
        if (ts_dtype_is_float(dt))
            ts_store(buf, dt, i, NAN);
        else
            store_int(buf, dt, i,
                      i % 2 ? (dt.bits == 32 ? INT32_MAX : INT64_MAX)
                            : (dt.bits == 32 ? INT32_MIN : INT64_MIN));
    }
    fill_for_op(&rng, (char *)buf + OFF * ts_dtype_size(dt), dt, N, ts_op_from_name(cs->op));
    reduce_call c = {cs->op,
                     {buf, {kDLCPU, 0}, 2, dt, (int64_t *)shape, NULL, OFF * ts_dtype_size(dt)},
                     TOTAL * ts_dtype_size(dt),
                     1,
                     axes,
                     0,
                     -1};
    /* run, check: the reference reads exactly the view */
    reduce_run_and_check(ctx, &c, cs->name);
    op_context_destroy(ctx);
}

/* --- 2^32 elements through zero strides ------------------------------------------------------- */

typedef struct huge_case {
    const char *name;
    const char *op;
    const char *dtype;
    double value; /* the one element every index reads */
    int n_axes;   /* -1: all */
    int64_t axis;
    int64_t outputs;
    double want_f;  /* floats: every output */
    int64_t want_i; /* integers: every output */
} huge_case;

static const huge_case huge_cases[] = {
    {"ReduceSum/f64", "ReduceSum", "f64", 1.0, -1, 0, 1, 4294967296.0, 0},
    {"ReduceSum/i64", "ReduceSum", "i64", 3.0, -1, 0, 1, 0, 12884901888},
    /* int32 accumulates in int64: 2^32 then wraps to 0 in the int32 output */
    {"ReduceSum/i32_wraps", "ReduceSum", "i32", 1.0, -1, 0, 1, 0, 0},
    {"ReduceMean/f64", "ReduceMean", "f64", 0.75, -1, 0, 1, 0.75, 0},
    {"ReduceMax/f32", "ReduceMax", "f32", -3.5, -1, 0, 1, -3.5, 0},
    /* 65536 outputs of 65536 ones: exact in fp32 */
    {"ReduceSum/f32_axis_1", "ReduceSum", "f32", 1.0, 1, 1, 65536, 65536.0, 0},
};

static void run__zero_stride_2pow32_elements(void **state)
{
    const huge_case *cs = *state;
    /* set up: shape [65536, 65536], strides [0, 0] over one element; nothing of that size is
     * allocated */
    DLDataType dt = ts_dtype(cs->dtype);
    double one[1];
    ts_store(one, dt, 0, cs->value);
    static const int64_t shape[2] = {65536, 65536}, strides[2] = {0, 0};
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    reduce_call c = {cs->op,     {one, {kDLCPU, 0}, 2, dt, (int64_t *)shape, (int64_t *)strides, 0},
                     sizeof one, cs->n_axes,
                     &cs->axis,  0,
                     -1};
    /* run */
    reduce_result res;
    reduce_run(ctx, &c, &res, cs->name);
    /* check: exact (sums of integers below 2^53 in f64, below 2^24 in f32, are exact in any
     * order; Mean of equal values is the value up to the final 1/N, exact for N = 2^32) */
    assert_int_equal(res.n, cs->outputs);
    for (int64_t o = 0; o < res.n; o++) {
        if (ts_dtype_is_float(dt)) {
            double got = ts_load(res.out.data, dt, o);
            if (got != cs->want_f)
                fail_msg("%s: output %lld is %.17g, expected %.17g", cs->name, (long long)o, got,
                         cs->want_f);
        } else if (ts_load_int(res.out.data, dt, o) != cs->want_i) {
            fail_msg("%s: output %lld is %lld, expected %lld", cs->name, (long long)o,
                     (long long)ts_load_int(res.out.data, dt, o), (long long)cs->want_i);
        }
    }
    ts_buf_free(&res.out);
    op_context_destroy(ctx);
}

/* --- the plan cache: calls that differ in one key each, on one context ---------------------- */

typedef struct variant {
    const char *what;
    const char *op;
    const char *dtype;
    int64_t shape[2];
    int64_t strides[2]; /* {0, 0} with compact set: NULL strides */
    bool compact;
    int64_t offset; /* elements */
    int n_axes;
    int64_t axis;
    int keepdims;
} variant;

static const variant variants[] = {
    {"base", "ReduceSum", "f32", {6, 35}, {0, 0}, true, 0, 1, 1, 0},
    {"explicit compact strides", "ReduceSum", "f32", {6, 35}, {35, 1}, false, 0, 1, 1, 0},
    {"transposed strides", "ReduceSum", "f32", {6, 35}, {1, 6}, false, 0, 1, 1, 0},
    {"gapped strides", "ReduceSum", "f32", {6, 35}, {40, 1}, false, 0, 1, 1, 0},
    {"zero stride", "ReduceSum", "f32", {6, 35}, {0, 1}, false, 0, 1, 1, 0},
    {"other axis", "ReduceSum", "f32", {6, 35}, {0, 0}, true, 0, 1, 0, 0},
    {"negative axis", "ReduceSum", "f32", {6, 35}, {0, 0}, true, 0, 1, -2, 0},
    {"all axes", "ReduceSum", "f32", {6, 35}, {0, 0}, true, 0, -1, 0, 0},
    {"keepdims", "ReduceSum", "f32", {6, 35}, {0, 0}, true, 0, 1, 1, 1},
    {"byte offset", "ReduceSum", "f32", {6, 35}, {0, 0}, true, 3, 1, 1, 0},
    {"other dtype", "ReduceSum", "f64", {6, 35}, {0, 0}, true, 0, 1, 1, 0},
    {"other op", "ReduceMax", "f32", {6, 35}, {0, 0}, true, 0, 1, 1, 0},
    {"other op and dtype", "ReduceMean", "i32", {6, 35}, {0, 0}, true, 0, 1, 1, 0},
    {"other shape", "ReduceSum", "f32", {35, 6}, {0, 0}, true, 0, 1, 1, 0},
};

static void run__plan_cache_keyed_on_every_input(void **state)
{
    (void)state;
    /* set up: one buffer large enough for every variant */
    ts_rng rng = {ts_seed("run__plan_cache_keyed_on_every_input")};
    enum {
        ROOM = 6 * 40 + 8
    };
    double buf[ROOM];
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    /* run, check: the sequence three times over, so later rounds may hit cached plans */
    for (int round = 0; round < 3; round++) {
        for (size_t v = 0; v < N_OF(variants); v++) {
            const variant *w = &variants[v];
            DLDataType dt = ts_dtype(w->dtype);
            fill_for_op(&rng, buf, dt, ROOM, ts_op_from_name(w->op));
            reduce_call c = {w->op,
                             {buf,
                              {kDLCPU, 0},
                              2,
                              dt,
                              (int64_t *)w->shape,
                              w->compact ? NULL : (int64_t *)w->strides,
                              (uint64_t)w->offset * ts_dtype_size(dt)},
                             ROOM * ts_dtype_size(dt),
                             w->n_axes,
                             &w->axis,
                             w->keepdims,
                             -1};
            char what[96];
            snprintf(what, sizeof what, "round %d: %s", round, w->what);
            reduce_run_and_check(ctx, &c, what);
        }
    }
    op_context_destroy(ctx);
}

/* --- determinism ------------------------------------------------------------------------------ */

static void run__bitwise_identical_run_to_run(void **state)
{
    (void)state;
    /* set up */
    ts_rng rng = {ts_seed("run__bitwise_identical_run_to_run")};
    static const struct {
        int32_t ndim;
        int64_t shape[2];
        int64_t axis;
    } shapes[] = {{1, {1000003}, 0}, {2, {1031, 1024}, 0}, {2, {64, 16411}, 1}};
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    for (size_t s = 0; s < N_OF(shapes); s++) {
        int64_t numel = ts_numel(shapes[s].ndim, shapes[s].shape);
        float *buf = malloc((size_t)numel * sizeof(float));
        assert_non_null(buf);
        ts_fill_random(&rng, buf, ts_dtype("f32"), numel, 1.0);
        reduce_call c = {"ReduceSum",
                         {buf,
                          {kDLCPU, 0},
                          shapes[s].ndim,
                          ts_dtype("f32"),
                          (int64_t *)shapes[s].shape,
                          NULL,
                          0},
                         0,
                         1,
                         &shapes[s].axis,
                         0,
                         -1};
        /* run */
        reduce_result first, again;
        reduce_run(ctx, &c, &first, "first run");
        bool same = true;
        for (int rep = 0; rep < 3 && same; rep++) {
            reduce_run(ctx, &c, &again, "repeated run");
            same = memcmp(first.out.data, again.out.data, first.out.bytes) == 0;
            ts_buf_free(&again.out);
        }
        /* check */
        if (!same)
            fail_msg("shape #%zu: results differ between runs", s);
        reduce_check_reference(&c, &first, "determinism shape");
        ts_buf_free(&first.out);
        free(buf);
    }
    op_context_destroy(ctx);
}

int main(void)
{
    struct CMUnitTest tests[512];
    size_t n = 0;
    ADD_CASES(tests, n, run__matches_reference, op_dtype_cases);
    ADD_CASES(tests, n, run__large_views_match_reference, big_cases);
    ADD_CASES(tests, n, run__rank0_input, op_dtype_cases);
    ADD_CASES(tests, n, run__rank8_input, op_dtype_cases);
    ADD_CASES(tests, n, infer_output__dtype_equals_input, op_dtype_cases);
    ADD_CASES(tests, n, run__empty_axes, dtype_cases);
    ADD_CASES(tests, n, run__empty_set_gives_identity, identity_cases);
    ADD_CASES(tests, n, run__zero_size_kept_dim_writes_nothing, op_dtype_cases);
    ADD_CASES(tests, n, run__nan_propagates_from_any_position, nan_cases);
    ADD_CASES(tests, n, run__infinities, inf_cases);
    ADD_CASES(tests, n, run__integer_semantics, int_cases);
    ADD_CASES(tests, n, run__half_accumulates_in_fp32, half_cases);
    ADD_TEST(tests, n, run__f32_sum_not_one_serial_chain);
    ADD_CASES(tests, n, run__extremes_start_from_infinity, extreme_cases);
    ADD_CASES(tests, n, run__byte_offset_honoured, op_dtype_cases);
    ADD_TEST(tests, n, run__plan_cache_keyed_on_every_input);
    ADD_TEST(tests, n, run__bitwise_identical_run_to_run);
    ADD_CASES(tests, n, run__zero_stride_2pow32_elements, huge_cases);
    return _cmocka_run_group_tests("test_reduce_cpu", tests, n, NULL, NULL);
}
