/* The CPU reduce template: every plan class of core/plan.h for one reduction (one kind, one
 * dtype, one instruction set). No include guard: include it once per instantiation, after
 * kernel/cpu/reduce_cpu_common.h and kernel/cpu/reduce_cpu_simd.h, with these defined:
 *
 *   per dtype (the includer defines them, and #undefs them when done with the dtype):
 *     RC_T            element type in memory (float, uint16_t, int32_t ...)
 *     RC_A            accumulator type (float, double, uint64_t, int64_t)
 *     RC_V            32-byte vector of RC_A (kernel/cpu/reduce_cpu_simd.h)
 *     RC_VL           lanes of RC_V: 8 or 4
 *     RC_LOAD(p)      element *p (p a const RC_T *) as an RC_A, with any elementwise step
 *                     of the reduction (|x| for L1, x*x for L2 ...)
 *     RC_VLOAD(p)     RC_VL consecutive elements from p as an RC_V, each as RC_LOAD does
 *     RC_STORE(p, a)  writes the RC_A a to *p (p an RC_T *), converting once
 *   per reduction (#undef'd at the end of this file):
 *     RC_NAME         token naming the instantiation (sum_f32); functions are
 *                     rc_<RC_NAME>_<RC_ISA>_<what>, the entry rc_<RC_NAME>_<RC_ISA>_run
 *     RC_IDENT        identity of RC_COMB, an RC_A (0, 1, -inf ...)
 *     RC_COMB(a, b)   a combined with b (both RC_A): associative up to rounding
 *     RC_VCOMB(a, b)  the same, lane by lane, on two RC_V
 *     RC_FINAL(a, f)  the result (an RC_A) from accumulator a and f, a const rc_fin * (N, 1/N)
 *   optionally, per reduction (#undef'd at the end of this file too):
 *     RC_VCOMB_NONAN(a, b)  RC_VCOMB when no lane of b is NaN (Max, Min: without the NaN step)
 *     RC_VNAN_OR(m, a, b)   m with the lanes where a or b is NaN set; RC_VANY(m): any set
 *   optionally, per dtype:
 *     RC_VLOAD_PAIR(p, lo, hi)     2 * RC_VL elements from p into lo and hi, lanes in some order
 *     RC_VPAIR_ORDER(lo, hi, a, b) that order undone: a gets elements 0 .. RC_VL - 1, b the rest
 *     RC_VNARROW(v)                the opnn_v8h that RC_STORE would write lane by lane (16-bit
 *                                  RC_T, RC_VL 8)
 *     RC_VSTORE_NT(p, v)           v to p (32-byte aligned), bypassing the cache (RC_T == RC_A)
 *   and RC_ISA, a token naming the instruction set (base, avx2), set by the translation unit.
 *
 * Combining with RC_IDENT must give back the other operand exactly (x + 0 with x never -0,
 * x * 1, max(x, -inf)): padding lanes hold RC_IDENT, and a lane group that received nothing is
 * left out of the fold. Macro arguments may be evaluated more than once.
 *
 * Order of operations (kernel/cpu/reduce_cpu_common.h): a run of n elements is cut into leaves
 * of RC_LEAF; in a leaf, element i goes to lane i % RC_W of RC_NVEC vectors, which fold into one
 * vector as ((v0 + v2) + (v1 + v3)); leaves combine in an aligned pairwise tree; at the end the
 * lanes of the vector fold pairwise (lane j with lane j + RC_VL/2, and so on down). Columns
 * keep one lane per column and the same tree over leaves of rc_col_leaf_rows() rows. */

#define RCF(f) RC_CAT(RC_CAT(RC_CAT(rc_, RC_NAME), RC_CAT(_, RC_ISA)), RC_CAT(_, f))
#define RC_W (RC_NVEC * RC_VL)
/* integer lanes of RC_V's width, for masks */
#if RC_VL == 8
#define RC_VI opnn_v8i
#else
#define RC_VI opnn_v4l
#endif

#if !defined(RC_UNROLL_DEFINED_)
#define RC_UNROLL_DEFINED_
#if defined(__clang__)
#define RC_UNROLL8 _Pragma("unroll 8")
#elif defined(__GNUC__)
#define RC_UNROLL8 _Pragma("GCC unroll 8")
#else
#define RC_UNROLL8
#endif
#if defined(__GNUC__)
#define RC_ALWAYS_INLINE inline __attribute__((always_inline))
#define RC_PREFETCH(p) __builtin_prefetch(p)
#else
#define RC_ALWAYS_INLINE inline
#define RC_PREFETCH(p) ((void)(p))
#endif
#endif

OPNN_VINLINE RC_V RCF(splat)(RC_A s)
{
    RC_V v;
    for (int j = 0; j < RC_VL; j++)
        v[j] = s;
    return v;
}

/* m (1 <= m <= RC_VL) elements at stride s into the first m lanes; the others hold RC_IDENT. */
OPNN_VINLINE RC_V RCF(vload_part)(const RC_T *p, int64_t s, int64_t m)
{
    RC_V v = RCF(splat)(RC_IDENT);
    for (int64_t j = 0; j < m; j++)
        v[j] = RC_LOAD(p + j * s);
    return v;
}

/* RC_VL elements at stride s. */
OPNN_VINLINE RC_V RCF(vload_s)(const RC_T *p, int64_t s)
{
    RC_V v;
    if (s == 1)
        return RC_VLOAD(p);
    for (int j = 0; j < RC_VL; j++)
        v[j] = RC_LOAD(p + j * s);
    return v;
}

/* RC_VL elements from p (past the end of what is wanted: the caller knows the memory is the
 * tensor's), IDENT where keep is 0: vload_part(p, 1, m) where keep's first m lanes are set. */
OPNN_VINLINE RC_V RCF(vload_keep)(const RC_T *p, const RC_VI *keep)
{
    RC_V v = RC_VLOAD(p), id = RCF(splat)(RC_IDENT);
    return (RC_V)(((RC_VI)v & *keep) | ((RC_VI)id & ~*keep));
}

/* A mask of the lanes below m (vload_keep's keep). */
OPNN_VINLINE RC_VI RCF(keep_lanes)(int64_t m)
{
    RC_VI keep;
    for (int j = 0; j < RC_VL; j++)
        keep[j] = j < m ? -1 : 0;
    return keep;
}

/* Pairwise fold of the lanes of *v: lane j with lane j + w for w = RC_VL/2 ... 1. */
static inline RC_A RCF(hfold)(const RC_V *pv)
{
    RC_V v = *pv;
    for (int w = RC_VL / 2; w > 0; w /= 2)
        for (int j = 0; j < w; j++)
            v[j] = RC_COMB(v[j], v[j + w]);
    return v[0];
}

/* hfold of RC_VL vectors at once: lane g of the result is hfold(&v[g]), bit for bit. */
OPNN_VINLINE RC_V RCF(tfold)(const RC_V *v)
{
#if RC_VL == 8
    RC_V u0 = RC_VCOMB(OPNN_SHUF32(v[0], v[1], 0, 1, 2, 3, 8, 9, 10, 11),
                       OPNN_SHUF32(v[0], v[1], 4, 5, 6, 7, 12, 13, 14, 15));
    RC_V u1 = RC_VCOMB(OPNN_SHUF32(v[2], v[3], 0, 1, 2, 3, 8, 9, 10, 11),
                       OPNN_SHUF32(v[2], v[3], 4, 5, 6, 7, 12, 13, 14, 15));
    RC_V u2 = RC_VCOMB(OPNN_SHUF32(v[4], v[5], 0, 1, 2, 3, 8, 9, 10, 11),
                       OPNN_SHUF32(v[4], v[5], 4, 5, 6, 7, 12, 13, 14, 15));
    RC_V u3 = RC_VCOMB(OPNN_SHUF32(v[6], v[7], 0, 1, 2, 3, 8, 9, 10, 11),
                       OPNN_SHUF32(v[6], v[7], 4, 5, 6, 7, 12, 13, 14, 15));
    RC_V w0 = RC_VCOMB(OPNN_SHUF32(u0, u1, 0, 1, 4, 5, 8, 9, 12, 13),
                       OPNN_SHUF32(u0, u1, 2, 3, 6, 7, 10, 11, 14, 15));
    RC_V w1 = RC_VCOMB(OPNN_SHUF32(u2, u3, 0, 1, 4, 5, 8, 9, 12, 13),
                       OPNN_SHUF32(u2, u3, 2, 3, 6, 7, 10, 11, 14, 15));
    return RC_VCOMB(OPNN_SHUF32(w0, w1, 0, 2, 4, 6, 8, 10, 12, 14),
                    OPNN_SHUF32(w0, w1, 1, 3, 5, 7, 9, 11, 13, 15));
#elif RC_VL == 4
    RC_V u0 = RC_VCOMB(OPNN_SHUF64(v[0], v[1], 0, 1, 4, 5), OPNN_SHUF64(v[0], v[1], 2, 3, 6, 7));
    RC_V u1 = RC_VCOMB(OPNN_SHUF64(v[2], v[3], 0, 1, 4, 5), OPNN_SHUF64(v[2], v[3], 2, 3, 6, 7));
    return RC_VCOMB(OPNN_SHUF64(u0, u1, 0, 2, 4, 6), OPNN_SHUF64(u0, u1, 1, 3, 5, 7));
#else
#error "RC_VL must be 8 or 4"
#endif
}

static inline void RCF(put)(RC_T *out, RC_A a, const rc_fin *fin)
{
    (void)fin;
    RC_STORE(out, RC_FINAL(a, fin));
}

/* Lanes [0, n) of *pv to out[0], out[os] ... out[(n - 1) * os], each as put writes it. 16-bit
 * floats are narrowed a vector at a time (RC_VNARROW): one at a time, the narrowing took longer
 * than the read in rows of 3 f16 ([2^23, 3] over 1: 12.5 ms against 4.0 for f32, 2-core VM). */
static RC_ALWAYS_INLINE void RCF(put_lanes)(RC_T *out, int64_t os, const RC_V *pv, int64_t n,
                                            const rc_fin *fin)
{
#if defined(RC_VNARROW)
    RC_V v = *pv;
    opnn_v8h h;
    (void)fin;
    for (int l = 0; l < RC_VL; l++)
        v[l] = RC_FINAL(v[l], fin);
    h = RC_VNARROW(v);
    if (os == 1 && n == RC_VL) {
        memcpy(out, &h, sizeof h);
        return;
    }
    RC_UNROLL8
    for (int64_t j = 0; j < n; j++)
        out[j * os] = h[j];
#else
    /* unrolled: a lane read at an index known only at run time goes through memory */
    RC_UNROLL8
    for (int64_t j = 0; j < n; j++)
        RCF(put)(out + j * os, (*pv)[j], fin);
#endif
}

/* --- runs: n elements at stride s ------------------------------------------------------------- */

