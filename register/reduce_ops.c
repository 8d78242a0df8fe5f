/* The built-in reduce ops: schema, shape inference, and the kernels that plan (with the
 * context's plan cache) and hand over to the CPU or CUDA launchers. */
#include <string.h>

#include "core/context_impl.h"
#include "core/plan.h"
#include "core/tensor.h"
#include "kernel/reduce_kernels.h"
#include "register/registry_impl.h"

static const op_attr_def opnn__reduce_attrs[] = {
    {"axes", OP_ATTR_INTS, 0, 0.0},
    {"keepdims", OP_ATTR_INT, 1, 0.0},
    {"noop_with_empty_axes", OP_ATTR_INT, 0, 0.0},
};

/* Reads and checks the attributes; sets *mask and *keepdims. */
static op_status opnn__reduce_attrs_read(op_kernel_ctx *kc, const DLTensor *x, uint32_t *mask,
                                         bool *keepdims)
{
    const char *name = op_kernel_op_name(kc);
    int64_t kd = op_kernel_attr_int(kc, "keepdims");
    int64_t noop = op_kernel_attr_int(kc, "noop_with_empty_axes");
    if (kd != 0 && kd != 1)
        return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT, "attribute 'keepdims' must be 0 or 1, got %lld",
                              (long long)kd);
    if (noop != 0 && noop != 1)
        return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT,
                              "attribute 'noop_with_empty_axes' must be 0 or 1, got %lld",
                              (long long)noop);
    const int64_t *axes;
    size_t n = op_kernel_attr_ints(kc, "axes", &axes);
    op_context *ctx = op_kernel_context(kc);
    op_status st = opnn__reduce_axes_mask(name, x->ndim, axes, n, noop != 0, mask, ctx->msg,
                                          sizeof(ctx->msg));
    if (st != OP_OK)
        return st;
    *keepdims = kd != 0;
    return OP_OK;
}

static op_status opnn__reduce_infer(op_kernel_ctx *kc, int index, int32_t *ndim, int64_t *shape,
                                    DLDataType *dtype)
{
    (void)index;
    const DLTensor *x = op_kernel_input(kc, 0);
    uint32_t mask;
    bool keepdims;
    op_status st = opnn__reduce_attrs_read(kc, x, &mask, &keepdims);
    if (st != OP_OK)
        return st;
    int32_t nd = 0;
    for (int32_t d = 0; d < x->ndim; d++) {
        if (!(mask & (1u << d)))
            shape[nd++] = x->shape[d];
        else if (keepdims)
            shape[nd++] = 1;
    }
    *ndim = nd;
    *dtype = x->dtype;
    return OP_OK;
}

static bool opnn__dtype_is_int(DLDataType t)
{
    return t.code == kDLInt || t.code == kDLUInt;
}

/* Finds the plan in the context's cache or makes it. For CUDA, also fills the launch geometry
 * for the current device. */
static op_status opnn__reduce_plan_get(op_kernel_ctx *kc, const DLTensor *x, uint32_t mask,
                                       const opnn_device_props *props, opnn_reduce_plan *scratch,
                                       const opnn_reduce_plan **out)
{
    op_context *ctx = op_kernel_context(kc);
    opnn_plan_key key;
    memset(&key, 0, sizeof(key));
    key.op_uid = kc->op->uid;
    key.ndim = x->ndim;
    key.device_type = (int32_t)opnn__device_kind(x->device);
    key.device_id = props ? props->device_id : -1;
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
    if (plan) {
        *out = plan;
        return OP_OK;
    }
    /* The mask is already checked; the planner takes it back as axes. */
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
    op_status st = opnn__reduce_plan_init(scratch, &req, ctx->msg, sizeof(ctx->msg));
    if (st != OP_OK)
        return st;
    if (props)
        opnn__reduce_plan_launch(scratch, props);
    opnn__plan_cache_put(ctx, &key, scratch);
    *out = scratch;
    return OP_OK;
}

/* Everything both devices do before launching: attributes, integer Mean of nothing. */
static op_status opnn__reduce_prepare(op_kernel_ctx *kc, opnn_reduce_kind kind, uint32_t *mask)
{
    const DLTensor *x = op_kernel_input(kc, 0);
    bool keepdims;
    op_status st = opnn__reduce_attrs_read(kc, x, mask, &keepdims);
    if (st != OP_OK)
        return st;
    if (kind == OPNN_REDUCE_MEAN && opnn__dtype_is_int(x->dtype)) {
        int64_t out_n = 1, red_n = 1;
        for (int32_t d = 0; d < x->ndim; d++) {
            if (*mask & (1u << d))
                red_n *= x->shape[d];
            else
                out_n *= x->shape[d];
        }
        if (red_n == 0 && out_n > 0) {
            char dt[32];
            opnn__dtype_format(x->dtype, dt, sizeof(dt));
            return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT,
                                  "integer (%s) mean over an empty set of axes has no value", dt);
        }
    }
    return OP_OK;
}

static const void *opnn__data(const DLTensor *t)
{
    return t->data ? (const char *)t->data + t->byte_offset : NULL;
}

