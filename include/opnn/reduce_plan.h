/// @file reduce_plan.h
/// The reduce plan: what the planner makes of (shape, strides, axes, dtype), and the CUDA launch
/// geometry chosen for it. Reduce kernels (the built-ins' and plugins') read it; only the
/// planner writes it. Covered by OP_ABI_VERSION.
///
///
/// A family names one kernel of kernel/cuda/reduce_families.cuh and the view of the plan it
/// reads; the other fields are that kernel's geometry. The "inner" kernels reduce a view
/// [R1, C, K] whose K is contiguous (FULL = [1, 1, R], ROW = [1, A, R], OUTER_INNER as planned),
/// the "outer" kernel a view [A, R, B] whose B is contiguous (COL = [1, R, B], MIDDLE).
#ifndef OPNN_REDUCE_PLAN_H
#define OPNN_REDUCE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "opnn/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads in flight per thread in every streaming loop (16 bytes each). The kernels and the
 * planner's tile sizes both use it. */
#define OPNN_CUDA_UNROLL 4
/* Threads per block of every family but ROW_TILE (OPNN_CUDA_ROW_TILE_BLOCK) and ROW_WARP over
 * several waves of tiles (half of it); the kernels are compiled for it (__launch_bounds__). */
#define OPNN_CUDA_BLOCK 256
/* Blocks of OPNN_CUDA_BLOCK threads each multiprocessor is guaranteed to hold at once: the
 * kernels are compiled with __launch_bounds__(256, 4), so at most 64 registers a thread. */
#define OPNN_CUDA_BLOCKS_PER_SM 4
/* The inner kernels (four ranges of 16-byte vectors walked at once) need up to 85 registers a
 * thread: compiled for 3 resident blocks, 768 threads x 4 loads = 48 KB in flight per SM. */
#define OPNN_CUDA_BLOCKS_PER_SM_INNER 3
/* Largest accumulator a partial result needs (8 for the built-ins; 16 leaves room for the
 * (value, index) pairs of ArgMax/ArgMin). */
#define OPNN_CUDA_MAX_ACC_BYTES 16
/* Longest contiguous range one group of lanes walks, in elements: the block kernel cuts longer
 * ones; the group kernels serve only rows shorter than this. */
#define OPNN_CUDA_MAX_RANGE ((int64_t)1 << 30)
/* Shortest segment, in bytes, that the block kernel's flat walk over several segments reads as
 * the 16-byte vectors covering each one where segments start off 16 bytes (element loads for
 * shorter ones). */
#define OPNN_CUDA_COVER_MIN_BYTES 32
/* The most aligned vectors of v elements that cover k consecutive elements starting anywhere
 * (at element h of a vector, h < v: (h + k + v - 1) / v, largest at h = v - 1) */
#define OPNN_CUDA_COVER_VECTORS(k, v) (((k) + 2 * ((v)-1)) / (v))
/* Output columns a chunk of the super-rows' fold (OUTER, ranges 3): each chunk has a counter
 * after the tiles', and the tile that completes it folds it, a thread a column. */
#define OPNN_CUDA_SUPER_FOLD_COLS 256
/* OUTER's launch.ranges for rows that start off 16 bytes read as the 16-byte vectors that cover
 * them, sub (32 or 16) lanes a row; a column tile is segs vectors' elements: sub - 1, one vector
 * fewer than the lanes read, so that their vectors cover it at any phase of the row, or sub
 * (exact), lane 0 also reading the vector after the lanes' where the row's phase leaves tile
 * columns in it. */
#define OPNN_CUDA_SHIFT_RANGES 5
/* Longest row ROW_TILE takes, in bytes. */
#define OPNN_CUDA_ROW_TILE_MAX_BYTES 512
/* Most 16-byte vectors a ROW_TILE warp tile holds (6.5 KB: 32 rows of 49 f32 are 392), the
 * block ROW_TILE runs in (2 warps of two tiles each, 26 KB of shared memory) and the blocks an SM
 * holds (8: 208 KB). */
#define OPNN_CUDA_ROW_TILE_MAX_VEC 416
#define OPNN_CUDA_ROW_TILE_BLOCK 64
#define OPNN_CUDA_ROW_TILE_BLOCKS_PER_SM 8
/* MIDDLE slabs' columns ROW_TILE can fold from whole packs of rows (launch.ranges 3): the
 * kernel holds a pack fold for each of these B, the planner's where R is whole packs (the
 * GPU tests, tile_folds__every_kind_dtype, also force it and the element-wise folds). */
#define OPNN_CUDA_ROW_TILE_PACK_COLS(b) ((b) == 3 || (b) == 5 || (b) == 6 || (b) == 7)
/* ROW_TILE rows of 2- or 4-byte chunks (gcd(row bytes, 16)) at least this long fold from the
 * 16-byte vectors that cover them; shorter ones a chunk at a time */
#define OPNN_CUDA_ROW_TILE_VECS_MIN_BYTES 48