/* The last m (< RC_W) elements of a leaf, at stride s from p: vector k of the accumulators takes
 * the next RC_VL of them, IDENT-padded. */
static RC_ALWAYS_INLINE void RCF(leaf_tail)(const RC_T *p, int64_t m, int64_t s, RC_V *a0, RC_V *a1,
                                            RC_V *a2, RC_V *a3)
{
    *a0 = RC_VCOMB(*a0, m >= RC_VL ? RCF(vload_s)(p, s) : RCF(vload_part)(p, s, m));
    if (m > RC_VL) {
        p += RC_VL * s;
        m -= RC_VL;
        *a1 = RC_VCOMB(*a1, m >= RC_VL ? RCF(vload_s)(p, s) : RCF(vload_part)(p, s, m));
    }
    if (m > RC_VL) {
        p += RC_VL * s;
        m -= RC_VL;
        *a2 = RC_VCOMB(*a2, m >= RC_VL ? RCF(vload_s)(p, s) : RCF(vload_part)(p, s, m));
    }
    if (m > RC_VL) {
        p += RC_VL * s;
        m -= RC_VL;
        *a3 = RC_VCOMB(*a3, RCF(vload_part)(p, s, m));
    }
}

/* leaf_tail at unit stride with the last partial vector read whole (past the leaf's end: the
 * caller knows the tensor goes on), masked by keep (the lanes below m % RC_VL): the same values
 * onto a[0 .. RC_NVEC). */
static RC_ALWAYS_INLINE void RCF(tail_keep)(const RC_T *p, int64_t m, const RC_VI *keep, RC_V *a)
{
    int64_t w = m / RC_VL;

    RC_UNROLL8
    for (int j = 0; j < RC_NVEC; j++) {
        if (j < w)
            a[j] = RC_VCOMB(a[j], RC_VLOAD(p + j * RC_VL));
        else if (j == w && m % RC_VL != 0)
            a[j] = RC_VCOMB(a[j], RCF(vload_keep)(p + j * RC_VL, keep));
    }
}

/* A leaf: n elements (1 <= n <= RC_LEAF) at stride s; element i goes to lane i % RC_W. */
static RC_ALWAYS_INLINE void RCF(leaf_body)(const RC_T *x, int64_t n, int64_t s, RC_V *res)
{
    RC_V a0 = RCF(splat)(RC_IDENT), a1 = a0, a2 = a0, a3 = a0;
    int64_t i = 0;

    if (s == 1) {
        for (; i + RC_W <= n; i += RC_W) {
            RC_UNROLL8
            for (int q = 0; q < (int)(RC_W * sizeof(RC_T)); q += 64)
                RC_PREFETCH((const char *)(x + i) + RC_PREFETCH_BYTES + q);
            a0 = RC_VCOMB(a0, RC_VLOAD(x + i));
            a1 = RC_VCOMB(a1, RC_VLOAD(x + i + RC_VL));
            a2 = RC_VCOMB(a2, RC_VLOAD(x + i + 2 * RC_VL));
            a3 = RC_VCOMB(a3, RC_VLOAD(x + i + 3 * RC_VL));
        }
    } else if (s == 0) {
        /* broadcast: the same element everywhere (a [2^32] view of one value reads one) */
        RC_V v = RCF(splat)(RC_LOAD(x));
        for (; i + RC_W <= n; i += RC_W) {
            a0 = RC_VCOMB(a0, v);
            a1 = RC_VCOMB(a1, v);
            a2 = RC_VCOMB(a2, v);
            a3 = RC_VCOMB(a3, v);
        }
    } else {
        for (; i + RC_W <= n; i += RC_W) {
            const RC_T *p = x + i * s;
            a0 = RC_VCOMB(a0, RCF(vload_s)(p, s));
            a1 = RC_VCOMB(a1, RCF(vload_s)(p + RC_VL * s, s));
            a2 = RC_VCOMB(a2, RCF(vload_s)(p + 2 * RC_VL * s, s));
            a3 = RC_VCOMB(a3, RCF(vload_s)(p + 3 * RC_VL * s, s));
        }
    }
    if (i < n)
        RCF(leaf_tail)(x + i * s, n - i, s, &a0, &a1, &a2, &a3);
    *res = RC_VCOMB(RC_VCOMB(a0, a2), RC_VCOMB(a1, a3));
}

static void RCF(leaf)(const RC_T *x, int64_t n, int64_t s, RC_V *res)
{
    RCF(leaf_body)(x, n, s, res);
}

/* RC_STREAMS leaves of n elements (1 <= n <= RC_LEAF) at unit stride, leaf k from x[k], read
 * side by side: res[k] is leaf(x[k], n, 1) bit for bit (the same lanes, the same order). */
static RC_ALWAYS_INLINE void RCF(leaf_multi)(const RC_T *const *x, int64_t n, RC_V *res,
                                             const RC_VI *keep)
{
    RC_V a[RC_STREAMS][RC_NVEC];
    int64_t i = 0;

    for (int k = 0; k < RC_STREAMS; k++)
        for (int j = 0; j < RC_NVEC; j++)
            a[k][j] = RCF(splat)(RC_IDENT);
    for (; i + RC_W <= n; i += RC_W) {
        for (int k = 0; k < RC_STREAMS; k++) {
            const RC_T *p = x[k] + i;
            RC_UNROLL8
            for (int q = 0; q < (int)(RC_W * sizeof(RC_T)); q += 64)
                RC_PREFETCH((const char *)p + RC_PREFETCH_BYTES + q);
            a[k][0] = RC_VCOMB(a[k][0], RC_VLOAD(p));
            a[k][1] = RC_VCOMB(a[k][1], RC_VLOAD(p + RC_VL));
            a[k][2] = RC_VCOMB(a[k][2], RC_VLOAD(p + 2 * RC_VL));
            a[k][3] = RC_VCOMB(a[k][3], RC_VLOAD(p + 3 * RC_VL));
        }
    }
    if (keep && i < n) {
        for (int k = 0; k < RC_STREAMS; k++)
            RCF(tail_keep)(x[k] + i, n - i, keep, a[k]);
        i = n;
    }
    for (int k = 0; k < RC_STREAMS; k++) {
        if (i < n)
            RCF(leaf_tail)(x[k] + i, n - i, 1, &a[k][0], &a[k][1], &a[k][2], &a[k][3]);
        res[k] = RC_VCOMB(RC_VCOMB(a[k][0], a[k][2]), RC_VCOMB(a[k][1], a[k][3]));
    }
}

/* An aligned pairwise tree built left to right: item j joins its left neighbour as soon as that
 * subtree is complete (a binary counter: item j closes one subtree per trailing 1 bit of j). */
static RC_ALWAYS_INLINE void RCF(stack_push)(RC_V *st, int *depth, int64_t j, RC_V v)
{
    st[(*depth)++] = v;
    for (int64_t c = j; c & 1; c >>= 1) {
        (*depth)--;
        st[*depth - 1] = RC_VCOMB(st[*depth - 1], st[*depth]);
    }
}

/* The tree of the items pushed: what is left folds from the right, which is the aligned tree
 * with the items past the end absent (node(), rnode()). No item: IDENT. */
static RC_ALWAYS_INLINE RC_V RCF(stack_fold)(const RC_V *st, int depth)
{
    RC_V acc = RCF(splat)(RC_IDENT);
    if (depth > 0) {
        acc = st[depth - 1];
        for (int d = depth - 2; d >= 0; d--)
            acc = RC_VCOMB(st[d], acc);
    }
    return acc;
}

/* The trees of RC_STREAMS runs at unit stride, run k n[k] >= 0 elements from x[k], read side by
 * side: res[k] is root(x[k], n[k], 1) bit for bit (stack_push, stack_fold). keep (or NULL): the
 * runs' last vectors may be read whole, these lanes kept (leaf_multi). */
static void RCF(trees_multi)(const RC_T *const *x, const int64_t *n, RC_V *res, const RC_VI *keep)
{
    RC_V st[RC_STREAMS][64];
    int depth[RC_STREAMS];
    int64_t most = 0;

    for (int k = 0; k < RC_STREAMS; k++) {
        depth[k] = 0;
        most = n[k] > most ? n[k] : most;
    }
    for (int64_t b = 0, j = 0; b < most; b += RC_LEAF, j++) {
        int64_t m = rc_min64(RC_LEAF, n[0] - b);
        bool same = m > 0;
        RC_V v[RC_STREAMS];

        for (int k = 1; k < RC_STREAMS; k++)
            same = same && rc_min64(RC_LEAF, n[k] - b) == m;
        if (same) {
            const RC_T *p[RC_STREAMS];
            for (int k = 0; k < RC_STREAMS; k++)
                p[k] = x[k] + b;
            RCF(leaf_multi)(p, m, v, keep);
        } else {
            for (int k = 0; k < RC_STREAMS; k++)
                if (b < n[k])
                    RCF(leaf)(x[k] + b, rc_min64(RC_LEAF, n[k] - b), 1, &v[k]);
        }
        for (int k = 0; k < RC_STREAMS; k++) {
            if (b >= n[k])
                continue;
            RCF(stack_push)(st[k], &depth[k], j, v[k]);
        }
    }
    for (int k = 0; k < RC_STREAMS; k++)
        res[k] = RCF(stack_fold)(st[k], depth[k]);
}

static void RCF(fold_parts)(RC_V *parts, int64_t lo, int64_t size, int64_t live);

/* Leaves [lo, lo + size) of a run (size a power of two; leaves at or past the end absent). At
 * unit stride, RC_STREAMS equal subtrees are read side by side and folded in the tree's order. */
static void RCF(node)(const RC_T *x, int64_t n, int64_t s, int64_t lo, int64_t size, RC_V *res)
{
    int64_t half;

    if (s == 1 && size >= RC_STREAMS) {
        const RC_T *p[RC_STREAMS];
        int64_t len[RC_STREAMS], q = size / RC_STREAMS, live = 0;
        RC_V r[RC_STREAMS];

        for (int k = 0; k < RC_STREAMS; k++) {
            int64_t b = rc_min64((lo + k * q) * RC_LEAF, n);
            p[k] = x + b;
            len[k] = rc_min64((lo + (k + 1) * q) * RC_LEAF, n) - b;
            live += len[k] > 0;
        }
        RCF(trees_multi)(p, len, r, NULL);
        RCF(fold_parts)(r, 0, RC_STREAMS, live);
        *res = r[0];
        return;
    }
    if (size == 1) {
        int64_t b = lo * RC_LEAF;
        RCF(leaf)(x + b * s, rc_min64(RC_LEAF, n - b), s, res);
        return;
    }
    half = size / 2;
    RCF(node)(x, n, s, lo, half, res);
    if ((lo + half) * RC_LEAF < n) {
        RC_V r;
        RCF(node)(x, n, s, lo + half, half, &r);
        *res = RC_VCOMB(*res, r);
    }
}