static op_status opnn__reduce_cpu(op_kernel_ctx *kc)
{
    opnn_reduce_kind kind = *(const opnn_reduce_kind *)op_kernel_data(kc);
    uint32_t mask;
    op_status st = opnn__reduce_prepare(kc, kind, &mask);
    if (st != OP_OK)
        return st;
    const DLTensor *x = op_kernel_input(kc, 0), *y = op_kernel_output(kc, 0);
    opnn_reduce_plan scratch;
    const opnn_reduce_plan *plan;
    st = opnn__reduce_plan_get(kc, x, mask, NULL, &scratch, &plan);
    if (st != OP_OK)
        return st;
    op_context *ctx = op_kernel_context(kc);
    return opnn_cpu_reduce(plan, kind, opnn__data(x), (void *)opnn__data(y), ctx->msg,
                           sizeof(ctx->msg));
}

/* Checks a device pointer once per distinct pointer (the check is a driver call). */
static op_status opnn__cuda_pointer_ok(op_kernel_ctx *kc, int slot, const void *p,
                                       const char *arg)
{
    op_context *ctx = op_kernel_context(kc);
    if (!p || ctx->checked_ptrs[slot] == p)
        return OP_OK;
    op_status st = opnn_cuda_check_pointer(p, kc->op->name, arg, ctx->msg, sizeof(ctx->msg));
    if (st == OP_OK)
        ctx->checked_ptrs[slot] = p;
    return st;
}

static op_status opnn__reduce_cuda(op_kernel_ctx *kc)
{
    opnn_reduce_kind kind = *(const opnn_reduce_kind *)op_kernel_data(kc);
    op_context *ctx = op_kernel_context(kc);
    uint32_t mask;
    op_status st = opnn__reduce_prepare(kc, kind, &mask);
    if (st != OP_OK)
        return st;
    const DLTensor *x = op_kernel_input(kc, 0), *y = op_kernel_output(kc, 0);
    opnn_device_props props;
    st = opnn_cuda_device_props(&props, ctx->msg, sizeof(ctx->msg));
    if (st != OP_OK)
        return st;
    if (x->device.device_id != props.device_id)
        return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT,
                              "input 0 is on cuda:%d but the current device is cuda:%d; call "
                              "cudaSetDevice(%d) first",
                              (int)x->device.device_id, props.device_id, (int)x->device.device_id);
    st = opnn__cuda_pointer_ok(kc, 0, x->data, "input 0");
    if (st == OP_OK)
        st = opnn__cuda_pointer_ok(kc, 1, y->data, "output 0");
    if (st != OP_OK)
        return st;
    opnn_reduce_plan scratch;
    const opnn_reduce_plan *plan;
    st = opnn__reduce_plan_get(kc, x, mask, &props, &scratch, &plan);
    if (st != OP_OK)
        return st;
    return opnn_cuda_reduce(plan, kind, opnn__data(x), (void *)opnn__data(y), ctx->stream,
                            &ctx->cuda, ctx->msg, sizeof(ctx->msg));
}

static const opnn_reduce_kind opnn__kinds[] = {OPNN_REDUCE_SUM, OPNN_REDUCE_MEAN, OPNN_REDUCE_MAX,
                                               OPNN_REDUCE_MIN, OPNN_REDUCE_PROD};
_Static_assert(sizeof(opnn__kinds) / sizeof(opnn__kinds[0]) == OPNN_REDUCE_KIND_COUNT_,
               "one entry per reduce kind");

static const DLDataType opnn__reduce_dtypes[] = {
    {kDLFloat, 32, 1}, {kDLFloat, 64, 1}, {kDLFloat, 16, 1},
    {kDLBfloat, 16, 1}, {kDLInt, 32, 1},  {kDLInt, 64, 1},
};

static op_status opnn__register_reduce(op_registrar *r, const char *name, opnn_reduce_kind kind,
                                       const char *doc)
{
    op_schema s = {
        .name = name,
        .doc = doc,
        .num_inputs = 1,
        .num_outputs = 1,
        .attrs = opnn__reduce_attrs,
        .num_attrs = sizeof(opnn__reduce_attrs) / sizeof(opnn__reduce_attrs[0]),
        .infer = opnn__reduce_infer,
    };
    op_status st = opnn__builtin_op(r, &s);
#if defined(OPNN_HAVE_CUDA)
    const bool cuda = true;
#else
    const bool cuda = false;
#endif
    for (size_t i = 0; st == OP_OK && i < sizeof(opnn__reduce_dtypes) / sizeof(opnn__reduce_dtypes[0]); i++) {
        st = opnn__builtin_kernel(r, name, kDLCPU, opnn__reduce_dtypes[i], opnn__reduce_cpu,
                                  &opnn__kinds[kind]);
        if (st == OP_OK && cuda)
            st = opnn__builtin_kernel(r, name, kDLCUDA, opnn__reduce_dtypes[i],
                                      opnn__reduce_cuda, &opnn__kinds[kind]);
    }
    return st;
}

op_status opnn__register_builtins(op_registrar *r)
{
    op_status st = OP_OK;
#define OPNN_BUILTIN_REDUCE(name, kind, doc)                                                       \
    if (st == OP_OK)                                                                               \
        st = opnn__register_reduce(r, #name, kind, doc);
#include "register/builtin_ops.def"
#undef OPNN_BUILTIN_REDUCE
    return st;
}
