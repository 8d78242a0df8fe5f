/* Probe: where the tail of a split column reduce goes, step by step, timed inside the kernel. A
 * column sum of [R, C] f32 over axis 0 laid out as opnn's column kernel: a block takes W = 128
 * columns (32 threads across, a 16-byte load each, 8 rows at once, 4 loads in flight) and one of
 * S row slices, the S blocks of a tile consecutive; its partial goes to L2, thread 0 counts with
 * one acquire-release add, and the last block of a tile combines the S partials in slice order
 * (opnn's combine: J threads a column group, 8 loads in flight, a tree over the J).
 *
 * The last block then runs the same combine a second time (into a second output), so that the
 * first pass's cold costs show against a warm one: the first touch of the partials' page (TLB)
 * and of the combine's instructions. Stamps, the median over the launches:
 *   read:    %globaltimer from the first block's start to the last block's partial store;
 *   arrive:  from that store to the last block's arrival (fence and count), %globaltimer;
 *   c1, c2:  the two combines in the last block, clock64 cycles converted at the SM clock.
 * Variants: POL 1 reads the input with an L2 evict-first policy (the input does not push the
 * partials and the code out of L2); WARM 1 has thread 0 of every block load the tile's partials
 * line, counter and output line at its start (their pages' translations cached before the tail);
 * INL 1 inlines the combine (opnn's is not inlined). Outputs are checked against a double sum.
 * Not part of the build:
 *   nvcc -O3 -arch=sm_90 -std=c++17 bench/tail_clock.cu -o tail_clock && ./tail_clock [R C S]... */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe.cuh"

constexpr int kThreads = 256, TX = 32, TY = kThreads / TX, U = 4, D = 8;
constexpr int kStamps = 4; /* per launch: start (min), last store (max), arrive (max), spare */

__device__ __forceinline__ unsigned long long gtimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <int POL> __device__ __forceinline__ float4 ld_in(const float4 *p, unsigned long long pol)
{
    float4 r;
    if constexpr (POL)
        asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                     : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
                     : "l"(p), "l"(pol));
    else
        asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
                     : "l"(p));
    return r;
}

/* the S partials of a tile (W floats each, as S * TX float4) combined in slice order into o */
__device__ __forceinline__ void combine_body(const float4 *part, int S, float4 *s, float4 *o)
{
    int J = 1;
    while (2 * J * TX <= kThreads && J * D < S)
        J *= 2;
    const int cj = threadIdx.x % TX, jj = threadIdx.x / TX;
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int sl = jj < J ? jj : S; sl < S; sl += D * J) {
        float4 x[D];
#pragma unroll
        for (int d = 0; d < D; d++)
            x[d] = __ldcg(part + min(sl + d * J, S - 1) * TX + cj);
#pragma unroll
        for (int d = 0; d < D; d++)
            if (sl + d * J < S)
                v = add4(v, x[d]);
    }
    if (J > 1) {
        if (jj < J)
            s[jj * TX + cj] = v;
        __syncthreads();
        for (int h = J / 2; h > 0; h /= 2) {
            if (jj < h)
                s[jj * TX + cj] = add4(s[jj * TX + cj], s[(jj + h) * TX + cj]);
            __syncthreads();
        }
        v = s[cj];
        __syncthreads();
    }
    if (jj == 0)
        o[cj] = v;
}

__device__ __noinline__ void combine_noinline(const float4 *part, int S, float4 *s, float4 *o)
{
    combine_body(part, S, s, o);
}

