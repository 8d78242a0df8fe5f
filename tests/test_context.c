/* The op_context contract: create/destroy, binding tensors (bounds, NULLs, copies), attributes
 * (set, replace, name rules), the stream (kept by clear), clear, op_context_error, and a NULL
 * context handed to every function. Black-box: public headers and tests/support only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opnn/opnn.h"
#include "support/test_cases.h"
#include "support/test_support.h"

static const DLDataType F32 = {kDLFloat, 32, 1};

/* A compact f32 [2, 3, 4] input with random data and its [2, 1, 4] output (ReduceSum over axis
 * 1, keepdims 1), with guard bytes after the output. */
typedef struct simple_call {
    float in[24];
    ts_buf out;
    ts_tensor x, y;
} simple_call;

static void simple_call_init(simple_call *c, ts_rng *rng)
{
    static const int64_t xshape[3] = {2, 3, 4}, yshape[3] = {2, 1, 4};
    ts_fill_random(rng, c->in, F32, 24, 1.0);
    c->out = ts_buf_alloc(8 * sizeof(float));
    assert_non_null(c->out.data);
    ts_tensor_init(&c->x, c->in, kDLCPU, F32, 3, xshape, NULL);
    ts_tensor_init(&c->y, c->out.data, kDLCPU, F32, 3, yshape, NULL);
}

static void simple_call_bind(op_context *ctx, simple_call *c)
{
    static const int64_t axes[1] = {1};
    assert_int_equal(op_context_set_input(ctx, 0, &c->x.t), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &c->y.t), OP_OK);
    assert_int_equal(op_context_set_attr_ints(ctx, "axes", axes, 1), OP_OK);
}

/* The sums of simple_call's input over axis 1, checked against the float64 reference. */
static void simple_call_check(const simple_call *c)
{
    double ref[8];
    assert_int_equal(ts_reference(TS_SUM, &c->x.t, 1u << 1, ref, NULL), 8);
    /* f32 sum of 3 values: ts_check's f32 tolerance (1e-5 relative) */
    assert_true(ts_check("ReduceSum [2,3,4] axis 1", c->out.data, F32, 8, ref, NULL, 3, TS_SUM));
    assert_true(ts_buf_guard_ok(&c->out));
}

static void expect_infer_shape(op_context *ctx, const char *op, int32_t want_ndim,
                               const int64_t *want_shape)
{
    int32_t ndim = -1;
    int64_t shape[OP_MAX_DIMS];
    DLDataType dt = {0, 0, 0};
    assert_int_equal(op_infer_output(op, ctx, 0, &ndim, shape, &dt), OP_OK);
    assert_int_equal(ndim, want_ndim);
    for (int i = 0; i < want_ndim; i++)
        assert_int_equal(shape[i], want_shape[i]);
}

/* --- create / destroy ------------------------------------------------------------------------- */

static void context_create__returns_context_without_error(void **state)
{
    (void)state;
    /* set up */
    op_context *ctx = NULL;
    /* run */
    op_status st = op_context_create(&ctx);
    /* check */
    assert_int_equal(st, OP_OK);
    assert_non_null(ctx);
    assert_string_equal(op_context_error(ctx), "");
    op_context_destroy(ctx);
}

static void context_create__null_out_rejected(void **state)
{
    (void)state;
    /* run, check */
    assert_int_equal(op_context_create(NULL), OP_ERR_INVALID_ARGUMENT);
}

static void context_destroy__null_is_fine(void **state)
{
    (void)state;
    /* run: neither may crash */
    op_context_destroy(NULL);
    op_context_clear(NULL);
    /* check */
    assert_non_null(op_context_error(NULL));
}