typedef enum opnn_cuda_family {
    OPNN_FAMILY_NONE = 0,    /* EMPTY: nothing to launch */
    OPNN_FAMILY_FILL,        /* FILL: every output is finalize(identity, 0) */
    OPNN_FAMILY_FULL_SMALL,  /* FULL, one block */
    OPNN_FAMILY_FULL_SPLIT,  /* FULL, split across blocks, the last block combines */
    OPNN_FAMILY_ROW_TILE,    /* ROW, K * size <= 512 bytes, rows contiguous: warp tiles of
                                whole rows through shared memory, `sub` lanes a row; or
                                MIDDLE slabs [R, B], contiguous, as rows (a pack of them fits
                                a tile): `sub` lanes an output (a column of a slab), `ranges`
                                2 folding the columns from a staggered row */
    OPNN_FAMILY_ROW_THREAD,  /* ROW, a thread per row (rows of one 16-byte vector) */
    OPNN_FAMILY_ROW_SUBWARP, /* ROW, `sub` (2..16) lanes per row */
    OPNN_FAMILY_ROW_WARP,    /* ROW, a warp per row */
    OPNN_FAMILY_ROW_BLOCK,   /* ROW, a block per row */
    OPNN_FAMILY_ROW_SPLIT,   /* ROW, each row split across `split` blocks + last-block combine */
    OPNN_FAMILY_COL_WIDE,    /* COL, threads across the kept dim, rows split into slices */
    OPNN_FAMILY_COL_NARROW,  /* COL, kept dim narrower than a warp: rows folded into lanes */
    OPNN_FAMILY_COL_TINY_R,  /* COL, few rows: a thread per output vector, no split */
    OPNN_FAMILY_MIDDLE,      /* MIDDLE [A, R, B] (the column kernel with A > 1) */
    OPNN_FAMILY_OUTER_INNER, /* OUTER_INNER [R1, C, R2], blocks per output (split over R1) */
    OPNN_FAMILY_OUTER_INNER_GROUP, /* OUTER_INNER, `sub` lanes per output (many outputs) */
    OPNN_FAMILY_GENERIC,           /* any layout: `sub` lanes per output walk the merged dims */
    OPNN_FAMILY_ROW_VEC, /* ROW of contiguous rows of G = 2..32 16-byte vectors: a warp reads 32
                            consecutive vectors, groups of G lanes reduce one row each; or
                            MIDDLE slabs [R, B] of B = 2, 4, 8 columns that divide a
                            vector or fill 2, G = 2..128 vectors (`sub` is G) */
    OPNN_FAMILY_COUNT_
} opnn_cuda_family;

/* The kernel a family runs. */
typedef enum opnn_cuda_kernel {
    OPNN_KERNEL_NONE = 0,
    OPNN_KERNEL_FILL,
    OPNN_KERNEL_INNER_BLOCK, /* a block (of groups of `sub` lanes) per (output, split) unit */
    OPNN_KERNEL_INNER_GROUP, /* a group of `sub` lanes per output, OPNN_CUDA_UNROLL outputs */
    OPNN_KERNEL_ROW_TILE,
    OPNN_KERNEL_OUTER,
    OPNN_KERNEL_GENERIC,
    OPNN_KERNEL_ROW_VEC, /* groups of `sub` lanes per row, 16-byte vectors, rows contiguous */
    OPNN_KERNEL_FULL,    /* one contiguous range, grid-stride, a partial per block */
} opnn_cuda_kernel;

