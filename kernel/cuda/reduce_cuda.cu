/* The CUDA backend's C interface (kernel/reduce_kernels.h): device discovery, pointer checks, the
 * per-context state with its cached workspace, and opnn_cuda_reduce, which hands a plan to the
 * kernel families of its dtype (reduce_<dtype>.cu). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "kernel/cuda/reduce_dtypes.cuh"
#include "kernel/reduce_kernels.h"

/* Small reductions are replayed as CUDA graphs: launching a one-kernel graph costs the host
 * about half of a kernel launch (H200 VM: 2.0 against 3.8 us a call in a host loop), and a
 * small reduction is all launch. A call whose plan, kind, pointers and workspace match one of
 * the last few calls twice running is captured once into an executable graph and replayed from
 * then on; other calls (first sightings, large inputs, a stream being captured) launch as usual.
 * OPNN_CUDA_GRAPHS=0 in the environment turns this off. */
#define OPNN_CUDA_GRAPH_SLOTS 8
#define OPNN_CUDA_GRAPH_MAX_BYTES ((size_t)1 << 20) /* input bytes */

struct graph_slot {
    opnn_reduce_plan plan;
    int kind;
    const void *in;
    void *out;
    void *partials;
    unsigned *counters;
    cudaGraphExec_t exec; /* NULL: seen once, not built yet */
    unsigned long long used;
};

struct opnn_cuda_state {
    int device;                  /* the device the workspace lives on */
    void *partials;              /* partial results of split launches */
    size_t partial_cap;          /* bytes */
    unsigned *counters;          /* arrival counters, zero between launches */
    size_t counter_cap;          /* counters */
    bool graphs_off;             /* OPNN_CUDA_GRAPHS=0, or building a graph failed */
    cudaStream_t capture_stream; /* where graphs are captured (created on first use) */
    unsigned long long tick;
    graph_slot graphs[OPNN_CUDA_GRAPH_SLOTS];
};

namespace {

void set_msg(char *msg, size_t msg_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

void set_msg(char *msg, size_t msg_len, const char *fmt, ...)
{
    va_list ap;
    if (!msg || msg_len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, msg_len, fmt, ap);
    va_end(ap);
}

op_status device_fail(char *msg, size_t msg_len, const char *what, cudaError_t e)
{
    (void)cudaGetLastError(); /* clear a non-sticky error so later calls start clean */
    set_msg(msg, msg_len, "CUDA %s failed: %s (%s)", what, cudaGetErrorString(e),
            cudaGetErrorName(e));
    return e == cudaErrorMemoryAllocation ? OP_ERR_OUT_OF_MEMORY : OP_ERR_DEVICE;
}

/* --- device properties, cached per device ------------------------------------------------- */

/* A device's entry is written once, under the lock, before its flag is set (release); a reader
 * that sees the flag (acquire) copies it without the lock, as every op_run does. */
constexpr int kMaxDevices = 64;
pthread_mutex_t props_lock = PTHREAD_MUTEX_INITIALIZER;
opnn_device_props props_cache[kMaxDevices];
bool props_valid[kMaxDevices];

op_status props_query(int dev, opnn_device_props *p, char *msg, size_t msg_len)
{
    struct {
        cudaDeviceAttr attr;
        int *out;
    } q[] = {
        {cudaDevAttrMultiProcessorCount, &p->sm_count},
        {cudaDevAttrMaxThreadsPerMultiProcessor, &p->max_threads_per_sm},
        {cudaDevAttrMaxThreadsPerBlock, &p->max_threads_per_block},
        {cudaDevAttrWarpSize, &p->warp_size},
        {cudaDevAttrComputeCapabilityMajor, &p->cc_major},
        {cudaDevAttrComputeCapabilityMinor, &p->cc_minor},
    };
    int l2 = 0, smem = 0;
    cudaError_t e;

    p->device_id = dev;
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        e = cudaDeviceGetAttribute(q[i].out, q[i].attr, dev);
        if (e != cudaSuccess)
            return device_fail(msg, msg_len, "cudaDeviceGetAttribute", e);
    }
    e = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlock, dev);
    if (e != cudaSuccess)
        return device_fail(msg, msg_len, "cudaDeviceGetAttribute", e);
    p->l2_bytes = (size_t)l2;
    p->shared_per_block = (size_t)smem;
    return OP_OK;
}