static void context_create__many_contexts_independent(void **state)
{
    (void)state;
    /* set up */
    ts_rng rng = {ts_seed("context_create__many_contexts_independent")};
    op_context *a = NULL, *b = NULL;
    simple_call cb;
    assert_int_equal(op_context_create(&a), OP_OK);
    assert_int_equal(op_context_create(&b), OP_OK);
    assert_ptr_not_equal(a, b);
    simple_call_init(&cb, &rng);
    simple_call_bind(b, &cb);
    /* run: a failure on a (nothing bound) and a success on b */
    op_status sa = op_run("ReduceSum", a);
    op_status sb = op_run("ReduceSum", b);
    /* check */
    assert_int_equal(sa, OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(sb, OP_OK);
    assert_string_not_equal(op_context_error(a), "");
    assert_string_equal(op_context_error(b), "");
    simple_call_check(&cb);
    ts_buf_free(&cb.out);
    op_context_destroy(a);
    op_context_destroy(b);
}

/* --- set_input / set_output bounds ------------------------------------------------------------ */

typedef enum bind_fault {
    BIND_NONE,
    BIND_NULL_TENSOR,
    BIND_NEGATIVE_NDIM,
    BIND_NEGATIVE_DIM,
    BIND_NDIM,      /* use `ndim` dims of size 1 */
    BIND_NULL_DATA, /* data NULL: legal to bind, checked by op_run */
} bind_fault;

typedef struct bind_case {
    const char *name;
    bool output;
    int index;
    bind_fault fault;
    int32_t ndim;
    op_status want;
    const char *msg_value; /* a value the failure message must contain, or NULL */
} bind_case;

static const bind_case bind_cases[] = {
    {"input_index_0", false, 0, BIND_NONE, 0, OP_OK, NULL},
    {"input_last_index", false, OP_MAX_TENSORS - 1, BIND_NONE, 0, OP_OK, NULL},
    {"input_index_negative", false, -1, BIND_NONE, 0, OP_ERR_INVALID_ARGUMENT, "-1"},
    {"input_index_past_end", false, OP_MAX_TENSORS, BIND_NONE, 0, OP_ERR_INVALID_ARGUMENT, "8"},
    {"input_index_int_max", false, INT_MAX, BIND_NONE, 0, OP_ERR_INVALID_ARGUMENT, "2147483647"},
    {"input_null_tensor", false, 0, BIND_NULL_TENSOR, 0, OP_ERR_INVALID_ARGUMENT, NULL},
    {"input_negative_ndim", false, 0, BIND_NEGATIVE_NDIM, 0, OP_ERR_INVALID_ARGUMENT, "-1"},
    {"input_negative_dim", false, 0, BIND_NEGATIVE_DIM, 0, OP_ERR_INVALID_ARGUMENT, "-3"},
    {"input_rank_0", false, 0, BIND_NDIM, 0, OP_OK, NULL},
    {"input_rank_16", false, 0, BIND_NDIM, OP_MAX_DIMS, OP_OK, NULL},
    {"input_rank_17", false, 0, BIND_NDIM, OP_MAX_DIMS + 1, OP_ERR_UNSUPPORTED, "17"},
    {"input_null_data", false, 0, BIND_NULL_DATA, 0, OP_OK, NULL},
    {"output_index_0", true, 0, BIND_NONE, 0, OP_OK, NULL},
    {"output_last_index", true, OP_MAX_TENSORS - 1, BIND_NONE, 0, OP_OK, NULL},
    {"output_index_negative", true, -1, BIND_NONE, 0, OP_ERR_INVALID_ARGUMENT, "-1"},
    {"output_index_past_end", true, OP_MAX_TENSORS, BIND_NONE, 0, OP_ERR_INVALID_ARGUMENT, "8"},
    {"output_null_tensor", true, 0, BIND_NULL_TENSOR, 0, OP_ERR_INVALID_ARGUMENT, NULL},
    {"output_negative_ndim", true, 0, BIND_NEGATIVE_NDIM, 0, OP_ERR_INVALID_ARGUMENT, "-1"},
    {"output_negative_dim", true, 0, BIND_NEGATIVE_DIM, 0, OP_ERR_INVALID_ARGUMENT, "-3"},
    {"output_rank_16", true, 0, BIND_NDIM, OP_MAX_DIMS, OP_OK, NULL},
    {"output_rank_17", true, 0, BIND_NDIM, OP_MAX_DIMS + 1, OP_ERR_UNSUPPORTED, "17"},
};

static void set_tensor__bounds(void **state)
{
    const bind_case *c = *state;
    /* set up */
    op_context *ctx = NULL;
    float data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int64_t shape[OP_MAX_DIMS + 4];
    for (int i = 0; i < OP_MAX_DIMS + 4; i++)
        shape[i] = 1;
    shape[0] = 2, shape[1] = 4;
    DLTensor t = {data, {kDLCPU, 0}, 2, F32, shape, NULL, 0};
    if (c->fault == BIND_NEGATIVE_NDIM)
        t.ndim = -1;
    if (c->fault == BIND_NEGATIVE_DIM)
        shape[1] = -3;
    if (c->fault == BIND_NDIM) {
        t.ndim = c->ndim;
        shape[0] = shape[1] = 1;
    }
    if (c->fault == BIND_NULL_DATA)
        t.data = NULL;
    const DLTensor *arg = c->fault == BIND_NULL_TENSOR ? NULL : &t;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    /* run */
    op_status st = c->output ? op_context_set_output(ctx, c->index, arg)
                             : op_context_set_input(ctx, c->index, arg);
    /* check */
    assert_int_equal(st, c->want);
    const char *msg = op_context_error(ctx);
    assert_non_null(msg);
    if (c->want == OP_OK) {
        assert_string_equal(msg, "");
    } else {
        assert_string_not_equal(msg, "");
        if (c->msg_value && !strstr(msg, c->msg_value))
            fail_msg("message \"%s\" does not name the value %s", msg, c->msg_value);
    }
    op_context_destroy(ctx);
}

static void set_input__copies_shape_and_strides(void **state)
{
    (void)state;
    /* set up: a transposed view [4, 3] (strides [1, 4]) of a compact [3, 4] buffer */
    ts_rng rng = {ts_seed("set_input__copies_shape_and_strides")};
    op_context *ctx = NULL;
    float in[12], out[4 + 16];
    ts_fill_random(&rng, in, F32, 12, 1.0);
    int64_t shape[2] = {4, 3}, strides[2] = {1, 4};
    int64_t oshape[1] = {4};
    static const int64_t axes[1] = {1};
    DLTensor x = {in, {kDLCPU, 0}, 2, F32, shape, strides, 0};
    DLTensor y = {out, {kDLCPU, 0}, 1, F32, oshape, NULL, 0};
    assert_int_equal(op_context_create(&ctx), OP_OK);
    assert_int_equal(op_context_set_input(ctx, 0, &x), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &y), OP_OK);
    assert_int_equal(op_context_set_attr_ints(ctx, "axes", axes, 1), OP_OK);
    assert_int_equal(op_context_set_attr_int(ctx, "keepdims", 0), OP_OK);
    /* the caller reuses its arrays (and the structs) after binding */
    int64_t saved_shape[2] = {shape[0], shape[1]}, saved_strides[2] = {strides[0], strides[1]};
    shape[0] = 7, shape[1] = 9, strides[0] = 100, strides[1] = 100, oshape[0] = 9;
    x.ndim = 5, y.ndim = 3;
    /* run */
    op_status st = op_run("ReduceSum", ctx);
    /* check: the bound copies were used */
    assert_int_equal(st, OP_OK);
    int64_t want_shape[1] = {4};
    expect_infer_shape(ctx, "ReduceSum", 1, want_shape);
    DLTensor orig = {in, {kDLCPU, 0}, 2, F32, saved_shape, saved_strides, 0};
    double ref[4];
    assert_int_equal(ts_reference(TS_SUM, &orig, 1u << 1, ref, NULL), 4);
    /* f32 sum of 3 values: ts_check's f32 tolerance */
    assert_true(ts_check("ReduceSum transposed [4,3] axis 1", out, F32, 4, ref, NULL, 3, TS_SUM));
    op_context_destroy(ctx);
}

