/* The reduce building blocks of opnn/reduce.h: attributes, shape inference, and planning with
 * the context's plan cache. The built-in reduce ops use them exactly as a plugin does. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/context_impl.h"
#include "core/plan.h"
#include "core/tensor.h"
#include "kernel/reduce_kernels.h"
#include "opnn/reduce.h"
#include "register/registry_impl.h"

/* op_reduce_mask, and keepdims, from the context's memo when the op, its input rank and the
 * attributes are those of a previous call that passed (opnn__lookup drops the memo when the
 * registry epoch moves). */
static op_status opnn__reduce_attrs(op_kernel_ctx *kc, uint32_t *mask, bool *keepdims)
{
    op_context *ctx = op_kernel_context(kc);
    const DLTensor *x = op_kernel_input(kc, 0);
    if (ctx->memo.reduce_op == kc->op && ctx->memo.reduce_gen == ctx->attr_gen &&
        ctx->memo.reduce_ndim == x->ndim) {
        *mask = ctx->memo.reduce_mask;
        *keepdims = ctx->memo.reduce_keepdims;
        return OP_OK;
    }
    int64_t kd = op_kernel_attr_int(kc, "keepdims");
    int64_t noop = op_kernel_attr_int(kc, "noop_with_empty_axes");
    if (kd != 0 && kd != 1)
        return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT,
                              "attribute 'keepdims' must be 0 or 1, got %lld", (long long)kd);
    if (noop != 0 && noop != 1)
        return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT,
                              "attribute 'noop_with_empty_axes' must be 0 or 1, got %lld",
                              (long long)noop);
    const int64_t *axes;
    size_t n = op_kernel_attr_ints(kc, "axes", &axes);
    op_status st = opnn__reduce_axes_mask(op_kernel_op_name(kc), x->ndim, axes, n, noop != 0, mask,
                                          ctx->msg, sizeof(ctx->msg));
    if (st != OP_OK)
        return st;
    *keepdims = kd != 0;
    ctx->memo.reduce_op = kc->op;
    ctx->memo.reduce_gen = ctx->attr_gen;
    ctx->memo.reduce_ndim = x->ndim;
    ctx->memo.reduce_mask = *mask;
    ctx->memo.reduce_keepdims = *keepdims;
    return OP_OK;
}

op_status op_reduce_mask(op_kernel_ctx *kc, uint32_t *mask)
{
    bool keepdims = false;
    return opnn__reduce_attrs(kc, mask, &keepdims);
}

void op_reduce_shape(const DLTensor *x, uint32_t mask, bool keepdims, int32_t *ndim, int64_t *shape)
{
    int32_t nd = 0;
    for (int32_t d = 0; d < x->ndim; d++) {
        if (!(mask & (1u << d)))
            shape[nd++] = x->shape[d];
        else if (keepdims)
            shape[nd++] = 1;
    }
    *ndim = nd;
}

op_status op_reduce_infer(op_kernel_ctx *kc, int index, int32_t *ndim, int64_t *shape,
                          DLDataType *dtype)
{
    (void)index;
    const DLTensor *x = op_kernel_input(kc, 0);
    uint32_t mask;
    bool keepdims = false;
    op_status st = opnn__reduce_attrs(kc, &mask, &keepdims);
    if (st != OP_OK)
        return st;
    op_reduce_shape(x, mask, keepdims, ndim, shape);
    *dtype = x->dtype;
    return OP_OK;
}

/* Checks a device pointer once while it stays among the context's recently checked ones. */
static op_status opnn__cuda_pointer_ok(op_kernel_ctx *kc, const void *p, const char *arg)
{
    op_context *ctx = op_kernel_context(kc);
    const void **seen = ctx->checked_ptrs;
    if (!p)
        return OP_OK;
    for (int i = 0; i < OPNN_CHECKED_PTRS; i++)
        if (seen[i] == p)
            return OP_OK;
    op_status st = opnn_cuda_check_pointer(p, kc->op->name, arg, ctx->msg, sizeof(ctx->msg));
    if (st == OP_OK) {
        memmove(seen + 1, seen, (OPNN_CHECKED_PTRS - 1) * sizeof(*seen));
        seen[0] = p;
    }
    return st;
}

/* OPNN_CUDA_PLAN_SMS=N in the environment: CUDA plans are made as if the device had N of its
 * SMs (1 to all of them), for tests and tuning; every plan is correct on any device, only its
 * speed changes. Read when a plan is made (a context's cached plans keep theirs). */
