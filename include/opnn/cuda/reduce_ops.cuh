/* Reduce operators for the CUDA kernel families (reduce_families.cuh), header-only.
 *
 * An operator is a small copyable struct the kernels receive by value:
 *
 *   struct my_op {
 *       using in_t  = ...;   // element type read from memory (float, __half, int32_t ...)
 *       using acc_t = ...;   // accumulator: any trivially copyable type, a multiple of 4 bytes
 *       using out_t = ...;   // element type written
 *       __device__ acc_t identity() const;                   // neutral element
 *       __device__ acc_t map(in_t x, int64_t idx) const;     // idx: position in the reduction
 *       __device__ acc_t combine(acc_t a, acc_t b) const;    // associative and commutative
 *       __device__ out_t finalize(acc_t a, int64_t n) const; // n: elements reduced
 *   };
 *
 * The kernels combine in a fixed order (per-thread chains of a few elements, then fixed trees),
 * so a commutative combine gives bitwise-reproducible results. An ArgMax is a (value, index)
 * accumulator whose combine breaks ties (and NaNs) by the smaller index; LogSumExp a (max, sum)
 * pair rescaled in combine; L2 maps x to x*x and finalizes with sqrt. */
#ifndef OPNN_CUDA_REDUCE_OPS_CUH
#define OPNN_CUDA_REDUCE_OPS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace opnn {
namespace cuda {

/* --- element types: how each is accumulated (DESIGN.md: 16-bit floats in fp32, fp32 in fp32,
 * fp64 in fp64, integers in int64 with wrap-around) --------------------------------------- */
template <class T> struct elem;

template <> struct elem<float> {
    using acc = float;
    static __device__ __forceinline__ float to_acc(float x) { return x; }
    static __device__ __forceinline__ float from_acc(float a) { return a; }
    static __device__ __forceinline__ float lowest() { return __int_as_float(0xff800000u); }
    static __device__ __forceinline__ float highest() { return __int_as_float(0x7f800000u); }
};

template <> struct elem<double> {
    using acc = double;
    static __device__ __forceinline__ double to_acc(double x) { return x; }
    static __device__ __forceinline__ double from_acc(double a) { return a; }
    static __device__ __forceinline__ double lowest()
    {
        return __longlong_as_double(0xfff0000000000000ll);
    }
    static __device__ __forceinline__ double highest()
    {
        return __longlong_as_double(0x7ff0000000000000ll);
    }
};

template <> struct elem<__half> {
    using acc = float;
    static __device__ __forceinline__ float to_acc(__half x) { return __half2float(x); }
    static __device__ __forceinline__ __half from_acc(float a) { return __float2half_rn(a); }
    static __device__ __forceinline__ float lowest() { return __int_as_float(0xff800000u); }
    static __device__ __forceinline__ float highest() { return __int_as_float(0x7f800000u); }
};

template <> struct elem<__nv_bfloat16> {
    using acc = float;
    static __device__ __forceinline__ float to_acc(__nv_bfloat16 x) { return __bfloat162float(x); }
    static __device__ __forceinline__ __nv_bfloat16 from_acc(float a)
    {
        return __float2bfloat16_rn(a);
    }
    static __device__ __forceinline__ float lowest() { return __int_as_float(0xff800000u); }
    static __device__ __forceinline__ float highest() { return __int_as_float(0x7f800000u); }
};

template <> struct elem<int32_t> {
    using acc = int64_t;
    static __device__ __forceinline__ int64_t to_acc(int32_t x) { return x; }
    /* wraps to the output width */
    static __device__ __forceinline__ int32_t from_acc(int64_t a)
    {
        return (int32_t)(uint32_t)(uint64_t)a;
    }
    static __device__ __forceinline__ int64_t lowest() { return INT32_MIN; }
    static __device__ __forceinline__ int64_t highest() { return INT32_MAX; }
};

template <> struct elem<int64_t> {
    using acc = int64_t;
    static __device__ __forceinline__ int64_t to_acc(int64_t x) { return x; }
    static __device__ __forceinline__ int64_t from_acc(int64_t a) { return a; }
    static __device__ __forceinline__ int64_t lowest() { return INT64_MIN; }
    static __device__ __forceinline__ int64_t highest() { return INT64_MAX; }
};

/* --- accumulator arithmetic --------------------------------------------------------------- */

__device__ __forceinline__ float acc_add(float a, float b)
{
    return __fadd_rn(a, b);
}
__device__ __forceinline__ double acc_add(double a, double b)
{
    return __dadd_rn(a, b);
}
/* integers wrap (two's complement), without signed-overflow undefined behaviour */
__device__ __forceinline__ int64_t acc_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

__device__ __forceinline__ float acc_mul(float a, float b)
{
    return __fmul_rn(a, b);
}
__device__ __forceinline__ double acc_mul(double a, double b)
{
    return __dmul_rn(a, b);
}
__device__ __forceinline__ int64_t acc_mul(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a * (uint64_t)b);
}