static void set_input__rebinding_replaces_tensor(void **state)
{
    (void)state;
    /* set up */
    ts_rng rng = {ts_seed("set_input__rebinding_replaces_tensor")};
    op_context *ctx = NULL;
    simple_call c;
    float other[6] = {1, 2, 3, 4, 5, 6};
    static const int64_t other_shape[2] = {2, 3};
    ts_tensor wrong;
    ts_tensor_init(&wrong, other, kDLCPU, F32, 2, other_shape, NULL);
    simple_call_init(&c, &rng);
    assert_int_equal(op_context_create(&ctx), OP_OK);
    assert_int_equal(op_context_set_input(ctx, 0, &wrong.t), OP_OK);
    simple_call_bind(ctx, &c);
    /* run */
    op_status st = op_run("ReduceSum", ctx);
    /* check */
    assert_int_equal(st, OP_OK);
    simple_call_check(&c);
    ts_buf_free(&c.out);
    op_context_destroy(ctx);
}

/* --- attributes ------------------------------------------------------------------------------- */

static void set_attr__replaces_earlier_value(void **state)
{
    (void)state;
    /* set up */
    ts_rng rng = {ts_seed("set_attr__replaces_earlier_value")};
    op_context *ctx = NULL;
    simple_call c;
    static const int64_t axes0[2] = {0, 2}, axes1[1] = {1};
    simple_call_init(&c, &rng);
    assert_int_equal(op_context_create(&ctx), OP_OK);
    assert_int_equal(op_context_set_input(ctx, 0, &c.x.t), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &c.y.t), OP_OK);
    /* run: every attribute set twice, the second time to the value the output needs; keepdims
     * first with the wrong type, which the later int replaces */
    assert_int_equal(op_context_set_attr_ints(ctx, "axes", axes0, 2), OP_OK);
    assert_int_equal(op_context_set_attr_float(ctx, "keepdims", 0.5), OP_OK);
    assert_int_equal(op_context_set_attr_int(ctx, "noop_with_empty_axes", 1), OP_OK);
    assert_int_equal(op_context_set_attr_ints(ctx, "axes", axes1, 1), OP_OK);
    assert_int_equal(op_context_set_attr_int(ctx, "keepdims", 0), OP_OK);
    assert_int_equal(op_context_set_attr_int(ctx, "keepdims", 1), OP_OK);
    assert_int_equal(op_context_set_attr_int(ctx, "noop_with_empty_axes", 0), OP_OK);
    op_status st = op_run("ReduceSum", ctx);
    /* check */
    assert_int_equal(st, OP_OK);
    static const int64_t want[3] = {2, 1, 4};
    expect_infer_shape(ctx, "ReduceSum", 3, want);
    simple_call_check(&c);
    ts_buf_free(&c.out);
    op_context_destroy(ctx);
}

static void set_attr__copies_list(void **state)
{
    (void)state;
    /* set up */
    ts_rng rng = {ts_seed("set_attr__copies_list")};
    op_context *ctx = NULL;
    simple_call c;
    int64_t axes[1] = {1};
    simple_call_init(&c, &rng);
    assert_int_equal(op_context_create(&ctx), OP_OK);
    assert_int_equal(op_context_set_input(ctx, 0, &c.x.t), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &c.y.t), OP_OK);
    assert_int_equal(op_context_set_attr_ints(ctx, "axes", axes, 1), OP_OK);
    axes[0] = 0; /* the caller's array changes after the call */
    /* run */
    op_status st = op_run("ReduceSum", ctx);
    /* check */
    assert_int_equal(st, OP_OK);
    simple_call_check(&c);
    ts_buf_free(&c.out);
    op_context_destroy(ctx);
}

typedef enum attr_kind {
    ATTR_INT,
    ATTR_INTS,
    ATTR_FLOAT
} attr_kind;

