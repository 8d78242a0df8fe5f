/* CUDA launch geometry: (plan, device properties) -> family, block, grid, split, vector width
 * and workspace. Pure C, no CUDA: unit-tested anywhere, and the kernels in kernel/cuda only
 * follow what is decided here.
 *
 * Two ideas carry every choice below.
 *  - Bandwidth: an H200 streams about 4.5 TB/s only with several 16-byte loads in flight on
 *    every resident thread. Every family reads 16-byte vectors, OPNN_CUDA_UNROLL (4) of them in
 *    flight per thread, in blocks of 256 threads compiled for 3 (inner kernels) or 4 resident
 *    blocks per SM, so each SM keeps >= 48 KB of loads outstanding (4.5 TB/s * ~1 us latency /
 *    132 SMs ~ 35 KB needed).
 *  - Balance: the kernels are memory-bound and run their units in waves of `slots` blocks
 *    (SMs * blocks per SM). A last wave that is only partly full costs its full time, so a
 *    split is chosen either to keep every unit resident at once (units <= slots, equal work
 *    each) or to fill the waves to >= 96%.
 *
 * The numbers in the comments were measured on one H200 (132 SMs, 60 MB L2; `opnn bench` and a
 * white-box sweep that forces each family on the suite shapes; read ceiling 4.48-4.57 TB/s). */
#include "core/plan.h"

#include <string.h>

/* Up to this many bytes a FULL reduction runs in one block: small_full (16 KB) 5.0 us a call in
 * one block, 5.2 us split; at 1 MB one block takes 18.1 us, 64 blocks of 16 KB 7.0 us. */
#define FULL_SMALL_MAX_BYTES (32 * 1024)
/* A FULL split gives each block at least this much (mid_full above), and never more blocks
 * than are resident: full (1 GiB) runs 528 blocks grid-stride, 4442 GB/s (H200). */
#define FULL_MIN_BLOCK_BYTES (16 * 1024)
/* A row or segment is split into units of at least this many bytes, and only when there are
 * too few rows to fill the device (one_wave_split): splitting the 16384 rows of row_wide in two
 * dropped it from 4133 to 2553 GB/s (twice the units, each with a last-block combine). */
#define SPLIT_MIN_CHUNK_BYTES (8 * 1024)
/* Rows up to this size take a group of lanes (sub-warp or warp) each; longer ones a block.
 * row_wide (64 KB rows): a warp a row, one row at a time (ranges_for), 4520 GB/s; a block a
 * row 4133 GB/s (H200). Longer rows are not measured. */
#define ROW_GROUP_MAX_BYTES (64 * 1024)
/* Inputs up to SMALL_INPUT_MAX_BYTES are latency-bound: rows of up to SMALL_ROW_MAX_BYTES (two
 * rounds of loads a lane) take a warp each however few they are. small_rows ([64, 1024] f32) in
 * a host loop of graph replays: 2.55 us a call with a warp a row, 2.87 with a block a row (H200;
 * 2.0 us for an empty kernel). Longer rows keep a block each (fewer serial rounds a lane). */
#define SMALL_INPUT_MAX_BYTES (1024 * 1024)
#define SMALL_ROW_MAX_BYTES (4 * 1024)
/* Contiguous rows of 16 whole vectors (256 bytes) in an input of at least this size take
 * ROW_TILE rather than 4-lane groups. Alternated medians of 30 launches, two runs (H200, us,
 * groups against tiles): 1 GiB f32 [4194304, 64] 263.0, 262.4 -> 260.6, 260.7; f16 [4194304,
 * 128] 259.0, 258.9 -> 254.1, 254.3; i32 262.7, 262.2 -> 260.9, 260.4; f64 [4194304, 32]
 * 275.2, 274.0 -> 261.9, 261.5; i64 273.9, 274.9 -> 261.9, 261.7; 2 GiB f32 535 -> 514, f64
 * 543 -> 516, bf16 514 -> 500. Below it the groups stay ahead or even: 512 MiB f32 132.5 ->
 * 134.2 (f16, bf16, f64, i64 1% the other way), 256 MiB f32 66.2 -> 67.2 and f64 70.4 -> 71.0,
 * 128 MiB f16 34.9 -> 36.0 and f64 36.9 -> 38.4. Rows of 32 vectors stay in groups (1 GiB f32
 * 252.2 -> 254.4, f64 257.6 -> 260.4; f16 251.0 -> 248.6). */
#define ROW_TILE16_MIN_BYTES ((int64_t)1 << 30)
/* OUTER_INNER segments up to this many vectors go to the group kernel (lanes walk R1). Not
 * measured against the block kernel yet. */
#define OUTER_INNER_GROUP_MAX_VEC 8
/* Column reductions with at most this many rows read them all in one thread, no split:
 * col_short (16 rows) 4253 GB/s. */
#define COL_TINY_R_MAX 32
/* Each thread of a column slice reads at least this many rows: the partials written and
 * re-read per output cost 2 * split * acc bytes against rows * size bytes of input, so 64 rows
 * a thread keep that under 1.6% for f32 (computed, not measured). Where that leaves 16-byte
 * loads fewer blocks than COL_FEW_BLOCKS_X2 / 2 an SM, COL_FEW_ROWS_PER_THREAD: H200, from
 * memory, best of 40: [8192, 1024] over 0 (f32) 16.8 -> 14.9 us (128 -> 256 blocks), f64 [1000,
 * 4096] 22.0 -> 15.1, [1000, 2500] 12.8 -> 10.3, bf16 [4096, 4096] 18.0 -> 15.6, super-rows
 * [8217, 1021] 21.1 -> 17.6, [16433, 600] 18.7 -> 16.7; 16 rows a thread was slower than 32 on
 * 3 of those. More slices where there were 2 blocks an SM or more, or for single-element loads,
 * lost 4-20% ([16433, 1021] 24.9 -> 26.1 us, [1000, 8191] 12.6 -> 15.1). */
#define COL_MIN_ROWS_PER_THREAD 64
#define COL_FEW_ROWS_PER_THREAD 32
#define COL_FEW_BLOCKS_X2 3
/* Column plans of 16-byte loads, a block a unit, in at most half this many blocks an SM keep
 * 8 loads in flight a thread rather than 4 (ranges 2 * OPNN_CUDA_UNROLL: the outer kernel
 * compiled for 2 blocks an SM, 94-96 registers, no spills). Against `opnn_families --ranges 4`,
 * medians of 30, two runs (H200, session 31, call 3), us: [1000, 2500] over 0 (f32, 60 blocks)
 * 13.4-13.6 -> 11.9-12.0, f64 14.1-14.2 -> 12.6, [517, 4100] (66) 12.0-12.3 -> 10.9-11.1,
 * [1000, 4096] (96) 13.7-14.0 -> 12.6-12.9, f64 (192) 15.7 -> 15.0-15.2, [1024, 4096] (128)
 * 12.7-12.9 -> 11.8-12.0, f16 (64) 12.4-12.6 -> 11.4-11.6, [4100, 1000] (128) 13.3-13.4 ->
 * 12.6, [2, 4099, 600] over 1 (160) 13.7-13.9 -> 13.1-13.3, f16 (96) 13.4 -> 12.4. At 2 blocks an
 * SM it was no faster (call 2, a planner knob): [8192, 1024] (256) 15.6-15.7 -> 15.9-16.0,
 * [2048, 4096] 15.3 -> 15.4-15.5, bf16 [4096, 4096] 16.4-16.7 -> 16.7, [16384, 1024] 23.4-23.5
 * -> 23.1-23.5 */
#define COL_DEEP_MAX_BLOCKS_PER_SM_X2 3
/* Narrow slabs (a row under a warp's 16-byte loads) run a warp a slab, 8 a block, where those
 * blocks are at least 1.5 an SM (x2: 3), else a block a slab (plan_outer_vec). 100 MB of f32
 * [A, R, 32] over 1 (us, median, H200, 132 SMs), a warp a slab against a block a slab: A 1024
 * (128 blocks of warps) 35.6 / 30.8; A 1056 (132) 35.7 a warp; A 2048 (256) 30.3 / 33.6;
 * 4096 29.5 / 40.1; 8192 30.8 / 55.8 (f16 [A, R, 64] and f32 [A, R, 8] the same way). 1.5 lies
 * between the last loss (1 an SM) and the first win (1.94) measured. */
#define NARROW_WARP_MIN_BLOCKS_PER_SM_X2 3
/* FEW_UNITS_NARROW (plan_outer_vec): a middle's column tiles fewer than the SMs (few, narrow
 * slabs) leave SMs idle as a block a slab, and a split of them pays a combine that cost what it
 * saved (f32 [32, 3136, 16] over 1: 10.2 us unsplit, 10.4-10.8 at splits 2-8; H100, session
 * 42). ncu of it (H100): a block reading a quarter of the slab was active 9000 cycles, the whole
 * slab 10900, so the slabs' blocks, not their bytes, set the time. Narrower column tiles make
 * more units with no partials: `opnn_families --check 1`, medians of 30, two runs, the old plan
 * against the new in one binary (H100, session 44, us). Unsplit: f32 [32, 3136, 16] 32 units of 4
 * threads across 10.3 -> 128 of 1 8.7; f16 [128, 3136, 3] 8.2 -> 7.4 (256 of 2); bf16 [16, 6272,
 * 16] 10.8 -> 9.2; f32 [48, 1000, 12] 7.8 -> 7.3; [100, 2000, 5] 8.4 -> 7.4; [40, 700, 24] 7.7 ->
 * 7.6. Where the units already fill the SMs, narrower tiles lost ([256, 3136, 32] 256 units 40.6,
 * 512 41.5, 1024 44.5). Split: unsplit at about the split's units from tiles of 32 bytes a row
 * or more, f16 [24, 4096, 64] 12.7 -> 11.4 (96 units), [48, 2048, 64] 12.8 -> 11.0, bf16 [8,
 * 4096, 256] 14.4 -> 13.0, f32 [2, 4099, 600] 15.2 -> 14.3, [4, 2048, 1000] 18.5 -> 17.0, [32,
 * 1024, 96] 12.3 -> 10.5, but [12, 4096, 128] 16.1 -> 16.6; where such tiles make too few units
 * the split stays ([8, 12544, 32] split 12 12.9 against 13.9 unsplit at best). Inputs over
 * FEW_UNITS_MAX_BYTES (none measured) keep their plans. */
#define FEW_UNITS_MAX_BYTES (32 << 20)
/* OUTER_INNER units of at most this many loads a thread of a 256-thread block take blocks of 128
 * threads, a quarter of it 64 (plan_inner_block) */
#define SMALL_UNIT_LOADS 32
/* Units smaller than this run on a persistent grid (grid_for): row_tiny (16 KB tiles) 3512
 * GB/s persistent, 3237 with a block per tile; row_wide (64 KB rows, block kernel) 3979
 * persistent, 4133 with a block per row. */
#define PERSISTENT_MAX_UNIT_BYTES (64 * 1024)
/* Group kernel: rows up to this many vectors get lanes by their length, longer ones by their
 * count (group_sub_for). */
#define GROUP_SHORT_MAX_VEC 128
/* Group kernel: at most this many vectors in one lane's serial chain of fp32 additions (a
 * 400001-long row in one lane missed the test's fp32 tolerance). */
#define GROUP_MAX_CHAIN 16384
/* Super-rows (plan_outer_super): at most this many k * B results to fold (f16 [100001, 2501]:
 * 20008), so B is at most 64 chunks of the fold (OPNN_CUDA_SUPER_FOLD_COLS). */
#define SUPER_MAX_FOLD (64 * 1024)
/* Super-rows read at least SUPER_MIN_BYTES, and this much an SM (405 MB on an H200). Below 32
 * MB they have too few rows for slices enough: [4100, 1021] over 0 (f32, 17 MB) ran 16.0 us as
 * 64 blocks of super-rows against 10.9 as 256 of single floats. Below the other bound their
 * fold, a tail of a few microseconds, costs more than they save: against the plan each shape
 * gets without them (H200, session 25, us), [8217, 1021] over 0 (f32, 34 MB) 18.8 against
 * 16.4, [16433, 1021] 26.6 against 24.8, [13000, 2501] 41.1 against 38.7, [125000, 257] 41.6
 * against 39.6, f16 [250000, 259] 45.1 against 43.2, f16 [400000, 259] (207 MB) 62.7 against
 * 61.5, f16 [50000, 2501] 71.2 against 68.7, [26000, 2501] (260 MB) 70.1 against 68.8,
 * [250000, 257] (257 MB) 70.5 against 70.9, [40000, 2501] (400 MB) 101.0 against 100.3; and
 * above it the other way: [400000, 257] (411 MB) 105.2 against 110.0, f16 [100001, 2501] 127.4
 * against 128.3, f16 [1000000, 259] 133.1 against 141.5, [1000000, 257] 246.0 against 267.5,
 * f16 [3000000, 301] 427.5 against 500. The fold's tail is a fixed time, the rest the bytes an
 * SM reads. */
