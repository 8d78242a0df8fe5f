/* argminmax: ArgMax and ArgMin as a plugin, built only on opnn's public headers. Attributes axis
 * (0), keepdims (1), select_last_index (0); the output is int64, the input's shape with the axis
 * dropped (or kept as 1).
 *
 * The reduction is over one axis, planned like any reduce (op_reduce_prepare with mask 1 << axis);
 * the accumulator is a (key, index) pair whose combine is commutative: the better value wins, a
 * NaN beats every number, and a tie (equal values, or two NaNs) goes to the smaller index (the
 * larger with select_last_index). So the first maximum (or NaN) wins whatever order the kernels
 * combine in. Values compare in f32 for f16/bf16 (exact), in int64 for int32. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <opnn/cpu/reduce_cpu.h>
#include <opnn/opnn.h>

#include "argminmax/argminmax.h"

/* --- attributes, shape inference, the checks every kernel makes ------------------------------- */

static const op_attr_def arg_attrs[] = {
    {"axis", OP_ATTR_INT, 0, 0.0},
    {"keepdims", OP_ATTR_INT, 1, 0.0},
    {"select_last_index", OP_ATTR_INT, 0, 0.0},
};

/* Checks the attributes against input 0; *axis is the wrapped axis. */
static op_status arg_attrs_check(op_kernel_ctx *kc, int32_t *axis)
{
    const DLTensor *x = op_kernel_input(kc, 0);
    const int64_t a = op_kernel_attr_int(kc, "axis");
    const char *flags[] = {"keepdims", "select_last_index"};
    for (int i = 0; i < 2; i++) {
        const int64_t v = op_kernel_attr_int(kc, flags[i]);
        if (v != 0 && v != 1)
            return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT,
                                  "attribute '%s' must be 0 or 1, got %lld", flags[i],
                                  (long long)v);
    }
    if (x->ndim > OP_MAX_DIMS)
        return op_kernel_fail(kc, OP_ERR_UNSUPPORTED, "input 0 has rank %d, above %d", (int)x->ndim,
                              OP_MAX_DIMS);
    if (a < -(int64_t)x->ndim || a >= (int64_t)x->ndim)
        return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT,
                              "attribute 'axis' %lld out of range for rank %d", (long long)a,
                              (int)x->ndim);
    *axis = (int32_t)(a < 0 ? a + x->ndim : a);
    return OP_OK;
}

static op_status arg_infer(op_kernel_ctx *kc, int index, int32_t *ndim, int64_t *shape,
                           DLDataType *dtype)
{
    int32_t axis;
    (void)index;
    op_status st = arg_attrs_check(kc, &axis);
    if (st != OP_OK)
        return st;
    op_reduce_shape(op_kernel_input(kc, 0), 1u << axis, op_kernel_attr_int(kc, "keepdims") != 0,
                    ndim, shape);
    *dtype = OP_DTYPE(kDLInt, 64);
    return OP_OK;
}

op_status argminmax_prepare(op_kernel_ctx *kc, uint32_t *mask, bool *last)
{
    const DLTensor *x = op_kernel_input(kc, 0);
    int32_t axis;
    op_status st = arg_attrs_check(kc, &axis);
    if (st != OP_OK)
        return st;
    int64_t out_n = 1;
    for (int32_t d = 0; d < x->ndim; d++)
        if (d != axis)
            out_n *= x->shape[d];
    if (x->shape[axis] == 0 && out_n > 0)
        return op_kernel_fail(kc, OP_ERR_INVALID_ARGUMENT,
                              "axis %d has size 0: no index of an empty set", (int)axis);
    *mask = 1u << axis;
    *last = op_kernel_attr_int(kc, "select_last_index") != 0;
    return OP_OK;
}

/* --- (key, index) accumulators ---------------------------------------------------------------- */

/* Values become integer keys that order like the values (for ArgMin, reversed with ~), with NaN
 * above everything and -0 equal to +0; both ops then keep the larger key, a tie going to the
 * smaller index (the larger with select_last_index). The same scheme as argminmax.cu. Keys are
 * int32 for f32 (and f16/bf16 through f32, exact), int64 for f64 and the integers. */
typedef struct arg_k32 {
    int32_t k;
    int64_t i;
} arg_k32;
typedef struct arg_k64 {
    int64_t k;
    int64_t i;
} arg_k64;
/* named after the accumulator type of OP_CPU_ALL_DTYPES */
typedef arg_k32 arg_acc_float;
typedef arg_k64 arg_acc_double;
typedef arg_k64 arg_acc_int64_t;

static inline int32_t key_float(float x)
{
    int32_t b;
    x += 0.0f; /* -0 -> +0 */
    memcpy(&b, &x, sizeof(b));
    return x != x ? INT32_MAX : b < 0 ? b ^ INT32_MAX : b;
}
static inline int64_t key_double(double x)
{
    int64_t b;
    x += 0.0;
    memcpy(&b, &x, sizeof(b));
    return x != x ? INT64_MAX : b < 0 ? b ^ INT64_MAX : b;
}
static inline int64_t key_int64_t(int64_t x)
{
    return x;
}
/* reversed order for ArgMin; NaN's key stays on top */
static inline int32_t rev_float(int32_t k)
{
    return k == INT32_MAX ? k : ~k;
}
static inline int64_t rev_double(int64_t k)
{
    return k == INT64_MAX ? k : ~k;
}
static inline int64_t rev_int64_t(int64_t k)
{
    return ~k;
}