typedef struct attr_name_case {
    const char *name;
    attr_kind kind;
    int name_len;     /* -1: NULL name; otherwise a name of that many 'a's */
    bool null_values; /* ints: pass v = NULL */
    size_t n;         /* ints: list length */
    op_status want;
} attr_name_case;

static const attr_name_case attr_name_cases[] = {
    {"int_null_name", ATTR_INT, -1, false, 0, OP_ERR_INVALID_ARGUMENT},
    {"int_empty_name", ATTR_INT, 0, false, 0, OP_ERR_INVALID_ARGUMENT},
    {"int_name_63_bytes", ATTR_INT, 63, false, 0, OP_OK},
    {"int_name_64_bytes", ATTR_INT, 64, false, 0, OP_ERR_INVALID_ARGUMENT},
    {"float_null_name", ATTR_FLOAT, -1, false, 0, OP_ERR_INVALID_ARGUMENT},
    {"float_empty_name", ATTR_FLOAT, 0, false, 0, OP_ERR_INVALID_ARGUMENT},
    {"float_name_63_bytes", ATTR_FLOAT, 63, false, 0, OP_OK},
    {"float_name_64_bytes", ATTR_FLOAT, 64, false, 0, OP_ERR_INVALID_ARGUMENT},
    {"ints_null_name", ATTR_INTS, -1, false, 2, OP_ERR_INVALID_ARGUMENT},
    {"ints_empty_name", ATTR_INTS, 0, false, 2, OP_ERR_INVALID_ARGUMENT},
    {"ints_name_64_bytes", ATTR_INTS, 64, false, 2, OP_ERR_INVALID_ARGUMENT},
    {"ints_null_empty_list", ATTR_INTS, 4, true, 0, OP_OK},
    {"ints_null_nonempty_list", ATTR_INTS, 4, true, 2, OP_ERR_INVALID_ARGUMENT},
    {"ints_longest_list", ATTR_INTS, 4, false, OP_MAX_DIMS * 4, OP_OK},
    {"ints_list_too_long", ATTR_INTS, 4, false, OP_MAX_DIMS * 4 + 1, OP_ERR_INVALID_ARGUMENT},
};

static void set_attr__name_and_list_rules(void **state)
{
    const attr_name_case *c = *state;
    /* set up */
    op_context *ctx = NULL;
    char name[80];
    int64_t values[OP_MAX_DIMS * 4 + 1];
    for (size_t i = 0; i < N_OF(values); i++)
        values[i] = (int64_t)i;
    if (c->name_len >= 0) {
        memset(name, 'a', (size_t)c->name_len);
        name[c->name_len] = '\0';
    }
    const char *nm = c->name_len < 0 ? NULL : name;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    /* run */
    op_status st = c->kind == ATTR_INT ? op_context_set_attr_int(ctx, nm, 1)
                   : c->kind == ATTR_FLOAT
                       ? op_context_set_attr_float(ctx, nm, 1.5)
                       : op_context_set_attr_ints(ctx, nm, c->null_values ? NULL : values, c->n);
    /* check */
    assert_int_equal(st, c->want);
    if (c->want == OP_OK)
        assert_string_equal(op_context_error(ctx), "");
    else
        assert_string_not_equal(op_context_error(ctx), "");
    op_context_destroy(ctx);
}

/* --- stream and clear (observed through a host op whose kernel records what it sees) ---------- */

static void *probe_stream_seen;
static int probe_calls;

static op_status probe_infer(op_kernel_ctx *kc, int index, int32_t *ndim, int64_t *shape,
                             DLDataType *dtype)
{
    const DLTensor *x = op_kernel_input(kc, 0);
    if (index != 0 || !x)
        return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT, "probe: bad index %d", index);
    *ndim = x->ndim;
    for (int i = 0; i < x->ndim; i++)
        shape[i] = x->shape[i];
    *dtype = x->dtype;
    return OP_OK;
}

static op_status probe_kernel(op_kernel_ctx *kc)
{
    probe_calls++;
    probe_stream_seen = op_kernel_stream(kc);
    return OP_OK;
}

static void probe_register(void)
{
    static bool done;
    if (done)
        return;
    static const op_schema schema = {
        "TestContextProbe", "records the stream it runs with", 1, 1, NULL, 0, probe_infer};
    assert_int_equal(op_register_op(NULL, &schema), OP_OK);
    assert_int_equal(op_register_kernel(NULL, "TestContextProbe", kDLCPU, F32, probe_kernel, NULL),
                     OP_OK);
    done = true;
}

