/* What a streaming kernel that reads K 16-byte vectors and writes one reaches (bytes K : 1, as a
 * row reduction of K * 16 bytes a row to 16 bytes of output), against a read-only kernel in the
 * same run, over 1 GiB: how a lane's vectors lie (pat 0: K adjacent vectors a lane; pat 1: vector
 * j * 32 + lane of the warp's run), the load (ld.global.cs or .nc.L1::no_allocate), the store
 * (st.global.cs or plain) and the grid (4, 8 or 16 blocks an SM striding, or a block for every
 * 256 groups). Not part of the build: nvcc -O3 -arch=sm_90 -std=c++17 bench/rw_ceiling.cu.
 * bench/RESULTS.md (session 11) has an H200's figures. */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

#include "probe.cuh"

__device__ __forceinline__ float4 ld(const float4 *p, int mode)
{
    if (mode == 0)
        return __ldcs(p);
    if (mode == 1) {
        float4 r;
        asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
                     : "l"(p));
        return r;
    }
    return __ldg(p);
}
__device__ __forceinline__ void st(float4 *p, float4 v, int mode)
{
    if (mode == 0)
        __stcs(p, v);
    else if (mode == 1)
        *p = v;
    else
        __stcg(p, v);
}
/* PAT 0: a thread's K vectors are adjacent; PAT 1: vector j * 32 + lane of the warp's run */
template <int K, int PAT, int U>
__global__ void __launch_bounds__(256)
    rw(const float4 *in, float4 *out, int64_t groups, int ldm, int stm, int write)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x * U;
    const int lane = threadIdx.x & 31;
    for (int64_t g0 = ((int64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31)) * U; g0 < groups;
         g0 += stride) {
        float4 v[U][K];
#pragma unroll
        for (int u = 0; u < U; u++) {
            int64_t gw = g0 + u * 32;
#pragma unroll
            for (int j = 0; j < K; j++) {
                int64_t q = PAT == 0 ? (gw + lane) * K + j : gw * K + j * 32 + lane;
                if (gw + lane < groups)
                    v[u][j] = ld(in + q, ldm);
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            float4 s = v[u][0];
#pragma unroll
            for (int j = 1; j < K; j++)
                s = add4(s, v[u][j]);
            int64_t g = g0 + u * 32 + lane;
            if (g < groups) {
                if (write)
                    st(out + g, s, stm);
                else if (s.x == 1234.5f)
                    out[0] = s;
            }
        }
    }
}

template <int K, int PAT, int U>
float timeit(const float4 *in, float4 *out, int64_t groups, int grid, int ldm, int stm, int write)
{
    if (grid <= 0)
        grid = (int)((groups + 256 * U - 1) / (256 * U));
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> t;
    for (int r = 0; r < 15; r++) {
        cudaEventRecord(a);
        rw<K, PAT, U><<<grid, 256>>>(in, out, groups, ldm, stm, write);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        if (r >= 3)
            t.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

static double ceil_gbs = 0;
template <int K, int PAT, int U>
void run(const char *name, const float4 *in, float4 *out, int64_t nvec, int sms)
{
    int64_t groups = nvec / K;
    double bin = groups * K * 16.0, bout = groups * 16.0;
    int grids[] = {sms * 4, sms * 8, sms * 16, 0};
    for (int ldm = 0; ldm < 2; ldm++)
        for (int stm = 0; stm < 2; stm++)
            for (int gi = 0; gi < 4; gi++) {
                float ms = timeit<K, PAT, U>(in, out, groups, grids[gi], ldm, stm, 1);
                double gbs = (bin + bout) / ms / 1e6;
                printf("%-10s K=%2d pat=%d U=%d ld=%s st=%s grid=%-6d %8.1f us %7.0f GB/s %.3f\n",
                       name, K, PAT, U, ldm ? "nocache" : "cs", stm ? "wb" : "cs", grids[gi],
                       ms * 1e3, gbs, gbs / ceil_gbs);
            }
}

int main()
{
    int sms;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int64_t bytes = 1ll << 30, nvec = bytes / 16;
    float4 *in, *out;
    CK(cudaMalloc(&in, bytes));
    CK(cudaMalloc(&out, bytes));
    CK(cudaMemset(in, 0, bytes));
    CK(cudaMemset(out, 0, bytes));
    /* read ceiling: K=4 or 8 coalesced, no write */
    double best = 0;
    for (int g : {sms * 4, sms * 8, 0})
        for (int ldm = 0; ldm < 3; ldm++) {
            float ms = timeit<4, 1, 1>(in, out, nvec / 4, g, ldm, 0, 0);
            best = std::max(best, bytes / ms / 1e6);
            ms = timeit<8, 1, 1>(in, out, nvec / 8, g, ldm, 0, 0);
            best = std::max(best, bytes / ms / 1e6);
        }
    ceil_gbs = best;
    printf("read ceiling %.0f GB/s (1 GiB)\n", best);
    run<1, 1, 1>("copy", in, out, nvec / 2, sms);
    run<1, 1, 2>("copy", in, out, nvec / 2, sms);
    run<2, 0, 1>("run", in, out, nvec, sms);
    run<2, 1, 1>("coal", in, out, nvec, sms);
    run<2, 1, 2>("coal", in, out, nvec, sms);
    run<3, 0, 1>("run", in, out, nvec, sms);
    run<3, 1, 1>("coal", in, out, nvec, sms);
    run<4, 0, 1>("run", in, out, nvec, sms);
    run<4, 1, 1>("coal", in, out, nvec, sms);
    run<7, 1, 1>("coal", in, out, nvec, sms);
    run<8, 1, 1>("coal", in, out, nvec, sms);
    run<32, 1, 1>("coal", in, out, nvec, sms);
    return 0;
}
