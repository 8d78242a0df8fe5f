/* The CUDA side of `opnn bench` (bench.c): the read-only streaming kernel whose bandwidth is the
 * "read ceiling" each case is measured against, the launch floor the small cases are measured
 * against, and a device-side random fill so that inputs of gigabytes need no host pass. Part of
 * the tool, not of the library. */
#include <algorithm>
#include <chrono>
#include <stdint.h>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "bench_cuda.h"

namespace {

/* The same 16-byte streaming load the reduce kernels use. */
__device__ __forceinline__ uint4 load_stream(const uint4 *p)
{
    uint4 v;
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(p));
    return v;
}

/* Reads n16 16-byte vectors with U loads in flight per thread and writes one word per block (so
 * the reads cannot be dropped). CHUNKED: each block an equal contiguous chunk; otherwise the
 * whole grid strides over the buffer. */
template <int U, bool CHUNKED>
__global__ void __launch_bounds__(256) read_kernel(const uint4 *in, int64_t n16, unsigned *sink)
{
    int64_t lo, hi, step;
    if (CHUNKED) {
        const int64_t per = (n16 + gridDim.x - 1) / gridDim.x;
        lo = (int64_t)blockIdx.x * per + threadIdx.x;
        hi = (int64_t)blockIdx.x * per + per < n16 ? (int64_t)blockIdx.x * per + per : n16;
        step = blockDim.x;
    } else {
        lo = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
        hi = n16;
        step = (int64_t)gridDim.x * blockDim.x;
    }
    unsigned acc = 0;
    int64_t i = lo;
    for (; i + (U - 1) * step < hi; i += U * step) {
        uint4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = load_stream(in + i + u * step);
#pragma unroll
        for (int u = 0; u < U; u++)
            acc ^= v[u].x + v[u].y + v[u].z + v[u].w;
    }
    for (; i < hi; i += step) {
        uint4 v = load_stream(in + i);
        acc ^= v.x + v.y + v.z + v.w;
    }
    __shared__ unsigned s[32];
#pragma unroll
    for (int o = 16; o > 0; o /= 2)
        acc ^= __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0)
        s[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (unsigned w = 1; w < blockDim.x / 32; w++)
            acc ^= s[w];
        sink[blockIdx.x] = acc;
    }
}

__device__ __forceinline__ uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1) for floats, [-1000, 1000] for integers. */
template <class T> __device__ T make_value(uint64_t h);
template <> __device__ float make_value<float>(uint64_t h)
{
    return (float)((double)(h >> 11) * 0x1.0p-52 - 1.0);
}
template <> __device__ double make_value<double>(uint64_t h)
{
    return (double)(h >> 11) * 0x1.0p-52 - 1.0;
}
template <> __device__ __half make_value<__half>(uint64_t h)
{
    return __float2half(make_value<float>(h));
}
template <> __device__ __nv_bfloat16 make_value<__nv_bfloat16>(uint64_t h)
{
    return __float2bfloat16(make_value<float>(h));
}
template <> __device__ int32_t make_value<int32_t>(uint64_t h)
{
    return (int32_t)(h % 2001) - 1000;
}
template <> __device__ int64_t make_value<int64_t>(uint64_t h)
{
    return (int64_t)(h % 2001) - 1000;
}

template <class T> __global__ void fill_kernel(T *out, int64_t n, uint64_t seed)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        out[i] = make_value<T>(mix(seed + 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1)));
}

/* Holds its stream: one thread polls *release (host memory, mapped) until the host sets it, or
 * until timeout_ns of the GPU's global timer have passed; *timed_out says which. */
__global__ void hold_kernel(const volatile int *release, int *timed_out,
                            unsigned long long timeout_ns)
{
    unsigned long long t0, t;
    int late = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    while (*release == 0) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > timeout_ns) {
            late = 1;
            break;
        }
        __nanosleep(500);
    }
    *timed_out = late;
}

