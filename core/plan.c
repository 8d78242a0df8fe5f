/* The reduce planner: (shape, strides, axes, dtype) -> plan. Pure C11, no CUDA, no allocation.
 *
 * The plan's view of the input is built in four steps (core/plan.h): wrap and check the axes;
 * drop size-1 dims; order the remaining dims by input stride, outermost first; merge neighbours
 * that are alike and contiguous; then name the pattern of kept (K) and reduced (R) merged dims.
 * opnn__reduce_plan_launch (core/plan_launch.c) adds the CUDA launch geometry afterwards. */
#include "core/plan.h"
#include "core/tensor.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__)
#define PLAN_PRINTF_(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define PLAN_PRINTF_(fmt, args)
#endif

static void plan_msg(char *msg, size_t msg_len, const char *fmt, ...) PLAN_PRINTF_(3, 4);

static void plan_msg(char *msg, size_t msg_len, const char *fmt, ...)
{
    va_list ap;

    if (!msg || msg_len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, msg_len, fmt, ap);
    va_end(ap);
}

/* a * b for a, b >= 0; false (and *out unchanged) when the product does not fit an int64. */
static bool mul_fits(int64_t a, int64_t b, int64_t *out)
{
    if (a != 0 && b > INT64_MAX / a)
        return false;
    *out = a * b;
    return true;
}

/* a + b for a, b >= 0; false (and *out unchanged) when the sum does not fit an int64. */
static bool add_fits(int64_t a, int64_t b, int64_t *out)
{
    if (b > INT64_MAX - a)
        return false;
    *out = a + b;
    return true;
}

/* --- dtypes ----------------------------------------------------------------------------------- */

size_t opnn__dtype_size(DLDataType dtype)
{
    if (dtype.lanes != 1)
        return 0;
    switch (dtype.code) {
    case kDLFloat:
        return (dtype.bits == 16 || dtype.bits == 32 || dtype.bits == 64) ? dtype.bits / 8u : 0;
    case kDLBfloat:
        return dtype.bits == 16 ? 2 : 0;
    case kDLInt:
        return (dtype.bits == 32 || dtype.bits == 64) ? dtype.bits / 8u : 0;
    default:
        return 0;
    }
}

const char *opnn__dtype_name(DLDataType dtype)
{
    if (opnn__dtype_size(dtype) == 0)
        return "unsupported";
    switch (dtype.code) {
    case kDLFloat:
        return dtype.bits == 16 ? "f16" : dtype.bits == 32 ? "f32" : "f64";
    case kDLBfloat:
        return "bf16";
    default: /* kDLInt, the only other served code */
        return dtype.bits == 32 ? "i32" : "i64";
    }
}

/* --- classes ---------------------------------------------------------------------------------- */

static const char *const class_names[] = {
    [OPNN_CLASS_EMPTY] = "empty",
    [OPNN_CLASS_FILL] = "fill",
    [OPNN_CLASS_FULL] = "full",
    [OPNN_CLASS_ROW] = "row",
    [OPNN_CLASS_COL] = "col",
    [OPNN_CLASS_MIDDLE] = "middle",
    [OPNN_CLASS_OUTER_INNER] = "outer_inner",
    [OPNN_CLASS_GENERIC] = "generic",
};
_Static_assert(sizeof class_names / sizeof class_names[0] == OPNN_CLASS_COUNT_,
               "class_names must name every opnn_reduce_class");

const char *opnn__reduce_class_name(opnn_reduce_class cls)
{
    if ((int)cls < 0 || cls >= OPNN_CLASS_COUNT_)
        return "unknown";
    return class_names[cls];
}

/* --- axes ------------------------------------------------------------------------------------- */

