/* The registry: op_list, op_describe, op_list_kernels, host ops registered with op_register_op and
 * op_register_kernel and run through op_run, the error statuses of registration and
 * unregistration, op_status_str, and lookups from several threads while another one registers.
 * Black-box: public headers and tests/support only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opnn/opnn.h"
#include "support/test_cases.h"
#include "support/test_support.h"

static const DLDataType F32 = {kDLFloat, 32, 1};

static const char *const builtin_ops[] = {"ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd",
                                          "ReduceSum"};

typedef struct name_case {
    const char *name; /* the op */
} name_case;

static const name_case builtin_cases[] = {
    {"ReduceSum"}, {"ReduceMean"}, {"ReduceMax"}, {"ReduceMin"}, {"ReduceProd"},
};

/* --- a tiny host op: y = x * factor + offset, f32 on the CPU ---------------------------------- */

typedef struct scale_seen {
    int infer_calls;
    int kernel_calls;
    const char *op_name;
    const void *data;
    bool input1_null, input_neg_null, output0_present, output1_null;
    bool output_absent_in_infer;
    double factor;
    int64_t offset;
    int64_t unknown_attr;
} scale_seen;

static _Thread_local scale_seen seen; /* per thread: the churn test runs it concurrently */
static const int scale_kernel_data = 42;

static const op_attr_def scale_attrs[] = {
    {"factor", OP_ATTR_FLOAT, 0, 2.0},
    {"offset", OP_ATTR_INT, 0, 0.0},
};

static op_status scale_infer(op_kernel_ctx *kc, int index, int32_t *ndim, int64_t *shape,
                             DLDataType *dtype)
{
    seen.infer_calls++;
    seen.output_absent_in_infer = op_kernel_output(kc, 0) == NULL;
    const DLTensor *x = op_kernel_input(kc, 0);
    if (index != 0 || !x)
        return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT, "output %d does not exist", index);
    *ndim = x->ndim;
    for (int i = 0; i < x->ndim; i++)
        shape[i] = x->shape[i];
    *dtype = x->dtype;
    return OP_OK;
}

static op_status scale_kernel(op_kernel_ctx *kc)
{
    seen.kernel_calls++;
    seen.op_name = op_kernel_op_name(kc);
    seen.data = op_kernel_data(kc);
    seen.input1_null = op_kernel_input(kc, 1) == NULL;
    seen.input_neg_null = op_kernel_input(kc, -1) == NULL;
    seen.output0_present = op_kernel_output(kc, 0) != NULL;
    seen.output1_null = op_kernel_output(kc, 1) == NULL;
    seen.factor = op_kernel_attr_float(kc, "factor");
    seen.offset = op_kernel_attr_int(kc, "offset");
    seen.unknown_attr = op_kernel_attr_int(kc, "no_such_attribute");
    if (seen.offset == 13)
        return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT, "offset %d is unlucky", 13);
    const DLTensor *x = op_kernel_input(kc, 0), *y = op_kernel_output(kc, 0);
    const char *in = (const char *)x->data + x->byte_offset;
    float *out = (float *)((char *)y->data + y->byte_offset);
    int64_t n = 1, idx[OP_MAX_DIMS] = {0}, st[OP_MAX_DIMS];
    for (int d = x->ndim - 1; d >= 0; d--) {
        st[d] = x->strides ? x->strides[d] : (d == x->ndim - 1 ? 1 : st[d + 1] * x->shape[d + 1]);
        n *= x->shape[d];
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t off = 0;
        for (int d = 0; d < x->ndim; d++)
            off += idx[d] * st[d];
        out[i] = (float)(((const float *)in)[off] * seen.factor + (double)seen.offset);
        for (int d = x->ndim - 1; d >= 0; d--) {
            if (++idx[d] < x->shape[d])
                break;
            idx[d] = 0;
        }
    }
    return OP_OK;
}

static op_schema scale_schema(const char *name)
{
    op_schema s = {name,        "y = x * factor + offset", 1,          1,
                   scale_attrs, N_OF(scale_attrs),         scale_infer};
    return s;
}

/* Registers the scale op and its f32 CPU kernel under `name`, first removing what an earlier,
 * failed test may have left under that name. */
static void register_scale(const char *name)
{
    op_unregister_op(name); /* NOT_FOUND when the name is free, as it should be */
    op_schema s = scale_schema(name);
    assert_int_equal(op_register_op(NULL, &s), OP_OK);
    assert_int_equal(op_register_kernel(NULL, name, kDLCPU, F32, scale_kernel, &scale_kernel_data),
                     OP_OK);
}

/* A [3, 5] f32 input (random) and its [3, 5] output with guard bytes, on a fresh context. */
typedef struct scale_call {
    op_context *ctx;
    float in[15];
    ts_buf out;
    ts_tensor x, y;
} scale_call;

static void scale_call_init(scale_call *c, ts_rng *rng)
{
    static const int64_t shape[2] = {3, 5};
    ts_fill_random(rng, c->in, F32, 15, 4.0);
    c->out = ts_buf_alloc(15 * sizeof(float));
    assert_non_null(c->out.data);
    ts_tensor_init(&c->x, c->in, kDLCPU, F32, 2, shape, NULL);
    ts_tensor_init(&c->y, c->out.data, kDLCPU, F32, 2, shape, NULL);
    assert_int_equal(op_context_create(&c->ctx), OP_OK);
    assert_int_equal(op_context_set_input(c->ctx, 0, &c->x.t), OP_OK);
    assert_int_equal(op_context_set_output(c->ctx, 0, &c->y.t), OP_OK);
}

static void scale_call_check(const scale_call *c, double factor, double offset)
{
    const float *out = c->out.data;
    for (int i = 0; i < 15; i++) {
        float want = (float)(c->in[i] * factor + offset);
        /* one f32 multiply-add rounded once: within 1 ulp-ish, 1e-6 relative */
        if (fabsf(out[i] - want) > 1e-6f * fabsf(want) + 1e-30f)
            fail_msg("output %d is %.9g, expected %.9g", i, out[i], want);
    }
    assert_true(ts_buf_guard_ok(&c->out));
}