static void set_stream__reaches_kernel_and_survives_clear(void **state)
{
    (void)state;
    /* set up */
    static int fake_stream_object; /* only compared, never used as a stream: the op runs on CPU */
    void *stream = &fake_stream_object;
    op_context *ctx = NULL;
    float in[3] = {1, 2, 3}, out[3];
    static const int64_t shape[1] = {3};
    ts_tensor x, y;
    ts_tensor_init(&x, in, kDLCPU, F32, 1, shape, NULL);
    ts_tensor_init(&y, out, kDLCPU, F32, 1, shape, NULL);
    probe_register();
    assert_int_equal(op_context_create(&ctx), OP_OK);
    assert_int_equal(op_context_set_input(ctx, 0, &x.t), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &y.t), OP_OK);
    /* run: default stream first, then a set one, then after clear */
    probe_stream_seen = stream;
    assert_int_equal(op_run("TestContextProbe", ctx), OP_OK);
    void *seen_default = probe_stream_seen;
    assert_int_equal(op_context_set_stream(ctx, stream), OP_OK);
    assert_string_equal(op_context_error(ctx), "");
    assert_int_equal(op_run("TestContextProbe", ctx), OP_OK);
    void *seen_set = probe_stream_seen;
    op_context_clear(ctx);
    probe_stream_seen = NULL;
    assert_int_equal(op_context_set_input(ctx, 0, &x.t), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &y.t), OP_OK);
    assert_int_equal(op_run("TestContextProbe", ctx), OP_OK);
    void *seen_after_clear = probe_stream_seen;
    assert_int_equal(op_context_set_stream(ctx, NULL), OP_OK);
    assert_int_equal(op_run("TestContextProbe", ctx), OP_OK);
    void *seen_reset = probe_stream_seen;
    /* check */
    assert_null(seen_default);
    assert_ptr_equal(seen_set, stream);
    assert_ptr_equal(seen_after_clear, stream);
    assert_null(seen_reset);
    assert_true(probe_calls >= 4);
    op_context_destroy(ctx);
}

static void clear__drops_tensors_and_attrs(void **state)
{
    (void)state;
    /* set up */
    ts_rng rng = {ts_seed("clear__drops_tensors_and_attrs")};
    op_context *ctx = NULL;
    simple_call c;
    simple_call_init(&c, &rng);
    assert_int_equal(op_context_create(&ctx), OP_OK);
    simple_call_bind(ctx, &c);
    assert_int_equal(op_context_set_attr_int(ctx, "keepdims", 0), OP_OK);
    assert_int_equal(op_context_set_attr_int(ctx, "an_attribute_no_op_has", 1), OP_OK);
    /* run */
    op_context_clear(ctx);
    op_status run_st = op_run("ReduceSum", ctx);
    const char *run_msg = op_context_error(ctx);
    char msg_copy[512];
    snprintf(msg_copy, sizeof msg_copy, "%s", run_msg);
    int32_t ndim;
    int64_t shape[OP_MAX_DIMS];
    DLDataType dt;
    op_status infer_st = op_infer_output("ReduceSum", ctx, 0, &ndim, shape, &dt);
    /* check: nothing bound, no attributes left (the unknown one would be NOT_FOUND) */
    assert_int_equal(run_st, OP_ERR_INVALID_ARGUMENT);
    if (!strstr(msg_copy, "input"))
        fail_msg("message \"%s\" does not name the missing input", msg_copy);
    assert_int_equal(infer_st, OP_ERR_INVALID_ARGUMENT);
    /* rebinding the tensors only: keepdims is back at its default 1, axes absent (reduce all) */
    assert_int_equal(op_context_set_input(ctx, 0, &c.x.t), OP_OK);
    static const int64_t all_kept[3] = {1, 1, 1};
    expect_infer_shape(ctx, "ReduceSum", 3, all_kept);
    ts_buf_free(&c.out);
    op_context_destroy(ctx);
}

static void clear__context_reusable(void **state)
{
    (void)state;
    /* set up */
    ts_rng rng = {ts_seed("clear__context_reusable")};
    op_context *ctx = NULL;
    simple_call c;
    simple_call_init(&c, &rng);
    assert_int_equal(op_context_create(&ctx), OP_OK);
    for (int round = 0; round < 3; round++) {
        /* run */
        simple_call_bind(ctx, &c);
        op_status st = op_run("ReduceSum", ctx);
        /* check */
        assert_int_equal(st, OP_OK);
        assert_string_equal(op_context_error(ctx), "");
        simple_call_check(&c);
        op_context_clear(ctx);
        memset(c.out.data, 0x5A, c.out.bytes);
    }
    ts_buf_free(&c.out);
    op_context_destroy(ctx);
}

/* op_run remembers the op a name found, that the attributes passed its schema, and the reduce
 * mask and keepdims; each step below changes one thing those depend on after a call that passed,
 * and must see the change: new axes, keepdims, the input's rank, an op whose schema lacks an
 * attribute, cleared attributes, a reduce op with other defaults, an unknown attribute, and an op
 * unregistered and registered again under the same name. */
static int memo_probe_calls[2];

static op_status memo_probe_kernel0(op_kernel_ctx *kc)
{
    (void)kc;
    memo_probe_calls[0]++;
    return OP_OK;
}

static op_status memo_probe_kernel1(op_kernel_ctx *kc)
{
    (void)kc;
    memo_probe_calls[1]++;
    return OP_OK;
}

static void memo_probe_register(op_kernel_fn fn)
{
    static const op_schema schema = {
        "TestContextMemoProbe", "counts its calls", 1, 1, NULL, 0, probe_infer};
    assert_int_equal(op_register_op(NULL, &schema), OP_OK);
    assert_int_equal(op_register_kernel(NULL, "TestContextMemoProbe", kDLCPU, F32, fn, NULL),
                     OP_OK);
}

/* A reduce op whose keepdims defaults to 0 (the built-ins' to 1), inferred by op_reduce_infer. */
static op_status memo_reduce_kernel(op_kernel_ctx *kc)
{
    (void)kc;
    return OP_OK;
}

