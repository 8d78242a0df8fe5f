/* argminmax's CUDA kernels: a (value, index) accumulator whose combine is commutative (ties and
 * NaNs broken by index), run by opnn's header-only kernel families. Semantics as in argminmax.c. */
#include <opnn/cuda/reduce.cuh>

#include "argminmax/argminmax.h"
#include "plugin_cuda.cuh"

namespace {

using namespace opnn::cuda;

/* Values become integer keys that order like the values for ArgMax (negated, ~, for ArgMin), with
 * NaN above everything and -0 equal to +0; then both ops keep the larger key. The accumulator is
 * (key, index); a combine is two compares and selects. With a 32-bit key and an axis shorter than
 * 2^31 the index is 32-bit too: an 8-byte accumulator, which the kernels run at the built-ins'
 * occupancy (a 16-byte one gets half: min_blocks in opnn/cuda/reduce.cuh). */
template <class K, class I> struct arg_acc {
    K k;
    I i;
};

template <class T> struct key_of {
    using K = int32_t; /* f32, and f16/bf16 through f32 (exact) */
    static __device__ __forceinline__ K key(T x)
    {
        const int32_t b = __float_as_int(elem<T>::to_acc(x)), a = b & INT32_MAX;
        /* NaN (either sign) on top; -x below +x; -0 and +0 both 0 */
        return a > 0x7f800000 ? INT32_MAX : b < 0 ? -a : a;
    }
    static __device__ __forceinline__ K neg(K k)
    {
        return k == INT32_MAX ? k : ~k;
    } /* NaN stays top */
};
template <> struct key_of<double> {
    using K = int64_t;
    static __device__ __forceinline__ K key(double x)
    {
        const int64_t b = __double_as_longlong(x), a = b & INT64_MAX;
        return a > 0x7ff0000000000000ll ? INT64_MAX : b < 0 ? -a : a;
    }
    static __device__ __forceinline__ K neg(K k) { return k == INT64_MAX ? k : ~k; }
};
template <> struct key_of<int32_t> {
    using K = int32_t;
    static __device__ __forceinline__ K key(int32_t x) { return x; }
    static __device__ __forceinline__ K neg(K k) { return ~k; }
};
template <> struct key_of<int64_t> {
    using K = int64_t;
    static __device__ __forceinline__ K key(int64_t x) { return x; }
    static __device__ __forceinline__ K neg(K k) { return ~k; }
};

/* Max: the larger value wins (Max false: the smaller); Last: ties go to the larger index; I: the
 * index type (int32_t only for axes shorter than 2^31). */
template <class T, bool Max, bool Last, class I> struct arg_op {
    using in_t = T;
    using K = typename key_of<T>::K;
    using acc_t = arg_acc<K, I>;
    using out_t = int64_t;
    /* the lowest key (a float's key is >= -0x7f800000; an integer's may equal it, and then the
     * index decides) and an index that loses every tie */
    __device__ __forceinline__ acc_t identity() const
    {
        return {sizeof(K) == 4 ? (K)INT32_MIN : (K)INT64_MIN,
                Last ? (I)-1 : (I)(sizeof(I) == 4 ? (I)INT32_MAX : (I)INT64_MAX)};
    }
    __device__ __forceinline__ acc_t map(in_t x, int64_t idx) const
    {
        const K k = key_of<T>::key(x);
        return {Max ? k : key_of<T>::neg(k), (I)idx};
    }
    __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const
    {
        const bool b_wins = b.k > a.k || (b.k == a.k && (Last ? b.i > a.i : b.i < a.i));
        return b_wins ? b : a;
    }
    __device__ __forceinline__ out_t finalize(acc_t a, int64_t) const { return (int64_t)a.i; }
    /* One 16-byte vector's elements, in index order: a running best key and its position, the
     * same winner as a tree of combines (keys are totally ordered, ties go by index). */
    __device__ __forceinline__ acc_t reduce_vec(const in_t *e, int64_t idx) const
    {
        constexpr int N = 16 / sizeof(T);
        K best = map(e[0], 0).k;
        int at = 0;
#pragma unroll
        for (int j = 1; j < N; j++) {
            const K k = map(e[j], 0).k;
            const bool take = Last ? k >= best : k > best;
            best = take ? k : best;
            at = take ? j : at;
        }
        return {best, (I)(idx + at)};
    }
};

template <bool Max> op_status run(op_kernel_ctx *kc)
{
    uint32_t mask;
    bool last;
    const op_status st = argminmax_prepare(kc, &mask, &last);
    if (st != OP_OK)
        return st;
    const DLTensor *x = op_kernel_input(kc, 0);
    int axis = 0;
    while (axis < 31 && !(mask & (1u << axis)))
        axis++;
    const bool narrow = axis < x->ndim && x->shape[axis] <= INT32_MAX;
    return plugin::with_dtype<true>(kc, x->dtype, [&](auto t) {
        using T = typename decltype(t)::type;
        if constexpr (sizeof(typename key_of<T>::K) == 4) {
            if (narrow)
                return last ? plugin::cuda_reduce(kc, mask, arg_op<T, Max, true, int32_t>())
                            : plugin::cuda_reduce(kc, mask, arg_op<T, Max, false, int32_t>());
        }
        return last ? plugin::cuda_reduce(kc, mask, arg_op<T, Max, true, int64_t>())
                    : plugin::cuda_reduce(kc, mask, arg_op<T, Max, false, int64_t>());
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