static void scale_call_free(scale_call *c)
{
    op_context_destroy(c->ctx);
    ts_buf_free(&c->out);
}

static bool output_untouched(const ts_buf *b)
{
    const unsigned char *p = b->data;
    for (size_t i = 0; i < b->bytes; i++)
        if (p[i] != 0x5A)
            return false;
    return ts_buf_guard_ok(b);
}

/* --- first use: built-ins registered once, whoever comes first -------------------------- */

enum {
    FIRST_USE_THREADS = 8
};

typedef struct first_use {
    pthread_barrier_t *go;
    size_t count;
    op_status describe;
    size_t kernels;
} first_use;

static void *first_use_thread(void *p)
{
    first_use *fu = p;
    pthread_barrier_wait(fu->go);
    op_info info;
    fu->describe = op_describe("ReduceMean", &info);
    fu->count = op_list(NULL, 0);
    fu->kernels = op_list_kernels("ReduceMean", NULL, NULL, 0);
    return NULL;
}

static void registry__first_use_from_many_threads(void **state)
{
    (void)state;
    /* set up: this is the first test, so these are the program's first calls into opnn */
    pthread_barrier_t go;
    pthread_t th[FIRST_USE_THREADS];
    first_use fu[FIRST_USE_THREADS];
    assert_int_equal(pthread_barrier_init(&go, NULL, FIRST_USE_THREADS), 0);
    /* run */
    for (int i = 0; i < FIRST_USE_THREADS; i++) {
        fu[i] = (first_use){&go, 0, OP_ERR_INTERNAL, 0};
        assert_int_equal(pthread_create(&th[i], NULL, first_use_thread, &fu[i]), 0);
    }
    for (int i = 0; i < FIRST_USE_THREADS; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&go);
    /* check: every thread saw the complete built-in set, and the same one */
    for (int i = 0; i < FIRST_USE_THREADS; i++) {
        assert_int_equal(fu[i].describe, OP_OK);
        assert_true(fu[i].count >= N_OF(builtin_ops));
        assert_int_equal(fu[i].count, fu[0].count);
        assert_true(fu[i].kernels >= 6);
        assert_int_equal(fu[i].kernels, fu[0].kernels);
    }
    assert_int_equal(op_list(NULL, 0), fu[0].count);
}

/* --- op_list ---------------------------------------------------------------------------------- */

static void op_list__count_sorted_and_capacity(void **state)
{
    (void)state;
    /* set up */
    static const char sentinel[] = "sentinel";
    const char *names[256];
    for (size_t i = 0; i < N_OF(names); i++)
        names[i] = sentinel;
    /* run */
    size_t total = op_list(NULL, 0);
    size_t total_full = op_list(names, N_OF(names) - 1);
    /* check: every built-in, sorted, nothing written past the count */
    assert_true(total >= N_OF(builtin_ops));
    assert_true(total < N_OF(names) - 1);
    assert_int_equal(total_full, total);
    for (size_t i = 0; i < total; i++) {
        assert_non_null(names[i]);
        assert_ptr_not_equal(names[i], sentinel);
        if (i > 0 && strcmp(names[i - 1], names[i]) >= 0)
            fail_msg("op_list not sorted: \"%s\" before \"%s\"", names[i - 1], names[i]);
    }
    assert_ptr_equal(names[total], sentinel);
    for (size_t b = 0; b < N_OF(builtin_ops); b++) {
        bool found = false;
        for (size_t i = 0; i < total; i++)
            found = found || !strcmp(names[i], builtin_ops[b]);
        if (!found)
            fail_msg("op_list lacks %s", builtin_ops[b]);
    }
    /* a capacity smaller than the count: the first names, the total, nothing more written */
    const char *few[4] = {sentinel, sentinel, sentinel, sentinel};
    assert_int_equal(op_list(few, 2), total);
    assert_string_equal(few[0], names[0]);
    assert_string_equal(few[1], names[1]);
    assert_ptr_equal(few[2], sentinel);
    assert_int_equal(op_list(few + 2, 0), total);
    assert_ptr_equal(few[2], sentinel);
}

/* --- op_describe ------------------------------------------------------------------------------ */

static void op_describe__builtin_schema(void **state)
{
    const name_case *c = *state;
    /* set up */
    op_info info;
    memset(&info, 0, sizeof info);
    /* run */
    op_status st = op_describe(c->name, &info);
    /* check */
    assert_int_equal(st, OP_OK);
    assert_string_equal(info.name, c->name);
    assert_non_null(info.doc);
    assert_string_equal(info.plugin, "builtin");
    assert_int_equal(info.num_inputs, 1);
    assert_int_equal(info.num_outputs, 1);
    assert_int_equal(info.num_attrs, 3);
    assert_non_null(info.attrs);
    bool axes = false, keepdims = false, noop = false;
    for (size_t i = 0; i < info.num_attrs; i++) {
        const op_attr_def *a = &info.attrs[i];
        if (!strcmp(a->name, "axes")) {
            axes = true;
            assert_int_equal(a->type, OP_ATTR_INTS);
        } else if (!strcmp(a->name, "keepdims")) {
            keepdims = true;
            assert_int_equal(a->type, OP_ATTR_INT);
            assert_int_equal(a->default_int, 1);
        } else if (!strcmp(a->name, "noop_with_empty_axes")) {
            noop = true;
            assert_int_equal(a->type, OP_ATTR_INT);
            assert_int_equal(a->default_int, 0);
        } else {
            fail_msg("%s has an unexpected attribute %s", c->name, a->name);
        }
    }
    assert_true(axes && keepdims && noop);
}

