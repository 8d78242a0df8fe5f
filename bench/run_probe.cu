/* Probe: what the run-of-vectors plans (opnn's outer kernel, STG) pay for their access pattern
 * alone. A grid of G blocks reads n 16-byte vectors grid-stride as STG does: NT active threads a
 * block (STG's NT: the most that are a multiple of b / gcd(b, elements a vector), 255 for 3
 * columns), thread t of block s taking vectors s * NT + t + k * G * NT, U = 4 loads in flight,
 * every element folded into a float accumulator a lane; then a block tree and one store a block
 * (no partials combined: the tail is not timed here). A warp's 32 vectors are 128-byte aligned
 * only where NT is a multiple of 8. Varying G and NT separates three things the planner's STG
 * plan differs in from the read kernel (528 blocks of 256): the grid, the idle threads, and the
 * warps' alignment. Times are median event intervals of 20 launches, inputs rotated among
 * buffers that together pass 4 times the L2. Not part of the build:
 *   nvcc -O3 -arch=sm_90 -std=c++17 bench/run_probe.cu -o run_probe && ./run_probe */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_fp16.h>
#include <vector>

#include "probe.cuh"

constexpr int kThreads = 256, U = 4;

/* acc[e] += element e of v (8 halves or 4 floats) */
template <int L> __device__ __forceinline__ void fold_vec(float (&acc)[L], uint4 v)
{
    if constexpr (L == 8) {
        add_halves(acc, v);
    } else {
        acc[0] += __uint_as_float(v.x);
        acc[1] += __uint_as_float(v.y);
        acc[2] += __uint_as_float(v.z);
        acc[3] += __uint_as_float(v.w);
    }
}

template <bool HALF>
__global__ void __launch_bounds__(kThreads)
    run_read(const uint4 *in, int64_t n, int nt, float *sink)
{
    constexpr int L = HALF ? 8 : 4;
    float acc[L] = {};
    const int t = threadIdx.x;
    if (t < nt) {
        const int64_t step = (int64_t)gridDim.x * nt;
        int64_t i = (int64_t)blockIdx.x * nt + t;
        for (; i + (U - 1) * step < n; i += U * step) {
            uint4 v[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                    : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w)
                    : "l"(in + i + u * step));
#pragma unroll
            for (int u = 0; u < U; u++)
                fold_vec(acc, v[u]);
        }
        for (; i < n; i += step)
            fold_vec(acc, in[i]);
    }
    float s = 0;
#pragma unroll
    for (int j = 0; j < L; j++)
        s += acc[j];
    for (int o = 16; o > 0; o /= 2)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    __shared__ float w[kThreads / 32];
    if ((t & 31) == 0)
        w[t >> 5] = s;
    __syncthreads();
    if (t == 0) {
        for (int k = 1; k < kThreads / 32; k++)
            s += w[k];
        sink[blockIdx.x] = s;
    }
}

int main()
{
    int sms = 0, l2 = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    const int64_t sizes[] = {(int64_t)22369621 * 3 * 2, (int64_t)33554432 * 3 * 4,
                             (int64_t)8388608 * 17 * 4};
    const char *names[] = {"f16 [22369621, 3]", "f32 [33554432, 3]", "f32 [8388608, 17]"};
    const bool half[] = {true, false, false};
    float *sink;
    CK(cudaMalloc(&sink, 4096 * sizeof(float)));
    for (int c = 0; c < 3; c++) {
        const int64_t bytes = sizes[c], n = bytes / 16;
        const int nbuf = (int)std::min<int64_t>(8, (4 * (int64_t)l2 + bytes - 1) / bytes + 1);
        std::vector<uint4 *> buf(nbuf);
        for (auto &b : buf) {
            CK(cudaMalloc(&b, bytes));
            CK(cudaMemset(b, 0, bytes));
        }
        printf("%s: %lld bytes, %d buffers\n", names[c], (long long)bytes, nbuf);
        const int grids[] = {4 * sms, 507, 3 * sms, 2 * sms};
        const int nts[] = {256, 255, 252, 240, 238, 224};
        for (int g : grids)
            for (int nt : nts) {
                const float us = median_launch_us([&](int i) {
                    if (half[c])
                        run_read<true><<<g, kThreads>>>(buf[i % nbuf], n, nt, sink);
                    else
                        run_read<false><<<g, kThreads>>>(buf[i % nbuf], n, nt, sink);
                });
                CK(cudaGetLastError());
                printf("  grid %4d NT %3d%s: %7.1f us %6.0f GB/s\n", g, nt,
                       nt % 8 ? "          " : " (aligned)", us, bytes / us * 1e-3);
            }
        for (auto &b : buf)
            CK(cudaFree(b));
    }
    return 0;
}