#define SUPER_MIN_BYTES (32 << 20)
#define SUPER_MIN_BYTES_PER_SM ((int64_t)3000 << 10)
/* The shift plan's last tiles (plan_shift_tail) are split into slices of at least this many
 * rows a thread: 4 (one round of loads) against 16, us: f16 [32, 1001, 3001] over 1 56.5 against
 * 55.0, f64 [24, 1000, 1001] 52.2 against 50.7, [46, 1001, 1001] 50.8 against 50.0, f16 [34,
 * 1001, 3001] 57.3 against 57.7 (H200) */
#define SHIFT_TAIL_MIN_ROWS 16
/* A column shift plan (one slab) that choose_split splits takes about this many (over 2) units
 * an SM of its tiles more than half full (plan_shift_col_split): fewer, longer slices than a
 * wave of slots or two. Chosen from `opnn_families --split` (medians of 30, two runs, us, H200,
 * session 34), the planner's split before against about 1.5 units an SM: [20000, 2501] over 0
 * (37 slices, 777 units) 55.9, 55.6 -> 9 (189) 52.4, 52.2; [26000, 2501] 68.4, 68.3 -> 66.6, 66.1;
 * [13000, 2501] (18: 378) 37.8, 37.7 -> 36.4, 36.6; f16 [26000, 2501] (35: 385) 40.6, 40.7 -> 18
 * (198) 39.0, 39.2; [60000, 1001] (43: 387) 63.7, 63.6 -> 22 (198) 62.4, 62.1. Fewer lose:
 * [13000, 4001] 4 slices (132 units) 57.1, 57.2 against 12 (396) 54.9, 54.7; f16 [250000, 259] (a
 * tile of 31 vectors and one of 2: 191 slices, the rule's too) 42.2, 42.3, 96 slices 48.8. The
 * rule against the split before, the same binary (call 3): 18 of 19 shapes faster, by up to
 * 6.5% ([10000, 5001] 55.5, 55.0 -> 52.1, 51.7; [16000, 3001] 53.4, 53.3 -> 50.0, 50.0; eleven
 * of them not among those it was chosen from), [6000, 8001] the same (50.2 -> 50.1, 50.7), bf16
 * [30000, 3001] slower (50.0, 50.2 -> 51.2, 51.2). In middles (A > 1) no rule held: f16 [4,
 * 20001, 1001] 51.7 -> 47.5 and [8, 4001, 2501] 82.0 -> 78.7 at about 1.5 units an SM, [16, 8001,
 * 1001] 125.3 -> 128.7 (split 1) and 131.6 (split 2). */
#define SHIFT_COL_UNITS_PER_SM_X2 3
/* Exact shift tiles (shift_exact) down to half the slots in units where they are this full
 * (columns over the tiles' columns): exact tiles of 32 vectors, bench/phase_probe.cu, f16 over 1
 * (H200): [32, 1001, 2001] 256 units 34.2 us against 38.5 at half a warp (512), but [128, 1001,
 * 257] (tiles half full) 26.1 against 21.1 */
#define SHIFT_FULL_TILES_NUM 3
#define SHIFT_FULL_TILES_DEN 4
/* Column tiles of a warp's 32 loads with no split are warp units (a warp a tile, every row, no
 * block tree) where a block's 8 rows at once would leave each thread at most this many rows and
 * the units fill every warp of the slots' blocks. The block's tree of 8 rows and 3 barriers a
 * tile was the cost: against it (H200, us) [4096, 64, 1024] over 1 264.6 -> 260.0, f16 168.0 ->
 * 133.8, [16384, 32, 512] 319.4 -> 272.4; where each thread has more rows it gains little or
 * loses ([1024, 256, 1024] 247.5 -> 246.8, [256, 256, 4096] 247.5 -> 248.3, [1024, 1024, 256]
 * 244.2 -> 252.8), and with fewer units than warps a wave it loses much ([16, 512, 128, 256] over
 * (0, 2) bf16, 512 units: 125.4 -> 269.5) */
#define WARP_TILE_MAX_ROWS 128
/* A split within this fraction of the ideal is good enough (a 4% tail at most). */
#define WAVE_EFF_GOOD 0.96

static int64_t cdiv(int64_t a, int64_t b)
{
    return b > 0 ? (a + b - 1) / b : 0;
}