static void memo_reduce_register(void)
{
    static bool done;
    static const op_attr_def attrs[] = {{"axes", OP_ATTR_INTS, 0, 0.0},
                                        {"keepdims", OP_ATTR_INT, 0, 0.0},
                                        {"noop_with_empty_axes", OP_ATTR_INT, 0, 0.0}};
    static const op_schema schema = {
        "TestContextMemoReduce", "keepdims 0 by default", 1, 1, attrs, 3, op_reduce_infer};
    if (done)
        return;
    assert_int_equal(op_register_op(NULL, &schema), OP_OK);
    assert_int_equal(
        op_register_kernel(NULL, "TestContextMemoReduce", kDLCPU, F32, memo_reduce_kernel, NULL),
        OP_OK);
    done = true;
}

static void expect_run(op_context *ctx, const char *op, op_status want, const char *needle)
{
    op_status st = op_run(op, ctx);
    if (st != want || (needle && !strstr(op_context_error(ctx), needle)))
        fail_msg("%s: status %d (want %d), message \"%s\" (want \"%s\")", op, (int)st, (int)want,
                 op_context_error(ctx), needle ? needle : "");
}

static void expect_out(const simple_call *c, const float *out, ts_op op, uint32_t mask, int64_t n,
                       const char *what)
{
    double ref[24];
    assert_int_equal(ts_reference(op, &c->x.t, mask, ref, NULL), n);
    assert_true(ts_check(what, out, F32, n, ref, NULL, 24, op));
}

static void run__repeated_calls_follow_changes(void **state)
{
    (void)state;
    /* set up */
    ts_rng rng = {ts_seed("run__repeated_calls_follow_changes")};
    op_context *ctx = NULL;
    simple_call c;
    float out[24];
    static const int64_t axes02[2] = {0, 2}, axes1[1] = {1}, s131[3] = {1, 3, 1}, s3[1] = {3},
                         s64[2] = {6, 4}, s1[1] = {1};
    ts_tensor y131, y3, x64, y1;
    simple_call_init(&c, &rng);
    ts_tensor_init(&y131, out, kDLCPU, F32, 3, s131, NULL);
    ts_tensor_init(&y3, out, kDLCPU, F32, 1, s3, NULL);
    ts_tensor_init(&x64, c.in, kDLCPU, F32, 2, s64, NULL);
    ts_tensor_init(&y1, out, kDLCPU, F32, 1, s1, NULL);
    probe_register();
    memo_reduce_register();
    assert_int_equal(op_context_create(&ctx), OP_OK);
    simple_call_bind(ctx, &c);

    /* run and check, one change a step */
    expect_run(ctx, "ReduceSum", OP_OK, NULL);
    simple_call_check(&c);
    /* other axes (and an output of their shape) */
    assert_int_equal(op_context_set_attr_ints(ctx, "axes", axes02, 2), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &y131.t), OP_OK);
    expect_run(ctx, "ReduceSum", OP_OK, NULL);
    expect_out(&c, out, TS_SUM, 5u, 3, "ReduceSum [2,3,4] axes 0,2");
    /* keepdims 0: the bound [1, 3, 1] output no longer fits */
    assert_int_equal(op_context_set_attr_int(ctx, "keepdims", 0), OP_OK);
    expect_run(ctx, "ReduceSum", OP_ERR_INVALID_ARGUMENT, "expected [3]");
    assert_int_equal(op_context_set_output(ctx, 0, &y3.t), OP_OK);
    expect_run(ctx, "ReduceSum", OP_OK, NULL);
    expect_out(&c, out, TS_SUM, 5u, 3, "ReduceSum [2,3,4] axes 0,2 keepdims 0");
    /* another reduce op on the same context and attributes */
    expect_run(ctx, "ReduceMax", OP_OK, NULL);
    expect_out(&c, out, TS_MAX, 5u, 3, "ReduceMax [2,3,4] axes 0,2 keepdims 0");
    /* an op without these attributes, right after a call whose attributes passed */
    expect_run(ctx, "TestContextProbe", OP_ERR_NOT_FOUND, "'axes'");
    /* a rank-2 input with the same attributes: axis 2 is out of range now */
    assert_int_equal(op_context_set_input(ctx, 0, &x64.t), OP_OK);
    expect_run(ctx, "ReduceMax", OP_ERR_INVALID_ARGUMENT, "axis 2");
    assert_int_equal(op_context_set_input(ctx, 0, &c.x.t), OP_OK);
    expect_run(ctx, "ReduceMax", OP_OK, NULL);
    /* cleared attributes right after a call that passed: every axis, keepdims back at 1 */
    op_context_clear(ctx);
    assert_int_equal(op_context_set_input(ctx, 0, &c.x.t), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &y3.t), OP_OK);
    expect_run(ctx, "ReduceMax", OP_ERR_INVALID_ARGUMENT, "expected [1, 1, 1]");
    assert_int_equal(op_context_set_attr_int(ctx, "keepdims", 0), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &y1.t), OP_OK);
    expect_run(ctx, "ReduceMax", OP_ERR_INVALID_ARGUMENT, "expected []");
    /* a reduce op whose keepdims defaults to 0, after a built-in's call with the default 1 */
    op_context_clear(ctx);
    assert_int_equal(op_context_set_input(ctx, 0, &c.x.t), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &c.y.t), OP_OK);
    assert_int_equal(op_context_set_attr_ints(ctx, "axes", axes1, 1), OP_OK);
    expect_run(ctx, "ReduceSum", OP_OK, NULL);
    simple_call_check(&c);
    expect_run(ctx, "TestContextMemoReduce", OP_ERR_INVALID_ARGUMENT, "expected [2, 4]");
    /* an attribute no op has, after a call whose attributes passed */
    expect_run(ctx, "ReduceSum", OP_OK, NULL);
    assert_int_equal(op_context_set_attr_int(ctx, "an_attribute_no_op_has", 1), OP_OK);
    expect_run(ctx, "ReduceSum", OP_ERR_NOT_FOUND, "an_attribute_no_op_has");
    /* an op unregistered after a call found it, then registered again with another kernel */
    op_context_clear(ctx);
    assert_int_equal(op_context_set_input(ctx, 0, &c.x.t), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &c.x.t), OP_OK);
    memo_probe_register(memo_probe_kernel0);
    expect_run(ctx, "TestContextMemoProbe", OP_OK, NULL);
    assert_int_equal(op_unregister_op("TestContextMemoProbe"), OP_OK);
    expect_run(ctx, "TestContextMemoProbe", OP_ERR_NOT_FOUND, "TestContextMemoProbe");
    memo_probe_register(memo_probe_kernel1);
    expect_run(ctx, "TestContextMemoProbe", OP_OK, NULL);
    assert_int_equal(memo_probe_calls[0], 1);
    assert_int_equal(memo_probe_calls[1], 1);
    assert_int_equal(op_unregister_op("TestContextMemoProbe"), OP_OK);
    ts_buf_free(&c.out);
    op_context_destroy(ctx);
}