op_status opnn__reduce_axes_mask(const char *op, int32_t ndim, const int64_t *axes, size_t num_axes,
                                 bool noop_with_empty_axes, uint32_t *mask, char *msg,
                                 size_t msg_len)
{
    /* given[d]: the value the caller wrote for dim d, to name a negative form in messages */
    int64_t given[OP_MAX_DIMS];
    uint32_t m = 0;

    if (!op)
        op = "reduce";
    if (!mask) {
        plan_msg(msg, msg_len, "%s: NULL mask", op);
        return OP_ERR_INVALID_ARGUMENT;
    }
    if (ndim < 0) {
        plan_msg(msg, msg_len, "%s: negative rank %" PRId32, op, ndim);
        return OP_ERR_INVALID_ARGUMENT;
    }
    if (ndim > OP_MAX_DIMS) {
        plan_msg(msg, msg_len, "%s: rank %" PRId32 " exceeds the maximum of %d dims", op, ndim,
                 OP_MAX_DIMS);
        return OP_ERR_UNSUPPORTED;
    }
    if (num_axes > 0 && !axes) {
        plan_msg(msg, msg_len, "%s: axes is NULL but holds %zu values", op, num_axes);
        return OP_ERR_INVALID_ARGUMENT;
    }
    if (ndim == 0 && num_axes > 0) {
        plan_msg(msg, msg_len, "%s: axis %lld given for a rank-0 input, which takes no axes", op,
                 (long long)axes[0]);
        return OP_ERR_INVALID_ARGUMENT;
    }

    if (num_axes == 0) {
        /* ONNX: an empty list reduces every dim, or none under noop_with_empty_axes */
        *mask = noop_with_empty_axes ? 0u : (uint32_t)((1ull << ndim) - 1u);
        return OP_OK;
    }

    for (size_t i = 0; i < num_axes; i++) {
        int64_t a = axes[i];
        int32_t d;

        if (a < -(int64_t)ndim || a >= (int64_t)ndim) {
            plan_msg(msg, msg_len, "%s: axis %" PRId64 " out of range for rank %" PRId32, op, a,
                     ndim);
            return OP_ERR_INVALID_ARGUMENT;
        }
        d = (int32_t)(a < 0 ? a + ndim : a);
        if (m & (1u << d)) {
            int64_t neg = a < 0 ? a : given[d];

            if (neg < 0)
                plan_msg(msg, msg_len, "%s: duplicate axis %" PRId32 " (given as %" PRId64 ")", op,
                         d, neg);
            else
                plan_msg(msg, msg_len, "%s: duplicate axis %" PRId32, op, d);
            return OP_ERR_INVALID_ARGUMENT;
        }
        m |= 1u << d;
        given[d] = a;
    }
    *mask = m;
    return OP_OK;
}

/* --- normalisation ---------------------------------------------------------------------------- */

/* One dim of the input as the planner sees it. */
typedef struct plan_dim {
    int64_t size;
    int64_t istride; /* input stride, elements */
    int64_t ostride; /* compact output stride of a kept dim; 0 for a reduced one */
    bool reduced;
} plan_dim;

/* True if x belongs strictly outside y: larger input stride, a zero stride counting as the
 * largest of all (a broadcast dim re-reads the same data, so it goes outermost). Strict, so the
 * insertion sort below keeps ties in their original order. */
static bool dim_outer_of(const plan_dim *x, const plan_dim *y)
{
    if (x->istride == 0 || y->istride == 0)
        return x->istride == 0 && y->istride != 0;
    return x->istride > y->istride;
}

/* True if the inner neighbour `in` can be folded into `out`: alike, and `out` steps exactly
 * over all of `in` in the input (and, for kept dims, in the output too). */
static bool dims_merge(const plan_dim *out, const plan_dim *in)
{
    int64_t span;

    if (out->reduced != in->reduced)
        return false;
    if (!mul_fits(in->istride, in->size, &span) || out->istride != span)
        return false;
    if (!out->reduced && (!mul_fits(in->ostride, in->size, &span) || out->ostride != span))
        return false;
    return true;
}

/* Drops size-1 dims, orders the rest outermost first and merges neighbours into p's merged
 * dims (p->ndim, shape, istride, ostride, reduced). */
