/* The CUDA reduce families instantiated for bf16 (all five built-in kinds). */
#include "kernel/cuda/reduce_dtypes.cuh"

namespace opnn {
namespace cuda {

OPNN_CUDA_REDUCE_DEFINE(bf16, __nv_bfloat16)

} // namespace cuda
} // namespace opnn
