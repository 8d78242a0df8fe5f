/* Probe: what the tail of a split column reduce costs, and what combining the split inside a
 * thread-block cluster (distributed shared memory) would save. A column sum of [R, C] f32 over
 * axis 0: a block takes W = TX * 4 columns (a 16-byte load a thread) and one of S row slices;
 * the S blocks of a tile are consecutive, so that with cluster dims (S, 1, 1) they form one
 * cluster. Three tails:
 *   global:  each block stores its partial, fences and counts; the last of the S combines them
 *            in slice order from L2 (what opnn's column kernels do, one launch);
 *   cluster: each block keeps its partial in shared memory; after a cluster barrier, rank 0 reads
 *            the S partials in slice order through distributed shared memory, writes the output;
 *            a second barrier keeps the others resident until it has read them;
 *   none:    each block stores its partial and exits (no output: the bound with no tail).
 * Inputs are rotated among buffers that together exceed the L2. Times: 64 launches with an event
 * between each, as `opnn bench` times op_run, and the median interval (or, with a third argument
 * 0, no events between them, and the average); the best of 5. The global and cluster outputs are
 * compared with a double CPU sum and with each other (bitwise: same order). Not part of the build:
 *   nvcc -O3 -arch=sm_90 -std=c++17 bench/cluster_combine.cu -o cluster_combine
 *   ./cluster_combine [R C [TIMING]]    (default: a few shapes, median event intervals)
 * bench/RESULTS.md (session 20) has an H200's figures. */
#include <algorithm>
#include <cmath>
#include <cooperative_groups.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#include "probe.cuh"

namespace cg = cooperative_groups;

enum {
    GLOBAL = 0,
    CLUSTER = 1,
    NONE = 2
};
constexpr int kThreads = 256;

__device__ __forceinline__ float4 ld_stream(const float4 *p)
{
    float4 r;
    asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
                 : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
                 : "l"(p));
    return r;
}

template <int MODE, int TX, int U>
__global__ void __launch_bounds__(kThreads)
    colsum(const float *__restrict__ in, float *out, float4 *parts, unsigned *counters, int64_t R,
           int64_t C, int S)
{
    constexpr int TY = kThreads / TX;
    __shared__ float4 s_tree[TY][TX];
    __shared__ float4 s_res[TX];
    __shared__ int s_last;
    const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
    const int64_t tile = blockIdx.x / S, slice = blockIdx.x % S;
    const int64_t rs = (R + S - 1) / S, r_lo = slice * rs, r_hi = min(R, r_lo + rs);
    const int64_t c4 = C / 4, col4 = tile * TX + tx; /* this thread's 16-byte column */
    const float4 *p = reinterpret_cast<const float4 *>(in) + col4;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    int64_t r = r_lo + ty;
    for (; r + (U - 1) * TY < r_hi; r += U * TY) {
        float4 x[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            x[u] = ld_stream(p + (r + u * TY) * c4);
#pragma unroll
        for (int u = 0; u < U; u++)
            acc = add4(acc, x[u]);
    }
    for (; r < r_hi; r += TY)
        acc = add4(acc, ld_stream(p + r * c4));
    s_tree[ty][tx] = acc;
    __syncthreads();
    float4 res = s_tree[0][tx];
    if (ty == 0)
        for (int j = 1; j < TY; j++)
            res = add4(res, s_tree[j][tx]);

    if constexpr (MODE == CLUSTER) {
        cg::cluster_group cl = cg::this_cluster();
        if (ty == 0)
            s_res[tx] = res;
        cl.sync();
        if (cl.block_rank() == 0 && ty == 0) {
            float4 v = *cl.map_shared_rank(&s_res[tx], 0);
            for (int j = 1; j < S; j++)
                v = add4(v, *cl.map_shared_rank(&s_res[tx], j));
            reinterpret_cast<float4 *>(out)[col4] = v;
        }
        cl.sync(); /* the others stay until rank 0 has read their partials */
        return;
    }
    float4 *part = parts + tile * S * TX;
    if (ty == 0)
        part[slice * TX + tx] = res;
    if constexpr (MODE == GLOBAL) {
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0) {
            const unsigned prev = atomicAdd(counters + tile, 1u);
            s_last = prev == (unsigned)S - 1;
            if (s_last)
                atomicExch(counters + tile, 0u);
        }
        __syncthreads();
        if (!s_last)
            return;
        __threadfence();
        if (ty == 0) {
            float4 v = __ldcg(part + tx);
            for (int j = 1; j < S; j++)
                v = add4(v, __ldcg(part + j * TX + tx));
            reinterpret_cast<float4 *>(out)[col4] = v;
        }
    }
}

