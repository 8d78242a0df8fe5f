/* What argminmax.c and argminmax.cu share inside the plugin (hidden symbols). */
#ifndef ARGMINMAX_H
#define ARGMINMAX_H

#include <stdbool.h>
#include <stdint.h>

#include <opnn/opnn.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Checks axis, keepdims and select_last_index against input 0 and refuses an empty axis (when
 * the output has elements); gives the reduce mask (1 << axis) and the tie rule. */
op_status argminmax_prepare(op_kernel_ctx *kc, uint32_t *mask, bool *last);

/* The CUDA kernels (argminmax.cu), for every dtype. */
op_status argminmax_cuda_argmax(op_kernel_ctx *kc);
op_status argminmax_cuda_argmin(op_kernel_ctx *kc);

#ifdef __cplusplus
}
#endif

#endif /* ARGMINMAX_H */
