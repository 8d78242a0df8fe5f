/* reduce_extra: ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum and ReduceLogSumExp as a plugin,
 * built only on opnn's public headers: the ONNX reduce schema (OP_REDUCE_ATTR_DEFS,
 * op_reduce_infer), the CPU family (OP_CPU_REDUCE_DEFINE) and, when built with CUDA, the kernels of
 * reduce_extra.cu.
 *
 * Numerics: f16/bf16 accumulate in f32 (L2 squares in f32), f32 in f32, f64 in f64; int32 and
 * int64 in int64, wrapping like ReduceSum (|INT64_MIN| wraps to itself). Integer L2 is the square
 * root, in double, of the int64 sum of squares read as unsigned (a sum of squares is never
 * negative), truncated toward zero, then wrapped to the output width. LogSum and LogSumExp are
 * for floats only. LogSumExp keeps a (max, sum of exp(x - max)) pair: stable for any magnitude.
 * Empty sets: L1, L2, SumSquare 0; LogSum, LogSumExp -inf. */
#include <math.h>
#include <stdint.h>

#include <opnn/cpu/reduce_cpu.h>
#include <opnn/opnn.h>

/* --- accumulator arithmetic (integers wrap, without signed-overflow UB) ----------------------- */

// clang-format off
static inline float add_f32(float a, float b) { return a + b; }
static inline double add_f64(double a, double b) { return a + b; }
static inline int64_t add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline float sq_f32(float a) { return a * a; }
static inline double sq_f64(double a) { return a * a; }
static inline int64_t sq_i64(int64_t a) { return (int64_t)((uint64_t)a * (uint64_t)a); }
static inline int64_t abs_i64(int64_t a) { return a < 0 ? (int64_t)(0 - (uint64_t)a) : a; }
static inline int64_t sqrt_i64(int64_t a) { return (int64_t)sqrt((double)(uint64_t)a); }
// clang-format on

#define ACC_ADD(a, b) _Generic((a), float : add_f32, double : add_f64, int64_t : add_i64)(a, b)
#define ACC_ABS(a) _Generic((a), float : fabsf, double : fabs, int64_t : abs_i64)(a)
#define ACC_SQ(a) _Generic((a), float : sq_f32, double : sq_f64, int64_t : sq_i64)(a)
#define ACC_SQRT(a) _Generic((a), float : sqrtf, double : sqrt, int64_t : sqrt_i64)(a)
#define ACC_LOG(a) _Generic((a), float : logf, double : log)(a)
#define ACC_SAME(a) (a)

/* --- the sums: identity 0, MAP on the widened element, COMBINE add, FINAL on the sum ---------- */

/* X(op name, prefix, MAP, FINAL, dtypes, doc) */
#define SUM_OPS(X)                                                                                 \
    X("ReduceL1", l1, ACC_ABS, ACC_SAME, OP_CPU_ALL_DTYPES, "sum of |x| over axes")                \
    X("ReduceL2", l2, ACC_SQ, ACC_SQRT, OP_CPU_ALL_DTYPES, "sqrt of the sum of x^2 over axes")     \
    X("ReduceSumSquare", sumsq, ACC_SQ, ACC_SAME, OP_CPU_ALL_DTYPES, "sum of x^2 over axes")       \
    X("ReduceLogSum", logsum, ACC_SAME, ACC_LOG, OP_CPU_FLOAT_DTYPES, "log of the sum over axes")

