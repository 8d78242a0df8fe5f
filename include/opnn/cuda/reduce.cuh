/* The CUDA reduce kernel families, header-only templates over an operator
 * (opnn/cuda/reduce_ops.cuh), and the host-side launcher opnn::cuda::reduce<Op>() that runs a
 * plan's family. A plugin's reduce op includes this header, defines its operator struct and calls
 * reduce(): it gets the same planning, kernels and speed as ReduceSum.
 *
 * Kernels (the family -> kernel map and every geometry choice are in opnn's core/plan_launch.c):
 *   fill_kernel         FILL: every output is finalize(identity, 0).
 *   full_kernel         FULL: one contiguous range read grid-stride (the whole grid on one window
 *                       of memory), a partial per block, the last block combines them in order.
 *   inner_block_kernel  view [R1, C, K], K contiguous: a block per (output, split) unit. A unit
 *                       of several segments is walked as one flat sequence by all the block's
 *                       threads (walk_segments; segments off 16 bytes as the 16-byte vectors
 *                       that cover them, elements outside each segment masked); one segment (or a
 *                       chunk of one) is cut into ranges that groups of `sub` lanes walk,
 *                       `ranges` at once;
 *                       OPNN_CUDA_UNROLL 16-byte loads in flight either way (twice that for
 *                       grids of at most 2 blocks an SM: `ranges` 2 * OPNN_CUDA_UNROLL); block
 *                       tree; with a split, the partial goes to the workspace and the last block
 *                       to arrive (a counter that resets itself) combines the partials in split
 *                       order.
 *   inner_group_kernel  same view, `sub` (1..32) lanes per output, `ranges` outputs in flight
 *                       per group (1: one row at a time, 4 vectors deep; 2 * OPNN_CUDA_UNROLL:
 *                       one row, 8 deep), a shuffle tree per output. Rows of any alignment.
 *   row_vec_kernel      ROW of 2..32 whole 16-byte vectors, rows contiguous: a warp reads 32
 *                       consecutive vectors; groups of G lanes reduce a row each, a warp tile's
 *                       OPNN_CUDA_UNROLL rows a group together (group_reduce_rows). Also MIDDLE
 *                       slabs [R, B] of B columns dividing a vector or filling 1 or 2.
 *   row_tile_kernel     ROW of contiguous rows of K * size <= 512 bytes: warp tiles of whole rows
 *                       (packs of P rows that end on a 16-byte boundary, up to 6.5 KB) copied
 *                       into shared memory with cp.async, the next tile in flight while this
 *                       one is reduced; a lane a row (tiles of 32 rows or more) or G lanes a row.
 *                       Also MIDDLE slabs [R, B] as rows, G lanes an output (a slab's column),
 *                       or (NB > 0, launch.ranges 3, the planner's where R is whole packs)
 *                       G lanes a slab of NB columns folding whole packs of rows from 16-byte
 *                       vectors.
 *   row_pack_kernel     (launched for ROW_TILE plans) rows of up to 32 bytes from an aligned
 *                       start: a warp reads its 32 groups' vectors coalesced, passes them
 *                       through shared memory, and each lane folds its own group's rows.
 *   outer_kernel        view [A, R, B], B contiguous: BX threads across B (VEC elements each), BY
 *                       across rows, rows split into slices combined like the inner split;
 *                       EXT: also R1 such views reduced ([R1, A, R, B]) and a warp a unit;
 *                       STG: contiguous rows off 16 bytes read as one run of 16-byte
 *                       vectors, a lane of a thread's vectors always the same column;
 *                       SUP: super-rows, contiguous rows off 16 bytes read k at a time as
 *                       one row of 16-byte loads; each chunk of output columns folds its k
 *                       sub-columns in the tile that completes it; DEPTH 2: a block a unit
 *                       of 16-byte loads twice as deep, at 2 blocks an SM, with load_vec's
 *                       L2P.
 *   col_tiny_kernel     COL_TINY_R with at most 32 rows ([R, B], A = 1): a thread per column
 *                       item (a vector, or a column when rows are not 16-byte aligned), several
 *                       items a thread, rows loaded four at a time, all in flight at once.
 *   generic_kernel      any merged-dims layout: `sub` lanes per output walk the reduced dims.
 *
 * Every range is read as a scalar head up to the first 16-byte boundary, 16-byte vectors, and a
 * scalar tail, so rows of odd length or odd offset still stream with wide loads. No float
 * atomics: results are bitwise identical run to run. Element indices are 64-bit. */
#ifndef OPNN_CUDA_REDUCE_CUH
#define OPNN_CUDA_REDUCE_CUH

#include <stdio.h>
#include <string.h>

#include <type_traits>
#include <utility>

#include "opnn/cuda/reduce_ops.cuh"
#include "opnn/reduce.h"
#include "opnn/reduce_plan.h"
#include "opnn/status.h"

namespace opnn {
namespace cuda {

constexpr int kBlock = OPNN_CUDA_BLOCK;
constexpr int kUnroll = OPNN_CUDA_UNROLL;
constexpr int kMinBlocks = OPNN_CUDA_BLOCKS_PER_SM;
constexpr int kMinBlocksInner = OPNN_CUDA_BLOCKS_PER_SM_INNER;
/* Fewest lanes a row of the outer kernel's PH (OPNN_CUDA_SHIFT_RANGES plans: 16 or 32) */
constexpr int kShiftMinLanes = 16;
/* Loads in flight a thread in the last block's combine of a split's partials. */
constexpr int kCombineDepth = 8;
/* Longest range walk_ranges takes, in elements (its vector counts are ints). */
constexpr int64_t kMaxRange = OPNN_CUDA_MAX_RANGE;
/* Most elements one block's flat walk over several segments takes (its counts are ints). */
constexpr int64_t kMaxFlat = (int64_t)1 << 30;
constexpr int64_t kCoverMinBytes = OPNN_CUDA_COVER_MIN_BYTES;

/* The device workspace a launch may use: partials and self-resetting arrival counters (zeroed
 * once when allocated, reset by the last block of each launch). op_reduce_cuda_workspace gives
 * a plugin its context's. */
using workspace = ::op_reduce_workspace;

/* a / b for a >= 0, b > 0: a 32-bit division when both fit (per-unit index arithmetic is on the
 * critical path of small launches; a 64-bit division is a long software sequence) */
__device__ __forceinline__ int64_t udiv(int64_t a, int64_t b)
{
    return ((uint64_t)a | (uint64_t)b) >> 32 == 0 ? (int64_t)((uint32_t)a / (uint32_t)b) : a / b;
}

/* --- memory access ------------------------------------------------------------------------- */

/* A 16-byte streaming load: read once, so it skips L1 (LDG.E.128.CONSTANT). L2P: a miss brings
 * the 256 aligned bytes around it into L2 (.L2::256B, LDG.E.NA.LTC256B.128.CONSTANT), where the
 * thread's next loads or its neighbours' find them. Taken where every shape measured gained or
 * held (inner_block_kernel, outer_kernel at DEPTH 2). On an H100, main against it on one
 * machine: f32 [2, 134217728] over 1 351-353 -> 346-348 us, f32 [12, 4096, 128] over 1 1510-1533
 * -> 1586-1610 GB/s, bf16 [8, 4096, 256] +3%; no suite case moved. Not in the other kernels:
 * there, column tiles of 512 bytes a row that start off 256 fetched their neighbours' bytes,
 * which left L2 before those were read (f32 [100000, 2500] over 0: DRAM bytes +7%, 334 -> 348
 * us; f64 [24, 1000, 1001] over 1 +4%). */
template <bool L2P = false> __device__ __forceinline__ uint4 load_vec(const void *p)
{
    uint4 v;
    if constexpr (L2P)
        asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
            : "l"(p));
    else
        asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
            : "l"(p));
    return v;
}

/* N consecutive elements at p (aligned to N * size) in one load where that is 4, 8 or 16 bytes;
 * element loads otherwise. L2P: load_vec's. */
template <int N, bool L2P = false, class T>
__device__ __forceinline__ void load_items(const T *p, T (&x)[N])
{
    if constexpr (N * sizeof(T) == 16) {
        const uint4 v = load_vec<L2P>(p);
        memcpy(x, &v, 16);
    } else if constexpr (N > 1 && N * sizeof(T) == 8) {
        const uint2 v = __ldg(reinterpret_cast<const uint2 *>(p));
        memcpy(x, &v, 8);
    } else if constexpr (N > 1 && N * sizeof(T) == 4) {
        const unsigned v = __ldg(reinterpret_cast<const unsigned *>(p));
        memcpy(x, &v, 4);
    } else {
#pragma unroll
        for (int n = 0; n < N; n++)
            x[n] = p[n];
    }
}

/* The aligned 16-byte vector at q with only its elements inside [lo, hi) read (the others 0):
 * the vectors at a tensor's two ends, which may reach past it. */
template <class T>
__device__ __noinline__ uint4 load_vec_within(const T *q, const T *lo, const T *hi)
{
    constexpr int V = 16 / sizeof(T);
    T x[V];
#pragma unroll
    for (int e = 0; e < V; e++)
        x[e] = q + e >= lo && q + e < hi ? q[e] : T();
    uint4 v;
    memcpy(&v, x, 16);
    return v;
}

/* The 16 bytes at p as one vector: a 16-byte load where p is aligned, else V element loads
 * (tensors at an odd byte offset). */
template <class T> __device__ __forceinline__ uint4 load_vec_any(const T *p, bool aligned)
{
    if (aligned)
        return load_vec(p);
    constexpr int V = 16 / sizeof(T);
    T tmp[V];
#pragma unroll
    for (int j = 0; j < V; j++)
        tmp[j] = p[j];
    uint4 v;
    memcpy(&v, tmp, 16);
    return v;
}

/* A load from L2 (partials written by other blocks of this launch: L1 may be stale). */
template <class A> __device__ __forceinline__ A load_cg(const A *p)
{
    static_assert(sizeof(A) % 4 == 0, "accumulators are a multiple of 4 bytes");
    constexpr int W = sizeof(A) / 4;
    unsigned w[W];
    const unsigned *q = reinterpret_cast<const unsigned *>(p);
#pragma unroll
    for (int i = 0; i < W; i++)
        w[i] = __ldcg(q + i);
    A r;
    memcpy(&r, w, sizeof(A));
    return r;
}

/* CV consecutive accumulators from L2, in one 16-byte load where they make 16 bytes (p then
 * 16-byte aligned). */
template <class A, int CV> __device__ __forceinline__ void load_cg_n(const A *p, A (&r)[CV])
{
    if constexpr (CV * sizeof(A) == 16) {
        const uint4 w = __ldcg(reinterpret_cast<const uint4 *>(p));
        memcpy(r, &w, 16);
    } else {
#pragma unroll
        for (int i = 0; i < CV; i++)
            r[i] = load_cg(p + i);
    }
}

/* A streaming store (st.global.cs) of an output written once and not read back: ROW_VEC's
 * outputs, 1/16 of row_tiny's traffic, read 3% faster so (H200, 276 against 285 us). A kernel
 * that reads 2 vectors and writes one (1 GiB, H200) read 0.95 of its ceiling with .cs stores of
 * the vector, 0.86 with plain ones. */
template <class O> __device__ __forceinline__ void store_stream(O *p, O v)
{
    if constexpr (sizeof(O) == 16 && alignof(O) >= 16) { /* a vector store needs the alignment */
        uint4 w;
        memcpy(&w, &v, 16);
        asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(w.x), "r"(w.y),
                     "r"(w.z), "r"(w.w)
                     : "memory");
    } else if constexpr (sizeof(O) == 4) {
        unsigned w;
        memcpy(&w, &v, 4);
        asm volatile("st.global.cs.b32 [%0], %1;" ::"l"(p), "r"(w) : "memory");
    } else if constexpr (sizeof(O) == 8) {
        unsigned long long w;
        memcpy(&w, &v, 8);
        asm volatile("st.global.cs.b64 [%0], %1;" ::"l"(p), "l"(w) : "memory");
    } else if constexpr (sizeof(O) == 2) {
        unsigned short w;
        memcpy(&w, &v, 2);
        asm volatile("st.global.cs.b16 [%0], %1;" ::"l"(p), "h"(w) : "memory");
    } else {
        *p = v;
    }
}

template <class A> __device__ __forceinline__ A shfl_xor(A v, int mask)
{
    static_assert(sizeof(A) % 4 == 0, "accumulators are a multiple of 4 bytes");
    constexpr int W = sizeof(A) / 4;
    int w[W];
    memcpy(w, &v, sizeof(A));
#pragma unroll
    for (int i = 0; i < W; i++)
        w[i] = __shfl_xor_sync(0xffffffffu, w[i], mask);
    A r;
    memcpy(&r, w, sizeof(A));
    return r;
}

/* --- reductions inside a vector, a group, a block ------------------------------------------ */

/* An operator may fold elements into an accumulator itself, where that is cheaper than
 * combine(acc, map(x, idx)): `acc_t fold(acc_t a, in_t x, int64_t idx) const` for one element
 * and `acc_t fold_vec(acc_t a, const in_t *e, int64_t idx) const` for the V elements of one
 * 16-byte vector (e[i] has index idx + i). ArgMax does: a vector whose largest value is below the
 * running best costs a few max instructions and one compare, with no (value, index) pairs made.
 * The result must equal the plain form's. */
template <class Op, class = void> struct has_fold : std::false_type {
};
template <class Op>
struct has_fold<
    Op, std::void_t<decltype(std::declval<const Op &>().fold(
            std::declval<typename Op::acc_t>(), std::declval<typename Op::in_t>(), int64_t()))>>
    : std::true_type {
};
template <class Op, class = void> struct has_fold_vec : std::false_type {
};
template <class Op>
struct has_fold_vec<Op, std::void_t<decltype(std::declval<const Op &>().fold_vec(
                            std::declval<typename Op::acc_t>(),
                            std::declval<const typename Op::in_t *>(), int64_t()))>>
    : std::true_type {
};

/* An operator may also reduce a whole row held as one 16-byte vector a lane across an aligned
 * group of G lanes (ROW_VEC), where that is cheaper than fold_vec and a shuffle tree of
 * accumulators: `acc_t group_vec(const in_t *e, int64_t idx, int G) const`, called by every lane
 * of the warp (a group past the data holds garbage and its result is dropped); e holds the lane's
 * V elements, idx the index of e[0]; the row's accumulator is returned in the group's first lane
 * at least. ArgMax's shuffles values alone, then the first position of the row's best
 * (row_tiny 314.6 -> 291.5 us, H200). */
template <class Op, class = void> struct has_group_vec : std::false_type {
};
template <class Op>
struct has_group_vec<Op, std::void_t<decltype(std::declval<const Op &>().group_vec(
                             std::declval<const typename Op::in_t *>(), int64_t(), int()))>>
    : std::true_type {
};

/* a op map(x) */
template <class Op>
__device__ __forceinline__ typename Op::acc_t fold_elem(const Op &op, typename Op::acc_t a,
                                                        typename Op::in_t x, int64_t idx)
{
    if constexpr (has_fold<Op>::value)
        return op.fold(a, x, idx);
    else
        return op.combine(a, op.map(x, idx));
}

/* acc[0] op acc[1] op ... as a tree */
template <class Op, int U>
__device__ __forceinline__ typename Op::acc_t fold(const Op &op, typename Op::acc_t (&acc)[U])
{
#pragma unroll
    for (int s = 1; s < U; s *= 2)
#pragma unroll
        for (int i = 0; i + s < U; i += 2 * s)
            acc[i] = op.combine(acc[i], acc[i + s]);
    return acc[0];
}

/* a op (the V elements of one 16-byte vector, mapped and combined as a tree) */
template <class Op>
__device__ __forceinline__ typename Op::acc_t fold_vec(const Op &op, typename Op::acc_t a,
                                                       const uint4 &v, int64_t idx)
{
    using T = typename Op::in_t;
    using A = typename Op::acc_t;
    constexpr int V = 16 / sizeof(T);
    T e[V];
    memcpy(e, &v, 16);
    if constexpr (has_fold_vec<Op>::value) {
        return op.fold_vec(a, e, idx);
    } else {
        A t[V];
#pragma unroll
        for (int i = 0; i < V; i++)
            t[i] = op.map(e[i], idx + i);
        return op.combine(a, fold<Op, V>(op, t));
    }
}

/* Butterfly over aligned groups of G lanes (G a power of two <= 32); every lane of the warp
 * must call it. All lanes of a group end with the group's result. */
template <class Op>
__device__ __forceinline__ typename Op::acc_t group_reduce(const Op &op, typename Op::acc_t v,
                                                           int G)
{
    for (int o = G / 2; o > 0; o /= 2)
        v = op.combine(v, shfl_xor(v, o));
    return v;
}

/* U partials a lane (U a power of two), partial u of aligned groups of g lanes (g a power of
 * two, 2..32) for U rows a group, reduced in U - 1 + log2(g / U) shuffles where a butterfly a
 * row takes U * log2(g): at each of the first log2(min(U, g)) steps a lane keeps half of its
 * rows and sends its partner the other half (the partner keeps that half). On return the lane
 * holds rows first + k for k < count in v[k]; lanes of a group that hold the same rows hold
 * the same values, and `lead` marks one of them. With lo > 1 (a power of two below g) a group
 * is the lanes that differ only in the bits from lo to g / 2, lo of them in each aligned run of
 * g holding rows of their own (the lanes a column's partials are lo apart). Every lane of the
 * warp must call it. */
struct rows_reduced {
    int first, count;
    bool lead;
};
template <class Op, int U>
__device__ __forceinline__ rows_reduced group_reduce_rows(const Op &op, typename Op::acc_t (&v)[U],
                                                          int g, int lane, int lo = 1)
{
    using A = typename Op::acc_t;
    static_assert(U >= 1 && (U & (U - 1)) == 0, "U is a power of two");
    int first = 0, count = U, o = g >> 1;
#pragma unroll
    for (int n = U; n > 1; n >>= 1) {
        if (o >= lo) {
            const bool hi = (lane & o) != 0;
#pragma unroll
            for (int i = 0; i < n / 2; i++) {
                const A send = hi ? v[i] : v[i + n / 2];
                const A keep = hi ? v[i + n / 2] : v[i];
                v[i] = op.combine(keep, shfl_xor(send, o));
            }
            first += hi ? n / 2 : 0;
            count = n / 2;
            o >>= 1;
        }
    }
    for (; o >= lo; o >>= 1)
        v[0] = op.combine(v[0], shfl_xor(v[0], o));
    /* the lanes that share rows differ in the bits from lo to below g * count / U */
    const int share = g * count / U;
    return {first, count, (lane & (share - 1) & ~(lo - 1)) == 0};
}

/* A warp's 32 * RV vectors, loaded coalesced (v[j] of a lane is vector j * 32 + lane of the
 * warp's run: each load instruction takes 512 whole bytes), passed through shared memory so
 * that a lane ends with its own RV consecutive vectors (v[j] = vector lane * RV + j). Vector q
 * sits at slot q + q / 8 for even RV, so a lane's run falls on distinct banks (odd RV needs no
 * pad); sw holds kWarpRunSlots<RV> vectors, the warp's own. Every lane of the warp must call
 * it. Vectors a lane did not load go through too; the lanes they reach hold nothing in range. */
template <int RV> constexpr int kWarpRunSlots = 32 * RV + (RV % 2 == 0 ? 4 * RV : 0);
template <int RV> __device__ __forceinline__ void warp_to_runs(uint4 (&v)[RV], uint4 *sw, int lane)
{
    auto slot = [](int q) { return q + (RV % 2 == 0 ? q >> 3 : 0); };
#pragma unroll
    for (int j = 0; j < RV; j++)
        sw[slot(j * 32 + lane)] = v[j];
    __syncwarp();
#pragma unroll
    for (int j = 0; j < RV; j++)
        v[j] = sw[slot(lane * RV + j)];
    __syncwarp(); /* sw is refilled by the next call */
}

