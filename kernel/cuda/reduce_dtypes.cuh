/* The built-in reduce kinds for one element type: one function per dtype, each defined in its own
 * reduce_<dtype>.cu so the instantiations compile in parallel. Internal to kernel/cuda. */
#ifndef OPNN_KERNEL_CUDA_REDUCE_DTYPES_CUH
#define OPNN_KERNEL_CUDA_REDUCE_DTYPES_CUH

#include "opnn/cuda/reduce.cuh"
extern "C" {
#include "kernel/reduce_kernels.h"
}

namespace opnn {
namespace cuda {

#define OPNN_CUDA_REDUCE_DTYPES(X)                                                                 \
    X(f32, float)                                                                                  \
    X(f64, double)                                                                                 \
    X(f16, __half)                                                                                 \
    X(bf16, __nv_bfloat16)                                                                         \
    X(i32, int32_t)                                                                                \
    X(i64, int64_t)

#define OPNN_CUDA_REDUCE_DECLARE_(name, T)                                                         \
    op_status reduce_##name(const opnn_reduce_plan *plan, opnn_reduce_kind kind, const void *in,   \
                            void *out, cudaStream_t stream, const workspace &ws, char *msg,        \
                            size_t msg_len);
OPNN_CUDA_REDUCE_DTYPES(OPNN_CUDA_REDUCE_DECLARE_)
#undef OPNN_CUDA_REDUCE_DECLARE_

/* Defines reduce_<name>: the five built-in kinds over element type T. */
#define OPNN_CUDA_REDUCE_DEFINE(name, T)                                                           \
    op_status reduce_##name(const opnn_reduce_plan *plan, opnn_reduce_kind kind, const void *in,   \
                            void *out, cudaStream_t stream, const workspace &ws, char *msg,        \
                            size_t msg_len)                                                        \
    {                                                                                              \
        switch (kind) {                                                                            \
        case OPNN_REDUCE_SUM:                                                                      \
            return reduce(sum_op<T>(), plan, in, out, stream, ws, msg, msg_len);                   \
        case OPNN_REDUCE_MEAN:                                                                     \
            return reduce(mean_op<T>(), plan, in, out, stream, ws, msg, msg_len);                  \
        case OPNN_REDUCE_MAX:                                                                      \
            return reduce(max_op<T>(), plan, in, out, stream, ws, msg, msg_len);                   \
        case OPNN_REDUCE_MIN:                                                                      \
            return reduce(min_op<T>(), plan, in, out, stream, ws, msg, msg_len);                   \
        case OPNN_REDUCE_PROD:                                                                     \
            return reduce(prod_op<T>(), plan, in, out, stream, ws, msg, msg_len);                  \
        default:                                                                                   \
            if (msg && msg_len)                                                                    \
                snprintf(msg, msg_len, "CUDA reduce: unknown reduce kind %d", (int)kind);          \
            return OP_ERR_INVALID_ARGUMENT;                                                        \
        }                                                                                          \
    }

} // namespace cuda
} // namespace opnn

#endif /* OPNN_KERNEL_CUDA_REDUCE_DTYPES_CUH */
