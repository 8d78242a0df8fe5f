/* The CUDA reduce families instantiated for f32 (all five built-in kinds). */
#include "kernel/cuda/reduce_dtypes.cuh"

namespace opnn {
namespace cuda {

OPNN_CUDA_REDUCE_DEFINE(f32, float)

} // namespace cuda
} // namespace opnn
