/* What the standalone probes in bench/ (rw_ceiling.cu, cluster_combine.cu) share: a CUDA call
 * checked (exit on error, with the line) and a float4 sum. */
#ifndef OPNN_BENCH_PROBE_CUH
#define OPNN_BENCH_PROBE_CUH

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            printf("CUDA %s line %d\n", cudaGetErrorString(e_), __LINE__);                         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

__device__ __forceinline__ float4 add4(float4 a, float4 b)
{
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

#endif /* OPNN_BENCH_PROBE_CUH */
