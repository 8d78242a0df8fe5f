/* What every instantiation of the CPU reduce template (kernel/cpu/reduce_cpu_impl.h) shares:
 * the blocking constants that fix the order of operations, the walks over strided runs and
 * multi-indices, and the entry-point type the dispatcher (kernel/cpu/reduce_cpu.c) calls
 * through.
 *
 * The order of operations, and so the rounding, depends only on the plan: never on the thread
 * count, on how work is split between threads, or on the instruction set. Every reduced extent
 * is cut into leaves of a fixed size, each leaf accumulates into RC_NVEC vectors of lanes, and
 * leaves are combined in an aligned binary tree (pairwise). Threads take whole subtrees; their
 * results are combined in the same tree. */
#ifndef OPNN_KERNEL_CPU_REDUCE_CPU_COMMON_H
#define OPNN_KERNEL_CPU_REDUCE_CPU_COMMON_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <omp.h>

#include "core/plan.h"
#include "kernel/reduce_kernels.h"

#define RC_CAT_(a, b) a##b
#define RC_CAT(a, b) RC_CAT_(a, b)

/* Vectors per lane group: a leaf keeps 4 vectors of accumulators (32 f32 lanes, 16 f64/i64
 * lanes), enough to hide the add latency on current x86 cores. */
#define RC_NVEC 4

/* Elements per leaf of a contiguous (or strided) run. Each lane adds at most RC_LEAF / lanes
 * (64 for f32) elements serially; above that the sum is pairwise. */
#define RC_LEAF 2048

/* Column reductions: a panel of RC_PANEL_BYTES of input per row (2048 f32 columns) is carried
 * through the pairwise tree over rows; a leaf is rc_col_leaf_rows() rows. Only speed depends on
 * the panel width (8 KiB: bf16 col_wide 1.1 of the streaming read, 1 KiB: 0.5, on a 2-core
 * Sapphire Rapids VM), never the result. */
#define RC_PANEL_BYTES 8192

/* Contiguous runs prefetch this far ahead in software: single-thread bf16 full 0.82 -> 1.0 and
 * f32 row_wide 0.96 -> 1.1 of a plain streaming read (2-core Sapphire Rapids VM; 1 KiB ahead
 * gave 1.0 / 1.1, 4 KiB 0.9). */
#define RC_PREFETCH_BYTES 2048

/* Column tiles prefetch each of their rows this far ahead in software: the hardware's run-ahead
 * on 16 rows of a leaf at once, plus what the out-of-order window reaches, falls short, most
 * where the loop is long (Max and Min: the NaN check; bf16: the widening). A/B on the idle
 * 2-core VM, of the read ceiling: col_wide Max 0.76 -> 0.96, col_wide16 0.79 -> 0.93 (128
 * bytes: 0.77 / 0.84, 2048: 0.91 / 0.90); col_short 0.92 -> 0.98, middle 0.85 -> 0.90,
 * col_wide Sum 0.91 -> 0.93. */
#define RC_COL_PREFETCH_BYTES 512

/* How far ahead a column tile prefetches its rows, given the bytes from one row to the next (0:
 * rows by an offset table). Rows of a KiB or less are a run through memory, and 512 bytes ahead
 * is a few rows of it: one stream a thread waited on memory (AMD EPYC 2-core VM, ReduceSum f32
 * over 0, of the in-run read ceiling: [8388608, 24] 0.39-0.42, [2097152, 64] 0.40, [1048576,
 * 128] 0.39-0.49). 8 KiB ahead for rows under 512 bytes (0.89-0.97, 0.64-0.86) and 16 KiB for
 * rows of 512 bytes to a KiB (0.70-0.77); 16 KiB for the shorter rows read less ([8388608, 24]
 * 0.76-0.77), and wider rows lost with more than RC_COL_PREFETCH_BYTES ([65536, 4096]: 0.63-0.79
 * -> 0.47-0.70 at 2-8 KiB). bench/RESULTS.md, session 43, has the table. */
static inline int64_t rc_col_prefetch_bytes(int64_t row_bytes)
{
    if (row_bytes <= 0 || row_bytes > 1024)
        return RC_COL_PREFETCH_BYTES;
    return row_bytes < 512 ? 8192 : 16384;
}

/* Sub-ranges of contiguous input one thread reads side by side (leaves of different subtrees or
 * rows, each still summed and combined in its own order): one sequential stream per thread reads
 * 18-21 GB/s on a 2-core Xeon VM, 4 streams 25-27 GB/s (opnn bench --device cpu's ceiling).
 * With 4: f32 full Sum 45-53 -> 37-43 ms, row_wide 46-49 -> 37-43 ms, seed_hw 19-22 -> 15-16
 * ms, bn_nhw 21-23 -> 19-21 ms, full_bf16 60-61 -> 37-42 ms (0.64-0.88 -> 0.89-1.0 of the
 * ceiling; bn_nhw 0.62-0.72 -> 0.76-0.81: its runs are only 12.5 KB). */