static void RCF(root)(const RC_T *x, int64_t n, int64_t s, RC_V *res)
{
    if (n <= 0) {
        *res = RCF(splat)(RC_IDENT);
        return;
    }
    RCF(node)(x, n, s, 0, (int64_t)1 << rc_ceil_log2(rc_ceil_div(n, RC_LEAF)), res);
}

/* Folds parts[lo, lo + size) into parts[lo] in the tree's order; parts from `live` on are
 * absent (they covered no leaf). */
static void RCF(fold_parts)(RC_V *parts, int64_t lo, int64_t size, int64_t live)
{
    int64_t half;

    if (size == 1)
        return;
    half = size / 2;
    RCF(fold_parts)(parts, lo, half, live);
    if (lo + half < live) {
        RCF(fold_parts)(parts, lo + half, half, live);
        parts[lo] = RC_VCOMB(parts[lo], parts[lo + half]);
    }
}

/* root() with the top of the tree split between threads: the same result. */
static void RCF(root_par)(const RC_T *x, int64_t n, int64_t s, RC_V *res)
{
    RC_V parts[RC_MAX_PARTS];
    int t = rc_threads();
    int64_t nl, nparts, size, live;
    int h;

    if (t <= 1 || n < RC_PAR_MIN) {
        RCF(root)(x, n, s, res);
        return;
    }
    nl = rc_ceil_div(n, RC_LEAF);
    h = rc_ceil_log2(nl);
    nparts = rc_split_parts(h, 1, t);
    size = ((int64_t)1 << h) / nparts;
    live = rc_ceil_div(nl, size);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < live; i++)
        RCF(node)(x, n, s, i * size, size, &parts[i]);
    RCF(fold_parts)(parts, 0, nparts, live);
    *res = parts[0];
}

/* --- rows: [A, R], each row a run ------------------------------------------------------------- */

/* One row: the run's tree, its lanes folded, finalized. (Parallel loop bodies only call
 * functions like this one, with scalars and pointers: with Clang the outlined body does not get
 * the translation unit's target attribute, and must not pass vectors or inline vector code.) */
static void RCF(row_one)(const RC_T *x, int64_t R, int64_t rs, RC_T *out, const rc_fin *fin)
{
    RC_V v;
    RCF(root)(x, R, rs, &v);
    RCF(put)(out, RCF(hfold)(&v), fin);
}

/* RC_VL rows of at most RC_W elements: one leaf each, folded together by tfold. */
static RC_ALWAYS_INLINE void RCF(rows_short_body)(const RC_T *x, int64_t as, int64_t R, int64_t rs,
                                                  RC_T *out, const rc_fin *fin)
{
    RC_V v[RC_VL], r;

    if (rs == 1 && as * (int64_t)sizeof(RC_T) <= 256) {
        /* short contiguous rows: no leaf runs long enough to prefetch itself */
        for (int64_t q = 0; q < RC_VL * as * (int64_t)sizeof(RC_T); q += 64)
            RC_PREFETCH((const char *)x + RC_PREFETCH_BYTES + q);
    }
    if (rs == 1) {
        for (int g = 0; g < RC_VL; g++)
            RCF(leaf_body)(x + g * as, R, 1, &v[g]);
    } else {
        for (int g = 0; g < RC_VL; g++)
            RCF(leaf)(x + g * as, R, rs, &v[g]);
    }
    r = RCF(tfold)(v);
    RCF(put_lanes)(out, 1, &r, RC_VL, fin);
}

/* RC_VL rows of R <= RC_LEAF contiguous elements (a leaf each), row g at x + g * as, each read in
 * whole vectors from its start, past its end (the caller knows that the tensor goes on), the
 * lanes of the last vector past the row set to IDENT (keep: all ones on the lanes inside the
 * row; none when R is a multiple of RC_VL). nv: the vectors of a row when R < RC_W (a constant
 * after inlining), 0 for any R. The accumulators hold what leaf_body's do (whose last vector is
 * read a lane at a time), and tfold folds each row's lanes as hfold does, so each row's result
 * has row_one's bits: [2^27, 2] f32 over 1 read at 0.036 of the read ceiling that way, [2^22,
 * 49] at 0.30 four rows side by side by trees_multi (2-core VM). */
static RC_ALWAYS_INLINE void RCF(rows_short_over)(const RC_T *x, int64_t as, int64_t R, RC_VI keep,
                                                  RC_T *out, const rc_fin *fin, const int nv)
{
    RC_V v[RC_VL], r, id = RCF(splat)(RC_IDENT);

    if (as * (int64_t)sizeof(RC_T) <= 256) {
        for (int64_t q = 0; q < RC_VL * as * (int64_t)sizeof(RC_T); q += 64)
            RC_PREFETCH((const char *)x + RC_PREFETCH_BYTES + q);
    }
    for (int g = 0; g < RC_VL; g++) {
        const RC_T *p = x + g * as;
        RC_V a[RC_NVEC] = {id, id, id, id};
        int64_t w = nv - 1;
        if (nv == 0) {
            /* whole blocks of RC_W as leaf_body reads them, then the tail's vectors */
            for (; R - (p - (x + g * as)) >= RC_W; p += RC_W) {
                RC_UNROLL8
                for (int q = 0; q < (int)(RC_W * sizeof(RC_T)); q += 64)
                    RC_PREFETCH((const char *)p + RC_PREFETCH_BYTES + q);
                RC_UNROLL8
                for (int j = 0; j < RC_NVEC; j++)
                    a[j] = RC_VCOMB(a[j], RC_VLOAD(p + j * RC_VL));
            }
            w = (R - (p - (x + g * as))) / RC_VL;
        }
        RC_UNROLL8
        for (int j = 0; j < RC_NVEC; j++) {
            if (j < w)
                a[j] = RC_VCOMB(a[j], RC_VLOAD(p + j * RC_VL));
            else if (j == w && (nv > 0 || R % RC_VL != 0))
                a[j] = RC_VCOMB(a[j], RCF(vload_keep)(p + j * RC_VL, &keep));
        }
        v[g] = RC_VCOMB(RC_VCOMB(a[0], a[2]), RC_VCOMB(a[1], a[3]));
    }
    r = RCF(tfold)(v);
    RCF(put_lanes)(out, 1, &r, RC_VL, fin);
}

/* Batches [b0, b1) of RC_VL rows of R < RC_W contiguous elements, all of whose rows may be read
 * as whole vectors past their end (rows_short_over), RC_STREAMS sub-ranges side by side as in
 * rows_short_multi. */
static void RCF(rows_short_over_multi)(const RC_T *x, int64_t b0, int64_t b1, int64_t as, int64_t R,
                                       RC_T *out, const rc_fin *fin)
{
    int64_t q = (b1 - b0) / RC_STREAMS, ab = RC_VL * as, nv = R < RC_W ? rc_ceil_div(R, RC_VL) : 0,
            tail = R - (rc_ceil_div(R, RC_VL) - 1) * RC_VL;
    RC_VI keep;

    for (int j = 0; j < RC_VL; j++)
        keep[j] = j < tail ? -1 : 0;
#define RC_OVER_LOOP_(NV)                                                                          \
    do {                                                                                           \
        for (int64_t i = 0; i < q; i++)                                                            \
            for (int k = 0; k < RC_STREAMS; k++) {                                                 \
                int64_t b = b0 + i + k * q;                                                        \
                RCF(rows_short_over)(x + b * ab, as, R, keep, out + b * RC_VL, fin, NV);           \
            }                                                                                      \
        for (int64_t b = b0 + RC_STREAMS * q; b < b1; b++)                                         \
            RCF(rows_short_over)(x + b * ab, as, R, keep, out + b * RC_VL, fin, NV);               \
    } while (0)
    if (nv == 1)
        RC_OVER_LOOP_(1);
    else if (nv == 2)
        RC_OVER_LOOP_(2);
    else if (nv == 3)
        RC_OVER_LOOP_(3);
    else if (nv == 4)
        RC_OVER_LOOP_(4);
    else
        RC_OVER_LOOP_(0);
#undef RC_OVER_LOOP_
}

/* Batches [b0, b1) of RC_VL rows, RC_STREAMS sub-ranges of them read side by side (batch b0 + i
 * with b0 + i + q, b0 + i + 2q ...). Common contiguous row lengths get a body of their own, so
 * that a row is a few straight loads (row_tiny: 16). */
static void RCF(rows_short_multi)(const RC_T *x, int64_t b0, int64_t b1, int64_t as, int64_t R,
                                  int64_t rs, RC_T *out, const rc_fin *fin)
{
    int64_t q = (b1 - b0) / RC_STREAMS, ab = RC_VL * as;

#define RC_SHORT_LOOP_(RR, SS)                                                                     \
    do {                                                                                           \
        for (int64_t i = 0; i < q; i++)                                                            \
            for (int k = 0; k < RC_STREAMS; k++) {                                                 \
                int64_t b = b0 + i + k * q;                                                        \
                RCF(rows_short_body)(x + b * ab, as, RR, SS, out + b * RC_VL, fin);                \
            }                                                                                      \
        for (int64_t b = b0 + RC_STREAMS * q; b < b1; b++)                                         \
            RCF(rows_short_body)(x + b * ab, as, RR, SS, out + b * RC_VL, fin);                    \
    } while (0)
    if (rs == 1 && R == RC_W)
        RC_SHORT_LOOP_(RC_W, 1);
    else if (rs == 1 && R == RC_W / 2)
        RC_SHORT_LOOP_(RC_W / 2, 1);
    else if (rs == 1 && R == RC_VL)
        RC_SHORT_LOOP_(RC_VL, 1);
    else if (rs == 1)
        RC_SHORT_LOOP_(R, 1);
    else
        RC_SHORT_LOOP_(R, rs);
#undef RC_SHORT_LOOP_
}

/* Batches [b0, b1), those before bover by rows_short_over_multi. */
static void RCF(rows_short_range)(const RC_T *x, int64_t b0, int64_t b1, int64_t bover, int64_t as,
                                  int64_t R, int64_t rs, RC_T *out, const rc_fin *fin)
{
    int64_t m = rc_max64(b0, rc_min64(b1, bover));

    if (m > b0)
        RCF(rows_short_over_multi)(x, b0, m, as, R, out, fin);
    if (b1 > m)
        RCF(rows_short_multi)(x, m, b1, as, R, rs, out, fin);
}

