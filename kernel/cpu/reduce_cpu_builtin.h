/* The built-in CPU reductions, (Sum, Mean, Max, Min, Prod) x (f32, f64, f16, bf16, i32, i64),
 * for the instruction set of the including translation unit (RC_ISA), and their table RC_TABLE.
 * Included once by reduce_cpu_base.c and once by reduce_cpu_avx2.c. */
#include <math.h>
#include <stdint.h>

#include "kernel/cpu/half.h"
#include "kernel/cpu/reduce_cpu_common.h"
#include "kernel/cpu/reduce_cpu_simd.h"

/* --- f32 --- */
#define RCD_NAME f32
#define RCD_AN f32
#define RC_T float
#define RC_A float
#define RC_V opnn_v8f
#define RC_VL 8
#define RC_LOAD(p) (*(p))
#define RC_VLOAD(p) opnn__vload_f32(p)
#define RC_STORE(p, a) (*(p) = (a))
#if defined(RC_USE_AVX2)
#define RC_VSTORE_NT(p, v) opnn__vstore_nt_f32(p, v)
#endif
#include "kernel/cpu/reduce_cpu_kinds_float.h"
#undef RC_T
#undef RC_LOAD
#undef RC_VLOAD
#undef RC_STORE
#undef RC_VSTORE_NT
#undef RCD_NAME

/* --- f16: accumulate in f32, round to nearest even once at the end --- */
#define RCD_NAME f16
#define RC_T uint16_t
#define RC_LOAD(p) opnn__f16_to_f32(*(p))
#define RC_VLOAD(p) opnn__vload_f16(p)
#define RC_STORE(p, a) (*(p) = opnn__f32_to_f16(a))
#define RC_VNARROW(v) opnn__vnarrow_f16(v)
#include "kernel/cpu/reduce_cpu_kinds_float.h"
#undef RC_T
#undef RC_LOAD
#undef RC_VLOAD
#undef RC_STORE
#undef RC_VNARROW
#undef RCD_NAME

/* --- bf16: accumulate in f32 --- */
#define RCD_NAME bf16
#define RC_T uint16_t
#define RC_LOAD(p) opnn__bf16_to_f32(*(p))
#define RC_VLOAD(p) opnn__vload_bf16(p)
#define RC_STORE(p, a) (*(p) = opnn__f32_to_bf16(a))
#define RC_VNARROW(v) opnn__vnarrow_bf16(v)
#if defined(RC_USE_AVX2)
/* columns: 16 elements per load, the even ones shifted up, the odd ones masked (3 instructions
 * instead of 2 widening loads and 2 shifts: col_wide16 0.7 -> 0.8 of the read ceiling) */
#define RC_VLOAD_PAIR(p, lo, hi) opnn__vload_bf16_pair(p, &(lo), &(hi))
#define RC_VPAIR_ORDER(lo, hi, a, b) opnn__vorder_pair_f32(lo, hi, &(a), &(b))
#endif
#include "kernel/cpu/reduce_cpu_kinds_float.h"
#undef RC_VLOAD_PAIR
#undef RC_VPAIR_ORDER
#undef RC_VNARROW
#undef RC_T
#undef RC_A
#undef RC_V
#undef RC_VL
#undef RC_LOAD
#undef RC_VLOAD
#undef RC_STORE
#undef RCD_NAME
#undef RCD_AN

/* --- f64 --- */
#define RCD_NAME f64
#define RCD_AN f64
#define RC_T double
#define RC_A double
#define RC_V opnn_v4d
#define RC_VL 4
#define RC_LOAD(p) (*(p))
#define RC_VLOAD(p) opnn__vload_f64(p)
#define RC_STORE(p, a) (*(p) = (a))
#if defined(RC_USE_AVX2)
#define RC_VSTORE_NT(p, v) opnn__vstore_nt_f64(p, v)
#endif
#include "kernel/cpu/reduce_cpu_kinds_float.h"
#undef RC_T
#undef RC_A
#undef RC_V
#undef RC_VL
#undef RC_LOAD
#undef RC_VLOAD
#undef RC_STORE
#undef RC_VSTORE_NT
#undef RCD_NAME
#undef RCD_AN

/* --- i32: accumulate in 64 bits, keep the low 32 --- */
#define RCD_NAME i32
#define RC_T int32_t
#define RCD_ILOAD(p) ((int64_t) * (p))
#define RCD_IVLOAD(p) opnn__vload_i32(p)
#define RCD_ISTORE(p, v) (*(p) = (int32_t)(uint32_t)(uint64_t)(v))
#define RCD_IMIN INT32_MIN
#define RCD_IMAX INT32_MAX
#include "kernel/cpu/reduce_cpu_kinds_int.h"
#undef RC_T
#undef RCD_NAME
#undef RCD_ILOAD
#undef RCD_IVLOAD
#undef RCD_ISTORE
#undef RCD_IMIN
#undef RCD_IMAX

/* --- i64 --- */
#define RCD_NAME i64
#define RC_T int64_t
#define RCD_ILOAD(p) (*(p))
#define RCD_IVLOAD(p) opnn__vload_i64(p)
#define RCD_ISTORE(p, v) (*(p) = (int64_t)(v))
#define RCD_IMIN INT64_MIN
#define RCD_IMAX INT64_MAX
#include "kernel/cpu/reduce_cpu_kinds_int.h"
#undef RC_T
#undef RCD_NAME
#undef RCD_ILOAD
#undef RCD_IVLOAD
#undef RCD_ISTORE
#undef RCD_IMIN
#undef RCD_IMAX

#define RC_FN_(kind, dt)                                                                           \
    RC_CAT(RC_CAT(RC_CAT(rc_, kind), RC_CAT(_, dt)), RC_CAT(_, RC_CAT(RC_ISA, _run)))
#define RC_ROW_(kind)                                                                              \
    {                                                                                              \
        [OPNN_CPU_F32] = RC_FN_(kind, f32), [OPNN_CPU_F64] = RC_FN_(kind, f64),                    \
        [OPNN_CPU_F16] = RC_FN_(kind, f16), [OPNN_CPU_BF16] = RC_FN_(kind, bf16),                  \
        [OPNN_CPU_I32] = RC_FN_(kind, i32), [OPNN_CPU_I64] = RC_FN_(kind, i64),                    \
    }

const opnn_cpu_reduce_fn RC_TABLE[OPNN_REDUCE_KIND_COUNT_][OPNN_CPU_DTYPE_COUNT_] = {
    [OPNN_REDUCE_SUM] = RC_ROW_(sum),   [OPNN_REDUCE_MEAN] = RC_ROW_(mean),
    [OPNN_REDUCE_MAX] = RC_ROW_(max),   [OPNN_REDUCE_MIN] = RC_ROW_(min),
    [OPNN_REDUCE_PROD] = RC_ROW_(prod),
};
_Static_assert(OPNN_REDUCE_KIND_COUNT_ == 5, "a built-in kind without a CPU table row");

void RC_CAT(opnn__cpu_narrow16_, RC_ISA)(bool bf16, const float *in, uint16_t *out, int64_t n)
{
    for (int64_t i = 0; i + 8 <= n; i += 8) {
        opnn_v8f v = opnn__vload_f32(in + i);
        opnn_v8h h = bf16 ? opnn__vnarrow_bf16(v) : opnn__vnarrow_f16(v);
        memcpy(out + i, &h, sizeof h);
    }
}

#undef RC_FN_
#undef RC_ROW_