static void plan_normalise(opnn_reduce_plan *p, int32_t ndim, const int64_t *shape,
                           const int64_t *istride, const int64_t *ostride, uint32_t mask)
{
    plan_dim dims[OP_MAX_DIMS];
    int n = 0, m = 0;

    for (int32_t d = 0; d < ndim; d++) {
        if (shape[d] == 1)
            continue;
        dims[n].size = shape[d];
        dims[n].istride = istride[d];
        dims[n].ostride = ostride[d];
        dims[n].reduced = (mask >> d) & 1u;
        n++;
    }

    /* stable insertion sort: at most OP_MAX_DIMS entries */
    for (int i = 1; i < n; i++) {
        plan_dim x = dims[i];
        int j = i;

        while (j > 0 && dim_outer_of(&x, &dims[j - 1])) {
            dims[j] = dims[j - 1];
            j--;
        }
        dims[j] = x;
    }

    for (int i = 0; i < n; i++) {
        if (m > 0 && dims_merge(&dims[m - 1], &dims[i])) {
            /* the product fits: the sizes multiply to at most the tensor's element count */
            dims[m - 1].size *= dims[i].size;
            dims[m - 1].istride = dims[i].istride;
            dims[m - 1].ostride = dims[i].ostride;
        } else {
            dims[m++] = dims[i];
        }
    }

    p->ndim = m;
    for (int i = 0; i < m; i++) {
        p->shape[i] = dims[i].size;
        p->istride[i] = dims[i].istride;
        p->ostride[i] = dims[i].reduced ? 0 : dims[i].ostride;
        p->reduced[i] = dims[i].reduced;
    }
}

/* --- classification --------------------------------------------------------------------------- */

/* True if, outer to inner, every non-zero stride steps past everything the dims inside it
 * reach: the view touches no element twice except through broadcast (zero-stride) dims. This
 * is what gives "a_stride >= R (or 0)" and "r_stride >= B (or 0)" of core/plan.h. The
 * innermost dim has stride 1. */
static bool view_disjoint(int n, const int64_t *size, const int64_t *stride)
{
    int64_t reach = 1; /* elements spanned by the dims inside the current one */

    for (int i = n - 1; i >= 0; i--) {
        if (size[i] == 1)
            continue;
        if (stride[i] != 0 && stride[i] < reach)
            return false;
        /* fits: the caller checked that the largest offset fits an int64 */
        reach += (size[i] - 1) * stride[i];
    }
    return true;
}

/* Sets the a/r/b view; A or B of index -1 is absent (size 1, stride 0), R of -1 is a
 * reduced extent of 1 with stride 1 (nothing reduced). False, with p untouched, if the output
 * is not compact in [A, B] order or the view overlaps itself. */
static bool plan_set_arb(opnn_reduce_plan *p, int ia, int ir, int ib)
{
    int64_t size[3], stride[3];
    int64_t b = ib >= 0 ? p->shape[ib] : 1;

    if (ib >= 0 && p->ostride[ib] != 1)
        return false;
    if (ia >= 0 && p->ostride[ia] != b)
        return false;

    size[0] = ia >= 0 ? p->shape[ia] : 1;
    stride[0] = ia >= 0 ? p->istride[ia] : 0;
    size[1] = ir >= 0 ? p->shape[ir] : 1;
    stride[1] = ir >= 0 ? p->istride[ir] : 1;
    size[2] = b;
    stride[2] = ib >= 0 ? p->istride[ib] : 0;
    if (!view_disjoint(3, size, stride))
        return false;

    p->a = size[0];
    p->a_stride = stride[0];
    p->r = size[1];
    p->r_stride = stride[1];
    p->b = size[2];
    p->b_stride = stride[2];
    return true;
}

/* Names the K/R pattern of the merged dims. Every class but GENERIC reads its innermost dim
 * with stride 1; anything else, or an output that is not compact in the class's order, is
 * GENERIC, which walks the merged dims themselves. */
