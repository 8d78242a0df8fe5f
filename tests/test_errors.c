/* Every bad input: the right status, a message naming the op, the argument and the value,
 * nothing written to the output (data and guard bytes), and the same context serving a valid call
 * afterwards with "" as its message. Black-box: public headers and tests/support only. */
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

static const DLDataType F32 = {kDLFloat, 32, 1};

/* --- the valid call every case starts from --------------------------------------------------
 * ReduceSum over axis 1 of a random f32 [2, 3, 4] input into a compact [2, 1, 4] output. The
 * output buffer has room for 64 eight-byte elements (so a wrongly shaped output that opnn
 * nevertheless wrote would stay inside it and show), then guard bytes. */
enum {
    OUT_ROOM = 64 * 8
};

typedef struct fixture {
    op_context *ctx;
    double in_store[32]; /* 24 f32 values, or room for other dtypes */
    ts_buf out;
    ts_tensor x, y;
    int64_t big_shape[OP_MAX_DIMS + 1];
    DLTensor big;
    ts_rng rng;
} fixture;

static const int64_t x_shape[3] = {2, 3, 4}, y_shape[3] = {2, 1, 4}, axis1[1] = {1};

static void fixture_tensors(fixture *f)
{
    ts_tensor_init(&f->x, f->in_store, kDLCPU, F32, 3, x_shape, NULL);
    ts_tensor_init(&f->y, f->out.data, kDLCPU, F32, 3, y_shape, NULL);
}

static void fixture_init(fixture *f, const char *test)
{
    memset(f, 0, sizeof *f);
    f->rng.s = ts_seed(test);
    ts_fill_random(&f->rng, f->in_store, F32, 24, 1.0);
    f->out = ts_buf_alloc(OUT_ROOM);
    assert_non_null(f->out.data);
    fixture_tensors(f);
    for (int i = 0; i <= OP_MAX_DIMS; i++)
        f->big_shape[i] = 1;
    f->big = (DLTensor){f->in_store, {kDLCPU, 0}, OP_MAX_DIMS + 1, F32, f->big_shape, NULL, 0};
    assert_int_equal(op_context_create(&f->ctx), OP_OK);
}

static void fixture_free(fixture *f)
{
    op_context_destroy(f->ctx);
    ts_buf_free(&f->out);
}

static op_status bind(fixture *f, const DLTensor *x, const DLTensor *y, const int64_t *axes,
                      size_t n_axes)
{
    op_status st;
    if (x && (st = op_context_set_input(f->ctx, 0, x)) != OP_OK)
        return st;
    if (y && (st = op_context_set_output(f->ctx, 0, y)) != OP_OK)
        return st;
    return op_context_set_attr_ints(f->ctx, "axes", axes, n_axes);
}

static op_status bind_valid(fixture *f)
{
    return bind(f, &f->x.t, &f->y.t, axis1, 1);
}

/* --- one bind function per fault -------------------------------------------------------------- */

static op_status bind_null_input_tensor(fixture *f)
{
    assert_int_equal(bind(f, NULL, &f->y.t, axis1, 1), OP_OK);
    return op_context_set_input(f->ctx, 0, NULL);
}

static op_status bind_null_output_tensor(fixture *f)
{
    assert_int_equal(bind(f, &f->x.t, NULL, axis1, 1), OP_OK);
    return op_context_set_output(f->ctx, 0, NULL);
}

static op_status bind_null_input_data(fixture *f)
{
    f->x.t.data = NULL;
    return bind_valid(f);
}

static op_status bind_null_output_data(fixture *f)
{
    f->y.t.data = NULL;
    return bind_valid(f);
}

/* data + byte_offset off the 4-byte elements' alignment */
static op_status bind_misaligned_input(fixture *f)
{
    f->x.t.byte_offset = 1;
    return bind_valid(f);
}

static op_status bind_misaligned_output(fixture *f)
{
    f->y.t.byte_offset = 2;
    return bind_valid(f);
}

