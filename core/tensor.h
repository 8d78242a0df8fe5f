/* DLPack helpers shared by the registry and the reduce ops. */
#ifndef OPNN_CORE_TENSOR_H
#define OPNN_CORE_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "opnn/context.h" /* OP_MAX_DIMS */

/* Product of the dims; -1 if a dim is negative or the product of the dims other than zeros
 * overflows int64 (an empty tensor too: its compact strides could not be counted). */
int64_t opnn__numel(int32_t ndim, const int64_t *shape);

/* True if strides is NULL or equal to the compact row-major strides (size-1 dims ignored). */
bool opnn__tensor_is_compact(const DLTensor *t);

/* The device type opnn dispatches on: CUDA-managed memory is CUDA, pinned host memory is CPU. */
DLDeviceType opnn__device_kind(DLDevice d);

/* "cpu", "cuda", "cuda_host", ... for messages. */
const char *opnn__device_name(DLDeviceType t);

/* Writes a readable dtype ("f32", "u8", "f32x4", "<code 9, 8 bits>") into buf. */
void opnn__dtype_format(DLDataType t, char *buf, size_t len);

/* Room for any shape's "[2, 3, 4]": OP_MAX_DIMS dims of up to 20 characters and ", ". */
#define OPNN_SHAPE_STR_MAX (OP_MAX_DIMS * 22 + 3)

/* Writes "[2, 3, 4]" into buf (cut short if len is less than OPNN_SHAPE_STR_MAX). */
void opnn__shape_format(int32_t ndim, const int64_t *shape, char *buf, size_t len);

#endif /* OPNN_CORE_TENSOR_H */
