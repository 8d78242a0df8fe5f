/* tp_index's CUDA kernels: one operator, given to the kernels three ways. TpIndexMap: map(x, i)
 * alone (every walk's combine(acc, map(x, i)) and its masked vectors); TpIndexFold: fold(acc, x,
 * i) as well (the kernels' per-element path for operators with their own fold, fold_vec_part's
 * included); TpIndexFoldVec: fold_vec(acc, e, i) too (whole 16-byte vectors). */
#include <opnn/cuda/reduce.cuh>

#include "plugin_cuda.cuh"
#include "tp_index.h"

namespace {

template <class T> struct tpi_map_op {
    using in_t = T;
    using acc_t = int64_t;
    using out_t = T;
    __device__ __forceinline__ acc_t identity() const { return 0; }
    __device__ __forceinline__ acc_t map(in_t x, int64_t i) const
    {
        return TP_INDEX_TERM((int64_t)x, i);
    }
    __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const
    {
        return (int64_t)((uint64_t)a + (uint64_t)b);
    }
    __device__ __forceinline__ out_t finalize(acc_t a, int64_t) const { return (T)(uint64_t)a; }
};

template <class T> struct tpi_fold_op : tpi_map_op<T> {
    __device__ __forceinline__ int64_t fold(int64_t a, T x, int64_t i) const
    {
        return this->combine(a, this->map(x, i));
    }
};

template <class T> struct tpi_fold_vec_op : tpi_fold_op<T> {
    __device__ __forceinline__ int64_t fold_vec(int64_t a, const T *e, int64_t i) const
    {
#pragma unroll
        for (int j = 0; j < (int)(16 / sizeof(T)); j++)
            a = this->fold(a, e[j], i + j);
        return a;
    }
};

template <template <class> class Op> op_status run(op_kernel_ctx *kc)
{
    uint32_t mask;
    const op_status st = op_reduce_mask(kc, &mask);
    if (st != OP_OK)
        return st;
    const DLDataType t = op_kernel_input(kc, 0)->dtype;
    if (t.code == kDLInt && t.bits == 32)
        return plugin::cuda_reduce(kc, mask, Op<int32_t>());
    if (t.code == kDLInt && t.bits == 64)
        return plugin::cuda_reduce(kc, mask, Op<int64_t>());
    return op_kernel_fail(kc, OP_ERR_UNSUPPORTED, "tp_index: no CUDA kernel for dtype code %u",
                          (unsigned)t.code);
}

} // namespace

extern "C" {
op_status tp_index_cuda_map(op_kernel_ctx *kc)
{
    return run<tpi_map_op>(kc);
}
op_status tp_index_cuda_fold(op_kernel_ctx *kc)
{
    return run<tpi_fold_op>(kc);
}
op_status tp_index_cuda_fold_vec(op_kernel_ctx *kc)
{
    return run<tpi_fold_vec_op>(kc);
}
}
