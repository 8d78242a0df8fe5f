/* The five built-in reductions (Sum, Mean, Max, Min, Prod) for one dtype with a floating
 * accumulator. No include guard: the includer defines the per-dtype macros of
 * kernel/cpu/reduce_cpu_impl.h (RC_T, RC_A, RC_V, RC_VL, RC_LOAD, RC_VLOAD, RC_STORE) and
 * RCD_NAME (the dtype's token, f32) and RCD_AN (the accumulator's token for the max/min helpers
 * of kernel/cpu/reduce_cpu_simd.h: f32 or f64). */

#define RC_NAME RC_CAT(sum_, RCD_NAME)
#define RC_IDENT ((RC_A)0)
#define RC_COMB(a, b) ((a) + (b))
#define RC_VCOMB(a, b) ((a) + (b))
#define RC_FINAL(a, f) (a)
#include "kernel/cpu/reduce_cpu_impl.h"

/* Mean multiplies by 1/N in the accumulator type; N == 0 gives 0 * inf = NaN. */
#define RC_NAME RC_CAT(mean_, RCD_NAME)
#define RC_IDENT ((RC_A)0)
#define RC_COMB(a, b) ((a) + (b))
#define RC_VCOMB(a, b) ((a) + (b))
#define RC_FINAL(a, f) ((a) * (RC_A)(f)->inv)
#include "kernel/cpu/reduce_cpu_impl.h"

/* Max and Min start from -inf / +inf and let a NaN win wherever it is. With AVX2 the column
 * tiles first combine without the NaN step, and redo a tile exactly when one of its inputs was
 * NaN (RC_VCOMB_NONAN, RC_VNAN_OR, RC_VANY: kernel/cpu/reduce_cpu_impl.h). */
#define RC_NAME RC_CAT(max_, RCD_NAME)
#define RC_IDENT (-(RC_A)INFINITY)
#define RC_COMB(a, b) RC_CAT(opnn__max_, RCD_AN)(a, b)
#define RC_VCOMB(a, b) RC_CAT(opnn__vmax_, RCD_AN)(a, b)
#define RC_FINAL(a, f) (a)
#if defined(RC_USE_AVX2)
#define RC_VCOMB_NONAN(a, b) RC_CAT(opnn__vmax_nonan_, RCD_AN)(a, b)
#define RC_VNAN_OR(m, a, b) RC_CAT(opnn__vnan_or_, RCD_AN)(m, a, b)
#define RC_VANY(m) RC_CAT(opnn__vany_, RCD_AN)(m)
#endif
#include "kernel/cpu/reduce_cpu_impl.h"

#define RC_NAME RC_CAT(min_, RCD_NAME)
#define RC_IDENT ((RC_A)INFINITY)
#define RC_COMB(a, b) RC_CAT(opnn__min_, RCD_AN)(a, b)
#define RC_VCOMB(a, b) RC_CAT(opnn__vmin_, RCD_AN)(a, b)
#define RC_FINAL(a, f) (a)
#if defined(RC_USE_AVX2)
#define RC_VCOMB_NONAN(a, b) RC_CAT(opnn__vmin_nonan_, RCD_AN)(a, b)
#define RC_VNAN_OR(m, a, b) RC_CAT(opnn__vnan_or_, RCD_AN)(m, a, b)
#define RC_VANY(m) RC_CAT(opnn__vany_, RCD_AN)(m)
#endif
#include "kernel/cpu/reduce_cpu_impl.h"

#define RC_NAME RC_CAT(prod_, RCD_NAME)
#define RC_IDENT ((RC_A)1)
#define RC_COMB(a, b) ((a) * (b))
#define RC_VCOMB(a, b) ((a) * (b))
#define RC_FINAL(a, f) (a)
#include "kernel/cpu/reduce_cpu_impl.h"
