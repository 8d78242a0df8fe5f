/* argminmax's CUDA kernels: a (value, index) accumulator whose combine is commutative (ties and
 * NaNs broken by index), run by opnn's header-only kernel families. Semantics as in argminmax.c. */
#include <opnn/cuda/reduce.cuh>

#include "argminmax/argminmax.h"
#include "plugin_cuda.cuh"

namespace {

using namespace opnn::cuda;

/* 16 bytes at most (OPNN_CUDA_MAX_ACC_BYTES): a float or double or int64 value and the index */
template <class V> struct arg_acc {
    V v;
    int64_t i;
};

template <class V> __device__ __forceinline__ bool is_nan(V v)
{
    return v != v;
}
template <> __device__ __forceinline__ bool is_nan<int64_t>(int64_t)
{
    return false;
}

/* Max: the larger value wins (Max false: the smaller); Last: ties go to the larger index. */
template <class T, bool Max, bool Last> struct arg_op {
    using in_t = T;
    using V = typename elem<T>::acc;
    using acc_t = arg_acc<V>;
    using out_t = int64_t;
    __device__ __forceinline__ acc_t identity() const
    {
        /* the worst value, and an index that loses every tie */
        return {Max ? elem<T>::lowest() : elem<T>::highest(), Last ? -1 : INT64_MAX};
    }
    __device__ __forceinline__ acc_t map(in_t x, int64_t idx) const
    {
        return {elem<T>::to_acc(x), idx};
    }
    __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const
    {
        const bool an = is_nan(a.v), bn = is_nan(b.v);
        if (an != bn)
            return an ? a : b;
        if (!an && a.v != b.v)
            return (Max ? a.v > b.v : a.v < b.v) ? a : b;
        return (Last ? a.i > b.i : a.i < b.i) ? a : b;
    }
    __device__ __forceinline__ out_t finalize(acc_t a, int64_t) const { return a.i; }
};

template <bool Max> op_status run(op_kernel_ctx *kc)
{
    uint32_t mask;
    bool last;
    const op_status st = argminmax_prepare(kc, &mask, &last);
    if (st != OP_OK)
        return st;
    return plugin::with_dtype<true>(kc, op_kernel_input(kc, 0)->dtype, [&](auto t) {
        using T = typename decltype(t)::type;
        return last ? plugin::cuda_reduce(kc, mask, arg_op<T, Max, true>())
                    : plugin::cuda_reduce(kc, mask, arg_op<T, Max, false>());
    });
}

} // namespace

extern "C" {
op_status argminmax_cuda_argmax(op_kernel_ctx *kc)
{
    return run<true>(kc);
}
op_status argminmax_cuda_argmin(op_kernel_ctx *kc)
{
    return run<false>(kc);
}
}
