/// @file context.h
/// The op_context: inputs, outputs, attributes and the CUDA stream of one op call.
#ifndef OPNN_CONTEXT_H
#define OPNN_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "opnn/export.h"
#include "opnn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Most tensor dimensions opnn accepts; a tensor of higher rank is OP_ERR_UNSUPPORTED.
#define OP_MAX_DIMS 16
/// Most inputs or outputs one op call binds.
#define OP_MAX_TENSORS 8

/// Opaque call state. One context is used by one thread at a time; different contexts are
/// independent and may run concurrently.
typedef struct op_context op_context;

/// Creates an empty context bound to the default CUDA stream.
/// @param out receives the context; written only on success.
/// @retval OP_OK created.
/// @retval OP_ERR_INVALID_ARGUMENT out is NULL.
/// @retval OP_ERR_OUT_OF_MEMORY allocation failed.
OPNN_API op_status op_context_create(op_context **out);

/// Frees a context, its plan cache and its device workspace. NULL is fine.
/// Work already enqueued on the context's stream is waited for before the workspace is freed.
OPNN_API void op_context_destroy(op_context *ctx);

/// Binds input @p index to a borrowed tensor description; the DLTensor, its shape and strides
/// arrays and the data must outlive the op_run call that uses them. The struct is copied, the
/// shape and strides arrays are copied too, the data is not.
/// @retval OP_OK bound.
/// @retval OP_ERR_INVALID_ARGUMENT ctx or t is NULL, index outside [0, OP_MAX_TENSORS),
///         negative ndim or a negative dimension.
/// @retval OP_ERR_UNSUPPORTED ndim greater than OP_MAX_DIMS.
OPNN_API op_status op_context_set_input(op_context *ctx, int index, const DLTensor *t);

/// Binds output @p index to a borrowed tensor; same rules as op_context_set_input. The output's
/// shape and dtype must equal what the op infers (op_infer_output); its data is written by op_run.
/// @retval OP_OK bound.
/// @retval OP_ERR_INVALID_ARGUMENT as for op_context_set_input.
/// @retval OP_ERR_UNSUPPORTED ndim greater than OP_MAX_DIMS.
OPNN_API op_status op_context_set_output(op_context *ctx, int index, const DLTensor *t);

/// Sets an integer attribute, replacing any earlier value of that name.
/// @retval OP_OK set.
/// @retval OP_ERR_INVALID_ARGUMENT ctx or name is NULL or name is empty or too long (63 bytes).
/// @retval OP_ERR_OUT_OF_MEMORY allocation failed.
OPNN_API op_status op_context_set_attr_int(op_context *ctx, const char *name, int64_t v);

/// Sets an integer-list attribute (copied). @p v may be NULL when @p n is 0 (an empty list).
/// @retval OP_OK set.
/// @retval OP_ERR_INVALID_ARGUMENT ctx or name is NULL, name empty or too long, v NULL with n > 0,
///         or n greater than OP_MAX_DIMS * 4.
/// @retval OP_ERR_OUT_OF_MEMORY allocation failed.
OPNN_API op_status op_context_set_attr_ints(op_context *ctx, const char *name, const int64_t *v,
                                            size_t n);

/// Sets a floating-point attribute.
/// @retval OP_OK set.
/// @retval OP_ERR_INVALID_ARGUMENT ctx or name is NULL, name empty or too long.
/// @retval OP_ERR_OUT_OF_MEMORY allocation failed.
OPNN_API op_status op_context_set_attr_float(op_context *ctx, const char *name, double v);

/// Sets the CUDA stream (a cudaStream_t) that GPU kernels are enqueued on. NULL: the default
/// stream. op_run returns without waiting for the GPU.
/// @retval OP_OK set.
/// @retval OP_ERR_INVALID_ARGUMENT ctx is NULL.
OPNN_API op_status op_context_set_stream(op_context *ctx, void *cuda_stream);

/// Drops bound tensors and attributes; keeps the stream, the plan cache and the workspace.
/// NULL is fine.
OPNN_API void op_context_clear(op_context *ctx);

/// Why the last call on this context failed; "" after a success. Never NULL (also for a NULL
/// context). The string lives until the next call on the context. At most 1023 bytes: room for
/// two shapes of OP_MAX_DIMS dims of any size besides the op's and the argument's names.
OPNN_API const char *op_context_error(const op_context *ctx);

#ifdef __cplusplus
}
#endif

#endif /* OPNN_CONTEXT_H */