#define RC_STREAMS 4

/* Less work than this (elements read) runs on the calling thread: a parallel region costs a
 * few microseconds. */
#define RC_PAR_MIN ((int64_t)1 << 15)

/* The statements of __VA_ARGS__ as thread id of nt: on each thread of a parallel region when par,
 * else once on the calling thread as thread 0 of 1. Not `omp parallel if (par)`: libgomp makes a
 * team of one for a false if, 1.2 us a region on a 2-core VM (a sum of 8 floats took 1.45 us). */
#define RC_PARALLEL(par, ...)                                                                      \
    do {                                                                                           \
        if (par) {                                                                                 \
            _Pragma("omp parallel")                                                                \
            {                                                                                      \
                const int nt = omp_get_num_threads(), id = omp_get_thread_num();                   \
                __VA_ARGS__                                                                        \
            }                                                                                      \
        } else {                                                                                   \
            const int nt = 1, id = 0;                                                              \
            __VA_ARGS__                                                                            \
        }                                                                                          \
    } while (0)

/* Most parallel subtrees of one reduction whose partial results are kept on the stack. */
#define RC_MAX_PARTS 256

/* What finalize needs: the number of elements combined (N of Mean) and 1/N. */
typedef struct rc_fin {
    int64_t n;
    double inv; /* 1/n; +inf for n == 0, so that Mean of an empty set is 0 * inf = NaN */
} rc_fin;

static inline rc_fin rc_fin_make(int64_t n)
{
    rc_fin f;
    f.n = n;
    f.inv = n > 0 ? 1.0 / (double)n : (double)INFINITY;
    return f;
}

/* Smallest h with 2^h >= n (n >= 1). */
static inline int rc_ceil_log2(int64_t n)
{
    int h = 0;
    while (((int64_t)1 << h) < n)
        h++;
    return h;
}

static inline int64_t rc_min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static inline int64_t rc_max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static inline int64_t rc_ceil_div(int64_t a, int64_t b)
{
    return a / b + (a % b != 0);
}

/* Items i = 0 .. count - 1 of len elements at i * stride (in order, not overlapping: stride >=
 * len): how many leading items may be read as `read` elements from their start without passing
 * the last item's end, i.e. the tensor's (a whole vector read past a short row). */
static inline int64_t rc_reads_inside(int64_t count, int64_t stride, int64_t len, int64_t read)
{
    int64_t span = (count - 1) * stride + len - read;

    if (count <= 0 || len < 1 || stride < len || span < 0)
        return 0;
    return rc_min64(count, span / stride + 1);
}

/* Rows i = 0 .. n - 1 at i * rs (rs >= 0) from a pointer lim elements before the end of what
 * may be read: how many leading rows may be read as `read` elements from their start. One
 * comparison where all of them may (the common case), a division only near the end. */
static inline int64_t rc_rows_inside(int64_t n, int64_t rs, int64_t read, int64_t lim)
{
    lim -= read;
    if (lim < 0 || n <= 0)
        return 0;
    return lim >= (n - 1) * rs ? n : lim / rs + 1;
}

/* Rows per leaf of a column reduction of B columns: about 2048 elements per leaf, between 16
 * and 128 rows (serial chain per lane). Depends on B only, so every column of one plan is
 * summed in the same order. */
#define RC_COL_LEAF_MAX 128
static inline int64_t rc_col_leaf_rows(int64_t b)
{
    int64_t rows = 2048 / (b > 0 ? b : 1);
    return rows < 16 ? 16 : rows > RC_COL_LEAF_MAX ? RC_COL_LEAF_MAX : rows;
}

/* Slabs of one leaf whose rows are at most this many vectors run flat (flat_vslabs). */
#define RC_VSLAB_MAX 8

/* Threads OpenMP would use for a parallel region here (1 inside one already). */
static inline int rc_threads(void)
{
    return omp_in_parallel() ? 1 : omp_get_max_threads();
}

/* Number of parallel subtrees for a tree of 2^h leaves shared by `tasks` independent problems
 * on t threads: a power of two, enough for about four pieces per thread, at most 2^h and
 * RC_MAX_PARTS. 1 when the problems alone keep the threads busy. */
static inline int64_t rc_split_parts(int h, int64_t tasks, int t)
{
    int64_t want = rc_ceil_div(4 * (int64_t)t, tasks > 0 ? tasks : 1);
    int64_t parts = 1;
    while (parts < want && parts < ((int64_t)1 << h) && parts < RC_MAX_PARTS)
        parts *= 2;
    return parts;
}