static op_status opnn__plan_sms(op_kernel_ctx *kc, opnn_device_props *props)
{
    const char *v = getenv("OPNN_CUDA_PLAN_SMS");
    char *end = NULL;
    long n;

    if (!v)
        return OP_OK;
    errno = 0;
    n = strtol(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || n < 1 || n > props->sm_count)
        return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT,
                              "OPNN_CUDA_PLAN_SMS is \"%s\": it must be a count of SMs from 1 to "
                              "the device's %d",
                              v, props->sm_count);
    props->sm_count = (int)n;
    return OP_OK;
}

static void *opnn__data(const DLTensor *t)
{
    return t->data ? (char *)t->data + t->byte_offset : NULL;
}

op_status op_reduce_prepare(op_kernel_ctx *kc, uint32_t mask, op_reduce_call *call)
{
    int device;
    return opnn__reduce_prepare(kc, mask, call, &device);
}

op_status opnn__reduce_prepare(op_kernel_ctx *kc, uint32_t mask, op_reduce_call *call, int *device)
{
    op_context *ctx = op_kernel_context(kc);
    const DLTensor *x = op_kernel_input(kc, 0), *y = op_kernel_output(kc, 0);
    DLDeviceType dev = opnn__device_kind(x->device);
    opnn_device_props props;
    op_status st;
    if (dev == kDLCUDA) {
        st = opnn_cuda_device_props(&props, ctx->msg, sizeof(ctx->msg));
        if (st != OP_OK)
            return st;
        if (x->device.device_id != props.device_id)
            return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT,
                                  "input 0 is on cuda:%d but the current device is cuda:%d; "
                                  "call cudaSetDevice(%d) first",
                                  (int)x->device.device_id, props.device_id,
                                  (int)x->device.device_id);
        st = opnn__cuda_pointer_ok(kc, x->data, "input 0");
        if (st == OP_OK)
            st = opnn__cuda_pointer_ok(kc, y->data, "output 0");
        if (st != OP_OK)
            return st;
    } else if (dev != kDLCPU) {
        return op_kernel_fail(kc, OP_ERR_UNSUPPORTED, "reductions on %s are not served",
                              opnn__device_name(dev));
    }

    opnn_plan_key key;
    memset(&key, 0, sizeof(key)); /* compared bytewise */
    key.op_uid = kc->op->uid;
    key.ndim = x->ndim;
    key.device_type = (int32_t)dev;
    key.device_id = dev == kDLCUDA ? props.device_id : -1;
    key.mask = mask;
    key.dtype = x->dtype;
    int64_t compact = 1;
    for (int32_t d = x->ndim - 1; d >= 0; d--) {
        key.shape[d] = x->shape[d];
        key.strides[d] = x->strides ? x->strides[d] : compact;
        compact *= x->shape[d];
    }
    uint64_t epoch = opnn__registry_epoch();
    const opnn_reduce_plan *plan = opnn__plan_cache_get(ctx, &key, epoch);
    if (!plan) {
        int64_t axes[OP_MAX_DIMS];
        size_t n = 0;
        for (int32_t d = 0; d < x->ndim; d++)
            if (mask & (1u << d))
                axes[n++] = d;
        opnn_reduce_request req = {
            .op = kc->op->name,
            .ndim = x->ndim,
            .shape = key.shape,
            .strides = key.strides,
            .axes = axes,
            .num_axes = n,
            .noop_with_empty_axes = true, /* n == 0 here means "nothing reduced" */
            .dtype = x->dtype,
        };
        opnn_reduce_plan *fresh = &ctx->plan_scratch;
        st = opnn__reduce_plan_init(fresh, &req, ctx->msg, sizeof(ctx->msg));
        if (st != OP_OK)
            return st;
        if (dev == kDLCUDA) {
            st = opnn__plan_sms(kc, &props);
            if (st != OP_OK)
                return st;
            opnn__reduce_plan_launch(fresh, &props);
        }
        opnn__plan_cache_put(ctx, &key, fresh);
        plan = fresh; /* the cache holds a copy; the scratch one lives until the next call */
    }
    call->plan = plan;
    call->in = opnn__data(x);
    call->out = opnn__data(y);
    call->stream = ctx->stream;
    call->device = dev;
    *device = dev == kDLCUDA ? props.device_id : -1;
    return OP_OK;
}

op_status op_reduce_cuda_workspace(op_kernel_ctx *kc, const op_reduce_plan *plan,
                                   op_reduce_workspace *ws)
{
    op_context *ctx = op_kernel_context(kc);
    if (!plan || !ws)
        return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT, "op_reduce_cuda_workspace: NULL %s",
                              plan ? "ws" : "plan");
    op_status st =
        opnn_cuda_workspace(plan, ctx->stream, -1, &ctx->cuda, ws, ctx->msg, sizeof(ctx->msg));
    return st;
}