static void RCF(rows_short)(const RC_T *x, int64_t A, int64_t as, int64_t R, int64_t rs, RC_T *out,
                            const rc_fin *fin)
{
    int64_t nb = A / RC_VL, bover = 0;
    int t = rc_threads();

    /* contiguous rows whose length has no body of its own (rows_short_multi): the batches whose
     * rows' whole vectors end inside the tensor (row a reads up to a * as + nv * RC_VL; the
     * tensor ends at (A - 1) * as + R) read them whole */
    if (rs == 1 && R != RC_W && R != RC_W / 2 && R != RC_VL)
        bover = rc_reads_inside(A, as, R, rc_ceil_div(R, RC_VL) * RC_VL) / RC_VL;
    RC_PARALLEL(
        t > 1 && A * R >= RC_PAR_MIN,
        RCF(rows_short_range)(x, nb * id / nt, nb * (id + 1) / nt, bover, as, R, rs, out, fin););
    for (int64_t a = nb * RC_VL; a < A; a++)
        RCF(row_one)(x + a * as, R, rs, out + a, fin);
}

/* Rows [a0, a1) of unit stride, RC_STREAMS sub-ranges of them read side by side (row a0 + i
 * with rows a0 + i + q, a0 + i + 2q ...): each row is still its own tree. */
static void RCF(rows_multi)(const RC_T *x, int64_t a0, int64_t a1, int64_t aover, int64_t as,
                            int64_t R, RC_T *out, const rc_fin *fin)
{
    int64_t q = (a1 - a0) / RC_STREAMS, a;
    RC_VI keep = RCF(keep_lanes)(R % RC_VL);

    for (int64_t i = 0; i < q; i++) {
        const RC_T *p[RC_STREAMS];
        int64_t len[RC_STREAMS];
        RC_V r[RC_STREAMS];

        for (int k = 0; k < RC_STREAMS; k++) {
            p[k] = x + (a0 + i + k * q) * as;
            len[k] = R;
        }
        RCF(trees_multi)(p, len, r, a0 + i + (RC_STREAMS - 1) * q < aover ? &keep : NULL);
        for (int k = 0; k < RC_STREAMS; k++)
            RCF(put)(out + a0 + i + k * q, RCF(hfold)(&r[k]), fin);
    }
    for (a = a0 + RC_STREAMS * q; a < a1; a++)
        RCF(row_one)(x + a * as, R, 1, out + a, fin);
}

static void RCF(rows)(const RC_T *x, int64_t A, int64_t as, int64_t R, int64_t rs, RC_T *out,
                      const rc_fin *fin)
{
    int t = rc_threads();

    /* contiguous rows of up to 4 * RC_W elements in batches too (rows_short_over: [2^22, 49]
     * f32 over 1 25.7 -> 16.2 ms on the 2-core VM; no gain measured past that) */
    if (R <= RC_W || (rs == 1 && R <= 4 * RC_W)) {
        RCF(rows_short)(x, A, as, R, rs, out, fin);
        return;
    }
    if (t > 1 && A < 4 * t && R >= RC_PAR_MIN) {
        /* few long rows: split inside each row */
        for (int64_t a = 0; a < A; a++) {
            RC_V v;
            RCF(root_par)(x + a * as, R, rs, &v);
            RCF(put)(out + a, RCF(hfold)(&v), fin);
        }
        return;
    }
    if (rs == 1) {
        /* rows whose last vector may be read whole: it ends inside the tensor (row a's at
         * a * as + ceil(R / RC_VL) * RC_VL; the tensor ends at (A - 1) * as + R) */
        int64_t aover = rc_reads_inside(A, as, R, rc_ceil_div(R, RC_VL) * RC_VL);
        RC_PARALLEL(t > 1 && A * R >= RC_PAR_MIN,
                    RCF(rows_multi)(x, A * id / nt, A * (id + 1) / nt, aover, as, R, out, fin););
        return;
    }
    RC_PARALLEL(t > 1 && A * R >= RC_PAR_MIN,
                for (int64_t a = A * id / nt; a < A * (id + 1) / nt; a++)
                    RCF(row_one)(x + a * as, R, rs, out + a, fin););
}

/* --- columns: a unit-stride kept dim in the vector lanes ------------------------------------ */

/* A column reduction: `outer` problems (input and output offset of each), each reducing the rows
 * of `rows` (their input offsets: the reduced dims) for B columns of unit input stride; output
 * j of a problem is at j * bos, and combines G neighbouring columns in order (G > 1: OUTER_INNER
 * with short inner runs). The columns are cut in np panels of pw (a multiple of G) columns, nvp
 * vectors; each column sums a pairwise tree of 2^h leaves of rb rows. With few panels the tree
 * is split in nparts subtrees of `size` leaves (`live` of them hold rows) whose partials go to
 * buf. */
typedef struct RCF(colg) {
    const RC_T *x;
    RC_T *out;
    const rc_fin *fin;
    rc_walk outer, rows;
    int64_t B, bos, G;
    int64_t pw, np, rb, nl, nvp;
    int h;
    int64_t nparts, size, live;
    RC_V *buf;
    int64_t prow; /* rows of B < RC_VL contiguous elements, one panel: the rows of a period
                     (RC_VL / gcd(B, RC_VL)), leaves by ctile_flat; else 0 */
    int64_t xn;   /* elements from x that a read may touch: the view's extent */
    int64_t vrow; /* rows of B elements in vrow vectors (RC_VL <= B <= RC_VSLAB_MAX * RC_VL, the
                     last one partial where B % RC_VL), one panel: slabs of a single leaf by
                     flat_vslabs; else 0 */
} RCF(colg);

/* Row r of a column tile (at x + off[r], or x + r * rs when off is NULL), with the bytes pf
 * ahead of the row's prefetched (rc_col_prefetch_bytes). */
static RC_ALWAYS_INLINE const RC_T *RCF(ctile_row)(const RC_T *x, const int64_t *off, int64_t rs,
                                                   int64_t r, int64_t pf, const int nv)
{
    const RC_T *p = x + (off ? off[r] : r * rs);

    RC_UNROLL8
    for (int q = 0; q < (int)(nv * RC_VL * sizeof(RC_T)); q += 64)
        RC_PREFETCH((const char *)p + pf + q);
    return p;
}

/* nrows rows of nv consecutive vectors, row r at x + off[r], or at x + r * rs when off is NULL;
 * nv and whether off is NULL are constants after inlining, so the accumulators stay in
 * registers (an offset table costs col_narrow 1.0 -> 0.82 of the streaming read). */
static RC_ALWAYS_INLINE void RCF(ctile)(const RC_T *x, const int64_t *off, int64_t rs,
                                        int64_t nrows, RC_V *res, const int nv)
{
    const int64_t pf = rc_col_prefetch_bytes(off ? 0 : rs * (int64_t)sizeof(RC_T));
    RC_V a[8];

#if defined(RC_VLOAD_PAIR)
    if (nv % 2 == 0) {
        /* 2 * RC_VL columns per load, their lanes permuted (the dtype's RC_VLOAD_PAIR), put
         * back in order at the end: each column still sums its rows in order, bit for bit */
        RC_UNROLL8
        for (int k = 0; k < nv; k++)
            a[k] = RCF(splat)(RC_IDENT);
        for (int64_t r = 0; r < nrows; r++) {
            const RC_T *p = RCF(ctile_row)(x, off, rs, r, pf, nv);
            RC_UNROLL8
            for (int k = 0; k < nv; k += 2) {
                RC_V lo, hi;
                RC_VLOAD_PAIR(p + k * RC_VL, lo, hi);
                a[k] = RC_VCOMB(a[k], lo);
                a[k + 1] = RC_VCOMB(a[k + 1], hi);
            }
        }
        RC_UNROLL8
        for (int k = 0; k < nv; k += 2)
            RC_VPAIR_ORDER(a[k], a[k + 1], res[k], res[k + 1]);
        return;
    }
#endif
#if defined(RC_VCOMB_NONAN)
    {
        /* no NaN among the inputs: the combine without its NaN step (col_wide Max 0.73 -> 0.77
         * of the read ceiling, A/B on the 2-core VM); else the tile again below, exactly */
        RC_V nan = RCF(splat)(0);
        RC_UNROLL8
        for (int k = 0; k < nv; k++)
            a[k] = RCF(splat)(RC_IDENT);
        for (int64_t r = 0; r < nrows; r++) {
            const RC_T *p = RCF(ctile_row)(x, off, rs, r, pf, nv);
            RC_V b[8];
            RC_UNROLL8
            for (int k = 0; k < nv; k++) {
                b[k] = RC_VLOAD(p + k * RC_VL);
                a[k] = RC_VCOMB_NONAN(a[k], b[k]);
            }
            RC_UNROLL8
            for (int k = 0; k < nv; k += 2)
                nan = RC_VNAN_OR(nan, b[k], b[k + 1 < nv ? k + 1 : k]);
        }
        if (!RC_VANY(nan)) {
            RC_UNROLL8
            for (int k = 0; k < nv; k++)
                res[k] = a[k];
            return;
        }
    }
#endif
    RC_UNROLL8
    for (int k = 0; k < nv; k++)
        a[k] = RCF(splat)(RC_IDENT);
    for (int64_t r = 0; r < nrows; r++) {
        const RC_T *p = RCF(ctile_row)(x, off, rs, r, pf, nv);
        RC_UNROLL8
        for (int k = 0; k < nv; k++)
            a[k] = RC_VCOMB(a[k], RC_VLOAD(p + k * RC_VL));
    }
    RC_UNROLL8
    for (int k = 0; k < nv; k++)
        res[k] = a[k];
}

/* The last cols (< RC_VL) columns of a panel: a row's read whole, its lanes past cols masked to
 * IDENT, where it ends inside the tensor (lim elements from x), else a lane at a time. A lane at
 * a time for every row, [4194304, 12] f32 over 0 read 0.12-0.17 of the ceiling (2-core VM). */
static void RCF(ctile_part)(const RC_T *x, const int64_t *off, int64_t rs, int64_t nrows,
                            int64_t cols, int64_t lim, RC_V *res)
{
    RC_V a = RCF(splat)(RC_IDENT);
    RC_VI keep = RCF(keep_lanes)(cols);
    for (int64_t r = 0; r < nrows; r++) {
        int64_t o = off ? off[r] : r * rs;
        a = RC_VCOMB(a, o + RC_VL <= lim ? RCF(vload_keep)(x + o, &keep)
                                         : RCF(vload_part)(x + o, 1, cols));
    }
    *res = a;
}

static RC_ALWAYS_INLINE void RCF(cleaf_body)(const RC_T *x, const int64_t *off, int64_t rs,
                                             int64_t nrows, int64_t cols, int64_t lim, RC_V *res)
{
    int64_t fv = cols / RC_VL, k = 0;

    for (; k + 8 <= fv; k += 8)
        RCF(ctile)(x + k * RC_VL, off, rs, nrows, res + k, 8);
    if (fv - k >= 4) {
        RCF(ctile)(x + k * RC_VL, off, rs, nrows, res + k, 4);
        k += 4;
    }
    if (fv - k >= 2) {
        RCF(ctile)(x + k * RC_VL, off, rs, nrows, res + k, 2);
        k += 2;
    }
    if (fv - k >= 1) {
        RCF(ctile)(x + k * RC_VL, off, rs, nrows, res + k, 1);
        k += 1;
    }
    if (cols % RC_VL)
        RCF(ctile_part)(x + k * RC_VL, off, rs, nrows, cols % RC_VL, lim - k * RC_VL, res + k);
}

