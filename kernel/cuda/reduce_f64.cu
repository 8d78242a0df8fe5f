/* The CUDA reduce families instantiated for f64 (all five built-in kinds). */
#include "kernel/cuda/reduce_dtypes.cuh"

namespace opnn {
namespace cuda {

OPNN_CUDA_REDUCE_DEFINE(f64, double)

} // namespace cuda
} // namespace opnn
