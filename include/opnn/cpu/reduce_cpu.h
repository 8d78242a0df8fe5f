/// @file reduce_cpu.h
/// The CPU reduce kernel family for plugins, header-only C11 (+ OpenMP when compiled with
/// -fopenmp). A reduce op on the CPU is one line:
///
///     OP_CPU_REDUCE_DEFINE(l2_f32, float, float, float, 0.0f, l2_map, l2_add, l2_final)
///
/// defines `static op_status l2_f32(const op_reduce_plan *plan, const void *in, void *out)`,
/// which runs every class of the plan that op_reduce_prepare (opnn/reduce.h) made: EMPTY (nothing
/// to write), FILL (every output is FINAL(IDENT, 0)), FULL/ROW/COL/MIDDLE through the [A, R, B]
/// view, OUTER_INNER through [R1, C, R2] and GENERIC through the merged dims.
///
/// Order of operations, the same whatever the thread count (results are bitwise reproducible):
/// a contiguous run of the reduction is cut into leaves of OP_CPU_LEAF elements; in a leaf,
/// element i goes to accumulator i % OP_CPU_LANES, and the lanes fold pairwise at the end. A
/// column reduction ([R, B], B contiguous) keeps one accumulator per column of a tile of
/// OP_CPU_TILE columns down leaves of OP_CPU_TILE_ROWS rows. Leaves combine in a pairwise tree
/// aligned on powers of two, and so do the runs of an OUTER_INNER or GENERIC reduction. Threads
/// (OpenMP) take outputs, or, when there are few outputs, subtrees of that same tree, so the
/// combine order never depends on them. With fp32 sums every accumulation chain is at most
/// OP_CPU_LEAF / OP_CPU_LANES (or OP_CPU_TILE_ROWS) long; the rest is a tree.
///
/// The inner loops over a leaf are contiguous loops over a small array of accumulators, which
/// the compiler vectorises when MAP and COMBINE are simple arithmetic on float, double or
/// integers; any trivially copyable acc_t of at most OP_CPU_MAX_ACC_BYTES works (a (value,
/// index) pair for ArgMax, a (max, sum) pair for LogSumExp).
#ifndef OPNN_CPU_REDUCE_CPU_H
#define OPNN_CPU_REDUCE_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "opnn/cpu/half.h"
#include "opnn/plugin.h"
#include "opnn/reduce.h"
#include "opnn/reduce_plan.h"
#include "opnn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Accumulators a leaf of a contiguous run spreads its elements over (a power of two).
#define OP_CPU_LANES 16
/// Elements of a run per leaf (a multiple of OP_CPU_LANES).
#define OP_CPU_LEAF 2048
/// Columns per tile of a column reduction.
#define OP_CPU_TILE 64
/// Rows per leaf of a column reduction.
#define OP_CPU_TILE_ROWS 64
/// Largest accumulator type, in bytes.
#define OP_CPU_MAX_ACC_BYTES 16
/// Elements a reduction reads before threads are used.
#define OP_CPU_PAR_MIN ((int64_t)1 << 16)
/// Subtrees one output's tree is cut into when there are too few outputs for the threads (at
/// most; a power of two).
#define OP_CPU_PARTS 64

#if defined(_OPENMP)
#define OP_CPU_OMP_(directive) _Pragma(directive)
#else
#define OP_CPU_OMP_(directive)
#endif

/// A CPU reduce function, as OP_CPU_REDUCE_DEFINE defines it. @p in and @p out already include
/// the tensors' byte_offset (op_reduce_call's in and out).
typedef op_status (*op_cpu_reduce_fn)(const op_reduce_plan *plan, const void *in, void *out);

/// What the generic driver needs of one instantiation (filled by OP_CPU_REDUCE_DEFINE).
typedef struct op_cpu_reduce_fns {
    size_t in_size, acc_size, out_size;
    /* acc = the leaf of n (<= OP_CPU_LEAF) elements at stride s, indices idx, idx + 1, ... */
    void (*run_leaf)(const void *x, int64_t n, int64_t s, int64_t idx, void *acc);
    /* acc[j] (j < cols <= OP_CPU_TILE) = column j (at stride cs) of nrows rows (stride rs),
     * row r with index idx + r */
    void (*col_leaf)(const void *x, int64_t nrows, int64_t rs, int64_t cols, int64_t cs,
                     int64_t idx, void *acc);
    void (*combine)(void *a, const void *b, int64_t n); /* a[j] = COMBINE(a[j], b[j]), j < n */
    void (*ident)(void *acc, int64_t n);                /* acc[j] = IDENT */
    void (*final)(void *out, const void *acc, int64_t n, int64_t red_n); /* out[j] = FINAL */
} op_cpu_reduce_fns;

