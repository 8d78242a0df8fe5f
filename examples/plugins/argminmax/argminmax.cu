/* argminmax's CUDA kernels: a (value, index) accumulator whose combine is commutative (ties and
 * NaNs broken by index), run by opnn's header-only kernel families. Semantics as in argminmax.c. */
#include <type_traits>

#include <opnn/cuda/reduce.cuh>

#include "argminmax/argminmax.h"
#include "plugin_cuda.cuh"

namespace {

using namespace opnn::cuda;

/* The (value, index) accumulator: values as they are (16-bit floats widened to float, exactly),
 * the index 32-bit when the axis is shorter than 2^31 (then an f32, f16, bf16 or int32 ArgMax
 * has an 8-byte accumulator and runs at the built-ins' occupancy; a 16-byte one gets half:
 * min_blocks in opnn/cuda/reduce.cuh). */
template <class F, class I> struct arg_acc {
    F v;
    I i;
};

template <class T> struct val_of {
    using F = T;
    static __device__ __forceinline__ F of(T x) { return x; }
};
template <> struct val_of<__half> {
    using F = float;
    static __device__ __forceinline__ F of(__half x) { return __half2float(x); }
};
template <> struct val_of<__nv_bfloat16> {
    using F = float;
    static __device__ __forceinline__ F of(__nv_bfloat16 x) { return __bfloat162float(x); }
};

template <class F> __device__ __forceinline__ bool is_nan(F v)
{
    if constexpr (std::is_floating_point<F>::value)
        return v != v;
    else
        return false;
}

/* The larger (Max) or smaller of a and b, NaN if either is NaN. */
template <bool Max, class F> __device__ __forceinline__ F pick_nan(F a, F b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (std::is_same<F, float>::value) {
        float r;
        if constexpr (Max)
            asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        else
            asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        return r;
    }
#endif
    return (Max ? a > b : a < b) || is_nan(a) ? a : b;
}

/* Max: the larger value wins (Max false: the smaller); NaN beats every number; equal values (and
 * two NaNs) go to the smaller index, or the larger with Last. */
template <class T, bool Max, bool Last, class I> struct arg_op {
    using in_t = T;
    using F = typename val_of<T>::F;
    using acc_t = arg_acc<F, I>;
    using out_t = int64_t;

    static __device__ __forceinline__ F worst()
    {
        if constexpr (std::is_floating_point<F>::value)
            return Max ? elem<F>::lowest() : elem<F>::highest();
        else if constexpr (sizeof(F) == 4)
            return Max ? (F)INT32_MIN : (F)INT32_MAX;
        else
            return Max ? (F)INT64_MIN : (F)INT64_MAX;
    }
    /* true when b wins over a */
    static __device__ __forceinline__ bool beats(acc_t b, acc_t a)
    {
        const bool bn = is_nan(b.v), an = is_nan(a.v);
        if (bn != an)
            return bn;
        if (!bn && b.v != a.v)
            return Max ? b.v > a.v : b.v < a.v;
        return Last ? b.i > a.i : b.i < a.i;
    }
    /* beats({v, i}, a) without branches (predicates and selects) */
    static __device__ __forceinline__ bool takes(acc_t a, F v, I i)
    {
        const bool vn = is_nan(v), an = is_nan(a.v);
        const bool better = Max ? v > a.v : v < a.v; /* false when either is NaN */
        const bool same = (v == a.v) | (vn & an);
        const bool order = Last ? i > a.i : i < a.i;
        return (vn & !an) | better | (same & order);
    }
    /* an index that loses every tie */
    static __device__ __forceinline__ I no_index()
    {
        return Last ? (I)-1 : sizeof(I) == 4 ? (I)INT32_MAX : (I)INT64_MAX;
    }
    /* the worst value with no index: any element beats it */
    __device__ __forceinline__ acc_t identity() const { return {worst(), no_index()}; }
    __device__ __forceinline__ acc_t map(in_t x, int64_t idx) const
    {
        return {val_of<T>::of(x), (I)idx};
    }
    __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const { return beats(b, a) ? b : a; }
    __device__ __forceinline__ out_t finalize(acc_t a, int64_t) const { return (int64_t)a.i; }
    /* One element, without branches: where the running best often improves (a column of 16
     * rows) a skip branch diverges across the warp and every lane pays both sides (col_short
     * read 0.92 of ReduceSum's bandwidth with one) */
    __device__ __forceinline__ acc_t fold(acc_t a, in_t x, int64_t idx) const
    {
        const F v = val_of<T>::of(x);
        return takes(a, v, (I)idx) ? acc_t{v, (I)idx} : a;
    }
    /* A vector whose best (NaN-propagating max or min) is strictly worse than the running best
     * leaves it: a few max instructions and one compare. One strictly better (no NaN on either
     * side) takes its best value at its first (Last: last) position. Ties and NaNs are combined
     * element by element, out of line, so the common paths stay short (inlined and predicated,
     * those combines cost every vector their instructions: row_mid read 0.69 of the ceiling). */
    __device__ __forceinline__ acc_t fold_vec(acc_t a, const in_t *e, int64_t idx) const
    {
        constexpr int N = 16 / sizeof(T);
        F g[N], f[N];
#pragma unroll
        for (int j = 0; j < N; j++)
            f[j] = g[j] = val_of<T>::of(e[j]);
#pragma unroll
        for (int s = 1; s < N; s *= 2)
#pragma unroll
            for (int j = 0; j + s < N; j += 2 * s)
                f[j] = pick_nan<Max>(f[j], f[j + s]);
        if (Max ? f[0] < a.v : f[0] > a.v)
            return a;
        if (Max ? f[0] > a.v : f[0] < a.v) {
            int at = Last ? 0 : N - 1;
#pragma unroll
            for (int j = 0; j < N; j++) {
                const int k = Last ? j : N - 1 - j;
                at = g[k] == f[0] ? k : at;
            }
            return {f[0], (I)(idx + at)};
        }
        uint4 v;
        memcpy(&v, e, 16);
        return fold_slow(a, v, idx);
    }
    /* A row held one vector a lane across G lanes (ROW_VEC): the row's best value through a
     * butterfly of values alone (NaN-propagating max or min, so a NaN anywhere is the best),
     * then each lane's first (Last: last) position holding it and a butterfly of those indices.
     * Equal values are equal positions whatever their sign of zero, as in beats(). */
    __device__ __forceinline__ acc_t group_vec(const in_t *e, int64_t idx, int G) const
    {
        constexpr int N = 16 / sizeof(T);
        F g[N], m;
#pragma unroll
        for (int j = 0; j < N; j++)
            g[j] = val_of<T>::of(e[j]);
        m = g[0];
#pragma unroll
        for (int j = 1; j < N; j++)
            m = pick_nan<Max>(m, g[j]);
        for (int o = G / 2; o > 0; o /= 2)
            m = pick_nan<Max>(m, shfl_xor(m, o));
        int at = -1;
        if (!is_nan(m)) {
#pragma unroll
            for (int j = 0; j < N; j++) {
                const int k = Last ? j : N - 1 - j;
                at = g[k] == m ? k : at;
            }
        } else {
#pragma unroll
            for (int j = 0; j < N; j++) {
                const int k = Last ? j : N - 1 - j;
                at = is_nan(g[k]) ? k : at;
            }
        }
        I i = at < 0 ? no_index() : (I)(idx + at);
        for (int o = G / 2; o > 0; o /= 2) {
            const I b = shfl_xor(i, o);
            i = Last ? (b > i ? b : i) : (b < i ? b : i);
        }
        return {m, i};
    }
    static __device__ __noinline__ acc_t fold_slow(acc_t a, uint4 v, int64_t idx)
    {
        constexpr int N = 16 / sizeof(T);
        T e[N];
        memcpy(e, &v, 16);
#pragma unroll
        for (int j = 0; j < N; j++) {
            const acc_t b = {val_of<T>::of(e[j]), (I)(idx + j)};
            a = beats(b, a) ? b : a;
        }
        return a;
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
        if constexpr (sizeof(typename val_of<T>::F) == 4) {
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