static op_status bind_negative_input_dim(fixture *f)
{
    f->x.shape[1] = -3;
    return bind_valid(f);
}

/* empty, but the other dims multiply past int64 (their compact strides would overflow): a zero
 * first, or last */
static op_status bind_empty_input_huge_dims(fixture *f)
{
    f->x.shape[0] = 0;
    f->x.shape[1] = (int64_t)1 << 62;
    f->y.shape[0] = 0;
    return bind_valid(f);
}

static op_status bind_empty_input_huge_dims_zero_last(fixture *f)
{
    f->x.shape[0] = (int64_t)1 << 62;
    f->x.shape[2] = 0;
    f->y.shape[0] = (int64_t)1 << 62;
    f->y.shape[2] = 0;
    return bind_valid(f);
}

/* 16 dims of 19 digits, a zero first: the message names the whole shape, the last dim too */
static op_status bind_empty_input_16_long_dims(fixture *f)
{
    f->big.ndim = OP_MAX_DIMS;
    f->big_shape[0] = 0;
    for (int i = 1; i < OP_MAX_DIMS; i++)
        f->big_shape[i] = 1000000000000000000 + i;
    f->y.shape[0] = 0;
    assert_int_equal(bind(f, NULL, &f->y.t, axis1, 1), OP_OK);
    return op_context_set_input(f->ctx, 0, &f->big);
}

static op_status bind_negative_output_dim(fixture *f)
{
    f->y.shape[1] = -5;
    return bind_valid(f);
}

static op_status bind_output_f64(fixture *f)
{
    f->y.t.dtype = ts_dtype("f64");
    return bind_valid(f);
}

static op_status bind_output_i32(fixture *f)
{
    f->y.t.dtype = ts_dtype("i32");
    return bind_valid(f);
}

static op_status bind_output_shape_7(fixture *f)
{
    f->y.shape[1] = 7;
    return bind_valid(f);
}

static op_status bind_output_dim_dropped(fixture *f)
{
    f->y.t.ndim = 2;
    f->y.shape[1] = 4; /* [2, 4]: what keepdims 0 would give */
    return bind_valid(f);
}

static op_status bind_keepdims0_kept_output(fixture *f)
{
    assert_int_equal(bind_valid(f), OP_OK);
    return op_context_set_attr_int(f->ctx, "keepdims", 0);
}

static op_status bind_axis_3(fixture *f)
{
    static const int64_t axes[1] = {3};
    return bind(f, &f->x.t, &f->y.t, axes, 1);
}

static op_status bind_axis_minus_4(fixture *f)
{
    static const int64_t axes[1] = {-4};
    return bind(f, &f->x.t, &f->y.t, axes, 1);
}

static op_status bind_axis_large(fixture *f)
{
    static const int64_t axes[1] = {4294967297}; /* 2^32 + 1: wraps to 1 in 32 bits */
    return bind(f, &f->x.t, &f->y.t, axes, 1);
}

static op_status bind_axes_1_minus_2(fixture *f)
{
    static const int64_t axes[2] = {1, -2};
    return bind(f, &f->x.t, &f->y.t, axes, 2);
}

static op_status bind_axes_2_2(fixture *f)
{
    static const int64_t axes[2] = {2, 2};
    f->y.shape[1] = 3, f->y.shape[2] = 1;
    return bind(f, &f->x.t, &f->y.t, axes, 2);
}

static op_status bind_rank0_axis(fixture *f, int64_t axis)
{
    int64_t axes[1] = {axis};
    f->x.t.ndim = 0;
    f->y.t.ndim = 0;
    return bind(f, &f->x.t, &f->y.t, axes, 1);
}

static op_status bind_rank0_axis_0(fixture *f)
{
    return bind_rank0_axis(f, 0);
}

static op_status bind_rank0_axis_minus_1(fixture *f)
{
    return bind_rank0_axis(f, -1);
}

