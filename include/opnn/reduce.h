/// @file reduce.h
/// Building blocks for reduce operators: the ONNX reduce attributes and shape inference, and
/// the planning step every reduce kernel starts with. A plugin's reduce op uses these with the
/// kernel families of opnn/cpu/reduce_cpu.h (C) and opnn/cuda/reduce.cuh (CUDA C++) to get the
/// built-ins' planning, plan cache and kernels.
#ifndef OPNN_REDUCE_H
#define OPNN_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "opnn/export.h"
#include "opnn/plugin.h"
#include "opnn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A reduce plan: the normalised, classified view of one reduction (see opnn/reduce_plan.h
/// for its fields).
typedef struct opnn_reduce_plan op_reduce_plan;

/// The attributes of an ONNX reduce op, for an op_schema's attribute table:
/// axes (ints, empty), keepdims (int, 1), noop_with_empty_axes (int, 0).
#define OP_REDUCE_ATTR_DEFS                                                                        \
    {"axes", OP_ATTR_INTS, 0, 0.0}, {"keepdims", OP_ATTR_INT, 1, 0.0},                             \
    {                                                                                              \
        "noop_with_empty_axes", OP_ATTR_INT, 0, 0.0                                                \
    }

/// Reads axes, keepdims and noop_with_empty_axes for input 0 and returns the reduced dims as a
/// mask (bit i = dim i). Axes wrap once; out of range or duplicate is an error.
/// @retval OP_OK mask written.
/// @retval OP_ERR_INVALID_ARGUMENT bad axis, keepdims or noop_with_empty_axes value.
/// @retval OP_ERR_UNSUPPORTED input rank above OP_MAX_DIMS.
OPNN_API op_status op_reduce_mask(op_kernel_ctx *kc, uint32_t *mask);

/// Shape inference of an ONNX reduce op (an op_infer_fn): the output keeps input 0's dtype;
/// reduced dims are dropped, or kept as 1 with keepdims.
OPNN_API op_status op_reduce_infer(op_kernel_ctx *kc, int index, int32_t *ndim, int64_t *shape,
                                   DLDataType *dtype);

/// Infers a rank-preserving or rank-dropping shape for a reduction over @p mask.
/// @param keepdims keep reduced dims as size 1.
OPNN_API void op_reduce_shape(const DLTensor *x, uint32_t mask, bool keepdims, int32_t *ndim,
                              int64_t *shape);

/// What a reduce kernel launches with, from op_reduce_prepare.
typedef struct op_reduce_call {
    const op_reduce_plan *plan; ///< valid until the next op_run on the context
    const void *in;             ///< input 0's data with its byte_offset applied
    void *out;                  ///< output 0's data with its byte_offset applied
    void *stream;               ///< the context's CUDA stream (NULL: default)
    DLDeviceType device;        ///< kDLCPU or kDLCUDA
} op_reduce_call;

/// Plans the reduction of input 0 over @p mask into output 0: from the context's plan cache when
/// it was planned before, and for CUDA tensors with the launch geometry of the current device,
/// after checking that both pointers are device memory of that device.
/// @retval OP_OK call filled.
/// @retval OP_ERR_INVALID_ARGUMENT host memory passed as CUDA, wrong device, bad strides.
/// @retval OP_ERR_UNSUPPORTED dtype or rank not served.
/// @retval OP_ERR_DEVICE CUDA error.
OPNN_API op_status op_reduce_prepare(op_kernel_ctx *kc, uint32_t mask, op_reduce_call *call);

/// A CUDA reduce launch's device workspace: partial results, and arrival counters that are zero
/// between launches (each launch leaves them at zero again).
typedef struct op_reduce_workspace {
    void *partials;
    size_t partial_bytes;
    unsigned *counters;
    int64_t ncounters;
} op_reduce_workspace;

/// The context's CUDA workspace, grown (rarely; growing synchronises the device and is refused
/// during stream capture) to what @p plan's launch needs. For opnn::cuda::reduce in a plugin.
/// @retval OP_OK ws filled.
/// @retval OP_ERR_UNSUPPORTED the workspace must grow during stream capture, or no CUDA build.
/// @retval OP_ERR_OUT_OF_MEMORY, OP_ERR_DEVICE allocation or CUDA failure.
OPNN_API op_status op_reduce_cuda_workspace(op_kernel_ctx *kc, const op_reduce_plan *plan,
                                            op_reduce_workspace *ws);

#ifdef __cplusplus
}
#endif

#endif /* OPNN_REDUCE_H */