/* does nothing (no thread has index 1024 in a block of 32) */
__global__ void empty_kernel(unsigned *sink)
{
    if (threadIdx.x == 1024)
        *sink = 0;
}

} // namespace

extern "C" {

int bench_cuda_graph_floor(void *stream, int calls, double *us_per_call)
{
    cudaStream_t s = (cudaStream_t)stream, cs = NULL;
    cudaGraph_t g = NULL;
    cudaGraphExec_t ge = NULL;
    cudaError_t e = cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal);
    if (e == cudaSuccess) {
        empty_kernel<<<1, 32, 0, cs>>>(NULL);
        const cudaError_t k = cudaGetLastError();
        e = cudaStreamEndCapture(cs, &g);
        if (e == cudaSuccess)
            e = k;
    }
    if (e == cudaSuccess)
        e = cudaGraphInstantiate(&ge, g, 0);
    for (int i = 0; e == cudaSuccess && i < 100; i++) /* warm-up */
        e = cudaGraphLaunch(ge, s);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s);
    if (e == cudaSuccess && calls > 0) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; e == cudaSuccess && i < calls; i++)
            e = cudaGraphLaunch(ge, s);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(s);
        const std::chrono::duration<double, std::micro> dt = std::chrono::steady_clock::now() - t0;
        *us_per_call = dt.count() / calls;
    }
    if (ge)
        cudaGraphExecDestroy(ge);
    if (g)
        cudaGraphDestroy(g);
    if (cs)
        cudaStreamDestroy(cs);
    return (int)e;
}

int bench_cuda_hold(void *stream, int *flags, double timeout_ms)
{
    int *dflags = NULL;
    cudaError_t e = cudaHostGetDevicePointer((void **)&dflags, flags, 0);
    if (e != cudaSuccess)
        return (int)e;
    __atomic_store_n(&flags[0], 0, __ATOMIC_SEQ_CST);
    flags[1] = 0;
    hold_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(dflags, dflags + 1,
                                                   (unsigned long long)(timeout_ms * 1e6));
    return (int)cudaGetLastError();
}

void bench_cuda_release(int *flags)
{
    __atomic_store_n(&flags[0], 1, __ATOMIC_SEQ_CST);
}

int bench_cuda_read(const void *data, size_t bytes, int blocks, int variant, void *sink,
                    void *stream)
{
    const uint4 *in = (const uint4 *)data;
    const int64_t n16 = (int64_t)(bytes / 16);
    unsigned *out = (unsigned *)sink;
    cudaStream_t s = (cudaStream_t)stream;
    switch (variant) {
    case 0:
        read_kernel<4, true><<<blocks, 256, 0, s>>>(in, n16, out);
        break;
    case 1:
        read_kernel<8, true><<<blocks, 256, 0, s>>>(in, n16, out);
        break;
    case 2:
        read_kernel<4, false><<<blocks, 256, 0, s>>>(in, n16, out);
        break;
    default:
        read_kernel<8, false><<<blocks, 256, 0, s>>>(in, n16, out);
        break;
    }
    return (int)cudaGetLastError();
}

int bench_cuda_event_times(struct CUevent_st *const *ev, int n, double *t)
{
    cudaError_t e = cudaEventSynchronize(ev[n]);
    for (int i = 0; i < n && e == cudaSuccess; i++) {
        float ms;
        e = cudaEventElapsedTime(&ms, ev[i], ev[i + 1]);
        t[i] = ms * 1e-3;
    }
    return (int)e;
}

