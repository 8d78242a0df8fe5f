/* The five built-in reductions (Sum, Mean, Max, Min, Prod) for one integer dtype. No include
 * guard: the includer defines RC_T, RCD_NAME (the dtype's token, i32), RCD_ILOAD(p) (*p as an
 * int64_t), RCD_IVLOAD(p) (4 elements as an opnn_v4l), RCD_ISTORE(p, v) (an int64_t v to *p,
 * keeping the low bits) and RCD_IMIN / RCD_IMAX (the dtype's range). This header defines and
 * #undefs the other per-dtype macros of kernel/cpu/reduce_cpu_impl.h. */

/* Sum, Mean and Prod accumulate in 64 bits and wrap: unsigned lanes, so overflow is defined.
 * The low 32 bits of the 64-bit result are what an int32 output keeps. */
#define RC_A uint64_t
#define RC_V opnn_v4q
#define RC_VL 4
#define RC_LOAD(p) ((uint64_t)RCD_ILOAD(p))
#define RC_VLOAD(p) ((opnn_v4q)RCD_IVLOAD(p))
#define RC_STORE(p, a) RCD_ISTORE(p, (int64_t)(a))

#define RC_NAME RC_CAT(sum_, RCD_NAME)
#define RC_IDENT ((uint64_t)0)
#define RC_COMB(a, b) ((a) + (b))
#define RC_VCOMB(a, b) ((a) + (b))
#define RC_FINAL(a, f) (a)
#include "kernel/cpu/reduce_cpu_impl.h"

/* Integer Mean divides the (wrapped) 64-bit sum by N, truncating toward zero. The caller
 * rejects an empty set; should one come anyway the result is 0. */
#define RC_NAME RC_CAT(mean_, RCD_NAME)
#define RC_IDENT ((uint64_t)0)
#define RC_COMB(a, b) ((a) + (b))
#define RC_VCOMB(a, b) ((a) + (b))
#define RC_FINAL(a, f) ((f)->n > 0 ? (uint64_t)((int64_t)(a) / (f)->n) : (uint64_t)0)
#include "kernel/cpu/reduce_cpu_impl.h"

#define RC_NAME RC_CAT(prod_, RCD_NAME)
#define RC_IDENT ((uint64_t)1)
#define RC_COMB(a, b) ((a) * (b))
#define RC_VCOMB(a, b) ((a) * (b))
#define RC_FINAL(a, f) (a)
#include "kernel/cpu/reduce_cpu_impl.h"

#undef RC_A
#undef RC_V
#undef RC_LOAD
#undef RC_VLOAD
#undef RC_STORE

/* Max and Min compare signed values, starting from the dtype's minimum / maximum. */
#define RC_A int64_t
#define RC_V opnn_v4l
#define RC_LOAD(p) RCD_ILOAD(p)
#define RC_VLOAD(p) RCD_IVLOAD(p)
#define RC_STORE(p, a) RCD_ISTORE(p, a)

#define RC_NAME RC_CAT(max_, RCD_NAME)
#define RC_IDENT ((int64_t)RCD_IMIN)
#define RC_COMB(a, b) opnn__max_i64(a, b)
#define RC_VCOMB(a, b) opnn__vmax_i64(a, b)
#define RC_FINAL(a, f) (a)
#include "kernel/cpu/reduce_cpu_impl.h"

#define RC_NAME RC_CAT(min_, RCD_NAME)
#define RC_IDENT ((int64_t)RCD_IMAX)
#define RC_COMB(a, b) opnn__min_i64(a, b)
#define RC_VCOMB(a, b) opnn__vmin_i64(a, b)
#define RC_FINAL(a, f) (a)
#include "kernel/cpu/reduce_cpu_impl.h"

#undef RC_A
#undef RC_V
#undef RC_VL
#undef RC_LOAD
#undef RC_VLOAD
#undef RC_STORE
