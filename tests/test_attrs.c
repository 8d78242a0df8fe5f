/* Attributes of the built-in reductions: unknown names (NOT_FOUND), wrong types and bad values
 * (INVALID_ARGUMENT), defaults (keepdims 1, noop_with_empty_axes 0), and how axes, keepdims and
 * noop_with_empty_axes shape the result. Black-box: public headers and tests/support only. */
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

/* The input every test here uses: [2, 3, 4] of `dtype`, random; an output buffer with room for
 * 24 elements and guard bytes after it. */
typedef struct fixture {
    op_context *ctx;
    DLDataType dt;
    double in[24]; /* room for 24 elements of any dtype, aligned */
    ts_buf out;
    ts_tensor x;
} fixture;

static void fixture_init(fixture *f, const char *test, DLDataType dt)
{
    static const int64_t shape[3] = {2, 3, 4};
    ts_rng rng = {ts_seed(test)};
    f->dt = dt;
    ts_fill_random(&rng, f->in, dt, 24, 1.0);
    f->out = ts_buf_alloc(24 * ts_dtype_size(dt));
    assert_non_null(f->out.data);
    ts_tensor_init(&f->x, f->in, kDLCPU, dt, 3, shape, NULL);
    assert_int_equal(op_context_create(&f->ctx), OP_OK);
    assert_int_equal(op_context_set_input(f->ctx, 0, &f->x.t), OP_OK);
}

static void fixture_bind_output(fixture *f, ts_tensor *y, int32_t ndim, const int64_t *shape)
{
    ts_tensor_init(y, f->out.data, kDLCPU, f->dt, ndim, shape, NULL);
    assert_int_equal(op_context_set_output(f->ctx, 0, &y->t), OP_OK);
}

static void fixture_free(fixture *f)
{
    op_context_destroy(f->ctx);
    ts_buf_free(&f->out);
}

/* The output buffer still holds the 0x5A fill and its guard is intact. */
static void assert_output_untouched(const fixture *f)
{
    const unsigned char *p = f->out.data;
    for (size_t i = 0; i < f->out.bytes; i++)
        if (p[i] != 0x5A)
            fail_msg("output byte %zu written by a failing call", i);
    assert_true(ts_buf_guard_ok(&f->out));
}

typedef enum attr_kind {
    ATTR_INT,
    ATTR_INTS,
    ATTR_FLOAT
} attr_kind;

static op_status set_attr(op_context *ctx, attr_kind kind, const char *name, int64_t v)
{
    int64_t list[2] = {v, v};
    switch (kind) {
    case ATTR_INT:
        return op_context_set_attr_int(ctx, name, v);
    case ATTR_FLOAT:
        return op_context_set_attr_float(ctx, name, (double)v);
    case ATTR_INTS:
        return op_context_set_attr_ints(ctx, name, list, 1);
    }
    return OP_ERR_INTERNAL;
}

/* --- unknown attribute names ------------------------------------------------------------------ */

typedef struct unknown_case {
    const char *name;
    const char *op;
    const char *attr;
    attr_kind kind;
} unknown_case;

static const unknown_case unknown_cases[] = {
    {"sum_misspelled_keepdims", "ReduceSum", "keep_dims", ATTR_INT},
    {"sum_wrong_case", "ReduceSum", "Keepdims", ATTR_INT},
    {"mean_argmax_axis", "ReduceMean", "axis", ATTR_INT},
    {"max_select_last_index", "ReduceMax", "select_last_index", ATTR_INT},
    {"min_float_alpha", "ReduceMin", "alpha", ATTR_FLOAT},
    {"prod_axes_list", "ReduceProd", "axes_list", ATTR_INTS},
};

static void attr__unknown_name_not_found(void **state)
{
    const unknown_case *c = *state;
    /* set up: a valid call plus one attribute the op does not define */
    fixture f;
    ts_tensor y;
    static const int64_t oshape[3] = {1, 1, 1};
    fixture_init(&f, "attr__unknown_name_not_found", ts_dtype("f32"));
    fixture_bind_output(&f, &y, 3, oshape);
    assert_int_equal(set_attr(f.ctx, c->kind, c->attr, 0), OP_OK);
    /* run */
    op_status run_st = op_run(c->op, f.ctx);
    char run_msg[512];
    snprintf(run_msg, sizeof run_msg, "%s", op_context_error(f.ctx));
    int32_t ndim = 99;
    int64_t shape[OP_MAX_DIMS];
    DLDataType dt;
    op_status infer_st = op_infer_output(c->op, f.ctx, 0, &ndim, shape, &dt);
    const char *infer_msg = op_context_error(f.ctx);
    /* check */
    assert_int_equal(run_st, OP_ERR_NOT_FOUND);
    ASSERT_MSG_HAS(run_msg, c->op);
    ASSERT_MSG_HAS(run_msg, c->attr);
    assert_int_equal(infer_st, OP_ERR_NOT_FOUND);
    ASSERT_MSG_HAS(infer_msg, c->op);
    ASSERT_MSG_HAS(infer_msg, c->attr);
    assert_int_equal(ndim, 99); /* written only on success */
    assert_output_untouched(&f);
    fixture_free(&f);
}

