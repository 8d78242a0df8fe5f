/* The CUDA helpers of `opnn bench` (tools/bench_cuda.cu). Part of the tool, not of the library. */
#ifndef OPNN_TOOLS_BENCH_CUDA_H
#define OPNN_TOOLS_BENCH_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues the read-only streaming kernel over bytes (a multiple of 16) of device memory on
 * stream, with `blocks` blocks of 256 threads; sink receives one word per block. variant 0..3:
 * 4 or 8 16-byte loads in flight per thread (0, 2: 4; 1, 3: 8), each block one contiguous chunk
 * (0, 1) or a grid-stride loop (2, 3). Returns a cudaError_t (0: success). */
int bench_cuda_read(const void *data, size_t bytes, int blocks, int variant, void *sink,
                    void *stream);

/* The launch floor of the small cases: a graph of one empty kernel (as op_run replays small
 * calls), captured once and launched `calls` times on stream from a host loop, then one
 * synchronize; *us_per_call is the loop's time a call. Returns a cudaError_t. */
int bench_cuda_graph_floor(void *stream, int calls, double *us_per_call);

/* Holds stream so that the calls enqueued after it run back to back however slowly the host
 * submits them: a one-thread kernel that waits until bench_cuda_release(flags) or timeout_ms.
 * flags: 2 ints of mapped pinned host memory (cudaHostAlloc with cudaHostAllocMapped); flags[1]
 * reads 1 after the stream passed the hold if the timeout ended it (the host took too long, or
 * blocked on the stream). Returns a cudaError_t. */
int bench_cuda_hold(void *stream, int *flags, double timeout_ms);
void bench_cuda_release(int *flags);

/* Number of variants of bench_cuda_read. */
#define BENCH_CUDA_READ_VARIANTS 4

/* The longest a held loop may take to enqueue before its hold lets the GPU start anyway. */
#define BENCH_CUDA_HOLD_MS 500.0

/* The n intervals between ev[0], ..., ev[n] (cudaEvent_t, recorded in that order on one
 * stream) into t, in seconds, after waiting for ev[n]. Returns a cudaError_t. */
int bench_cuda_event_times(struct CUevent_st *const *ev, int n, double *t);

/* bench_cuda_read (variant, blocks) over the first `bytes` (rounded down to 16) of bufs[i % nbuf]
 * for call i: 3 calls of warm-up, then iters calls held back to back (bench_cuda_hold with
 * hold), each between two events; *gbps from the median call. Returns a cudaError_t. */
int bench_cuda_time_read(void *const *bufs, int nbuf, size_t bytes, int blocks, int variant,
                         void *sink, int iters, void *stream, int *hold, double *gbps);

/* What memory allows for an input of `bytes` in bufs (rotated as above), launch included: the
 * best GB/s of bench_cuda_time_read over its variants at 1, 2, 4 and 8 blocks of 256 threads an
 * SM (fewer where there are fewer than 256 vectors a block); 0 if it could not be measured. */
double bench_cuda_read_at(void *const *bufs, int nbuf, size_t bytes, int sms, int iters,
                          void *stream, int *hold);

/* Fills n elements (DLPack dtype code and bits) with seeded random values: uniform in [-1, 1)
 * for floats, in [-1000, 1000] for integers. Returns a cudaError_t. */
int bench_cuda_fill(void *data, int64_t n, int code, int bits, uint64_t seed, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* OPNN_TOOLS_BENCH_CUDA_H */
