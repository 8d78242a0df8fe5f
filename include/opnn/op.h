/// @file op.h
/// Running registered operators by name.
#ifndef OPNN_OP_H
#define OPNN_OP_H

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "opnn/context.h"
#include "opnn/export.h"
#include "opnn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Infers the shape and dtype of output @p index of @p op from the context's inputs and
/// attributes, without running anything. The outputs need not be bound.
/// @param op registered op name, e.g. "ReduceSum".
/// @param ndim receives the rank; @p shape receives ndim sizes (room for OP_MAX_DIMS);
///        @p dtype receives the element type. Written only on success.
/// @retval OP_OK inferred.
/// @retval OP_ERR_INVALID_ARGUMENT NULL argument, missing input, bad axis or attribute value.
/// @retval OP_ERR_NOT_FOUND no op of that name, or an attribute the op does not define.
/// @retval OP_ERR_UNSUPPORTED a legal request the op does not serve.
OPNN_API op_status op_infer_output(const char *op, op_context *ctx, int index, int32_t *ndim,
                                   int64_t *shape, DLDataType *dtype);

/// Runs @p op on the context's tensors. For CUDA tensors the work is enqueued on the context's
/// stream and the call returns without synchronising; errors from earlier asynchronous work may
/// surface here as OP_ERR_DEVICE.
/// @retval OP_OK done (CPU) or enqueued (CUDA).
/// @retval OP_ERR_INVALID_ARGUMENT NULL argument, missing tensor, NULL data, mismatched devices,
///         an output whose shape or dtype differs from the inferred one, bad axis or attribute.
/// @retval OP_ERR_NOT_FOUND no op of that name, or an attribute the op does not define.
/// @retval OP_ERR_UNSUPPORTED no kernel for this device and dtype, vector lanes, strided output.
/// @retval OP_ERR_OUT_OF_MEMORY host or device allocation failed.
/// @retval OP_ERR_DEVICE a CUDA error; the message holds CUDA's text.
/// @retval OP_ERR_INTERNAL a bug in opnn.
OPNN_API op_status op_run(const char *op, op_context *ctx);

/// Copies up to @p capacity registered op names, sorted, into @p names (may be NULL when
/// capacity is 0) and returns how many ops are registered in all. The strings stay valid until
/// the op is unregistered.
OPNN_API size_t op_list(const char **names, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* OPNN_OP_H */