/* --- op_context_error ------------------------------------------------------------------------- */

static void context_error__empty_after_success_message_after_failure(void **state)
{
    (void)state;
    /* set up */
    ts_rng rng = {ts_seed("context_error__empty_after_success_message_after_failure")};
    op_context *ctx = NULL;
    simple_call c;
    simple_call_init(&c, &rng);
    assert_int_equal(op_context_create(&ctx), OP_OK);
    /* run, check: failure (axis out of range) -> message naming op and value */
    simple_call_bind(ctx, &c);
    static const int64_t bad_axes[1] = {3};
    assert_int_equal(op_context_set_attr_ints(ctx, "axes", bad_axes, 1), OP_OK);
    assert_int_equal(op_run("ReduceSum", ctx), OP_ERR_INVALID_ARGUMENT);
    const char *msg = op_context_error(ctx);
    assert_non_null(msg);
    if (!strstr(msg, "ReduceSum") || !strstr(msg, "3"))
        fail_msg("message \"%s\" does not name ReduceSum and axis 3", msg);
    /* a successful setter clears it */
    static const int64_t good_axes[1] = {1};
    assert_int_equal(op_context_set_attr_ints(ctx, "axes", good_axes, 1), OP_OK);
    assert_string_equal(op_context_error(ctx), "");
    /* another failure, then a successful run clears it */
    assert_int_equal(op_run("NoSuchOp", ctx), OP_ERR_NOT_FOUND);
    assert_string_not_equal(op_context_error(ctx), "");
    assert_int_equal(op_run("ReduceSum", ctx), OP_OK);
    assert_string_equal(op_context_error(ctx), "");
    simple_call_check(&c);
    /* a failed setter leaves a message too */
    assert_int_equal(op_context_set_input(ctx, -1, &c.x.t), OP_ERR_INVALID_ARGUMENT);
    assert_string_not_equal(op_context_error(ctx), "");
    /* and a successful op_infer_output clears it */
    static const int64_t want[3] = {2, 1, 4};
    expect_infer_shape(ctx, "ReduceSum", 3, want);
    assert_string_equal(op_context_error(ctx), "");
    ts_buf_free(&c.out);
    op_context_destroy(ctx);
}

/* --- a NULL context to every function --------------------------------------------------------- */