/* --- wrong attribute types -------------------------------------------------------------------- */

typedef struct type_case {
    const char *name;
    const char *op;
    const char *attr;
    attr_kind kind; /* the wrong kind it is set with */
    int64_t value;
} type_case;

static const type_case type_cases[] = {
    {"axes_as_int", "ReduceSum", "axes", ATTR_INT, 1},
    {"axes_as_float", "ReduceMean", "axes", ATTR_FLOAT, 1},
    {"keepdims_as_float", "ReduceMax", "keepdims", ATTR_FLOAT, 1},
    {"keepdims_as_ints", "ReduceMin", "keepdims", ATTR_INTS, 1},
    {"noop_as_float", "ReduceProd", "noop_with_empty_axes", ATTR_FLOAT, 0},
    {"noop_as_ints", "ReduceSum", "noop_with_empty_axes", ATTR_INTS, 0},
};

static void attr__wrong_type_invalid(void **state)
{
    const type_case *c = *state;
    /* set up */
    fixture f;
    ts_tensor y;
    static const int64_t oshape[3] = {2, 1, 4};
    fixture_init(&f, "attr__wrong_type_invalid", ts_dtype("f32"));
    fixture_bind_output(&f, &y, 3, oshape);
    assert_int_equal(set_attr(f.ctx, c->kind, c->attr, c->value), OP_OK);
    /* run */
    op_status run_st = op_run(c->op, f.ctx);
    char run_msg[512];
    snprintf(run_msg, sizeof run_msg, "%s", op_context_error(f.ctx));
    int32_t ndim;
    int64_t shape[OP_MAX_DIMS];
    DLDataType dt;
    op_status infer_st = op_infer_output(c->op, f.ctx, 0, &ndim, shape, &dt);
    const char *infer_msg = op_context_error(f.ctx);
    /* check */
    assert_int_equal(run_st, OP_ERR_INVALID_ARGUMENT);
    ASSERT_MSG_HAS(run_msg, c->op);
    ASSERT_MSG_HAS(run_msg, c->attr);
    assert_int_equal(infer_st, OP_ERR_INVALID_ARGUMENT);
    ASSERT_MSG_HAS(infer_msg, c->op);
    ASSERT_MSG_HAS(infer_msg, c->attr);
    assert_output_untouched(&f);
    fixture_free(&f);
}

/* --- bad values of the 0/1 attributes --------------------------------------------------------- */

typedef struct value_case {
    const char *name;
    const char *op;
    const char *attr;
    int64_t value;
    const char *value_text;
} value_case;

static const value_case value_cases[] = {
    {"keepdims_2", "ReduceSum", "keepdims", 2, "2"},
    {"keepdims_minus_1", "ReduceMean", "keepdims", -1, "-1"},
    {"keepdims_large", "ReduceMax", "keepdims", 1000000007, "1000000007"},
    {"noop_2", "ReduceMin", "noop_with_empty_axes", 2, "2"},
    {"noop_minus_1", "ReduceProd", "noop_with_empty_axes", -1, "-1"},
};

static void attr__flag_outside_0_1_invalid(void **state)
{
    const value_case *c = *state;
    /* set up */
    fixture f;
    ts_tensor y;
    static const int64_t oshape[3] = {2, 1, 4};
    static const int64_t axes[1] = {1};
    fixture_init(&f, "attr__flag_outside_0_1_invalid", ts_dtype("f32"));
    fixture_bind_output(&f, &y, 3, oshape);
    assert_int_equal(op_context_set_attr_ints(f.ctx, "axes", axes, 1), OP_OK);
    assert_int_equal(op_context_set_attr_int(f.ctx, c->attr, c->value), OP_OK);
    /* run */
    op_status run_st = op_run(c->op, f.ctx);
    char run_msg[512];
    snprintf(run_msg, sizeof run_msg, "%s", op_context_error(f.ctx));
    int32_t ndim;
    int64_t shape[OP_MAX_DIMS];
    DLDataType dt;
    op_status infer_st = op_infer_output(c->op, f.ctx, 0, &ndim, shape, &dt);
    /* check */
    assert_int_equal(run_st, OP_ERR_INVALID_ARGUMENT);
    ASSERT_MSG_HAS(run_msg, c->op);
    ASSERT_MSG_HAS(run_msg, c->attr);
    ASSERT_MSG_HAS(run_msg, c->value_text);
    assert_int_equal(infer_st, OP_ERR_INVALID_ARGUMENT);
    assert_output_untouched(&f);
    fixture_free(&f);
}

/* --- defaults and how the attributes shape the result ----------------------------------------- */

typedef struct shape_case {
    const char *name;
    const char *op;
    const char *dtype;
    int n_axes; /* -1: axes not set */
    int64_t axes[3];
    int keepdims; /* -1: not set (default 1) */
    int noop;     /* -1: not set (default 0) */
    int32_t want_ndim;
    int64_t want_shape[3];
    uint32_t mask; /* reduced dims of [2, 3, 4] for the reference */
} shape_case;

