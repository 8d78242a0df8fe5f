/* The CUDA reduce families instantiated for f16 (all five built-in kinds). */
#include "kernel/cuda/reduce_dtypes.cuh"

namespace opnn {
namespace cuda {

OPNN_CUDA_REDUCE_DEFINE(f16, __half)

} // namespace cuda
} // namespace opnn