/* --- workspace ----------------------------------------------------------------------------- */

/* Grows the state's workspace to what plan's launch needs. Growing synchronises the device
 * (the old buffers may be in use by work already enqueued) and is refused during stream
 * capture, where allocation is not allowed: run the op once before capturing. */
op_status workspace_reserve(opnn_cuda_state *st, const opnn_launch *l, cudaStream_t stream,
                            char *msg, size_t msg_len)
{
    const size_t need_p = l->partial_bytes, need_c = (size_t)l->ncounters;
    cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    cudaError_t e;

    if (need_p <= st->partial_cap && need_c <= st->counter_cap)
        return OP_OK;
    e = cudaStreamIsCapturing(stream, &cap);
    if (e != cudaSuccess)
        return device_fail(msg, msg_len, "cudaStreamIsCapturing", e);
    if (cap != cudaStreamCaptureStatusNone) {
        set_msg(msg, msg_len,
                "CUDA workspace must grow to %zu bytes of partials and %zu counters, which cannot "
                "happen during stream capture; run the op once before capturing",
                need_p, need_c);
        return OP_ERR_UNSUPPORTED;
    }
    e = cudaDeviceSynchronize();
    if (e != cudaSuccess)
        return device_fail(msg, msg_len, "cudaDeviceSynchronize", e);
    if (need_p > st->partial_cap) {
        size_t cap_p = need_p > 2 * st->partial_cap ? need_p : 2 * st->partial_cap;
        void *p = NULL;
        cudaFree(st->partials);
        st->partials = NULL;
        st->partial_cap = 0;
        e = cudaMalloc(&p, cap_p);
        if (e != cudaSuccess)
            return device_fail(msg, msg_len, "cudaMalloc (reduce partials)", e);
        st->partials = p;
        st->partial_cap = cap_p;
    }
    if (need_c > st->counter_cap) {
        size_t cap_c = need_c > 2 * st->counter_cap ? need_c : 2 * st->counter_cap;
        void *p = NULL;
        if (cap_c < 1024)
            cap_c = 1024;
        cudaFree(st->counters);
        st->counters = NULL;
        st->counter_cap = 0;
        e = cudaMalloc(&p, cap_c * sizeof(unsigned));
        if (e != cudaSuccess)
            return device_fail(msg, msg_len, "cudaMalloc (reduce counters)", e);
        /* zeroed once; every launch leaves them at zero again */
        e = cudaMemset(p, 0, cap_c * sizeof(unsigned));
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            cudaFree(p);
            return device_fail(msg, msg_len, "cudaMemset (reduce counters)", e);
        }
        st->counters = static_cast<unsigned *>(p);
        st->counter_cap = cap_c;
    }
    return OP_OK;
}

/* The kernel launch of plan on stream: the kernel families of its dtype. */
op_status launch(const opnn_reduce_plan *plan, opnn_reduce_kind kind, const void *in, void *out,
                 cudaStream_t s, const op_reduce_workspace &ws, char *msg, size_t msg_len)
{
    switch (plan->dtype.code) {
    case kDLFloat:
        if (plan->dtype.bits == 32)
            return opnn::cuda::reduce_f32(plan, kind, in, out, s, ws, msg, msg_len);
        if (plan->dtype.bits == 64)
            return opnn::cuda::reduce_f64(plan, kind, in, out, s, ws, msg, msg_len);
        return opnn::cuda::reduce_f16(plan, kind, in, out, s, ws, msg, msg_len);
    case kDLBfloat:
        return opnn::cuda::reduce_bf16(plan, kind, in, out, s, ws, msg, msg_len);
    default: /* kDLInt, the only other code opnn__dtype_size serves */
        if (plan->dtype.bits == 32)
            return opnn::cuda::reduce_i32(plan, kind, in, out, s, ws, msg, msg_len);
        return opnn::cuda::reduce_i64(plan, kind, in, out, s, ws, msg, msg_len);
    }
}