/* A set of m strided runs: run k starts at offset(k) (the multi-index of k over shape[],
 * outermost first, dotted with stride[]) and holds n elements at stride s. nd == 0 is one run. */
typedef struct rc_runs {
    int nd;
    int64_t shape[OP_MAX_DIMS];
    int64_t stride[OP_MAX_DIMS];
    int64_t m;
    int64_t n, s;
} rc_runs;

static inline int64_t rc_runs_offset(const rc_runs *g, int64_t k)
{
    int64_t off = 0;
    if (g->nd == 1)
        return k * g->stride[0];
    for (int d = g->nd - 1; d >= 0 && k > 0; d--) {
        off += (k % g->shape[d]) * g->stride[d];
        k /= g->shape[d];
    }
    return off;
}

/* A multi-index over nd dims, outermost first, with an input and an output stride per dim; count
 * points in all (row-major order). nd == 0 is one point at offset 0. */
typedef struct rc_walk {
    int nd;
    int64_t count;
    int64_t shape[OP_MAX_DIMS];
    int64_t istride[OP_MAX_DIMS];
    int64_t ostride[OP_MAX_DIMS];
} rc_walk;

static inline void rc_walk_init(rc_walk *w)
{
    w->nd = 0;
    w->count = 1;
}

static inline void rc_walk_add(rc_walk *w, int64_t shape, int64_t istride, int64_t ostride)
{
    w->shape[w->nd] = shape;
    w->istride[w->nd] = istride;
    w->ostride[w->nd] = ostride;
    w->count *= shape;
    w->nd++;
}

/* Input and output offsets of point k. */
static inline void rc_walk_at(const rc_walk *w, int64_t k, int64_t *io, int64_t *oo)
{
    int64_t i = 0, o = 0;
    for (int d = w->nd - 1; d >= 0; d--) {
        int64_t q = k % w->shape[d];
        i += q * w->istride[d];
        o += q * w->ostride[d];
        k /= w->shape[d];
    }
    *io = i;
    *oo = o;
}

/* Input offsets of points k .. k + n - 1 (one division, then carries). */
static inline void rc_walk_run(const rc_walk *w, int64_t k, int64_t n, int64_t *off)
{
    int64_t idx[OP_MAX_DIMS], o = 0;

    if (w->nd == 1) {
        for (int64_t i = 0; i < n; i++)
            off[i] = (k + i) * w->istride[0];
        return;
    }
    for (int d = w->nd - 1; d >= 0; d--) {
        idx[d] = k % w->shape[d];
        o += idx[d] * w->istride[d];
        k /= w->shape[d];
    }
    for (int64_t i = 0; i < n; i++) {
        int d = w->nd - 1;
        off[i] = o;
        if (d < 0)
            continue;
        idx[d]++;
        o += w->istride[d];
        while (d > 0 && idx[d] == w->shape[d]) {
            o -= idx[d] * w->istride[d];
            idx[d] = 0;
            d--;
            idx[d]++;
            o += w->istride[d];
        }
    }
}

/* One (kind, dtype) reduction for one instruction set: runs the whole plan. */
typedef void (*opnn_cpu_reduce_fn)(const opnn_reduce_plan *plan, const void *in, void *out);

/* Dtype slots of the tables below. */
enum {
    OPNN_CPU_F32 = 0,
    OPNN_CPU_F64,
    OPNN_CPU_F16,
    OPNN_CPU_BF16,
    OPNN_CPU_I32,
    OPNN_CPU_I64,
    OPNN_CPU_DTYPE_COUNT_
};

/* Built-in reductions per instruction set: [kind][dtype slot]. The AVX2 table is all NULL when
 * the compiler cannot target AVX2 (non-x86 builds). */
extern const opnn_cpu_reduce_fn opnn__cpu_reduce_base[OPNN_REDUCE_KIND_COUNT_]
                                                     [OPNN_CPU_DTYPE_COUNT_];
extern const opnn_cpu_reduce_fn opnn__cpu_reduce_avx2[OPNN_REDUCE_KIND_COUNT_]
                                                     [OPNN_CPU_DTYPE_COUNT_];

/* in[0, n) narrowed to f16 (bf16 false) or bf16 by the vector code the instruction set's
 * kernels store 16-bit results with (opnn__vnarrow_f16, opnn__vnarrow_bf16); n a multiple of 8.
 * The AVX2 one does nothing where the compiler cannot target AVX2. */
void opnn__cpu_narrow16_base(bool bf16, const float *in, uint16_t *out, int64_t n);
void opnn__cpu_narrow16_avx2(bool bf16, const float *in, uint16_t *out, int64_t n);

#endif /* OPNN_KERNEL_CPU_REDUCE_CPU_COMMON_H */
