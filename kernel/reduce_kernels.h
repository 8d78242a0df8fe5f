/* The reduce kernel interface shared by the CPU and CUDA backends. A launcher takes a plan and
 * raw pointers; it knows nothing about contexts or the registry. Pointers already include the
 * tensor's byte_offset. */
#ifndef OPNN_KERNEL_REDUCE_KERNELS_H
#define OPNN_KERNEL_REDUCE_KERNELS_H

#include <stddef.h>

#include "core/device.h"
#include "core/plan.h"
#include "opnn/reduce.h"
#include "opnn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The built-in reductions. Semantics are DESIGN.md's "Reduce semantics". */
typedef enum opnn_reduce_kind {
    OPNN_REDUCE_SUM = 0,
    OPNN_REDUCE_MEAN,
    OPNN_REDUCE_MAX,
    OPNN_REDUCE_MIN,
    OPNN_REDUCE_PROD,
    OPNN_REDUCE_KIND_COUNT_
} opnn_reduce_kind;

/* CPU: runs the whole reduction (OpenMP inside); in and out are host pointers. The output is
 * compact; plan->dtype is the element type of both. Returns OP_OK, or OP_ERR_UNSUPPORTED for a
 * dtype it does not serve (with a message in msg). */
op_status opnn_cpu_reduce(const opnn_reduce_plan *plan, opnn_reduce_kind kind, const void *in,
                          void *out, char *msg, size_t msg_len);

/* Opaque per-context CUDA state (workspace, device props cache). */
typedef struct opnn_cuda_state opnn_cuda_state;

/* True if a CUDA device is usable (the library was built with CUDA and the runtime finds one). */
bool opnn_cuda_available(void);

/* Properties of the current CUDA device (cached). OP_ERR_DEVICE when there is none. */
op_status opnn_cuda_device_props(opnn_device_props *props, char *msg, size_t msg_len);

/* Checks that ptr is device-accessible memory of the current device (not a plain host pointer,
 * not another device's). OP_ERR_INVALID_ARGUMENT with a message naming arg otherwise. */
op_status opnn_cuda_check_pointer(const void *ptr, const char *op, const char *arg, char *msg,
                                  size_t msg_len);

/* CUDA: enqueues the reduction on stream (a cudaStream_t, NULL = default) and returns without
 * synchronising. *state is created on first use and reused (it owns the cached workspace);
 * free it with opnn_cuda_state_destroy. plan->launch must have been filled by
 * opnn__reduce_plan_launch for this device. */
op_status opnn_cuda_reduce(const opnn_reduce_plan *plan, opnn_reduce_kind kind, const void *in,
                           void *out, void *stream, opnn_cuda_state **state, char *msg,
                           size_t msg_len);

/* opnn_cuda_reduce where the caller has just asked CUDA for the current device (op_run's
 * planning does): `device` is it, and the call does not ask again (-1: it asks). */
op_status opnn_cuda_reduce_on(int device, const opnn_reduce_plan *plan, opnn_reduce_kind kind,
                              const void *in, void *out, void *stream, opnn_cuda_state **state,
                              char *msg, size_t msg_len);

/* The state's device workspace (created and grown as needed) for plan's launch, on the current
 * device: `device` when the caller knows it, -1 to ask CUDA. Used by opnn_cuda_reduce and,
 * through op_reduce_cuda_workspace, by plugins. */
op_status opnn_cuda_workspace(const opnn_reduce_plan *plan, void *stream, int device,
                              opnn_cuda_state **state, op_reduce_workspace *ws, char *msg,
                              size_t msg_len);

/* Graphs the state has built for small calls replayed from then on (0 for NULL). */
int opnn_cuda_state_graphs(const opnn_cuda_state *state);

/* Frees the state (waits for its stream first). NULL is fine. */
void opnn_cuda_state_destroy(opnn_cuda_state *state);

#ifdef __cplusplus
}
#endif

#endif /* OPNN_KERNEL_REDUCE_KERNELS_H */