static void null_context__every_function_rejects(void **state)
{
    (void)state;
    /* set up */
    float data[2] = {1, 2};
    static const int64_t shape[1] = {2}, axes[1] = {0};
    ts_tensor x;
    ts_tensor_init(&x, data, kDLCPU, F32, 1, shape, NULL);
    int32_t ndim = 77;
    int64_t oshape[OP_MAX_DIMS] = {77};
    DLDataType dt = {9, 9, 9};
    /* run, check */
    assert_int_equal(op_context_set_input(NULL, 0, &x.t), OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(op_context_set_output(NULL, 0, &x.t), OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(op_context_set_attr_int(NULL, "keepdims", 1), OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(op_context_set_attr_ints(NULL, "axes", axes, 1), OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(op_context_set_attr_float(NULL, "alpha", 1.0), OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(op_context_set_stream(NULL, NULL), OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(op_run("ReduceSum", NULL), OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(op_infer_output("ReduceSum", NULL, 0, &ndim, oshape, &dt),
                     OP_ERR_INVALID_ARGUMENT);
    op_context_clear(NULL);
    op_context_destroy(NULL);
    assert_non_null(op_context_error(NULL));
    /* out-parameters are written only on success */
    assert_int_equal(ndim, 77);
    assert_int_equal(oshape[0], 77);
    assert_int_equal(dt.code, 9);
}

/* --- contexts on several threads -------------------------------------------------------------- */

typedef struct thread_job {
    uint64_t seed;
    int failures;
} thread_job;

static void *thread_run_many(void *arg)
{
    thread_job *job = arg;
    ts_rng rng = {job->seed};
    op_context *ctx = NULL;
    if (op_context_create(&ctx) != OP_OK) {
        job->failures++;
        return NULL;
    }
    enum {
        ROWS = 37,
        COLS = 129
    };
    float *in = malloc(sizeof(float) * ROWS * COLS), out[ROWS];
    double ref[ROWS];
    static const int64_t shape[2] = {ROWS, COLS}, oshape[1] = {ROWS}, axes[1] = {-1};
    ts_tensor x, y;
    ts_tensor_init(&x, in, kDLCPU, F32, 2, shape, NULL);
    ts_tensor_init(&y, out, kDLCPU, F32, 1, oshape, NULL);
    for (int it = 0; it < 50 && in; it++) {
        ts_fill_random(&rng, in, F32, ROWS * COLS, 1.0);
        op_context_clear(ctx);
        if (op_context_set_input(ctx, 0, &x.t) || op_context_set_output(ctx, 0, &y.t) ||
            op_context_set_attr_ints(ctx, "axes", axes, 1) ||
            op_context_set_attr_int(ctx, "keepdims", 0) || op_run("ReduceSum", ctx)) {
            job->failures++;
            continue;
        }
        ts_reference(TS_SUM, &x.t, 1u << 1, ref, NULL);
        /* f32 sums of 129 values: ts_check's f32 tolerance */
        if (!ts_check("thread ReduceSum", out, F32, ROWS, ref, NULL, COLS, TS_SUM))
            job->failures++;
    }
    free(in);
    op_context_destroy(ctx);
    return NULL;
}

static void run__contexts_on_threads_independent(void **state)
{
    (void)state;
    /* set up */
    uint64_t seed = ts_seed("run__contexts_on_threads_independent");
    enum {
        THREADS = 4
    };
    pthread_t th[THREADS];
    thread_job jobs[THREADS];
    /* run */
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (thread_job){seed + (uint64_t)i * 7919u, 0};
        assert_int_equal(pthread_create(&th[i], NULL, thread_run_many, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    /* check */
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(jobs[i].failures, 0);
}

/* --- rank 0 with shape == NULL ------------------------------------------------------------ */

static void set_input__rank0_null_shape(void **state)
{
    (void)state;
    /* set up: DLPack producers may leave shape NULL for a rank-0 tensor */
    op_context *ctx = NULL;
    double in = 2.5, out = 0.0;
    DLTensor x = {&in, {kDLCPU, 0}, 0, {kDLFloat, 64, 1}, NULL, NULL, 0};
    DLTensor y = {&out, {kDLCPU, 0}, 0, {kDLFloat, 64, 1}, NULL, NULL, 0};
    assert_int_equal(op_context_create(&ctx), OP_OK);
    /* run */
    op_status st_in = op_context_set_input(ctx, 0, &x);
    op_status st_out = op_context_set_output(ctx, 0, &y);
    op_status st_run = op_run("ReduceSum", ctx);
    /* check */
    assert_int_equal(st_in, OP_OK);
    assert_int_equal(st_out, OP_OK);
    assert_int_equal(st_run, OP_OK);
    assert_true(out == 2.5);
    op_context_destroy(ctx);
}

int main(void)
{
    struct CMUnitTest tests[128];
    size_t n = 0;
    ADD_TEST(tests, n, context_create__returns_context_without_error);
    ADD_TEST(tests, n, context_create__null_out_rejected);
    ADD_TEST(tests, n, context_destroy__null_is_fine);
    ADD_TEST(tests, n, context_create__many_contexts_independent);
    ADD_CASES(tests, n, set_tensor__bounds, bind_cases);
    ADD_TEST(tests, n, set_input__copies_shape_and_strides);
    ADD_TEST(tests, n, set_input__rebinding_replaces_tensor);
    ADD_TEST(tests, n, set_attr__replaces_earlier_value);
    ADD_TEST(tests, n, set_attr__copies_list);
    ADD_CASES(tests, n, set_attr__name_and_list_rules, attr_name_cases);
    ADD_TEST(tests, n, set_stream__reaches_kernel_and_survives_clear);
    ADD_TEST(tests, n, clear__drops_tensors_and_attrs);
    ADD_TEST(tests, n, clear__context_reusable);
    ADD_TEST(tests, n, context_error__empty_after_success_message_after_failure);
    ADD_TEST(tests, n, null_context__every_function_rejects);
    ADD_TEST(tests, n, run__contexts_on_threads_independent);
    ADD_TEST(tests, n, run__repeated_calls_follow_changes);
    /* last: under UBSan with -fno-sanitize-recover a library fault here ends the program */
    ADD_TEST(tests, n, set_input__rank0_null_shape);
    return _cmocka_run_group_tests("test_context", tests, n, NULL, NULL);
}