int bench_cuda_time_read(void *const *bufs, int nbuf, size_t bytes, int blocks, int variant,
                         void *sink, int iters, void *stream, int *hold, double *gbps)
{
    std::vector<cudaEvent_t> ev;
    std::vector<double> t((size_t)iters);
    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t e = cudaSuccess;

    for (int i = 0; i <= iters && e == cudaSuccess; i++) {
        cudaEvent_t x;
        e = cudaEventCreate(&x);
        if (e == cudaSuccess)
            ev.push_back(x);
    }
    for (int w = 0; w < 3 && e == cudaSuccess; w++)
        e = (cudaError_t)bench_cuda_read(bufs[w % nbuf], bytes, blocks, variant, sink, stream);
    if (e == cudaSuccess)
        e = (cudaError_t)bench_cuda_hold(stream, hold, BENCH_CUDA_HOLD_MS);
    if (e == cudaSuccess)
        e = cudaEventRecord(ev[0], s);
    for (int i = 0; i < iters && e == cudaSuccess; i++) {
        e = (cudaError_t)bench_cuda_read(bufs[i % nbuf], bytes, blocks, variant, sink, stream);
        if (e == cudaSuccess)
            e = cudaEventRecord(ev[(size_t)i + 1], s);
    }
    bench_cuda_release(hold);
    if (e == cudaSuccess)
        e = (cudaError_t)bench_cuda_event_times(ev.data(), iters, t.data());
    if (e == cudaSuccess && iters > 0) {
        std::sort(t.begin(), t.end());
        const size_t h = (size_t)iters / 2;
        const double sec = iters % 2 ? t[h] : 0.5 * (t[h - 1] + t[h]);
        *gbps = (double)(bytes / 16 * 16) / sec * 1e-9;
    }
    for (cudaEvent_t x : ev)
        cudaEventDestroy(x);
    return (int)e;
}

double bench_cuda_read_at(void *const *bufs, int nbuf, size_t bytes, int sms, int iters,
                          void *stream, int *hold)
{
    const int64_t n16 = (int64_t)(bytes / 16);
    void *sink = NULL;
    double best = 0;

    if (n16 == 0 || nbuf < 1 ||
        cudaMalloc(&sink, (size_t)sms * 8 * sizeof(unsigned)) != cudaSuccess)
        return 0;
    for (int variant = 0; variant < BENCH_CUDA_READ_VARIANTS; variant++) {
        for (int per_sm = 1; per_sm <= 8; per_sm *= 2) {
            int64_t blocks = (int64_t)sms * per_sm;
            if (blocks > (n16 + 255) / 256)
                blocks = (n16 + 255) / 256;
            if (per_sm > 1 && blocks < (int64_t)sms * per_sm / 2)
                break; /* the same grid as the smaller per_sm */
            double gbps = 0;
            if (bench_cuda_time_read(bufs, nbuf, bytes, (int)blocks, variant, sink, iters, stream,
                                     hold, &gbps) != 0) {
                best = 0;
                goto out;
            }
            best = std::max(best, gbps);
        }
    }
out:
    cudaFree(sink);
    return best;
}

int bench_cuda_fill(void *data, int64_t n, int code, int bits, uint64_t seed, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    const int grid = 4096, block = 256;
    if (code == 2 && bits == 32) /* kDLFloat */
        fill_kernel<float><<<grid, block, 0, s>>>((float *)data, n, seed);
    else if (code == 2 && bits == 64)
        fill_kernel<double><<<grid, block, 0, s>>>((double *)data, n, seed);
    else if (code == 2 && bits == 16)
        fill_kernel<__half><<<grid, block, 0, s>>>((__half *)data, n, seed);
    else if (code == 4 && bits == 16) /* kDLBfloat */
        fill_kernel<__nv_bfloat16><<<grid, block, 0, s>>>((__nv_bfloat16 *)data, n, seed);
    else if (code == 0 && bits == 32) /* kDLInt */
        fill_kernel<int32_t><<<grid, block, 0, s>>>((int32_t *)data, n, seed);
    else if (code == 0 && bits == 64)
        fill_kernel<int64_t><<<grid, block, 0, s>>>((int64_t *)data, n, seed);
    else
        return (int)cudaErrorInvalidValue;
    return (int)cudaGetLastError();
}

} // extern "C"