template <int POL, bool WARM, bool INL>
__global__ void __launch_bounds__(kThreads)
    colsplit(const float *__restrict__ in, float *out, float *out2, float4 *parts,
             unsigned *counters, unsigned long long *stamps, long long *cycles, int64_t R,
             int64_t C, int S)
{
    __shared__ float4 s_tree[TY][TX];
    __shared__ int s_last;
    const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
    const int64_t tile = blockIdx.x / S, slice = blockIdx.x % S;
    const int64_t rs = (R + S - 1) / S, r_lo = slice * rs, r_hi = min(R, r_lo + rs);
    const int64_t c4 = C / 4, col4 = tile * TX + tx;
    float4 *part = parts + tile * S * TX;
    if (threadIdx.x == 0)
        atomicMin(stamps + 0, gtimer());
    unsigned long long pol = 0;
    if constexpr (POL)
        asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    if constexpr (WARM)
        if (threadIdx.x == 0) {
            unsigned w;
            asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(w) : "l"(part));
            asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(w) : "l"(counters + tile));
            asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(w) : "l"(out + tile * TX * 4));
        }
    const float4 *p = reinterpret_cast<const float4 *>(in) + col4;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    int64_t r = r_lo + ty;
    for (; r + (U - 1) * TY < r_hi; r += U * TY) {
        float4 x[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            x[u] = ld_in<POL>(p + (r + u * TY) * c4, pol);
#pragma unroll
        for (int u = 0; u < U; u++)
            acc = add4(acc, x[u]);
    }
    for (; r < r_hi; r += TY)
        acc = add4(acc, ld_in<POL>(p + r * c4, pol));
    s_tree[ty][tx] = acc;
    __syncthreads();
    for (int h = TY / 2; h > 0; h /= 2) {
        if (ty < h)
            s_tree[ty][tx] = add4(s_tree[ty][tx], s_tree[ty + h][tx]);
        __syncthreads();
    }
    if (ty == 0)
        part[slice * TX + tx] = s_tree[0][tx];
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicMax(stamps + 1, gtimer());
        unsigned old;
        asm volatile("atom.acq_rel.gpu.add.u32 %0, [%1], %2;"
                     : "=r"(old)
                     : "l"(counters + tile), "r"(1u)
                     : "memory");
        s_last = old == (unsigned)S - 1;
        if (s_last) {
            atomicExch(counters + tile, 0u);
            atomicMax(stamps + 2, gtimer());
        }
    }
    __syncthreads();
    if (!s_last)
        return;
    float4 *s = &s_tree[0][0];
    const long long k0 = clock64();
    if constexpr (INL)
        combine_body(part, S, s, reinterpret_cast<float4 *>(out) + tile * TX);
    else
        combine_noinline(part, S, s, reinterpret_cast<float4 *>(out) + tile * TX);
    __syncthreads();
    const long long k1 = clock64();
    if constexpr (INL)
        combine_body(part, S, s, reinterpret_cast<float4 *>(out2) + tile * TX);
    else
        combine_noinline(part, S, s, reinterpret_cast<float4 *>(out2) + tile * TX);
    __syncthreads();
    const long long k2 = clock64();
    if (threadIdx.x == 0) {
        atomicMax((unsigned long long *)cycles + 0, (unsigned long long)(k1 - k0));
        atomicMax((unsigned long long *)cycles + 1, (unsigned long long)(k2 - k1));
    }
}

typedef void (*kfn)(const float *, float *, float *, float4 *, unsigned *, unsigned long long *,
                    long long *, int64_t, int64_t, int);
