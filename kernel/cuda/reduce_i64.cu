/* The CUDA reduce families instantiated for i64 (all five built-in kinds). */
#include "kernel/cuda/reduce_dtypes.cuh"

namespace opnn {
namespace cuda {

OPNN_CUDA_REDUCE_DEFINE(i64, int64_t)

} // namespace cuda
} // namespace opnn