/* The launch of colsum<MODE, ...>: a block a (tile, slice); with CLUSTER, the S slices of a tile
 * one cluster */
struct launch_config {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];

    launch_config(int mode, int TX, int64_t C, int S)
    {
        cfg.gridDim = dim3((unsigned)(C / (TX * 4) * S));
        cfg.blockDim = dim3(kThreads);
        if (mode == CLUSTER) {
            attr[0].id = cudaLaunchAttributeClusterDimension;
            attr[0].val.clusterDim = {(unsigned)S, 1, 1};
            cfg.attrs = attr;
            cfg.numAttrs = 1;
        }
    }
};

template <int MODE, int TX, int U>
static void launch(const float *in, float *out, float4 *parts, unsigned *counters, int64_t R,
                   int64_t C, int S)
{
    launch_config l(MODE, TX, C, S);
    CK(cudaLaunchKernelEx(&l.cfg, colsum<MODE, TX, U>, in, out, parts, counters, R, C, S));
}

struct bufs {
    std::vector<float *> in;
    float *out;
    float4 *parts;
    unsigned *counters;
};

static int TIMING = 1; /* 1: median event interval (as opnn bench); 0: average, no events between */

template <int MODE, int TX, int U> static double time_us(bufs &b, int64_t R, int64_t C, int S)
{
    if (MODE == CLUSTER) {
        CK(cudaFuncSetAttribute(colsum<MODE, TX, U>, cudaFuncAttributeNonPortableClusterSizeAllowed,
                                1));
        launch_config l(MODE, TX, C, S);
        int nclusters = 0;
        if (cudaOccupancyMaxActiveClusters(&nclusters, colsum<MODE, TX, U>, &l.cfg) !=
                cudaSuccess ||
            nclusters == 0) {
            cudaGetLastError();
            return -1.0;
        }
    }
    const int n = 64, nb = (int)b.in.size();
    std::vector<cudaEvent_t> ev(n + 1);
    for (auto &e : ev)
        CK(cudaEventCreate(&e));
    for (int i = 0; i < 8; i++)
        launch<MODE, TX, U>(b.in[i % nb], b.out, b.parts, b.counters, R, C, S);
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        /* TIMING 1: an event between launches, as opnn bench times op_run calls, and the median
         * interval; 0: events around the n launches alone, and the average */
        for (int i = 0; i < n; i++) {
            if (TIMING != 0 || i == 0)
                CK(cudaEventRecord(ev[i]));
            launch<MODE, TX, U>(b.in[i % nb], b.out, b.parts, b.counters, R, C, S);
        }
        CK(cudaEventRecord(ev[n]));
        CK(cudaEventSynchronize(ev[n]));
        float t_ms;
        if (TIMING == 0) {
            CK(cudaEventElapsedTime(&t_ms, ev[0], ev[n]));
            t_ms /= n;
        } else {
            std::vector<float> t(n);
            for (int i = 0; i < n; i++)
                CK(cudaEventElapsedTime(&t[i], ev[i], ev[i + 1]));
            std::sort(t.begin(), t.end());
            t_ms = t[n / 2];
        }
        best = std::min(best, t_ms * 1e3);
    }
    CK(cudaGetLastError());
    for (auto &e : ev)
        CK(cudaEventDestroy(e));
    return best;
}

/* the column sums of the input in double, and the sums of magnitudes (the error's scale) */
struct reference {
    std::vector<double> sum, mag;
};

/* checks the global and cluster outputs on buffer 0 against the reference; returns the worst
 * relative error, or -1 if the two differ bitwise */