/* --- element types ---------------------------------------------------------------------------- */

/// The element types of DLPack reduce ops with their accumulators (DESIGN.md: f16/bf16 in f32,
/// f32 in f32, f64 in f64, int32 and int64 in int64): X(suffix, element type, accumulator type,
/// DLPack type code, bits, ...), the trailing arguments passed through. The widening and
/// narrowing functions below are named after the suffix.
#define OP_CPU_FLOAT_DTYPES(X, ...)                                                                \
    X(f32, float, float, kDLFloat, 32, __VA_ARGS__)                                                \
    X(f64, double, double, kDLFloat, 64, __VA_ARGS__)                                              \
    X(f16, op_f16, float, kDLFloat, 16, __VA_ARGS__)                                               \
    X(bf16, op_bf16, float, kDLBfloat, 16, __VA_ARGS__)
/// The integer types (see OP_CPU_FLOAT_DTYPES).
#define OP_CPU_INT_DTYPES(X, ...)                                                                  \
    X(i32, int32_t, int64_t, kDLInt, 32, __VA_ARGS__)                                              \
    X(i64, int64_t, int64_t, kDLInt, 64, __VA_ARGS__)
/// All six (see OP_CPU_FLOAT_DTYPES).
#define OP_CPU_ALL_DTYPES(X, ...)                                                                  \
    OP_CPU_FLOAT_DTYPES(X, __VA_ARGS__) OP_CPU_INT_DTYPES(X, __VA_ARGS__)

// clang-format off
/// An element widened to its accumulator type (exact).
static inline float op_cpu_widen_f32(float x) { return x; }
static inline double op_cpu_widen_f64(double x) { return x; }
static inline float op_cpu_widen_f16(op_f16 x) { return op_f16_to_f32(x); }
static inline float op_cpu_widen_bf16(op_bf16 x) { return op_bf16_to_f32(x); }
static inline int64_t op_cpu_widen_i32(int32_t x) { return x; }
static inline int64_t op_cpu_widen_i64(int64_t x) { return x; }
/// An accumulator narrowed to the element type, once at the end: floats round to nearest even,
/// integers wrap to the width (two's complement).
static inline float op_cpu_narrow_f32(float a) { return a; }
static inline double op_cpu_narrow_f64(double a) { return a; }
static inline op_f16 op_cpu_narrow_f16(float a) { return op_f32_to_f16(a); }
static inline op_bf16 op_cpu_narrow_bf16(float a) { return op_f32_to_bf16(a); }
static inline int32_t op_cpu_narrow_i32(int64_t a) { return (int32_t)(uint32_t)(uint64_t)a; }
static inline int64_t op_cpu_narrow_i64(int64_t a) { return a; }
// clang-format on

/* storage for one accumulator of any type the driver handles */
typedef union op_cpu_acc_ {
    unsigned char b[OP_CPU_MAX_ACC_BYTES];
    double d;
    int64_t i;
    void *p;
} op_cpu_acc_;

static inline int op_cpu_threads_(void)
{
#if defined(_OPENMP)
    return omp_in_parallel() ? 1 : omp_get_max_threads();
#else
    return 1;
#endif
}

static inline int op_cpu_clog2_(int64_t n)
{
    int h = 0;
    while (((int64_t)1 << h) < n)
        h++;
    return h;
}