static op_status bind_missing_input(fixture *f)
{
    return bind(f, NULL, &f->y.t, axis1, 1);
}

static op_status bind_missing_output(fixture *f)
{
    return bind(f, &f->x.t, NULL, axis1, 1);
}

static op_status bind_extra_input(fixture *f)
{
    assert_int_equal(bind_valid(f), OP_OK);
    return op_context_set_input(f->ctx, 1, &f->x.t);
}

static op_status bind_extra_output(fixture *f)
{
    assert_int_equal(bind_valid(f), OP_OK);
    return op_context_set_output(f->ctx, 1, &f->y.t);
}

static op_status bind_dtype(fixture *f, DLDataType dt)
{
    f->x.t.dtype = dt;
    f->y.t.dtype = dt;
    return bind_valid(f);
}

static op_status bind_u8(fixture *f)
{
    return bind_dtype(f, (DLDataType){kDLUInt, 8, 1});
}

static op_status bind_i8(fixture *f)
{
    return bind_dtype(f, (DLDataType){kDLInt, 8, 1});
}

static op_status bind_i16(fixture *f)
{
    return bind_dtype(f, (DLDataType){kDLInt, 16, 1});
}

static op_status bind_complex64(fixture *f)
{
    return bind_dtype(f, (DLDataType){kDLComplex, 64, 1});
}

static op_status bind_lanes_4(fixture *f)
{
    return bind_dtype(f, (DLDataType){kDLFloat, 32, 4});
}

static op_status bind_output_on_cuda(fixture *f)
{
    f->y.t.device = (DLDevice){kDLCUDA, 0};
    return bind_valid(f);
}

static op_status bind_input_on_cuda(fixture *f)
{
    f->x.t.device = (DLDevice){kDLCUDA, 0};
    return bind_valid(f);
}

static op_status bind_input_17_dims(fixture *f)
{
    assert_int_equal(bind(f, NULL, &f->y.t, axis1, 1), OP_OK);
    return op_context_set_input(f->ctx, 0, &f->big);
}

static op_status bind_output_17_dims(fixture *f)
{
    assert_int_equal(bind(f, &f->x.t, NULL, axis1, 1), OP_OK);
    return op_context_set_output(f->ctx, 0, &f->big);
}

static op_status bind_int_mean_empty(fixture *f, const char *dtype)
{
    static const int64_t xs[3] = {3, 0, 2}, ys[3] = {3, 1, 2};
    ts_tensor_init(&f->x, f->in_store, kDLCPU, ts_dtype(dtype), 3, xs, NULL);
    ts_tensor_init(&f->y, f->out.data, kDLCPU, ts_dtype(dtype), 3, ys, NULL);
    return bind_valid(f);
}

static op_status bind_i32_mean_empty_axis(fixture *f)
{
    return bind_int_mean_empty(f, "i32");
}

static op_status bind_i64_mean_empty_axis(fixture *f)
{
    return bind_int_mean_empty(f, "i64");
}

static op_status bind_i64_mean_empty_all(fixture *f)
{
    static const int64_t xs[1] = {0};
    ts_tensor_init(&f->x, f->in_store, kDLCPU, ts_dtype("i64"), 1, xs, NULL);
    ts_tensor_init(&f->y, f->out.data, kDLCPU, ts_dtype("i64"), 0, NULL, NULL);
    assert_int_equal(bind(f, &f->x.t, &f->y.t, NULL, 0), OP_OK);
    return op_context_set_attr_int(f->ctx, "keepdims", 0);
}

static op_status bind_strided_output(fixture *f)
{
    static const int64_t strides[3] = {16, 16, 3}; /* every third element */
    ts_tensor_init(&f->y, f->out.data, kDLCPU, F32, 3, y_shape, strides);
    return bind_valid(f);
}

