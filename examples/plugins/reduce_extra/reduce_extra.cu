/* reduce_extra's CUDA kernels: each op is an operator struct (identity, map, combine, finalize,
 * accumulator type) run by opnn's header-only kernel families; one extern "C" op_kernel_fn per
 * op dispatches on the dtype. Numerics as in reduce_extra.c. */
#include <opnn/cuda/reduce.cuh>

#include "plugin_cuda.cuh"

namespace {

using namespace opnn::cuda;

/* --- accumulator arithmetic beyond opnn/cuda/reduce_ops.cuh (integers wrap) ------------------- */

__device__ __forceinline__ float acc_abs(float a)
{
    return fabsf(a);
}
__device__ __forceinline__ double acc_abs(double a)
{
    return fabs(a);
}
__device__ __forceinline__ int64_t acc_abs(int64_t a)
{
    return a < 0 ? (int64_t)(0 - (uint64_t)a) : a;
}
/* The hardware square root (sqrt.approx.f32, about 1 ulp; subnormals kept): the correctly rounded
 * one takes a slow-path call that made ReduceL2 read col_short (a sqrt per 16 inputs) at 0.84 of
 * the ceiling against ReduceSumSquare's 0.93 (H200). The sum of squares before it carries more
 * rounding error than that ulp. */
__device__ __forceinline__ float acc_sqrt(float a)
{
    float r;
    asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(a));
    return r;
}
__device__ __forceinline__ double acc_sqrt(double a)
{
    return __dsqrt_rn(a);
}
/* the int64 sum of squares read as unsigned, sqrt in double, truncated toward zero */
__device__ __forceinline__ int64_t acc_sqrt(int64_t a)
{
    return (int64_t)__dsqrt_rn((double)(uint64_t)a);
}
__device__ __forceinline__ float acc_log(float a)
{
    return logf(a);
}
__device__ __forceinline__ double acc_log(double a)
{
    return log(a);
}
__device__ __forceinline__ float acc_exp(float a)
{
    return expf(a);
}
__device__ __forceinline__ double acc_exp(double a)
{
    return exp(a);
}

struct same_f {
    template <class A> __device__ __forceinline__ A operator()(A a) const { return a; }
};
struct abs_f {
    template <class A> __device__ __forceinline__ A operator()(A a) const { return acc_abs(a); }
};
struct sq_f {
    template <class A> __device__ __forceinline__ A operator()(A a) const { return acc_mul(a, a); }
};
struct sqrt_f {
    template <class A> __device__ __forceinline__ A operator()(A a) const { return acc_sqrt(a); }
};
struct log_f {
    template <class A> __device__ __forceinline__ A operator()(A a) const { return acc_log(a); }
};

/* --- the ops ---------------------------------------------------------------------------------- */

/* A sum of Map(x), finalized by Fin. */
template <class T, class Map, class Fin> struct map_sum_op {
    using in_t = T;
    using acc_t = typename elem<T>::acc;
    using out_t = T;
    __device__ __forceinline__ acc_t identity() const { return acc_t(0); }
    __device__ __forceinline__ acc_t map(in_t x, int64_t) const
    {
        return Map()(elem<T>::to_acc(x));
    }
    __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const { return acc_add(a, b); }
    __device__ __forceinline__ out_t finalize(acc_t a, int64_t) const
    {
        return elem<T>::from_acc(Fin()(a));
    }
};

template <class T> using l1_op = map_sum_op<T, abs_f, same_f>;
template <class T> using l2_op = map_sum_op<T, sq_f, sqrt_f>;
template <class T> using sumsq_op = map_sum_op<T, sq_f, same_f>;
template <class T> using logsum_op = map_sum_op<T, same_f, log_f>;

/* LogSumExp: (max, sum of exp(x - max)); the pair with the larger max absorbs the other, a NaN
 * max gives NaN, equal maxes (+-inf included) add their sums: commutative. */
template <class A> struct lse_acc {
    A m, s;
};

template <class T> struct lse_op {
    using in_t = T;
    using A = typename elem<T>::acc;
    using acc_t = lse_acc<A>;
    using out_t = T;
    __device__ __forceinline__ acc_t identity() const { return {elem<T>::lowest(), A(0)}; }
    __device__ __forceinline__ acc_t map(in_t x, int64_t) const
    {
        return {elem<T>::to_acc(x), A(1)};
    }
    __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const
    {
        if (a.m != a.m || b.m != b.m)
            return {a.m + b.m, A(1)};
        if (a.m == b.m)
            return {a.m, acc_add(a.s, b.s)};
        if (a.m < b.m) {
            const acc_t t = a;
            a = b;
            b = t;
        }
        return {a.m, acc_add(a.s, acc_mul(b.s, acc_exp(b.m - a.m)))};
    }
    __device__ __forceinline__ out_t finalize(acc_t a, int64_t) const
    {
        return elem<T>::from_acc(acc_add(a.m, acc_log(a.s)));
    }
};

/* The op_kernel_fn body of op Op: the ONNX reduce mask, then Op<T> for input 0's dtype. */
template <template <class> class Op, bool Ints> op_status run(op_kernel_ctx *kc)
{
    uint32_t mask;
    const op_status st = op_reduce_mask(kc, &mask);
    if (st != OP_OK)
        return st;
    return plugin::with_dtype<Ints>(kc, op_kernel_input(kc, 0)->dtype, [&](auto t) {
        return plugin::cuda_reduce(kc, mask, Op<typename decltype(t)::type>());
    });
}

} // namespace

extern "C" {
op_status reduce_extra_cuda_l1(op_kernel_ctx *kc)
{
    return run<l1_op, true>(kc);
}
op_status reduce_extra_cuda_l2(op_kernel_ctx *kc)
{
    return run<l2_op, true>(kc);
}
op_status reduce_extra_cuda_sumsq(op_kernel_ctx *kc)
{
    return run<sumsq_op, true>(kc);
}
op_status reduce_extra_cuda_logsum(op_kernel_ctx *kc)
{
    return run<logsum_op, false>(kc);
}
op_status reduce_extra_cuda_lse(op_kernel_ctx *kc)
{
    return run<lse_op, false>(kc);
}
}
