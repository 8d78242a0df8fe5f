/* The built-in CPU reductions compiled for AVX2 with F16C (x86-64 from Haswell on), chosen at
 * run time by kernel/cpu/reduce_cpu.c when the CPU has both. The library itself is built for
 * the baseline instruction set; only this file's functions use AVX2. Their results are bitwise
 * those of reduce_cpu_base.c: same lanes, same order, no FMA contraction (f16c, not fma). */
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,f16c"))), apply_to = function)
#else
#pragma GCC target("avx2,f16c")
#endif

#define RC_USE_AVX2 1
#define RC_ISA avx2
#define RC_TABLE opnn__cpu_reduce_avx2
#include "kernel/cpu/reduce_cpu_builtin.h"

#if defined(__clang__)
#pragma clang attribute pop
#endif

#else /* no AVX2 target: an empty table, never chosen */

#include "kernel/cpu/reduce_cpu_common.h"

const opnn_cpu_reduce_fn opnn__cpu_reduce_avx2[OPNN_REDUCE_KIND_COUNT_][OPNN_CPU_DTYPE_COUNT_];

void opnn__cpu_narrow16_avx2(bool bf16, const float *in, uint16_t *out, int64_t n)
{
    (void)bf16, (void)in, (void)out, (void)n;
}

#endif