static op_status bind_transposed_output(fixture *f)
{
    static const int64_t ys[2] = {2, 4}, strides[2] = {1, 2};
    ts_tensor_init(&f->y, f->out.data, kDLCPU, F32, 2, ys, strides);
    assert_int_equal(bind_valid(f), OP_OK);
    return op_context_set_attr_int(f->ctx, "keepdims", 0);
}

static op_status bind_negative_input_stride(fixture *f)
{
    static const int64_t strides[3] = {12, -4, 1};
    ts_tensor_init(&f->x, (float *)f->in_store + 8, kDLCPU, F32, 3, x_shape, strides);
    return bind_valid(f);
}

/* --- the table -------------------------------------------------------------------------------- */

typedef enum stage {
    AT_BIND, /* a setter refuses it (no op known yet: the message names argument and value) */
    AT_RUN,  /* op_run refuses it */
    AT_ANY,  /* either: the contract does not say which */
} stage;

typedef struct err_case {
    const char *name;
    const char *op;
    op_status (*bind)(fixture *f);
    stage where;
    op_status want;
    op_status also;     /* another acceptable status (OP_OK: none) */
    bool infer_too;     /* op_infer_output fails the same way */
    const char *msg[4]; /* words the message must contain, '|' separating alternatives */
} err_case;