/* A leaf of rows of b < RC_VL contiguous elements (x: its first row; rows b apart), read as one
 * run of n = nrows * b elements in vectors: element e is column e % b, and a period of RC_VL /
 * gcd(b, RC_VL) rows is pv = b / gcd(b, RC_VL) vectors, so vector k goes onto accumulator k % pv
 * (the last one partial, IDENT-padded); then each column's lanes are combined in order
 * (accumulator, then lane), in scalars. b is a constant after inlining (ctile_flat's switch):
 * the accumulators and the lane fold stay in registers, unrolled. The column tile read each of
 * these rows as a partial vector, a lane at a time: [128, 3136, 3] f32 over 1 ran at 0.011 of
 * the read ceiling (2-core VM). A leaf of fewer than two periods is its rows one by one; of
 * those, rows [0, wrows) may be read as whole vectors past the leaf's end. */
static RC_ALWAYS_INLINE RC_V RCF(ctile_flat_b)(const RC_T *x, int64_t nrows, const int64_t b,
                                               int64_t wrows)
{
    const int64_t pv = b / (b & -b), n = nrows * b, nv = n / RC_VL, nper = nv / pv;
    RC_V a[RC_VL], r = RCF(splat)(RC_IDENT);
    RC_A s[RC_VL];

    if (nrows < 2 * (RC_VL / (b & -b))) {
        /* fewer than two periods: the rows one by one, each read as a vector (lanes b and up not
         * used), a whole one before wrows (past the leaf's end) and a lane at a time after. The
         * lane fold (pv * RC_VL combines) costs more than it saves: [65536, 14, 7] f32 over 1
         * 472 -> 186 us; [65536, 7, 7] (less than a period: the lane fold's bits) 499 -> 107
         * us, 2-core VM */
        int64_t row = 0, w = rc_min64(nrows, wrows);
        for (; row < w; row++)
            r = RC_VCOMB(r, RC_VLOAD(x + row * b));
        for (; row < nrows; row++)
            r = RC_VCOMB(r, RCF(vload_part)(x + row * b, 1, b));
        return r;
    }
    RC_UNROLL8
    for (int64_t i = 0; i < pv; i++)
        a[i] = RCF(splat)(RC_IDENT);
    for (int64_t i = 0; i < nper; i++) {
        const RC_T *p = x + i * pv * RC_VL;
        RC_UNROLL8
        for (int64_t j = 0; j < pv; j++)
            a[j] = RC_VCOMB(a[j], RC_VLOAD(p + j * RC_VL));
    }
    /* the last period's whole vectors, then the partial one (constant indices into a[]: an
     * index known only at run time keeps every accumulator in memory) */
    RC_UNROLL8
    for (int64_t j = 0; j < pv; j++) {
        int64_t k = nper * pv + j;
        if (k < nv)
            a[j] = RC_VCOMB(a[j], RC_VLOAD(x + k * RC_VL));
        else if (k == nv && n % RC_VL)
            a[j] = RC_VCOMB(a[j], RCF(vload_part)(x + k * RC_VL, 1, n % RC_VL));
    }
    /* the lanes a column at a time in scalars (a lane of r written at a variable index was a
     * store and reload of the whole vector each: [65536, 7, 7] f32 over 1 4.4x slower) */
    RC_UNROLL8
    for (int j = 0; j < RC_VL; j++)
        s[j] = RC_IDENT;
    RC_UNROLL8
    for (int64_t i = 0; i < pv; i++) {
        RC_UNROLL8
        for (int j = 0; j < RC_VL; j++)
            s[(i * RC_VL + j) % b] = RC_COMB(s[(i * RC_VL + j) % b], a[i][j]);
    }
    RC_UNROLL8
    for (int j = 0; j < RC_VL; j++)
        r[j] = s[j];
    return r;
}

/* ctile_flat_b with b (1 <= b < RC_VL) a constant in each case. */
#if RC_VL == 8
#define RC_FLAT_CASES(F) F(1) F(2) F(3) F(4) F(5) F(6) F(7)
#else
#define RC_FLAT_CASES(F) F(1) F(2) F(3)
#endif
static void RCF(ctile_flat)(const RC_T *x, int64_t nrows, int64_t b, int64_t lim, RC_V *res)
{
    /* rows whose vector, read whole, ends inside the tensor (lim elements from x) */
    int64_t wrows = rc_rows_inside(nrows, b, RC_VL, lim);

    switch (b) {
#define RC_FLAT_CASE(B_)                                                                           \
    case B_:                                                                                       \
        *res = RCF(ctile_flat_b)(x, nrows, B_, wrows);                                             \
        return;
        RC_FLAT_CASES(RC_FLAT_CASE)
#undef RC_FLAT_CASE
    }
}

/* A leaf: rows [r0, r0 + nrows) of cols (<= the panel width) columns from x. */
static void RCF(cleaf)(const RCF(colg) * g, const RC_T *x, int64_t r0, int64_t nrows, int64_t cols,
                       RC_V *res)
{
    int64_t off[RC_COL_LEAF_MAX], lim = g->xn - (x - g->x);

    if (g->prow) {
        RCF(ctile_flat)(x + r0 * g->B, nrows, g->B, lim - r0 * g->B, res);
        return;
    }
    if (g->rows.nd == 1) {
        int64_t rs = g->rows.istride[0];
        RCF(cleaf_body)(x + r0 * rs, NULL, rs, nrows, cols, lim - r0 * rs, res);
        return;
    }
    rc_walk_run(&g->rows, r0, nrows, off);
    RCF(cleaf_body)(x, off, 0, nrows, cols, lim, res);
}

/* The same leaf (rows [r0, r0 + nrows), a row every rs) of RC_STREAMS panels of nv (1 or 2)
 * vectors, the last of them partial where keep is not NULL (its lanes past the panel's columns
 * masked to IDENT: every row's read ends inside the tensor), panel k from x[k], read row by row
 * in step: res[k] is cleaf()'s, bit for bit. Narrow panels are short runs, so the streams are
 * interleaved a row at a time, not a leaf at a time (col_narrow: 0.79 -> 0.9x of the read
 * ceiling). */
static RC_ALWAYS_INLINE void RCF(ctile_multi)(const RC_T *const *x, int64_t rs, int64_t nrows,
                                              RC_V *const *res, const int nv, const RC_VI *keep)
{
    RC_V a[RC_STREAMS][2];

    for (int k = 0; k < RC_STREAMS; k++)
        for (int v = 0; v < nv; v++)
            a[k][v] = RCF(splat)(RC_IDENT);
    for (int64_t r = 0; r < nrows; r++) {
        for (int k = 0; k < RC_STREAMS; k++) {
            const RC_T *p = x[k] + r * rs;
            for (int v = 0; v < nv; v++)
                a[k][v] =
                    RC_VCOMB(a[k][v], keep && v == nv - 1 ? RCF(vload_keep)(p + v * RC_VL, keep)
                                                          : RC_VLOAD(p + v * RC_VL));
        }
    }
    for (int k = 0; k < RC_STREAMS; k++)
        for (int v = 0; v < nv; v++)
            res[k][v] = a[k][v];
}

static void RCF(cleaf_multi)(const RC_T *const *x, int64_t rs, int64_t nrows, int64_t cols,
                             RC_V *const *res)
{
    RC_VI keep = RCF(keep_lanes)(cols % RC_VL);
    const RC_VI *kp = cols % RC_VL ? &keep : NULL;

    if (cols > RC_VL && kp)
        RCF(ctile_multi)(x, rs, nrows, res, 2, kp);
    else if (cols > RC_VL)
        RCF(ctile_multi)(x, rs, nrows, res, 2, NULL);
    else
        RCF(ctile_multi)(x, rs, nrows, res, 1, NULL);
}

/* Row leaves [lo, lo + size) of one panel of cols columns into res. scratch holds log2(size)
 * panels: the right subtree of each level goes there. */
static void RCF(cnode)(const RCF(colg) * g, const RC_T *x, int64_t lo, int64_t size, int64_t cols,
                       RC_V *res, RC_V *scratch)
{
    int64_t half;

    if (size == 1) {
        int64_t r0 = lo * g->rb;
        RCF(cleaf)(g, x, r0, rc_min64(g->rb, g->rows.count - r0), cols, res);
        return;
    }
    half = size / 2;
    RCF(cnode)(g, x, lo, half, cols, res, scratch);
    if ((lo + half) * g->rb < g->rows.count) {
        int64_t nv = rc_ceil_div(cols, RC_VL);
        RCF(cnode)(g, x, lo + half, half, cols, scratch, scratch + nv);
        for (int64_t k = 0; k < nv; k++)
            res[k] = RC_VCOMB(res[k], scratch[k]);
    }
}

/* fold_parts for panels of nv vectors, one every `stride` vectors from buf. */
static void RCF(fold_panels)(RC_V *buf, int64_t stride, int64_t nv, int64_t lo, int64_t size,
                             int64_t live)
{
    int64_t half;

    if (size == 1)
        return;
    half = size / 2;
    RCF(fold_panels)(buf, stride, nv, lo, half, live);
    if (lo + half < live) {
        RC_V *l = buf + lo * stride, *r = buf + (lo + half) * stride;
        RCF(fold_panels)(buf, stride, nv, lo + half, half, live);
        for (int64_t k = 0; k < nv; k++)
            l[k] = RC_VCOMB(l[k], r[k]);
    }
}

/* Finalizes cols columns (a multiple of G) to out: G neighbours combined in order per output,
 * outputs bos apart. */
static void RCF(cput)(const RCF(colg) * g, RC_T *out, const RC_V *acc, int64_t cols)
{
    if (g->G == 1) {
        int64_t j = 0;
#if defined(RC_VSTORE_NT)
        if (g->bos == 1 && (uintptr_t)out % sizeof(RC_T) == 0) {
            /* whole vectors of outputs straight to memory, no read for ownership (col_short
             * writes 64 MiB): the first few one by one up to a vector's alignment */
            int64_t lead = (int64_t)((sizeof(RC_V) - (uintptr_t)out % sizeof(RC_V)) % sizeof(RC_V) /
                                     sizeof(RC_T));
            for (; j < lead && j < cols; j++)
                RCF(put)(out + j, acc[j / RC_VL][j % RC_VL], g->fin);
            for (; j + RC_VL <= cols; j += RC_VL) {
                RC_V v;
                for (int l = 0; l < RC_VL; l++)
                    v[l] = RC_FINAL(acc[(j + l) / RC_VL][(j + l) % RC_VL], g->fin);
                RC_VSTORE_NT(out + j, v);
            }
        }
#else
        if (g->bos == 1)
            for (; j + RC_VL <= cols; j += RC_VL)
                RCF(put_lanes)(out + j, 1, &acc[j / RC_VL], RC_VL, g->fin);
#endif
        for (; j < cols; j++)
            RCF(put)(out + j * g->bos, acc[j / RC_VL][j % RC_VL], g->fin);
        return;
    }
    for (int64_t c = 0, j = 0; j < cols; c++) {
        RC_A a = acc[j / RC_VL][j % RC_VL];
        for (int64_t e = j + g->G, i = j + 1; i < e; i++)
            a = RC_COMB(a, acc[i / RC_VL][i % RC_VL]);
        j += g->G;
        RCF(put)(out + c * g->bos, a, g->fin);
    }
}

