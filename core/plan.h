/* The reduce planner: (shape, strides, axes, dtype) -> plan. Pure C11, no CUDA.
 *
 * Steps: wrap and check axes; drop size-1 dims; order dims by input stride (zero strides
 * outermost); merge neighbours that are contiguous and alike (both kept or both reduced, and for
 * kept dims also contiguous in the output); classify. */
#ifndef OPNN_CORE_PLAN_H
#define OPNN_CORE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "core/device.h"
#include "core/launch.h"
#include "opnn/context.h"
#include "opnn/reduce_plan.h"
#include "opnn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything the planner looks at. Strides are in elements; NULL means compact row-major. */
typedef struct opnn_reduce_request {
    const char *op; /* for messages only */
    int32_t ndim;
    const int64_t *shape;
    const int64_t *strides;
    const int64_t *axes; /* NULL or num_axes values in [-ndim, ndim-1] */
    size_t num_axes;
    bool noop_with_empty_axes;
    DLDataType dtype;
} opnn_reduce_request;

/* Wraps and checks axes: each in [-ndim, ndim-1], no duplicate after wrapping, none for rank 0.
 * Sets *mask (bit i = dim i reduced): all dims for an empty list unless noop_with_empty_axes,
 * then none. Errors are INVALID_ARGUMENT with "<op>: axis 3 out of range for rank 3" etc. */
op_status opnn__reduce_axes_mask(const char *op, int32_t ndim, const int64_t *axes, size_t num_axes,
                                 bool noop_with_empty_axes, uint32_t *mask, char *msg,
                                 size_t msg_len);

/* Plans a reduction. On failure returns INVALID_ARGUMENT / UNSUPPORTED with a message
 * "<op>: ..." in msg (msg_len bytes), and leaves *plan untouched. */
op_status opnn__reduce_plan_init(opnn_reduce_plan *plan, const opnn_reduce_request *req, char *msg,
                                 size_t msg_len);

/* Fills plan->launch for a CUDA device (kernel family, block, grid, split, workspace). */
void opnn__reduce_plan_launch(opnn_reduce_plan *plan, const opnn_device_props *props);

/* Name of a class, for messages, tests and `opnn run --verbose` ("row", "generic"...). */
const char *opnn__reduce_class_name(opnn_reduce_class cls);

/* Size in bytes of one element of dtype (lanes == 1), or 0 if dtype is not served. */
size_t opnn__dtype_size(DLDataType dtype);

/* Short dtype name ("f32", "bf16", "i64"), or "unsupported". */
const char *opnn__dtype_name(DLDataType dtype);

#ifdef __cplusplus
}
#endif

#endif /* OPNN_CORE_PLAN_H */