/* One case per row reads better than one field per line. */
/* clang-format off */
static const err_case err_cases[] = {
    {"null_input_tensor", "ReduceSum", bind_null_input_tensor, AT_BIND, OP_ERR_INVALID_ARGUMENT,
     OP_OK, false, {"input|tensor", "NULL|null"}},
    {"null_output_tensor", "ReduceSum", bind_null_output_tensor, AT_BIND,
     OP_ERR_INVALID_ARGUMENT, OP_OK, false, {"output|tensor", "NULL|null"}},
    {"null_input_data", "ReduceSum", bind_null_input_data, AT_RUN, OP_ERR_INVALID_ARGUMENT, OP_OK,
     false, {"ReduceSum", "input", "data|NULL|null"}},
    {"null_output_data", "ReduceSum", bind_null_output_data, AT_RUN, OP_ERR_INVALID_ARGUMENT,
     OP_OK, false, {"ReduceSum", "output", "data|NULL|null"}},
    {"misaligned_input", "ReduceSum", bind_misaligned_input, AT_RUN, OP_ERR_INVALID_ARGUMENT,
     OP_OK, false, {"ReduceSum", "input 0", "byte_offset 1 ", "4-byte"}},
    {"misaligned_output", "ReduceSum", bind_misaligned_output, AT_RUN, OP_ERR_INVALID_ARGUMENT,
     OP_OK, false, {"ReduceSum", "output 0", "byte_offset 2 ", "4-byte"}},
    {"null_op_name", NULL, bind_valid, AT_RUN, OP_ERR_INVALID_ARGUMENT, OP_OK, true,
     {"op|name", "NULL|null"}},
    {"unknown_op", "ReduceFoo", bind_valid, AT_RUN, OP_ERR_NOT_FOUND, OP_OK, true,
     {"ReduceFoo"}},
    {"negative_input_dim", "ReduceSum", bind_negative_input_dim, AT_BIND,
     OP_ERR_INVALID_ARGUMENT, OP_OK, false, {"dim|shape", "-3"}},
    {"empty_input_huge_dims", "ReduceSum", bind_empty_input_huge_dims, AT_ANY,
     OP_ERR_INVALID_ARGUMENT, OP_OK, true, {"ReduceSum", "input 0", "4611686018427387904"}},
    {"empty_input_huge_dims_zero_last", "ReduceMean", bind_empty_input_huge_dims_zero_last,
     AT_ANY, OP_ERR_INVALID_ARGUMENT, OP_OK, true, {"ReduceMean", "input 0",
     "4611686018427387904"}},
    {"empty_input_16_long_dims", "ReduceSum", bind_empty_input_16_long_dims, AT_ANY,
     OP_ERR_INVALID_ARGUMENT, OP_OK, false, {"ReduceSum", "input 0",
     "[0, 1000000000000000001, ", "1000000000000000015] has"}},
    {"negative_output_dim", "ReduceSum", bind_negative_output_dim, AT_BIND,
     OP_ERR_INVALID_ARGUMENT, OP_OK, false, {"dim|shape", "-5"}},
    {"output_dtype_f64", "ReduceSum", bind_output_f64, AT_RUN, OP_ERR_INVALID_ARGUMENT, OP_OK,
     false, {"ReduceSum", "output", "type", "64"}},
    {"output_dtype_i32", "ReduceMax", bind_output_i32, AT_RUN, OP_ERR_INVALID_ARGUMENT, OP_OK,
     false, {"ReduceMax", "output", "type", "int|i32"}},
    {"output_shape", "ReduceSum", bind_output_shape_7, AT_RUN, OP_ERR_INVALID_ARGUMENT, OP_OK,
     false, {"ReduceSum", "output", "shape", "7"}},
    {"output_shape_keepdims_1_rank_2", "ReduceMean", bind_output_dim_dropped, AT_RUN,
     OP_ERR_INVALID_ARGUMENT, OP_OK, false, {"ReduceMean", "output", "shape|rank|ndim"}},
    {"output_shape_keepdims_0_rank_3", "ReduceMin", bind_keepdims0_kept_output, AT_RUN,
     OP_ERR_INVALID_ARGUMENT, OP_OK, false, {"ReduceMin", "output", "shape|rank|ndim"}},
    {"axis_out_of_range", "ReduceSum", bind_axis_3, AT_RUN, OP_ERR_INVALID_ARGUMENT, OP_OK, true,
     {"ReduceSum", "axis|axes", "3"}},
    {"axis_out_of_range_negative", "ReduceProd", bind_axis_minus_4, AT_RUN,
     OP_ERR_INVALID_ARGUMENT, OP_OK, true, {"ReduceProd", "axis|axes", "-4"}},
    {"axis_2pow32_plus_1", "ReduceMax", bind_axis_large, AT_RUN, OP_ERR_INVALID_ARGUMENT, OP_OK,
     true, {"ReduceMax", "axis|axes", "4294967297"}},
    {"duplicate_axes_after_wrap", "ReduceSum", bind_axes_1_minus_2, AT_RUN,
     OP_ERR_INVALID_ARGUMENT, OP_OK, true, {"ReduceSum", "axis|axes|duplicate", "1|-2"}},
    {"duplicate_axes", "ReduceMean", bind_axes_2_2, AT_RUN, OP_ERR_INVALID_ARGUMENT, OP_OK, true,
     {"ReduceMean", "axis|axes|duplicate", "2"}},
    {"rank0_axis_0", "ReduceSum", bind_rank0_axis_0, AT_RUN, OP_ERR_INVALID_ARGUMENT, OP_OK, true,
     {"ReduceSum", "axis|axes", "0"}},
    {"rank0_axis_minus_1", "ReduceMin", bind_rank0_axis_minus_1, AT_RUN, OP_ERR_INVALID_ARGUMENT,
     OP_OK, true, {"ReduceMin", "axis|axes", "-1"}},
    {"missing_input", "ReduceSum", bind_missing_input, AT_RUN, OP_ERR_INVALID_ARGUMENT, OP_OK,
     true, {"ReduceSum", "input", "0"}},
    {"missing_output", "ReduceSum", bind_missing_output, AT_RUN, OP_ERR_INVALID_ARGUMENT, OP_OK,
     false, {"ReduceSum", "output", "0"}},
    {"extra_input", "ReduceSum", bind_extra_input, AT_RUN, OP_ERR_INVALID_ARGUMENT, OP_OK, true,
     {"ReduceSum", "input", "1"}},
    {"extra_output", "ReduceSum", bind_extra_output, AT_RUN, OP_ERR_INVALID_ARGUMENT, OP_OK,
     false, {"ReduceSum", "output", "1"}},
    {"dtype_u8", "ReduceSum", bind_u8, AT_RUN, OP_ERR_UNSUPPORTED, OP_OK, false,
     {"ReduceSum", "type", "u8|uint8|uint|UInt"}},
    {"dtype_i8", "ReduceMax", bind_i8, AT_RUN, OP_ERR_UNSUPPORTED, OP_OK, false,
     {"ReduceMax", "type", "i8|int8"}},
    {"dtype_i16", "ReduceMin", bind_i16, AT_RUN, OP_ERR_UNSUPPORTED, OP_OK, false,
     {"ReduceMin", "type", "16"}},
    {"dtype_complex64", "ReduceSum", bind_complex64, AT_RUN, OP_ERR_UNSUPPORTED, OP_OK, false,
     {"ReduceSum", "type", "complex|c64|Complex"}},
    {"vector_lanes_4", "ReduceSum", bind_lanes_4, AT_RUN, OP_ERR_UNSUPPORTED, OP_OK, false,
     {"ReduceSum", "lane|x4|vector", "4"}},
    {"output_on_cuda", "ReduceSum", bind_output_on_cuda, AT_RUN, OP_ERR_INVALID_ARGUMENT, OP_OK,
     false, {"ReduceSum", "device|output", "cuda|CUDA|gpu|GPU"}},
    {"input_on_cuda", "ReduceMean", bind_input_on_cuda, AT_RUN, OP_ERR_INVALID_ARGUMENT, OP_OK,
     false, {"ReduceMean", "device|input", "cuda|CUDA|gpu|GPU"}},
    {"input_17_dims", "ReduceSum", bind_input_17_dims, AT_BIND, OP_ERR_UNSUPPORTED, OP_OK, false,
     {"17"}},
    {"output_17_dims", "ReduceSum", bind_output_17_dims, AT_BIND, OP_ERR_UNSUPPORTED, OP_OK,
     false, {"17"}},
    {"i32_mean_empty_axis", "ReduceMean", bind_i32_mean_empty_axis, AT_RUN,
     OP_ERR_INVALID_ARGUMENT, OP_OK, false, {"ReduceMean", "axis|axes|empty", "int|i32"}},
    {"i64_mean_empty_axis", "ReduceMean", bind_i64_mean_empty_axis, AT_RUN,
     OP_ERR_INVALID_ARGUMENT, OP_OK, false, {"ReduceMean", "axis|axes|empty", "int|i64"}},
    {"i64_mean_empty_all", "ReduceMean", bind_i64_mean_empty_all, AT_RUN,
     OP_ERR_INVALID_ARGUMENT, OP_OK, false, {"ReduceMean", "empty|axis|axes", "int|i64"}},
    {"strided_output", "ReduceSum", bind_strided_output, AT_RUN, OP_ERR_UNSUPPORTED, OP_OK, false,
     {"ReduceSum", "output", "stride|contiguous|compact", "16"}},
    {"transposed_output", "ReduceMax", bind_transposed_output, AT_RUN, OP_ERR_UNSUPPORTED, OP_OK,
     false, {"ReduceMax", "output", "stride|contiguous|compact", "1, 2|1,2|1 2"}},
    {"negative_input_stride", "ReduceSum", bind_negative_input_stride, AT_ANY,
     OP_ERR_INVALID_ARGUMENT, OP_ERR_UNSUPPORTED, false, {"stride", "-4"}},
};
/* clang-format on */