/* Whole-block tree; the result is valid in warp 0. s_warp holds 32 accumulators. */
template <class Op>
__device__ __forceinline__ typename Op::acc_t block_reduce(const Op &op, typename Op::acc_t v,
                                                           typename Op::acc_t *s_warp)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    v = group_reduce(op, v, 32);
    __syncthreads(); /* s_warp may still be read from a previous use */
    if (lane == 0)
        s_warp[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? s_warp[lane] : op.identity();
        v = group_reduce(op, v, 32);
    }
    return v;
}

/* Adds v to *p as one acquire-release atomic at device scope: it releases what this thread's
 * block wrote before a barrier that precedes it, and acquires what the blocks that added before
 * it released. */
__device__ __forceinline__ unsigned add_acq_rel(unsigned *p, unsigned v)
{
#if __CUDA_ARCH__ >= 700
    unsigned old;
    asm volatile("atom.acq_rel.gpu.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
#else
    __threadfence();
    const unsigned old = atomicAdd(p, v);
    __threadfence();
    return old;
#endif
}

/* Marks this block's partials as written; true in every thread of the block that arrives last
 * among `total`. That block resets the counter, so the next launch finds it at zero (no memset
 * per call, and graph replays work). The barrier orders the block's writes before thread 0's
 * acquire-release add, and the last block's reads after it: fences in every thread and a
 * relaxed add cost ~0.3 us more a call (bench/tail_probe.cu: a full sum of 1M f32 over 244
 * blocks, 7.20 against 6.88 us; H200). */
__device__ __forceinline__ bool arrive_last(unsigned *counter, unsigned total, int *s_flag)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        const int last = add_acq_rel(counter, 1u) == total - 1;
        if (last)
            atomicExch(counter, 0u);
        *s_flag = last;
    }
    __syncthreads();
    return *s_flag != 0;
}

/* Combines n partials in a fixed order (thread t takes t, t + blockDim, ...; then the tree).
 * Valid in warp 0. */
template <class Op>
__device__ __forceinline__ typename Op::acc_t
block_combine(const Op &op, const typename Op::acc_t *parts, int64_t n, typename Op::acc_t *s_warp)
{
    typename Op::acc_t a = op.identity();
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
        a = op.combine(a, load_cg(parts + i));
    return block_reduce(op, a, s_warp);
}

/* The end of a unit whose block result is v, for output c (all threads of the block call it):
 * with n == 1 unit per output, out[c] = finalize(v); else v becomes partial j of the n at
 * partials + c * n, and the last of the n blocks to arrive combines them in order into out[c]. */
template <class Op>
__device__ __forceinline__ void finish_unit(const Op &op, typename Op::acc_t v,
                                            typename Op::out_t *out, int64_t c, int64_t red_n,
                                            void *partials, unsigned *counters, int64_t n,
                                            int64_t j, typename Op::acc_t *s_warp, int *s_last)
{
    using A = typename Op::acc_t;
    if (n == 1) {
        if (threadIdx.x == 0)
            out[c] = op.finalize(v, red_n);
        return;
    }
    A *parts = static_cast<A *>(partials) + c * n;
    if (threadIdx.x == 0)
        parts[j] = v;
    if (arrive_last(counters + c, (unsigned)n, s_last)) {
        v = block_combine(op, parts, n, s_warp);
        if (threadIdx.x == 0)
            out[c] = op.finalize(v, red_n);
    }
}

/* --- walking contiguous ranges ------------------------------------------------------------- */

/* Reduces U contiguous ranges at once into acc[0..U): range u holds n[u] elements at p[u]
 * (n[u] == 0: none); idx[u] is the reduction index of its first element. The lanes of a group
 * (lane in [0, G)) stride over 16-byte vectors, so the U loads of one round are in flight
 * together; the head before the first 16-byte boundary and the tail are scalar. L2P: load_vec's. */
template <class Op, int U, int D = 1, bool L2P = false>
__device__ __forceinline__ void walk_ranges(const Op &op, const typename Op::in_t *const (&p)[U],
                                            const int64_t (&n)[U], const int64_t (&idx)[U],
                                            int lane, int G, typename Op::acc_t (&acc)[U])
{
    using T = typename Op::in_t;
    constexpr int V = 16 / sizeof(T);
    const uint4 *vp[U];
    int nv[U], maxnv = 0; /* ranges hold < 2^31 vectors (the kernels cut longer ones) */

    /* scalars first (head and tail), then only the vector pointers and counts stay live in
     * the streaming loop */
#pragma unroll
    for (int u = 0; u < U; u++) {
        const int64_t h0 = (int64_t)(((16u - ((unsigned)(uintptr_t)p[u] & 15u)) & 15u) / sizeof(T));
        const int64_t head = h0 < n[u] ? h0 : n[u];
        /* the plain form for these few elements: an operator's fold may cost registers that
         * the streaming loop below needs (ArgMax's branch-free fold here took the row kernel
         * from 47 to 52 registers, one resident block less: row_mid 258 -> 274 us, H200) */
        for (int64_t i = lane; i < head; i += G)
            acc[u] = op.combine(acc[u], op.map(p[u][i], idx[u] + i));
        for (int64_t i = head + (n[u] - head) / V * V + lane; i < n[u]; i += G)
            acc[u] = op.combine(acc[u], op.map(p[u][i], idx[u] + i));
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
        const int64_t h0 = (int64_t)(((16u - ((unsigned)(uintptr_t)p[u] & 15u)) & 15u) / sizeof(T));
        const int64_t head = h0 < n[u] ? h0 : n[u];
        vp[u] = reinterpret_cast<const uint4 *>(p[u] + head);
        nv[u] = (int)((n[u] - head) / V);
        maxnv = nv[u] > maxnv ? nv[u] : maxnv;
    }
    /* D rounds of U loads in flight; each range still takes its vectors in order j, j + G, ...
     * so the result does not depend on D */
    for (int j0 = lane; j0 < maxnv; j0 += D * G) {
        uint4 v[D][U];
#pragma unroll
        for (int d = 0; d < D; d++)
#pragma unroll
            for (int u = 0; u < U; u++)
                if (j0 + d * G < nv[u])
                    v[d][u] = load_vec<L2P>(vp[u] + j0 + d * G);
#pragma unroll
        for (int d = 0; d < D; d++)
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int j = j0 + d * G;
                if (j < nv[u])
                    acc[u] = fold_vec(op, acc[u], v[d][u],
                                      idx[u] + (int64_t)((const T *)vp[u] - p[u]) + (int64_t)j * V);
            }
    }
}

/* How walk_segments reads its segments: element loads; 16-byte vectors (every segment aligned,
 * lengths in vectors); or the aligned 16-byte vectors that cover each segment, the elements
 * outside it not folded (segments off 16 bytes). */
enum walk_mode {
    WALK_ELEMS,
    WALK_VECS,
    WALK_COVER
};

/* a op (the elements j of vector v with 0 <= lo + j < n, mapped and combined as a tree, or one
 * by one for an operator with its own fold; idx the reduction index of element 0) */
template <class Op>
__device__ __forceinline__ typename Op::acc_t
fold_vec_part(const Op &op, typename Op::acc_t a, const uint4 &v, int64_t idx, int lo, int n)
{
    using T = typename Op::in_t;
    using A = typename Op::acc_t;
    constexpr int V = 16 / sizeof(T);
    T e[V];
    memcpy(e, &v, 16);
    if constexpr (has_fold<Op>::value) {
#pragma unroll
        for (int i = 0; i < V; i++)
            if ((unsigned)(lo + i) < (unsigned)n)
                a = op.fold(a, e[i], idx + i);
        return a;
    } else {
        A t[V];
#pragma unroll
        for (int i = 0; i < V; i++)
            t[i] = (unsigned)(lo + i) < (unsigned)n ? op.map(e[i], idx + i) : op.identity();
        return op.combine(a, fold<Op, V>(op, t));
    }
}

/* Walks `nseg` segments of `len` items each as one flat sequence: the block's threads stride
 * over it with DEPTH times kUnroll 16-byte loads (WALK_VECS, WALK_COVER) or 16 element loads in
 * flight a thread, whatever the segment length, so short segments leave no lanes idle. Segment
 * s starts at seg0 + s * seg_stride elements and its reduction indices at idx0 + s * idx_stride.
 * WALK_VECS: every segment 16-byte aligned, len counted in vectors. WALK_COVER: segments of
 * `elems` elements at any element offset, len the most 16-byte vectors that cover one (vectors
 * past a segment's end are its first, not folded); the caller keeps every covering vector inside
 * the tensor's memory. Returns this thread's partial. L2P: load_vec's. */
template <class Op, int MODE, int DEPTH = 1, bool L2P = false>
__device__ __forceinline__ typename Op::acc_t
walk_segments(const Op &op, const typename Op::in_t *seg0, int64_t seg_stride, int len, int nseg,
              int64_t idx0, int64_t idx_stride, int elems = 0)
{
    using T = typename Op::in_t;
    using A = typename Op::acc_t;
    constexpr bool VEC = MODE != WALK_ELEMS;
    constexpr int V = VEC ? 16 / sizeof(T) : 1;
    /* element loads: 16 in flight (4 for 8-byte elements or accumulators, whose registers are
     * scarcer) */
    constexpr int L = VEC ? kUnroll * DEPTH : sizeof(T) >= 8 || sizeof(A) > 4 ? kUnroll : 16;
    constexpr int NA = kUnroll;               /* accumulators: load u folds into f[u % NA] */
    const int B = blockDim.x, n = nseg * len; /* the caller keeps n < 2^31 */
    /* a stride of B items moves qb segments and rb items on */
    const int qb = B / len, rb = B - qb * len;
    int i = threadIdx.x, s = i / len, o = i - s * len;
    auto step = [&] {
        s += qb;
        o += rb;
        if (o >= len) {
            o -= len;
            s++;
        }
    };
    using X = std::conditional_t<VEC, uint4, T>;
    /* the first segment's first vector (its covering one for WALK_COVER): in range */
    const T *const first = reinterpret_cast<const T *>((uintptr_t)seg0 & ~(uintptr_t)15);
    /* item (s, o): its load (the first segment's first vector if `live` is false: s may be past
     * the last segment then), the reduction index of its element 0 and, for WALK_COVER, that
     * element's place in the segment (lo: negative before the segment's start) */
    auto issue = [&](bool live, X &x, int64_t &id, int &lo) {
        const T *q = seg0 + (int64_t)s * seg_stride;
        if constexpr (MODE == WALK_COVER) {
            const int h = (int)(((unsigned)(uintptr_t)q & 15u) / sizeof(T));
            lo = o * V - h;
            q -= h;
            x = load_vec<L2P>(!live ? first : lo < elems ? q + o * V : q);
        } else if constexpr (VEC) {
            q += o * V;
            x = load_vec<L2P>(live ? q : first);
            lo = 0;
        } else {
            x = __ldg(q + o);
            lo = 0;
        }
        id = idx0 + (int64_t)s * idx_stride + (MODE == WALK_COVER ? lo : o * V);
    };
    auto take = [&](A f, const X &x, int64_t id, int lo) {
        if constexpr (MODE == WALK_COVER)
            return fold_vec_part(op, f, x, id, lo, elems);
        else if constexpr (VEC)
            return fold_vec(op, f, x, id);
        else
            return fold_elem(op, f, x, id);
    };
    A f[NA];
#pragma unroll
    for (int u = 0; u < NA; u++)
        f[u] = op.identity();
    for (; i + (L - 1) * B < n; i += L * B) {
        int64_t id[L];
        int lo[L];
        X x[L];
#pragma unroll
        for (int u = 0; u < L; u++) {
            issue(true, x[u], id[u], lo[u]);
            step();
        }
#pragma unroll
        for (int u = 0; u < L; u++)
            f[u % NA] = take(f[u % NA], x[u], id[u], lo[u]);
    }
    /* the last L - 1 vectors or fewer, where a thread has two or more, as one round: every
     * load goes out at once, the ones past n replaced by a load in range and not folded. One
     * at a time, [32, 1024, 14, 14] over (0, 2, 3) (1568 vectors a unit, 6 or 7 a thread: a
     * round of 4 and then 2 or 3 more, each waiting for the last) ran 14.0-14.1 us against
     * 12.4-12.5 (H200, from memory). Single elements stay one at a time: a round of 15
     * clamped loads where one was left made [512, 128, 7, 7] 4% slower. */
    if constexpr (VEC) {
        constexpr int LT = L - 1;
        if (i + B < n) {
            uint4 x[LT];
            int64_t id[LT];
            int lo[LT];
#pragma unroll
            for (int u = 0; u < LT; u++) {
                issue(i + u * B < n, x[u], id[u], lo[u]);
                step();
            }
#pragma unroll
            for (int u = 0; u < LT; u++)
                if (i + u * B < n)
                    f[u % NA] = take(f[u % NA], x[u], id[u], lo[u]);
            i = n;
        }
    }
    for (; i < n; i += B) {
        X x;
        int64_t id;
        int lo;
        issue(true, x, id, lo);
        f[0] = take(f[0], x, id, lo);
        step();
    }
    return fold<Op, NA>(op, f);
}

/* Resident blocks per SM the kernels are compiled for: the built-ins' accumulators (8 bytes at
 * most) fit the default register budget; a 16-byte accumulator (ArgMax's (value, index)) spilled
 * in the inner and outer kernels at 85 and 64 registers a thread, so it gets 2 blocks (128). */
template <class Op> constexpr int min_blocks(int usual)
{
    return sizeof(typename Op::acc_t) > 8 ? 2 : usual;
}

/* --- FILL ----------------------------------------------------------------------------------- */

template <class Op>
__global__ void __launch_bounds__(kBlock, kMinBlocks) fill_kernel(Op op, void *out, int64_t n)
{
    typename Op::out_t *o = static_cast<typename Op::out_t *>(out);
    const typename Op::out_t v = op.finalize(op.identity(), 0);
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        o[i] = v;
}

/* --- FULL: one contiguous range, grid-stride ----------------------------------------------- */

struct full_args {
    const void *in;
    void *out;
    int64_t n;     /* elements */
    int64_t red_n; /* N of finalize */
    void *partials;
    unsigned *counters;
};

/* Thread g of S = gridDim * blockDim reads vectors g, g + S, g + 2S, ... with kUnroll in
 * flight, so at any moment the whole grid reads one compact window of memory (blocks that each
 * stream a contiguous chunk of their own read ~5% slower on an H200: the read-ceiling kernel's
 * variants in `opnn bench`). The head before the first 16-byte boundary and the tail are
 * scalar; each block's result goes to the workspace and the last block combines them in block
 * order. The assignment is fixed by the grid, so results are bitwise reproducible. */
template <class Op>
__global__ void __launch_bounds__(kBlock, min_blocks<Op>(kMinBlocks))
    full_kernel(Op op, full_args a)
{
    using T = typename Op::in_t;
    using A = typename Op::acc_t;
    constexpr int V = 16 / sizeof(T);
    __shared__ __align__(16) unsigned char s_raw[32 * sizeof(A)];
    __shared__ int s_last;
    A *s_warp = reinterpret_cast<A *>(s_raw);
    const T *in = static_cast<const T *>(a.in);
    const int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t S = (int64_t)gridDim.x * blockDim.x;
    const int64_t h0 = (int64_t)(((16u - ((unsigned)(uintptr_t)in & 15u)) & 15u) / sizeof(T));
    const int64_t head = h0 < a.n ? h0 : a.n;
    const int64_t nv = (a.n - head) / V, tail0 = head + nv * V;
    const uint4 *vp = reinterpret_cast<const uint4 *>(in + head);

    A acc[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; u++)
        acc[u] = op.identity();
    if (g < head)
        acc[0] = op.map(in[g], g);
    if (tail0 + g < a.n)
        acc[kUnroll - 1] = op.map(in[tail0 + g], tail0 + g);
    int64_t i = g;
    for (; i + (kUnroll - 1) * S < nv; i += kUnroll * S) {
        uint4 v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            v[u] = load_vec(vp + i + u * S);
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            acc[u] = fold_vec(op, acc[u], v[u], head + (i + u * S) * V);
    }
    /* the last kUnroll - 1 vectors or fewer, all in flight at once: a round trip each before,
     * f16 [33554432] 22.3-22.5 -> 20.9-21.0 us (H200, best of 50) */
    if (i < nv) {
        uint4 v[kUnroll - 1];
#pragma unroll
        for (int u = 0; u < kUnroll - 1; u++)
            if (i + u * S < nv)
                v[u] = load_vec(vp + i + u * S);
#pragma unroll
        for (int u = 0; u < kUnroll - 1; u++)
            if (i + u * S < nv)
                acc[u] = fold_vec(op, acc[u], v[u], head + (i + u * S) * V);
    }
    const A v = block_reduce(op, fold<Op, kUnroll>(op, acc), s_warp);
    finish_unit(op, v, static_cast<typename Op::out_t *>(a.out), 0, a.red_n, a.partials, a.counters,
                gridDim.x, blockIdx.x, s_warp, &s_last);
}

/* --- the inner view [R1, C, K] ------------------------------------------------------------- */

struct inner_args {
    const void *in;
    void *out;
    int64_t r1, c, k;            /* view; K contiguous */
    int64_t r1_stride, c_stride; /* elements */
    int64_t red_n;               /* N of finalize */
    int64_t units;               /* block kernel: c * split; group kernel: output tiles */
    int64_t split;               /* units per output */
    int64_t chunk;               /* > 0: elements of K per unit; 0: `segs` segments per unit */
    int64_t segs;
    int sub; /* lanes per range / per output */
    void *partials;
    unsigned *counters;
};

/* The cover walk's depth in a kernel of DEPTH: f64 Max and Min walk at 1. At 2 their compare
 * and select pairs spilled 32 bytes (ptxas) and [256, 512, 9, 9] over (0, 2, 3) took 37.6 us
 * against 33.4 at 1 ([512, 256, 7, 7] 24.7 against 21.6); f64 Sum was 5% faster at 2 (25.6
 * against 26.9 us; H200, best of 40). */
template <class Op> constexpr int cover_depth(int depth)
{
    return std::is_same_v<Op, max_op<double>> || std::is_same_v<Op, min_op<double>> ? 1 : depth;
}

/* A unit of several segments is walked flat by the whole block (walk_segments); one segment (or
 * a chunk of one) is cut into pieces, a group of `sub` lanes on one at a time, kUnroll deep.
 * DEPTH 2 (at most 2 blocks an SM, for grids of that few): twice the loads in flight, so that
 * 256 blocks keep 8 MB in flight (the read kernel with 4 MB in flight read 0.96 of its best; 256
 * blocks of 4 loads a thread had bn_nhw at 0.95 of that read at its size). Vector loads with
 * load_vec's L2P. */