/* Replays plan's launch as a graph when it matches a recent call (see graph_slot); *done false:
 * launch it directly. A failure to build turns graphs off for this state and launches
 * directly; a failure to launch a built graph is the call's error. */
op_status graph_reduce(opnn_cuda_state *st, const opnn_reduce_plan *plan, opnn_reduce_kind kind,
                       const void *in, void *out, cudaStream_t s, const op_reduce_workspace &ws,
                       bool *done, char *msg, size_t msg_len)
{
    cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    graph_slot *g = NULL, *lru = &st->graphs[0];

    /* a launch without partials does not depend on where the workspace is */
    const bool uses_ws = plan->launch.partial_bytes > 0 || plan->launch.ncounters > 0;
    void *const partials = uses_ws ? ws.partials : NULL;
    unsigned *const counters = uses_ws ? ws.counters : NULL;

    *done = false;
    if (cudaStreamIsCapturing(s, &cap) != cudaSuccess || cap != cudaStreamCaptureStatusNone) {
        (void)cudaGetLastError(); /* the caller's graph takes the kernel itself */
        return OP_OK;
    }
    for (graph_slot &c : st->graphs) {
        if (c.used && c.in == in && c.out == out && c.kind == (int)kind && c.partials == partials &&
            c.counters == counters && memcmp(&c.plan, plan, sizeof *plan) == 0) {
            g = &c;
            break;
        }
        if (c.used < lru->used)
            lru = &c;
    }
    if (!g) { /* first sighting: remember it, launch directly */
        if (lru->exec)
            cudaGraphExecDestroy(lru->exec);
        *lru = graph_slot{*plan, (int)kind, in, out, partials, counters, NULL, ++st->tick};
        return OP_OK;
    }
    g->used = ++st->tick;
    if (!g->exec) { /* second: capture the launch on a private stream and instantiate it */
        cudaGraph_t graph = NULL;
        cudaError_t e = cudaSuccess;
        op_status ls = OP_ERR_DEVICE;
        if (!st->capture_stream)
            e = cudaStreamCreateWithFlags(&st->capture_stream, cudaStreamNonBlocking);
        if (e == cudaSuccess)
            e = cudaStreamBeginCapture(st->capture_stream, cudaStreamCaptureModeThreadLocal);
        if (e == cudaSuccess) {
            ls = launch(plan, kind, in, out, st->capture_stream, ws, msg, msg_len);
            e = cudaStreamEndCapture(st->capture_stream, &graph);
        }
        if (e == cudaSuccess && ls == OP_OK)
            e = cudaGraphInstantiate(&g->exec, graph, 0);
        if (graph)
            cudaGraphDestroy(graph);
        if (e != cudaSuccess || ls != OP_OK || !g->exec) {
            (void)cudaGetLastError();
            g->exec = NULL;
            st->graphs_off = true;
            set_msg(msg, msg_len, "%s", "");
            return OP_OK;
        }
    }
    *done = true;
    const cudaError_t e = cudaGraphLaunch(g->exec, s);
    return e == cudaSuccess ? OP_OK : device_fail(msg, msg_len, "cudaGraphLaunch", e);
}

} // namespace

