/* Probe: what the last-block combine of a split reduce costs, by the way a block announces its
 * partial. A full f32 sum of N elements, G blocks of 256 threads, each thread reading 16-byte
 * vectors grid-strided 4 deep (as opnn's full_kernel); each block's sum goes to partials[b] and
 * the last block to arrive combines them in block order. Tails:
 *   all:    every thread fences, a barrier, thread 0 counts (atomicAdd), a barrier, the last
 *           block's threads fence again (opnn's arrive_last);
 *   one:    a barrier, then thread 0 alone fences and counts (and fences again if last): the
 *           barrier orders the block's writes before thread 0's fence (as a grid sync does);
 *   acqrel: a barrier, then thread 0 counts with one acquire-release atomic, no fences;
 *   none:   partials only, no output (the bound with no tail).
 * Inputs are rotated among buffers that together exceed the L2. Times: the median of 200 calls
 * with an event between each (as `opnn bench` times op_run), and the mean of 200 back to back.
 * Outputs are checked against a double CPU sum and against each other (bitwise). Not part of
 * the build:
 *   nvcc -O3 -arch=sm_90 -std=c++17 bench/tail_probe.cu -o tail_probe && ./tail_probe [N G]... */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda/atomic>
#include <vector>

#include "probe.cuh"

enum {
    ALL = 0,
    ONE = 1,
    ACQREL = 2,
    NONE = 3,
    NTAIL = 4
};
static const char *tail_name[NTAIL] = {"all", "one", "acqrel", "none"};
constexpr int kThreads = 256, kDepth = 4;