template <class Op, int DEPTH = 1>
__global__ void __launch_bounds__(kBlock, DEPTH > 1 ? 2 : min_blocks<Op>(kMinBlocksInner))
    inner_block_kernel(Op op, inner_args a)
{
    using T = typename Op::in_t;
    using A = typename Op::acc_t;
    constexpr int V = 16 / sizeof(T);
    __shared__ __align__(16) unsigned char s_raw[32 * sizeof(A)];
    __shared__ int s_last;
    A *s_warp = reinterpret_cast<A *>(s_raw);
    const T *in = static_cast<const T *>(a.in);
    typename Op::out_t *out = static_cast<typename Op::out_t *>(a.out);
    const int G = a.sub, lane = threadIdx.x & (G - 1), grp = threadIdx.x / G;
    const int64_t ngroups = blockDim.x / G;
    /* every segment starts on a 16-byte boundary: the flat walk reads vectors */
    const bool flat_vec = ((uintptr_t)in & 15u) == 0 && a.k % V == 0 && a.r1_stride % V == 0 &&
                          (a.c == 1 || a.c_stride % V == 0);
    /* the end of the tensor's memory (strides are not negative) */
    const uintptr_t t_end =
        (uintptr_t)(in + (a.r1 - 1) * a.r1_stride + (a.c - 1) * a.c_stride + a.k);

    for (int64_t unit = blockIdx.x; unit < a.units; unit += gridDim.x) {
        const int64_t c = udiv(unit, a.split), j = unit - c * a.split;
        int64_t s_lo, s_hi, k_lo, k_hi;
        if (a.chunk > 0) {
            const int64_t per_seg = udiv(a.split, a.r1);
            s_lo = udiv(j, per_seg);
            s_hi = s_lo + 1;
            k_lo = (j - s_lo * per_seg) * a.chunk;
            k_hi = min(a.k, k_lo + a.chunk);
        } else {
            s_lo = j * a.segs;
            s_hi = min(a.r1, s_lo + a.segs);
            k_lo = 0;
            k_hi = a.k;
        }
        const int64_t nseg = s_hi - s_lo, klen = k_hi - k_lo;
        const T *seg0 = in + c * a.c_stride + s_lo * a.r1_stride + k_lo;
        const int64_t idx0 = s_lo * a.k + k_lo;

        A acc[1] = {op.identity()};
        if (nseg > 1 && nseg * klen < kMaxFlat) {
            /* several segments: one flat walk over all of them (bn_nhw-like [N, C, HW]) */
            /* segment s's covering vectors lie within the tensor's memory */
            auto inside = [&](int64_t s) {
                const uintptr_t q = (uintptr_t)(seg0 + s * a.r1_stride);
                return (q & ~(uintptr_t)15) >= (uintptr_t)in &&
                       ((q + klen * sizeof(T) + 15) & ~(uintptr_t)15) <= t_end;
            };
            if (flat_vec) {
                acc[0] = walk_segments<Op, WALK_VECS, DEPTH, true>(
                    op, seg0, a.r1_stride, (int)(klen / V), (int)nseg, idx0, a.k);
            } else if (klen * (int64_t)sizeof(T) >= kCoverMinBytes &&
                       (a.r1_stride > 0 || inside(0))) {
                /* segments off 16 bytes: the vectors that cover them. Only the tensor's lowest
                 * and highest segments can have covering vectors outside its memory (the
                 * others start and end at least a segment, >= 32 bytes, inside it); they are
                 * the unit's first or last and go by elements. (With R1 broadcast, stride 0,
                 * every segment of the unit is that one segment: all by elements, below.) */
                auto by_elems = [&](int64_t s) {
                    acc[0] = op.combine(
                        acc[0], walk_segments<Op, WALK_ELEMS>(op, seg0 + s * a.r1_stride, 0,
                                                              (int)klen, 1, idx0 + s * a.k, 0));
                };
                const int64_t s0 = inside(0) ? 0 : 1, s1 = inside(nseg - 1) ? nseg : nseg - 1;
                if (s0 > 0)
                    by_elems(0);
                if (s1 < nseg)
                    by_elems(nseg - 1);
                if (s1 > s0)
                    acc[0] = op.combine(acc[0],
                                        walk_segments<Op, WALK_COVER, cover_depth<Op>(DEPTH), true>(
                                            op, seg0 + s0 * a.r1_stride, a.r1_stride,
                                            (int)OPNN_CUDA_COVER_VECTORS(klen, (int64_t)V),
                                            (int)(s1 - s0), idx0 + s0 * a.k, a.k, (int)klen));
            } else {
                acc[0] = walk_segments<Op, WALK_ELEMS>(op, seg0, a.r1_stride, (int)klen, (int)nseg,
                                                       idx0, a.k);
            }
        } else {
            /* few segments: cut each into pieces so every group has one in flight, each piece at
             * least one vector per lane */
            int64_t pieces = 1;
            if (nseg < ngroups) {
                pieces = udiv(ngroups + nseg - 1, nseg);
                pieces = min(pieces, max((int64_t)1, udiv(klen, (int64_t)G * V)));
            }
            /* and short enough that a range's vector count fits an int */
            if (klen > kMaxRange)
                pieces = max(pieces, (klen + kMaxRange - 1) / kMaxRange);
            int64_t piece = (udiv(klen + pieces - 1, pieces) + V - 1) / V * V;
            piece = max(piece, (int64_t)V);
            pieces = udiv(klen + piece - 1, piece);
            const int64_t nranges = nseg * pieces;
            for (int64_t r = grp; r < nranges; r += ngroups) {
                const T *p[1];
                int64_t n[1], idx[1];
                if (pieces == 1) {
                    p[0] = seg0 + r * a.r1_stride;
                    n[0] = klen;
                    idx[0] = idx0 + r * a.k;
                } else {
                    /* pieces > 1 only for fewer segments than groups: small r */
                    const unsigned s = (unsigned)r / (unsigned)pieces;
                    const int64_t lo = (r - (int64_t)s * pieces) * piece;
                    p[0] = seg0 + s * a.r1_stride + lo;
                    n[0] = min(piece, klen - lo);
                    idx[0] = idx0 + s * a.k + lo;
                }
                walk_ranges<Op, 1, kUnroll * DEPTH, true>(op, p, n, idx, lane, G, acc);
            }
        }
        finish_unit(op, block_reduce(op, acc[0], s_warp), out, c, a.red_n, a.partials, a.counters,
                    a.split, j, s_warp, &s_last);
    }
}

/* U rows in flight per group, each walked D vectors deep (kUnroll / U: kUnroll loads in flight
 * a lane either way). U = 4 keeps 4 rows open per group; U = 1 reads one row at a time, so the
 * whole grid has 4x fewer rows open (a smaller window of memory) at the same depth; U = 1 with
 * D = 2 * kUnroll doubles the loads in flight on that window. */
template <class Op, int U, int D = kUnroll / U>
__global__ void __launch_bounds__(kBlock, min_blocks<Op>(kMinBlocksInner))
    inner_group_kernel(Op op, inner_args a)
{
    using T = typename Op::in_t;
    using A = typename Op::acc_t;
    static_assert(U >= 1 && kUnroll % U == 0, "U divides kUnroll");
    const T *in = static_cast<const T *>(a.in);
    typename Op::out_t *out = static_cast<typename Op::out_t *>(a.out);
    const int G = a.sub, lane = threadIdx.x & (G - 1), grp = threadIdx.x / G;
    const int64_t ngroups = blockDim.x / G, per_tile = ngroups * U;

    for (int64_t t = blockIdx.x; t < a.units; t += gridDim.x) {
        int64_t c[U];
        A acc[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            /* consecutive groups take consecutive outputs: one load instruction of a warp
             * covers consecutive rows */
            c[u] = t * per_tile + u * ngroups + grp;
            acc[u] = op.identity();
        }
        for (int64_t r1 = 0; r1 < a.r1; r1++) {
            const T *p[U];
            int64_t n[U], idx[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const bool ok = c[u] < a.c;
                p[u] = in + (ok ? c[u] : 0) * a.c_stride + r1 * a.r1_stride;
                n[u] = ok ? a.k : 0;
                idx[u] = r1 * a.k;
            }
            walk_ranges<Op, U, D>(op, p, n, idx, lane, G, acc);
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const A v = group_reduce(op, acc[u], G);
            if (lane == 0 && c[u] < a.c)
                out[c[u]] = op.finalize(v, a.red_n);
        }
    }
}

/* --- ROW_TILE: short contiguous rows, warp tiles of whole rows through shared memory ------- */

struct rowtile_args {
    const void *in;
    void *out;
    int64_t rows, k; /* rows of k contiguous elements, row i at i * k */
    int64_t b;       /* 1; or a MIDDLE view's B: each row is a slab [k / b, b], b outputs */
    int64_t npacks;  /* whole packs: P rows that end on a 16-byte boundary (rows / P) */
    int64_t tiles;   /* warp tiles of tile_rows rows (tile_vec vectors) */
    int64_t red_n;
    int p;         /* rows a pack */
    int tile_rows; /* rows a tile: a whole number of packs */
    int tile_vec;  /* 16-byte vectors a tile, at most OPNN_CUDA_ROW_TILE_MAX_VEC */
    int g, log2g;  /* lanes a row (a power of two) */
    int chunk;     /* bytes one shared-memory read takes: gcd(k * size, 16) */
    int aligned;   /* in is 16-byte aligned: vector loads; else element loads */
    int stagger;   /* b > 1: lane h of an output of slab s starts at its (s mod its rows)-th row,
                      h + g (s mod its rows), and goes round (launch.ranges 2) */
};

/* One row of the tile at `row` (shared memory), read as chunks of C (k * size is a multiple of
 * sizeof(C), so every row starts on one); lane gl of g takes chunks gl, gl + g, ... */
template <class Op, class C>
__device__ __forceinline__ typename Op::acc_t tile_row_fold(const Op &op, const char *row,
                                                            int nchunks, int gl, int g)
{
    using T = typename Op::in_t;
    constexpr int E = sizeof(C) / sizeof(T);
    typename Op::acc_t acc = op.identity();
    for (int j = gl; j < nchunks; j += g) {
        const C c = *reinterpret_cast<const C *>(row + j * (int)sizeof(C));
        T e[E];
        memcpy(e, &c, sizeof(C));
#pragma unroll
        for (int i = 0; i < E; i++)
            acc = fold_elem(op, acc, e[i], (int64_t)j * E + i);
    }
    return acc;
}

/* A row of k 2-byte elements that starts on a 2-byte boundary (odd k): read as the 4-byte words
 * that cover it, two elements a read, the halves outside the row left out. `e0` is the row's
 * first element within the tile (which starts on a 16-byte boundary). Half the shared-memory
 * reads of taking the elements one by one. */
template <class Op>
__device__ __forceinline__ typename Op::acc_t tile_row_fold_pairs(const Op &op, const char *tile,
                                                                  int e0, int k, int gl, int g)
{
    using T = typename Op::in_t;
    static_assert(sizeof(T) == 2, "pairs of 2-byte elements");
    typename Op::acc_t acc = op.identity();
    const unsigned *w = reinterpret_cast<const unsigned *>(tile);
    const int wend = (e0 + k + 1) >> 1;
    for (int j = (e0 >> 1) + gl; j < wend; j += g) {
        const unsigned u = w[j];
        T e[2];
        memcpy(e, &u, 4);
        const int idx = 2 * j - e0; /* index of e[0] in the row: -1 .. k - 1 */
        if (idx >= 0)
            acc = fold_elem(op, acc, e[0], idx);
        if (idx + 1 < k)
            acc = fold_elem(op, acc, e[1], idx + 1);
    }
    return acc;
}

/* A row of k elements that starts at element e0 of the tile (which starts on a 16-byte boundary),
 * read as the 16-byte vectors that cover it: lane gl of g takes vectors gl, gl + g, ...; whole
 * vectors fold as a tree, the two at the ends element by element, leaving out the elements of the
 * neighbouring rows. Rows of 2-byte elements of odd length read a 4-byte word at a time, two
 * elements a read, were issue-bound: f16 rows of 49 at 0.71 of the ceiling. */
template <class Op>
__device__ __forceinline__ typename Op::acc_t tile_row_fold_vecs(const Op &op, const char *tile,
                                                                 int e0, int k, int gl, int g)
{
    using T = typename Op::in_t;
    constexpr int V = 16 / sizeof(T);
    typename Op::acc_t acc = op.identity();
    const uint4 *tv = reinterpret_cast<const uint4 *>(tile);
    const int v0 = e0 / V, vend = k > 0 ? (e0 + k - 1) / V + 1 : v0;
    for (int v = v0 + gl; v < vend; v += g) {
        const uint4 x = tv[v];
        const int idx = v * V - e0; /* index of the vector's first element in the row */
        if (idx >= 0 && idx + V <= k) {
            acc = fold_vec(op, acc, x, idx);
        } else {
            T e[V];
            memcpy(e, &x, 16);
#pragma unroll
            for (int i = 0; i < V; i++)
                if (idx + i >= 0 && idx + i < k)
                    acc = fold_elem(op, acc, e[i], idx + i);
        }
    }
    return acc;
}

/* A row of k elements that starts at element e0 of the tile (which starts on a 16-byte
 * boundary), folded by one lane from the 16-byte vectors that cover it: the first and the last
 * element by element where the row starts or ends inside them, the others whole, in order. Every
 * lane runs the same loop but for one trip, so a warp of lanes a row diverges only at the ends
 * (tile_row_fold_vecs with one lane a row tests every vector: about 20 PTX instructions a vector
 * for f32 against 6.5 here). */
template <class Op>
__device__ __forceinline__ typename Op::acc_t tile_row_fold_lane(const Op &op, const uint4 *tile,
                                                                 int e0, int k)
{
    using T = typename Op::in_t;
    constexpr int V = 16 / sizeof(T);
    typename Op::acc_t acc = op.identity();
    if (k <= 0)
        return acc;
    const uint4 *p = tile + e0 / V;
    const int s = e0 % V, end = s + k, whole_end = end / V; /* end: past the row, from p[0] */
    int j = 0;
    if (s != 0 || end < V) { /* the first vector holds elements of the row before */
        T e[V];
        memcpy(e, &p[0], 16);
#pragma unroll
        for (int i = 0; i < V; i++)
            if (i >= s && i < end)
                acc = fold_elem(op, acc, e[i], (int64_t)(i - s));
        j = 1;
    }
#pragma unroll 2
    for (; j < whole_end; j++)
        acc = fold_vec(op, acc, p[j], (int64_t)(j * V - s));
    if (end % V != 0 && whole_end >= 1) { /* the last vector holds elements of the row after */
        T e[V];
        memcpy(e, &p[whole_end], 16);
#pragma unroll
        for (int i = 0; i < V; i++)
            if (i < end - whole_end * V)
                acc = fold_elem(op, acc, e[i], (int64_t)(whole_end * V + i - s));
    }
    return acc;
}

template <class T, int K> struct row_pack_shape;

/* The nr slabs [k / NB, NB] of a ROW_TILE tile (sw; o: their first output) whose rows are whole
 * packs: P rows of NB elements that span NV whole 16-byte vectors (row_pack_shape), so every slab
 * starts on a vector. Lane h of the g lanes of a slab folds the slab's packs h, h + g, ..., each
 * read as NV 16-byte vectors from shared memory, element i of a pack into column i % NB (a
 * register: NB is known at compile time, so no index arithmetic remains an element; a column's P
 * elements of a pack as a tree, then onto its accumulator); the g partials of a column are
 * combined by shuffles and lane c % g stores column c. A warp's lanes read consecutive packs,
 * an odd number of vectors apart for odd NB (the element-wise fold of 16-bit slabs of 3 columns
 * waited on 4-8 wavefronts a load, or issued 1.5 times the instructions staggered); f16
 * [4194304, 32, 3] over 1 260 -> 198 us with g 2 (H200). */
template <class Op, int NB>
__device__ __forceinline__ void tile_slab_packs(const Op &op, const uint4 *sw, int nr, int nrow,
                                                int lane, int g, int log2g, typename Op::out_t *o,
                                                int64_t red_n)
{
    using T = typename Op::in_t;
    using A = typename Op::acc_t;
    constexpr int NV = row_pack_shape<T, NB>::NV, P = row_pack_shape<T, NB>::P;
    static_assert(P * NB * (int)sizeof(T) == 16 * NV, "a pack spans whole 16-byte vectors");
    const int gh = lane & (g - 1), per = 32 >> log2g, npk = nrow / P;
    for (int s0 = 0; s0 < nr; s0 += per) { /* warp-uniform trip count: shuffles below */
        const int s = s0 + (lane >> log2g);
        A acc[NB];
#pragma unroll
        for (int c = 0; c < NB; c++)
            acc[c] = op.identity();
        if (s < nr) {
            const uint4 *x = sw + s * npk * NV;
            for (int j = gh; j < npk; j += g) {
                uint4 v[NV];
                T e[P * NB];
#pragma unroll
                for (int u = 0; u < NV; u++)
                    v[u] = x[j * NV + u];
                memcpy(e, v, sizeof e);
#pragma unroll
                for (int c = 0; c < NB; c++) {
                    A t[P];
#pragma unroll
                    for (int m = 0; m < P; m++)
                        t[m] = op.map(e[m * NB + c], (int64_t)(j * P + m));
                    acc[c] = op.combine(acc[c], fold<Op, P>(op, t));
                }
            }
        }
#pragma unroll
        for (int c = 0; c < NB; c++)
            acc[c] = group_reduce(op, acc[c], g);
        if (s < nr) {
#pragma unroll
            for (int c = 0; c < NB; c++)
                if ((c & (g - 1)) == gh)
                    store_stream(o + s * NB + c, op.finalize(acc[c], red_n));
        }
    }
}

/* cp.async: 16 bytes from global memory (16-byte aligned) into shared memory, not through L1 or
 * registers; a group of them committed, and a wait until at most N groups are in flight. */
__device__ __forceinline__ void cp_async16(void *smem, const void *gmem)
{
#if __CUDA_ARCH__ >= 800
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
#else
    *static_cast<uint4 *>(smem) = load_vec(static_cast<const uint4 *>(gmem));
#endif
}
__device__ __forceinline__ void cp_async_commit()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
template <int N> __device__ __forceinline__ void cp_async_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

/* Rows of k * size <= 512 bytes, contiguous. P consecutive rows (a pack) span a whole number of
 * 16-byte vectors, so a tile of whole packs is read with coalesced 16-byte loads whatever k is
 * (3, 49, ...). From a 16-byte aligned start, warp w copies its next tile with cp.async into the
 * second of its two slices of shared memory while it reduces the first, so a whole tile (up to
 * 6.5 KB) is in flight a warp all the time; otherwise it loads kUnroll vectors a lane a batch
 * into registers and its one slice, the next tile's first batch issued before this one is
 * reduced (a tile of several batches waited a round trip a batch: rows of 17 f32, 408-vector
 * tiles, 0.87 of the ceiling). Rows are then reduced from shared memory by one lane each
 * (tile_row_fold_lane; tiles of 32 rows or more) or by groups of g lanes in chunks of up to 16
 * bytes (gcd(k * size, 16): every row starts on such a chunk). Only __syncwarp: a warp's tiles
 * are its own. The rows past the last whole pack (fewer than P) are taken by block 0. Shared
 * memory (dynamic): tile_vec vectors a slice, two slices a warp from an aligned start. */
