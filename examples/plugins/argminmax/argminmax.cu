/* argminmax's CUDA kernels: a (value, index) accumulator whose combine is commutative (ties and
 * NaNs broken by index), run by opnn's header-only kernel families. Semantics as in argminmax.c. */
#include <opnn/cuda/reduce.cuh>

#include "argminmax/argminmax.h"
#include "plugin_cuda.cuh"

namespace {

using namespace opnn::cuda;

/* Values become integer keys that order like the values for ArgMax (negated, ~, for ArgMin), with
 * NaN above everything and -0 equal to +0; then both ops keep the larger key. The accumulator,
 * (key, index), is 16 bytes (OPNN_CUDA_MAX_ACC_BYTES); a combine is two compares and selects. */
template <class K> struct arg_acc {
    K k;
    int64_t i;
};

template <class T> struct key_of {
    using K = int32_t; /* f32, and f16/bf16 through f32 (exact) */
    static __device__ __forceinline__ K key(T x)
    {
        const float f = __fadd_rn(elem<T>::to_acc(x), 0.0f); /* -0 -> +0 */
        const int32_t b = __float_as_int(f);
        return f != f ? INT32_MAX : b < 0 ? b ^ INT32_MAX : b;
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
        const double f = __dadd_rn(x, 0.0);
        const int64_t b = __double_as_longlong(f);
        return f != f ? INT64_MAX : b < 0 ? b ^ INT64_MAX : b;
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

/* Max: the larger value wins (Max false: the smaller); Last: ties go to the larger index. */
template <class T, bool Max, bool Last> struct arg_op {
    using in_t = T;
    using K = typename key_of<T>::K;
    using acc_t = arg_acc<K>;
    using out_t = int64_t;
    /* the lowest key (below every value's: they are ~x of a non-NaN or a float's ordered bits)
     * and an index that loses every tie */
    __device__ __forceinline__ acc_t identity() const
    {
        return {sizeof(K) == 4 ? (K)INT32_MIN : (K)INT64_MIN, Last ? -1 : INT64_MAX};
    }
    __device__ __forceinline__ acc_t map(in_t x, int64_t idx) const
    {
        const K k = key_of<T>::key(x);
        return {Max ? k : key_of<T>::neg(k), idx};
    }
    __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const
    {
        const bool b_wins = b.k > a.k || (b.k == a.k && (Last ? b.i > a.i : b.i < a.i));
        return b_wins ? b : a;
    }
    __device__ __forceinline__ out_t finalize(acc_t a, int64_t) const { return a.i; }
    /* One 16-byte vector's elements, in index order: a running best key and its 32-bit position,
     * the same winner as a tree of combines (keys are totally ordered, ties go by index). */
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
        return {best, idx + at};
    }
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