/* Subtree [lo, lo + size) of panel task tk (problem tk / np, panel tk % np) into res (nvp
 * vectors), or, with res NULL, whole and finalized. scratch: (h + 2) * nvp vectors, or NULL when
 * they could not be allocated: then the panel goes a tile at a time, with scratch on the stack
 * (columns are independent: the same result; G <= 8 * RC_VL, so a tile holds a group). */
static void RCF(cpanel)(const RCF(colg) * g, int64_t tk, int64_t lo, int64_t size, RC_V *res,
                        RC_V *scratch)
{
    int64_t c0 = (tk % g->np) * g->pw, cols = rc_min64(g->pw, g->B - c0), io, oo;
    bool final = res == NULL;
    const RC_T *x;
    RC_T *out;
    RC_V small[(64 + 1) * 8];
    /* finalizing needs whole groups; partials need whole vectors */
    int64_t tile = final ? (8 * RC_VL / g->G) * g->G : 8 * RC_VL;

    rc_walk_at(&g->outer, tk / g->np, &io, &oo);
    x = g->x + io + c0;
    out = g->out + oo + c0 / g->G * g->bos;
    if (scratch) {
        if (final)
            res = scratch, scratch += g->nvp;
        RCF(cnode)(g, x, lo, size, cols, res, scratch);
        if (final)
            RCF(cput)(g, out, res, cols);
        return;
    }
    for (int64_t c = 0; c < cols; c += tile) {
        int64_t w = rc_min64(tile, cols - c);
        RC_V *r = final ? small : res + c / RC_VL;
        RCF(cnode)(g, x + c, lo, size, w, r, small + 8);
        if (final)
            RCF(cput)(g, out + c / g->G * g->bos, r, w);
    }
}

static RC_V *RCF(scratch_alloc)(const RCF(colg) * g)
{
    return aligned_alloc(sizeof(RC_V), (size_t)((g->h + 2) * g->nvp) * sizeof(RC_V));
}

/* The partials of panel task tk folded in the tree's order, finalized. */
static void RCF(cols_fold)(const RCF(colg) * g, int64_t tk)
{
    int64_t c0 = (tk % g->np) * g->pw, cols = rc_min64(g->pw, g->B - c0), io, oo;
    RC_V *pb = g->buf + tk * g->nparts * g->nvp;

    rc_walk_at(&g->outer, tk / g->np, &io, &oo);
    RCF(fold_panels)(pb, g->nvp, rc_ceil_div(cols, RC_VL), 0, g->nparts, g->live);
    RCF(cput)(g, g->out + oo + c0 / g->G * g->bos, pb, cols);
}

/* Unit u of g: subtree u / tasks of panel task u % tasks (the subtrees of one row range for
 * every panel in a row, so that neighbouring units read neighbouring columns of the same rows). */
static RC_ALWAYS_INLINE void RCF(unit_at)(const RCF(colg) * g, int64_t u, int64_t *tk,
                                          int64_t *part)
{
    int64_t tasks = g->outer.count * g->np;
    *tk = u % tasks;
    *part = u / tasks;
}

/* Unit u of g on its own: finalized, or its partial to buf. */
static void RCF(cunit)(const RCF(colg) * g, int64_t u, RC_V *scratch)
{
    int64_t tk, part;
    RC_V *res;

    RCF(unit_at)(g, u, &tk, &part);
    res = g->buf ? g->buf + (tk * g->nparts + part) * g->nvp : NULL;

    RCF(cpanel)(g, tk, part * g->size, g->size, res, scratch);
}

/* Units [u0, u1) of g (unit_at), RC_STREAMS neighbours read side by side, a leaf of each in
 * turn: 4 panels of the same rows make 32 KB runs of each row (against 4 sub-ranges far apart,
 * time x0.89 on col_wide16, x0.92 middle, x0.96 col_short, A/B on the 2-core VM), each unit's
 * tree built left to right on a stack of panels (stack_push's order: cnode()'s tree, bit for
 * bit). Then finalized (buf NULL) or stored as partials. st: RC_STREAMS * (h + 2) * nvp
 * vectors; scratch: scratch_alloc()'s, for the units left over. */
static void RCF(cunits_multi)(const RCF(colg) * g, int64_t u0, int64_t u1, RC_V *st, RC_V *scratch)
{
    int64_t q = (u1 - u0) / RC_STREAMS, nvp = g->nvp, lev = (int64_t)g->h + 2;
    /* panels of RC_VL to 2 * RC_VL columns (the last vector partial, read whole where every
     * row's read ends inside the tensor), rows at one stride: cleaf_multi. Each stream's leaves
     * one after another, the partial vector in its own pass, read [4194304, 12] f32 over 0 in
     * 5.8-6.1 ms against 2.2 in step (f64 [4194304, 5] 5.1-5.9 -> 1.8; 2-core VM); panels of 3
     * vectors in step read no nearer the ceiling ([2097152, 24] 0.41 -> 0.39 of it, [8388608,
     * 17] 0.46 either way). */
    bool narrow = g->rows.nd == 1 && g->B <= g->pw && g->B >= RC_VL && g->B <= 2 * RC_VL;

    for (int64_t i = 0; i < q; i++) {
        const RC_T *x[RC_STREAMS];
        int64_t tk[RC_STREAMS], lo[RC_STREAMS], cols[RC_STREAMS], nv[RC_STREAMS];
        int depth[RC_STREAMS];

        for (int k = 0; k < RC_STREAMS; k++) {
            int64_t io, oo, c0, part;
            RCF(unit_at)(g, u0 + i * RC_STREAMS + k, &tk[k], &part);
            lo[k] = part * g->size;
            c0 = (tk[k] % g->np) * g->pw;
            cols[k] = rc_min64(g->pw, g->B - c0);
            nv[k] = rc_ceil_div(cols[k], RC_VL);
            rc_walk_at(&g->outer, tk[k] / g->np, &io, &oo);
            x[k] = g->x + io + c0;
            depth[k] = 0;
        }
        for (int64_t j = 0; j < g->size; j++) {
            bool step = narrow;
            for (int k = 0; k < RC_STREAMS; k++) {
                int64_t r0 = (lo[k] + j) * g->rb, rs = g->rows.istride[0];
                step = step && cols[k] == cols[0] && r0 + g->rb <= g->rows.count &&
                       rc_rows_inside(g->rb, rs, nv[k] * RC_VL, g->xn - (x[k] - g->x) - r0 * rs) ==
                           g->rb;
            }
            if (step) {
                const RC_T *p[RC_STREAMS];
                RC_V *r[RC_STREAMS];
                int64_t rs = g->rows.istride[0];
                for (int k = 0; k < RC_STREAMS; k++) {
                    p[k] = x[k] + (lo[k] + j) * g->rb * rs;
                    r[k] = st + (k * lev + depth[k]) * nvp;
                }
                RCF(cleaf_multi)(p, rs, g->rb, cols[0], r);
            }
            for (int k = 0; k < RC_STREAMS; k++) {
                RC_V *sk = st + k * lev * nvp;
                int64_t r0 = (lo[k] + j) * g->rb, nrows;
                if (r0 >= g->rows.count)
                    continue;
                nrows = rc_min64(g->rb, g->rows.count - r0);
                if (!step)
                    RCF(cleaf)(g, x[k], r0, nrows, cols[k], sk + depth[k] * nvp);
                depth[k]++;
                for (int64_t c = j; c & 1; c >>= 1) {
                    RC_V *l = sk + (depth[k] - 2) * nvp, *r = l + nvp;
                    for (int64_t v = 0; v < nv[k]; v++)
                        l[v] = RC_VCOMB(l[v], r[v]);
                    depth[k]--;
                }
            }
        }
        for (int k = 0; k < RC_STREAMS; k++) {
            RC_V *sk = st + k * lev * nvp;
            for (int d = depth[k] - 2; d >= 0; d--)
                for (int64_t v = 0; v < nv[k]; v++)
                    sk[d * nvp + v] = RC_VCOMB(sk[d * nvp + v], sk[(d + 1) * nvp + v]);
            if (g->buf) {
                RC_V *dst = g->buf + (tk[k] * g->nparts + lo[k] / g->size) * nvp;
                for (int64_t v = 0; v < nv[k]; v++)
                    dst[v] = sk[v];
            } else {
                int64_t io, oo;
                rc_walk_at(&g->outer, tk[k] / g->np, &io, &oo);
                RCF(cput)(g, g->out + oo + (tk[k] % g->np) * g->pw / g->G * g->bos, sk, cols[k]);
            }
        }
    }
    for (int64_t u = u0 + RC_STREAMS * q; u < u1; u++)
        RCF(cunit)(g, u, scratch);
}

/* Input and output offsets of slab u of g (its outer walk): by multiplication for one outer
 * dim, by division for more. */
static RC_ALWAYS_INLINE void RCF(slab_at)(const RCF(colg) * g, int64_t u, int64_t *io, int64_t *oo)
{
    if (g->outer.nd > 1) {
        rc_walk_at(&g->outer, u, io, oo);
        return;
    }
    *io = g->outer.nd ? u * g->outer.istride[0] : 0;
    *oo = g->outer.nd ? u * g->outer.ostride[0] : 0;
}

/* Slabs [u0, u1) of g, each a single leaf of rows of b < RC_VL contiguous elements (g->prow,
 * g->nl == 1; a unit is a slab), b a constant after inlining: ctile_flat_b, then the b outputs.
 * The unit path's set-up per slab (its position by division, the tree, cput) cost more than
 * reading a slab of a few hundred bytes ([262144, 16, 3] f32 over 1: 4784 -> 683 us with b a
 * constant, 2-core VM). */
static RC_ALWAYS_INLINE void RCF(flat_slabs_b)(const RCF(colg) * g, int64_t u0, int64_t u1,
                                               const int64_t b)
{
    int64_t R = g->rows.count;

    for (int64_t u = u0; u < u1; u++) {
        int64_t io, oo;
        RC_V r;
        RCF(slab_at)(g, u, &io, &oo);
        /* the rows whose vector, read whole, ends inside the tensor */
        r = RCF(ctile_flat_b)(g->x + io, R, b, rc_rows_inside(R, b, RC_VL, g->xn - io));
        RCF(put_lanes)(g->out + oo, g->bos, &r, b, g->fin);
    }
}