template <class Op, int NB = 0>
__global__ void __launch_bounds__(kBlock, NB > 0 ? 2 : kMinBlocks)
    row_tile_kernel(Op op, rowtile_args a)
{
    using T = typename Op::in_t;
    using A = typename Op::acc_t;
    constexpr int V = 16 / sizeof(T);
    constexpr int TB = 32 * kUnroll; /* vectors a batch */
    extern __shared__ uint4 s_row_tile[];
    const T *in = static_cast<const T *>(a.in);
    typename Op::out_t *out = static_cast<typename Op::out_t *>(a.out);
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const int64_t nvec = a.npacks * (a.tile_vec / (a.tile_rows / a.p));
    const int64_t wpb = blockDim.x >> 5, nwarps = (int64_t)gridDim.x * wpb;
    const int gl = lane & (a.g - 1), grp = lane >> a.log2g, ngrp = 32 >> a.log2g;
    const int row_bytes = (int)a.k * (int)sizeof(T), nchunks = row_bytes / a.chunk;
    /* rows folded from the 16-byte vectors that cover them (tile_row_fold_vecs) */
    const bool vecs = a.chunk <= 4 && row_bytes >= OPNN_CUDA_ROW_TILE_VECS_MIN_BYTES;

    /* MIDDLE slabs [R, B] (b > 1): the g lanes j * g .. j * g + g - 1 of the warp (g = a.g, a
     * power of two) take outputs j, j + 32 / g, ... of the tile's nr * B, output q being column
     * q % B of slab q / B (consecutive lanes, consecutive columns and outputs); lane h of the g
     * folds the column's rows h, h + g, ... in shared memory in order and the g partials are
     * combined by shuffles (g from the planner's cost, tile_col_plan). Where the planner finds
     * the lanes' banks collide (a.stagger: slabs a multiple of 128 bytes put a column's element
     * of every slab in one bank, 11 lanes a bank for [4194304, 32, 3] f32) a lane starts
     * from its (slab mod its rows)-th row instead and goes round, one loop of its rows for every
     * lane (each output's order fixed). (qs, qr) is 32 / g = qs * B + qr, the step from one of a
     * lane's outputs to the next */
    const int nb = (int)a.b, nrow = (int)(a.k / a.b), gh = lane & (a.g - 1);
    const int per = 32 >> a.log2g, qs = per / nb, qr = per - qs * nb;
    const int nh = (nrow - gh + a.g - 1) >> a.log2g; /* rows of a column lane gh folds */
    const bool stagger = nb > 1 && a.stagger;
    const int row_l = (lane >> a.log2g) / nb, col_l = (lane >> a.log2g) - row_l * nb;

    /* the rows of tile t, held in slice sw */
    auto reduce_tile = [&](int64_t t, const uint4 *sw) {
        const char *sb = reinterpret_cast<const char *>(sw);
        const int64_t row0 = t * a.tile_rows;
        const int nr = (int)min((int64_t)a.tile_rows, a.npacks * a.p - row0);
        if constexpr (NB > 0) { /* slabs of NB columns from whole packs of rows */
            tile_slab_packs<Op, NB>(op, sw, nr, nrow, lane, a.g, a.log2g, out + row0 * nb, a.red_n);
            return;
        }
        if (nb > 1) {
            const T *se = reinterpret_cast<const T *>(sw);
            typename Op::out_t *o = out + row0 * nb;
            const int nout = nr * nb, step = a.g * nb;
            /* the lane's nh rows of a column (x: its first) from its r0-th on, 4 loads at once;
             * where Wrap (a staggered start), round to its first after its last, each index
             * from r0 and i alone (a chain of index updates from one element to the next made
             * every load wait on the one before) */
            auto fold_col = [&](A &acc, const T *x, int r0, auto wrap) {
                auto at = [&](int i) {
                    const int r = r0 + i;
                    return decltype(wrap)::value && r >= nh ? r - nh : r;
                };
                int i = 0;
                for (; i + 4 <= nh; i += 4) {
                    T e[4];
#pragma unroll
                    for (int u = 0; u < 4; u++)
                        e[u] = x[at(i + u) * step];
#pragma unroll
                    for (int u = 0; u < 4; u++)
                        acc = fold_elem(op, acc, e[u], (int64_t)(gh + at(i + u) * a.g));
                }
                for (; i < nh; i++)
                    acc = fold_elem(op, acc, x[at(i) * step], (int64_t)(gh + at(i) * a.g));
            };
            auto fold_out = [&](A &acc, int row, int c) {
                const T *x = se + row * (int)a.k + c + gh * nb;
                if (stagger)
                    fold_col(acc, x, row % nh, std::true_type());
                else
                    fold_col(acc, x, 0, std::false_type());
            };
            int row = row_l, c = col_l;
            auto next_out = [&]() {
                row += qs;
                c += qr;
                if (c >= nb) {
                    c -= nb;
                    row++;
                }
            };
            if (a.g == 1) { /* a lane an output: no shuffles, each lane its own trip count */
                for (int q = lane; q < nout; q += 32, next_out()) {
                    A acc = op.identity();
                    fold_out(acc, row, c);
                    store_stream(o + q, op.finalize(acc, a.red_n));
                }
                return;
            }
            for (int q0 = 0; q0 < nout; q0 += per, next_out()) { /* warp-uniform: shuffles */
                const int q = q0 + (lane >> a.log2g);
                A acc = op.identity();
                if (q < nout)
                    fold_out(acc, row, c);
                acc = group_reduce(op, acc, a.g);
                if (q < nout && gh == 0)
                    store_stream(o + q, op.finalize(acc, a.red_n));
            }
            return;
        }
        if (a.g == 1) { /* a lane a row: no shuffles, so no warp-uniform trip count needed */
            for (int r = lane; r < nr; r += 32)
                store_stream(
                    out + row0 + r,
                    op.finalize(tile_row_fold_lane(op, sw, r * (int)a.k, (int)a.k), a.red_n));
            return;
        }
        for (int r0 = 0; r0 < nr; r0 += ngrp) { /* warp-uniform trip count: shuffles below */
            const int r = r0 + grp;
            const char *row = sb + (r < nr ? r : 0) * row_bytes;
            A acc;
            if (vecs)
                acc = tile_row_fold_vecs(op, sb, (r < nr ? r : 0) * (int)a.k, r < nr ? (int)a.k : 0,
                                         gl, a.g);
            else if (a.chunk == 16)
                acc = tile_row_fold<Op, uint4>(op, row, r < nr ? nchunks : 0, gl, a.g);
            else if (a.chunk == 8)
                acc = tile_row_fold<Op, uint2>(op, row, r < nr ? nchunks : 0, gl, a.g);
            else if (sizeof(T) <= 4 && a.chunk == 4)
                acc = tile_row_fold<Op, std::conditional_t<sizeof(T) <= 4, unsigned, uint2>>(
                    op, row, r < nr ? nchunks : 0, gl, a.g);
            else if constexpr (sizeof(T) == 2) /* 2-byte rows of odd length: word pairs */
                acc = tile_row_fold_pairs(op, sb, (r < nr ? r : 0) * (int)a.k,
                                          r < nr ? (int)a.k : 0, gl, a.g);
            else
                acc = tile_row_fold<Op, uint2>(op, row, 0, gl, a.g); /* not reached */
            if (a.g > 1)
                acc = group_reduce(op, acc, a.g);
            if (gl == 0 && r < nr)
                store_stream(out + row0 + r, op.finalize(acc, a.red_n));
        }
    };

    int64_t t = (int64_t)blockIdx.x * wpb + w;
    if (a.aligned) {
        uint4 *s0 = s_row_tile + w * 2 * a.tile_vec;
        /* tile t's vectors into slice dst, as one cp.async group */
        auto issue = [&](int64_t tt, uint4 *dst) {
            const int64_t base = tt * a.tile_vec;
            const int lim = (int)min((int64_t)a.tile_vec, nvec - base);
            const uint4 *src = reinterpret_cast<const uint4 *>(in) + base;
#pragma unroll 4
            for (int j = lane; j < lim; j += 32)
                cp_async16(dst + j, src + j);
        };
        int cur = 0;
        if (t < a.tiles)
            issue(t, s0);
        cp_async_commit();
        for (; t < a.tiles; t += nwarps) {
            if (t + nwarps < a.tiles)
                issue(t + nwarps, s0 + (cur ^ 1) * a.tile_vec);
            cp_async_commit();
            cp_async_wait<1>(); /* this tile's group has landed (the next may be in flight) */
            __syncwarp();
            reduce_tile(t, s0 + cur * a.tile_vec);
            __syncwarp(); /* the slice is refilled two tiles on */
            cur ^= 1;
        }
        cp_async_wait<0>();
    } else {
        uint4 *sw = s_row_tile + w * a.tile_vec;
        /* batch b (vectors b * TB ..) of tile t: loaded, and stored into the warp's slice */
        auto load_batch = [&](int64_t tt, int b, uint4(&v)[kUnroll]) {
            const int64_t base = tt * a.tile_vec;
#pragma unroll
            for (int u = 0; u < kUnroll; u++) {
                const int j = b * TB + lane + 32 * u;
                if (j < a.tile_vec && base + j < nvec)
                    v[u] = load_vec_any(in + (base + j) * V, false);
            }
        };
        auto store_batch = [&](int64_t tt, int b, const uint4(&v)[kUnroll]) {
            const int64_t base = tt * a.tile_vec;
#pragma unroll
            for (int u = 0; u < kUnroll; u++) {
                const int j = b * TB + lane + 32 * u;
                if (j < a.tile_vec && base + j < nvec)
                    sw[j] = v[u];
            }
        };
        const int nbatch = (a.tile_vec + TB - 1) / TB;
        uint4 next[kUnroll];
        if (t < a.tiles)
            load_batch(t, 0, next);
        for (; t < a.tiles; t += nwarps) {
            store_batch(t, 0, next);
            for (int b = 1; b < nbatch; b++) {
                load_batch(t, b, next);
                store_batch(t, b, next);
            }
            if (t + nwarps < a.tiles)
                load_batch(t + nwarps, 0, next);
            __syncwarp();
            reduce_tile(t, sw);
            __syncwarp(); /* the slice is refilled next round */
        }
    }
    if (blockIdx.x == 0) { /* rows past the last whole pack: output q, column q % b of row q / b */
        for (int64_t q = a.npacks * a.p * a.b + threadIdx.x; q < a.rows * a.b; q += blockDim.x) {
            const int64_t r = q / a.b;
            const T *x = in + r * a.k + (q - r * a.b);
            A acc = op.identity();
            for (int64_t j = 0; j < a.k / a.b; j++)
                acc = fold_elem(op, acc, x[j * a.b], j);
            out[q] = op.finalize(acc, a.red_n);
        }
    }
}

/* Rows of K * size <= 32 bytes (K known at compile time), contiguous, 16-byte aligned: a pack
 * of P rows spans NV whole vectors; a thread takes M packs (at least 16 bytes of rows' outputs'
 * worth where a pack allows: one 16-byte store a lane), RV = NV * M vectors, and folds each row
 * from registers, so no per-element index arithmetic remains (the tile kernel's per-row work
 * from shared memory was issue-bound here: [89478485, 3] f32 4262 GB/s against 3638, f16 rows
 * of 3 4252 against 2549, H200). */
template <class T, int K> struct row_pack_shape {
    static constexpr int B = K * (int)sizeof(T);
    static constexpr int GCD = B % 16 == 0 ? 16 : B % 8 == 0 ? 8 : B % 4 == 0 ? 4 : 2;
    static constexpr int P = 16 / GCD, NV = B / GCD;
    /* 16 bytes of input rows' worth a thread, at most 4 vectors unless a pack is longer (f16
     * rows of 8 with 8 vectors a thread: 3018 GB/s against 3979 for f32 rows of 4 with 4) */
    static constexpr int M0 = P * (int)sizeof(T) >= 16 ? 1 : 16 / (P * (int)sizeof(T));
    static constexpr int M = NV * M0 <= 4 ? M0 : (4 / NV > 0 ? 4 / NV : 1);
    static constexpr int RV = NV * M, RR = P * M; /* vectors and rows a thread */
};

/* A warp reads its 32 groups' 32 * RV vectors coalesced and passes them through shared memory
 * (warp_to_runs), and each lane folds its own group's rows. A lane loading its own RV adjacent
 * vectors instead (ld.global.cs, each instruction 32 lines, left in L1 for the next) and the grid
 * held at 4 blocks an SM, striding: rows of 2-7 f32 read 0.87-0.90 of the ceiling. A streaming
 * kernel that reads K vectors and writes 1 (H200, 1 GiB, of its read ceiling) reads 0.95-0.97 so
 * for K = 2-4, against 0.91-0.94 with the grid at 4-16 blocks an SM striding, and 0.91-0.94 for K =
 * 3-4 with a lane's vectors adjacent: here a warp takes one warp tile of groups and the grid covers
 * them all. Groups past rows / RR are taken by block 0, a row a thread. */
template <class Op, int K>
__global__ void __launch_bounds__(kBlock, kMinBlocks)
    row_pack_kernel(Op op, const void *in_, void *out_, int64_t rows, int64_t red_n)
{
    using T = typename Op::in_t;
    using A = typename Op::acc_t;
    using O = typename Op::out_t;
    using S = row_pack_shape<T, K>;
    constexpr int V = 16 / sizeof(T);
    const uint4 *in = static_cast<const uint4 *>(in_);
    O *out = static_cast<O *>(out_);
    const int64_t groups = rows / S::RR, stride = (int64_t)gridDim.x * blockDim.x;
    const int64_t nv = groups * S::RV;
    __shared__ uint4 s_pack[kBlock / 32][kWarpRunSlots<S::RV>];
    const int lane = threadIdx.x & 31;
    uint4 *sw = s_pack[threadIdx.x >> 5];

    for (int64_t g0 = (int64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31); g0 < groups;
         g0 += stride) {
        uint4 v[S::RV];
#pragma unroll
        for (int j = 0; j < S::RV; j++) {
            const int64_t q = g0 * S::RV + j * 32 + lane;
            if (q < nv)
                v[j] = load_vec(in + q);
        }
        warp_to_runs(v, sw, lane);
        const int64_t g = g0 + lane;
        if (g >= groups)
            continue;
        T e[S::RV * V];
        memcpy(e, v, sizeof v);
        O o[S::RR];
#pragma unroll
        for (int r = 0; r < S::RR; r++) {
            A acc = op.identity();
#pragma unroll
            for (int j = 0; j < K; j++)
                acc = fold_elem(op, acc, e[r * K + j], j);
            o[r] = op.finalize(acc, red_n);
        }
        O *po = out + g * S::RR;
        if (sizeof o % 16 == 0 && ((uintptr_t)po & 15u) == 0) {
#pragma unroll
            for (int q = 0; q < (int)(sizeof o / 16); q++) {
                uint4 w;
                memcpy(&w, reinterpret_cast<const char *>(o) + 16 * q, 16);
                store_stream(reinterpret_cast<uint4 *>(po) + q, w);
            }
        } else {
#pragma unroll
            for (int r = 0; r < S::RR; r++)
                store_stream(po + r, o[r]);
        }
    }
    if (blockIdx.x == 0) { /* rows past the last whole group */
        const T *src = static_cast<const T *>(in_);
        for (int64_t r = groups * S::RR + threadIdx.x; r < rows; r += blockDim.x) {
            A acc = op.identity();
            for (int j = 0; j < K; j++)
                acc = fold_elem(op, acc, src[r * K + j], j);
            out[r] = op.finalize(acc, red_n);
        }
    }
}

/* row_pack_kernel takes rows of up to this many bytes (16 for 8-byte elements: f64 rows of 3
 * read 3996 GB/s packed, 4085 tiled) whose pack spans at most kRowPackMaxVec vectors (f32 rows
 * of 5-7, f16 rows of 10, 12 and 14); the tile kernel the others. The tile kernel's per-row work
 * from shared memory was issue-bound there: f32 rows of 5 at 0.78-0.87 of the ceiling, 0.95 warp
 * instructions an element (H200, ncu). */
constexpr int kRowPackMaxBytes = 32;
constexpr int kRowPackMaxVec = 8;

/* Launches row_pack_kernel for rows of k elements if there is one (k = 2..kRowPackMaxBytes /
 * size, packs of at most kRowPackMaxVec vectors); false if not. A warp a warp tile of groups:
 * a block for every kBlock groups (the kernel strides past CUDA's 2^31 - 1 blocks). */
template <class Op, int K = 2>
bool launch_row_pack(const Op &op, int64_t k, const void *in, void *out, int64_t rows,
                     int64_t red_n, cudaStream_t stream)
{
    using T = typename Op::in_t;
    using S = row_pack_shape<T, K>;
    if constexpr (K * sizeof(T) > (sizeof(T) == 8 ? 16 : kRowPackMaxBytes)) {
        return false;
    } else if (k != K) {
        return launch_row_pack<Op, K + 1>(op, k, in, out, rows, red_n, stream);
    } else if constexpr (S::NV > kRowPackMaxVec) {
        return false;
    } else {
        int64_t grid = (rows / S::RR + kBlock - 1) / kBlock;
        grid = grid < 1 ? 1 : grid > INT32_MAX ? INT32_MAX : grid;
        row_pack_kernel<Op, K><<<(unsigned)grid, kBlock, 0, stream>>>(op, in, out, rows, red_n);
        return true;
    }
}

/* --- ROW_VEC: rows of G = 2..32 whole 16-byte vectors, contiguous ------------------------- */

/* A row here may also be one contiguous [R, NB] slab of a middle view [A, R, NB] whose NB
 * columns divide a vector or fill K = NB / V of them (K dividing kUnroll; the planner's 2), of up
 * to 32 * kUnroll vectors: element c of a slab's vector j is column (j % K) * V + c (c % NB where
 * NB divides V), so a lane folds its kUnroll consecutive vectors into NB accumulators and the
 * slab's lanes reduce each once a tile. [1048576, 64, 2] over 1 (f32) read 0.22 of the ceiling
 * as a column view of 4-byte loads; slabs of rows of 2 or 4 vectors (f32 [2097152, 16, 8], f64
 * [4194304, 8, 4] over 1), a warp a slab of 512 or 256 bytes, read 0.9 and 0.46 TB/s (H200). */

/* The V elements of vector v, whose first is element e0 of its slab, into the slab's NB columns:
 * element k into acc[k % NB], or acc[cb + k] where NB is K vectors (cb: the vector's first
 * column, (its index in the slab) % K * V, known at compile time), at reduction index
 * (e0 + k) / NB (its row). */
template <class Op, int NB>
__device__ __forceinline__ void fold_slab_vec(const Op &op, typename Op::acc_t (&acc)[NB],
                                              const uint4 &v, int64_t e0, int cb)
{
    using T = typename Op::in_t;
    constexpr int V = 16 / sizeof(T);
    T e[V];
    memcpy(e, &v, 16);
#pragma unroll
    for (int c = 0; c < V; c++) {
        const int k = NB > V ? cb + c : c % NB;
        acc[k] = fold_elem(op, acc[k], e[c], (e0 + c) / NB);
    }
}

/* A slab's NB columns held by an aligned group of w lanes (every lane of the warp calls it):
 * reduced together (group_reduce_rows: NB - 1 + log2(w / NB) shuffles a lane, not NB log2 w);
 * where `store` (the slab is in range), out[0..NB) = the results, each column by one lane. */
template <class Op, int NB>
__device__ __forceinline__ void finish_slab(const Op &op, typename Op::acc_t (&acc)[NB], int w,
                                            bool store, typename Op::out_t *out, int64_t red_n)
{
    const rows_reduced rr = group_reduce_rows<Op, NB>(op, acc, w, threadIdx.x & 31);
    if (store && rr.lead)
#pragma unroll
        for (int k = 0; k < NB; k++)
            if (k < rr.count)
                store_stream(out + rr.first + k, op.finalize(acc[k], red_n));
}

struct rowvec_args {
    const void *in;
    void *out;
    int64_t nvec;  /* rows * g vectors */
    int64_t tiles; /* warp tiles of 32 * kUnroll vectors */
    int64_t red_n;
    int g, log2g;
    int aligned; /* in is 16-byte aligned: vector loads; else element loads */
};