extern "C" {

bool opnn_cuda_available(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return n > 0;
}

op_status opnn_cuda_device_props(opnn_device_props *props, char *msg, size_t msg_len)
{
    int dev = -1;
    cudaError_t e;
    op_status st;

    if (!props) {
        set_msg(msg, msg_len, "opnn_cuda_device_props: NULL props");
        return OP_ERR_INVALID_ARGUMENT;
    }
    e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return device_fail(msg, msg_len, "cudaGetDevice (is there a CUDA device?)", e);
    if (dev >= 0 && dev < kMaxDevices && __atomic_load_n(&props_valid[dev], __ATOMIC_ACQUIRE)) {
        *props = props_cache[dev];
        return OP_OK;
    }
    opnn_device_props p;
    memset(&p, 0, sizeof p);
    st = props_query(dev, &p, msg, msg_len);
    if (st != OP_OK)
        return st;
    if (dev >= 0 && dev < kMaxDevices) {
        pthread_mutex_lock(&props_lock);
        if (!props_valid[dev]) {
            props_cache[dev] = p;
            __atomic_store_n(&props_valid[dev], true, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&props_lock);
    }
    *props = p;
    return OP_OK;
}

op_status opnn_cuda_check_pointer(const void *ptr, const char *op, const char *arg, char *msg,
                                  size_t msg_len)
{
    cudaPointerAttributes at;
    int dev = -1;
    cudaError_t e;

    if (!op)
        op = "reduce";
    if (!arg)
        arg = "tensor";
    if (!ptr) {
        set_msg(msg, msg_len, "%s: %s data is NULL", op, arg);
        return OP_ERR_INVALID_ARGUMENT;
    }
    memset(&at, 0, sizeof at);
    e = cudaPointerGetAttributes(&at, ptr);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (e == cudaErrorInvalidValue) {
            set_msg(msg, msg_len, "%s: %s data %p is not CUDA memory (%s)", op, arg, ptr,
                    cudaGetErrorString(e));
            return OP_ERR_INVALID_ARGUMENT;
        }
        return device_fail(msg, msg_len, "cudaPointerGetAttributes", e);
    }
    switch (at.type) {
    case cudaMemoryTypeDevice:
        e = cudaGetDevice(&dev);
        if (e != cudaSuccess)
            return device_fail(msg, msg_len, "cudaGetDevice", e);
        if (at.device != dev) {
            set_msg(msg, msg_len,
                    "%s: %s data %p is memory of cuda:%d, but the current device is cuda:%d", op,
                    arg, ptr, at.device, dev);
            return OP_ERR_INVALID_ARGUMENT;
        }
        return OP_OK;
    case cudaMemoryTypeManaged:
        return OP_OK;
    case cudaMemoryTypeHost:
        /* pinned host memory mapped into the device's address space is readable by kernels */
        if (at.devicePointer == ptr)
            return OP_OK;
        set_msg(msg, msg_len, "%s: %s data %p is pinned host memory not mapped for the device", op,
                arg, ptr);
        return OP_ERR_INVALID_ARGUMENT;
    default:
        set_msg(msg, msg_len, "%s: %s data %p is a host pointer, not CUDA device memory", op, arg,
                ptr);
        return OP_ERR_INVALID_ARGUMENT;
    }
}

op_status opnn_cuda_workspace(const opnn_reduce_plan *plan, void *stream, int device,
                              opnn_cuda_state **state, op_reduce_workspace *ws, char *msg,
                              size_t msg_len)
{
    int dev = device;
    if (dev < 0) {
        const cudaError_t e = cudaGetDevice(&dev);
        if (e != cudaSuccess)
            return device_fail(msg, msg_len, "cudaGetDevice", e);
    }
    if (!*state) {
        opnn_cuda_state *ns = static_cast<opnn_cuda_state *>(calloc(1, sizeof *ns));
        if (!ns) {
            set_msg(msg, msg_len, "CUDA reduce: out of host memory for the CUDA state");
            return OP_ERR_OUT_OF_MEMORY;
        }
        ns->device = dev;
        const char *g = getenv("OPNN_CUDA_GRAPHS");
        ns->graphs_off = g && strcmp(g, "0") == 0;
        *state = ns;
    }
    if ((*state)->device != dev) {
        set_msg(msg, msg_len,
                "CUDA reduce: this context's CUDA workspace lives on cuda:%d but the current "
                "device is cuda:%d; use one context per device",
                (*state)->device, dev);
        return OP_ERR_INVALID_ARGUMENT;
    }
    op_status st =
        workspace_reserve(*state, &plan->launch, static_cast<cudaStream_t>(stream), msg, msg_len);
    if (st != OP_OK)
        return st;

    *ws = {(*state)->partials, (*state)->partial_cap, (*state)->counters,
           (int64_t)(*state)->counter_cap};
    return OP_OK;
}

op_status opnn_cuda_reduce(const opnn_reduce_plan *plan, opnn_reduce_kind kind, const void *in,
                           void *out, void *stream, opnn_cuda_state **state, char *msg,
                           size_t msg_len)
{
    return opnn_cuda_reduce_on(-1, plan, kind, in, out, stream, state, msg, msg_len);
}

op_status opnn_cuda_reduce_on(int device, const opnn_reduce_plan *plan, opnn_reduce_kind kind,
                              const void *in, void *out, void *stream, opnn_cuda_state **state,
                              char *msg, size_t msg_len)
{
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    size_t es;
    op_status st;

    if (!plan || !state) {
        set_msg(msg, msg_len, "opnn_cuda_reduce: NULL %s", plan ? "state" : "plan");
        return OP_ERR_INVALID_ARGUMENT;
    }
    if ((int)kind < 0 || kind >= OPNN_REDUCE_KIND_COUNT_) {
        set_msg(msg, msg_len, "opnn_cuda_reduce: unknown reduce kind %d", (int)kind);
        return OP_ERR_INVALID_ARGUMENT;
    }
    es = opnn__dtype_size(plan->dtype);
    if (es == 0) {
        set_msg(msg, msg_len, "CUDA reduce: dtype %s is not served", opnn__dtype_name(plan->dtype));
        return OP_ERR_UNSUPPORTED;
    }
    if (plan->cls == OPNN_CLASS_EMPTY)
        return OP_OK;
    if (plan->launch.family <= OPNN_FAMILY_NONE || plan->launch.family >= OPNN_FAMILY_COUNT_) {
        set_msg(msg, msg_len,
                "CUDA reduce: the %s plan has no launch geometry (call "
                "opnn__reduce_plan_launch first)",
                opnn__reduce_class_name(plan->cls));
        return OP_ERR_INTERNAL;
    }
    if (!out || (!in && plan->cls != OPNN_CLASS_FILL)) {
        set_msg(msg, msg_len, "CUDA reduce: %s data is NULL", out ? "input" : "output");
        return OP_ERR_INVALID_ARGUMENT;
    }
    if (((uintptr_t)in % es) != 0 || ((uintptr_t)out % es) != 0) {
        set_msg(msg, msg_len, "CUDA reduce: %s data %p is not aligned to its %zu-byte elements",
                ((uintptr_t)in % es) ? "input" : "output", ((uintptr_t)in % es) ? in : out, es);
        return OP_ERR_UNSUPPORTED;
    }

    op_reduce_workspace ws;
    st = opnn_cuda_workspace(plan, stream, device, state, &ws, msg, msg_len);
    if (st != OP_OK)
        return st;
    if (!(*state)->graphs_off && plan->cls != OPNN_CLASS_FILL &&
        (size_t)plan->out_numel * (size_t)plan->red_numel * es <= OPNN_CUDA_GRAPH_MAX_BYTES) {
        bool done = false;
        st = graph_reduce(*state, plan, kind, in, out, s, ws, &done, msg, msg_len);
        if (done)
            return st;
    }
    return launch(plan, kind, in, out, s, ws, msg, msg_len);
}

int opnn_cuda_state_graphs(const opnn_cuda_state *state)
{
    int n = 0;
    if (state)
        for (const graph_slot &g : state->graphs)
            n += g.exec != NULL;
    return n;
}

void opnn_cuda_state_destroy(opnn_cuda_state *state)
{
    int cur = -1;

    if (!state)
        return;
    /* work enqueued with this workspace may still run: wait for the device (the stream it
     * was last used on may already be destroyed), then free */
    if (cudaGetDevice(&cur) == cudaSuccess && cur != state->device)
        cudaSetDevice(state->device);
    cudaDeviceSynchronize();
    for (graph_slot &g : state->graphs)
        if (g.exec)
            cudaGraphExecDestroy(g.exec);
    if (state->capture_stream)
        cudaStreamDestroy(state->capture_stream);
    cudaFree(state->partials);
    cudaFree(state->counters);
    if (cur >= 0 && cur != state->device)
        cudaSetDevice(cur);
    (void)cudaGetLastError();
    free(state);
}

} // extern "C"