static const shape_case shape_cases[] = {
    /* defaults: keepdims 1, noop 0, axes absent = all */
    {"defaults_reduce_all_kept", "ReduceSum", "f32", -1, {0}, -1, -1, 3, {1, 1, 1}, 7},
    {"default_keepdims_one_axis", "ReduceMean", "f64", 1, {1}, -1, -1, 3, {2, 1, 4}, 2},
    {"default_noop_empty_axes_reduce_all", "ReduceMax", "f32", 0, {0}, -1, -1, 3, {1, 1, 1}, 7},
    {"default_noop_explicit_0", "ReduceMin", "i32", 0, {0}, 1, 0, 3, {1, 1, 1}, 7},
    {"keepdims_0_all", "ReduceProd", "f32", -1, {0}, 0, -1, 0, {0}, 7},
    {"keepdims_0_two_axes", "ReduceSum", "i64", 2, {2, 0}, 0, -1, 1, {3}, 5},
    {"keepdims_1_negative_axis", "ReduceMax", "f16", 1, {-1}, 1, -1, 3, {2, 3, 1}, 4},
    {"noop_1_empty_axes_copies", "ReduceSum", "f32", 0, {0}, -1, 1, 3, {2, 3, 4}, 0},
    {"noop_1_absent_axes_copies", "ReduceMean", "i32", -1, {0}, 0, 1, 3, {2, 3, 4}, 0},
    {"noop_1_ignored_with_axes", "ReduceMin", "bf16", 1, {0}, 0, 1, 2, {3, 4}, 1},
};

static void attr__shape_the_result(void **state)
{
    const shape_case *c = *state;
    /* set up */
    fixture f;
    ts_tensor y;
    fixture_init(&f, "attr__shape_the_result", ts_dtype(c->dtype));
    if (c->n_axes >= 0)
        assert_int_equal(
            op_context_set_attr_ints(f.ctx, "axes", c->n_axes ? c->axes : NULL, (size_t)c->n_axes),
            OP_OK);
    if (c->keepdims >= 0)
        assert_int_equal(op_context_set_attr_int(f.ctx, "keepdims", c->keepdims), OP_OK);
    if (c->noop >= 0)
        assert_int_equal(op_context_set_attr_int(f.ctx, "noop_with_empty_axes", c->noop), OP_OK);
    /* run: infer, then run into an output of the inferred shape */
    int32_t ndim = -1;
    int64_t shape[OP_MAX_DIMS];
    DLDataType dt = {0, 0, 0};
    op_status infer_st = op_infer_output(c->op, f.ctx, 0, &ndim, shape, &dt);
    assert_int_equal(infer_st, OP_OK);
    fixture_bind_output(&f, &y, c->want_ndim, c->want_shape);
    op_status run_st = op_run(c->op, f.ctx);
    /* check */
    assert_int_equal(ndim, c->want_ndim);
    for (int i = 0; i < c->want_ndim; i++)
        assert_int_equal(shape[i], c->want_shape[i]);
    assert_int_equal(dt.code, f.dt.code);
    assert_int_equal(dt.bits, f.dt.bits);
    assert_int_equal(dt.lanes, 1);
    assert_int_equal(run_st, OP_OK);
    assert_string_equal(op_context_error(f.ctx), "");
    double ref_f[24];
    int64_t ref_i[24];
    ts_op op = ts_op_from_name(c->op);
    int64_t n = ts_reference(op, &f.x.t, c->mask, ref_f, ref_i);
    assert_int_equal(n, ts_numel(c->want_ndim, c->want_shape));
    int64_t red = 24 / n;
    /* per-dtype tolerance of ts_check (f32 1e-5, f64 1e-12, f16 1e-3, bf16 8e-3 relative; ints
     * exact; Max/Min exact) */
    assert_true(ts_check(c->name, f.out.data, f.dt, n, ref_f, ref_i, red, op));
    const unsigned char *rest = (const unsigned char *)f.out.data + n * ts_dtype_size(f.dt);
    for (size_t i = n * ts_dtype_size(f.dt); i < f.out.bytes; i++, rest++)
        if (*rest != 0x5A)
            fail_msg("byte %zu past the %lld outputs written", i, (long long)n);
    assert_true(ts_buf_guard_ok(&f.out));
    fixture_free(&f);
}

int main(void)
{
    struct CMUnitTest tests[64];
    size_t n = 0;
    ADD_CASES(tests, n, attr__unknown_name_not_found, unknown_cases);
    ADD_CASES(tests, n, attr__wrong_type_invalid, type_cases);
    ADD_CASES(tests, n, attr__flag_outside_0_1_invalid, value_cases);
    ADD_CASES(tests, n, attr__shape_the_result, shape_cases);
    return _cmocka_run_group_tests("test_attrs", tests, n, NULL, NULL);
}