template <class Op, int NB = 1>
__global__ void __launch_bounds__(kBlock, kMinBlocks) row_vec_kernel(Op op, rowvec_args a)
{
    using T = typename Op::in_t;
    using A = typename Op::acc_t;
    constexpr int V = 16 / sizeof(T);
    const T *in = static_cast<const T *>(a.in);
    typename Op::out_t *out = static_cast<typename Op::out_t *>(a.out);
    const int lane = threadIdx.x & 31, gl = lane & (a.g - 1);
    const int64_t wpb = blockDim.x >> 5;
    const int64_t nwarps = (int64_t)gridDim.x * wpb;
    /* the vectors of warp tile tt (those past the end are left as they are) */
    auto load_tile = [&](int64_t tt, uint4(&v)[kUnroll]) {
        const int64_t base = tt * 32 * kUnroll + lane;
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            const int64_t i = base + u * 32;
            if (i < a.nvec)
                v[u] = load_vec_any(in + i * V, a.aligned);
        }
    };
    /* the next tile's loads go out before this tile's reduction (which is long for an operator
     * such as ArgMax), so a warp keeps its loads in flight while it computes */
    int64_t t = (int64_t)blockIdx.x * wpb + (threadIdx.x >> 5);
    uint4 next[kUnroll];
    if (t < a.tiles)
        load_tile(t, next);
    for (; t < a.tiles; t += nwarps) {
        const int64_t base = t * 32 * kUnroll + lane;
        uint4 v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            v[u] = next[u];
        if (t + nwarps < a.tiles)
            load_tile(t + nwarps, next);
        if constexpr (NB > 1) {
            /* slabs of NB columns: the tile passes through shared memory so that each lane
             * holds kUnroll consecutive vectors (lane * kUnroll + j of the tile), folds them into
             * its NB accumulators, and the g / kUnroll lanes of a slab (one for g <= kUnroll,
             * with kUnroll / g slabs a lane) reduce them once a tile. Folding each load's vector
             * with its own reduction across the slab's lanes cost 127 warp instructions a
             * warp-wide load for bf16 [2097152, 16, 4] (0.88 issued a cycle a scheduler, 0.80 of
             * the ceiling); lanes reading kUnroll vectors a slab apart read 32-byte pieces 128
             * bytes apart for slabs of 8 vectors (f32 [4194304, 16, 2] 3782 -> 3135 GB/s). */
            __shared__ uint4 s_slab[kBlock / 32][kWarpRunSlots<kUnroll>];
            warp_to_runs(v, s_slab[threadIdx.x >> 5], lane);
            const int64_t q0 = t * 32 * kUnroll + (int64_t)lane * kUnroll;
            /* a lane's vectors s0 .. s0 + per - 1 are one slab's (per = g or kUnroll, powers of
             * two); slabs are whole groups of g vectors, each all in range or all out */
            const int per = a.g < kUnroll ? a.g : kUnroll;
#pragma unroll
            for (int s0 = 0; s0 < kUnroll; s0++) {
                if ((s0 & (per - 1)) != 0)
                    continue;
                A acc[NB];
#pragma unroll
                for (int c = 0; c < NB; c++)
                    acc[c] = op.identity();
                const bool in_range = q0 + s0 < a.nvec;
                /* q0 and s0 are multiples of per, which K divides: vector j's first column
                 * is j % K * V */
                constexpr int K = NB > V ? NB / V : 1;
                static_assert(kUnroll % K == 0, "slab rows of K vectors, K dividing kUnroll");
#pragma unroll
                for (int j = 0; j < kUnroll; j++)
                    if (j >= s0 && j < s0 + per && in_range)
                        fold_slab_vec<Op, NB>(op, acc, v[j], ((q0 + j) & (a.g - 1)) * V, j % K * V);
                finish_slab<Op, NB>(op, acc, a.g / per, in_range, out + ((q0 + s0) >> a.log2g) * NB,
                                    a.red_n);
            }
            continue;
        }
        if constexpr (NB == 1 && !has_group_vec<Op>::value) {
            /* the tile's kUnroll rows of a group together (rows are whole groups of g lanes: a
             * group is all in range or all out): 3 + log2(g / 4) shuffles a lane, not
             * 4 * log2(g) */
            A acc[kUnroll];
#pragma unroll
            for (int u = 0; u < kUnroll; u++)
                acc[u] = base + u * 32 < a.nvec ? fold_vec(op, op.identity(), v[u], (int64_t)gl * V)
                                                : op.identity();
            const rows_reduced rr = group_reduce_rows<Op, kUnroll>(op, acc, a.g, lane);
#pragma unroll
            for (int k = 0; k < kUnroll; k++) {
                const int64_t i = base + (rr.first + k) * 32;
                if (k < rr.count && rr.lead && i < a.nvec)
                    store_stream(out + (i >> a.log2g), op.finalize(acc[k], a.red_n));
            }
        } else if constexpr (NB == 1) {
#pragma unroll
            for (int u = 0; u < kUnroll; u++) {
                const int64_t i = base + u * 32;
                /* rows are whole groups of g lanes: a group is all in range or all out */
                T e[V];
                memcpy(e, &v[u], 16);
                const A acc = op.group_vec(e, (int64_t)gl * V, a.g);
                if (gl == 0 && i < a.nvec)
                    store_stream(out + (i >> a.log2g), op.finalize(acc, a.red_n));
            }
        }
    }
}

/* --- the outer view [A, R, B], B contiguous ------------------------------------------------- */

struct outer_args {
    const void *in;
    void *out;
    int64_t a, r, b;
    int64_t a_stride, r_stride; /* elements */
    int64_t r1, r1_stride;      /* R1 < 2^31 slabs [A, R, B] reduced too (1, 0: none) */
    int64_t red_n;
    int bx;           /* threads across B (a power of two); by = blockDim / bx across rows */
    int64_t tiles;    /* column tiles of bx * VEC per A index */
    int64_t split;    /* slices of the r1 * r rows of a column: each is `slabs` whole slabs, or
                         (with slabs == 1) `rows` rows of one slab */
    int64_t rows;     /* rows of a slab per slice */
    int64_t slabs;    /* slabs per slice */
    int64_t per_slab; /* slices of one slab: ceil(r / rows) */
    int warp_units;   /* a warp a unit (split 1; bx < 32, or 32 over few rows), else a block */
    int tiles_first;  /* units in the order (slice, tile), else (tile, slice) */
    int64_t whole;    /* PH: units 0 .. whole - 1 are tiles 0 .. whole - 1, every row, written
                         out directly; the tiles after them are split (units after whole) */
    int64_t units;    /* whole + (a * tiles - whole) * split */
    void *partials;
    unsigned *counters;
    /* super-rows (SUP, the planner's ranges 3): [A, R, B] is the view of rows of sk rows of ob
     * columns (b = sk * ob), `left` rows of them after the last; the tiles' results go to fold_y
     * ([a][b]), and each chunk of kFoldCols output columns is folded by the tile that completes
     * it (fold_counters: a counter a chunk, a * ceil(ob / kFoldCols) of them) */
    int64_t sk, ob, left;
    void *fold_y;
    unsigned *fold_counters;
};

/* Output columns of a chunk of super-rows' fold: a block's threads, one column each */
constexpr int kFoldCols = OPNN_CUDA_SUPER_FOLD_COLS;
/* The most rows a super-row of T holds (the planner's k: 16 bytes of elements at most). With
 * room for 16 (32-byte super-rows), the f32 kernel spilled 88 bytes, and super-rows of 4 ran
 * 2-7% slower: f16 [100001, 2501] over 0 138 us against 129 (H200) */
template <class T> constexpr int super_max_k()
{
    return 16 / (int)sizeof(T);
}

/* What the fold of super-rows needs, in the outer kernel's shared memory (filled by its thread
 * 0), so that the call that folds takes one argument more than combine_columns */
struct super_fold {
    void *y; /* the tiles' results, unfinalized ([a][b]) */
    const void *in;
    void *out;
    int64_t a_stride, b, ob, rf, red_n;
    int sk, left, nch;       /* nch: chunks of kFoldCols output columns a slab */
    unsigned *counters;      /* a chunk's pieces that have arrived ([a][nch]) */
    unsigned long long done; /* the chunks the block's tile completed (bit c) */
};

/* Chunk c of slab ai of a super-row plan's end: out[ai][i] = finalize(y[ai][i] op y[ai][i + ob]
 * op ... op y[ai][i + (sk - 1) * ob] op the `left` rows from rf on), each in that order, for
 * the chunk's columns i (y: [a][b]; in: slab ai at ai * a_stride). A thread a column, its sk
 * results and `left` elements in flight together. */
template <class Op>
__device__ __noinline__ void fold_super_rows(Op op, const super_fold *f, int64_t ai, int c)
{
    using T = typename Op::in_t;
    using A = typename Op::acc_t;
    constexpr int KMAX = super_max_k<T>(); /* the most rows of a super-row */
    const int64_t ob = f->ob, rf = f->rf;
    const A *y = static_cast<const A *>(f->y) + ai * f->b;
    const T *in = static_cast<const T *>(f->in) + ai * f->a_stride + rf * ob;
    typename Op::out_t *out = static_cast<typename Op::out_t *>(f->out) + ai * ob;
    const int sk = f->sk, left = f->left;
    const int64_t end = min((int64_t)(c + 1) * kFoldCols, ob);
    for (int64_t i = (int64_t)c * kFoldCols + threadIdx.x; i < end; i += blockDim.x) {
        A x[KMAX];
        T e[KMAX - 1];
#pragma unroll
        for (int j = 0; j < KMAX; j++)
            if (j < sk)
                x[j] = load_cg(y + j * ob + i);
#pragma unroll
        for (int j = 0; j < KMAX - 1; j++)
            if (j < left)
                e[j] = in[j * ob + i];
        A v = x[0];
#pragma unroll
        for (int j = 1; j < KMAX; j++)
            if (j < sk)
                v = op.combine(v, x[j]);
#pragma unroll
        for (int j = 0; j < KMAX - 1; j++)
            if (j < left)
                v = fold_elem(op, v, e[j], rf + j);
        out[i] = op.finalize(v, f->red_n);
    }
}

/* The accumulators a 16-byte load of partials holds (1 where they do not divide 16) */
template <class A> constexpr int combine_vec()
{
    return 16 % sizeof(A) == 0 ? 16 / sizeof(A) : 1;
}

/* The last block of a column tile's split: out[c] = finalize(parts[0][c] op parts[1][c] op ...)
 * for the tile's ncols columns, slices in order. A thread takes CV columns a load (16 bytes)
 * and every J-th slice, D loads in flight (below); J (threads a column group) is what gives
 * each thread about D slices, then a tree over the J in order. This is the tail of
 * the launch, bound by round trips to L2: one 4-byte load at a time took 127 in a row for
 * [4194304, 64] over 0 (507 slices of 64 columns, 2 threads a column): 268 us against 248 us
 * (H200). Not inlined: inlined, the column kernels' 48-63 registers became 64 and middles with
 * no split at all ran slower ([131072, 256, 8] f16 over 1: 146.2 us against 133.9 before and
 * 132.2 not inlined; [8, 4096, 64, 128] over (0, 2): 250.4, 245.7, 242.4). s holds blockDim *
 * VEC accumulators. */
template <class Op, int VEC, bool RAW>
__device__ __forceinline__ void
combine_columns_into(Op op, const typename Op::acc_t *parts, int64_t W, int64_t split,
                     typename Op::acc_t *s, typename Op::out_t *out, typename Op::acc_t *raw,
                     int64_t ncols, int64_t red_n)
{
    using A = typename Op::acc_t;
    constexpr int CV = combine_vec<A>() <= VEC ? combine_vec<A>() : 1;
    /* loads in flight a thread: half as many for accumulators of 8 bytes or more (at 8 a round
     * the f64 Max/Min kernels spilled 8-24 bytes, ptxas); RAW (the super-rows' kernels,
     * 80 registers) at 8 */
    constexpr int D = sizeof(A) >= 8 && !RAW ? kCombineDepth / 2 : kCombineDepth;
    const int64_t groups = W / CV, cols = min(groups, (int64_t)blockDim.x);
    int J = 1; /* a power of two, at most blockDim / cols */
    while (2 * J * cols <= (int64_t)blockDim.x && (int64_t)J * D < split)
        J *= 2;
    const int cj = threadIdx.x % (int)cols, jj = threadIdx.x / (int)cols;
    for (int64_t c0 = 0; c0 < groups; c0 += cols) {
        const int64_t cl = (c0 + cj) * CV; /* the group's first column */
        A v[CV];
#pragma unroll
        for (int e = 0; e < CV; e++)
            v[e] = op.identity();
        /* D slices a round, the last round's loads past the split clamped to its last slice
         * (issued, not combined): a split of 4 slices took them one at a time, [1024, 4096]
         * over 0 (f32) 13.3 us against 12.8-13.0, f64 [1000, 4096] 16.2 against 15.8 (H200).
         * RAW (the super-rows' kernel) so too: whole rounds, then the rest one at a time, made
         * f16 [100001, 2501] over 0 (5 slices, 5 loads in a row) 0.3-0.8 us slower (H200) */
        int64_t sl = jj < J ? jj : split; /* threads past J * cols idle */
        for (; sl < split; sl += D * J) {
            A x[D][CV];
#pragma unroll
            for (int d = 0; d < D; d++)
                load_cg_n(parts + min(sl + d * J, split - 1) * W + cl, x[d]);
#pragma unroll
            for (int d = 0; d < D; d++)
                if (sl + d * J < split)
#pragma unroll
                    for (int e = 0; e < CV; e++)
                        v[e] = op.combine(v[e], x[d][e]);
        }
        if (J > 1) {
            A *sj = s + (jj * cols + cj) * CV;
            if (jj < J)
#pragma unroll
                for (int e = 0; e < CV; e++)
                    sj[e] = v[e];
            __syncthreads();
            for (int h = J / 2; h > 0; h /= 2) {
                if (jj < h)
#pragma unroll
                    for (int e = 0; e < CV; e++)
                        sj[e] = op.combine(sj[e], sj[h * cols * CV + e]);
                __syncthreads();
            }
#pragma unroll
            for (int e = 0; e < CV; e++)
                v[e] = s[cj * CV + e];
            __syncthreads();
        }
        if (jj == 0)
#pragma unroll
            for (int e = 0; e < CV; e++)
                if (cl + e < ncols) {
                    if constexpr (RAW)
                        raw[cl + e] = v[e];
                    else
                        out[cl + e] = op.finalize(v[e], red_n);
                }
    }
}

/* combine_columns_into, with 16-byte loads of the partials where WIDE (the caller's choice) when
 * W is a multiple of them and the split more than a round of single loads. With one float a
 * load, the last block of [3000000, 255] over 0 (f16, 507 slices of 256 columns) took its slices
 * in 64 round trips to L2, 8 loads each: 367 us against 352 (H200). s holds blockDim * 16 bytes
 * where WIDE. */
template <class Op, int VEC, bool WIDE = false>
__device__ __noinline__ void combine_columns(Op op, const typename Op::acc_t *parts, int64_t W,
                                             int64_t split, typename Op::acc_t *s,
                                             typename Op::out_t *out, int64_t ncols, int64_t red_n)
{
    constexpr int CW = combine_vec<typename Op::acc_t>();
    if constexpr (WIDE && VEC < CW)
        if (W % CW == 0 && ((uintptr_t)parts & 15u) == 0 &&
            split * W > (int64_t)blockDim.x * kCombineDepth) {
            combine_columns_into<Op, CW, false>(op, parts, W, split, s, out, nullptr, ncols, red_n);
            return;
        }
    combine_columns_into<Op, VEC, false>(op, parts, W, split, s, out, nullptr, ncols, red_n);
}

/* Super-rows: the tile's combined results (super-columns col0 .. col0 + ncols - 1 of y, [a][b]),
 * unfinalized; then the chunks they complete are folded. Piece (j, c) of chunk c is sub-row j's
 * columns j * ob + [c * F, min((c + 1) * F, ob)) (F = kFoldCols); chunk c's counter counts, for
 * each piece, the tiles that hold part of it, and the block that brings it to its total folds
 * the chunk. One block folding all of them after the last tile took 6-10 us for 2501 columns
 * (f16 [100001, 2501] over 0, H200): round trips to L2 and DRAM, ten a thread. */
template <class Op, int VEC>
__device__ __noinline__ void combine_columns_fold(Op op, const typename Op::acc_t *parts, int64_t W,
                                                  int64_t split, typename Op::acc_t *s,
                                                  int64_t col0, int64_t ncols, super_fold *f)
{
    using A = typename Op::acc_t;
    combine_columns_into<Op, VEC, true>(op, parts, W, split, s, nullptr,
                                        static_cast<A *>(f->y) + col0, ncols, 0);
    const int64_t b = f->b, ob = f->ob, ai = udiv(col0, b), t0 = col0 - ai * b, t1 = t0 + ncols;
    const int sk = f->sk, nch = f->nch;
    /* the previous unit's readers of done passed this unit's arrive_last since */
    if (threadIdx.x == 0)
        f->done = 0;
    /* the barrier orders the block's results before each count's acquire-release add, and the
     * folds' reads after those that complete a chunk (as arrive_last does; fences in every
     * thread around relaxed adds cost 0.3-0.6 us a launch, H200) */
    __syncthreads();
    for (int q = threadIdx.x; q < sk * nch; q += blockDim.x) {
        const int j = q / nch, c = q - j * nch;
        const int64_t lo = (int64_t)c * kFoldCols, hi = min(lo + kFoldCols, ob);
        if (j * ob + lo >= t1 || j * ob + hi <= t0)
            continue;
        unsigned total = 0; /* tiles across each piece of the chunk */
        for (int i = 0; i < sk; i++)
            total += (unsigned)(udiv(i * ob + hi - 1, W) - udiv(i * ob + lo, W) + 1);
        unsigned *cnt = f->counters + ai * nch + c;
        if (add_acq_rel(cnt, 1u) == total - 1) {
            atomicExch(cnt, 0u); /* for the next launch */
            atomicOr(&f->done, 1ull << c);
        }
    }
    __syncthreads();
    for (unsigned long long done = f->done; done; done &= done - 1)
        fold_super_rows(op, f, ai, __ffsll((long long)done) - 1);
}

/* STG keeps an accumulator a lane of a 16-byte vector: at most 8 words of them (ArgMax's
 * (value, index) of 8 halves spilled); single elements otherwise */
template <class Op> constexpr bool stg_ok()
{
    return 16 / sizeof(typename Op::in_t) * sizeof(typename Op::acc_t) <= 32;
}

/* a's bytes where m's are 0, b's where they are set */
__device__ __forceinline__ uint4 merge_bytes(uint4 a, uint4 b, uint4 m)
{
    return make_uint4((a.x & ~m.x) | (b.x & m.x), (a.y & ~m.y) | (b.y & m.y),
                      (a.z & ~m.z) | (b.z & m.z), (a.w & ~m.w) | (b.w & m.w));
}

/* The outer kernel's PH, lane 0 of a row: the vectors at q, q + step, ... (N of them, the last
 * repeated from index `last` on) copied into next[1 .. N] by cp.async (issued before the row's
 * own loads, so that their addresses are not held with those loads' registers: 56 bytes
 * spilled so, f16), */
template <int N, class T>
__device__ __forceinline__ void fetch_next(uint4 *next, const T *q, int64_t step, int last)
{
#pragma unroll
    for (int u = 0; u < N; u++) {
        cp_async16(next + 1 + u, q);
        if (u < last)
            q += step;
    }
    cp_async_commit();
}

/* then their bytes under the mask next[0] merged into x[0 .. N - 1] */
template <int N, int VEC, class T>
__device__ __forceinline__ void merge_next(T (&x)[N][VEC], const uint4 *next)
{
    static_assert(VEC * sizeof(T) == 16, "16-byte items");
    cp_async_wait<0>();
    const uint4 mask = next[0];
#pragma unroll
    for (int u = 0; u < N; u++) {
        uint4 v;
        memcpy(&v, x[u], 16);
        v = merge_bytes(v, next[1 + u], mask);
        memcpy(x[u], &v, 16);
    }
}

/* SUP kernels are compiled for 3 blocks an SM (the planner sizes their waves so): at 4, within 64
 * registers, the f16 kernel spilled and issued its 16-byte loads one at a time, f16 [100001,
 * 2501] over 0 163 us against 136 for bf16 (H200).
 *
 * PH (the planner's OPNN_CUDA_SHIFT_RANGES): rows that start off 16 bytes, each read as the aligned
 * 16-byte vectors that cover it. BX (32 or 16) lanes take a row at a time and their rows are BY
 * apart, BY * size a multiple of 16, so every row of theirs starts at the same phase ph (elements
 * past 16 bytes): lane x's vector holds columns c0 - ph + x * VEC + e of its rows, tile column
 * x * VEC + e - ph. A tile is W - VEC columns, which the W columns read cover at any phase (the
 * columns outside it are dropped), or (exact) W: the BX vectors then miss the tile's last ph
 * columns and hold ph of the previous tile's, so lane 0 also takes the vector after them (W
 * columns on, through shared memory by cp.async: in registers, the f16 kernel's 8 loads in flight
 * would have needed 32 more than its 80) and puts its first ph elements in place of its own
 * vector's, which makes its element e < ph tile column W - ph + e. The block's tree adds the
 * rows' accumulators by column. Exact tiles are fewer (f16 [32, 1001, 2001] over 1: 8 a slab at a
 * warp a row rather than 9) but cost lane 0's extra copies every round (the planner weighs the
 * two). Only the view's first and last vectors can reach outside it: those two rows are read
 * element by element. */