static void RCF(flat_slabs)(const RCF(colg) * g, int64_t u0, int64_t u1)
{
    switch (g->B) {
#define RC_FLAT_CASE(B_)                                                                           \
    case B_:                                                                                       \
        RCF(flat_slabs_b)(g, u0, u1, B_);                                                          \
        return;
        RC_FLAT_CASES(RC_FLAT_CASE)
#undef RC_FLAT_CASE
    }
}

/* Slabs [u0, u1) of g, each a single leaf of rows of B >= RC_VL elements (g->vrow, g->nl == 1; a
 * unit is a slab): nv whole vectors and, where part, a last partial one (B % RC_VL lanes), nv
 * and part constants after inlining. Each column's rows are combined in order, as ctile and
 * ctile_part combine them, then the B outputs a vector at a time. The partial vector of a row is
 * read whole (its lanes past B belong to the next row or slab, and are dropped) where that read
 * ends inside the tensor (g->xn), a lane at a time after. Small slabs spent more on the unit
 * path's set-up than on their reads ([2097152, 16, 8] f16 over 1: 25.0 -> 11.4 ms, f32 [1048576,
 * 16, 16] 60.1 -> 26.8 ms, 2-core VM), and its partial vectors went a lane at a time. */
static RC_ALWAYS_INLINE void RCF(flat_vslabs_nv)(const RCF(colg) * g, int64_t u0, int64_t u1,
                                                 const int nv, const bool part)
{
    const int nt = nv + (part ? 1 : 0);
    int64_t R = g->rows.count, rs = g->rows.istride[0], t = g->B % RC_VL;

    for (int64_t u = u0; u < u1; u++) {
        int64_t io, oo, r = 0, w = R;
        const RC_T *x;
        RC_V a[RC_VSLAB_MAX];
        RCF(slab_at)(g, u, &io, &oo);
        x = g->x + io;
        /* the rows whose partial vector, read whole, ends inside the tensor */
        if (part)
            w = rc_rows_inside(R, rs, (nv + 1) * RC_VL, g->xn - io);
        RC_UNROLL8
        for (int k = 0; k < nt; k++)
            a[k] = RCF(splat)(RC_IDENT);
        for (; r < w; r++) {
            RC_UNROLL8
            for (int k = 0; k < nt; k++)
                a[k] = RC_VCOMB(a[k], RC_VLOAD(x + r * rs + k * RC_VL));
        }
        for (; part && r < R; r++) {
            RC_UNROLL8
            for (int k = 0; k < nv; k++)
                a[k] = RC_VCOMB(a[k], RC_VLOAD(x + r * rs + k * RC_VL));
            a[nv] = RC_VCOMB(a[nv], RCF(vload_part)(x + r * rs + nv * RC_VL, 1, t));
        }
        RC_UNROLL8
        for (int k = 0; k < nv; k++)
            RCF(put_lanes)(g->out + oo + k * RC_VL * g->bos, g->bos, &a[k], RC_VL, g->fin);
        if (part)
            RCF(put_lanes)(g->out + oo + nv * RC_VL * g->bos, g->bos, &a[nv], t, g->fin);
    }
}

static void RCF(flat_vslabs)(const RCF(colg) * g, int64_t u0, int64_t u1)
{
    const bool part = g->B % RC_VL != 0;

    switch (g->B / RC_VL) {
#define RC_VSLAB_CASE(N_)                                                                          \
    case N_:                                                                                       \
        if (part)                                                                                  \
            RCF(flat_vslabs_nv)(g, u0, u1, N_, true);                                              \
        else                                                                                       \
            RCF(flat_vslabs_nv)(g, u0, u1, N_, false);                                             \
        return;
        RC_VSLAB_CASE(1)
        RC_VSLAB_CASE(2)
        RC_VSLAB_CASE(3)
        RC_VSLAB_CASE(4)
        RC_VSLAB_CASE(5)
        RC_VSLAB_CASE(6)
        RC_VSLAB_CASE(7)
#undef RC_VSLAB_CASE
    default:
        RCF(flat_vslabs_nv)(g, u0, u1, RC_VSLAB_MAX, false);
    }
}

/* Units [u0, u1) of the column reduction g (a thread's share of cols_run), RC_STREAMS of them
 * side by side when their state can be allocated. */
static void RCF(cols_units)(RCF(colg) * g, int64_t u0, int64_t u1)
{
    RC_V *scratch, *st;

    if (g->prow && g->nl == 1) {
        RCF(flat_slabs)(g, u0, u1);
        return;
    }
    if (g->vrow && g->nl == 1) {
        RCF(flat_vslabs)(g, u0, u1);
        return;
    }
    scratch = RCF(scratch_alloc)(g);
    st =
        u1 - u0 >= RC_STREAMS
            ? aligned_alloc(sizeof(RC_V), (size_t)(RC_STREAMS * (g->h + 2) * g->nvp) * sizeof(RC_V))
            : NULL;
    if (st && scratch) {
        RCF(cunits_multi)(g, u0, u1, st, scratch);
    } else {
        for (int64_t u = u0; u < u1; u++)
            RCF(cunit)(g, u, scratch);
    }
    free(st);
    free(scratch);
    RC_SFENCE();
}

/* Runs the column reduction g (x, out, fin, outer, rows, B, bos, G set). Panels hold
 * RC_PANEL_BYTES of input per row: the accumulators of a tile stay in registers down a leaf of
 * rb rows, and a panel is wide enough that the hardware prefetcher's run-ahead along a row is
 * mostly used. Each thread takes a static range of (panel, subtree) units and reads RC_STREAMS
 * of them side by side. */
static void RCF(cols_run)(RCF(colg) * g)
{
    int t = rc_threads();
    int64_t tasks, units, R = g->rows.count;
    bool par;

    g->pw = (RC_PANEL_BYTES / (int64_t)sizeof(RC_T)) / g->G * g->G;
    g->xn = g->B;
    for (int d = 0; d < g->outer.nd; d++)
        g->xn += (g->outer.shape[d] - 1) * g->outer.istride[d];
    for (int d = 0; d < g->rows.nd; d++)
        g->xn += (g->rows.shape[d] - 1) * g->rows.istride[d];
    g->np = rc_ceil_div(g->B, g->pw);
    g->rb = rc_col_leaf_rows(g->B);
    /* rows of B < RC_VL contiguous elements: leaves of whole periods (ctile_flat), each lane
     * folding as many rows as a column tile's lane does (RC_COL_LEAF_MAX) */
    g->prow = 0;
    if (g->G == 1 && g->rows.nd == 1 && g->rows.istride[0] == g->B && g->B < RC_VL) {
        int64_t gb = RC_VL;
        while (g->B % gb != 0)
            gb /= 2;
        g->prow = RC_VL / gb;
        g->rb = RC_COL_LEAF_MAX * g->prow;
    }
    g->vrow = g->G == 1 && g->rows.nd == 1 && g->B >= RC_VL && g->B <= RC_VSLAB_MAX * RC_VL
                  ? rc_ceil_div(g->B, RC_VL)
                  : 0;
    g->nl = rc_ceil_div(R, g->rb);
    g->h = rc_ceil_log2(g->nl);
    g->nvp = rc_ceil_div(rc_min64(g->B, g->pw), RC_VL); /* vectors of a full panel */
    g->buf = NULL;
    g->size = (int64_t)1 << g->h;
    g->live = 1;
    tasks = g->outer.count * g->np;
    par = t > 1 && g->outer.count * R * g->B >= RC_PAR_MIN;
    g->nparts = par ? rc_split_parts(g->h, tasks, t) : 1;
    if (g->nparts > 1)
        g->buf = aligned_alloc(sizeof(RC_V), (size_t)(tasks * g->nparts * g->nvp) * sizeof(RC_V));
    if (g->buf) {
        g->size = ((int64_t)1 << g->h) / g->nparts;
        g->live = rc_ceil_div(g->nl, g->size);
    }
    /* without partials (none wanted, or no memory for them: the same result), a unit is a
     * whole panel, finalized */
    units = tasks * g->live;
    RC_PARALLEL(par, RCF(cols_units)(g, units * id / nt, units * (id + 1) / nt););
    if (!g->buf)
        return;
#pragma omp parallel for schedule(static)
    for (int64_t tk = 0; tk < tasks; tk++)
        RCF(cols_fold)(g, tk);
    free(g->buf);
}

/* COL and MIDDLE: A problems [R, B] (a_stride as, r_stride rs, b_stride 1), output a * B + b. */
static void RCF(cols)(const RC_T *x, int64_t A, int64_t as, int64_t R, int64_t rs, int64_t B,
                      RC_T *out, const rc_fin *fin)
{
    RCF(colg) g;

    g.x = x;
    g.out = out;
    g.fin = fin;
    rc_walk_init(&g.outer);
    if (A > 1)
        rc_walk_add(&g.outer, A, as, B);
    rc_walk_init(&g.rows);
    rc_walk_add(&g.rows, R, rs, 0);
    g.B = B;
    g.bos = 1;
    g.G = 1;
    RCF(cols_run)(&g);
}

/* --- sets of runs: OUTER_INNER and GENERIC ---------------------------------------------------- */

/* Runs [lo, lo + size) of g, combined pairwise; par splits inside each run between threads. */
static void RCF(rnode)(const RC_T *x, const rc_runs *g, int64_t lo, int64_t size, bool par,
                       RC_V *res)
{
    int64_t half;

    if (size == 1) {
        const RC_T *p = x + rc_runs_offset(g, lo);
        if (par)
            RCF(root_par)(p, g->n, g->s, res);
        else
            RCF(root)(p, g->n, g->s, res);
        return;
    }
    half = size / 2;
    RCF(rnode)(x, g, lo, half, par, res);
    if (lo + half < g->m) {
        RC_V r;
        RCF(rnode)(x, g, lo + half, half, par, &r);
        *res = RC_VCOMB(*res, r);
    }
}

static void RCF(runs_root)(const RC_T *x, const rc_runs *g, RC_V *res)
{
    RCF(rnode)(x, g, 0, (int64_t)1 << rc_ceil_log2(g->m), false, res);
}

/* One output from its runs: tree, lanes folded, finalized. */
static void RCF(runs_one)(const RC_T *x, const rc_runs *g, RC_T *out, const rc_fin *fin)
{
    RC_V v;
    RCF(runs_root)(x, g, &v);
    RCF(put)(out, RCF(hfold)(&v), fin);
}

