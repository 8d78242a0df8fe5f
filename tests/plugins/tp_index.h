/* tp_index's term and its CUDA kernels (tp_index.c, tp_index.cu). */
#ifndef OPNN_TP_INDEX_H
#define OPNN_TP_INDEX_H

#include <stdint.h>

#include <opnn/opnn.h>

/* x * w(i), w(i) = bits 40..63 of (i + 1) * 0x9E3779B97F4A7C15, wrapping in 64 bits */
#define TP_INDEX_TERM(x, i)                                                                        \
    ((int64_t)((uint64_t)(x) * (((uint64_t)(i) + 1u) * 0x9E3779B97F4A7C15ull >> 40)))

#ifdef __cplusplus
extern "C" {
#endif
op_status tp_index_cuda_map(op_kernel_ctx *kc);
op_status tp_index_cuda_fold(op_kernel_ctx *kc);
op_status tp_index_cuda_fold_vec(op_kernel_ctx *kc);
#ifdef __cplusplus
}
#endif

#endif /* OPNN_TP_INDEX_H */