template <class Op, int VEC, bool EXT, bool STG = false, bool SUP = false, bool PH = false,
          bool PX = false, int DEPTH = 1>
__global__ void __launch_bounds__(kBlock, DEPTH > 1   ? 2
                                          : SUP || PH ? min_blocks<Op>(kMinBlocksInner)
                                                      : min_blocks<Op>(kMinBlocks))
    outer_kernel(Op op, outer_args p)
{
    using T = typename Op::in_t;
    using A = typename Op::acc_t;
    /* PH: 16-byte items, one slab a unit (its first and last rows are folded once, outside the
     * slab loop) */
    static_assert(!PH || (VEC * sizeof(T) == 16 && !EXT && !STG && !SUP), "PH: 16-byte items");
    static_assert(PH || !PX, "PX: exact tiles of PH");
    static_assert(DEPTH == 1 || (VEC * sizeof(T) == 16 && !EXT && !STG && !SUP && !PH),
                  "DEPTH: the plain kernel's 16-byte items");
    static_assert(OPNN_CUDA_SHIFT_RANGES > 3 && OPNN_CUDA_SHIFT_RANGES != OPNN_CUDA_UNROLL,
                  "PH: a ranges value of its own");
    /* separate accumulators per load slot keep the per-column chains short, within 64
     * registers: at most 16 words of accumulators a thread (8 for 8-byte ones, whose loads take
     * twice the registers, and in the slab loop: 16 spilled to local memory there) */
    constexpr int ACC_BYTES = sizeof(A) >= 8 || EXT ? 8 * 4 : 16 * 4;
    /* loads in flight a thread: kUnroll of 8 or 16 bytes, 16 of 4 or 2 (rows 4 or 2 bytes off
     * 16). A float a load, [100001, 2501] over 0 315 -> 275 us with 16 (H200); 32 was 4-7%
     * slower than 16 on every odd column shape tried, and 8 loads of 8-byte items 3-5% slower
     * than 4 (f32 [100000, 2502] 245 against 233-236 us). PH: 2 * kUnroll 16-byte loads at 3
     * blocks an SM (4 loads at 4 blocks read f16 [64, 2001, 1001] over 1 in 74.3 us, 8 at 3 in
     * 67.1-68.3, H200), 2 sets of accumulators at most (the f32 kernels spilled 8 bytes with
     * 4); PX one set: with lane 0's vectors after the tile, 2 sets spilled 16-40 bytes (f16,
     * f32, f64 Mean, bf16 Prod; ptxas at 80 registers). DEPTH 2 (the planner's 2 * kUnroll:
     * blocks a unit of 16-byte loads, few of them an SM): 2 * kUnroll at 2 blocks an SM */
    constexpr int ITEM = VEC * (int)sizeof(T);
    constexpr int U = PH ? 2 * kUnroll : EXT || ITEM >= 8 ? kUnroll * DEPTH : 16;
    constexpr int NACC = PX                                              ? 1
                         : ACC_BYTES / (VEC * (int)sizeof(A)) >= kUnroll ? kUnroll
                         : ACC_BYTES / (VEC * (int)sizeof(A)) >= 2       ? 2
                                                                         : 1;
    __shared__ __align__(16) unsigned char s_raw[kBlock * VEC * sizeof(A)];
    __shared__ int s_last;
    /* PH: the mask of the bytes a row of lanes' lane 0 takes from the vectors after the tile (in
     * registers, the f16 kernel spilled 56 bytes), then a round's vectors */
    __shared__ uint4 s_next[PX ? kBlock / kShiftMinLanes : 1][PX ? U + 1 : 1];
    /* STG: a thread's accumulators a lane of its vectors, for the columns' tree */
    __shared__ __align__(16) unsigned char s_slot[STG ? kBlock * 16 / sizeof(T) * sizeof(A) : 16];
    A *s = reinterpret_cast<A *>(s_raw);
    const T *in = static_cast<const T *>(p.in);
    typename Op::out_t *out = static_cast<typename Op::out_t *>(p.out);
    /* warp_units: each warp takes units of its own (BY = 32 / BX rows, no block tree) */
    const bool WU = EXT && p.warp_units;
    const int BX = p.bx, BY = WU ? 32 / BX : (int)blockDim.x / BX;
    const int tx = threadIdx.x & (BX - 1), ty = (WU ? threadIdx.x & 31 : threadIdx.x) / BX;
    /* columns read, columns of a tile (PH: a vector fewer unless exact) */
    const int64_t W = (int64_t)BX * VEC, WT = PH && !PX ? W - VEC : W;
    const int64_t u0 =
        WU ? (int64_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5) : (int64_t)blockIdx.x;
    const int64_t ustep = WU ? (int64_t)gridDim.x * (blockDim.x >> 5) : (int64_t)gridDim.x;
    /* super-rows: what the fold needs (read after arrive_last's __syncthreads) */
    __shared__ super_fold s_fold;
    if constexpr (SUP)
        if (threadIdx.x == 0)
            s_fold = {p.fold_y,
                      p.in,
                      p.out,
                      p.a_stride,
                      p.b,
                      p.ob,
                      p.r * p.sk,
                      p.red_n,
                      (int)p.sk,
                      (int)p.left,
                      (int)((p.ob + kFoldCols - 1) / kFoldCols),
                      p.fold_counters,
                      0};

    for (int64_t unit = u0; unit < p.units; unit += ustep) {
        /* PH: the first `whole` tiles unsplit, then the split ones' (tile, slice) units */
        const bool whole = PH && unit < p.whole;
        const int64_t w0 = PH ? p.whole : 0, su = unit - w0;
        int64_t t, slice;
        if (whole) {
            t = unit;
            slice = 0;
        } else if (p.tiles_first) {
            slice = udiv(su, p.a * p.tiles - w0);
            t = w0 + su - slice * (p.a * p.tiles - w0);
        } else {
            t = w0 + (EXT && p.split == 1 ? su : udiv(su, p.split));
            slice = su - (t - w0) * p.split;
        }
        /* (EXT: no division where the divisor is 1: warp units of one-tile middles, a unit a
         * 4 KB slab, spent three 32-bit divisions a unit. Not in the other kernels: the f32 exact
         * shift kernels then spilled 4 bytes, and f16 super-rows ran 4-7% slower, H200) */
        const int64_t ai = EXT && p.tiles == 1 ? t : udiv(t, p.tiles), tile = t - ai * p.tiles;
        const int64_t b0 = tile * W + (int64_t)tx * VEC;
        /* slabs and warp units in a separate instantiation (EXT): they cost 3-5 registers, and
         * the 64 a thread of 4 blocks an SM then spilled */
        const int64_t sq = EXT ? (p.per_slab == 1 ? slice : udiv(slice, p.per_slab)) : 0;
        const int64_t piece = slice - sq * p.per_slab;
        const int64_t s_lo = sq * p.slabs, s_hi = EXT ? min(p.r1, s_lo + p.slabs) : 1;
        const int64_t r_lo = piece * p.rows, r_hi = whole ? p.r : min(p.r, r_lo + p.rows);
        /* SUP: the reduction index of super-row r's element e is the row of the sk that holds
         * column b0 + e (jx of them before b0's, the next from e == jb); only ops that take
         * indices keep it */
        const int64_t jx = SUP ? b0 / p.ob : 0, jb = SUP ? (jx + 1) * p.ob - b0 : VEC;
        A acc[NACC][VEC];
#pragma unroll
        for (int i = 0; i < NACC; i++)
#pragma unroll
            for (int e = 0; e < VEC; e++)
                acc[i][e] = op.identity();

        /* the slabs s_lo..s_hi-1; slab s's rows have reduction indices s * r + row */
        const T *col = in + ai * p.a_stride + s_lo * p.r1_stride + b0;
        int64_t ri = s_lo * p.r;
        auto rix = [&](int64_t r, int e) -> int64_t {
            if constexpr (SUP)
                return r * p.sk + jx + (e >= jb);
            else
                return ri + r;
        };
        /* the rows read as whole items: ra, ra + BY, ... before rb, where act; PH: at phase
         * ph, where the lane's vector holds some of the tile's columns */
        int64_t ra = r_lo + ty, rb = r_hi;
        int ph = 0;
        bool act = b0 + VEC <= p.b;
        /* PH: lane 0 takes the vector after the tile's too (nx), where it holds tile columns;
         * the bytes of its first ph elements (mask) replace those of the lane's own vector */
        bool nx = false;
        uint4 *next = &s_next[0][0];
        if constexpr (PH) {
            const T *row0 = in + ai * p.a_stride + tile * WT; /* the tile's first column */
            ph = (int)(((uintptr_t)(row0 + ra * p.r_stride) & 15u) / sizeof(T));
            col = row0 - ph + tx * VEC;
            act = tile * WT - ph + tx * VEC < p.b && (PX || tx * VEC - ph < WT) && ra < r_hi;
            nx = PX && act && tx == 0 && ph > 0 && tile * W + W - ph < p.b;
            if constexpr (PX)
                next = &s_next[ty][0];
            const int nb = ph * (int)sizeof(T);
            unsigned m[4];
#pragma unroll
            for (int i = 0; i < 4; i++)
                m[i] = nb >= 4 * i + 4 ? ~0u : nb <= 4 * i ? 0u : (1u << 8 * (nb - 4 * i)) - 1;
            const uint4 mask = make_uint4(m[0], m[1], m[2], m[3]);
            if (PX && tx == 0)
                next[0] = mask;
            if (act) {
                /* the view's first and last rows, read by elements where a vector reaches
                 * outside [in, hi): the others (zeros) fall in columns outside the tile */
                const T *hi = in + (p.a - 1) * p.a_stride + (p.r - 1) * p.r_stride + p.b;
                const int64_t rl = ra + (r_hi - 1 - ra) / BY * BY; /* the thread's last row */
                int64_t edge[2] = {-1, -1};
                if (col + ra * p.r_stride < in) {
                    edge[0] = ra;
                    ra += BY;
                }
                if ((nx ? col + W : col) + rl * p.r_stride + VEC > hi && rl >= ra) {
                    edge[1] = rl;
                    rb = rl;
                }
                for (int k = 0; k < 2; k++)
                    if (edge[k] >= 0) {
                        uint4 v = load_vec_within(col + edge[k] * p.r_stride, in, hi);
                        if (nx)
                            v = merge_bytes(
                                v, load_vec_within(col + W + edge[k] * p.r_stride, in, hi), mask);
                        T x[VEC];
                        memcpy(x, &v, 16);
#pragma unroll
                        for (int e = 0; e < VEC; e++)
                            acc[0][e] = fold_elem(op, acc[0][e], x[e], rix(edge[k], e));
                    }
            }
        }
        if constexpr (STG) {
            /* contiguous rows of b elements that start off 16 bytes, few columns: the slab's
             * rows are one run of elements [e0, e1), read as the aligned 16-byte vectors that
             * cover it. The split's S slices interleave: thread t < NT of slice s takes vectors
             * g, g + S * NT, g + 2 * S * NT, ... (g = s * NT + t), and NT * V is a multiple of
             * b, so lane j of every vector it takes holds the same column, (t * V + j - h) mod b
             * (h: the elements of vector 0 before e0); it keeps an accumulator a lane. The two
             * end vectors, which may hold other rows' elements or reach past the tensor, are
             * folded last, element by element. A thread a column folding rows from 16 KB
             * chunks staged through shared memory read f16 [2097152, 49] over 0 at 0.63 of the
             * ceiling and [8388608, 17] at 0.85 (H200), bound by its instructions; slices of
             * whole rows, a block each, left the SMs idle 13% of the time ([4194304, 49], ncu):
             * the blocks did not finish together. */
            constexpr int V = 16 / sizeof(T);
            const int nb = (int)p.b;
            const int per = nb / min(V, nb & -nb); /* b / gcd(b, V): odd (b is off 16 bytes) */
            /* NT a multiple of 8 * per where that keeps 7/8 of the block: each warp's 32 vectors
             * then start on a 128-byte line (where the run's first vector does). The access
             * pattern alone (bench/run_probe.cu, 507 blocks, H200): f32 [33554432, 3] over 0
             * 92.7 us at NT 240 against 94.0 at 255; f16 [22369621, 3] 35.2 against 35.1 */
            const int NT8 = (int)blockDim.x / (8 * per) * (8 * per);
            const int NT = 8 * NT8 >= 7 * (int)blockDim.x ? NT8 : (int)blockDim.x / per * per;
            const int t = threadIdx.x;
            const int step = (int)p.split * NT,
                      rs = step / per * (V * per / nb); /* vectors, rows */
            const T *e0 = in + ai * p.a_stride, *e1 = e0 + p.r * p.b;
            const uintptr_t q0 = (uintptr_t)e0 & ~(uintptr_t)15;
            const uint4 *qv = reinterpret_cast<const uint4 *>(q0);
            const int64_t nv = (int64_t)(((uintptr_t)e1 - q0 + 15) >> 4), g = slice * NT + t;
            const int h = (int)(((uintptr_t)e0 & 15u) / sizeof(T));
            const int c0 = ((t * V - h) % nb + nb) % nb;
            const int64_t rw = (g * V - h - c0) / nb; /* the row of lane 0's element in vector g */
            A fa[V];
#pragma unroll
            for (int j = 0; j < V; j++)
                fa[j] = op.identity();
            /* lane j's element is in row `row` + (c0 + j) / b: counted, not divided (only ops
             * that take indices keep it); lanes that keep(j) rejects are not folded */
            auto fold_lanes = [&](const uint4 &v, int64_t row, auto keep) {
                T x[V];
                memcpy(x, &v, 16);
                int c = c0;
#pragma unroll
                for (int j = 0; j < V; j++) {
                    if (keep(j))
                        fa[j] = fold_elem(op, fa[j], x[j], row);
                    if (++c == nb) {
                        c = 0;
                        row++;
                    }
                }
            };
            const auto every = [](int) { return true; };
            if (t < NT) {
                /* the vectors between the two ends, UV a round in flight (8 were no faster
                 * than 4 for floats: [8388608, 17] over 0 141.9 us against 141.2, H200); the
                 * last round's loads clamped to the last of them and not folded past it */
                constexpr int UV = kUnroll;
                const uint4 *pv = qv + (g == 0 ? step : g), *pe = qv + nv - 1;
                int64_t row = g == 0 ? rw + rs : rw;
                for (; pv + (UV - 1) * step < pe; pv += UV * step, row += UV * rs) {
                    uint4 v[UV];
#pragma unroll
                    for (int u = 0; u < UV; u++)
                        v[u] = load_vec(pv + u * step);
#pragma unroll
                    for (int u = 0; u < UV; u++)
                        fold_lanes(v[u], row + u * rs, every);
                }
                if (pv < pe) {
                    uint4 v[UV - 1];
#pragma unroll
                    for (int u = 0; u < UV - 1; u++)
                        v[u] = load_vec(pv + u * step < pe ? pv + u * step : pe - 1);
#pragma unroll
                    for (int u = 0; u < UV - 1; u++)
                        if (pv + u * step < pe)
                            fold_lanes(v[u], row + u * rs, every);
                }
                /* the end vectors, by their threads: only elements within [e0, e1) */
                for (int end = 0; end < 2; end++) {
                    const int64_t k = end ? nv - 1 : 0;
                    if (nv > 0 && (end == 0 || nv > 1) && k % step == g) {
                        const T *q = reinterpret_cast<const T *>(qv + k);
                        fold_lanes(load_vec_within(q, e0, e1), rw + k / step * rs,
                                   [&](int j) { return q + j >= e0 && q + j < e1; });
                    }
                }
            }
            /* lane j of thread t is slot t * V + j; column c's slots are (c + h) mod b + k * b
             * (k < NT * V / b), and thread (c, ty) takes k = ty, ty + BY, ... in order (the rows'
             * tree below then combines the BY threads of a column) */
            A *slot = reinterpret_cast<A *>(s_slot);
            __syncthreads(); /* the last unit's readers are done */
            if (t < NT)
#pragma unroll
                for (int j = 0; j < V; j++)
                    slot[t * V + j] = fa[j];
            __syncthreads();
            if (tx < nb)
                for (int k = ty, q = (tx + h) % nb + ty * nb; k < NT * V / nb;
                     k += BY, q += BY * nb)
                    acc[0][0] = op.combine(acc[0][0], slot[q]);
        } else
            for (int ns = (int)(s_hi - s_lo); ns > 0; ns--, col += p.r1_stride, ri += p.r) {
                if constexpr (PX) {
                    if (act) {
                        /* the thread's rows ra, ra + BY, ... below rb (one phase), nr of them,
                         * U a round, the last round's loads repeating its last row (by a pointer
                         * stepped while below it: a tail round of its own, with rows clamped by
                         * products, spilled 40 bytes in the f32 kernel); lane 0's vectors after
                         * the tile alongside. The rows are counted once: a 64-bit division a
                         * round made f16 [250000, 259] over 0 22% slower (H200) */
                        const int64_t step = BY * p.r_stride,
                                      nr = ra < rb ? udiv(rb - 1 - ra, BY) + 1 : 0;
                        const T *row = col + ra * p.r_stride;
                        for (int64_t k = 0; k < nr; k += U, row += U * step) {
                            const int last = (int)min((int64_t)U - 1, nr - 1 - k);
                            if (nx)
                                fetch_next<U>(next, row + W, step, last);
                            T x[U][VEC];
                            const T *q = row;
#pragma unroll
                            for (int u = 0; u < U; u++) {
                                load_items<VEC>(q, x[u]);
                                if (u < last)
                                    q += step;
                            }
                            if (nx)
                                merge_next(x, next);
#pragma unroll
                            for (int u = 0; u < U; u++)
                                if (u <= last)
#pragma unroll
                                    for (int e = 0; e < VEC; e++)
                                        acc[u % NACC][e] = fold_elem(op, acc[u % NACC][e], x[u][e],
                                                                     rix(ra + (k + u) * BY, e));
                        }
                    }
                } else if (act) {
                    int64_t r = ra;
                    for (; r + (U - 1) * BY < rb; r += U * BY) {
                        T x[U][VEC];
#pragma unroll
                        for (int u = 0; u < U; u++)
                            load_items<VEC, (DEPTH > 1)>(col + (r + u * BY) * p.r_stride, x[u]);
#pragma unroll
                        for (int u = 0; u < U; u++)
#pragma unroll
                            for (int e = 0; e < VEC; e++)
                                acc[u % NACC][e] =
                                    fold_elem(op, acc[u % NACC][e], x[u][e], rix(r + u * BY, e));
                    }
                    /* the last rows (fewer than U) as one round: every load goes out at once, the
                     * ones past r_hi clamped to its last row and not folded (a column of 3 rows
                     * took its loads one at a time: [3, 89478485] read 0.27 of the ceiling) */
                    if (r < rb) {
                        /* PH: clamped to the thread's last row (rows of its phase) */
                        const int64_t rc = PH ? r + (rb - 1 - r) / BY * BY : rb - 1;
                        T x[U - 1][VEC];
#pragma unroll
                        for (int u = 0; u < U - 1; u++)
                            load_items<VEC, (DEPTH > 1)>(col + min(r + u * BY, rc) * p.r_stride,
                                                         x[u]);
#pragma unroll
                        for (int u = 0; u < U - 1; u++)
                            if (r + u * BY < rb)
#pragma unroll
                                for (int e = 0; e < VEC; e++)
                                    acc[0][e] =
                                        fold_elem(op, acc[0][e], x[u][e], rix(r + u * BY, e));
                    }
                } else if (!PH && b0 < p.b) {
                    const int64_t nb = p.b - b0;
                    for (int64_t r = r_lo + ty; r < r_hi; r += BY)
#pragma unroll
                        for (int e = 0; e < VEC; e++)
                            if (e < nb)
                                acc[0][e] =
                                    fold_elem(op, acc[0][e], col[r * p.r_stride + e], rix(r, e));
                }
            }
        A res[VEC];
#pragma unroll
        for (int e = 0; e < VEC; e++) {
            A f[NACC];
#pragma unroll
            for (int i = 0; i < NACC; i++)
                f[i] = acc[i][e];
            res[e] = fold<Op, NACC>(op, f);
        }

        /* warp units (no split, no block tree): the warp's rows reduced and scattered, each lane
         * left with `count` of its tx's VEC columns (VEC - 1 + log2(BY / VEC) shuffles a lane
         * where a butterfly a column takes VEC log2 BY), and each column stored by one lane */
        if (WU && !PH && BX < 32) {
            const rows_reduced rr =
                group_reduce_rows<Op, VEC>(op, res, 32, (int)(threadIdx.x & 31), BX);
            const int64_t c0 = tile * WT + tx * VEC + rr.first, nc = p.b - c0;
            if (rr.lead)
#pragma unroll
                for (int k = 0; k < VEC; k++)
                    if (k < rr.count && k < nc)
                        out[ai * p.b + c0 + k] = op.finalize(res[k], p.red_n);
            continue;
        }
        /* the rows of a warp first (lanes of one column are BX apart), by shuffles: a column
         * of 4 floats took a shared-memory tree of 8 synchronised steps per 16 KB slab
         * ([65536, 1024, 4] over 1 read 0.71 of the ceiling) */
        if (!PH && BX < 32) {
            /* the VEC columns' shuffles of a step in flight together */
            for (int m = BX; m < 32; m *= 2)
#pragma unroll
                for (int e = 0; e < VEC; e++)
                    res[e] = op.combine(res[e], shfl_xor(res[e], m));
        }
        /* rows a warp holds (PH: each row at its own phase, so each its own row of the tree) */
        const int WY = BX < 32 && !PH ? 32 / BX : 1;
        if (BY > WY) { /* then a tree over the warps' results, in warp order */
            /* PH: res[e] is tile column tx * VEC + e - ph (exact: mod W); those outside the
             * tile are dropped */
            const int wy = ty / WY, NY = BY / WY;
            const int64_t SW = W;
            if (ty % WY == 0)
#pragma unroll
                for (int e = 0; e < VEC; e++) {
                    const int c = tx * VEC + e - ph;
                    if (PX)
                        s[wy * SW + (c < 0 ? c + W : c)] = res[e];
                    else if (!PH || (c >= 0 && c < WT))
                        s[wy * SW + c] = res[e];
                }
            __syncthreads();
            for (int h = NY / 2; h > 0; h /= 2) {
                if (ty % WY == 0 && wy < h)
#pragma unroll
                    for (int e = 0; e < VEC; e++)
                        s[wy * SW + tx * VEC + e] =
                            op.combine(s[wy * SW + tx * VEC + e], s[(wy + h) * SW + tx * VEC + e]);
                __syncthreads();
            }
#pragma unroll
            for (int e = 0; e < VEC; e++)
                res[e] = s[tx * VEC + e];
            __syncthreads();
        }

        /* res[e] is column oc + e of the tile's, column t0 + oc + e */
        const int64_t t0 = tile * WT, ncols = min(WT, p.b - t0), oc = tx * VEC;
        const bool own = ty == 0;
        if (p.split == 1 || whole) {
            if (own)
#pragma unroll
                for (int e = 0; e < VEC; e++)
                    if (oc + e < ncols)
                        out[ai * p.b + t0 + oc + e] = op.finalize(res[e], p.red_n);
            continue;
        }

        /* partials of this tile: [split][W] (PH: the first WT of each), of the split tiles (PH:
         * those after the whole ones) */
        A *parts = static_cast<A *>(p.partials) + (t - w0) * p.split * W;
        if (own)
#pragma unroll
            for (int e = 0; e < VEC; e++)
                parts[slice * W + oc + e] = res[e];
        if (!arrive_last(p.counters + (t - w0), (unsigned)p.split, &s_last))
            continue;

        /* the last block: each column's slices in order (SUP: the planner always splits) */
        if constexpr (SUP)
            combine_columns_fold<Op, VEC>(op, parts, W, p.split, s, ai * p.b + tile * W,
                                          min(W, p.b - tile * W), &s_fold);
        else
            /* WIDE for STG's single elements, with its slot array as the combine's space (16
             * bytes a thread for 4-byte accumulators and elements of at most 4 bytes). Not for
             * 8-byte accumulators (Mean of integers and f64, Prod of int32) nor the other
             * kernels (Mean of f16): the two widths in one function spilled 4-40 bytes
             * (ptxas); in two functions, more. STG's 8-byte accumulators: 16-byte loads (2)
             * only, its W (a power of two, at least 2) always a multiple. With one 8-byte load
             * at a time, 4 in flight, a thread of the last block of f64 [3000000, 17] over 0
             * (507 slices of 32 columns, 8 threads a column) took its 64 slices in 16 round
             * trips to L2; with 2 a load, 16 threads a column, 8: 103.5 -> 101.2-102.0 us */
            combine_columns<Op, STG && sizeof(A) == 8 ? 2 : VEC,
                            STG && sizeof(A) == 4 && sizeof(T) <= 4>(
                op, parts, W, p.split, STG ? reinterpret_cast<A *>(s_slot) : s, out + ai * p.b + t0,
                ncols, p.red_n);
    }
}

