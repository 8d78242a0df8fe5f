/* The built-in reduce ops (register/builtin_ops.def): ONNX reduce schemas whose kernels plan
 * through opnn/reduce.h, as a plugin's would, and hand over to the CPU or CUDA launchers. */
#include "core/context_impl.h"
#include "core/tensor.h"
#include "kernel/reduce_kernels.h"
#include "opnn/reduce.h"
#include "register/registry_impl.h"

static const op_attr_def opnn__reduce_attrs[] = {OP_REDUCE_ATTR_DEFS};

/* Integer Mean of an empty set has no value (float Mean gives NaN). */
static op_status opnn__mean_of_nothing(op_kernel_ctx *kc, uint32_t mask)
{
    const DLTensor *x = op_kernel_input(kc, 0);
    if (x->dtype.code != kDLInt && x->dtype.code != kDLUInt)
        return OP_OK;
    int64_t out_n = 1, red_n = 1;
    for (int32_t d = 0; d < x->ndim; d++) {
        if (mask & (1u << d))
            red_n *= x->shape[d];
        else
            out_n *= x->shape[d];
    }
    if (red_n > 0 || out_n == 0)
        return OP_OK;
    char dt[32];
    opnn__dtype_format(x->dtype, dt, sizeof(dt));
    return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT,
                          "integer (%s) mean over an empty set of axes has no value", dt);
}

static op_status opnn__reduce_kernel(op_kernel_ctx *kc)
{
    opnn_reduce_kind kind = *(const opnn_reduce_kind *)op_kernel_data(kc);
    op_context *ctx = op_kernel_context(kc);
    uint32_t mask;
    op_status st = op_reduce_mask(kc, &mask);
    if (st == OP_OK && kind == OPNN_REDUCE_MEAN)
        st = opnn__mean_of_nothing(kc, mask);
    op_reduce_call call;
    int device = -1;
    if (st == OP_OK)
        st = opnn__reduce_prepare(kc, mask, &call, &device);
    if (st != OP_OK)
        return st;
    if (call.device == kDLCUDA)
        return opnn_cuda_reduce_on(device, call.plan, kind, call.in, call.out, call.stream,
                                   &ctx->cuda, ctx->msg, sizeof(ctx->msg));
    return opnn_cpu_reduce(call.plan, kind, call.in, call.out, ctx->msg, sizeof(ctx->msg));
}

static const opnn_reduce_kind opnn__kinds[] = {OPNN_REDUCE_SUM, OPNN_REDUCE_MEAN, OPNN_REDUCE_MAX,
                                               OPNN_REDUCE_MIN, OPNN_REDUCE_PROD};
_Static_assert(sizeof(opnn__kinds) / sizeof(opnn__kinds[0]) == OPNN_REDUCE_KIND_COUNT_,
               "one entry per reduce kind");

static const DLDataType opnn__reduce_dtypes[] = {
    {kDLFloat, 32, 1},  {kDLFloat, 64, 1}, {kDLFloat, 16, 1},
    {kDLBfloat, 16, 1}, {kDLInt, 32, 1},   {kDLInt, 64, 1},
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
        .infer = op_reduce_infer,
    };
    op_status st = opnn__builtin_op(r, &s);
    const size_t ndt = sizeof(opnn__reduce_dtypes) / sizeof(opnn__reduce_dtypes[0]);
    for (size_t i = 0; st == OP_OK && i < ndt; i++) {
        st = opnn__builtin_kernel(r, name, kDLCPU, opnn__reduce_dtypes[i], opnn__reduce_kernel,
                                  &opnn__kinds[kind]);
#if defined(OPNN_HAVE_CUDA)
        if (st == OP_OK)
            st = opnn__builtin_kernel(r, name, kDLCUDA, opnn__reduce_dtypes[i], opnn__reduce_kernel,
                                      &opnn__kinds[kind]);
#endif
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