static void check_message(const char *what, const char *msg, const err_case *c)
{
    if (!msg || !msg[0])
        fail_msg("%s: no message", what);
    for (int i = 0; i < 4 && c->msg[i]; i++)
        if (!ts_msg_has(msg, c->msg[i]))
            fail_msg("%s: message \"%s\" does not contain %s", what, msg, c->msg[i]);
}

static void check_output_untouched(const fixture *f)
{
    const unsigned char *p = f->out.data;
    for (size_t i = 0; i < f->out.bytes; i++)
        if (p[i] != 0x5A)
            fail_msg("output byte %zu written by a failing call", i);
    assert_true(ts_buf_guard_ok(&f->out));
}

static void run__bad_input_rejected(void **state)
{
    const err_case *c = *state;
    /* set up */
    fixture f;
    fixture_init(&f, "run__bad_input_rejected");
    op_status bind_st = c->bind(&f);
    /* run */
    op_status st = bind_st;
    char msg[1024];
    if (c->where == AT_RUN)
        assert_int_equal(bind_st, OP_OK);
    if (c->where == AT_RUN || (c->where == AT_ANY && bind_st == OP_OK))
        st = op_run(c->op, f.ctx);
    snprintf(msg, sizeof msg, "%s", op_context_error(f.ctx));
    /* check: status, message, nothing written */
    if (st != c->want && !(c->also != OP_OK && st == c->also))
        fail_msg("%s: status %s (%d), expected %s; message \"%s\"", c->name, op_status_str(st),
                 (int)st, op_status_str(c->want), msg);
    check_message(c->name, msg, c);
    check_output_untouched(&f);
    if (c->infer_too) {
        int32_t ndim = 77;
        int64_t shape[OP_MAX_DIMS];
        DLDataType dt = {9, 9, 9};
        op_status ist = op_infer_output(c->op, f.ctx, 0, &ndim, shape, &dt);
        assert_int_equal(ist, c->want);
        check_message("op_infer_output", op_context_error(f.ctx), c);
        assert_int_equal(ndim, 77);
        assert_int_equal(dt.code, 9);
    }
    /* a valid call on the same context succeeds and clears the message */
    op_context_clear(f.ctx);
    fixture_tensors(&f);
    assert_int_equal(bind_valid(&f), OP_OK);
    op_status again = op_run("ReduceSum", f.ctx);
    if (again != OP_OK)
        fail_msg("valid call after %s: %s: %s", c->name, op_status_str(again),
                 op_context_error(f.ctx));
    assert_string_equal(op_context_error(f.ctx), "");
    double ref[8];
    assert_int_equal(ts_reference(TS_SUM, &f.x.t, 1u << 1, ref, NULL), 8);
    /* f32 sums of 3 values: ts_check's f32 tolerance (1e-5 relative) */
    assert_true(ts_check("valid call", f.out.data, F32, 8, ref, NULL, 3, TS_SUM));
    const unsigned char *rest = (const unsigned char *)f.out.data + 8 * sizeof(float);
    for (size_t i = 8 * sizeof(float); i < f.out.bytes; i++, rest++)
        if (*rest != 0x5A)
            fail_msg("valid call wrote byte %zu past its 8 outputs", i);
    assert_true(ts_buf_guard_ok(&f.out));
    fixture_free(&f);
}