/* --- COL with few rows ---------------------------------------------------------------------- */

struct coltiny_args {
    const void *in;
    void *out;
    int64_t b, r_stride; /* columns; elements from one row to the next */
    int64_t nitems;      /* column items (of the kernel's CB bytes) */
    int64_t red_n;
    int r; /* rows, 1..kColTinyMaxRows */
};

/* rows loaded at once a round, and the most rows the kernel takes (the planner's COL_TINY_R_MAX) */
constexpr int kColTinyRows = 4;
constexpr int kColTinyMaxRows = 32;

/* Column items a thread of col_tiny_kernel takes, for items of CB bytes: at most 32 registers
 * of loaded data a round, and of accumulators. */
template <class Op, int CB> constexpr int col_tiny_items()
{
    using T = typename Op::in_t;
    using A = typename Op::acc_t;
    return CB == 16                    ? (16 / sizeof(T) <= 8 && sizeof(A) <= 4 ? 2 : 1)
           : CB == 8 && sizeof(T) == 8 ? 3
           : CB == 8                   ? (sizeof(A) * (CB / sizeof(T)) <= 8 ? 4 : 2)
           : CB <= 4 && sizeof(A) <= 4 ? 6
           : CB <= 4                   ? 4
                                       : 3;
}

/* An item of CB bytes (CB / size elements) at p, which is CB-aligned. */
template <int CB> struct col_chunk {
    using type = std::conditional_t<
        CB == 16, uint4,
        std::conditional_t<CB == 8, uint2, std::conditional_t<CB == 4, unsigned, unsigned short>>>;
    static __device__ __forceinline__ type load(const void *p)
    {
        if constexpr (CB == 16)
            return load_vec(p);
        else
            return __ldg(static_cast<const type *>(p));
    }
};

/* out[j] = rows 0..r-1 of column j combined, in row order. A block takes tiles of U * kBlock
 * column items (thread t items t, t + kBlock, ...: each load instruction coalesced, and the item
 * offsets immediates) and, in rounds of kColTinyRows rows, issues every row's load of all its
 * items before it folds, so up to kColTinyRows * U loads are in flight a thread (the column
 * kernel's rounds of kUnroll rows took a column of 3 rows one load at a time: [3, 89478485] read
 * 0.27 of the ceiling). Items are CB bytes (16, 8, 4 or one element), the widest that every row
 * start is aligned to, and the columns past the last whole item are taken one by one at the end
 * (f16 columns of 3 rows whose rows start 4 bytes off 16 read 0.73 of the ceiling one element a
 * load). Launched with kBlock threads. */
template <class Op, int CB>
__global__ void __launch_bounds__(kBlock, min_blocks<Op>(kMinBlocks))
    col_tiny_kernel(Op op, coltiny_args a)
{
    using T = typename Op::in_t;
    using A = typename Op::acc_t;
    /* element items as the element type (double min/max spilled as uint2 items) */
    using X = std::conditional_t<CB == sizeof(T), T, typename col_chunk<CB>::type>;
    constexpr int V = CB / sizeof(T);
    constexpr int U = col_tiny_items<Op, CB>();
    static_assert(CB >= (int)sizeof(T) && CB % sizeof(T) == 0, "items of whole elements");
    const T *in = static_cast<const T *>(a.in);
    typename Op::out_t *out = static_cast<typename Op::out_t *>(a.out);
    const int64_t tiles = (a.nitems + U * kBlock - 1) / (U * kBlock);

    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int64_t j0 = tile * U * kBlock + threadIdx.x;
        A acc[U][V];
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int e = 0; e < V; e++)
                acc[u][e] = op.identity();
        /* rows in rounds of kColTinyRows, every load of a round issued before its folds */
        for (int r0 = 0; r0 < a.r; r0 += kColTinyRows) {
            X x[U][kColTinyRows];
#pragma unroll
            for (int r = 0; r < kColTinyRows; r++) {
                const T *row = in + (r0 + r) * a.r_stride + j0 * V;
#pragma unroll
                for (int u = 0; u < U; u++)
                    if (r0 + r < a.r && j0 + u * kBlock < a.nitems)
                        if constexpr (CB == sizeof(T))
                            x[u][r] = __ldg(row + u * kBlock);
                        else
                            x[u][r] = col_chunk<CB>::load(row + u * kBlock * V);
            }
#pragma unroll
            for (int u = 0; u < U; u++) {
#pragma unroll
                for (int r = 0; r < kColTinyRows; r++) {
                    if (r0 + r < a.r) {
                        T e[V];
                        memcpy(e, &x[u][r], sizeof e);
#pragma unroll
                        for (int k = 0; k < V; k++)
                            acc[u][k] = fold_elem(op, acc[u][k], e[k], r0 + r);
                    }
                }
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t j = j0 + u * kBlock;
            if (j >= a.nitems)
                break;
            using O = typename Op::out_t;
            O o[V];
#pragma unroll
            for (int e = 0; e < V; e++)
                o[e] = op.finalize(acc[u][e], a.red_n);
            /* stores of up to 16 bytes where the outputs allow: the outputs are 1/r of the
             * traffic here, and lane-strided element stores write each line in pieces */
            constexpr int SB = sizeof o >= 16 ? 16 : (int)sizeof o;
            using W = typename col_chunk<SB>::type;
            if (SB >= 4 && sizeof o % SB == 0 && ((uintptr_t)(out + j * V) & (SB - 1)) == 0) {
#pragma unroll
                for (int q = 0; q < (int)(sizeof o / SB); q++) {
                    W w;
                    memcpy(&w, reinterpret_cast<const char *>(o) + SB * q, SB);
                    reinterpret_cast<W *>(out + j * V)[q] = w;
                }
            } else {
#pragma unroll
                for (int e = 0; e < V; e++)
                    out[j * V + e] = o[e];
            }
        }
    }
    if (V > 1 && blockIdx.x == 0) { /* the columns past the last whole item */
        for (int64_t c = a.nitems * V + threadIdx.x; c < a.b; c += blockDim.x) {
            A acc = op.identity();
            for (int r = 0; r < a.r; r++)
                acc = fold_elem(op, acc, in[r * a.r_stride + c], r);
            out[c] = op.finalize(acc, a.red_n);
        }
    }
}

/* --- any layout ---------------------------------------------------------------------------- */

struct generic_args {
    const void *in;
    void *out;
    int nk, nr; /* kept and reduced merged dims */
    int64_t kshape[OP_MAX_DIMS], kistride[OP_MAX_DIMS], kostride[OP_MAX_DIMS];
    int64_t rshape[OP_MAX_DIMS], ristride[OP_MAX_DIMS];
    int64_t out_n, red_n;
    int sub; /* 1 or 32 lanes per output */
};

constexpr int kGenericRun = 256;

template <class Op>
__global__ void __launch_bounds__(kBlock, kMinBlocks) generic_kernel(Op op, generic_args p)
{
    using T = typename Op::in_t;
    using A = typename Op::acc_t;
    const T *in = static_cast<const T *>(p.in);
    typename Op::out_t *out = static_cast<typename Op::out_t *>(p.out);
    const int G = p.sub, lane = threadIdx.x & (G - 1);
    const int64_t per_block = blockDim.x / G;
    /* every lane of a group takes the same outputs, so the shuffles below stay converged */
    for (int64_t o = (int64_t)blockIdx.x * per_block + threadIdx.x / G; o < p.out_n;
         o += (int64_t)gridDim.x * per_block) {
        int64_t base = 0;
        for (int i = 0; i < p.nk; i++)
            base += ((o / p.kostride[i]) % p.kshape[i]) * p.kistride[i];
        /* lane takes a contiguous share of the flat reduced index, walked with an odometer */
        const int64_t per = (p.red_n + G - 1) / G;
        const int64_t lo = lane * per, hi = min(p.red_n, lo + per);
        A acc = op.identity();
        if (lo < hi) {
            int64_t ix[OP_MAX_DIMS], off = 0, rem = lo;
            for (int i = p.nr - 1; i >= 0; i--) {
                ix[i] = rem % p.rshape[i];
                rem /= p.rshape[i];
                off += ix[i] * p.ristride[i];
            }
            /* two levels: runs of kGenericRun elements, then the runs, so no chain is long */
            A run = op.identity();
            int cnt = 0;
            for (int64_t f = lo; f < hi; f++) {
                run = fold_elem(op, run, in[base + off], f);
                if (++cnt == kGenericRun) {
                    acc = op.combine(acc, run);
                    run = op.identity();
                    cnt = 0;
                }
                for (int i = p.nr - 1; i >= 0; i--) {
                    off += p.ristride[i];
                    if (++ix[i] < p.rshape[i])
                        break;
                    off -= p.rshape[i] * p.ristride[i];
                    ix[i] = 0;
                }
            }
            acc = op.combine(acc, run);
        }
        if (G > 1)
            acc = group_reduce(op, acc, G);
        if (lane == 0)
            out[o] = op.finalize(acc, p.red_n);
    }
}

/* --- the host-side launcher ---------------------------------------------------------------- */

inline op_status launch_failed(char *msg, size_t msg_len, const opnn_reduce_plan *plan,
                               cudaError_t e)
{
    if (msg && msg_len)
        snprintf(msg, msg_len,
                 "CUDA reduce kernel of family %d (class %d, dtype code %u bits %u): %s",
                 plan->launch.family, (int)plan->cls, (unsigned)plan->dtype.code,
                 (unsigned)plan->dtype.bits, cudaGetErrorString(e));
    return OP_ERR_DEVICE;
}

/* log2 of a power of two (lanes a row, as the row kernels shift by it) */
inline int log2_pow2(int g)
{
    int l = 0;
    while ((1 << l) < g)
        l++;
    return l;
}

inline unsigned grid_of(int64_t g)
{
    return (unsigned)(g < 1 ? 1 : g > 0x7fffffff ? 0x7fffffff : g);
}

/* The planner sizes persistent grids for the built-ins' 3-4 resident blocks per SM; an operator
 * compiled for 2 (min_blocks) gets at most 2 per SM, or a third of the blocks would start only
 * after the others finished their whole loop. Every kernel strides over its units, so any grid
 * is correct. */
template <class Op> inline unsigned grid_for_op(int64_t g)
{
    unsigned x = grid_of(g);
    if (sizeof(typename Op::acc_t) <= 8)
        return x;
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        sms <= 0)
        return x; /* the launch reports the error */
    const unsigned cap = (unsigned)sms * (unsigned)min_blocks<Op>(2);
    return x < cap ? x : cap;
}

/* col_tiny_kernel over a's columns in items of CB bytes, or of fewer when the rows (row stride
 * and pointer) are not aligned to CB; the columns past the last whole item one by one. A block a
 * tile, not a persistent grid: blocks that finish make room for the next ones' loads
 * ([5, 53687091] f32 4338 GB/s with about two tiles a block, 3679 with 4 blocks an SM striding;
 * [3, 89478485] 4360 against 3803, H200). Items of at most 8 bytes: with 16-byte items (2 a
 * thread, rows of a tile 8 KB long) col_short ([16, 16777216] f32) read 4099-4113 GB/s, with
 * 8-byte items (4 a thread) 4273-4277; [8, 33554432] 4040 against 4369, [4, 67108864] 3952
 * against 4343, [2, 134217728] 3880 against 4306, f16 [16, 16777216] 3990 against 4175 (H200);
 * 8 bytes was as fast as 4 or faster on every shape tried. */
template <class Op, int CB = 8>
void launch_col_tiny(const Op &op, coltiny_args a, uintptr_t align, cudaStream_t stream)
{
    using T = typename Op::in_t;
    if constexpr (CB > (int)sizeof(T)) {
        if (align % CB != 0)
            return launch_col_tiny<Op, CB / 2>(op, a, align, stream);
    }
    constexpr int V = CB / sizeof(T);
    constexpr int64_t tile = col_tiny_items<Op, CB>() * kBlock;
    a.nitems = a.b / V;
    const int64_t tiles = (a.nitems + tile - 1) / tile;
    col_tiny_kernel<Op, CB><<<grid_for_op<Op>(tiles), kBlock, 0, stream>>>(op, a);
}

/* Enqueues plan's family for operator op on stream. in and out already include byte_offset;
 * ws must hold plan->launch.partial_bytes and plan->launch.ncounters. No synchronisation. */
