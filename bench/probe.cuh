/* What the standalone probes in bench/ share: a CUDA call checked (exit on error, with the line),
 * a float4 sum, the 8 halves of a 16-byte vector added into float accumulators, and the median of
 * event-timed launches. */
#ifndef OPNN_BENCH_PROBE_CUH
#define OPNN_BENCH_PROBE_CUH

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <vector>

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

/* acc[e] += half e of v */
__device__ __forceinline__ void add_halves(float (&acc)[8], uint4 v)
{
    const __half2 *h = reinterpret_cast<const __half2 *>(&v);
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const float2 f = __half22float2(h[i]);
        acc[2 * i] += f.x;
        acc[2 * i + 1] += f.y;
    }
}

/* launch(i) enqueues launch i: 3 to warm up, then 20 with an event between each; the median
 * interval in us */
template <class F> float median_launch_us(F launch)
{
    cudaEvent_t ev[21];
    for (auto &e : ev)
        CK(cudaEventCreate(&e));
    for (int i = 0; i < 3; i++)
        launch(i);
    CK(cudaEventRecord(ev[0]));
    for (int i = 0; i < 20; i++) {
        launch(i);
        CK(cudaEventRecord(ev[i + 1]));
    }
    CK(cudaEventSynchronize(ev[20]));
    std::vector<float> us;
    for (int i = 0; i < 20; i++) {
        float ms;
        CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
        us.push_back(ms * 1000.0f);
    }
    for (auto &e : ev)
        CK(cudaEventDestroy(e));
    std::sort(us.begin(), us.end());
    return us[10];
}

#endif /* OPNN_BENCH_PROBE_CUH */