#define SUM_CPU(d, IN, ACC, code, bits, p, MAPE, FINE)                                             \
    static inline ACC p##_map_##d(IN x, int64_t i)                                                 \
    {                                                                                              \
        (void)i;                                                                                   \
        return MAPE(op_cpu_widen_##d(x));                                                          \
    }                                                                                              \
    static inline IN p##_final_##d(ACC a, int64_t n)                                               \
    {                                                                                              \
        (void)n;                                                                                   \
        return op_cpu_narrow_##d(FINE(a));                                                         \
    }                                                                                              \
    OP_CPU_REDUCE_DEFINE(p##_cpu_##d, IN, ACC, IN, (ACC)0, p##_map_##d, ACC_ADD, p##_final_##d)
#define SUM_OP_CPU(name, p, MAPE, FINE, DTYPES, doc) DTYPES(SUM_CPU, p, MAPE, FINE)
SUM_OPS(SUM_OP_CPU)

/* --- LogSumExp: (max, sum of exp(x - max)), rescaled in combine ------------------------------- */

typedef struct lse_float {
    float m, s;
} lse_float;
typedef struct lse_double {
    double m, s;
} lse_double;

/* Commutative: the pair with the larger max absorbs the other. A NaN max gives NaN; equal maxes
 * (+-inf included, where x - max would be NaN) just add their sums. */
#define LSE_COMBINE(A, EXP)                                                                        \
    static inline A A##_combine(A a, A b)                                                          \
    {                                                                                              \
        if (a.m != a.m || b.m != b.m)                                                              \
            return (A){a.m + b.m, 1};                                                              \
        if (a.m == b.m)                                                                            \
            return (A){a.m, a.s + b.s};                                                            \
        if (a.m < b.m) {                                                                           \
            const A t = a;                                                                         \
            a = b;                                                                                 \
            b = t;                                                                                 \
        }                                                                                          \
        return (A){a.m, a.s + b.s * EXP(b.m - a.m)};                                               \
    }
LSE_COMBINE(lse_float, expf)
LSE_COMBINE(lse_double, exp)

/* m + log(s): -inf for an empty set (s = 0) or all -inf; x itself for one element */
#define LSE_CPU(d, IN, ACC, code, bits, p)                                                         \
    static inline lse_##ACC p##_map_##d(IN x, int64_t i)                                           \
    {                                                                                              \
        (void)i;                                                                                   \
        return (lse_##ACC){op_cpu_widen_##d(x), 1};                                                \
    }                                                                                              \
    static inline IN p##_final_##d(lse_##ACC a, int64_t n)                                         \
    {                                                                                              \
        (void)n;                                                                                   \
        return op_cpu_narrow_##d(a.m + ACC_LOG(a.s));                                              \
    }                                                                                              \
    OP_CPU_REDUCE_DEFINE(p##_cpu_##d, IN, lse_##ACC, IN, ((lse_##ACC){-INFINITY, 0}), p##_map_##d, \
                         lse_##ACC##_combine, p##_final_##d)
OP_CPU_FLOAT_DTYPES(LSE_CPU, lse)

/* --- kernels ---------------------------------------------------------------------------------- */

/* The CPU kernel of every op and dtype: its reduce function comes as the kernel's data. */
typedef struct extra_kernel {
    op_cpu_reduce_fn fn;
} extra_kernel;

static op_status extra_cpu(op_kernel_ctx *kc)
{
    const extra_kernel *k = (const extra_kernel *)op_kernel_data(kc);
    uint32_t mask;
    op_status st = op_reduce_mask(kc, &mask);
    return st != OP_OK ? st : op_cpu_reduce_kernel(kc, mask, k->fn);
}

#define KERNEL_DATA(d, IN, ACC, code, bits, p) static const extra_kernel p##_k_##d = {p##_cpu_##d};
#define SUM_OP_DATA(name, p, MAPE, FINE, DTYPES, doc) DTYPES(KERNEL_DATA, p)
SUM_OPS(SUM_OP_DATA)
OP_CPU_FLOAT_DTYPES(KERNEL_DATA, lse)

#if defined(REDUCE_EXTRA_CUDA)
/* reduce_extra.cu: one op_kernel_fn per op, dispatching on the dtype */
op_status reduce_extra_cuda_l1(op_kernel_ctx *kc);
op_status reduce_extra_cuda_l2(op_kernel_ctx *kc);
op_status reduce_extra_cuda_sumsq(op_kernel_ctx *kc);
op_status reduce_extra_cuda_logsum(op_kernel_ctx *kc);
op_status reduce_extra_cuda_lse(op_kernel_ctx *kc);
#define REGISTER_CUDA(name, p, code, bits)                                                         \
    OP_REGISTER_KERNEL(r, name, kDLCUDA, OP_DTYPE(code, bits), reduce_extra_cuda_##p, NULL)
#else
#define REGISTER_CUDA(name, p, code, bits)
#endif

/* --- registration ----------------------------------------------------------------------------- */

static const op_attr_def extra_attrs[] = {OP_REDUCE_ATTR_DEFS};

static op_status extra_schema(op_registrar *r, const char *name, const char *doc)
{
    const op_schema s = {
        name,           doc, 1, 1, extra_attrs, sizeof(extra_attrs) / sizeof(extra_attrs[0]),
        op_reduce_infer};
    return op_register_op(r, &s);
}

#define REGISTER_SCHEMA(name, doc)                                                                 \
    do {                                                                                           \
        const op_status st_ = extra_schema(r, name, doc);                                          \
        if (st_ != OP_OK)                                                                          \
            return st_;                                                                            \
    } while (0)
#define REGISTER(d, IN, ACC, code, bits, name, p)                                                  \
    OP_REGISTER_KERNEL(r, name, kDLCPU, OP_DTYPE(code, bits), extra_cpu, &p##_k_##d);              \
    REGISTER_CUDA(name, p, code, bits);
#define REGISTER_SUM_OP(name, p, MAPE, FINE, DTYPES, doc)                                          \
    REGISTER_SCHEMA(name, doc);                                                                    \
    DTYPES(REGISTER, name, p)

static op_status reduce_extra_register(op_registrar *r)
{
    SUM_OPS(REGISTER_SUM_OP)
    REGISTER_SCHEMA("ReduceLogSumExp", "log of the sum of exp over axes (max-shifted)");
    OP_CPU_FLOAT_DTYPES(REGISTER, "ReduceLogSumExp", lse)
    return OP_OK;
}

OP_PLUGIN_DEFINE("reduce_extra", reduce_extra_register)