template <class Op>
op_status reduce(const Op &op, const opnn_reduce_plan *plan, const void *in, void *out,
                 cudaStream_t stream, const workspace &ws, char *msg, size_t msg_len)
{
    using T = typename Op::in_t;
    const opnn_launch &l = plan->launch;
    /* the planner's block size (a multiple of 64 up to kBlock, the size the kernels are built
     * for); kBlock unless a caller tunes it */
    const dim3 block(l.block >= 64 && l.block <= kBlock && l.block % 64 == 0 ? l.block : kBlock);

    switch (l.kernel) {
    case OPNN_KERNEL_NONE:
        return OP_OK;
    case OPNN_KERNEL_FILL:
        fill_kernel<Op><<<grid_for_op<Op>(l.grid_x), block, 0, stream>>>(op, out, plan->out_numel);
        break;
    case OPNN_KERNEL_INNER_BLOCK:
    case OPNN_KERNEL_INNER_GROUP: {
        inner_args a;
        memset(&a, 0, sizeof a);
        a.in = in;
        a.out = out;
        if (plan->cls == OPNN_CLASS_OUTER_INNER) {
            a.r1 = plan->r1;
            a.r1_stride = plan->r1_stride;
            a.c = plan->c;
            a.c_stride = plan->c_stride;
            a.k = plan->r2;
        } else {
            a.r1 = 1;
            a.c = plan->a;
            a.c_stride = plan->a_stride;
            a.k = plan->r;
        }
        a.red_n = plan->red_numel;
        a.units = l.units;
        a.split = l.split;
        a.chunk = l.chunk;
        a.segs = l.segs;
        a.sub = l.sub;
        a.partials = ws.partials;
        a.counters = ws.counters;
        /* a group of `sub` lanes must fit the block (a block of 128 threads with the planner's
         * 256 lanes a range left no group at all: an endless loop) */
        if (a.sub < 1 || a.sub > (int)block.x || (a.sub & (a.sub - 1)) != 0) {
            if (msg && msg_len)
                snprintf(msg, msg_len, "CUDA reduce: %d lanes a range in a block of %u threads",
                         a.sub, block.x);
            return OP_ERR_INTERNAL;
        }
        /* ranges in flight per group; the block kernel always walks one (the planner's only
         * choice for it since the flat segment walk; `ranges` changes speed, not results);
         * 2 * kUnroll: one range, twice as deep */
        if (l.kernel == OPNN_KERNEL_INNER_BLOCK && l.ranges == 2 * kUnroll)
            inner_block_kernel<Op, 2><<<grid_for_op<Op>(l.grid_x), block, 0, stream>>>(op, a);
        else if (l.kernel == OPNN_KERNEL_INNER_BLOCK)
            inner_block_kernel<Op><<<grid_for_op<Op>(l.grid_x), block, 0, stream>>>(op, a);
        else if (l.ranges == 1)
            inner_group_kernel<Op, 1><<<grid_for_op<Op>(l.grid_x), block, 0, stream>>>(op, a);
        else if (l.ranges == 2 * kUnroll)
            inner_group_kernel<Op, 1, 2 * kUnroll>
                <<<grid_for_op<Op>(l.grid_x), block, 0, stream>>>(op, a);
        else if (l.ranges == 2)
            inner_group_kernel<Op, 2><<<grid_for_op<Op>(l.grid_x), block, 0, stream>>>(op, a);
        else
            inner_group_kernel<Op, kUnroll><<<grid_for_op<Op>(l.grid_x), block, 0, stream>>>(op, a);
        break;
    }
    case OPNN_KERNEL_FULL: {
        full_args a;
        a.in = in;
        a.out = out;
        a.n = plan->r;
        a.red_n = plan->red_numel;
        a.partials = ws.partials;
        a.counters = ws.counters;
        full_kernel<Op><<<grid_for_op<Op>(l.grid_x), block, 0, stream>>>(op, a);
        break;
    }
    case OPNN_KERNEL_ROW_TILE: {
        /* the planner's tile: chunk rows (a whole number of packs of segs rows), tiles of them,
         * `tiles` vectors each, sub lanes a row */
        rowtile_args a;
        a.in = in;
        a.out = out;
        a.rows = plan->a;
        /* a MIDDLE plan: rows are the slabs [R, B] (contiguous), B outputs each */
        a.b = plan->cls == OPNN_CLASS_MIDDLE ? plan->b : 1;
        a.k = plan->r * a.b;
        a.p = (int)l.segs;
        a.tile_rows = (int)l.chunk;
        a.tile_vec = (int)l.tiles;
        a.npacks = a.rows / a.p;
        a.tiles = l.units;
        a.red_n = plan->red_numel;
        a.g = l.sub;
        a.log2g = log2_pow2(a.g);
        a.chunk = 16;
        while ((a.k * (int64_t)sizeof(T)) % a.chunk != 0)
            a.chunk /= 2;
        a.aligned = ((uintptr_t)in & 15u) == 0;
        a.stagger = a.b > 1 && l.ranges == 2;
        /* packs: B of the kernel's pack folds, a column's rows whole packs (16 / gcd(B * size,
         * 16) rows, so every slab starts on a 16-byte vector) */
        const bool packs = a.b > 1 && l.ranges == 3;
        const int64_t brow = a.b * (int64_t)sizeof(T), prow = 16 / min(brow & -brow, (int64_t)16);
        if (packs && (!OPNN_CUDA_ROW_TILE_PACK_COLS(a.b) || (a.k / a.b) % prow != 0)) {
            if (msg && msg_len)
                snprintf(msg, msg_len,
                         "CUDA reduce: ROW_TILE folding slabs of %lld columns from packs of %lld"
                         " rows for columns of %lld rows",
                         (long long)a.b, (long long)prow, (long long)(a.k / a.b));
            return OP_ERR_INTERNAL;
        }
        /* lanes a row (an output of a slab): a power of two up to 32, each with a row of its
         * own (a slab's column has k / b) */
        if (a.g < 1 || a.g > 32 || (a.g & (a.g - 1)) != 0 || (a.b > 1 && a.g > a.k / a.b)) {
            if (msg && msg_len)
                snprintf(msg, msg_len,
                         "CUDA reduce: ROW_TILE with %d lanes a row for rows of %lld"
                         " elements (%lld a column)",
                         a.g, (long long)a.k, (long long)(a.k / a.b));
            return OP_ERR_INTERNAL;
        }
        /* rows of 32 bytes or less from an aligned start: a thread folds whole packs from
         * registers (row_pack_kernel, on a grid of its own); else the tile kernel */
        if (a.b == 1 && a.aligned && a.k * (int64_t)sizeof(T) <= kRowPackMaxBytes &&
            launch_row_pack(op, a.k, in, out, a.rows, a.red_n, stream))
            break;
        /* the planner's block (64 threads: 2 warps of two slices of up to 6.5 KB, 8 blocks an
         * SM); one slice a warp from an unaligned start. The kernel is compiled for kMinBlocks
         * whatever the operator (not min_blocks), so no cap on the grid for wide accumulators:
         * shared memory keeps 8 of these blocks an SM resident. */
        const size_t smem = (size_t)(block.x / 32) * (size_t)a.tile_vec * 16 * (a.aligned ? 2 : 1);
        if (a.tile_vec < 1 || smem > 48 * 1024) {
            if (msg && msg_len)
                snprintf(msg, msg_len,
                         "CUDA reduce: ROW_TILE tiles of %d vectors in blocks of %u threads need "
                         "%zu bytes of shared memory (48 KB at most)",
                         a.tile_vec, block.x, smem);
            return OP_ERR_INTERNAL;
        }
        switch (packs ? a.b : 0) { /* OPNN_CUDA_ROW_TILE_PACK_COLS */
        case 3:
            row_tile_kernel<Op, 3><<<grid_of(l.grid_x), block, smem, stream>>>(op, a);
            break;
        case 5:
            row_tile_kernel<Op, 5><<<grid_of(l.grid_x), block, smem, stream>>>(op, a);
            break;
        case 6:
            row_tile_kernel<Op, 6><<<grid_of(l.grid_x), block, smem, stream>>>(op, a);
            break;
        case 7:
            row_tile_kernel<Op, 7><<<grid_of(l.grid_x), block, smem, stream>>>(op, a);
            break;
        default:
            row_tile_kernel<Op><<<grid_of(l.grid_x), block, smem, stream>>>(op, a);
        }
        break;
    }
    case OPNN_KERNEL_OUTER: {
        constexpr int V = 16 / sizeof(T);
        if (l.family == OPNN_FAMILY_COL_TINY_R && plan->a == 1 && plan->r >= 1 &&
            plan->r <= kColTinyMaxRows) {
            coltiny_args a;
            a.in = in;
            a.out = out;
            a.b = plan->b;
            a.r_stride = plan->r_stride;
            a.red_n = plan->red_numel;
            a.r = (int)plan->r;
            /* items as wide as every row start allows */
            launch_col_tiny<Op>(
                op, a, (uintptr_t)in | (uintptr_t)(plan->r > 1 ? plan->r_stride * sizeof(T) : 16),
                stream);
            break;
        }
        /* the block's tree over its rows halves a power of two of them */
        if ((block.x & (block.x - 1)) != 0 || (int)block.x < l.sub) {
            if (msg && msg_len)
                snprintf(msg, msg_len,
                         "CUDA reduce: an OUTER plan of %d threads across run in a block of %u "
                         "threads (a power of two, at least that, is needed)",
                         l.sub, block.x);
            return OP_ERR_INTERNAL;
        }
        outer_args a;
        a.in = in;
        a.out = out;
        a.a = plan->a;
        a.r = plan->r;
        a.b = plan->b;
        a.a_stride = plan->a_stride;
        a.r_stride = plan->r_stride;
        /* a GENERIC plan here is [R1, A, R, B] (reduce_plan.h) */
        a.r1 = plan->cls == OPNN_CLASS_GENERIC ? plan->r1 : 1;
        a.r1_stride = plan->cls == OPNN_CLASS_GENERIC ? plan->r1_stride : 0;
        a.red_n = plan->red_numel;
        a.bx = l.sub;
        a.tiles = l.tiles;
        a.split = l.split;
        a.rows = l.chunk;
        /* (a shift plan's segs is its tiles' vectors) */
        a.slabs = l.segs > 0 && l.ranges != OPNN_CUDA_SHIFT_RANGES ? l.segs : 1;
        a.per_slab = (a.r + a.rows - 1) / a.rows;
        a.warp_units = l.ranges == 1;
        a.units = l.units;
        a.whole = 0;
        a.partials = ws.partials;
        a.counters = ws.counters;
        a.sk = 1;
        a.ob = a.b;
        a.left = 0;
        a.fold_y = nullptr;
        a.fold_counters = nullptr;
        const bool sup = l.ranges == 3;
        if (sup) {
            /* super-rows of sk rows (the plan's segs; sk * b * size a multiple of 16); their
             * a * sk * b results end the partials, the fold's chunks' counters end the
             * counters */
            a.sk = l.segs;
            if (a.sk < 2 || a.sk > super_max_k<T>() || (a.sk & (a.sk - 1)) != 0 ||
                a.sk * a.b * (int64_t)sizeof(T) % 16 != 0 || a.r1 != 1 || a.split < 2) {
                if (msg && msg_len)
                    snprintf(msg, msg_len,
                             "CUDA reduce: a super-row plan of %lld rows of %lld columns "
                             "(%d-byte elements), split %lld",
                             (long long)a.sk, (long long)a.b, (int)sizeof(T), (long long)a.split);
                return OP_ERR_INTERNAL;
            }
            a.slabs = 1;
            a.b = a.sk * a.ob;
            a.left = a.r % a.sk;
            a.r /= a.sk;
            a.r_stride = a.b;
            a.per_slab = (a.r + a.rows - 1) / a.rows;
            a.fold_y = static_cast<unsigned char *>(ws.partials) + l.partial_bytes -
                       (size_t)(a.a * a.b) * sizeof(typename Op::acc_t);
            /* the chunks' counters end the counters (at most 64 chunks a slab: the mask of
             * those a block completes) */
            const int64_t nch = (a.ob + kFoldCols - 1) / kFoldCols;
            if (nch > 64 || l.ncounters < a.a * (nch + 1)) {
                if (msg && msg_len)
                    snprintf(msg, msg_len,
                             "CUDA reduce: a super-row plan of %lld columns in %lld chunks, "
                             "%lld counters",
                             (long long)a.ob, (long long)nch, (long long)l.ncounters);
                return OP_ERR_INTERNAL;
            }
            a.fold_counters = ws.counters + l.ncounters - a.a * nch;
        }
        /* the plan's loads (vec elements: 16, 8 or 4 bytes, or one), narrowed to what the
         * pointer allows; slabs and warp units (EXT) have 16-byte loads, where a vector's
         * accumulators take at most 8 words (an 8-byte accumulator of 8 elements, ArgMax's of
         * bf16, spilled there), or single elements */
        constexpr int I8 = sizeof(T) < 8 ? 8 / (int)sizeof(T) : 1;
        constexpr int I4 = sizeof(T) < 4 ? 4 / (int)sizeof(T) : 1;
        constexpr bool ext_vec = sizeof(typename Op::acc_t) * V <= 32;
        /* warp tiles of 32 lanes: block units where the op's accumulators of a vector do not
         * fit the warp units' kernel, rather than single elements (the plan's other form) */
        if (a.warp_units && a.bx == 32 && !ext_vec)
            a.warp_units = 0;
        const bool ext = a.r1 > 1 || a.warp_units;
        /* OPNN_CUDA_SHIFT_RANGES: rows off 16 bytes read as the 16-byte vectors that cover
         * them (PH), tiles of segs (bx - 1, or bx: exact) vectors' columns, where the op's
         * accumulators of a vector fit in 32 bytes, the pointer is element-aligned, bx (32 or 16)
         * lanes take a row, their rows (blockDim / bx apart) start at one phase, and the rows and
         * slabs do not overlap (so that only the view's first and last rows reach outside it).
         * Single elements otherwise. */
        const bool shift =
            ext_vec && l.ranges == OPNN_CUDA_SHIFT_RANGES && !ext && !sup && l.vec == V &&
            (a.bx == kShiftMinLanes || a.bx == 32) && (l.segs == a.bx || l.segs == a.bx - 1) &&
            a.tiles * l.segs * V >= a.b && (uintptr_t)in % sizeof(T) == 0 &&
            block.x / a.bx * sizeof(T) % 16 == 0 && (a.r == 1 || a.r_stride >= a.b) &&
            (a.a == 1 || a.a_stride == 0 || a.a_stride >= (a.r - 1) * a.r_stride + a.b);
        if (l.whole != 0 &&
            (l.ranges != OPNN_CUDA_SHIFT_RANGES || l.whole < 0 || l.whole > a.a * a.tiles ||
             l.units != l.whole + (a.a * a.tiles - l.whole) * a.split)) {
            if (msg && msg_len)
                snprintf(msg, msg_len,
                         "CUDA reduce: an OUTER plan of %lld whole tiles of %lld, split %lld, "
                         "%lld units (ranges %d)",
                         (long long)l.whole, (long long)(a.a * a.tiles), (long long)a.split,
                         (long long)l.units, l.ranges);
            return OP_ERR_INTERNAL;
        }
        const bool exact = shift && l.segs == a.bx;
        if (shift) {
            a.whole = l.whole;
        } else if (l.whole > 0) { /* single elements: every tile whole (no workspace for them) */
            a.split = 1;
            a.rows = a.r;
            a.per_slab = 1;
        }
        int item = l.vec >= 1 && l.vec <= V ? l.vec : 1;
        while (!shift && item > 1 && (uintptr_t)in % ((uintptr_t)item * sizeof(T)) != 0)
            item /= 2;
        if ((ext && !(item == V && ext_vec)) || (sup && item != V) ||
            (l.ranges == OPNN_CUDA_SHIFT_RANGES && !shift))
            item = 1;
        if (item != l.vec) { /* tiles of bx loads: the planner sized the workspace for them */
            a.tiles = (a.b + (int64_t)a.bx * item - 1) / ((int64_t)a.bx * item);
            a.units = a.a * a.tiles * a.split;
        }
        /* the alignment every row start shares (its low bits) */
        const uint64_t al = (uint64_t)(uintptr_t)in |
                            (uint64_t)(a.r > 1 ? a.r_stride * (int64_t)sizeof(T) : 0) |
                            (uint64_t)(a.a > 1 ? a.a_stride * (int64_t)sizeof(T) : 0);
        /* rows that do not start on a 32-byte sector: a column tile's edge shares a sector with
         * the next tile's, read twice from DRAM unless the two tiles' blocks run close together,
         * so consecutive blocks take the tiles of one slice. [100000, 2500] over 0 (f32):
         * 241.5-242.3 -> 235.4-235.5 us; aligned rows lost up to 1% with it (bf16 [16384,
         * 16384] over 0 128.5 -> 129.3-131.0, H200, best of 20) */
        a.tiles_first = a.tiles > 1 && a.split > 1 && al % 32 != 0;
        const unsigned grid =
            grid_for_op<Op>(item == l.vec  ? l.grid_x
                            : a.warp_units ? (a.units + kBlock / 32 - 1) / (kBlock / 32)
                                           : a.units);
        /* ranges 2: the planner's contiguous rows off 16 bytes in slabs of 64 KB or more, read
         * as one run of 16-byte vectors where the pointer is element-aligned and the op's
         * accumulators fit (stg_ok); single elements otherwise */
        if constexpr (stg_ok<Op>())
            if (l.ranges == 2 && (uintptr_t)in % sizeof(T) == 0) {
                outer_kernel<Op, 1, false, true><<<grid, block, 0, stream>>>(op, a);
                break;
            }
        if constexpr (ext_vec)
            if (shift) {
                if (exact)
                    outer_kernel<Op, V, false, false, false, true, true>
                        <<<grid, block, 0, stream>>>(op, a);
                else
                    outer_kernel<Op, V, false, false, false, true>
                        <<<grid, block, 0, stream>>>(op, a);
                break;
            }
        if (sup && item == V)
            outer_kernel<Op, V, false, false, true><<<grid, block, 0, stream>>>(op, a);
        else if (sup)
            outer_kernel<Op, 1, false, false, true><<<grid, block, 0, stream>>>(op, a);
        else if (item == V && !ext && l.ranges == 2 * kUnroll)
            outer_kernel<Op, V, false, false, false, false, false, 2>
                <<<grid, block, 0, stream>>>(op, a);
        else if (item == V && !ext)
            outer_kernel<Op, V, false><<<grid, block, 0, stream>>>(op, a);
        else if (item > 1 && item == I8 && !ext)
            outer_kernel<Op, I8, false><<<grid, block, 0, stream>>>(op, a);
        else if (item > 1 && item == I4 && !ext)
            outer_kernel<Op, I4, false><<<grid, block, 0, stream>>>(op, a);
        else if (!ext)
            outer_kernel<Op, 1, false><<<grid, block, 0, stream>>>(op, a);
        else if (item == 1)
            outer_kernel<Op, 1, true><<<grid, block, 0, stream>>>(op, a);
        else if constexpr (ext_vec)
            outer_kernel<Op, V, true><<<grid, block, 0, stream>>>(op, a);
        break;
    }
    case OPNN_KERNEL_ROW_VEC: {
        rowvec_args a;
        a.in = in;
        a.out = out;
        a.g = l.sub;
        a.log2g = log2_pow2(a.g);
        a.nvec = plan->a * a.g;
        a.tiles = (a.nvec + 32 * kUnroll - 1) / (32 * kUnroll);
        a.red_n = plan->red_numel;
        a.aligned = ((uintptr_t)in & 15u) == 0;
        {
            constexpr int V = 16 / sizeof(T);
            /* a MIDDLE plan: [A, R, B] slabs of B interleaved columns that divide a vector or
             * fill 2 (the planner's B <= 8, B * size <= 32; no kernel is built for the
             * others) */
            const int64_t nb = plan->cls == OPNN_CLASS_MIDDLE ? plan->b : 1;
            const unsigned grid = grid_for_op<Op>(l.grid_x);
            if (nb == 1)
                row_vec_kernel<Op><<<grid, block, 0, stream>>>(op, a);
            else if (nb == 2) /* every element size has V >= 2 */
                row_vec_kernel<Op, 2><<<grid, block, 0, stream>>>(op, a);
            else if (nb == 4) /* V >= 2 */
                row_vec_kernel<Op, 4><<<grid, block, 0, stream>>>(op, a);
            else if (nb == 8 && 8 <= 2 * V) /* at most 2 vectors */
                row_vec_kernel<Op, (8 <= 2 * V ? 8 : 1)><<<grid, block, 0, stream>>>(op, a);
            else {
                if (msg && msg_len)
                    snprintf(msg, msg_len,
                             "CUDA reduce: a row_vec plan of %lld interleaved columns for "
                             "%d-byte elements",
                             (long long)nb, (int)sizeof(T));
                return OP_ERR_INTERNAL;
            }
        }
        break;
    }
    case OPNN_KERNEL_GENERIC: {
        generic_args a;
        memset(&a, 0, sizeof a);
        a.in = in;
        a.out = out;
        for (int i = 0; i < plan->ndim; i++) {
            if (plan->reduced[i]) {
                a.rshape[a.nr] = plan->shape[i];
                a.ristride[a.nr] = plan->istride[i];
                a.nr++;
            } else {
                a.kshape[a.nk] = plan->shape[i];
                a.kistride[a.nk] = plan->istride[i];
                a.kostride[a.nk] = plan->ostride[i];
                a.nk++;
            }
        }
        a.out_n = plan->out_numel;
        a.red_n = plan->red_numel;
        a.sub = l.sub;
        generic_kernel<Op><<<grid_for_op<Op>(l.grid_x), block, 0, stream>>>(op, a);
        break;
    }
    default:
        if (msg && msg_len)
            snprintf(msg, msg_len, "CUDA reduce: plan has unknown kernel %d (family %d)", l.kernel,
                     l.family);
        return OP_ERR_INTERNAL;
    }
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return launch_failed(msg, msg_len, plan, e);
    return OP_OK;
}

} // namespace cuda
} // namespace opnn

#endif /* OPNN_CUDA_REDUCE_CUH */
