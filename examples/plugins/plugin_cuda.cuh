/* The CUDA side of a reduce plugin op, shared by the example plugins: plan, workspace, launch of
 * an operator struct (opnn/cuda/reduce_ops.cuh), and the dispatch from a DLPack dtype to the
 * element type the operator is instantiated for. */
#ifndef OPNN_EXAMPLE_PLUGIN_CUDA_CUH
#define OPNN_EXAMPLE_PLUGIN_CUDA_CUH

#include <opnn/cuda/reduce.cuh>
#include <opnn/opnn.h>

namespace plugin {

/* Reduces input 0 over mask into output 0 with operator op: op_reduce_prepare (the planner and
 * its cache), op_reduce_cuda_workspace, opnn::cuda::reduce; enqueued on the context's stream. */
template <class Op> op_status cuda_reduce(op_kernel_ctx *kc, uint32_t mask, const Op &op)
{
    op_reduce_call call;
    op_reduce_workspace ws;
    op_status st = op_reduce_prepare(kc, mask, &call);
    if (st != OP_OK)
        return st;
    if (call.device != kDLCUDA)
        return op_kernel_fail(kc, OP_ERR_UNSUPPORTED, "a CUDA kernel got tensors on device %d",
                              (int)call.device);
    st = op_reduce_cuda_workspace(kc, call.plan, &ws);
    if (st != OP_OK)
        return st;
    char msg[256] = "";
    st = opnn::cuda::reduce(op, call.plan, call.in, call.out, (cudaStream_t)call.stream, ws, msg,
                            sizeof(msg));
    return st == OP_OK ? OP_OK : op_kernel_fail(kc, st, "%s", msg);
}

template <class T> struct type_tag {
    using type = T;
};

/* Calls f(type_tag<T>()) for the element type T of dtype t: the four float types, and with
 * Ints the two integer ones too. Others: OP_ERR_UNSUPPORTED. */
template <bool Ints, class F> op_status with_dtype(op_kernel_ctx *kc, DLDataType t, F &&f)
{
    if (t.code == kDLFloat && t.bits == 32)
        return f(type_tag<float>());
    if (t.code == kDLFloat && t.bits == 64)
        return f(type_tag<double>());
    if (t.code == kDLFloat && t.bits == 16)
        return f(type_tag<__half>());
    if (t.code == kDLBfloat && t.bits == 16)
        return f(type_tag<__nv_bfloat16>());
    if constexpr (Ints) {
        if (t.code == kDLInt && t.bits == 32)
            return f(type_tag<int32_t>());
        if (t.code == kDLInt && t.bits == 64)
            return f(type_tag<int64_t>());
    }
    return op_kernel_fail(kc, OP_ERR_UNSUPPORTED, "no CUDA kernel for dtype code %u bits %u",
                          (unsigned)t.code, (unsigned)t.bits);
}

} // namespace plugin

#endif /* OPNN_EXAMPLE_PLUGIN_CUDA_CUH */