__device__ __forceinline__ float block_sum(float v, float *s_warp)
{
    for (int o = 16; o; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();
    if ((threadIdx.x & 31) == 0)
        s_warp[threadIdx.x >> 5] = v;
    __syncthreads();
    v = threadIdx.x < kThreads / 32 ? s_warp[threadIdx.x] : 0.f;
    if (threadIdx.x < 32)
        for (int o = 16; o; o >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

template <int TAIL>
__global__ void __launch_bounds__(kThreads)
    sum_kernel(const float4 *in, int64_t nv, float *parts, unsigned *counter, float *out)
{
    __shared__ float s_warp[32];
    __shared__ int s_last;
    const int64_t S = (int64_t)gridDim.x * kThreads;
    int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    float acc[kDepth] = {0.f, 0.f, 0.f, 0.f};
    for (; i < nv; i += kDepth * S) {
        float4 v[kDepth];
#pragma unroll
        for (int u = 0; u < kDepth; u++)
            v[u] = i + u * S < nv ? __ldg(in + i + u * S) : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
        for (int u = 0; u < kDepth; u++)
            acc[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    float v = block_sum((acc[0] + acc[1]) + (acc[2] + acc[3]), s_warp);
    if (threadIdx.x == 0)
        parts[blockIdx.x] = v;
    if (TAIL == NONE)
        return;
    if (TAIL == ALL) {
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0) {
            const unsigned prev = atomicAdd(counter, 1u);
            s_last = prev == gridDim.x - 1;
            if (s_last)
                atomicExch(counter, 0u);
        }
        __syncthreads();
        if (s_last)
            __threadfence();
    } else {
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned prev;
            if (TAIL == ONE) {
                __threadfence();
                prev = atomicAdd(counter, 1u);
            } else {
                cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter);
                prev = c.fetch_add(1u, cuda::memory_order_acq_rel);
            }
            s_last = prev == gridDim.x - 1;
            if (s_last) {
                if (TAIL == ONE)
                    __threadfence();
                *counter = 0u; /* no other block touches it until the next launch */
            }
        }
        __syncthreads();
    }
    if (!s_last)
        return;
    float a = 0.f;
    for (int j = threadIdx.x; j < (int)gridDim.x; j += kThreads)
        a += __ldcg(parts + j);
    a = block_sum(a, s_warp);
    if (threadIdx.x == 0)
        *out = a;
}

typedef void (*kfn)(const float4 *, int64_t, float *, unsigned *, float *);
static const kfn kernels[NTAIL] = {sum_kernel<ALL>, sum_kernel<ONE>, sum_kernel<ACQREL>,
                                   sum_kernel<NONE>};

int main(int argc, char **argv)
{
    std::vector<std::pair<int64_t, int>> cases;
    for (int i = 1; i + 1 < argc; i += 2)
        cases.push_back({atoll(argv[i]), atoi(argv[i + 1])});
    if (cases.empty())
        cases = {{1000000, 244},   {4000000, 264}, {16000000, 528},
                 {64000000, 1056}, {262144, 64},   {1048576, 256}};
    int l2 = 0;
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    float *parts, *out;
    unsigned *counter;
    CK(cudaMalloc(&parts, 1 << 20));
    CK(cudaMalloc(&out, 64));
    CK(cudaMalloc(&counter, 64));
    CK(cudaMemset(counter, 0, 64));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    printf("N G | tail: median with events / mean back to back (us) | checks\n");
    for (auto [n, g] : cases) {
        const int64_t nv = n / 4, bytes = nv * 16;
        int nbuf = (int)std::min<int64_t>(64, std::max<int64_t>(1, (4LL * l2 + bytes - 1) / bytes));
        std::vector<float4 *> bufs(nbuf);
        std::vector<float> h(nv * 4);
        double ref = 0;
        for (int64_t k = 0; k < nv * 4; k++) {
            h[k] = (float)((k * 2654435761u) % 1000) / 1000.f - 0.5f;
            ref += h[k];
        }
        for (auto &b : bufs) {
            CK(cudaMalloc(&b, bytes));
            CK(cudaMemcpy(b, h.data(), bytes, cudaMemcpyHostToDevice));
        }
        printf("%lld %d |", (long long)n, g);
        unsigned bits[NTAIL] = {};
        for (int t = 0; t < NTAIL; t++) {
            cudaEvent_t ev[201];
            for (auto &e : ev)
                CK(cudaEventCreate(&e));
            for (int w = 0; w < 20; w++)
                kernels[t]<<<g, kThreads, 0, s>>>(bufs[w % nbuf], nv, parts, counter, out);
            CK(cudaEventRecord(ev[0], s));
            for (int r = 0; r < 200; r++) {
                kernels[t]<<<g, kThreads, 0, s>>>(bufs[r % nbuf], nv, parts, counter, out);
                CK(cudaEventRecord(ev[r + 1], s));
            }
            CK(cudaStreamSynchronize(s));
            std::vector<float> dt(200);
            for (int r = 0; r < 200; r++)
                CK(cudaEventElapsedTime(&dt[r], ev[r], ev[r + 1]));
            std::sort(dt.begin(), dt.end());
            cudaEvent_t a, b;
            CK(cudaEventCreate(&a));
            CK(cudaEventCreate(&b));
            CK(cudaEventRecord(a, s));
            for (int r = 0; r < 200; r++)
                kernels[t]<<<g, kThreads, 0, s>>>(bufs[r % nbuf], nv, parts, counter, out);
            CK(cudaEventRecord(b, s));
            CK(cudaStreamSynchronize(s));
            float tot = 0;
            CK(cudaEventElapsedTime(&tot, a, b));
            float o = 0;
            CK(cudaMemcpy(&o, out, 4, cudaMemcpyDeviceToHost));
            memcpy(&bits[t], &o, 4);
            const bool ok = t == NONE || std::fabs(o - ref) <= 1e-3 * (1 + std::fabs(ref));
            printf(" %s %.2f / %.2f%s |", tail_name[t], dt[100] * 1e3, tot / 200 * 1e3,
                   ok ? "" : " WRONG");
            for (auto &e : ev)
                cudaEventDestroy(e);
            cudaEventDestroy(a);
            cudaEventDestroy(b);
            CK(cudaMemset(out, 0, 4));
        }
        printf(" bitwise %s\n",
               bits[ALL] == bits[ONE] && bits[ONE] == bits[ACQREL] ? "equal" : "DIFFER");
        for (auto &b : bufs)
            CK(cudaFree(b));
    }
    return 0;
}
