/* Probe: where the host time of a small op_run goes. For the two small suite cases (a full sum
 * of 4096 floats, and [64, 1024] over axis 1) it times, on one stream:
 *   - the host loop of `opnn bench` (10000 op_run calls, no wait between them);
 *   - op_run followed by a stream synchronisation (the latency of one call);
 *   - the op captured once by the caller into a graph and that graph launched bare, alone and
 *     with the CUDA calls op_run makes besides its launch (cudaGetDevice and
 *     cudaStreamIsCapturing once each; twice cudaGetDevice before 22cb882, as this probe did in
 *     sessions 34 and 35) or eight cudaGetDevice: the GPU's and the driver's cost without
 *     opnn's host code;
 * then each of those CUDA calls alone, and op_run on a CPU tensor of 8 floats (its host path
 * without CUDA). Where the host loop equals the bare graph's, the GPU's
 * rate of graph launches bounds it; where it is longer, the difference is host time.
 * `OPNN_CUDA_GRAPHS=0` in the environment times op_run's direct launches instead. Not part of
 * the build (a CUDA build of opnn in build/):
 *   cc -O2 bench/host_probe.c -Iinclude -I/usr/local/cuda/include -Lbuild -lopnn \
 *      -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,$PWD/build -o host_probe && ./host_probe
 * bench/RESULTS.md (sessions 34 and 35) has an H200's figures. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime_api.h>
#include <opnn/opnn.h>

#define CALLS 10000

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define OP_OK_OR_EXIT(call, ctx)                                                                   \
    do {                                                                                           \
        if ((call) != OP_OK) {                                                                     \
            fprintf(stderr, "%s: %s\n", #call, op_context_error(ctx));                             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ReduceSum of float32 [shape] over axes (none: every axis), keepdims 1, on stream s */
static void probe(const char *name, int ndim, const int64_t *shape, const int64_t *axes, int naxes,
                  cudaStream_t s)
{
    static const char *const extras[] = {"launch alone", "cudaGetDevice + launch",
                                         "cudaStreamIsCapturing + launch", "both + launch",
                                         "8 cudaGetDevice + launch"};
    op_context *ctx = NULL;
    int64_t in_n = 1, out_n = 1, out_shape[4];
    float *in = NULL, *out = NULL;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    double t0, t1, t2;

    /* set up */
    for (int d = 0; d < ndim; d++) {
        out_shape[d] = naxes ? shape[d] : 1;
        in_n *= shape[d];
    }
    for (int i = 0; i < naxes; i++)
        out_shape[axes[i]] = 1;
    for (int d = 0; d < ndim; d++)
        out_n *= out_shape[d];
    CUDA_OK(cudaMalloc((void **)&in, (size_t)in_n * sizeof(float)));
    CUDA_OK(cudaMalloc((void **)&out, (size_t)out_n * sizeof(float)));
    CUDA_OK(cudaMemset(in, 0, (size_t)in_n * sizeof(float)));
    if (op_context_create(&ctx) != OP_OK) {
        fprintf(stderr, "op_context_create failed\n");
        exit(1);
    }
    DLTensor x = {.data = in,
                  .device = {kDLCUDA, 0},
                  .ndim = ndim,
                  .dtype = {kDLFloat, 32, 1},
                  .shape = (int64_t *)shape};
    DLTensor y = {.data = out,
                  .device = {kDLCUDA, 0},
                  .ndim = ndim,
                  .dtype = {kDLFloat, 32, 1},
                  .shape = out_shape};
    OP_OK_OR_EXIT(op_context_set_stream(ctx, s), ctx);
    OP_OK_OR_EXIT(op_context_set_input(ctx, 0, &x), ctx);
    OP_OK_OR_EXIT(op_context_set_output(ctx, 0, &y), ctx);
    if (naxes)
        OP_OK_OR_EXIT(op_context_set_attr_ints(ctx, "axes", axes, (size_t)naxes), ctx);
    for (int i = 0; i < 200; i++) /* warm-up: the plan, the workspace, op_run's own graph */
        OP_OK_OR_EXIT(op_run("ReduceSum", ctx), ctx);
    CUDA_OK(cudaStreamSynchronize(s));

    /* run: the host loop, then a call at a time */
    t0 = now_s();
    for (int i = 0; i < CALLS; i++)
        op_run("ReduceSum", ctx);
    t1 = now_s();
    CUDA_OK(cudaStreamSynchronize(s));
    t2 = now_s();
    printf("%s: host loop %.2f us/call (%.2f with the final sync)\n", name, (t1 - t0) / CALLS * 1e6,
           (t2 - t0) / CALLS * 1e6);
    t0 = now_s();
    for (int i = 0; i < 2000; i++) {
        op_run("ReduceSum", ctx);
        CUDA_OK(cudaStreamSynchronize(s));
    }
    t1 = now_s();
    printf("%s: op_run + sync %.2f us/call\n", name, (t1 - t0) / 2000 * 1e6);

    /* the op captured by the caller, launched bare and with op_run's other CUDA calls */
    CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    OP_OK_OR_EXIT(op_run("ReduceSum", ctx), ctx);
    CUDA_OK(cudaStreamEndCapture(s, &graph));
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 200; i++)
        CUDA_OK(cudaGraphLaunch(exec, s));
    for (int v = 0; v < 5; v++) {
        enum cudaStreamCaptureStatus cs;
        int dev;

        CUDA_OK(cudaStreamSynchronize(s));
        t0 = now_s();
        for (int i = 0; i < CALLS; i++) {
            if (v == 1 || v == 3)
                cudaGetDevice(&dev);
            if (v == 2 || v == 3)
                cudaStreamIsCapturing(s, &cs);
            if (v == 4)
                for (int k = 0; k < 8; k++)
                    cudaGetDevice(&dev);
            cudaGraphLaunch(exec, s);
        }
        t1 = now_s();
        CUDA_OK(cudaStreamSynchronize(s));
        t2 = now_s();
        printf("%s: its graph, %s %.2f us/call (%.2f with the final sync)\n", name, extras[v],
               (t1 - t0) / CALLS * 1e6, (t2 - t0) / CALLS * 1e6);
    }

    /* (nothing to check: the outputs of a zero input are zero, which the tests cover) */
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(graph));
    op_context_destroy(ctx);
    CUDA_OK(cudaFree(in));
    CUDA_OK(cudaFree(out));
}

