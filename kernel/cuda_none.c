/* The CUDA interface of kernel/reduce_kernels.h for builds without CUDA: no device is ever
 * available, and every entry point says so (OP_ERR_UNSUPPORTED). Compiled only when CUDA is off;
 * kernel/cuda/ replaces it otherwise. */
#include <stdio.h>

#include "kernel/reduce_kernels.h"

static op_status none_fail(char *msg, size_t msg_len, const char *what)
{
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s: opnn was built without CUDA", what);
    return OP_ERR_UNSUPPORTED;
}

bool opnn_cuda_available(void)
{
    return false;
}

op_status opnn_cuda_device_props(opnn_device_props *props, char *msg, size_t msg_len)
{
    (void)props;
    return none_fail(msg, msg_len, "CUDA device properties");
}

op_status opnn_cuda_check_pointer(const void *ptr, const char *op, const char *arg, char *msg,
                                  size_t msg_len)
{
    (void)ptr;
    (void)arg;
    return none_fail(msg, msg_len, op ? op : "reduce");
}

op_status opnn_cuda_reduce(const opnn_reduce_plan *plan, opnn_reduce_kind kind, const void *in,
                           void *out, void *stream, opnn_cuda_state **state, char *msg,
                           size_t msg_len)
{
    (void)plan;
    (void)kind;
    (void)in;
    (void)out;
    (void)stream;
    (void)state;
    return none_fail(msg, msg_len, "CUDA reduce");
}

op_status opnn_cuda_reduce_on(int device, const opnn_reduce_plan *plan, opnn_reduce_kind kind,
                              const void *in, void *out, void *stream, opnn_cuda_state **state,
                              char *msg, size_t msg_len)
{
    (void)device;
    return opnn_cuda_reduce(plan, kind, in, out, stream, state, msg, msg_len);
}

op_status opnn_cuda_workspace(const opnn_reduce_plan *plan, void *stream, int device,
                              opnn_cuda_state **state, op_reduce_workspace *ws, char *msg,
                              size_t msg_len)
{
    (void)plan;
    (void)stream;
    (void)device;
    (void)state;
    (void)ws;
    return none_fail(msg, msg_len, "CUDA workspace");
}

void opnn_cuda_state_destroy(opnn_cuda_state *state)
{
    (void)state; /* never created without CUDA */
}

int opnn_cuda_state_graphs(const opnn_cuda_state *state)
{
    (void)state;
    return 0;
}