/* --- NULL context and bad op_infer_output arguments ------------------------------------------- */

static void run__null_context(void **state)
{
    (void)state;
    /* set up */
    int32_t ndim = 77;
    int64_t shape[OP_MAX_DIMS] = {77};
    DLDataType dt = {9, 9, 9};
    /* run, check */
    assert_int_equal(op_run("ReduceSum", NULL), OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(op_run(NULL, NULL), OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(op_run("ReduceFoo", NULL), OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(op_infer_output("ReduceSum", NULL, 0, &ndim, shape, &dt),
                     OP_ERR_INVALID_ARGUMENT);
    assert_non_null(op_context_error(NULL));
    assert_int_equal(ndim, 77);
    assert_int_equal(shape[0], 77);
    assert_int_equal(dt.code, 9);
}

typedef enum infer_fault {
    INFER_NULL_NDIM,
    INFER_NULL_SHAPE,
    INFER_NULL_DTYPE,
    INFER_INDEX
} infer_fault;

typedef struct infer_case {
    const char *name;
    infer_fault fault;
    int index;
    const char *value; /* the value the message names, or NULL */
} infer_case;

static const infer_case infer_cases[] = {
    {"null_ndim", INFER_NULL_NDIM, 0, NULL},
    {"null_shape", INFER_NULL_SHAPE, 0, NULL},
    {"null_dtype", INFER_NULL_DTYPE, 0, NULL},
    {"index_1", INFER_INDEX, 1, "1"},
    {"index_minus_1", INFER_INDEX, -1, "-1"},
    {"index_max_tensors", INFER_INDEX, OP_MAX_TENSORS, "8"},
};

static void infer_output__bad_arguments(void **state)
{
    const infer_case *c = *state;
    /* set up */
    fixture f;
    fixture_init(&f, "infer_output__bad_arguments");
    assert_int_equal(bind_valid(&f), OP_OK);
    int32_t ndim = 77;
    int64_t shape[OP_MAX_DIMS] = {77};
    DLDataType dt = {9, 9, 9};
    /* run */
    op_status st = op_infer_output(
        "ReduceSum", f.ctx, c->index, c->fault == INFER_NULL_NDIM ? NULL : &ndim,
        c->fault == INFER_NULL_SHAPE ? NULL : shape, c->fault == INFER_NULL_DTYPE ? NULL : &dt);
    /* check */
    assert_int_equal(st, OP_ERR_INVALID_ARGUMENT);
    const char *msg = op_context_error(f.ctx);
    if (!ts_msg_has(msg, "ReduceSum"))
        fail_msg("message \"%s\" does not name ReduceSum", msg);
    if (c->value && !ts_msg_has(msg, c->value))
        fail_msg("message \"%s\" does not name the value %s", msg, c->value);
    assert_int_equal(ndim, 77);
    assert_int_equal(shape[0], 77);
    assert_int_equal(dt.code, 9);
    /* the context still works */
    assert_int_equal(op_run("ReduceSum", f.ctx), OP_OK);
    assert_string_equal(op_context_error(f.ctx), "");
    fixture_free(&f);
}

/* A lookup failure names the function called: op_infer_output's is not op_run's */
static void lookup__names_the_call(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f, "lookup__names_the_call");
    assert_int_equal(bind_valid(&f), OP_OK);
    int32_t ndim;
    int64_t shape[OP_MAX_DIMS];
    DLDataType dt;
    assert_int_equal(op_infer_output("ReduceFoo", f.ctx, 0, &ndim, shape, &dt), OP_ERR_NOT_FOUND);
    assert_string_equal(op_context_error(f.ctx), "op_infer_output: no op named 'ReduceFoo'");
    assert_int_equal(op_infer_output(NULL, f.ctx, 0, &ndim, shape, &dt), OP_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(op_context_error(f.ctx), "op_infer_output"));
    assert_int_equal(op_run("ReduceFoo", f.ctx), OP_ERR_NOT_FOUND);
    assert_string_equal(op_context_error(f.ctx), "op_run: no op named 'ReduceFoo'");
    assert_int_equal(op_run(NULL, f.ctx), OP_ERR_INVALID_ARGUMENT);
    assert_string_equal(op_context_error(f.ctx), "op_run: op name is NULL");
    check_output_untouched(&f);
    fixture_free(&f);
}

int main(void)
{
    struct CMUnitTest tests[128];
    size_t n = 0;
    ADD_CASES(tests, n, run__bad_input_rejected, err_cases);
    ADD_TEST(tests, n, run__null_context);
    ADD_CASES(tests, n, infer_output__bad_arguments, infer_cases);
    ADD_TEST(tests, n, lookup__names_the_call);
    return _cmocka_run_group_tests("test_errors", tests, n, NULL, NULL);
}