/* runs_root() using all threads: across runs when there are many, inside each otherwise. */
static void RCF(runs_par)(const RC_T *x, const rc_runs *g, RC_V *res)
{
    RC_V parts[RC_MAX_PARTS];
    int t = rc_threads();
    int h = rc_ceil_log2(g->m);
    int64_t nparts, size, live;

    if (t <= 1 || g->m * g->n < RC_PAR_MIN) {
        RCF(runs_root)(x, g, res);
        return;
    }
    if (g->m < 4 * t) {
        RCF(rnode)(x, g, 0, (int64_t)1 << h, true, res);
        return;
    }
    nparts = rc_split_parts(h, 1, t);
    size = ((int64_t)1 << h) / nparts;
    live = rc_ceil_div(g->m, size);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < live; i++)
        RCF(rnode)(x, g, i * size, size, false, &parts[i]);
    RCF(fold_parts)(parts, 0, nparts, live);
    *res = parts[0];
}

/* Outputs [c0, c1) of runs g at unit stride (output c from x + c * cs), RC_STREAMS sub-ranges
 * of outputs side by side, their runs read in step: each output is still runs_one()'s tree.
 * Run j of every output goes before run j + 1 of any (each output's tree on a stack of its
 * own), so that a thread reads its slab of each outer index straight through: bn_nhw's runs
 * are 12.5 KB, and hopping to the next of them each time cost 0.77 -> 0.9x of the read
 * ceiling. */
static void RCF(runs_multi)(const RC_T *x, int64_t cs, const rc_runs *g, int64_t c0, int64_t c1,
                            RC_T *out, const rc_fin *fin)
{
    int64_t q = (c1 - c0) / RC_STREAMS, lev = rc_ceil_log2(g->m) + 2, len[RC_STREAMS], c;
    RC_V *st =
        q > 0 ? aligned_alloc(sizeof(RC_V), (size_t)(q * RC_STREAMS * lev) * sizeof(RC_V)) : NULL;
    int *depth = q > 0 ? calloc((size_t)(q * RC_STREAMS), sizeof(int)) : NULL;

    for (int k = 0; k < RC_STREAMS; k++)
        len[k] = g->n;
    if (!st || !depth) {
        /* no memory for the stacks: one group of outputs at a time, the same trees */
        free(st);
        free(depth);
        for (c = c0; c < c1; c++)
            RCF(runs_one)(x + c * cs, g, out + c, fin);
        return;
    }
    for (int64_t j = 0; j < g->m; j++) {
        int64_t off = rc_runs_offset(g, j);
        for (int64_t i = 0; i < q; i++) {
            const RC_T *p[RC_STREAMS];
            RC_V r[RC_STREAMS];
            for (int k = 0; k < RC_STREAMS; k++)
                p[k] = x + (c0 + i + k * q) * cs + off;
            RCF(trees_multi)(p, len, r, NULL);
            for (int k = 0; k < RC_STREAMS; k++) {
                int64_t e = i * RC_STREAMS + k;
                RCF(stack_push)(st + e * lev, &depth[e], j, r[k]);
            }
        }
    }
    for (int64_t i = 0; i < q; i++) {
        for (int k = 0; k < RC_STREAMS; k++) {
            RC_V v = RCF(stack_fold)(st + (i * RC_STREAMS + k) * lev, depth[i * RC_STREAMS + k]);
            RCF(put)(out + c0 + i + k * q, RCF(hfold)(&v), fin);
        }
    }
    free(st);
    free(depth);
    for (c = c0 + RC_STREAMS * q; c < c1; c++)
        RCF(runs_one)(x + c * cs, g, out + c, fin);
}

/* [R1, C, R2]: output c reduces runs of R2 (stride r2_stride), one per r1. Short runs whose
 * slab [C, R2] is contiguous are columns instead: each (c, r2) sums its tree over r1, then the R2
 * of each c combine in order (a [2^20, 64, 2] f32 Sum: 0.01 -> 1.0 of the streaming read). */
static void RCF(outer_inner)(const RC_T *x, const opnn_reduce_plan *pl, RC_T *out,
                             const rc_fin *fin)
{
    rc_runs g;
    int64_t C = pl->c, cs = pl->c_stride;
    int t = rc_threads();

    if (pl->r2_stride == 1 && cs == pl->r2 && pl->r2 <= 8 * RC_VL) {
        RCF(colg) cg;
        cg.x = x;
        cg.out = out;
        cg.fin = fin;
        rc_walk_init(&cg.outer);
        rc_walk_init(&cg.rows);
        rc_walk_add(&cg.rows, pl->r1, pl->r1_stride, 0);
        cg.B = C * pl->r2;
        cg.bos = 1;
        cg.G = pl->r2;
        RCF(cols_run)(&cg);
        return;
    }
    g.nd = 1;
    g.shape[0] = pl->r1;
    g.stride[0] = pl->r1_stride;
    g.m = pl->r1;
    g.n = pl->r2;
    g.s = pl->r2_stride;
    if (t > 1 && C < 4 * t) {
        for (int64_t c = 0; c < C; c++) {
            RC_V v;
            RCF(runs_par)(x + c * cs, &g, &v);
            RCF(put)(out + c, RCF(hfold)(&v), fin);
        }
        return;
    }
    if (g.s == 1) {
        RC_PARALLEL(t > 1 && C * g.m * g.n >= RC_PAR_MIN,
                    RCF(runs_multi)(x, cs, &g, C * id / nt, C * (id + 1) / nt, out, fin););
        return;
    }
    RC_PARALLEL(t > 1 && C * g.m * g.n >= RC_PAR_MIN,
                for (int64_t c = C * id / nt; c < C * (id + 1) / nt; c++)
                    RCF(runs_one)(x + c * cs, &g, out + c, fin););
}

/* Any merged dims with a kept dim of unit input stride (at least a vector's bytes long): that
 * dim in the vector lanes, the reduced dims as the rows of a column reduction (a [128, 256, 56,
 * 56] f32 Sum over axes 0 and 2: 0.23 -> 1.0 of the streaming read). False if there is none. */
static bool RCF(generic_cols)(const RC_T *x, const opnn_reduce_plan *pl, RC_T *out,
                              const rc_fin *fin)
{
    RCF(colg) cg;
    int lane = -1;

    for (int d = 0; d < pl->ndim; d++)
        if (!pl->reduced[d] && pl->istride[d] == 1 && lane < 0)
            lane = d;
    if (lane < 0 || pl->shape[lane] * (int64_t)sizeof(RC_T) < 32)
        return false;
    cg.x = x;
    cg.out = out;
    cg.fin = fin;
    rc_walk_init(&cg.outer);
    rc_walk_init(&cg.rows);
    for (int d = 0; d < pl->ndim; d++) {
        if (pl->reduced[d])
            rc_walk_add(&cg.rows, pl->shape[d], pl->istride[d], 0);
        else if (d != lane)
            rc_walk_add(&cg.outer, pl->shape[d], pl->istride[d], pl->ostride[d]);
    }
    cg.B = pl->shape[lane];
    cg.bos = pl->ostride[lane];
    cg.G = 1;
    RCF(cols_run)(&cg);
    return true;
}

/* Any merged dims: each output reduces a set of runs along one reduced dim (the one with the
 * smallest non-zero stride, the longest on a tie), the other reduced dims walked outside. */
static void RCF(generic)(const RC_T *x, const opnn_reduce_plan *pl, RC_T *out, const rc_fin *fin)
{
    rc_runs g;
    int64_t kshape[OP_MAX_DIMS], kis[OP_MAX_DIMS], kos[OP_MAX_DIMS], nout = 1;
    int nk = 0, run = -1;
    int t = rc_threads();

    if (RCF(generic_cols)(x, pl, out, fin))
        return;
    for (int d = 0; d < pl->ndim; d++) {
        int64_t st = pl->istride[d], best;
        if (!pl->reduced[d] || pl->shape[d] <= 1)
            continue;
        if (run < 0) {
            run = d;
            continue;
        }
        best = pl->istride[run];
        if ((st != 0 && (best == 0 || st < best)) || (st == best && pl->shape[d] > pl->shape[run]))
            run = d;
    }
    g.nd = 0;
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
            nout *= pl->shape[d];
            nk++;
        }
    }
    if (t > 1 && nout < 4 * t) {
        for (int64_t o = 0; o < nout; o++) {
            int64_t io = 0, oo = 0, k = o;
            RC_V v;
            for (int d = nk - 1; d >= 0; d--) {
                io += (k % kshape[d]) * kis[d];
                oo += (k % kshape[d]) * kos[d];
                k /= kshape[d];
            }
            RCF(runs_par)(x + io, &g, &v);
            RCF(put)(out + oo, RCF(hfold)(&v), fin);
        }
        return;
    }
    RC_PARALLEL(
        t > 1 && nout * g.m * g.n >= RC_PAR_MIN,
        for (int64_t o = nout * id / nt; o < nout * (id + 1) / nt; o++) {
            int64_t io = 0, oo = 0, k = o;
            for (int d = nk - 1; d >= 0; d--) {
                io += (k % kshape[d]) * kis[d];
                oo += (k % kshape[d]) * kos[d];
                k /= kshape[d];
            }
            RCF(runs_one)(x + io, &g, out + oo, fin);
        });
}

/* --- entry ------------------------------------------------------------------------------------ */

static void RCF(run)(const opnn_reduce_plan *pl, const void *in, void *outp)
{
    const RC_T *x = (const RC_T *)in;
    RC_T *out = (RC_T *)outp;
    rc_fin fin = rc_fin_make(pl->red_numel);

    switch (pl->cls) {
    case OPNN_CLASS_EMPTY:
        return;
    case OPNN_CLASS_FILL:
        /* a reduced dim of size 0: finalize(identity, 0), NaN for a float Mean */
        for (int64_t o = 0; o < pl->out_numel; o++)
            RCF(put)(out + o, RC_IDENT, &fin);
        return;
    case OPNN_CLASS_FULL: {
        RC_V v;
        RCF(root_par)(x, pl->r, pl->r_stride, &v);
        RCF(put)(out, RCF(hfold)(&v), &fin);
        return;
    }
    case OPNN_CLASS_ROW:
        RCF(rows)(x, pl->a, pl->a_stride, pl->r, pl->r_stride, out, &fin);
        return;
    case OPNN_CLASS_COL:
    case OPNN_CLASS_MIDDLE:
        if (pl->b_stride != 1)
            break; /* not what the planner promises: walk the merged dims instead */
        RCF(cols)(x, pl->a, pl->a_stride, pl->r, pl->r_stride, pl->b, out, &fin);
        return;
    case OPNN_CLASS_OUTER_INNER:
        RCF(outer_inner)(x, pl, out, &fin);
        return;
    default:
        break;
    }
    RCF(generic)(x, pl, out, &fin);
}

#undef RCF
#undef RC_W
#undef RC_VI
#undef RC_FLAT_CASES
#undef RC_VCOMB_NONAN
#undef RC_VNAN_OR
#undef RC_VANY
#undef RC_NAME
#undef RC_IDENT
#undef RC_COMB
#undef RC_VCOMB
#undef RC_FINAL