static opnn_reduce_class plan_classify(opnn_reduce_plan *p)
{
    char pat[OP_MAX_DIMS + 1];
    int n = p->ndim;

    for (int i = 0; i < n; i++)
        pat[i] = p->reduced[i] ? 'R' : 'K';
    pat[n] = '\0';

    if (n == 0) {
        /* every dim has size 1: one element in, one out */
        p->r = 1;
        p->r_stride = 1;
        return OPNN_CLASS_FULL;
    }
    if (p->istride[n - 1] != 1)
        return OPNN_CLASS_GENERIC;

    if (strcmp(pat, "R") == 0)
        return plan_set_arb(p, -1, 0, -1) ? OPNN_CLASS_FULL : OPNN_CLASS_GENERIC;
    if (strcmp(pat, "K") == 0) /* nothing reduced: a row reduction of extent 1 */
        return plan_set_arb(p, 0, -1, -1) ? OPNN_CLASS_ROW : OPNN_CLASS_GENERIC;
    if (strcmp(pat, "KR") == 0)
        return plan_set_arb(p, 0, 1, -1) ? OPNN_CLASS_ROW : OPNN_CLASS_GENERIC;
    if (strcmp(pat, "RK") == 0)
        return plan_set_arb(p, -1, 0, 1) ? OPNN_CLASS_COL : OPNN_CLASS_GENERIC;
    if (strcmp(pat, "KRK") == 0)
        return plan_set_arb(p, 0, 1, 2) ? OPNN_CLASS_MIDDLE : OPNN_CLASS_GENERIC;
    if (strcmp(pat, "RKR") == 0) {
        /* the single kept dim is the output index c */
        if (p->ostride[1] != 1 || !view_disjoint(3, p->shape, p->istride))
            return OPNN_CLASS_GENERIC;
        p->r1 = p->shape[0];
        p->r1_stride = p->istride[0];
        p->c = p->shape[1];
        p->c_stride = p->istride[1];
        p->r2 = p->shape[2];
        p->r2_stride = p->istride[2];
        return OPNN_CLASS_OUTER_INNER;
    }
    if (strcmp(pat, "RKRK") == 0) {
        /* [R1, A, R, B]: still GENERIC (the CPU walks the merged dims), but with the view
         * [A, R, B] and the outer reduced dim r1 filled in, so the CUDA column kernel can take
         * each of the R1 slabs as a slice ([16, 512, 128, 256] over (0, 2)) */
        if (view_disjoint(4, p->shape, p->istride) && plan_set_arb(p, 1, 2, 3)) {
            p->r1 = p->shape[0];
            p->r1_stride = p->istride[0];
        }
        return OPNN_CLASS_GENERIC;
    }
    return OPNN_CLASS_GENERIC;
}

/* --- the planner ------------------------------------------------------------------------------ */