/* NaN-propagating max/min: a NaN anywhere gives NaN (one instruction for f32) */
__device__ __forceinline__ float acc_max(float a, float b)
{
    float r;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}
__device__ __forceinline__ float acc_min(float a, float b)
{
    float r;
    asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}
__device__ __forceinline__ double acc_max(double a, double b)
{
    return (a > b || a != a) ? a : b;
}
__device__ __forceinline__ double acc_min(double a, double b)
{
    return (a < b || a != a) ? a : b;
}
__device__ __forceinline__ int64_t acc_max(int64_t a, int64_t b)
{
    return a > b ? a : b;
}
__device__ __forceinline__ int64_t acc_min(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* Mean: multiply by 1/N in the accumulator type (N == 0 gives 0 * inf = NaN for floats);
 * integers divide, truncating toward zero. */
__device__ __forceinline__ float acc_scale_mean(float a, int64_t n)
{
    return __fmul_rn(a, 1.0f / (float)n);
}
__device__ __forceinline__ double acc_scale_mean(double a, int64_t n)
{
    return __dmul_rn(a, 1.0 / (double)n);
}
__device__ __forceinline__ int64_t acc_scale_mean(int64_t a, int64_t n)
{
    return n > 0 ? a / n : 0;
}

/* --- the built-in operators --------------------------------------------------------------- */

template <class T> struct sum_op {
    using in_t = T;
    using acc_t = typename elem<T>::acc;
    using out_t = T;
    __device__ __forceinline__ acc_t identity() const { return acc_t(0); }
    __device__ __forceinline__ acc_t map(in_t x, int64_t) const { return elem<T>::to_acc(x); }
    __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const { return acc_add(a, b); }
    __device__ __forceinline__ out_t finalize(acc_t a, int64_t) const
    {
        return elem<T>::from_acc(a);
    }
};

template <class T> struct mean_op : sum_op<T> {
    using acc_t = typename sum_op<T>::acc_t;
    using out_t = T;
    __device__ __forceinline__ out_t finalize(acc_t a, int64_t n) const
    {
        return elem<T>::from_acc(acc_scale_mean(a, n));
    }
};

template <class T> struct max_op {
    using in_t = T;
    using acc_t = typename elem<T>::acc;
    using out_t = T;
    __device__ __forceinline__ acc_t identity() const { return elem<T>::lowest(); }
    __device__ __forceinline__ acc_t map(in_t x, int64_t) const { return elem<T>::to_acc(x); }
    __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const { return acc_max(a, b); }
    __device__ __forceinline__ out_t finalize(acc_t a, int64_t) const
    {
        return elem<T>::from_acc(a);
    }
};

template <class T> struct min_op {
    using in_t = T;
    using acc_t = typename elem<T>::acc;
    using out_t = T;
    __device__ __forceinline__ acc_t identity() const { return elem<T>::highest(); }
    __device__ __forceinline__ acc_t map(in_t x, int64_t) const { return elem<T>::to_acc(x); }
    __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const { return acc_min(a, b); }
    __device__ __forceinline__ out_t finalize(acc_t a, int64_t) const
    {
        return elem<T>::from_acc(a);
    }
};

template <class T> struct prod_op {
    using in_t = T;
    using acc_t = typename elem<T>::acc;
    using out_t = T;
    __device__ __forceinline__ acc_t identity() const { return acc_t(1); }
    __device__ __forceinline__ acc_t map(in_t x, int64_t) const { return elem<T>::to_acc(x); }
    __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const { return acc_mul(a, b); }
    __device__ __forceinline__ out_t finalize(acc_t a, int64_t) const
    {
        return elem<T>::from_acc(a);
    }
};

} // namespace cuda
} // namespace opnn

#endif /* OPNN_CUDA_REDUCE_OPS_CUH */
