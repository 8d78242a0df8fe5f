/* The CUDA reduce families instantiated for i32 (all five built-in kinds). */
#include "kernel/cuda/reduce_dtypes.cuh"

namespace opnn {
namespace cuda {

OPNN_CUDA_REDUCE_DEFINE(i32, int32_t)

} // namespace cuda
} // namespace opnn