static void op_describe__bad_arguments(void **state)
{
    (void)state;
    /* set up */
    op_info info;
    memset(&info, 0x77, sizeof info);
    op_info before = info;
    /* run, check */
    assert_int_equal(op_describe(NULL, &info), OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(op_describe("ReduceSum", NULL), OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(op_describe("ReduceNothing", &info), OP_ERR_NOT_FOUND);
    assert_int_equal(op_describe("", &info), OP_ERR_NOT_FOUND);
    assert_int_equal(op_describe("reducesum", &info), OP_ERR_NOT_FOUND); /* case-sensitive */
    assert_memory_equal(&info, &before, sizeof info); /* written only on success */
}

/* --- op_list_kernels -------------------------------------------------------------------------- */

static int dtype_cmp(DLDataType a, DLDataType b)
{
    if (a.code != b.code)
        return a.code < b.code ? -1 : 1;
    if (a.bits != b.bits)
        return a.bits < b.bits ? -1 : 1;
    return a.lanes < b.lanes ? -1 : a.lanes > b.lanes;
}

static void op_list_kernels__builtin_cpu_dtypes(void **state)
{
    const name_case *c = *state;
    /* set up */
    static const char *const want[] = {"f32", "f64", "f16", "bf16", "i32", "i64"};
    DLDeviceType dev[64];
    DLDataType dt[64];
    for (int i = 0; i < 64; i++)
        dev[i] = (DLDeviceType)99, dt[i] = (DLDataType){99, 99, 99};
    /* run */
    size_t total = op_list_kernels(c->name, NULL, NULL, 0);
    size_t got = op_list_kernels(c->name, dev, dt, 63);
    /* check: the six CPU dtypes, sorted by device then dtype, no duplicates */
    assert_true(total >= N_OF(want));
    assert_true(total < 63);
    assert_int_equal(got, total);
    assert_int_equal(dev[total], 99);
    for (size_t i = 1; i < total; i++) {
        int order =
            dev[i - 1] != dev[i] ? (dev[i - 1] < dev[i] ? -1 : 1) : dtype_cmp(dt[i - 1], dt[i]);
        if (order >= 0)
            fail_msg("kernel %zu (device %d, %s) not after kernel %zu (device %d, %s)", i,
                     (int)dev[i], ts_dtype_name(dt[i]), i - 1, (int)dev[i - 1],
                     ts_dtype_name(dt[i - 1]));
    }
    for (size_t w = 0; w < N_OF(want); w++) {
        DLDataType t = ts_dtype(want[w]);
        bool found = false;
        for (size_t i = 0; i < total; i++)
            found = found || (dev[i] == kDLCPU && dtype_cmp(dt[i], t) == 0);
        if (!found)
            fail_msg("%s has no CPU %s kernel", c->name, want[w]);
    }
    /* a small capacity writes only that many */
    DLDeviceType dev2[3] = {(DLDeviceType)99, (DLDeviceType)99, (DLDeviceType)99};
    DLDataType dt2[3] = {{99, 99, 99}, {99, 99, 99}, {99, 99, 99}};
    assert_int_equal(op_list_kernels(c->name, dev2, dt2, 2), total);
    assert_int_equal(dev2[0], dev[0]);
    assert_int_equal(dtype_cmp(dt2[1], dt[1]), 0);
    assert_int_equal(dev2[2], 99);
    assert_int_equal(dt2[2].code, 99);
}

static void op_list_kernels__unknown_op_zero(void **state)
{
    (void)state;
    /* set up */
    DLDeviceType dev[2] = {(DLDeviceType)99, (DLDeviceType)99};
    DLDataType dt[2];
    /* run, check */
    assert_int_equal(op_list_kernels("ReduceNothing", dev, dt, 2), 0);
    assert_int_equal(op_list_kernels(NULL, dev, dt, 2), 0);
    assert_int_equal(dev[0], 99);
}

/* --- registering a host op -------------------------------------------------------------------- */

static void register_op__host_op_runs(void **state)
{
    (void)state;
    /* set up: the name comes from a buffer the registry must copy */
    ts_rng rng = {ts_seed("register_op__host_op_runs")};
    char name[32];
    snprintf(name, sizeof name, "%s", "TestScale");
    op_unregister_op(name); /* left over from an earlier failure, if any */
    size_t before = op_list(NULL, 0);
    register_scale(name);
    memset(name, 'x', sizeof name - 1);
    scale_call c;
    scale_call_init(&c, &rng);
    memset(&seen, 0, sizeof seen);
    /* run: defaults, then attributes set */
    op_status st_default = op_run("TestScale", c.ctx);
    scale_call_check(&c, 2.0, 0.0);
    scale_seen seen_default = seen;
    assert_int_equal(op_context_set_attr_float(c.ctx, "factor", 0.5), OP_OK);
    assert_int_equal(op_context_set_attr_int(c.ctx, "offset", 3), OP_OK);
    op_status st_set = op_run("TestScale", c.ctx);
    /* check */
    assert_int_equal(st_default, OP_OK);
    assert_int_equal(st_set, OP_OK);
    assert_string_equal(op_context_error(c.ctx), "");
    scale_call_check(&c, 0.5, 3.0);
    assert_int_equal(seen_default.kernel_calls, 1);
    assert_string_equal(seen_default.op_name, "TestScale");
    assert_ptr_equal(seen_default.data, &scale_kernel_data);
    assert_true(seen_default.input1_null && seen_default.input_neg_null);
    assert_true(seen_default.output0_present && seen_default.output1_null);
    assert_true(seen_default.factor == 2.0);
    assert_int_equal(seen_default.offset, 0);
    assert_int_equal(seen_default.unknown_attr, 0);
    assert_true(seen.factor == 0.5);
    assert_int_equal(seen.offset, 3);
    /* listed, described, its kernel listed */
    assert_int_equal(op_list(NULL, 0), before + 1);
    op_info info;
    assert_int_equal(op_describe("TestScale", &info), OP_OK);
    assert_string_equal(info.name, "TestScale");
    assert_string_equal(info.doc, "y = x * factor + offset");
    assert_string_equal(info.plugin, "host");
    assert_int_equal(info.num_attrs, 2);
    assert_string_equal(info.attrs[0].name, "factor");
    assert_true(info.attrs[0].default_float == 2.0);
    assert_int_equal(info.attrs[1].type, OP_ATTR_INT);
    DLDeviceType dev[2];
    DLDataType dt[2];
    assert_int_equal(op_list_kernels("TestScale", dev, dt, 2), 1);
    assert_int_equal(dev[0], kDLCPU);
    assert_int_equal(dtype_cmp(dt[0], F32), 0);
    /* op_infer_output runs the op's inference without outputs bound */
    int32_t ndim;
    int64_t shape[OP_MAX_DIMS];
    DLDataType odt;
    assert_int_equal(op_infer_output("TestScale", c.ctx, 0, &ndim, shape, &odt), OP_OK);
    assert_int_equal(ndim, 2);
    assert_int_equal(shape[0], 3);
    assert_int_equal(shape[1], 5);
    assert_true(seen.output_absent_in_infer);
    scale_call_free(&c);
    assert_int_equal(op_unregister_op("TestScale"), OP_OK);
}

/* Host ops get the same checks as the built-ins before their kernel is called. */
typedef enum host_fault {
    HOST_UNKNOWN_ATTR,
    HOST_WRONG_ATTR_TYPE,
    HOST_WRONG_OUTPUT_SHAPE,
    HOST_WRONG_OUTPUT_DTYPE,
    HOST_NO_KERNEL_FOR_DTYPE,
    HOST_EXTRA_INPUT,
    HOST_KERNEL_FAILS,
} host_fault;

typedef struct host_case {
    const char *name;
    host_fault fault;
    op_status want;
    bool kernel_called;
    const char *msg_word; /* besides the op name */
} host_case;

static const host_case host_cases[] = {
    {"unknown_attribute", HOST_UNKNOWN_ATTR, OP_ERR_NOT_FOUND, false, "bogus"},
    {"wrong_attribute_type", HOST_WRONG_ATTR_TYPE, OP_ERR_INVALID_ARGUMENT, false, "factor"},
    {"wrong_output_shape", HOST_WRONG_OUTPUT_SHAPE, OP_ERR_INVALID_ARGUMENT, false, "shape"},
    {"wrong_output_dtype", HOST_WRONG_OUTPUT_DTYPE, OP_ERR_INVALID_ARGUMENT, false, "type"},
    {"no_kernel_for_dtype", HOST_NO_KERNEL_FOR_DTYPE, OP_ERR_UNSUPPORTED, false, "64"},
    {"extra_input", HOST_EXTRA_INPUT, OP_ERR_INVALID_ARGUMENT, false, "input"},
    {"kernel_fails", HOST_KERNEL_FAILS, OP_ERR_INVALID_ARGUMENT, true, "unlucky"},
};

static void register_op__host_op_checked(void **state)
{
    const host_case *hc = *state;
    /* set up */
    ts_rng rng = {ts_seed("register_op__host_op_checked")};
    register_scale("TestScaleChecked");
    scale_call c;
    scale_call_init(&c, &rng);
    double din[15];
    static const int64_t wrong_shape[2] = {5, 3}, shape[2] = {3, 5};
    ts_tensor t;
    switch (hc->fault) {
    case HOST_UNKNOWN_ATTR:
        assert_int_equal(op_context_set_attr_int(c.ctx, "bogus", 1), OP_OK);
        break;
    case HOST_WRONG_ATTR_TYPE:
        assert_int_equal(op_context_set_attr_int(c.ctx, "factor", 2), OP_OK);
        break;
    case HOST_WRONG_OUTPUT_SHAPE:
        ts_tensor_init(&t, c.out.data, kDLCPU, F32, 2, wrong_shape, NULL);
        assert_int_equal(op_context_set_output(c.ctx, 0, &t.t), OP_OK);
        break;
    case HOST_WRONG_OUTPUT_DTYPE:
        ts_tensor_init(&t, c.out.data, kDLCPU, ts_dtype("i32"), 2, shape, NULL);
        assert_int_equal(op_context_set_output(c.ctx, 0, &t.t), OP_OK);
        break;
    case HOST_NO_KERNEL_FOR_DTYPE:
        for (int i = 0; i < 15; i++)
            din[i] = i;
        ts_tensor_init(&t, din, kDLCPU, ts_dtype("f64"), 2, shape, NULL);
        assert_int_equal(op_context_set_input(c.ctx, 0, &t.t), OP_OK);
        ts_tensor_init(&c.y, malloc(15 * sizeof(double)), kDLCPU, ts_dtype("f64"), 2, shape, NULL);
        assert_int_equal(op_context_set_output(c.ctx, 0, &c.y.t), OP_OK);
        break;
    case HOST_EXTRA_INPUT:
        assert_int_equal(op_context_set_input(c.ctx, 1, &c.x.t), OP_OK);
        break;
    case HOST_KERNEL_FAILS:
        assert_int_equal(op_context_set_attr_int(c.ctx, "offset", 13), OP_OK);
        break;
    }
    memset(&seen, 0, sizeof seen);
    /* run */
    op_status st = op_run("TestScaleChecked", c.ctx);
    /* check */
    assert_int_equal(st, hc->want);
    const char *msg = op_context_error(c.ctx);
    ASSERT_MSG_HAS(msg, "TestScaleChecked");
    ASSERT_MSG_HAS(msg, hc->msg_word);
    if (hc->fault == HOST_KERNEL_FAILS)
        ASSERT_MSG_HAS(msg, "TestScaleChecked: "); /* op_kernel_fail prepends "<op>: " */
    assert_int_equal(seen.kernel_calls, hc->kernel_called ? 1 : 0);
    if (!hc->kernel_called)
        assert_true(output_untouched(&c.out));
    if (hc->fault == HOST_NO_KERNEL_FOR_DTYPE)
        free(c.y.t.data);
    /* the same context then runs a valid call */
    op_context_clear(c.ctx);
    ts_tensor_init(&c.y, c.out.data, kDLCPU, F32, 2, shape, NULL);
    assert_int_equal(op_context_set_input(c.ctx, 0, &c.x.t), OP_OK);
    assert_int_equal(op_context_set_output(c.ctx, 0, &c.y.t), OP_OK);
    assert_int_equal(op_run("TestScaleChecked", c.ctx), OP_OK);
    assert_string_equal(op_context_error(c.ctx), "");
    scale_call_check(&c, 2.0, 0.0);
    scale_call_free(&c);
    assert_int_equal(op_unregister_op("TestScaleChecked"), OP_OK);
}

static void register_op__duplicate_already_exists(void **state)
{
    (void)state;
    /* set up */
    register_scale("TestDup");
    op_schema s = scale_schema("TestDup");
    op_schema builtin = scale_schema("ReduceSum");
    size_t count = op_list(NULL, 0);
    size_t sum_kernels = op_list_kernels("ReduceSum", NULL, NULL, 0);
    /* run */
    op_status st_host = op_register_op(NULL, &s);
    op_status st_builtin = op_register_op(NULL, &builtin);
    /* check: nothing changed */
    assert_int_equal(st_host, OP_ERR_ALREADY_EXISTS);
    assert_int_equal(st_builtin, OP_ERR_ALREADY_EXISTS);
    assert_int_equal(op_list(NULL, 0), count);
    assert_int_equal(op_list_kernels("TestDup", NULL, NULL, 0), 1);
    assert_int_equal(op_list_kernels("ReduceSum", NULL, NULL, 0), sum_kernels);
    op_info info;
    assert_int_equal(op_describe("ReduceSum", &info), OP_OK);
    assert_string_equal(info.plugin, "builtin");
    assert_int_equal(info.num_attrs, 3);
    assert_int_equal(op_unregister_op("TestDup"), OP_OK);
}

typedef enum schema_fault {
    SCHEMA_OK,
    SCHEMA_NULL,
    SCHEMA_NULL_NAME,
    SCHEMA_EMPTY_NAME,
    SCHEMA_NAME_LEN, /* a name of name_len bytes */
    SCHEMA_INPUTS,   /* num_inputs = count */
    SCHEMA_OUTPUTS,  /* num_outputs = count */
    SCHEMA_NULL_INFER,
    SCHEMA_NULL_ATTRS, /* attrs NULL with num_attrs 1 */
    SCHEMA_ATTR_NULL_NAME,
    SCHEMA_ATTR_EMPTY_NAME,
    SCHEMA_ATTR_TYPE, /* type = count */
    SCHEMA_ATTR_DUPLICATE,
} schema_fault;

typedef struct schema_case {
    const char *name;
    schema_fault fault;
    int count;
    op_status want;
} schema_case;

static const schema_case schema_cases[] = {
    {"valid", SCHEMA_OK, 0, OP_OK},
    {"null_schema", SCHEMA_NULL, 0, OP_ERR_INVALID_ARGUMENT},
    {"null_name", SCHEMA_NULL_NAME, 0, OP_ERR_INVALID_ARGUMENT},
    {"empty_name", SCHEMA_EMPTY_NAME, 0, OP_ERR_INVALID_ARGUMENT},
    {"name_63_bytes", SCHEMA_NAME_LEN, 63, OP_OK},
    {"name_64_bytes", SCHEMA_NAME_LEN, 64, OP_ERR_INVALID_ARGUMENT},
    {"zero_inputs", SCHEMA_INPUTS, 0, OP_ERR_INVALID_ARGUMENT},
    {"negative_inputs", SCHEMA_INPUTS, -1, OP_ERR_INVALID_ARGUMENT},
    {"max_inputs", SCHEMA_INPUTS, OP_MAX_TENSORS, OP_OK},
    {"too_many_inputs", SCHEMA_INPUTS, OP_MAX_TENSORS + 1, OP_ERR_INVALID_ARGUMENT},
    {"zero_outputs", SCHEMA_OUTPUTS, 0, OP_ERR_INVALID_ARGUMENT},
    {"too_many_outputs", SCHEMA_OUTPUTS, OP_MAX_TENSORS + 1, OP_ERR_INVALID_ARGUMENT},
    {"null_infer", SCHEMA_NULL_INFER, 0, OP_ERR_INVALID_ARGUMENT},
    {"null_attrs_nonzero_count", SCHEMA_NULL_ATTRS, 0, OP_ERR_INVALID_ARGUMENT},
    {"attr_null_name", SCHEMA_ATTR_NULL_NAME, 0, OP_ERR_INVALID_ARGUMENT},
    {"attr_empty_name", SCHEMA_ATTR_EMPTY_NAME, 0, OP_ERR_INVALID_ARGUMENT},
    {"attr_type_0", SCHEMA_ATTR_TYPE, 0, OP_ERR_INVALID_ARGUMENT},
    {"attr_type_99", SCHEMA_ATTR_TYPE, 99, OP_ERR_INVALID_ARGUMENT},
    {"attr_duplicate_name", SCHEMA_ATTR_DUPLICATE, 0, OP_ERR_INVALID_ARGUMENT},
};

static void register_op__schema_validated(void **state)
{
    const schema_case *c = *state;
    /* set up */
    char name[80] = "TestSchema";
    if (c->fault == SCHEMA_NAME_LEN) {
        memset(name, 'S', (size_t)c->count);
        name[c->count] = '\0';
    }
    op_attr_def attrs[2] = {{"alpha", OP_ATTR_FLOAT, 0, 1.0}, {"beta", OP_ATTR_INT, 7, 0.0}};
    op_schema s = {name, NULL, 1, 1, attrs, 2, scale_infer};
    switch (c->fault) {
    case SCHEMA_NULL_NAME:
        s.name = NULL;
        break;
    case SCHEMA_EMPTY_NAME:
        s.name = "";
        break;
    case SCHEMA_INPUTS:
        s.num_inputs = c->count;
        break;
    case SCHEMA_OUTPUTS:
        s.num_outputs = c->count;
        break;
    case SCHEMA_NULL_INFER:
        s.infer = NULL;
        break;
    case SCHEMA_NULL_ATTRS:
        s.attrs = NULL, s.num_attrs = 1;
        break;
    case SCHEMA_ATTR_NULL_NAME:
        attrs[1].name = NULL;
        break;
    case SCHEMA_ATTR_EMPTY_NAME:
        attrs[1].name = "";
        break;
    case SCHEMA_ATTR_TYPE:
        attrs[1].type = (op_attr_type)c->count;
        break;
    case SCHEMA_ATTR_DUPLICATE:
        attrs[1].name = "alpha";
        break;
    default:
        break;
    }
    op_unregister_op(name); /* left over from an earlier failure, if any */
    size_t count = op_list(NULL, 0);
    /* run */
    op_status st = op_register_op(NULL, c->fault == SCHEMA_NULL ? NULL : &s);
    /* check */
    assert_int_equal(st, c->want);
    op_info info;
    if (c->want == OP_OK) {
        assert_int_equal(op_list(NULL, 0), count + 1);
        assert_int_equal(op_describe(name, &info), OP_OK);
        assert_string_equal(info.doc, ""); /* the schema gave none */
        assert_int_equal(info.num_inputs, s.num_inputs);
        assert_int_equal(info.attrs[1].default_int, 7);
        assert_int_equal(op_unregister_op(name), OP_OK);
    } else {
        assert_int_equal(op_list(NULL, 0), count);
        if (s.name && s.name[0] && strlen(s.name) < 64)
            assert_int_equal(op_describe(s.name, &info), OP_ERR_NOT_FOUND);
    }
}

/* --- registering kernels ---------------------------------------------------------------------- */

typedef enum kernel_fault {
    KERNEL_UNKNOWN_OP,
    KERNEL_NULL_OP,
    KERNEL_NULL_FN,
    KERNEL_LANES,
    KERNEL_DUPLICATE,
    KERNEL_DUPLICATE_BUILTIN,
    KERNEL_SECOND_DTYPE,
} kernel_fault;

typedef struct kernel_case {
    const char *name;
    kernel_fault fault;
    op_status want;
} kernel_case;

static const kernel_case kernel_cases[] = {
    {"unknown_op", KERNEL_UNKNOWN_OP, OP_ERR_NOT_FOUND},
    {"null_op", KERNEL_NULL_OP, OP_ERR_INVALID_ARGUMENT},
    {"null_fn", KERNEL_NULL_FN, OP_ERR_INVALID_ARGUMENT},
    {"vector_lanes", KERNEL_LANES, OP_ERR_INVALID_ARGUMENT},
    {"duplicate", KERNEL_DUPLICATE, OP_ERR_ALREADY_EXISTS},
    {"duplicate_builtin", KERNEL_DUPLICATE_BUILTIN, OP_ERR_ALREADY_EXISTS},
    {"second_dtype", KERNEL_SECOND_DTYPE, OP_OK},
};

static void register_kernel__validated(void **state)
{
    const kernel_case *c = *state;
    /* set up */
    register_scale("TestKernels");
    const char *op = "TestKernels";
    DLDeviceType dev = kDLCPU;
    DLDataType dt = ts_dtype("f64");
    op_kernel_fn fn = scale_kernel;
    switch (c->fault) {
    case KERNEL_UNKNOWN_OP:
        op = "TestNoSuchOp";
        break;
    case KERNEL_NULL_OP:
        op = NULL;
        break;
    case KERNEL_NULL_FN:
        fn = NULL;
        break;
    case KERNEL_LANES:
        dt.lanes = 4;
        break;
    case KERNEL_DUPLICATE:
        dt = F32;
        break;
    case KERNEL_DUPLICATE_BUILTIN:
        op = "ReduceSum", dt = F32;
        break;
    case KERNEL_SECOND_DTYPE:
        break;
    }
    size_t sum_kernels = op_list_kernels("ReduceSum", NULL, NULL, 0);
    /* run */
    op_status st = op_register_kernel(NULL, op, dev, dt, fn, NULL);
    /* check */
    assert_int_equal(st, c->want);
    assert_int_equal(op_list_kernels("TestKernels", NULL, NULL, 0), c->want == OP_OK ? 2 : 1);
    assert_int_equal(op_list_kernels("ReduceSum", NULL, NULL, 0), sum_kernels);
    assert_int_equal(op_list_kernels("TestNoSuchOp", NULL, NULL, 0), 0);
    assert_int_equal(op_unregister_op("TestKernels"), OP_OK);
}

static const void *dispatch_seen;

static op_status record_kernel(op_kernel_ctx *kc)
{
    dispatch_seen = op_kernel_data(kc);
    return OP_OK;
}

typedef struct dispatch_case {
    const char *name;
    const char *dtype;
    op_status want;
    int tag; /* which registration must run: 0 f32, 1 f64, -1 none */
} dispatch_case;

static const dispatch_case dispatch_cases[] = {
    {"f32", "f32", OP_OK, 0},
    {"f64", "f64", OP_OK, 1},
    {"i32_no_kernel", "i32", OP_ERR_UNSUPPORTED, -1},
    {"i64_cuda_kernel_only", "i64", OP_ERR_UNSUPPORTED, -1},
};

static void register_kernel__dispatch_by_device_and_dtype(void **state)
{
    const dispatch_case *c = *state;
    /* set up: CPU kernels for f32 and f64, a CUDA one for i64; each tells apart by its data */
    static const int tags[2] = {0, 1};
    op_unregister_op("TestDispatch");
    op_schema s = scale_schema("TestDispatch");
    assert_int_equal(op_register_op(NULL, &s), OP_OK);
    assert_int_equal(op_register_kernel(NULL, "TestDispatch", kDLCPU, F32, record_kernel, &tags[0]),
                     OP_OK);
    assert_int_equal(
        op_register_kernel(NULL, "TestDispatch", kDLCPU, ts_dtype("f64"), record_kernel, &tags[1]),
        OP_OK);
    assert_int_equal(
        op_register_kernel(NULL, "TestDispatch", kDLCUDA, ts_dtype("i64"), record_kernel, &tags[0]),
        OP_OK);
    double in[6] = {1, 2, 3, 4, 5, 6}, out[6];
    static const int64_t shape[2] = {2, 3};
    ts_tensor x, y;
    ts_tensor_init(&x, in, kDLCPU, ts_dtype(c->dtype), 2, shape, NULL);
    ts_tensor_init(&y, out, kDLCPU, ts_dtype(c->dtype), 2, shape, NULL);
    op_context *ctx = NULL;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    assert_int_equal(op_context_set_input(ctx, 0, &x.t), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, &y.t), OP_OK);
    dispatch_seen = NULL;
    /* run */
    op_status st = op_run("TestDispatch", ctx);
    /* check */
    assert_int_equal(st, c->want);
    if (c->tag >= 0) {
        assert_ptr_equal(dispatch_seen, &tags[c->tag]);
    } else {
        assert_null(dispatch_seen);
        ASSERT_MSG_HAS(op_context_error(ctx), "TestDispatch");
    }
    assert_int_equal(op_list_kernels("TestDispatch", NULL, NULL, 0), 3);
    op_context_destroy(ctx);
    assert_int_equal(op_unregister_op("TestDispatch"), OP_OK);
}

/* --- unregistering ---------------------------------------------------------------------------- */

static void unregister_op__then_run_not_found(void **state)
{
    (void)state;
    /* set up */
    ts_rng rng = {ts_seed("unregister_op__then_run_not_found")};
    op_unregister_op("TestGone"); /* left over from an earlier failure, if any */
    size_t count = op_list(NULL, 0);
    register_scale("TestGone");
    scale_call c;
    scale_call_init(&c, &rng);
    assert_int_equal(op_run("TestGone", c.ctx), OP_OK);
    scale_call_check(&c, 2.0, 0.0);
    memset(c.out.data, 0x5A, c.out.bytes);
    /* run */
    op_status st = op_unregister_op("TestGone");
    op_status run_st = op_run("TestGone", c.ctx);
    /* check */
    assert_int_equal(st, OP_OK);
    assert_int_equal(run_st, OP_ERR_NOT_FOUND);
    ASSERT_MSG_HAS(op_context_error(c.ctx), "TestGone");
    assert_true(output_untouched(&c.out));
    op_info info;
    assert_int_equal(op_describe("TestGone", &info), OP_ERR_NOT_FOUND);
    assert_int_equal(op_list_kernels("TestGone", NULL, NULL, 0), 0);
    assert_int_equal(op_list(NULL, 0), count);
    assert_int_equal(op_unregister_op("TestGone"), OP_ERR_NOT_FOUND);
    /* the name is free again; its old kernels are gone with it */
    op_schema s = scale_schema("TestGone");
    assert_int_equal(op_register_op(NULL, &s), OP_OK);
    assert_int_equal(op_list_kernels("TestGone", NULL, NULL, 0), 0);
    assert_int_equal(op_run("TestGone", c.ctx), OP_ERR_UNSUPPORTED);
    ASSERT_MSG_HAS(op_context_error(c.ctx), "TestGone");
    assert_true(output_untouched(&c.out));
    assert_int_equal(op_unregister_op("TestGone"), OP_OK);
    scale_call_free(&c);
}

static void unregister_op__builtin_rejected(void **state)
{
    const name_case *c = *state;
    /* set up */
    size_t count = op_list(NULL, 0);
    size_t kernels = op_list_kernels(c->name, NULL, NULL, 0);
    /* run */
    op_status st = op_unregister_op(c->name);
    /* check: still there, with all its kernels */
    assert_int_equal(st, OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(op_list(NULL, 0), count);
    assert_int_equal(op_list_kernels(c->name, NULL, NULL, 0), kernels);
    op_info info;
    assert_int_equal(op_describe(c->name, &info), OP_OK);
}

static void unregister_op__bad_names(void **state)
{
    (void)state;
    /* run, check */
    assert_int_equal(op_unregister_op(NULL), OP_ERR_INVALID_ARGUMENT);
    assert_int_equal(op_unregister_op("TestNeverRegistered"), OP_ERR_NOT_FOUND);
}

/* --- op_status_str ---------------------------------------------------------------------------- */

typedef struct status_case {
    const char *name;
    op_status status;
    const char *text;
} status_case;

static const status_case status_cases[] = {
#define STATUS_CASE_(name, value, text) {#name, name, text},
    OP_STATUS_MAP(STATUS_CASE_)
#undef STATUS_CASE_
};

static void status_str__every_status(void **state)
{
    const status_case *c = *state;
    /* run */
    const char *s = op_status_str(c->status);
    /* check: its text, and different from every other status's */
    assert_non_null(s);
    assert_string_equal(s, c->text);
    for (size_t i = 0; i < N_OF(status_cases); i++)
        if (status_cases[i].status != c->status)
            assert_string_not_equal(op_status_str(status_cases[i].status), s);
}

static void status_str__unknown_value(void **state)
{
    (void)state;
    /* run */
    const char *a = op_status_str((op_status)99);
    const char *b = op_status_str((op_status)-1);
    const char *c = op_status_str((op_status)(OP_ERR_INTERNAL + 1));
    /* check */
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    ASSERT_MSG_HAS(a, "unknown");
    ASSERT_MSG_HAS(b, "unknown");
    ASSERT_MSG_HAS(c, "unknown");
}

/* --- lookups from several threads while another registers ------------------------------------- */

enum {
    CHURN_OPS = 3,
    CHURN_ROUNDS = 300,
    READERS = 3,
    READER_ROUNDS = 300
};

typedef struct churn_state {
    atomic_bool stop;
    size_t base_count;
    size_t sum_kernels;
    uint64_t seed;
    int failures[READERS + 1];
    char why[READERS + 1][160];
} churn_state;

static const char *const churn_names[CHURN_OPS] = {"TestChurnA", "TestChurnB", "TestChurnC"};

static void churn_fail(churn_state *cs, int who, const char *why, long value)
{
    if (cs->failures[who]++ == 0)
        snprintf(cs->why[who], sizeof cs->why[who], "%s (%ld)", why, value);
}

static void *churn_writer(void *arg)
{
    churn_state *cs = arg;
    for (int r = 0; r < CHURN_ROUNDS; r++) {
        const char *name = churn_names[r % CHURN_OPS];
        op_schema s = scale_schema(name);
        op_status st = op_register_op(NULL, &s);
        if (st != OP_OK)
            churn_fail(cs, READERS, "register_op", st);
        st = op_register_kernel(NULL, name, kDLCPU, F32, scale_kernel, &scale_kernel_data);
        if (st != OP_OK)
            churn_fail(cs, READERS, "register_kernel", st);
        if (r % CHURN_OPS == CHURN_OPS - 1)
            for (int k = 0; k < CHURN_OPS; k++)
                if ((st = op_unregister_op(churn_names[k])) != OP_OK)
                    churn_fail(cs, READERS, "unregister_op", st);
    }
    for (int k = 0; k < CHURN_OPS; k++)
        op_unregister_op(churn_names[k]); /* whatever is left: NOT_FOUND is fine */
    atomic_store(&cs->stop, true);
    return NULL;
}

typedef struct reader_arg {
    churn_state *cs;
    int who;
} reader_arg;

static void *churn_reader(void *p)
{
    reader_arg *ra = p;
    churn_state *cs = ra->cs;
    int who = ra->who;
    ts_rng rng = {cs->seed + (uint64_t)who};
    op_context *ctx = NULL;
    if (op_context_create(&ctx) != OP_OK) {
        churn_fail(cs, who, "context_create", 0);
        return NULL;
    }
    enum {
        ROWS = 5,
        COLS = 33
    };
    float in[ROWS * COLS], out[ROWS * COLS];
    double ref[ROWS];
    static const int64_t shape[2] = {ROWS, COLS}, oshape[2] = {ROWS, 1}, axes[1] = {1};
    ts_tensor x, y, ys;
    ts_tensor_init(&x, in, kDLCPU, F32, 2, shape, NULL);
    ts_tensor_init(&y, out, kDLCPU, F32, 2, oshape, NULL);
    ts_tensor_init(&ys, out, kDLCPU, F32, 2, shape, NULL);
    for (int r = 0; r < READER_ROUNDS || !atomic_load(&cs->stop); r++) {
        size_t n = op_list(NULL, 0);
        if (n < cs->base_count || n > cs->base_count + CHURN_OPS)
            churn_fail(cs, who, "op_list count", (long)n);
        op_info info;
        op_status st = op_describe("ReduceSum", &info);
        if (st != OP_OK || info.num_attrs != 3)
            churn_fail(cs, who, "describe ReduceSum", st);
        if (op_list_kernels("ReduceSum", NULL, NULL, 0) != cs->sum_kernels)
            churn_fail(cs, who, "ReduceSum kernel count", 0);
        const char *name = churn_names[r % CHURN_OPS];
        st = op_describe(name, &info);
        if (st != OP_OK && st != OP_ERR_NOT_FOUND)
            churn_fail(cs, who, "describe churned op", st);
        /* a churned op: gone, there without its kernel yet, or there and correct */
        ts_fill_random(&rng, in, F32, ROWS * COLS, 1.0);
        op_context_clear(ctx);
        op_context_set_input(ctx, 0, &x.t);
        op_context_set_output(ctx, 0, &ys.t);
        st = op_run(name, ctx);
        if (st == OP_OK) {
            for (int i = 0; i < ROWS * COLS; i++)
                if (out[i] != (float)(in[i] * 2.0))
                    churn_fail(cs, who, "churned op result", i);
        } else if (st != OP_ERR_NOT_FOUND && st != OP_ERR_UNSUPPORTED) {
            churn_fail(cs, who, "run churned op", st);
        }
        /* a built-in keeps working throughout */
        op_context_clear(ctx);
        op_context_set_input(ctx, 0, &x.t);
        op_context_set_output(ctx, 0, &y.t);
        op_context_set_attr_ints(ctx, "axes", axes, 1);
        if ((st = op_run("ReduceSum", ctx)) != OP_OK) {
            churn_fail(cs, who, "run ReduceSum", st);
            continue;
        }
        ts_reference(TS_SUM, &x.t, 1u << 1, ref, NULL);
        /* f32 sums of 33 values: ts_check's f32 tolerance */
        if (!ts_check("ReduceSum during churn", out, F32, ROWS, ref, NULL, COLS, TS_SUM))
            churn_fail(cs, who, "ReduceSum result", r);
    }
    op_context_destroy(ctx);
    return NULL;
}

static void registry__lookups_while_registering(void **state)
{
    (void)state;
    /* set up */
    static churn_state cs;
    memset(&cs, 0, sizeof cs);
    cs.seed = ts_seed("registry__lookups_while_registering");
    cs.base_count = op_list(NULL, 0);
    cs.sum_kernels = op_list_kernels("ReduceSum", NULL, NULL, 0);
    pthread_t writer, readers[READERS];
    reader_arg ra[READERS];
    /* run */
    for (int i = 0; i < READERS; i++) {
        ra[i] = (reader_arg){&cs, i};
        assert_int_equal(pthread_create(&readers[i], NULL, churn_reader, &ra[i]), 0);
    }
    assert_int_equal(pthread_create(&writer, NULL, churn_writer, &cs), 0);
    pthread_join(writer, NULL);
    for (int i = 0; i < READERS; i++)
        pthread_join(readers[i], NULL);
    /* check */
    for (int i = 0; i <= READERS; i++)
        if (cs.failures[i])
            fail_msg("%s %d: %d failures, first: %s", i == READERS ? "writer" : "reader", i,
                     cs.failures[i], cs.why[i]);
    assert_int_equal(op_list(NULL, 0), cs.base_count);
}

int main(void)
{
    struct CMUnitTest tests[128];
    size_t n = 0;
    ADD_TEST(tests, n, registry__first_use_from_many_threads); /* first: nothing ran before */
    ADD_TEST(tests, n, op_list__count_sorted_and_capacity);
    ADD_CASES(tests, n, op_describe__builtin_schema, builtin_cases);
    ADD_TEST(tests, n, op_describe__bad_arguments);
    ADD_CASES(tests, n, op_list_kernels__builtin_cpu_dtypes, builtin_cases);
    ADD_TEST(tests, n, op_list_kernels__unknown_op_zero);
    ADD_TEST(tests, n, register_op__host_op_runs);
    ADD_CASES(tests, n, register_op__host_op_checked, host_cases);
    ADD_TEST(tests, n, register_op__duplicate_already_exists);
    ADD_CASES(tests, n, register_op__schema_validated, schema_cases);
    ADD_CASES(tests, n, register_kernel__validated, kernel_cases);
    ADD_CASES(tests, n, register_kernel__dispatch_by_device_and_dtype, dispatch_cases);
    ADD_TEST(tests, n, unregister_op__then_run_not_found);
    ADD_CASES(tests, n, unregister_op__builtin_rejected, builtin_cases);
    ADD_TEST(tests, n, unregister_op__bad_names);
    ADD_CASES(tests, n, status_str__every_status, status_cases);
    ADD_TEST(tests, n, status_str__unknown_value);
    ADD_TEST(tests, n, registry__lookups_while_registering);
    return _cmocka_run_group_tests("test_registry", tests, n, NULL, NULL);
}