template <int TX, int U>
static double check(bufs &b, const reference &ref, int64_t R, int64_t C, int S)
{
    std::vector<float> g(C), c(C);
    CK(cudaMemset(b.out, 0, C * sizeof(float)));
    launch<GLOBAL, TX, U>(b.in[0], b.out, b.parts, b.counters, R, C, S);
    CK(cudaMemcpy(g.data(), b.out, C * sizeof(float), cudaMemcpyDeviceToHost));
    c = g;
    if (S <= 16) { /* clusters of at most 16 blocks (8 portable) */
        CK(cudaMemset(b.out, 0, C * sizeof(float)));
        launch<CLUSTER, TX, U>(b.in[0], b.out, b.parts, b.counters, R, C, S);
        CK(cudaMemcpy(c.data(), b.out, C * sizeof(float), cudaMemcpyDeviceToHost));
    }
    double worst = 0;
    for (int64_t j = 0; j < C; j++) {
        if (g[j] != c[j])
            return -1.0;
        const double mag = ref.mag[j] > 0 ? ref.mag[j] : 1;
        const double e = std::abs(g[j] - ref.sum[j]) / mag;
        worst = e > worst ? e : worst;
    }
    return worst;
}

template <int TX, int U> static void run(bufs &b, const reference &ref, int64_t R, int64_t C)
{
    const double mb = (double)R * C * 4 / 1e6;
    for (int S : {2, 4, 8, 16, 32}) {
        const int64_t blocks = C / (TX * 4) * S;
        if (C % (TX * 4) || blocks < 32)
            continue;
        const double err = check<TX, U>(b, ref, R, C, S);
        const double tg = time_us<GLOBAL, TX, U>(b, R, C, S);
        const double tc = S <= 16 ? time_us<CLUSTER, TX, U>(b, R, C, S) : -1.0;
        const double tn = time_us<NONE, TX, U>(b, R, C, S);
        printf("[%lld, %lld] W %3d S %2d U %2d blocks %4lld: global %6.1f us (%4.0f GB/s) cluster "
               "%6.1f us (%4.0f GB/s) none %6.1f us (%4.0f GB/s) err %s%.1e\n",
               (long long)R, (long long)C, TX * 4, S, U, (long long)blocks, tg, mb / tg * 1e3, tc,
               tc > 0 ? mb / tc * 1e3 : 0.0, tn, mb / tn * 1e3, err < 0 ? "MISMATCH " : "",
               err < 0 ? 0.0 : err);
    }
}

int main(int argc, char **argv)
{
    std::vector<std::pair<int64_t, int64_t>> shapes = {
        {8192, 1024}, {4096, 4096}, {2048, 4096}, {16384, 1024}, {1024, 4096}};
    if (argc >= 3)
        shapes = {{atoll(argv[1]), atoll(argv[2])}};
    if (argc >= 4)
        TIMING = atoi(argv[3]);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
    for (auto [R, C] : shapes) {
        bufs b;
        const size_t bytes = (size_t)R * C * 4;
        const int nb = (int)(256e6 / bytes) + 2; /* more than 4x the L2 together */
        std::vector<float> h((size_t)R * C);
        srand(1);
        for (auto &x : h)
            x = (float)rand() / RAND_MAX - 0.5f;
        for (int i = 0; i < nb; i++) {
            float *p;
            CK(cudaMalloc(&p, bytes));
            CK(cudaMemcpy(p, h.data(), bytes, cudaMemcpyHostToDevice));
            b.in.push_back(p);
        }
        reference ref{std::vector<double>(C), std::vector<double>(C)};
        for (int64_t i = 0; i < R; i++)
            for (int64_t j = 0; j < C; j++) {
                ref.sum[j] += h[i * C + j];
                ref.mag[j] += std::abs(h[i * C + j]);
            }
        CK(cudaMalloc(&b.out, C * sizeof(float)));
        CK(cudaMalloc(&b.parts, (size_t)C * 32 * sizeof(float)));
        CK(cudaMalloc(&b.counters, C * sizeof(unsigned)));
        CK(cudaMemset(b.counters, 0, C * sizeof(unsigned)));
        run<32, 4>(b, ref, R, C);
        run<32, 8>(b, ref, R, C);
        run<16, 8>(b, ref, R, C);
        run<16, 16>(b, ref, R, C);
        for (float *p : b.in)
            CK(cudaFree(p));
        CK(cudaFree(b.out));
        CK(cudaFree(b.parts));
        CK(cudaFree(b.counters));
    }
    return 0;
}