op_status opnn__reduce_plan_init(opnn_reduce_plan *plan, const opnn_reduce_request *req, char *msg,
                                 size_t msg_len)
{
    opnn_reduce_plan p;
    int64_t istride[OP_MAX_DIMS], ostride[OP_MAX_DIMS];
    int64_t count = 1, in_step = 1, out_numel = 1, red_numel = 1;
    bool empty = false;
    const char *op;
    size_t esize;
    uint32_t mask;
    op_status st;

    if (!plan || !req) {
        plan_msg(msg, msg_len, "reduce planner: NULL %s", plan ? "request" : "plan");
        return OP_ERR_INVALID_ARGUMENT;
    }
    op = req->op ? req->op : "reduce";
    if (req->ndim < 0) {
        plan_msg(msg, msg_len, "%s: negative rank %" PRId32, op, req->ndim);
        return OP_ERR_INVALID_ARGUMENT;
    }
    if (req->ndim > OP_MAX_DIMS) {
        plan_msg(msg, msg_len, "%s: rank %" PRId32 " exceeds the maximum of %d dims", op, req->ndim,
                 OP_MAX_DIMS);
        return OP_ERR_UNSUPPORTED;
    }
    if (req->ndim > 0 && !req->shape) {
        plan_msg(msg, msg_len, "%s: shape is NULL for rank %" PRId32, op, req->ndim);
        return OP_ERR_INVALID_ARGUMENT;
    }
    esize = opnn__dtype_size(req->dtype);
    if (esize == 0) {
        char name[48];

        opnn__dtype_format(req->dtype, name, sizeof name);
        plan_msg(msg, msg_len, "%s: dtype %s is not supported", op, name);
        return OP_ERR_UNSUPPORTED;
    }
    for (int32_t d = 0; d < req->ndim; d++) {
        if (req->shape[d] < 0) {
            plan_msg(msg, msg_len, "%s: dim %" PRId32 " has negative size %" PRId64, op, d,
                     req->shape[d]);
            return OP_ERR_INVALID_ARGUMENT;
        }
        /* the stride of a size-0 or size-1 dim addresses nothing (NumPy writes -1 for x[::-1]
         * of one element), so only a dim that is walked must step forwards */
        if (req->strides && req->strides[d] < 0 && req->shape[d] > 1) {
            plan_msg(msg, msg_len, "%s: dim %" PRId32 " has negative stride %" PRId64, op, d,
                     req->strides[d]);
            return OP_ERR_INVALID_ARGUMENT;
        }
    }
    st = opnn__reduce_axes_mask(op, req->ndim, req->axes, req->num_axes, req->noop_with_empty_axes,
                                &mask, msg, msg_len);
    if (st != OP_OK)
        return st;

    /* Every partial product of non-zero sizes fits an int64 once their full product does, so
     * the strides and counts below are computed without further checks. An empty tensor whose
     * other sizes multiply past 2^63 is refused too: no real tensor is like that. */
    for (int32_t d = 0; d < req->ndim; d++) {
        if (req->shape[d] == 0) {
            empty = true;
        } else if (!mul_fits(count, req->shape[d], &count)) {
            plan_msg(msg, msg_len,
                     "%s: tensor too large: sizes multiply past 2^63 at dim %" PRId32
                     " (size %" PRId64 ")",
                     op, d, req->shape[d]);
            return OP_ERR_INVALID_ARGUMENT;
        }
    }
    for (int32_t d = req->ndim - 1; d >= 0; d--) {
        int64_t size = req->shape[d];

        istride[d] = req->strides ? req->strides[d] : in_step;
        if (istride[d] < 0) /* only on a dim of size 0 or 1 (checked above): never walked */
            istride[d] = 0;
        in_step *= size;
        if ((mask >> d) & 1u) {
            ostride[d] = 0;
            red_numel *= size;
        } else {
            ostride[d] = out_numel;
            out_numel *= size;
        }
    }

    /* Kernels index with int64 element and byte offsets: the last element must be reachable. */
    if (!empty && req->strides) {
        int64_t last = 0, step, bytes;

        for (int32_t d = 0; d < req->ndim; d++) {
            if (req->shape[d] == 1)
                continue;
            if (!mul_fits(req->shape[d] - 1, istride[d], &step) || !add_fits(last, step, &last)) {
                plan_msg(msg, msg_len,
                         "%s: tensor too large: dim %" PRId32 " (size %" PRId64 ", stride %" PRId64
                         ") reaches past 2^63 elements",
                         op, d, req->shape[d], istride[d]);
                return OP_ERR_INVALID_ARGUMENT;
            }
        }
        if (!add_fits(last, 1, &last) || !mul_fits(last, (int64_t)esize, &bytes)) {
            plan_msg(msg, msg_len,
                     "%s: tensor too large: strides reach %" PRId64 " elements, past 2^63 bytes",
                     op, last);
            return OP_ERR_INVALID_ARGUMENT;
        }
    } else if (!empty) {
        int64_t bytes;

        if (!mul_fits(count, (int64_t)esize, &bytes)) {
            plan_msg(msg, msg_len,
                     "%s: tensor too large: %" PRId64 " elements of %zu bytes pass 2^63 bytes", op,
                     count, esize);
            return OP_ERR_INVALID_ARGUMENT;
        }
    }

    memset(&p, 0, sizeof p);
    p.dtype = req->dtype;
    p.out_numel = out_numel;
    p.red_numel = red_numel;
    p.red_mask = mask;
    p.a = p.r = p.b = 1;
    p.r1 = p.c = p.r2 = 1;
    plan_normalise(&p, req->ndim, req->shape, istride, ostride, mask);

    if (out_numel == 0)
        p.cls = OPNN_CLASS_EMPTY;
    else if (red_numel == 0)
        p.cls = OPNN_CLASS_FILL;
    else
        p.cls = plan_classify(&p);

    *plan = p;
    return OP_OK;
}