/* op_run's host path without CUDA: ReduceSum of a CPU float32 [2, 4] over axis 1 (validation,
 * the plan cache, dispatch, and a kernel of a few nanoseconds) */
static void probe_cpu(void)
{
    static const int64_t shape[2] = {2, 4}, oshape[2] = {2, 1}, axis1[1] = {1};
    float in[8] = {0}, out[2];
    op_context *ctx = NULL;
    double t0, t1;

    if (op_context_create(&ctx) != OP_OK) {
        fprintf(stderr, "op_context_create failed\n");
        exit(1);
    }
    DLTensor x = {.data = in,
                  .device = {kDLCPU, 0},
                  .ndim = 2,
                  .dtype = {kDLFloat, 32, 1},
                  .shape = (int64_t *)shape};
    DLTensor y = {.data = out,
                  .device = {kDLCPU, 0},
                  .ndim = 2,
                  .dtype = {kDLFloat, 32, 1},
                  .shape = (int64_t *)oshape};
    OP_OK_OR_EXIT(op_context_set_input(ctx, 0, &x), ctx);
    OP_OK_OR_EXIT(op_context_set_output(ctx, 0, &y), ctx);
    OP_OK_OR_EXIT(op_context_set_attr_ints(ctx, "axes", axis1, 1), ctx);
    for (int i = 0; i < 1000; i++)
        OP_OK_OR_EXIT(op_run("ReduceSum", ctx), ctx);
    t0 = now_s();
    for (int i = 0; i < 10 * CALLS; i++)
        op_run("ReduceSum", ctx);
    t1 = now_s();
    printf("CPU [2, 4] over 1 (op_run's host path alone): %.3f us/call\n",
           (t1 - t0) / (10 * CALLS) * 1e6);
    op_context_destroy(ctx);
}

int main(void)
{
    static const int64_t full[1] = {4096}, rows[2] = {64, 1024}, axis1[1] = {1};
    enum cudaStreamCaptureStatus cs;
    struct cudaPointerAttributes at;
    cudaStream_t s;
    void *p;
    int dev;
    double t0, t1;

    probe_cpu();
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    probe("small_full [4096]", 1, full, NULL, 0, s);
    probe("small_rows [64, 1024] over 1", 2, rows, axis1, 1, s);

    /* the CUDA calls alone */
    CUDA_OK(cudaMalloc(&p, 4096));
    t0 = now_s();
    for (int i = 0; i < 100000; i++)
        cudaGetDevice(&dev);
    t1 = now_s();
    printf("cudaGetDevice %.3f us\n", (t1 - t0) / 100000 * 1e6);
    t0 = now_s();
    for (int i = 0; i < 100000; i++)
        cudaStreamIsCapturing(s, &cs);
    t1 = now_s();
    printf("cudaStreamIsCapturing %.3f us\n", (t1 - t0) / 100000 * 1e6);
    t0 = now_s();
    for (int i = 0; i < 100000; i++)
        cudaPointerGetAttributes(&at, p);
    t1 = now_s();
    printf("cudaPointerGetAttributes %.3f us\n", (t1 - t0) / 100000 * 1e6);
    CUDA_OK(cudaFree(p));
    CUDA_OK(cudaStreamDestroy(s));
    return 0;
}