static int64_t imin(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t imax(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t pow2_floor(int64_t x)
{
    int64_t p = 1;

    while (p * 2 <= x)
        p *= 2;
    return p;
}

static int64_t pow2_ceil(int64_t x)
{
    int64_t p = 1;

    while (p < x)
        p *= 2;
    return p;
}

static size_t esize_of(DLDataType t)
{
    return t.bits / 8u;
}

/* Blocks of OPNN_CUDA_BLOCK threads of a kernel compiled for per_sm resident blocks
 * (__launch_bounds__) that the whole device holds at once. */
static int64_t device_slots(const opnn_device_props *props, int64_t per_sm)
{
    int64_t sms = props && props->sm_count > 0 ? props->sm_count : 1;

    if (props && props->max_threads_per_sm > 0)
        per_sm = imin(per_sm, imax(1, props->max_threads_per_sm / OPNN_CUDA_BLOCK));
    return sms * per_sm;
}

/* How many units to cut each of `base` equal pieces of work (each n items long: segments, rows,
 * elements) into, at most max_split. A split s gives units of ceil(n / s) items; the time is
 * (waves of `slots` blocks) x (items per unit), against the ideal base * n / slots. Returns the
 * smallest split within WAVE_EFF_GOOD of the ideal, else the best. With fewer units than slots
 * all run at once with equal work. Column slices use it; the block kernel's units, which carry
 * a start-up each, use one_wave_split. */
static int64_t choose_split(int64_t base, int64_t n, int64_t slots, int64_t max_split)
{
    int64_t best = 1;
    double best_eff = 0;

    base = imax(1, base);
    n = imax(1, n);
    max_split = imax(1, imin(imin(max_split, n), 4 * slots));
    for (int64_t s = 1; s <= max_split; s++) {
        int64_t per = cdiv(n, s), units = base * cdiv(n, per);
        double e =
            (double)base * (double)n / ((double)cdiv(units, slots) * (double)slots * (double)per);

        if (e >= WAVE_EFF_GOOD)
            return s;
        if (e > best_eff + 1e-9) {
            best = s;
            best_eff = e;
        }
    }
    return best;
}

/* Units per output for the block kernel (each unit one block, a grid of all of them): as many
 * as still fit in one wave of `slots` resident blocks, at most max_split, at least 1. A second,
 * partial wave costs what a full one does, and smaller units only add per-unit start-up. H200,
 * block kernel at 3 blocks/SM (396 slots): [256, 64, 12544] over (0, 2): 384 units 185 us,
 * 256 units 193 us, 512 units 209 us; [16, 32, 65536]: 256 units 37 us, 512 units 41 us;
 * [64, 4194304] rows: 384 units 244 us, 512 units 262 us; bn_nhw: 256 units 98.5 us, 512 units
 * 109 us; [64, 512, 784]: 512 channels, no split, 32 us against 76 us for 6656 units of 5
 * segments each (the wave-filling split before). */
static int64_t one_wave_split(int64_t outputs, int64_t slots, int64_t max_split)
{
    return imax(1, imin(max_split, slots / imax(1, outputs)));
}

static void launch_reset(opnn_launch *l, int family, int kernel)
{
    memset(l, 0, sizeof *l);
    l->family = family;
    l->kernel = kernel;
    l->block = OPNN_CUDA_BLOCK;
    l->grid_y = 1;
    l->split = 1;
    l->vec = 1;
    l->sub = 1;
    l->ranges = OPNN_CUDA_UNROLL;
}

/* Blocks to launch for `units` units of unit_bytes each. The kernels stride over units, so any
 * grid is correct. Small units run on a persistent grid (one resident wave, each block looping
 * over units +-1 of the same count): a block per 16 KB unit is limited by block start-up and
 * its first round trip (row_tiny: 3230 GB/s with 65536 blocks, H200). Large units take a block
 * each and the hardware balances them. */
static int64_t grid_for(int64_t units, int64_t unit_bytes, int64_t slots)
{
    if (unit_bytes < PERSISTENT_MAX_UNIT_BYTES)
        units = imin(units, slots);
    /* CUDA allows 2^31 - 1 blocks */
    return imax(1, imin(units, (int64_t)0x7fffffff));
}

static void launch_workspace(opnn_launch *l, int64_t partials, int64_t counters)
{
    l->ncounters = counters;
    l->partial_bytes = (size_t)partials * OPNN_CUDA_MAX_ACC_BYTES;
    l->workspace_bytes = l->partial_bytes + (size_t)counters * sizeof(uint32_t);
}

/* An OUTER plan's workspace where its `split` slices (more than one) each write a partial row of
 * every column tile of its view's b columns: the columns a partial row holds for its sub lanes of
 * vec elements or the narrower loads the launcher may take for the pointer (down to single
 * elements), and a counter a tile (of those loads or of single elements, the more); none
 * without a split. The planner's and opnn__reduce_launch_outer_split's. */
static void outer_workspace(opnn_launch *l, int64_t a, int64_t b)
{
    int64_t cols = 0;

    if (l->split <= 1) {
        launch_workspace(l, 0, 0);
        return;
    }
    for (int64_t k = l->vec; k >= 1; k /= 2)
        cols = imax(cols, cdiv(b, l->sub * k) * k);
    launch_workspace(l, a * cols * l->sub * l->split, a * imax(l->tiles, cdiv(b, l->sub)));
}

/* A super-row plan's (the view [A, R / k, k * B]): the super-rows' partials, then the k * B
 * results to fold; the tiles' counters, then the fold's chunks' (at most 64 a slab: B <=
 * SUPER_MAX_FOLD / 4) */
static void super_workspace(opnn_launch *l, int64_t a, int64_t b, int64_t k)
{
    outer_workspace(l, a, k * b);
    launch_workspace(l, (int64_t)(l->partial_bytes / OPNN_CUDA_MAX_ACC_BYTES) + a * k * b,
                     l->ncounters + a * cdiv(b, OPNN_CUDA_SUPER_FOLD_COLS));
}

/* --- FULL: one contiguous range ------------------------------------------------------------ */

/* Grid-stride over the whole range (full_kernel): every block resident at once, at least
 * FULL_MIN_BLOCK_BYTES each; a partial per block, combined by the last. */
static void plan_full(opnn_reduce_plan *p, const opnn_device_props *props, int family)
{
    opnn_launch *l = &p->launch;
    size_t es = esize_of(p->dtype);
    int64_t bytes = p->r * (int64_t)es;
    int64_t slots = device_slots(props, OPNN_CUDA_BLOCKS_PER_SM);

    launch_reset(l, family, OPNN_KERNEL_FULL);
    l->vec = (int)(16 / es);
    l->grid_x =
        family == OPNN_FAMILY_FULL_SMALL ? 1 : imax(1, imin(slots, bytes / FULL_MIN_BLOCK_BYTES));
    l->units = l->grid_x;
    l->split = l->grid_x;
    if (l->grid_x > 1)
        launch_workspace(l, l->grid_x, 1);
}

/* --- the inner view [R1, C, K], K contiguous ----------------------------------------------- */

typedef struct inner_view {
    int64_t r1, c, k;
    int64_t r1_stride, c_stride;
} inner_view;

static bool inner_view_of(const opnn_reduce_plan *p, inner_view *v)
{
    switch (p->cls) {
    case OPNN_CLASS_FULL:
    case OPNN_CLASS_ROW:
        v->r1 = 1;
        v->r1_stride = 0;
        v->c = p->a;
        v->c_stride = p->a_stride;
        v->k = p->r;
        return true;
    case OPNN_CLASS_OUTER_INNER:
        v->r1 = p->r1;
        v->r1_stride = p->r1_stride;
        v->c = p->c;
        v->c_stride = p->c_stride;
        v->k = p->r2;
        return true;
    default:
        return false;
    }
}

/* Lanes per range for the block kernel's units of one segment (units of several are walked
 * flat by the whole block): the largest power of two in [32, 256] that leaves at most 10% of the
 * lanes idle on a segment's last round of vectors. Measured when bn_nhw still took segments a
 * group at a time (784 vectors a segment): 64 lanes 3994 GB/s; each segment cut into 4 pieces
 * walked together 3725 GB/s. */
static int block_sub_for(int64_t nvec)
{
    for (int g = OPNN_CUDA_BLOCK; g > 32; g /= 2)
        if ((double)nvec / (double)(g * cdiv(nvec, g)) >= 0.9)
            return g;
    return 32;
}

static void plan_inner_block(opnn_reduce_plan *p, const opnn_device_props *props,
                             const inner_view *v, int family)
{
    opnn_launch *l = &p->launch;
    size_t es = esize_of(p->dtype);
    int64_t vec = (int64_t)(16 / es), nvec = cdiv(v->k, vec);
    int64_t seg_bytes = v->k * (int64_t)es;
    int64_t slots = device_slots(props, OPNN_CUDA_BLOCKS_PER_SM_INNER);
    int64_t split = 1, chunk = 0, segs = v->r1, unit_bytes;

    launch_reset(l, family, OPNN_KERNEL_INNER_BLOCK);
    l->vec = (int)vec;
    l->sub = OPNN_CUDA_BLOCK;

    /* one range at a time, OPNN_CUDA_UNROLL vectors deep (a smaller window of memory open):
     * [4096, 65536] rows 240 us against 246 us with four ranges; and a unit of several segments
     * is walked as one flat sequence, only in the kernel's ranges == 1 form */
    l->ranges = 1;
    if (family == OPNN_FAMILY_ROW_BLOCK) {
        split = 1;
    } else if (family == OPNN_FAMILY_ROW_SPLIT) {
        split = one_wave_split(v->c * v->r1, slots, seg_bytes / SPLIT_MIN_CHUNK_BYTES);
        if (split < 2 && seg_bytes >= 2 * SPLIT_MIN_CHUNK_BYTES)
            split = 2;
    } else { /* OUTER_INNER: split over R1 first, then within segments */
        split = one_wave_split(v->c, slots, v->r1);
        if (split >= v->r1 && v->r1 * v->c < slots) {
            int64_t pieces =
                one_wave_split(v->c * v->r1, slots, imax(1, seg_bytes / SPLIT_MIN_CHUNK_BYTES));

            split = v->r1 * pieces; /* chunk mode: `pieces` chunks per segment */
        }
        if (split <= v->r1)
            l->sub = block_sub_for(nvec);
    }

    if (split > v->r1) {
        /* chunk mode: each unit one chunk of one segment, chunks a whole number of vectors */
        int64_t pieces = cdiv(split, v->r1);

        chunk = cdiv(cdiv(v->k, pieces), vec) * vec;
        pieces = cdiv(v->k, chunk);
        split = v->r1 * pieces;
        segs = 1;
    } else {
        segs = cdiv(v->r1, split);
        split = cdiv(v->r1, segs);
    }

    l->split = split;
    l->chunk = chunk;
    l->segs = segs;
    l->units = v->c * split;
    unit_bytes = (chunk ? chunk : v->k * segs) * (int64_t)es;
    l->grid_x = grid_for(l->units, unit_bytes, slots);
    /* a block a unit and at most two an SM: twice the loads in flight a thread (the kernel's
     * DEPTH 2), or such grids have too few bytes in flight to stream: bn_nhw (256 blocks) 97.8
     * us against 102.0, [64, 256, 128, 128] over (0, 2, 3) 244.8 against 249.5 (H200) */
    if (l->grid_x == l->units && l->units <= 2 * (int64_t)props->sm_count &&
        unit_bytes >= 16 * 2 * OPNN_CUDA_UNROLL * OPNN_CUDA_BLOCK)
        l->ranges = 2 * OPNN_CUDA_UNROLL;
    /* OUTER_INNER units of a block each over more than one wave of slots but less than two: the
     * second wave ran part full ([64, 512, 28, 28] over (0, 2, 3): 512 blocks on 396 slots).
     * Two blocks an SM striding over the units at DEPTH 2 instead: 30.6 us against 34.4
     * (`opnn_families --ranges 8 --grid 264`, best of 20, H200; 29.6 against 32.4 in an earlier
     * run); 4 deep on 3 an SM: 32.2. Not measured for ROW_BLOCK, which keeps a block a unit. */
    else if (family == OPNN_FAMILY_OUTER_INNER && l->grid_x == l->units && l->units > slots &&
             l->units < 2 * slots && unit_bytes >= 16 * 2 * OPNN_CUDA_UNROLL * OPNN_CUDA_BLOCK) {
        l->grid_x = 2 * imax(1, props->sm_count);
        l->ranges = 2 * OPNN_CUDA_UNROLL;
    }
    /* OUTER_INNER units of a few loads a thread, more of them than slots, no split: blocks of 64
     * or 128 threads (the same threads an SM), so two or four times the units in flight, each
     * a flat walk of more loads a thread. H200, from memory, best of 40, against 256 threads:
     * [32, 2048, 7, 7] over (0, 2, 3) (6 loads a thread) 17.9 -> 11.4 us with 64, f16 15.7 ->
     * 10.6; [32, 1024, 14, 14] (6 vectors) 12.4 -> 11.0 with 64, 12.5 with 128; f16 (24 halves
     * a thread) 17.1 -> 12.1 with 128, 14.8 with 64. Segments off 16 bytes count the vectors
     * that cover them (the kernel reads those since): f16 [32, 1024, 14, 14], 26 a segment,
     * 8.6 us with 64 threads, 9.8 with 128 */
    if (family == OPNN_FAMILY_OUTER_INNER && split == 1 && l->ranges == 1 && l->units > slots) {
        /* aligned vectors (every segment on a 16-byte boundary, given an aligned pointer), the
         * vectors that cover segments off 16 bytes, or elements: what the kernel reads */
        bool aligned =
            seg_bytes % 16 == 0 && v->r1_stride % vec == 0 && (v->c == 1 || v->c_stride % vec == 0);
        int64_t loads =
            segs * (aligned                                  ? nvec
                    : seg_bytes >= OPNN_CUDA_COVER_MIN_BYTES ? OPNN_CUDA_COVER_VECTORS(v->k, vec)
                                                             : v->k);

        if (loads <= SMALL_UNIT_LOADS * OPNN_CUDA_BLOCK) {
            l->block = loads <= SMALL_UNIT_LOADS / 4 * OPNN_CUDA_BLOCK ? OPNN_CUDA_BLOCK / 4
                                                                       : OPNN_CUDA_BLOCK / 2;
            l->sub = (int)imin(l->sub, l->block);
            if (l->grid_x < l->units)
                l->grid_x = imin(l->units, slots * (OPNN_CUDA_BLOCK / l->block));
        }
    }
    if (split > 1)
        launch_workspace(l, v->c * split, v->c);
}

/* Ranges (rows) in flight per group of `sub` lanes over rows of nvec vectors: one row walked
 * OPNN_CUDA_UNROLL vectors deep when each lane has that many vectors of it, so fewer rows are
 * open across the device at once; otherwise enough rows to keep OPNN_CUDA_UNROLL loads in
 * flight. H200, a block per tile: seed_hw 4326 GB/s with one row a group against 4209 with
 * four; row_wide 4520 (a warp a row) against 4133 (a block a row); row_wide16 4438 against
 * 4012; row_mid 4623 against 4472. Four rows a group stay for short rows (row_tiny-like: one
 * row a group reads 1827 GB/s, four 3508). */
static int64_t ranges_for(int64_t nvec, int64_t sub)
{
    int64_t per_lane = nvec / sub;

    return per_lane >= OPNN_CUDA_UNROLL ? 1 : per_lane >= 2 ? 2 : OPNN_CUDA_UNROLL;
}

/* Rows of one group-kernel tile: a block's groups times the rows each has in flight. */
static int64_t group_tile_rows(int64_t nvec, int64_t sub)
{
    return (OPNN_CUDA_BLOCK / sub) * ranges_for(nvec, sub);
}

static void plan_inner_group(opnn_reduce_plan *p, const opnn_device_props *props,
                             const inner_view *v, int family, int64_t sub)
{
    opnn_launch *l = &p->launch;
    int64_t es = (int64_t)esize_of(p->dtype);
    int64_t nvec = cdiv(v->k, 16 / es), ranges = ranges_for(nvec, sub);
    int64_t rows = group_tile_rows(nvec, sub), lane_vec = cdiv(nvec, sub);

    launch_reset(l, family, OPNN_KERNEL_INNER_GROUP);
    l->vec = (int)(16 / es);
    l->sub = (int)sub;
    l->ranges = (int)ranges;
    /* one row a group that a lane reads in one round of 2 * OPNN_CUDA_UNROLL vectors but not
     * of OPNN_CUDA_UNROLL: that round, not two ([64, 512, 28, 28] over (2, 3), rows of 196
     * vectors, a warp each: 28.0 us against 30.0; seed_hw, 24.5 vectors a lane: 98.8 us either
     * way, H200) */
    if (ranges == 1 && lane_vec > OPNN_CUDA_UNROLL && lane_vec <= 2 * OPNN_CUDA_UNROLL)
        l->ranges = 2 * OPNN_CUDA_UNROLL;
    l->units = cdiv(v->c, rows);
    /* a warp a row, one row at a time, tiles over several waves: blocks of 4 warps, not 8. A
     * block's slot is free only when its last warp ends, and tiles half the size leave half
     * that idle time (seed_hw: 97.0 us against 98.8 and 94.6 against 98.1 in two runs, Max 96.3
     * against 98.1; row_wide, 16 lanes a row and tiles of 1 MB, 243.6 against 242.2, so not
     * there; H200) */
    if (family == OPNN_FAMILY_ROW_WARP && ranges == 1 &&
        l->units >= 2 * device_slots(props, OPNN_CUDA_BLOCKS_PER_SM_INNER)) {
        l->block = OPNN_CUDA_BLOCK / 2;
        rows /= 2;
        l->units = cdiv(v->c, rows);
    }
    /* a warp a row, fewer tiles than SMs (a small input): smaller blocks, down to 2 warps, so
     * that more SMs share the reads ([64, 1024] f32 over 1, a host loop of graph replays: 2.47
     * and 2.63 us a call with 8 blocks of 8 warps, 2.37 with 16 of 4 and 2.37-2.40 with 32 of 2;
     * H200) */
    while (family == OPNN_FAMILY_ROW_WARP && ranges == 1 && l->units < props->sm_count &&
           l->block > 64) {
        l->block /= 2;
        rows /= 2;
        l->units = cdiv(v->c, rows);
    }
    /* one or two rows a group (a smaller window), or a thread a row: a block per tile, the
     * hardware balances them ([4194304, 49] rows, 4 lanes and two rows a group: 266 us against
     * 282 us persistent; [33554432, 4] rows, a thread each: 178 us against 194 us); four rows a
     * group (rows of one vector a lane), many tiles: a persistent grid, whatever their size
     * (blocks of groups have no block-wide step to amortise); row_tiny-like rows 3512 GB/s
     * against 3237 (H200) */
    if (ranges <= 2 || sub == 1)
        l->grid_x = imax(1, imin(l->units, (int64_t)0x7fffffff));
    else if (l->units >= 2 * device_slots(props, OPNN_CUDA_BLOCKS_PER_SM_INNER))
        l->grid_x = device_slots(props, OPNN_CUDA_BLOCKS_PER_SM_INNER);
    else
        l->grid_x = grid_for(l->units, rows * v->r1 * v->k * es,
                             device_slots(props, OPNN_CUDA_BLOCKS_PER_SM_INNER));
}

/* Lanes per row of the group families, for c rows of nvec vectors. Short rows: about 4 vectors
 * a lane, at least 4 lanes (64 contiguous bytes) a row; row_mid (64 vectors): 16 lanes,
 * 4357 GB/s, against 3948 GB/s for a warp. Long rows: a warp, unless its row tiles (4 rows a
 * group) would make between one and two waves (a partial second wave costs what a full one
 * does); then 16 lanes. seed_hw (32768 rows, 1024 warp tiles): a warp 4146 GB/s, 16 lanes
 * 3906, 8 lanes 3581; row_wide16 (16384 rows): 16 lanes (256 tiles) 3916 GB/s, a warp (512
 * tiles on 396 slots) 3719 GB/s (H200). */
static int64_t group_sub_for(int64_t nvec, int64_t c, int64_t slots)
{
    int64_t tiles32 = cdiv(c, (OPNN_CUDA_BLOCK / 32) * OPNN_CUDA_UNROLL);

    if (nvec <= GROUP_SHORT_MAX_VEC)
        return imax(imin(4, pow2_floor(imax(1, nvec))), imin(32, pow2_floor(imax(1, nvec / 4))));
    if (tiles32 > slots && tiles32 < 2 * slots)
        return 16;
    return 32;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Warp tiles a warp on the grids of ROW_TILE and ROW_VEC, which stride over tiles: a grid of
 * units / (warps a block * this) blocks where that passes one resident wave. On a resident wave
 * alone (each warp striding over a thousand tiles or more) their warps drift apart over the
 * input; with blocks that start in order the tiles read at any time stay close: H200,
 * `opnn_families --grid` (best of 20): [8388608, 32] f16 ROW_VEC 139.3 us at 528 blocks, 133.6
 * at 16896; [16777216, 16] f32 267.0, 262.9; ROW_TILE rows of 127 f32 271.3 at 1056, 261.1 at
 * 16896; rows of 17 271.8, 267.3. A streaming kernel that reads 8 vectors and writes one read
 * 0.965 of its ceiling on a grid a warp a tile, 0.951 on 4 resident blocks an SM. Tiles a warp
 * (H200, medians, opnn_families --grid, two runs each): ROW_VEC 2 against 4 was faster on all
 * 16 shapes measured, by 0.3-1.5% (f16 [8388608, 32] 134.1 -> 132.2-132.4 us, bf16 [2097152,
 * 16, 4] over 1 71.6 -> 70.5-70.7, f32 [16777216, 16] 264.4 -> 263.0-263.7; 1 tile a warp 0.8%
 * slower than 4, 8 tiles 0.3%). ROW_TILE (blocks of 2 warps) at 2 against 4, 20 shapes of rows
 * of 3 to 200 elements (session 31, call 2): no slower on any, 0.5-1.4% faster on rows of 12 to
 * 127 f32 ([2113665, 127] 260.2-260.3 -> 257.9, [15790320, 17] 267.4-267.9 -> 265.9-266.2), f16
 * rows of 49 and 200 (263.1-263.5 -> 261.6-261.7) and f64 rows of 3 (334.6-334.8 -> 330.0-330.2),
 * the same on rows of 3 to 7 f32, f16 and i32. 1 tile a warp took 1.2-2.1% off rows of 24 to 127
 * f32 ([2113665, 127] -> 254.8) but added 2.6% to rows of 17 f32 (-> 274.5-274.9), 1.8% to f16
 * rows of 49 and 6.1% to f64 rows of 3 (-> 355.1-355.3) */
#define ROW_TILES_PER_WARP 2

static int64_t row_tiles_grid(int64_t units, int block, int64_t slots)
{
    int64_t wpb = block / 32, all = cdiv(units, wpb);
    return imax(1, imin(imin(all, imax(slots, cdiv(units, wpb * ROW_TILES_PER_WARP))),
                        (int64_t)0x7fffffff));
}

/* A ROW_TILE warp tile's bytes at most (6.5 KB). */
#define ROW_TILE_BYTES (OPNN_CUDA_ROW_TILE_MAX_VEC * 16)

/* ROW_TILE's pack: the fewest consecutive rows of row_bytes (at most max_bytes) that end on a
 * 16-byte boundary (16 / gcd(row_bytes, 16)), and the vectors they span. 0 if the rows are too
 * long for a tile. */
static int64_t row_tile_pack(int64_t row_bytes, int64_t max_bytes, int64_t *pack_vec)
{
    int64_t g = gcd64(row_bytes, 16), nv = row_bytes / g;

    if (row_bytes <= 0 || row_bytes > max_bytes || nv > OPNN_CUDA_ROW_TILE_MAX_VEC)
        return 0;
    *pack_vec = nv;
    return 16 / g;
}

/* Rows of row_bytes a ROW_TILE tile takes: as many rounds of round_rows (whole packs) as fit
 * its bytes, one at least. */
static int64_t row_tile_rows(int64_t round_rows, int64_t row_bytes)
{
    return round_rows * imax(1, ROW_TILE_BYTES / (round_rows * row_bytes));
}

/* ROW_TILE serves contiguous rows (one, or rows k apart) whose pack fits a tile. */
static bool row_tile_serves(const opnn_reduce_plan *p, const inner_view *v)
{
    int64_t pack_vec = 0;

    return v->r1 == 1 && (v->c == 1 || v->c_stride == v->k) &&
           row_tile_pack(v->k * (int64_t)esize_of(p->dtype), OPNN_CUDA_ROW_TILE_MAX_BYTES,
                         &pack_vec) > 0;
}

/* ROW_TILE also serves MIDDLE views [A, R, B] of contiguous slabs (r_stride B, a_stride R * B)
 * whose pack fits a tile: each slab a row of the tile, each output (a column of a slab) folded
 * down its R elements in shared memory by g lanes (tile_col_plan). A warp a slab (the column
 * kernel's warp units) waited a round trip for a few hundred bytes, f32 over 1 against the tile
 * (us, H200, session 36): [4194304, 16, 3] 1595 -> 203, [4194304, 8, 6] 1556 -> 211, [2097152,
 * 16, 12] 979 -> 395, [1048576, 8, 40] 469 -> 346, [262144, 64, 6] 175 -> 104; [2097152, 8, 17],
 * a block a slab, 11427 -> 295. Tiles of fewer than 16 outputs stayed on the column kernel
 * until g lanes an output (session 37): f32 [1048576, 128, 3] 673 -> 375, [1048576, 100, 5] 984
 * -> 535, [524288, 200, 7] 942 -> 674, [131072, 512, 3] 294 -> 183, f64 [1048576, 64, 3] 513
 * -> 384, f16 [65536, 1024, 3] 253 -> 95; f16 [131072, 256, 8] 126 either way. */
static bool middle_tile_serves(const opnn_reduce_plan *p)
{
    int64_t slab = p->r * p->b * (int64_t)esize_of(p->dtype), pack_vec = 0;

    if (p->cls != OPNN_CLASS_MIDDLE || p->b < 2 || p->r_stride != p->b ||
        (p->a > 1 && p->a_stride != p->r * p->b))
        return false;
    return row_tile_pack(slab, ROW_TILE_BYTES, &pack_vec) > 0;
}

/* Shared-memory wavefronts a ROW_TILE warp takes to fold the columns of tiles of `rows` slabs
 * [k / b, b] of es bytes, g lanes an output (q = slab * b + column, 32 / g a round; lane h of
 * the g takes rows h, h + g, ...), one element a lane each step: at each step, the most distinct
 * 4-byte words any bank serves, summed over the first rounds and steps (a bank serves one word
 * a wavefront; lanes on one word share it). rot: a lane starts at its (slab mod its rows)-th row
 * and goes round (the kernel's stagger). */
static int64_t tile_col_wavefronts(int64_t k, int64_t b, int64_t es, int64_t rows, int64_t g,
                                   bool rot, int64_t *count)
{
    const int64_t nrow = k / b, per = 32 / g, nq = rows * b;
    const int64_t rounds = imin(cdiv(nq, per), 8), steps = imin(nrow / g, 32);
    int64_t total = 0;

    *count = rounds * steps;

    for (int64_t q0 = 0; q0 < rounds * per; q0 += per)
        for (int64_t j = 0; j < steps; j++) {
            int64_t word[64]; /* the step's distinct words, ascending */
            int nw = 0, worst = 0, per_bank[32] = {0};

            for (int64_t lane = 0; lane < 32 && q0 + lane / g < nq; lane++) {
                const int64_t q = q0 + lane / g, h = lane % g, s = q / b;
                const int64_t nh = (nrow - h + g - 1) / g, r = h + g * ((rot ? s + j : j) % nh);
                const int64_t byte = (s * k + r * b + q % b) * es;
                for (int64_t w = byte / 4; w <= (byte + es - 1) / 4; w++) {
                    int i = nw; /* lanes mostly ascend: the place is found from the end */
                    while (i > 0 && word[i - 1] > w)
                        i--;
                    if (i > 0 && word[i - 1] == w)
                        continue;
                    memmove(word + i + 1, word + i, (size_t)(nw - i) * sizeof word[0]);
                    word[i] = w;
                    nw++;
                }
            }
            for (int i = 0; i < nw; i++) {
                const int n = ++per_bank[word[i] % 32];
                worst = n > worst ? n : worst;
            }
            total += worst;
        }
    return total;
}

/* Lanes an output for ROW_TILE's slabs (returned: a power of two up to 16, at most the column's
 * rows) and whether its columns fold from a staggered row (*stagger): the pair with the least
 * cost, a tile's rounds (32 / g outputs each) times the loads a lane folds in a round, each
 * weighed by the banks' wavefronts a step against the least a warp's loads of es bytes need
 * (tile_col_wavefronts) and doubled where staggered (4 times for 16-bit: the stagger's index
 * arithmetic, on a fold that is issue-bound), plus 4 a shuffle step and 32 a round; the smaller
 * g, plain, on a tie. Fitted to 34 shapes swept over g and both folds (H200, session 37; the
 * pick within 1% of the best on 31, 10% on f16 [2097152, 64, 3]). A lane's fold down a long
 * column is a chain of dependent additions over few lanes (f32 [1048576, 128, 3] 537 -> 374 us
 * at g 2, [131072, 512, 3] 309 -> 183 at 8, f16 [65536, 1024, 3] 334 -> 94 at 8), but rounds
 * and shuffles cost more than they spread on 16-bit columns of 100 rows (f16 [2097152, 100, 5]
 * 509 at g 1, 603 at 4) or bank conflicts do (f32 [4194304, 32, 3] 575 -> 388 staggered; f16
 * [2097152, 8, 16] 161 plain, 243 staggered). */
static int64_t tile_col_plan(int64_t k, int64_t b, int64_t es, int64_t rows, bool *stagger)
{
    const int64_t nrow = k / b, nout = rows * b, least = imax(1, 32 * es / 128);
    int64_t g = 1;
    double best = 0;

    *stagger = false;
    for (int64_t lanes = 1, lg = 0; lanes <= 16 && lanes <= nrow; lanes *= 2, lg++) {
        double ew = 1;
        for (int rot = 0; rot < 2; rot++) {
            int64_t n = 0, w;
            double cost;

            /* a plain fold at the least wavefronts: staggered costs more whatever its banks */
            if (rot && ew <= 1)
                break;
            w = tile_col_wavefronts(k, b, es, rows, lanes, rot != 0, &n);
            ew = (double)w / (double)(n * least);
            ew = ew < 1 ? 1 : ew;
            cost = (double)cdiv(nout * lanes, 32) *
                   ((double)cdiv(nrow, lanes) * ew * (rot ? (es == 2 ? 4 : 2) : 1) +
                    4.0 * (double)lg + 32.0);
            if ((lanes == 1 && rot == 0) || cost < best) {
                best = cost;
                g = lanes;
                *stagger = rot != 0;
            }
        }
    }
    return g;
}

/* Rows a pack for ROW_TILE's pack fold of a slab's columns (launch.ranges 3), 0 where it cannot
 * serve: B of OPNN_CUDA_ROW_TILE_PACK_COLS and R a multiple of P = 16 / gcd(B * size, 16), the
 * fewest rows that span whole 16-byte vectors (so every slab starts on one). */
static int64_t tile_pack_rows(int64_t r, int64_t b, int64_t es)
{
    const int64_t prow = 16 / gcd64(b * es, 16);

    return OPNN_CUDA_ROW_TILE_PACK_COLS(b) && r % prow == 0 ? prow : 0;
}

/* Lanes a row: one while 32 rows fit a warp tile of OPNN_CUDA_ROW_TILE_MAX_VEC vectors, else the
 * fewest (a power of two) for which a round of 32 / g rows fits; a tile is as many rounds as fit
 * (a round is a whole number of packs: packs are 1-8 rows, a round 8-32). A lane a row folds
 * from shared memory with the fewest instructions (tile_row_fold_lane); rows of 49 f32 with 4
 * lanes a row and 8-row tiles issued an instruction 0.78 of the cycles on each scheduler and read
 * 0.85 of the ceiling (H200, ncu); so, with cp.async tiles: 0.913-0.920, rows of 33 0.852 ->
 * 0.918, of 100 0.885 -> 0.923, f16 rows of 49 0.725 -> 0.903 (but f32 rows of 127, 4 lanes a
 * row, 0.894 -> 0.882). Blocks of 2 warps, two tiles of up to 6.5 KB a warp (one in flight while
 * the other is reduced), 8 blocks an SM. */
static void plan_row_tile(opnn_reduce_plan *p, const opnn_device_props *props, const inner_view *v,
                          bool packs)
{
    opnn_launch *l = &p->launch;
    /* a MIDDLE plan's rows are its slabs, g lanes an output: as many packs as fit a tile */
    const bool slabs = p->cls == OPNN_CLASS_MIDDLE;
    int64_t es = (int64_t)esize_of(p->dtype), k = slabs ? p->r * p->b : v->k,
            c = slabs ? p->a : v->c;
    int64_t row_bytes = k * es, pack_vec = 0;
    int64_t pack =
        row_tile_pack(row_bytes, slabs ? ROW_TILE_BYTES : OPNN_CUDA_ROW_TILE_MAX_BYTES, &pack_vec);
    int64_t g = 1, round_rows, rows;
    bool stagger = false;

    while (!slabs && g < 32 && (32 / g) * row_bytes > ROW_TILE_BYTES)
        g *= 2;
    round_rows = slabs ? pack : imax(32 / g, pack);
    rows = row_tile_rows(round_rows, row_bytes);
    /* tiles of whole 32-byte sectors where a round allows: tiles that start mid-sector had L2
     * read 1.49 times the input's sectors, 95% busy ([1048576, 100, 5] f32 over 1, tiles of
     * three 2000-byte slabs: 0.86 of read at size, H200 ncu) */
    if (rows > round_rows && (rows / pack * pack_vec) % 2 != 0)
        rows -= round_rows;
    const int64_t prow = packs && slabs ? tile_pack_rows(p->r, p->b, es) : 0;
    if (prow > 0) {
        /* the pack fold: g the most lanes (a power of two, 32 at most) that leave each lane
         * two or more of a slab's packs, a warp's lanes reading consecutive packs; tiles of
         * whole rounds of 32 / g slabs where they hold more than one and stay whole sectors.
         * Against the element-wise fold's plan (H200, us, median of 30): f16 [4194304, 32, 3]
         * 260.1 -> 198.6 (g 2), [2097152, 64, 3] 277.8 -> 196.3 (4), [4194304, 16, 3] 117.8
         * -> 103.4 (1), [1048576, 128, 3] 198.9 -> 192.4 (8), [2097152, 16, 5] 99.4 -> 87.2,
         * [1048576, 64, 7] 257.5 -> 228.7, [2097152, 16, 6] 117.2 -> 104.9; 32- and 64-bit
         * slabs within 1% either way. A lane a pack (g up to the packs) read [1048576, 128, 3]
         * f16 at 215.6, f32 433.0, f64 [1048576, 64, 3] 466.4 (386.0 with g 4) */
        const int64_t npk = p->r / prow;
        while (g < 32 && 4 * g <= npk)
            g *= 2;
        if (rows > 32 / g && (rows / (32 / g) * (32 / g)) / pack * pack_vec % 2 == 0)
            rows = rows / (32 / g) * (32 / g);
    } else if (slabs) {
        g = tile_col_plan(k, p->b, es, rows, &stagger);
    }
    launch_reset(l, OPNN_FAMILY_ROW_TILE, OPNN_KERNEL_ROW_TILE);
    l->block = OPNN_CUDA_ROW_TILE_BLOCK;
    l->vec = (int)(16 / es);
    l->segs = pack;
    l->chunk = rows;
    l->tiles = rows / pack * pack_vec;
    l->sub = (int)g;
    l->units = imax(1, cdiv(c / pack, rows / pack)); /* block 0: the rows past the last pack */
    l->grid_x = row_tiles_grid(l->units, OPNN_CUDA_ROW_TILE_BLOCK,
                               device_slots(props, OPNN_CUDA_ROW_TILE_BLOCKS_PER_SM));
    l->ranges = prow > 0 ? 3 : stagger ? 2 : 1;
}

/* Lanes per row for ROW_VEC: rows of 2..32 whole 16-byte vectors (a power of two), contiguous
 * (row i at i * k), so a warp's 32 consecutive vectors hold 32 / G whole rows. 0 if not. */
static int row_vec_lanes(const opnn_reduce_plan *p, const inner_view *v)
{
    int64_t es = (int64_t)esize_of(p->dtype), row_bytes = v->k * es;

    if (v->r1 != 1 || (v->c > 1 && v->c_stride != v->k) || row_bytes % 16 != 0)
        return 0;
    int64_t g = row_bytes / 16;
    /* 16-bit rows of more than 4 vectors convert and shuffle more than the group kernel costs:
     * [2097152, 128] bf16 163 us here, 136 us with 4-lane groups (H200) */
    if (es == 2 && g > 4)
        return 0;
    return g >= 2 && g <= 32 && (g & (g - 1)) == 0 ? (int)g : 0;
}

/* Vectors per slab for ROW_VEC on a middle view [A, R, B] of B = 2, 4 or 8 columns that divide
 * a vector or fill 2 (B * size <= 32): contiguous slabs (r_stride B, a_stride R * B) of 2..128
 * whole vectors, a power of two; the kernel folds each vector's elements into their columns' B
 * accumulators, OPNN_CUDA_UNROLL consecutive vectors a lane (so at most 32 lanes a slab, two
 * slabs a lane for slabs of 2). 0 if not. Before B of exactly one vector (f32 B = 4) came here,
 * it ran on the column kernel a vector a row: fine for long slabs ([65536, 1024, 4] 0.965 of the
 * ceiling), slow for short ones ([4194304, 8, 4] over 1: 2.28 ms, 264 GB/s, H200); so did rows
 * of 2 vectors until session 36 (f32 [2097152, 16, 8] 1203 -> 261 us, f64 [4194304, 8, 4] 2326 ->
 * 274, a warp a slab). Rows of 4 vectors or 16 columns lost to ROW_TILE's slabs (us, H200): f32
 * [1048576, 16, 16] 367 against 266, f64 [2097152, 16, 8] 830 against 523, f16 [2097152, 8, 16]
 * 293 against 162. */
static int middle_vec_lanes(const opnn_reduce_plan *p)
{
    int64_t es = (int64_t)esize_of(p->dtype), slab = p->r * p->b * es;

    if (p->cls != OPNN_CLASS_MIDDLE || (p->b != 2 && p->b != 4 && p->b != 8) || p->b * es > 32 ||
        p->r_stride != p->b || (p->a > 1 && p->a_stride != p->r * p->b) || slab % 16 != 0)
        return 0;
    int64_t g = slab / 16;
    return g >= 2 && g <= 32 * OPNN_CUDA_UNROLL && (g & (g - 1)) == 0 ? (int)g : 0;
}

/* Warps stride over tiles of 32 * OPNN_CUDA_UNROLL vectors (row_tiles_grid). The group
 * kernel's per-row range set-up costs more than the row itself at these sizes: row_tiny
 * ([16777216, 16] f32, 64-byte rows) read 3507 GB/s with sub-warp groups (H200); this kernel
 * does one 16-byte load a lane a vector and, for a tile's 4 rows of a group, 3 + log2(G / 4)
 * shuffles a lane. */
static void plan_row_vec(opnn_reduce_plan *p, const opnn_device_props *props, int g)
{
    opnn_launch *l = &p->launch;

    launch_reset(l, OPNN_FAMILY_ROW_VEC, OPNN_KERNEL_ROW_VEC);
    l->vec = (int)(16 / esize_of(p->dtype));
    l->sub = g;
    l->units = cdiv(p->a * g, 32 * OPNN_CUDA_UNROLL); /* warp tiles */
    l->grid_x =
        row_tiles_grid(l->units, OPNN_CUDA_BLOCK, device_slots(props, OPNN_CUDA_BLOCKS_PER_SM));
}

/* --- the outer view [A, R, B], B contiguous ------------------------------------------------ */

/* Elements a load for the outer view: the widest of 16, 8 and 4 bytes that every (a, r) row
 * start allows (16 or one element for R1 slabs, whose kernel has no other width). */
static int64_t outer_load_elems(const opnn_reduce_plan *p, int64_t r1)
{
    int64_t es = (int64_t)esize_of(p->dtype);

    for (int64_t bytes = 16; bytes > es; bytes /= 2) {
        if ((p->r == 1 || (p->r_stride * es) % bytes == 0) &&
            (p->a == 1 || (p->a_stride * es) % bytes == 0) &&
            (r1 == 1 || (p->r1_stride * es) % bytes == 0))
            return bytes / es;
        if (r1 > 1)
            break;
    }
    return 1;
}

/* Contiguous rows of at most 1 KB and 256 elements that start off 16 bytes, slabs of 64 KB or
 * more (no R1): a slab is one run of 16-byte vectors that `split` blocks (a slice each, at least
 * 64 KB of it) take interleaved, NT vectors a block a step, where NT * (elements a vector) is a
 * multiple of b, so each lane of a thread always holds one column (launch.ranges 2; sub: the
 * columns rounded up to a power of two, for the block's tree). Against single elements 16 in
 * flight or staging chunks of rows through shared memory a thread a column (H200, best of 20):
 * f16 [2097152, 49] over 0 2751 -> 3275 GB/s, [8388608, 17] 3789 -> 3977, f16 [3000000, 255]
 * 3669 -> 4085, f16 [22369621, 3] 2293 -> 3149, [33554432, 3] 3734 -> 3925; interleaved rather
 * than contiguous slices, 1-2% more ([4194304, 49] 203.3 -> 200.9 us). */
static int plan_outer_run(opnn_reduce_plan *p, const opnn_device_props *props, int family,
                          int64_t r1)
{
    opnn_launch *l = &p->launch;
    int64_t es = (int64_t)esize_of(p->dtype), slots = device_slots(props, OPNN_CUDA_BLOCKS_PER_SM);
    int64_t bx, split, rows;

    /* slabs under 64 KB spent more on a block tree a slab than the run saved ([65536, 1024, 6]
     * over 1: 680 us as staged rows, 519 as warp units; H200) */
    if (r1 != 1 || family == OPNN_FAMILY_COL_TINY_R || p->r_stride != p->b || p->b < 2 ||
        p->b > OPNN_CUDA_BLOCK || p->b * es > 1024 || (p->b * es) % 16 == 0 ||
        p->r * p->b * es < (64 << 10))
        return 0;
    bx = pow2_ceil(p->b);
    launch_reset(l, family, OPNN_KERNEL_OUTER);
    split = choose_split(p->a, p->r, slots, imax(1, p->r * p->b * es / (64 << 10)));
    rows = cdiv(p->r, split);
    split = cdiv(p->r, rows);
    l->vec = 1;
    l->sub = (int)bx;
    l->tiles = 1;
    l->split = split;
    l->chunk = rows;
    l->segs = 1;
    l->units = p->a * split;
    l->ranges = 2;
    l->grid_x = grid_for(l->units, rows * p->b * es, slots);
    outer_workspace(l, p->a, p->b);
    return 1;
}

/* The launch of an outer view of r rows of b columns (the plan's, or its super-rows': a view of
 * the same memory) with loads of vec elements (16, 8 or 4 bytes, or one element): the
 * launcher narrows them where the pointer is less aligned than the rows (tiles of bx_threads
 * loads, coalesced across a warp either way). Rows 4 or 8 bytes off 16 read a float or 2-4
 * elements a load: [100001, 2501] over 0 (f32) 0.81 of the ceiling, f16 [100000, 2500]
 * (rows 8 bytes off) 0.87 (H200). The tiles and split are the items': split for single halves, f16
 * [100000, 2500] ran 260 blocks of 4-half items, 161 us, against 123-125 us with 520. */
static void plan_outer_vec(opnn_reduce_plan *p, const opnn_device_props *props, int family,
                           int64_t r, int64_t b, int64_t vec, int64_t per_sm, int64_t min_split,
                           int64_t sub)
{
    opnn_launch *l = &p->launch;
    size_t es = esize_of(p->dtype);
    int64_t slots = device_slots(props, per_sm);
    int64_t r1 = p->cls == OPNN_CLASS_GENERIC ? p->r1 : 1;
    int64_t sms = props && props->sm_count > 0 ? props->sm_count : 1;
    int64_t bx, bx_threads, by, tiles, split, rows, slabs = 1;

    bx = cdiv(b, vec);

    launch_reset(l, family, OPNN_KERNEL_OUTER);
    /* Column tiles of 32 threads (512 bytes of a row) and 8 rows at once: col_wide 4481 GB/s
     * against 4100 GB/s with 256 threads across one row; col_wide16 (bf16) 4267 against
     * 2348 GB/s (H200). Narrower kept dims fold more rows into the block. */
    bx_threads = sub > 0 ? sub : imin(32, pow2_ceil(bx));
    if (family == OPNN_FAMILY_COL_TINY_R)
        bx_threads = imin(OPNN_CUDA_BLOCK, imax(32, pow2_ceil(bx)));
    by = OPNN_CUDA_BLOCK / bx_threads;
    tiles = cdiv(bx, bx_threads);

    /* slices of the r1 * r rows of a column: whole slabs while there are at least as many
     * slabs as slices, else pieces of one slab */
    if (family == OPNN_FAMILY_COL_TINY_R) {
        split = 1;
    } else {
        split = imax(min_split, choose_split(p->a * tiles, r1 * r, slots,
                                             r1 * r / (by * COL_MIN_ROWS_PER_THREAD)));
        if (vec * (int64_t)es == 16 &&
            2 * p->a * tiles * split < COL_FEW_BLOCKS_X2 * device_slots(props, 1))
            split = imax(split, choose_split(p->a * tiles, r1 * r, slots,
                                             r1 * r / (by * COL_FEW_ROWS_PER_THREAD)));
    }
    /* a middle under FEW_UNITS_MAX_BYTES whose column tiles are fewer than the SMs: narrower
     * tiles (FEW_UNITS_NARROW). Unsplit: the threads across halved until the units fill the SMs,
     * down to 16 bytes of a row a tile (or the whole row, where that is less) or a thread.
     * Split: unsplit instead, where tiles of 32 bytes of a row or more make 0.9 of the split's
     * units or more. */
    if (sub == 0 && r1 == 1 && p->cls == OPNN_CLASS_MIDDLE && r == p->r && b == p->b &&
        p->a * tiles < sms && p->a * r * b <= FEW_UNITS_MAX_BYTES / (int64_t)es) {
        int64_t bt = bx_threads, t = tiles, want = 9 * p->a * tiles * split;

        if (split == 1) {
            while (bt > 1 && p->a * t < sms && (bt * vec * (int64_t)es > 16 || bt * vec >= b)) {
                bt /= 2;
                t = cdiv(bx, bt);
            }
        } else {
            while (bt > 1 && bt * vec * (int64_t)es > 32 && 10 * p->a * t < want) {
                bt /= 2;
                t = cdiv(bx, bt);
            }
        }
        if (split == 1 || 10 * p->a * t >= want) {
            bx_threads = bt;
            tiles = t;
            split = 1;
        }
    }
    rows = r;
    if (split <= r1) {
        slabs = cdiv(r1, split);
        split = cdiv(r1, slabs);
    } else {
        rows = cdiv(r, cdiv(split, r1));
        split = r1 * cdiv(r, rows);
    }

    l->vec = (int)vec;
    l->sub = (int)bx_threads;
    l->tiles = tiles;
    l->split = split;
    l->chunk = rows;
    l->segs = slabs;
    l->units = p->a * tiles * split;
    /* narrow B and no split: a warp a unit (ranges 1), its rows folded by shuffles alone (not
     * for a sub the caller chose: the shift plan's 16 lanes a row are a block a unit), where
     * their blocks of 8 are 1.5 an SM or more (NARROW_WARP_MIN_BLOCKS_PER_SM_X2). A block a
     * unit spent a block tree per 16 KB slab of [65536, 1024, 4] over 1 (0.63-0.71 of the
     * ceiling, H200). With fewer units a warp a unit leaves SMs idle and an eighth of the loads
     * in flight: f32 [256, 3136, 32] over 1, 256 units on 32 blocks, 92.2 us, against 29.9 us a
     * block a unit (read at size 27.8); f16 [256, 784, 64] 28.0 -> 11.6, f32 [128, 12544, 4]
     * 46.9 -> 13.5. Tiles of 32 16-byte loads across: where rows are few and units many
     * (WARP_TILE_MAX_ROWS) */
    if (sub == 0 && split == 1 && family != OPNN_FAMILY_COL_TINY_R &&
        ((bx_threads < 32 && 2 * cdiv(l->units, OPNN_CUDA_BLOCK / 32) >=
                                 NARROW_WARP_MIN_BLOCKS_PER_SM_X2 * device_slots(props, 1)) ||
         (vec * (int64_t)es == 16 && r1 * r <= WARP_TILE_MAX_ROWS &&
          l->units >= slots * (OPNN_CUDA_BLOCK / 32))))
        l->ranges = 1;
    /* a block takes a unit, or a unit a warp (ranges 1): grid_for weighs the block's bytes. A
     * warp's unit weighed alone made warp units under 64 KB persistent, 528 blocks, each warp
     * 15 or 16 units: a block per 8 units read f32 [16384, 32, 512] over 1 in 261.4-262.2 us
     * against 266.2-266.7, [4096, 64, 1024] 248.4-248.6 against 251.9-252.3 (f16 127.5-127.8
     * against 130.6-130.9), [65536, 1024, 4] 238.9-239.1 against 241.4-242.0, and on another
     * H200 [32768, 16, 1024] (8 KB units) 540.1-540.8 against 560.3-561.6; a grid of whole
     * rounds (512 blocks) did not (265.8-266.5), and units of 4 KB stay persistent: f16
     * [131072, 256, 8] 131.7 persistent, 135.1-135.5 a block per 8 units (H200, best of 30) */
    const int64_t per_block = l->ranges == 1 ? OPNN_CUDA_BLOCK / 32 : 1;
    l->grid_x = grid_for(cdiv(l->units, per_block),
                         per_block * slabs * rows * bx_threads * vec * (int64_t)es, slots);
    /* blocks a unit of 16-byte loads, at most 1.5 an SM: 8 loads in flight a thread (ranges
     * 2 * UNROLL, a kernel compiled for 2 blocks an SM) */
    if (l->ranges == OPNN_CUDA_UNROLL && vec * (int64_t)es == 16 && sub == 0 &&
        family != OPNN_FAMILY_COL_TINY_R && r1 == 1 &&
        2 * l->grid_x <= COL_DEEP_MAX_BLOCKS_PER_SM_X2 * device_slots(props, 1))
        l->ranges = 2 * OPNN_CUDA_UNROLL;
    outer_workspace(l, p->a, b);
}

/* Contiguous rows off 16 bytes that the run of vectors does not take (wider than 1 KB or 256
 * elements, or slabs under 64 KB), where each slab starts on 16 bytes: k rows, k * b * size a
 * multiple of 16, are one row of the view [A, R / k, k * B], read with 16-byte loads. Its
 * k * B columns' results go to the end of the workspace; the tile that completes a chunk of
 * OPNN_CUDA_SUPER_FOLD_COLS output columns folds each column c's k sub-columns (c, c + B, ...)
 * and the R mod k rows left over, in order, into out (launch.ranges 3, launch.segs k). Against
 * single elements 16 in flight: [1000000, 257] over 0 (f32) read 0.69 of the ceiling, [100001,
 * 2501] 0.81, f16 [100001, 2501] 0.72 (H200). */
static int plan_outer_super(opnn_reduce_plan *p, const opnn_device_props *props, int family,
                            int64_t r1)
{
    opnn_launch *l = &p->launch;
    int64_t es = (int64_t)esize_of(p->dtype), b = p->b, row = b * es, k, bytes;

    /* one slab: [2, 4096, 1025] over 1 (f32) ran 17.8-20.2 us as super-rows against 14.1-14.3 as
     * single floats (H200; the kernel and the fold take slabs that start on 16 bytes) */
    if (r1 != 1 || family == OPNN_FAMILY_COL_TINY_R || p->r_stride != b || row % 16 == 0 ||
        p->a != 1)
        return 0;
    k = 16 / gcd64(row, 16);
    bytes = p->a * p->r * row;
    /* rows 4 or 12 bytes off 16, or of odd 2-byte elements (k 4 or 8; rows 8 bytes off read
     * 8-byte items, and as super-rows of 2 were slower: f32 [100000, 2502] over 0 235 us
     * against 238, f16 [100000, 2500] 124 against 131, H200); a super-row of 32 vectors or more
     * (a warp across it), 64 of them a column or more; the fold's values at most SUPER_MAX_FOLD
     * and a 4096th of the input, which is SUPER_MIN_BYTES and SUPER_MIN_BYTES_PER_SM an SM or
     * more. Super-rows of 32 or 64 bytes
     * (k 8 or 16, to start every row on a 32-byte sector) ran 2-8% slower with the same kernel
     * ([100001, 2501] f16 150 us against 138); below 32 MB, with more slices for the rows' fewer
     * super-rows, 60-90% slower ([4100, 1021] f32 19.5 us against 11.7; H200) */
    if (k < 4 || k * row < 512 || p->r / k < 64 || p->a * k * b > SUPER_MAX_FOLD ||
        p->a * k * b * 4096 > bytes || bytes < SUPER_MIN_BYTES ||
        bytes < SUPER_MIN_BYTES_PER_SM * (props && props->sm_count > 0 ? props->sm_count : 1))
        return 0;
    /* its kernel is compiled for 3 blocks an SM (reduce.cuh); the fold follows the last block
     * of a tile's split, so always a split (of 2 at least: the partials are 2 * 4 bytes a
     * column against 64 rows or more of input), and so never warp units */
    plan_outer_vec(p, props, family, p->r / k, k * b, 16 / es, OPNN_CUDA_BLOCKS_PER_SM_INNER, 2, 0);
    l->ranges = 3;
    l->segs = k;
    super_workspace(l, p->a, b, k);
    return 1;
}

/* A shift plan of whole tiles (no split) at a warp a row whose units overrun the last full wave
 * of slots: the tiles past the full waves are split (launch.whole: the tiles before them stay
 * whole), into as many slices as make one wave of them at most, each of SHIFT_TAIL_MIN_ROWS rows
 * a thread or more. Those tiles start only as the first finish and then run nearly alone: f16
 * [30, 1001, 3001] over 1 (390 units, one wave) ran 49.2 us, [32, 1001, 3001] (416) 58.9. Split
 * against whole (H200, session 25, us): f16 [32, 1001, 3001] 58.7 -> 55.0, [34, 1001, 3001] 60.8
 * -> 57.7, [36, 1001, 3001] 62.1 -> 60.0, [40, 1001, 3001] 65.8 -> 64.6, [48, 1001, 1001] 54.1 ->
 * 52.0, [46, 1001, 1001] 53.0 -> 50.0, f64 [24, 1000, 1001] 54.5 -> 50.7, [64, 1001, 3001] 178.3
 * -> 177.8. At half a warp a row it was slower: f16 [24, 1001, 2001] 34.0 -> 35.4 (12 tiles past
 * the wave in 15 slices), [32, 1001, 1001] 36.8 -> 38.5 (148 in 2); why was not measured. */
static void plan_shift_tail(opnn_reduce_plan *p, const opnn_device_props *props)
{
    opnn_launch *l = &p->launch;
    int64_t slots = device_slots(props, OPNN_CUDA_BLOCKS_PER_SM_INNER);
    int64_t left = l->units % slots, by = OPNN_CUDA_BLOCK / l->sub, split, rows;

    if (l->sub != 32 || l->split != 1 || l->units <= slots || left == 0)
        return;
    split = imin(slots / left, p->r / (by * SHIFT_TAIL_MIN_ROWS));
    if (split < 2)
        return;
    rows = cdiv(p->r, split);
    split = cdiv(p->r, rows);
    l->whole = l->units - left;
    l->split = split;
    l->chunk = rows;
    l->units = l->whole + left * split;
    l->grid_x = l->units;
    /* partials of the split tiles' sub vectors (tiles of sub single elements when the launcher
     * falls back to them leave every tile whole) */
    launch_workspace(l, left * l->sub * l->vec * split, left);
}

/* A shift plan of exact tiles: a warp a row, tiles of 32 vectors' columns, lane 0 also reading
 * the vector after the tile (launch.segs 32), where those tiles make one wave of whole units,
 * half the slots or more, 3/4 full or more (SHIFT_FULL_TILES), and an SM's most tiles hold fewer
 * columns than the 31 vectors' tiles would (or those make too few units). Lane 0's extra copies
 * cost every round, so the tiles must be fewer where it counts: in one wave (H200, us, these
 * against tiles of 31 vectors): f16 [32, 1001, 2001] over 1 (256 units against 288) 40.7-41.2 ->
 * 36.8-36.9, [32, 1001, 3001] (384 against 416 in a wave and a split tail) 54.6-54.8 -> 51.1-51.4,
 * f32 [32, 1001, 1001] (256 against half a warp's 544) 37.2 -> 35.5-35.8, f32 [46, 1001, 1001]
 * (368 against 414) 49.5-49.7 -> 48.3-48.4, f64 [24, 1000, 1001] 50.4-50.5 -> 47.0-47.5, f64
 * [16, 1001, 1001] (single elements) 35.5 -> 32.9-33.1; but f16 [30, 1001, 3001] (360 against
 * 390, 3 on most SMs either way) 48.4-48.7 -> 49.7-50.0, and where they were split, slower: f16
 * [64, 2001, 1001] 66.9-67.6 -> 71.9-72.0, f16 [250000, 259] over 0 42.2-42.5 -> 48.0-48.4, and
 * past a wave f32 [128, 1001, 1001] 121.3 -> 123.5 (session 29, call 3: exact tiles taken
 * everywhere, against ca08826 in one process). */
static int shift_exact(opnn_reduce_plan *p, const opnn_device_props *props, int family, int64_t v)
{
    int64_t slots = device_slots(props, OPNN_CUDA_BLOCKS_PER_SM_INNER);
    int64_t sms = props && props->sm_count > 0 ? props->sm_count : 1;
    int64_t te = cdiv(p->b, 32 * v), to = cdiv(p->b, 31 * v);

    plan_outer_vec(p, props, family, p->r, te * 32 * v, v, OPNN_CUDA_BLOCKS_PER_SM_INNER, 1, 32);
    if (p->launch.split != 1 || p->launch.units > slots || 2 * p->launch.units < slots ||
        SHIFT_FULL_TILES_DEN * p->b < SHIFT_FULL_TILES_NUM * te * 32 * v)
        return 0;
    if (4 * p->a * to >= 3 * slots && cdiv(p->a * te, sms) * 32 >= cdiv(p->a * to, sms) * 31)
        return 0;
    p->launch.ranges = OPNN_CUDA_SHIFT_RANGES;
    p->launch.segs = 32;
    return 1;
}

/* A column shift plan's split (one slab, A == 1, split by choose_split): SHIFT_COL_UNITS_PER_SM_X2
 * units an SM of its tiles more than half full (the last tile's columns may be few), where that
 * is fewer slices */
static void plan_shift_col_split(opnn_reduce_plan *p, const opnn_device_props *props)
{
    const opnn_launch *l = &p->launch;
    int64_t sms = props && props->sm_count > 0 ? props->sm_count : 1;
    int64_t cols = l->segs * l->vec, last = p->b - (l->tiles - 1) * cols, heavy, split;

    if (p->a != 1 || l->split <= 1 || l->whole != 0)
        return;
    heavy = imax(1, l->tiles - (2 * last <= cols ? 1 : 0));
    split = (SHIFT_COL_UNITS_PER_SM_X2 * sms + heavy) / (2 * heavy);
    if (split >= 2 && split < l->split)
        opnn__reduce_launch_outer_split(p, split);
}

/* Rows that start off 16 bytes at single elements (vec 1: f32 rows 4 bytes off, f16 2, f64 8)
 * that no run or super-row plan takes, the view's rows in order and each at least 31 vectors
 * wide: each row read as the aligned 16-byte vectors that cover it, sub lanes a row, in tiles of
 * sub - 1 vectors' columns, which the sub vectors cover at any phase (OPNN_CUDA_SHIFT_RANGES;
 * the kernel's PH; launch.segs is the tiles' vectors). The tiles and the workspace are those of a
 * view of b' columns, b' the tiles' sub vectors each, which also covers the launcher's fallback
 * to single elements. Against single elements (H200, us): f16 [64, 2001, 1001] over 1 83.8 ->
 * 67.1-68.3, bf16 83.8 -> 68.2-69.4, [128, 1001, 1001] 134.6 -> 127.8, f64 [64, 1000, 1001]
 * 129.1 -> 123.2. Rows whose starts allow 8-byte items (f32 [100000, 2502] over 0: 238.8 ->
 * 240.6, f16 [100000, 2500] 125.1 -> 127.7) or 4-byte ones (f16 [256, 999, 500] over 1: 68.5 ->
 * 69.7) keep them.
 *
 * A warp a row (sub 32), or where that makes fewer units than 3/4 of the slots (rows too few to
 * split further), half a warp (sub 16: twice the tiles, of 15 vectors) for elements of 4 bytes or
 * less, else the single elements' plan, whose narrower tiles make more units ([4096, 1001] over 0
 * 11.4 us against 13.6, f16 [8, 2001, 1001] over 1 17.3 against 18.0, [16, 2001, 1001] 38.3
 * against 39.0). Half a warp against single elements: f16 [128, 1001, 257] 29.4 -> 24.2 us, f16
 * [32, 1001, 2001] 45.2 -> 40.8, [32, 1001, 1001] 38.7 -> 37.2, f64 [16, 1001, 1001] 36.0 ->
 * 37.0 (so not for 8-byte elements); against a warp where both have the units, slower: f16 [64,
 * 2001, 1001] 68.0 -> 71.7, [128, 1001, 1001] 123.8 -> 127.2 (H200, session 24). A warp a row's
 * tiles past the last full wave are split (plan_shift_tail).
 *
 * Before all that, exact tiles of 32 vectors (segs 32: lane 0 also reads the vector after the
 * tile, shift_exact) where they make one wave of whole tiles. */
static int plan_outer_shift(opnn_reduce_plan *p, const opnn_device_props *props, int family,
                            int64_t r1, int64_t vec)
{
    int64_t es = (int64_t)esize_of(p->dtype), v = 16 / es;

    /* the launcher's conditions on the view: rows and slabs that do not overlap */
    if (r1 != 1 || family == OPNN_FAMILY_COL_TINY_R || vec != 1 || es >= 16 || p->b < 31 * v ||
        (p->r > 1 && p->r_stride < p->b) ||
        (p->a > 1 && p->a_stride != 0 && p->a_stride < (p->r - 1) * p->r_stride + p->b))
        return 0;
    if (shift_exact(p, props, family, v))
        return 1;
    for (int64_t sub = 32; sub >= (es <= 4 ? 16 : 32); sub /= 2) {
        plan_outer_vec(p, props, family, p->r, cdiv(p->b, (sub - 1) * v) * sub * v, v,
                       OPNN_CUDA_BLOCKS_PER_SM_INNER, 1, sub);
        if (4 * p->launch.units >= 3 * device_slots(props, OPNN_CUDA_BLOCKS_PER_SM_INNER)) {
            p->launch.ranges = OPNN_CUDA_SHIFT_RANGES;
            p->launch.segs = sub - 1;
            plan_shift_tail(p, props);
            plan_shift_col_split(p, props);
            return 1;
        }
    }
    return 0;
}

static void plan_outer(opnn_reduce_plan *p, const opnn_device_props *props, int family)
{
    /* a GENERIC plan here is R1 slabs of the view (reduce_plan.h) */
    int64_t r1 = p->cls == OPNN_CLASS_GENERIC ? p->r1 : 1;
    int64_t vec;

    if (plan_outer_run(p, props, family, r1) || plan_outer_super(p, props, family, r1))
        return;
    vec = outer_load_elems(p, r1);
    if (plan_outer_shift(p, props, family, r1, vec))
        return;
    plan_outer_vec(p, props, family, p->r, p->b, vec, OPNN_CUDA_BLOCKS_PER_SM, 1, 0);
    /* warp units (ranges 1) have 16-byte or single-element loads only */
    if (p->launch.ranges == 1 && vec > 1 && vec * (int64_t)esize_of(p->dtype) < 16)
        plan_outer_vec(p, props, family, p->r, p->b, 1, OPNN_CUDA_BLOCKS_PER_SM, 1, 0);
}

/* --- the others ---------------------------------------------------------------------------- */

static void plan_fill(opnn_reduce_plan *p, const opnn_device_props *props)
{
    opnn_launch *l = &p->launch;

    launch_reset(l, OPNN_FAMILY_FILL, OPNN_KERNEL_FILL);
    l->units = p->out_numel;
    l->grid_x = imax(1, imin(cdiv(p->out_numel, OPNN_CUDA_BLOCK),
                             device_slots(props, OPNN_CUDA_BLOCKS_PER_SM) * 8));
}

static void plan_generic(opnn_reduce_plan *p, const opnn_device_props *props)
{
    opnn_launch *l = &p->launch;
    /* a warp per output once there is enough to reduce for 32 lanes; a thread otherwise */
    int64_t sub = p->red_numel >= 64 ? 32 : 1;

    launch_reset(l, OPNN_FAMILY_GENERIC, OPNN_KERNEL_GENERIC);
    l->sub = (int)sub;
    l->units = p->out_numel;
    l->grid_x = imax(1, imin(cdiv(p->out_numel * sub, OPNN_CUDA_BLOCK),
                             device_slots(props, OPNN_CUDA_BLOCKS_PER_SM) * 16));
}

static const char *const family_names[] = {
    [OPNN_FAMILY_NONE] = "none",
    [OPNN_FAMILY_FILL] = "fill",
    [OPNN_FAMILY_FULL_SMALL] = "full_small",
    [OPNN_FAMILY_FULL_SPLIT] = "full_split",
    [OPNN_FAMILY_ROW_TILE] = "row_tile",
    [OPNN_FAMILY_ROW_THREAD] = "row_thread",
    [OPNN_FAMILY_ROW_SUBWARP] = "row_subwarp",
    [OPNN_FAMILY_ROW_WARP] = "row_warp",
    [OPNN_FAMILY_ROW_BLOCK] = "row_block",
    [OPNN_FAMILY_ROW_SPLIT] = "row_split",
    [OPNN_FAMILY_COL_WIDE] = "col_wide",
    [OPNN_FAMILY_COL_NARROW] = "col_narrow",
    [OPNN_FAMILY_COL_TINY_R] = "col_tiny_r",
    [OPNN_FAMILY_MIDDLE] = "middle",
    [OPNN_FAMILY_OUTER_INNER] = "outer_inner",
    [OPNN_FAMILY_OUTER_INNER_GROUP] = "outer_inner_group",
    [OPNN_FAMILY_GENERIC] = "generic",
    [OPNN_FAMILY_ROW_VEC] = "row_vec",
};
_Static_assert(sizeof family_names / sizeof family_names[0] == OPNN_FAMILY_COUNT_,
               "family_names must name every opnn_cuda_family");

const char *opnn__cuda_family_name(int family)
{
    if (family < 0 || family >= OPNN_FAMILY_COUNT_)
        return "unknown";
    return family_names[family];
}

bool opnn__reduce_launch_outer_tiles(opnn_reduce_plan *p, int sub, int vec)
{
    opnn_launch *l = &p->launch;
    const int64_t v16 = 16 / (int64_t)esize_of(p->dtype), item = vec <= v16 ? vec : 1;
    const int64_t per = l->ranges == 1 ? OPNN_CUDA_BLOCK / 32 : 1;
    int64_t tiles, units;

    if (l->kernel != OPNN_KERNEL_OUTER || p->cls == OPNN_CLASS_GENERIC || sub < 1 || vec < 1 ||
        (vec & (vec - 1)) != 0 ||
        !(l->ranges == 1 || l->ranges == OPNN_CUDA_UNROLL || l->ranges == 2 * OPNN_CUDA_UNROLL))
        return false;
    tiles = cdiv(p->b, sub * item);
    units = p->a * tiles * l->split;
    /* a grid of a block (warp units: 8) a unit follows the units; a persistent one stays */
    if (l->grid_x == cdiv(l->units, per))
        l->grid_x = cdiv(units, per);
    l->sub = sub;
    l->vec = vec;
    l->tiles = tiles;
    l->units = units;
    outer_workspace(l, p->a, p->b);
    return true;
}

bool opnn__reduce_launch_outer_split(opnn_reduce_plan *p, int64_t split)
{
    opnn_launch *l = &p->launch;
    const bool run = l->ranges == 2, sup = l->ranges == 3,
               unit = l->ranges == OPNN_CUDA_UNROLL || l->ranges == 2 * OPNN_CUDA_UNROLL,
               shift = l->ranges == OPNN_CUDA_SHIFT_RANGES;
    /* super-rows: the view [A, R / k, k * B] */
    const int64_t k = sup ? l->segs : 1, r = p->r / imax(k, 1);
    int64_t rows;

    if (l->kernel != OPNN_KERNEL_OUTER || !(run || unit || sup || shift) ||
        (!sup && !shift && l->segs != 1) || p->cls == OPNN_CLASS_GENERIC || r < 1 || split < 1)
        return false;
    rows = cdiv(r, imin(split, r));
    split = cdiv(r, rows);
    /* exact shift tiles (segs == sub) only whole: the planner never splits them */
    if ((sup && split < 2) || (shift && l->segs == l->sub && split > 1))
        return false;
    if (l->grid_x == l->units || p->a * l->tiles * split < l->grid_x)
        l->grid_x = p->a * l->tiles * split;
    l->split = split;
    l->chunk = rows;
    l->units = p->a * l->tiles * split;
    l->whole = 0; /* shift tiles: every tile split alike */
    if (sup)
        super_workspace(l, p->a, p->b, k);
    else
        /* shift tiles: those of the view of the tiles' sub vectors each (plan_outer_shift) */
        outer_workspace(l, p->a, shift ? l->tiles * l->sub * l->vec : p->b);
    return true;
}

bool opnn__reduce_launch_tile_packs(opnn_reduce_plan *p, const opnn_device_props *props, bool packs)
{
    const inner_view v = {0, 0, 0, 0, 0}; /* a slab plan's tile reads the plan, not a view */

    if (!p || !props || esize_of(p->dtype) == 0 || !middle_tile_serves(p) ||
        tile_pack_rows(p->r, p->b, (int64_t)esize_of(p->dtype)) == 0)
        return false;
    plan_row_tile(p, props, &v, packs);
    return true;
}

bool opnn__reduce_launch_family(opnn_reduce_plan *p, const opnn_device_props *props, int family)
{
    inner_view v = {0, 0, 0, 0, 0};
    bool inner;

    if (!p || family < 0 || family >= OPNN_FAMILY_COUNT_ || esize_of(p->dtype) == 0)
        return false;
    inner = inner_view_of(p, &v);

    switch (family) {
    case OPNN_FAMILY_NONE:
        if (p->cls != OPNN_CLASS_EMPTY)
            return false;
        launch_reset(&p->launch, OPNN_FAMILY_NONE, OPNN_KERNEL_NONE);
        return true;
    case OPNN_FAMILY_FILL:
        if (p->cls != OPNN_CLASS_FILL)
            return false;
        plan_fill(p, props);
        return true;
    case OPNN_FAMILY_FULL_SMALL:
    case OPNN_FAMILY_FULL_SPLIT:
        if (p->cls != OPNN_CLASS_FULL)
            return false;
        plan_full(p, props, family);
        return true;
    case OPNN_FAMILY_ROW_TILE:
        if (!middle_tile_serves(p) &&
            (!inner || p->cls == OPNN_CLASS_OUTER_INNER || !row_tile_serves(p, &v)))
            return false;
        plan_row_tile(p, props, &v, true); /* the pack fold where the slabs have one */
        return true;
    case OPNN_FAMILY_ROW_THREAD:
    case OPNN_FAMILY_ROW_SUBWARP:
    case OPNN_FAMILY_ROW_WARP: {
        int64_t nvec = cdiv(v.k, (int64_t)(16 / esize_of(p->dtype)));
        int64_t slots = device_slots(props, OPNN_CUDA_BLOCKS_PER_SM_INNER);
        int64_t sub = family == OPNN_FAMILY_ROW_THREAD ? 1
                      : family == OPNN_FAMILY_ROW_WARP
                          ? 32
                          : imax(2, imin(16, group_sub_for(nvec, v.c, slots)));

        if (!inner || v.r1 != 1 || v.k >= OPNN_CUDA_MAX_RANGE || cdiv(nvec, sub) > GROUP_MAX_CHAIN)
            return false;
        plan_inner_group(p, props, &v, family, sub);
        return true;
    }
    case OPNN_FAMILY_ROW_BLOCK:
    case OPNN_FAMILY_ROW_SPLIT:
        if (!inner || v.r1 != 1)
            return false;
        plan_inner_block(p, props, &v, family);
        return true;
    case OPNN_FAMILY_COL_WIDE:
    case OPNN_FAMILY_COL_NARROW:
    case OPNN_FAMILY_COL_TINY_R:
        /* col_tiny_r has no split: one thread's chains of fp32 additions (2-4 interleaved) are
         * the whole column; on [3001, 2500] f32 they ended 4.7e-5 off the float64 sum, past
         * the GPU tests' 4.45e-5 (the planner takes it for 32 rows at most) */
        if (p->cls != OPNN_CLASS_COL || (family == OPNN_FAMILY_COL_TINY_R && p->r > 1024))
            return false;
        plan_outer(p, props, family);
        return true;
    case OPNN_FAMILY_MIDDLE:
        /* the kernel counts slabs in 32 bits */
        if (p->cls != OPNN_CLASS_COL && p->cls != OPNN_CLASS_MIDDLE &&
            !(p->cls == OPNN_CLASS_GENERIC && p->r1 > 1 && p->r1 <= INT32_MAX))
            return false;
        plan_outer(p, props, family);
        return true;
    case OPNN_FAMILY_OUTER_INNER:
        if (!inner)
            return false;
        plan_inner_block(p, props, &v, family);
        return true;
    case OPNN_FAMILY_OUTER_INNER_GROUP: {
        int64_t nvec = cdiv(v.k, (int64_t)(16 / esize_of(p->dtype)));

        int64_t sub = group_sub_for(nvec, v.c, device_slots(props, OPNN_CUDA_BLOCKS_PER_SM_INNER));

        if (!inner || v.k >= OPNN_CUDA_MAX_RANGE || cdiv(nvec, sub) * v.r1 > GROUP_MAX_CHAIN)
            return false;
        plan_inner_group(p, props, &v, family, sub);
        return true;
    }
    case OPNN_FAMILY_GENERIC:
        if (p->cls == OPNN_CLASS_EMPTY || p->cls == OPNN_CLASS_FILL)
            return false;
        plan_generic(p, props);
        return true;
    case OPNN_FAMILY_ROW_VEC: {
        int g = p->cls == OPNN_CLASS_MIDDLE         ? middle_vec_lanes(p)
                : inner && p->cls == OPNN_CLASS_ROW ? row_vec_lanes(p, &v)
                                                    : 0;
        if (!g)
            return false;
        plan_row_vec(p, props, g);
        return true;
    }
    default:
        return false;
    }
}

/* The family for a ROW (or FULL viewed as one row) plan. */
static int row_family(const opnn_reduce_plan *p, const opnn_device_props *props,
                      const inner_view *v)
{
    size_t es = esize_of(p->dtype);
    int64_t row_bytes = v->k * (int64_t)es;
    int64_t slots = device_slots(props, OPNN_CUDA_BLOCKS_PER_SM_INNER);
    int64_t nvec = cdiv(v->k, (int64_t)(16 / es));
    int vec_lanes = p->cls == OPNN_CLASS_ROW ? row_vec_lanes(p, v) : 0;
    bool use_vec = vec_lanes && vec_lanes <= 8;
    /* rows of 16 or 32 whole vectors (a power of two) for the group kernel, but those of 16 in
     * 1 GiB or more */
    bool to_groups = row_bytes % 16 == 0 && nvec >= 16 && (nvec & (nvec - 1)) == 0 &&
                     !(nvec == 16 && v->c * row_bytes >= ROW_TILE16_MIN_BYTES);

    /* Contiguous rows of up to 512 bytes: ROW_TILE (rows of 16 bytes or less fold whole packs
     * in registers), but for rows of 2-8 whole vectors, a power of two (ROW_VEC), and rows of 16
     * or 32 whole vectors (the group kernel). Measured against every family on 2^28-element
     * inputs (H200, read ceiling 4480 GB/s): [89478485, 3] 4262 GB/s against 1604 for the next
     * best; [5478274, 49] 3958 against 3168; 16-byte rows [67108864, 4] 4024 against 3865 a
     * thread a row; [4194304, 64] ROW_VEC 3965, tile 4116, 4-lane groups 4201; [2097152, 128]
     * 3985, 4168, 4294 (so ROW_VEC only up to 8 vectors); [16777216, 16] ROW_VEC 4209, tile
     * 4231; f16 [2684354, 200] tile 4228, groups 3845 (25 vectors a row). Since the tiles went
     * to two a warp (ROW_TILES_PER_WARP), rows of 16 vectors in 1 GiB or more read faster as
     * tiles (ROW_TILE16_MIN_BYTES). */
    if (row_tile_serves(p, v) && !use_vec && !to_groups)
        return OPNN_FAMILY_ROW_TILE;
    if (row_bytes <= 16)
        return OPNN_FAMILY_ROW_THREAD; /* strided rows of one vector or less: a thread a row */
    if (use_vec)
        return OPNN_FAMILY_ROW_VEC;
    if (row_bytes <= SMALL_ROW_MAX_BYTES && v->c * row_bytes <= SMALL_INPUT_MAX_BYTES)
        return OPNN_FAMILY_ROW_WARP;
    if (row_bytes <= ROW_GROUP_MAX_BYTES) {
        int64_t sub = group_sub_for(nvec, v->c, slots);
        int64_t tiles = cdiv(v->c, group_tile_rows(nvec, sub));

        /* enough row tiles to fill half the device; else (few rows, small_rows) a block per
         * row gives more loads in flight and one round trip of latency */
        if (2 * tiles >= slots)
            return sub == 32 ? OPNN_FAMILY_ROW_WARP : OPNN_FAMILY_ROW_SUBWARP;
    }
    if (one_wave_split(v->c, slots, row_bytes / SPLIT_MIN_CHUNK_BYTES) > 1)
        return OPNN_FAMILY_ROW_SPLIT;
    return OPNN_FAMILY_ROW_BLOCK;
}

static int outer_inner_family(const opnn_reduce_plan *p, const opnn_device_props *props,
                              const inner_view *v)
{
    int64_t nvec = cdiv(v->k, (int64_t)(16 / esize_of(p->dtype)));
    int64_t sub = group_sub_for(nvec, v->c, device_slots(props, OPNN_CUDA_BLOCKS_PER_SM_INNER));
    int64_t tiles = cdiv(v->c, group_tile_rows(nvec, sub));

    /* short segments and many outputs: lanes per output walk R1 (no partials). Segments walked
     * as rows in memory order with a partial each and a per-channel combine by the last group
     * (like seed_hw) read bn_nhw at 3549 GB/s against this block kernel's 3989 (H200): the
     * fences and counts per row cost more than the order gains. */
    if (nvec <= OUTER_INNER_GROUP_MAX_VEC &&
        tiles >= device_slots(props, OPNN_CUDA_BLOCKS_PER_SM_INNER))
        return OPNN_FAMILY_OUTER_INNER_GROUP;
    return OPNN_FAMILY_OUTER_INNER;
}

static int col_family(const opnn_reduce_plan *p, const opnn_device_props *props)
{
    size_t es = esize_of(p->dtype);
    int64_t vec = (int64_t)(16 / es);
    int64_t bx;

    /* narrow slabs of a few vectors: a group of lanes a slab, shuffles only. [1048576, 64, 2]
     * over 1 (f32) as columns read 0.22 of the ceiling (H200) */
    if (middle_vec_lanes(p))
        return OPNN_FAMILY_ROW_VEC;
    if (middle_tile_serves(p))
        return OPNN_FAMILY_ROW_TILE;
    if (p->cls != OPNN_CLASS_COL)
        return OPNN_FAMILY_MIDDLE;
    if (!(p->r_stride * (int64_t)es % 16 == 0))
        vec = 1;
    bx = cdiv(p->b, vec);
    if (bx < 32)
        return OPNN_FAMILY_COL_NARROW;
    /* few rows and enough column tiles to fill the device: no split, no partials */
    if (p->r <= COL_TINY_R_MAX &&
        cdiv(bx, OPNN_CUDA_BLOCK) >= device_slots(props, OPNN_CUDA_BLOCKS_PER_SM))
        return OPNN_FAMILY_COL_TINY_R;
    return OPNN_FAMILY_COL_WIDE;
}

void opnn__reduce_plan_launch(opnn_reduce_plan *plan, const opnn_device_props *props)
{
    inner_view v = {0, 0, 0, 0, 0};
    int family = OPNN_FAMILY_GENERIC;

    if (!plan)
        return;
    switch (plan->cls) {
    case OPNN_CLASS_EMPTY:
        family = OPNN_FAMILY_NONE;
        break;
    case OPNN_CLASS_FILL:
        family = OPNN_FAMILY_FILL;
        break;
    case OPNN_CLASS_FULL:
        inner_view_of(plan, &v);
        family = v.k * (int64_t)esize_of(plan->dtype) <= FULL_SMALL_MAX_BYTES
                     ? OPNN_FAMILY_FULL_SMALL
                     : OPNN_FAMILY_FULL_SPLIT;
        break;
    case OPNN_CLASS_ROW:
        inner_view_of(plan, &v);
        family = row_family(plan, props, &v);
        break;
    case OPNN_CLASS_COL:
    case OPNN_CLASS_MIDDLE:
        family = col_family(plan, props);
        break;
    case OPNN_CLASS_OUTER_INNER:
        inner_view_of(plan, &v);
        family = outer_inner_family(plan, props, &v);
        break;
    default:
        /* [R1, A, R, B] (reduce_plan.h): slabs of a middle view */
        family = plan->cls == OPNN_CLASS_GENERIC && plan->r1 > 1 ? col_family(plan, props)
                                                                 : OPNN_FAMILY_GENERIC;
        break;
    }
    if (!opnn__reduce_launch_family(plan, props, family))
        opnn__reduce_launch_family(plan, props, OPNN_FAMILY_GENERIC);
}