/* Combine and identity of one tie rule: the identity holds the lowest key (no value's key is
 * lower; an equal one wins on the index) and an index that loses every tie. */
#define ARG_COMBINE(A, LOWEST, which, LAST)                                                        \
    static inline A A##_##which(A a, A b)                                                          \
    {                                                                                              \
        return b.k > a.k || (b.k == a.k && (LAST ? b.i > a.i : b.i < a.i)) ? b : a;                \
    }                                                                                              \
    static inline A A##_##which##_id(void)                                                         \
    {                                                                                              \
        return (A){LOWEST, LAST ? -1 : INT64_MAX};                                                 \
    }
#define ARG_ACC(A, LOWEST) ARG_COMBINE(A, LOWEST, first, 0) ARG_COMBINE(A, LOWEST, last, 1)
ARG_ACC(arg_acc_float, INT32_MIN)
ARG_ACC(arg_acc_double, INT64_MIN)
ARG_ACC(arg_acc_int64_t, INT64_MIN)

/* --- CPU kernels: 6 dtypes x {max, min} x {first, last} --------------------------------------- */

#define ARG_FINAL(a, n) ((void)(n), (a).i)

typedef struct arg_kernel {
    op_cpu_reduce_fn first, last;
} arg_kernel;

#define ARG_CPU_ONE(d, IN, V, op, which)                                                           \
    OP_CPU_REDUCE_DEFINE(arg##op##_##which##_##d, IN, arg_acc_##V, int64_t,                        \
                         arg_acc_##V##_##which##_id(), arg##op##_map_##d, arg_acc_##V##_##which,   \
                         ARG_FINAL)
#define ARG_CPU(d, IN, V, code, bits, unused)                                                      \
    static inline arg_acc_##V argmax_map_##d(IN x, int64_t i)                                      \
    {                                                                                              \
        return (arg_acc_##V){key_##V(op_cpu_widen_##d(x)), i};                                     \
    }                                                                                              \
    static inline arg_acc_##V argmin_map_##d(IN x, int64_t i)                                      \
    {                                                                                              \
        return (arg_acc_##V){rev_##V(key_##V(op_cpu_widen_##d(x))), i};                            \
    }                                                                                              \
    ARG_CPU_ONE(d, IN, V, max, first)                                                              \
    ARG_CPU_ONE(d, IN, V, max, last)                                                               \
    ARG_CPU_ONE(d, IN, V, min, first)                                                              \
    ARG_CPU_ONE(d, IN, V, min, last)                                                               \
    static const arg_kernel argmax_k_##d = {argmax_first_##d, argmax_last_##d};                    \
    static const arg_kernel argmin_k_##d = {argmin_first_##d, argmin_last_##d};
OP_CPU_ALL_DTYPES(ARG_CPU, 0)

static op_status arg_cpu(op_kernel_ctx *kc)
{
    const arg_kernel *k = (const arg_kernel *)op_kernel_data(kc);
    uint32_t mask;
    bool last;
    op_status st = argminmax_prepare(kc, &mask, &last);
    return st != OP_OK ? st : op_cpu_reduce_kernel(kc, mask, last ? k->last : k->first);
}

/* --- registration ----------------------------------------------------------------------------- */

#if defined(ARGMINMAX_CUDA)
#define REGISTER_CUDA(name, op, code, bits)                                                        \
    OP_REGISTER_KERNEL(r, name, kDLCUDA, OP_DTYPE(code, bits), argminmax_cuda_##op, NULL)
#else
#define REGISTER_CUDA(name, op, code, bits)
#endif
#define REGISTER(d, IN, V, code, bits, unused)                                                     \
    OP_REGISTER_KERNEL(r, "ArgMax", kDLCPU, OP_DTYPE(code, bits), arg_cpu, &argmax_k_##d);         \
    OP_REGISTER_KERNEL(r, "ArgMin", kDLCPU, OP_DTYPE(code, bits), arg_cpu, &argmin_k_##d);         \
    REGISTER_CUDA("ArgMax", argmax, code, bits);                                                   \
    REGISTER_CUDA("ArgMin", argmin, code, bits);

static op_status argminmax_register(op_registrar *r)
{
    const size_t na = sizeof(arg_attrs) / sizeof(arg_attrs[0]);
    const op_schema max = {"ArgMax", "index of the maximum along axis (int64)", 1, 1, arg_attrs, na,
                           arg_infer};
    const op_schema min = {"ArgMin", "index of the minimum along axis (int64)", 1, 1, arg_attrs, na,
                           arg_infer};
    OP_REGISTER_OP(r, &max);
    OP_REGISTER_OP(r, &min);
    OP_CPU_ALL_DTYPES(REGISTER, 0)
    return OP_OK;
}

OP_PLUGIN_DEFINE("argminmax", argminmax_register)