struct variant {
    const char *name;
    kfn k;
};
static const variant variants[] = {
    {"base", colsplit<0, false, false>},  {"pol", colsplit<1, false, false>},
    {"warm", colsplit<0, true, false>},   {"pol+warm", colsplit<1, true, false>},
    {"inline", colsplit<0, false, true>}, {"pol+warm+inl", colsplit<1, true, true>},
};

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char **argv)
{
    struct shape {
        int64_t r, c;
        int s;
    };
    std::vector<shape> shapes = {{8192, 1024, 32},  {4096, 4096, 8},  {1024, 4096, 4},
                                 {16384, 1024, 32}, {8192, 1024, 16}, {2048, 4096, 8}};
    if (argc >= 4) {
        shapes.clear();
        for (int i = 1; i + 2 < argc; i += 3)
            shapes.push_back({atoll(argv[i]), atoll(argv[i + 1]), atoi(argv[i + 2])});
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int clk_khz = 0;
    CK(cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, 0));
    printf("%s, %d SMs, L2 %d MB, SM clock %d MHz (cycles converted at it)\n", prop.name,
           prop.multiProcessorCount, prop.l2CacheSize >> 20, clk_khz / 1000);
    constexpr int n = 64;
    unsigned long long *stamps;
    long long *cycles;
    CK(cudaMalloc(&stamps, sizeof(unsigned long long) * kStamps * n));
    CK(cudaMalloc(&cycles, sizeof(long long) * 2 * n));
    for (auto sh : shapes) {
        const int64_t R = sh.r, C = sh.c;
        const int S = sh.s, tiles = (int)(C / (TX * 4));
        if (C % (TX * 4) != 0) {
            printf("[%lld, %lld]: C must be a multiple of %d\n", (long long)R, (long long)C,
                   TX * 4);
            continue;
        }
        const size_t bytes = (size_t)R * C * 4;
        const int nb = (int)(256e6 / bytes) + 2; /* more than 4x the L2 together */
        std::vector<float> h((size_t)R * C);
        srand(1);
        for (auto &x : h)
            x = (float)rand() / RAND_MAX - 0.5f;
        std::vector<double> ref(C), mag(C);
        for (int64_t i = 0; i < R; i++)
            for (int64_t j = 0; j < C; j++) {
                ref[j] += h[i * C + j];
                mag[j] += std::fabs(h[i * C + j]);
            }
        std::vector<float *> in(nb);
        for (auto &p : in) {
            CK(cudaMalloc(&p, bytes));
            CK(cudaMemcpy(p, h.data(), bytes, cudaMemcpyHostToDevice));
        }
        float *out, *out2;
        float4 *parts;
        unsigned *counters;
        CK(cudaMalloc(&out, C * 4));
        CK(cudaMalloc(&out2, C * 4));
        CK(cudaMalloc(&parts, (size_t)C * S * 4));
        CK(cudaMalloc(&counters, tiles * 4));
        CK(cudaMemset(counters, 0, tiles * 4));
        printf("[%lld, %lld] S %d (%d blocks), %.1f MB\n", (long long)R, (long long)C, S, tiles * S,
               bytes / 1e6);
        for (const variant &v : variants) {
            std::vector<unsigned long long> st(kStamps * n);
            for (int i = 0; i < n; i++) {
                st[i * kStamps + 0] = ~0ull;
                st[i * kStamps + 1] = st[i * kStamps + 2] = st[i * kStamps + 3] = 0;
            }
            CK(cudaMemcpy(stamps, st.data(), st.size() * 8, cudaMemcpyHostToDevice));
            CK(cudaMemset(cycles, 0, sizeof(long long) * 2 * n));
            for (int w = 0; w < 4; w++)
                v.k<<<tiles * S, kThreads>>>(in[w % nb], out, out2, parts, counters, stamps, cycles,
                                             R, C, S);
            CK(cudaMemcpy(stamps, st.data(), st.size() * 8, cudaMemcpyHostToDevice));
            CK(cudaMemset(cycles, 0, sizeof(long long) * 2 * n));
            std::vector<cudaEvent_t> ev(n + 1);
            for (auto &e : ev)
                CK(cudaEventCreate(&e));
            CK(cudaEventRecord(ev[0]));
            for (int i = 0; i < n; i++) {
                v.k<<<tiles * S, kThreads>>>(in[i % nb], out, out2, parts, counters,
                                             stamps + i * kStamps, cycles + 2 * i, R, C, S);
                CK(cudaEventRecord(ev[i + 1]));
            }
            CK(cudaEventSynchronize(ev[n]));
            CK(cudaGetLastError());
            std::vector<long long> cy(2 * n);
            CK(cudaMemcpy(st.data(), stamps, st.size() * 8, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(cy.data(), cycles, cy.size() * 8, cudaMemcpyDeviceToHost));
            std::vector<double> tev, tread, tarr, c1, c2;
            for (int i = 0; i < n; i++) {
                float ms;
                CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
                tev.push_back(ms * 1e3);
                const unsigned long long *s = &st[i * kStamps];
                tread.push_back((double)(s[1] - s[0]) / 1e3);
                tarr.push_back((double)(s[2] - s[1]) / 1e3);
                c1.push_back((double)cy[2 * i] / (clk_khz / 1e3));
                c2.push_back((double)cy[2 * i + 1] / (clk_khz / 1e3));
            }
            for (auto &e : ev)
                CK(cudaEventDestroy(e));
            std::vector<float> o(C), o2(C);
            CK(cudaMemcpy(o.data(), out, C * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(o2.data(), out2, C * 4, cudaMemcpyDeviceToHost));
            double worst = 0;
            bool same = true;
            for (int64_t j = 0; j < C; j++) {
                worst = std::max(worst, std::fabs(o[j] - ref[j]) / (mag[j] > 0 ? mag[j] : 1));
                same = same && o[j] == o2[j];
            }
            printf("  %-13s event %6.2f us | read %6.2f arrive %5.2f c1 %5.2f c2 %5.2f us | err "
                   "%.1e%s\n",
                   v.name, median(tev), median(tread), median(tarr), median(c1), median(c2), worst,
                   same ? "" : " OUTPUTS DIFFER");
        }
        for (auto p : in)
            CK(cudaFree(p));
        CK(cudaFree(out));
        CK(cudaFree(out2));
        CK(cudaFree(parts));
        CK(cudaFree(counters));
    }
    return 0;
}