typedef struct opnn_launch {
    int family;             /* opnn_cuda_family */
    int kernel;             /* opnn_cuda_kernel of the family */
    int block;              /* threads per block */
    int64_t grid_x;         /* blocks; the kernels stride over `units` */
    int64_t grid_y;         /* always 1 (kept for the interface) */
    int64_t units;          /* work units: (output, split) pairs, row tiles, column tiles */
    int64_t split;          /* blocks that share one output's reduction (1: no split) */
    int64_t chunk;          /* INNER_BLOCK: elements of K per split unit (0: split over R1,
                               `segs` segments per unit); OUTER: rows of a slab per slice;
                               ROW_TILE: rows per warp tile */
    int64_t segs;           /* INNER_BLOCK: R1 segments per unit (chunk == 0); ROW_TILE: rows
                               per pack (rows that end on a 16-byte boundary); OUTER: R1 slabs
                               per slice (chunk == r then), or (ranges 3) rows a super-row, or
                               (OPNN_CUDA_SHIFT_RANGES) vectors a tile (sub - 1 or sub) */
    int64_t tiles;          /* OUTER: column tiles per A index; ROW_TILE: vectors per tile */
    int vec;                /* elements per 16-byte vector load (1: scalar loads); OUTER: per
                               load of 16, 8 or 4 bytes, the widest every row start allows */
    int sub;                /* lanes per range (INNER), per output (GENERIC, ROW_TILE's
                               slabs), per row (ROW_TILE's rows), BX (OUTER) */
    int ranges;             /* INNER_BLOCK, INNER_GROUP: ranges (rows, segments, pieces) in
                               flight per group, each OPNN_CUDA_UNROLL / ranges vectors deep:
                               1, 2 or OPNN_CUDA_UNROLL; also 2 * OPNN_CUDA_UNROLL: one range
                               twice as deep (INNER_BLOCK: at most 2 blocks an SM; INNER_GROUP:
                               rows a lane reads in one such round); OUTER: 1 for
                               a warp a unit (split 1; sub < 32, or 32 lanes of 16-byte
                               loads over few rows), 2 for contiguous rows read as one run
                               of vectors (a lane a column), 3 for
                               super-rows (plan_launch.c: tiles, split and vec are those of
                               the view [A, R / k, k * B]; segs is k), OPNN_CUDA_SHIFT_RANGES
                               for rows off 16 bytes read as the vectors that cover them (sub
                               32 or 16, tiles of segs vectors' columns), 2 * OPNN_CUDA_UNROLL
                               for a block a unit with 16-byte loads twice as deep (a kernel
                               for 2 blocks an SM), else a block a unit; ROW_TILE: 2 where a
                               MIDDLE slab's columns fold from a staggered row, 3 where
                               they fold from whole packs of rows (B of
                               OPNN_CUDA_ROW_TILE_PACK_COLS, R a multiple of the pack's
                               rows; sub lanes a slab; forced only, never planned), else 1 */
    int64_t whole;          /* OUTER, OPNN_CUDA_SHIFT_RANGES: units 0 .. whole - 1 are whole
                               tiles (tile index = unit, every row, no partials); the a * tiles
                               - whole tiles after them are split, `split` slices of `chunk`
                               rows each, with their own partials and counters; units is whole
                               + (a * tiles - whole) * split. 0 elsewhere (every tile split) */
    int64_t ncounters;      /* arrival counters the launch uses (self-resetting) */
    size_t partial_bytes;   /* partial results the launch writes and combines */
    size_t workspace_bytes; /* partial_bytes + counters */
} opnn_launch;

/// The shape classes every contiguous reduction collapses to.
typedef enum opnn_reduce_class {
    OPNN_CLASS_EMPTY = 0,   /* the output has no elements: nothing to do */
    OPNN_CLASS_FILL,        /* a reduced dim is 0: every output is finalize(identity, 0) */
    OPNN_CLASS_FULL,        /* [R]: one output; r_stride == 1 */
    OPNN_CLASS_ROW,         /* [A, R]: r_stride == 1, a_stride >= R (or 0) */
    OPNN_CLASS_COL,         /* [R, B]: b_stride == 1, r_stride >= B (or 0) */
    OPNN_CLASS_MIDDLE,      /* [A, R, B]: b_stride == 1 */
    OPNN_CLASS_OUTER_INNER, /* [R1, C, R2]: r2_stride == 1 (r1/c/r2 fields) */
    OPNN_CLASS_GENERIC,     /* anything else: the merged dims below */
    OPNN_CLASS_COUNT_
} opnn_reduce_class;

/// A planned reduction. Strides are in elements.
typedef struct opnn_reduce_plan {
    opnn_reduce_class cls;
    DLDataType dtype;
    int64_t out_numel; /* outputs to write */
    int64_t red_numel; /* elements combined into each output (N of Mean); 0 for FILL */
    uint32_t red_mask; /* which original dims are reduced (bit i = dim i) */

    /* FULL / ROW / COL / MIDDLE: the view [A, R, B]; absent parts have size 1, stride 0.
     * Output index of (a, b) is a * B + b: the output is compact in this order. */
    int64_t a, r, b;
    int64_t a_stride, r_stride, b_stride;

    /* OUTER_INNER: [R1, C, R2]; output index is c.
     * GENERIC whose merged dims are [R1, A, R, B] (reduced, kept, reduced, kept; B's stride 1,
     * the output compact in [A, B] order) also fills the view [A, R, B] above and r1,
     * r1_stride: R1 slabs of a middle view (r1 > 1 marks it; c and r2 stay 1). */
    int64_t r1, c, r2;
    int64_t r1_stride, c_stride, r2_stride;

    /* Merged dims, outermost first (every class fills them; GENERIC needs them). */
    int ndim;
    int64_t shape[OP_MAX_DIMS];
    int64_t istride[OP_MAX_DIMS]; /* input stride, elements */
    int64_t ostride[OP_MAX_DIMS]; /* output stride, elements; 0 for reduced dims */
    bool reduced[OP_MAX_DIMS];

    /* Filled by opnn__reduce_plan_launch for CUDA; zero for the CPU. */
    opnn_launch launch;
} opnn_reduce_plan;

/// The public name of the plan.
typedef opnn_reduce_plan op_reduce_plan;

#ifdef __cplusplus
}
#endif

#endif /* OPNN_REDUCE_PLAN_H */