static inline int64_t op_cpu_min_(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static inline int64_t op_cpu_cdiv_(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* --- runs: n elements at stride s ------------------------------------------------------------- */

/* Leaves [lo, lo + size) of a run (size a power of two; leaves past the end absent). */
static inline void op_cpu_rnode_(const op_cpu_reduce_fns *f, const char *x, int64_t n, int64_t s,
                                 int64_t idx, int64_t lo, int64_t size, void *acc)
{
    if (size == 1) {
        const int64_t b = lo * OP_CPU_LEAF;
        f->run_leaf(x + b * s * (int64_t)f->in_size, op_cpu_min_(OP_CPU_LEAF, n - b), s, idx + b,
                    acc);
        return;
    }
    const int64_t half = size / 2;
    op_cpu_rnode_(f, x, n, s, idx, lo, half, acc);
    if ((lo + half) * OP_CPU_LEAF < n) {
        op_cpu_acc_ r;
        op_cpu_rnode_(f, x, n, s, idx, lo + half, half, r.b);
        f->combine(acc, r.b, 1);
    }
}

/* Folds parts[lo, lo + size) into parts[lo] in the tree's order (parts from `live` absent). */
static inline void op_cpu_fold_(const op_cpu_reduce_fns *f, char *parts, size_t stride, int64_t n,
                                int64_t lo, int64_t size, int64_t live)
{
    if (size == 1)
        return;
    const int64_t half = size / 2;
    op_cpu_fold_(f, parts, stride, n, lo, half, live);
    if (lo + half < live) {
        op_cpu_fold_(f, parts, stride, n, lo + half, half, live);
        f->combine(parts + (size_t)lo * stride, parts + (size_t)(lo + half) * stride, n);
    }
}

/* The tree of a whole run into acc; par: its subtrees on all threads (the same result). */
static inline void op_cpu_run_(const op_cpu_reduce_fns *f, const char *x, int64_t n, int64_t s,
                               int64_t idx, bool par, void *acc)
{
    if (n <= 0) {
        f->ident(acc, 1);
        return;
    }
    const int64_t nl = op_cpu_cdiv_(n, OP_CPU_LEAF);
    const int h = op_cpu_clog2_(nl);
    if (!par || h == 0 || n < OP_CPU_PAR_MIN || op_cpu_threads_() <= 1) {
        op_cpu_rnode_(f, x, n, s, idx, 0, (int64_t)1 << h, acc);
        return;
    }
    op_cpu_acc_ parts[OP_CPU_PARTS];
    const int hp = h < op_cpu_clog2_(OP_CPU_PARTS) ? h : op_cpu_clog2_(OP_CPU_PARTS);
    const int64_t nparts = (int64_t)1 << hp, size = ((int64_t)1 << h) >> hp;
    const int64_t live = op_cpu_cdiv_(nl, size);
    OP_CPU_OMP_("omp parallel for schedule(static)")
    for (int64_t i = 0; i < live; i++)
        op_cpu_rnode_(f, x, n, s, idx, i * size, size, parts[i].b);
    op_cpu_fold_(f, (char *)parts, sizeof(op_cpu_acc_), 1, 0, nparts, live);
    memcpy(acc, parts[0].b, f->acc_size);
}

/* A rows of R elements (row stride as, element stride rs): out[a]. */
static inline void op_cpu_rows_(const op_cpu_reduce_fns *f, const char *x, int64_t A, int64_t as,
                                int64_t R, int64_t rs, int64_t red_n, char *out)
{
    const int t = op_cpu_threads_();
    const int64_t isz = (int64_t)f->in_size, osz = (int64_t)f->out_size;
    if (t > 1 && A < 4 * t && R >= OP_CPU_PAR_MIN) {
        /* few long rows: the threads share each row */
        for (int64_t a = 0; a < A; a++) {
            op_cpu_acc_ v;
            op_cpu_run_(f, x + a * as * isz, R, rs, 0, true, v.b);
            f->final(out + a * osz, v.b, 1, red_n);
        }
        return;
    }
    OP_CPU_OMP_("omp parallel for schedule(static) if (t > 1 && A * R >= OP_CPU_PAR_MIN)")
    for (int64_t a = 0; a < A; a++) {
        op_cpu_acc_ v;
        op_cpu_run_(f, x + a * as * isz, R, rs, 0, false, v.b);
        f->final(out + a * osz, v.b, 1, red_n);
    }
}

/* --- columns: [A, R, B], one accumulator per column ------------------------------------------- */

typedef struct op_cpu_colg_ {
    const op_cpu_reduce_fns *f;
    const char *x;
    char *out;
    int64_t A, as, R, rs, B, bs, red_n;
    int64_t tiles; /* column tiles per a */
    int64_t nl;    /* row leaves */
    int h;         /* tree height over the row leaves */
} op_cpu_colg_;

/* Row leaves [lo, lo + size) of the tile at x (cols columns) into acc[cols]. */
static inline void op_cpu_cnode_(const op_cpu_colg_ *g, const char *x, int64_t cols, int64_t lo,
                                 int64_t size, void *acc)
{
    const op_cpu_reduce_fns *f = g->f;
    if (size == 1) {
        const int64_t r0 = lo * OP_CPU_TILE_ROWS;
        f->col_leaf(x + r0 * g->rs * (int64_t)f->in_size, op_cpu_min_(OP_CPU_TILE_ROWS, g->R - r0),
                    g->rs, cols, g->bs, r0, acc);
        return;
    }
    const int64_t half = size / 2;
    op_cpu_cnode_(g, x, cols, lo, half, acc);
    if ((lo + half) * OP_CPU_TILE_ROWS < g->R) {
        op_cpu_acc_ r[OP_CPU_TILE];
        op_cpu_cnode_(g, x, cols, lo + half, half, r);
        f->combine(acc, r, cols);
    }
}

/* Task tk (a = tk / tiles, tile = tk % tiles): its first column and column count. */
static inline const char *op_cpu_ctask_(const op_cpu_colg_ *g, int64_t tk, int64_t *cols,
                                        int64_t *o)
{
    const int64_t a = tk / g->tiles, c0 = (tk % g->tiles) * OP_CPU_TILE;
    *cols = op_cpu_min_(OP_CPU_TILE, g->B - c0);
    *o = a * g->B + c0;
    return g->x + (a * g->as + c0 * g->bs) * (int64_t)g->f->in_size;
}

static inline void op_cpu_cols_task_(const op_cpu_colg_ *g, int64_t tk)
{
    op_cpu_acc_ acc[OP_CPU_TILE];
    int64_t cols, o;
    const char *x = op_cpu_ctask_(g, tk, &cols, &o);
    op_cpu_cnode_(g, x, cols, 0, (int64_t)1 << g->h, acc);
    g->f->final(g->out + o * (int64_t)g->f->out_size, acc, cols, g->red_n);
}

static inline void op_cpu_cols_(const op_cpu_reduce_fns *f, const char *x, int64_t A, int64_t as,
                                int64_t R, int64_t rs, int64_t B, int64_t bs, int64_t red_n,
                                char *out)
{
    op_cpu_colg_ g = {f,
                      x,
                      out,
                      A,
                      as,
                      R,
                      rs,
                      B,
                      bs,
                      red_n,
                      op_cpu_cdiv_(B, OP_CPU_TILE),
                      op_cpu_cdiv_(R, OP_CPU_TILE_ROWS),
                      0};
    const int t = op_cpu_threads_();
    const int64_t tasks = A * g.tiles;
    const bool par = t > 1 && A * R * B >= OP_CPU_PAR_MIN;
    g.h = op_cpu_clog2_(g.nl);
    char *buf = NULL;
    int64_t nparts = 1, size = 0, live = 0;
    const size_t panel = (size_t)OP_CPU_TILE * f->acc_size;
    if (par && tasks < 4 * t && g.h > 0) {
        /* few column tiles for the threads: cut each tile's row tree into subtrees */
        int hp = op_cpu_clog2_(op_cpu_cdiv_(4 * t, tasks));
        hp = hp < g.h ? hp : g.h;
        nparts = (int64_t)1 << hp;
        size = ((int64_t)1 << g.h) >> hp;
        live = op_cpu_cdiv_(g.nl, size);
        buf = (char *)malloc((size_t)(tasks * live) * panel);
    }
    if (!buf) { /* one task per tile (also when the partials could not be allocated) */
        OP_CPU_OMP_("omp parallel for schedule(static) if (par)")
        for (int64_t tk = 0; tk < tasks; tk++)
            op_cpu_cols_task_(&g, tk);
        return;
    }
    OP_CPU_OMP_("omp parallel for schedule(static)")
    for (int64_t u = 0; u < tasks * live; u++) {
        int64_t cols, o;
        const char *xt = op_cpu_ctask_(&g, u / live, &cols, &o);
        op_cpu_cnode_(&g, xt, cols, (u % live) * size, size, buf + (size_t)u * panel);
    }
    OP_CPU_OMP_("omp parallel for schedule(static)")
    for (int64_t tk = 0; tk < tasks; tk++) {
        int64_t cols, o;
        char *pb = buf + (size_t)(tk * live) * panel;
        (void)op_cpu_ctask_(&g, tk, &cols, &o);
        op_cpu_fold_(f, pb, panel, cols, 0, nparts, live);
        f->final(out + o * (int64_t)f->out_size, pb, cols, red_n);
    }
    free(buf);
}

/* --- sets of runs: OUTER_INNER and GENERIC ---------------------------------------------------- */

/* m runs of n elements at stride s; run k (row-major over shape[nd]) starts at offset(k) and
 * holds the flat reduced indices k * n ... k * n + n - 1. */
typedef struct op_cpu_runs_ {
    int nd;
    int64_t shape[OP_MAX_DIMS], stride[OP_MAX_DIMS];
    int64_t m, n, s;
} op_cpu_runs_;

static inline int64_t op_cpu_runs_offset_(const op_cpu_runs_ *g, int64_t k)
{
    int64_t off = 0;
    for (int d = g->nd - 1; d >= 0; d--) {
        off += (k % g->shape[d]) * g->stride[d];
        k /= g->shape[d];
    }
    return off;
}

static inline void op_cpu_snode_(const op_cpu_reduce_fns *f, const char *x, const op_cpu_runs_ *g,
                                 int64_t lo, int64_t size, bool par, void *acc)
{
    if (size == 1) {
        op_cpu_run_(f, x + op_cpu_runs_offset_(g, lo) * (int64_t)f->in_size, g->n, g->s, lo * g->n,
                    par, acc);
        return;
    }
    const int64_t half = size / 2;
    op_cpu_snode_(f, x, g, lo, half, par, acc);
    if (lo + half < g->m) {
        op_cpu_acc_ r;
        op_cpu_snode_(f, x, g, lo + half, half, par, r.b);
        f->combine(acc, r.b, 1);
    }
}

/* The tree over all runs into acc; par: on all threads (the same result). */
static inline void op_cpu_runs_all_(const op_cpu_reduce_fns *f, const char *x,
                                    const op_cpu_runs_ *g, bool par, void *acc)
{
    const int t = op_cpu_threads_();
    const int h = op_cpu_clog2_(g->m);
    if (!par || t <= 1 || g->m * g->n < OP_CPU_PAR_MIN) {
        op_cpu_snode_(f, x, g, 0, (int64_t)1 << h, false, acc);
        return;
    }
    if (g->m < 4 * t) { /* few runs: the threads share each run */
        op_cpu_snode_(f, x, g, 0, (int64_t)1 << h, true, acc);
        return;
    }
    op_cpu_acc_ parts[OP_CPU_PARTS];
    const int hp = h < op_cpu_clog2_(OP_CPU_PARTS) ? h : op_cpu_clog2_(OP_CPU_PARTS);
    const int64_t nparts = (int64_t)1 << hp, size = ((int64_t)1 << h) >> hp;
    const int64_t live = op_cpu_cdiv_(g->m, size);
    OP_CPU_OMP_("omp parallel for schedule(static)")
    for (int64_t i = 0; i < live; i++)
        op_cpu_snode_(f, x, g, i * size, size, false, parts[i].b);
    op_cpu_fold_(f, (char *)parts, sizeof(op_cpu_acc_), 1, 0, nparts, live);
    memcpy(acc, parts[0].b, f->acc_size);
}

/* Outputs o < nout: input offset base[o] (kept dims kshape/kis, row-major), output offset
 * from kos; each reduces the runs g. */
static inline void op_cpu_outputs_(const op_cpu_reduce_fns *f, const char *x, const op_cpu_runs_ *g,
                                   int nk, const int64_t *kshape, const int64_t *kis,
                                   const int64_t *kos, int64_t nout, int64_t red_n, char *out)
{
    const int t = op_cpu_threads_();
    const bool few = t > 1 && nout < 4 * t;
    const bool par = !few && t > 1 && nout * g->m * g->n >= OP_CPU_PAR_MIN;
    OP_CPU_OMP_("omp parallel for schedule(static) if (par)")
    for (int64_t o = 0; o < nout; o++) {
        int64_t io = 0, oo = 0, k = o;
        op_cpu_acc_ v;
        for (int d = nk - 1; d >= 0; d--) {
            io += (k % kshape[d]) * kis[d];
            oo += (k % kshape[d]) * kos[d];
            k /= kshape[d];
        }
        op_cpu_runs_all_(f, x + io * (int64_t)f->in_size, g, few, v.b);
        f->final(out + oo * (int64_t)f->out_size, v.b, 1, red_n);
    }
}

static inline void op_cpu_generic_(const op_cpu_reduce_fns *f, const op_reduce_plan *pl,
                                   const char *x, char *out)
{
    op_cpu_runs_ g;
    int64_t kshape[OP_MAX_DIMS], kis[OP_MAX_DIMS], kos[OP_MAX_DIMS];
    int nk = 0, run = -1;
    /* the run is the innermost reduced dim: the flat reduced index (row-major over the reduced
     * merged dims, as the CUDA families count it) then advances by one along a run */
    for (int d = 0; d < pl->ndim; d++)
        if (pl->reduced[d])
            run = d;
    memset(&g, 0, sizeof(g));
    g.m = 1;
    g.n = run >= 0 ? pl->shape[run] : 1;
    g.s = run >= 0 ? pl->istride[run] : 0;
    for (int d = 0; d < pl->ndim; d++) {
        if (pl->reduced[d]) {
            if (d == run)
                continue;
            g.shape[g.nd] = pl->shape[d];
            g.stride[g.nd] = pl->istride[d];
            g.m *= pl->shape[d];
            g.nd++;
        } else {
            kshape[nk] = pl->shape[d];
            kis[nk] = pl->istride[d];
            kos[nk] = pl->ostride[d];
            nk++;
        }
    }
    op_cpu_outputs_(f, x, &g, nk, kshape, kis, kos, pl->out_numel, pl->red_numel, out);
}

/// Runs @p plan with the instantiation @p f (what OP_CPU_REDUCE_DEFINE's functions call).
/// @retval OP_OK done.
/// @retval OP_ERR_INVALID_ARGUMENT NULL plan, or NULL data with something to read or write.
static inline op_status op_cpu_reduce_run(const op_cpu_reduce_fns *f, const op_reduce_plan *pl,
                                          const void *in, void *out)
{
    const char *x = (const char *)in;
    char *o = (char *)out;
    if (!pl)
        return OP_ERR_INVALID_ARGUMENT;
    if (pl->cls == OPNN_CLASS_EMPTY || pl->out_numel == 0)
        return OP_OK;
    if (!o || (pl->cls != OPNN_CLASS_FILL && !x))
        return OP_ERR_INVALID_ARGUMENT;
    switch (pl->cls) {
    case OPNN_CLASS_FILL: {
        /* a reduced dim of size 0: FINAL(IDENT, 0) everywhere */
        op_cpu_acc_ id;
        f->ident(id.b, 1);
        for (int64_t i = 0; i < pl->out_numel; i++)
            f->final(o + i * (int64_t)f->out_size, id.b, 1, 0);
        return OP_OK;
    }
    case OPNN_CLASS_FULL:
    case OPNN_CLASS_ROW:
        op_cpu_rows_(f, x, pl->a, pl->a_stride, pl->r, pl->r_stride, pl->red_numel, o);
        return OP_OK;
    case OPNN_CLASS_COL:
    case OPNN_CLASS_MIDDLE:
        op_cpu_cols_(f, x, pl->a, pl->a_stride, pl->r, pl->r_stride, pl->b, pl->b_stride,
                     pl->red_numel, o);
        return OP_OK;
    case OPNN_CLASS_OUTER_INNER: {
        op_cpu_runs_ g;
        const int64_t one = 1;
        memset(&g, 0, sizeof(g));
        g.nd = 1;
        g.shape[0] = pl->r1;
        g.stride[0] = pl->r1_stride;
        g.m = pl->r1;
        g.n = pl->r2;
        g.s = pl->r2_stride;
        op_cpu_outputs_(f, x, &g, 1, &pl->c, &pl->c_stride, &one, pl->c, pl->red_numel, o);
        return OP_OK;
    }
    default:
        op_cpu_generic_(f, pl, x, o);
        return OP_OK;
    }
}

/// A reduce op's CPU kernel body: plans input 0 over @p mask into output 0 with
/// op_reduce_prepare, then runs @p fn. Call it from an op_kernel_fn registered for kDLCPU.
/// @retval OP_OK done.
/// @retval other what op_reduce_prepare returns (its message is in the context).
static inline op_status op_cpu_reduce_kernel(op_kernel_ctx *kc, uint32_t mask, op_cpu_reduce_fn fn)
{
    op_reduce_call call;
    op_status st = op_reduce_prepare(kc, mask, &call);
    if (st != OP_OK)
        return st;
    if (call.device != kDLCPU)
        return op_kernel_fail(kc, OP_ERR_UNSUPPORTED, "a CPU kernel got tensors on device %d",
                              (int)call.device);
    st = fn(call.plan, call.in, call.out);
    if (st != OP_OK)
        return op_kernel_fail(kc, st, "CPU reduce of plan class %d failed", (int)call.plan->cls);
    return OP_OK;
}

/// Defines `static op_status NAME(const op_reduce_plan *plan, const void *in, void *out)`, a
/// CPU reduction over every plan class (an op_cpu_reduce_fn).
/// @param NAME   the function's name; helpers NAME##_run_leaf_ etc. are defined beside it.
/// @param IN_T   element type read (float, double, op_f16, op_bf16, int32_t, int64_t ...).
/// @param ACC_T  accumulator type: trivially copyable, at most OP_CPU_MAX_ACC_BYTES.
/// @param OUT_T  element type written.
/// @param IDENT  an expression of type ACC_T: the identity of COMBINE (parenthesise a compound
///               literal).
/// @param MAP    name of a function or function-like macro MAP(IN_T x, int64_t idx) -> ACC_T:
///               the elementwise step; idx is the element's position in the reduction (the
///               flat index over the reduced dims, row-major in the plan's merged order: with a
///               single reduced axis, the index along that axis).
/// @param COMBINE name of COMBINE(ACC_T a, ACC_T b) -> ACC_T: associative up to rounding and
///               commutative (the tree's shape is fixed; operands may come in either order).
/// @param FINAL  name of FINAL(ACC_T a, int64_t n) -> OUT_T: n is the count of elements reduced
///               (0 for an empty set, where a is IDENT).
/// Macro arguments may be evaluated more than once.
#define OP_CPU_REDUCE_DEFINE(NAME, IN_T, ACC_T, OUT_T, IDENT, MAP, COMBINE, FINAL)                 \
    static void NAME##_run_leaf_(const void *xv_, int64_t n_, int64_t s_, int64_t idx_,            \
                                 void *accv_)                                                      \
    {                                                                                              \
        const IN_T *x_ = (const IN_T *)xv_;                                                        \
        ACC_T l_[OP_CPU_LANES];                                                                    \
        int64_t i_ = 0;                                                                            \
        for (int j_ = 0; j_ < OP_CPU_LANES; j_++)                                                  \
            l_[j_] = (IDENT);                                                                      \
        if (s_ == 1) {                                                                             \
            for (; i_ + OP_CPU_LANES <= n_; i_ += OP_CPU_LANES)                                    \
                for (int j_ = 0; j_ < OP_CPU_LANES; j_++) {                                        \
                    const ACC_T m_ = MAP(x_[i_ + j_], idx_ + i_ + j_);                             \
                    l_[j_] = COMBINE(l_[j_], m_);                                                  \
                }                                                                                  \
        } else {                                                                                   \
            for (; i_ + OP_CPU_LANES <= n_; i_ += OP_CPU_LANES)                                    \
                for (int j_ = 0; j_ < OP_CPU_LANES; j_++) {                                        \
                    const ACC_T m_ = MAP(x_[(i_ + j_) * s_], idx_ + i_ + j_);                      \
                    l_[j_] = COMBINE(l_[j_], m_);                                                  \
                }                                                                                  \
        }                                                                                          \
        for (int j_ = 0; i_ < n_; i_++, j_++) {                                                    \
            const ACC_T m_ = MAP(x_[i_ * s_], idx_ + i_);                                          \
            l_[j_] = COMBINE(l_[j_], m_);                                                          \
        }                                                                                          \
        for (int w_ = OP_CPU_LANES / 2; w_ > 0; w_ /= 2)                                           \
            for (int j_ = 0; j_ < w_; j_++)                                                        \
                l_[j_] = COMBINE(l_[j_], l_[j_ + w_]);                                             \
        memcpy(accv_, &l_[0], sizeof(ACC_T));                                                      \
    }                                                                                              \
    static void NAME##_col_leaf_(const void *xv_, int64_t nrows_, int64_t rs_, int64_t cols_,      \
                                 int64_t cs_, int64_t idx_, void *accv_)                           \
    {                                                                                              \
        const IN_T *x_ = (const IN_T *)xv_;                                                        \
        ACC_T a_[OP_CPU_TILE];                                                                     \
        if (cols_ == OP_CPU_TILE && cs_ == 1) {                                                    \
            for (int j_ = 0; j_ < OP_CPU_TILE; j_++)                                               \
                a_[j_] = (IDENT);                                                                  \
            for (int64_t r_ = 0; r_ < nrows_; r_++) {                                              \
                const IN_T *p_ = x_ + r_ * rs_;                                                    \
                for (int j_ = 0; j_ < OP_CPU_TILE; j_++) {                                         \
                    const ACC_T m_ = MAP(p_[j_], idx_ + r_);                                       \
                    a_[j_] = COMBINE(a_[j_], m_);                                                  \
                }                                                                                  \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t j_ = 0; j_ < cols_; j_++)                                                 \
                a_[j_] = (IDENT);                                                                  \
            for (int64_t r_ = 0; r_ < nrows_; r_++) {                                              \
                const IN_T *p_ = x_ + r_ * rs_;                                                    \
                for (int64_t j_ = 0; j_ < cols_; j_++) {                                           \
                    const ACC_T m_ = MAP(p_[j_ * cs_], idx_ + r_);                                 \
                    a_[j_] = COMBINE(a_[j_], m_);                                                  \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        memcpy(accv_, a_, (size_t)cols_ * sizeof(ACC_T));                                          \
    }                                                                                              \
    static void NAME##_combine_(void *av_, const void *bv_, int64_t n_)                            \
    {                                                                                              \
        ACC_T *a_ = (ACC_T *)av_;                                                                  \
        const ACC_T *b_ = (const ACC_T *)bv_;                                                      \
        for (int64_t j_ = 0; j_ < n_; j_++)                                                        \
            a_[j_] = COMBINE(a_[j_], b_[j_]);                                                      \
    }                                                                                              \
    static void NAME##_ident_(void *av_, int64_t n_)                                               \
    {                                                                                              \
        ACC_T *a_ = (ACC_T *)av_;                                                                  \
        for (int64_t j_ = 0; j_ < n_; j_++)                                                        \
            a_[j_] = (IDENT);                                                                      \
    }                                                                                              \
    static void NAME##_final_(void *ov_, const void *av_, int64_t n_, int64_t red_n_)              \
    {                                                                                              \
        OUT_T *o_ = (OUT_T *)ov_;                                                                  \
        const ACC_T *a_ = (const ACC_T *)av_;                                                      \
        for (int64_t j_ = 0; j_ < n_; j_++)                                                        \
            o_[j_] = FINAL(a_[j_], red_n_);                                                        \
    }                                                                                              \
    static op_status NAME(const op_reduce_plan *plan_, const void *in_, void *out_)                \
    {                                                                                              \
        _Static_assert(sizeof(ACC_T) <= OP_CPU_MAX_ACC_BYTES, "accumulator too large");            \
        static const op_cpu_reduce_fns fns_ = {                                                    \
            sizeof(IN_T),     sizeof(ACC_T),   sizeof(OUT_T), NAME##_run_leaf_,                    \
            NAME##_col_leaf_, NAME##_combine_, NAME##_ident_, NAME##_final_};                      \
        return op_cpu_reduce_run(&fns_, plan_, in_, out_);                                         \
    }

#ifdef __cplusplus
}
#endif

#endif /* OPNN_CPU_REDUCE_CPU_H */
