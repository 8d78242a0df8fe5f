/* Private interface of the CPU reduce dispatcher (kernel/cpu/reduce_cpu.c) beyond
 * opnn_cpu_reduce (kernel/reduce_kernels.h): which instruction set its kernels use. */
#ifndef OPNN_KERNEL_CPU_REDUCE_CPU_H
#define OPNN_KERNEL_CPU_REDUCE_CPU_H

#include <stdbool.h>
#include <stdint.h>

typedef enum opnn_cpu_isa {
    OPNN_CPU_ISA_AUTO = 0, /* the best the CPU runs: AVX2+F16C where present */
    OPNN_CPU_ISA_BASE,     /* the build's baseline (SSE2 on x86-64) */
    OPNN_CPU_ISA_AVX2,     /* AVX2 with F16C */
} opnn_cpu_isa;

/* Makes later opnn_cpu_reduce calls, in every thread, use isa (AUTO: back to the default).
 * Both give bitwise equal results; this exists so tests can compare them. Returns false, and
 * changes nothing, if this CPU or this build cannot run isa. */
bool opnn__cpu_reduce_set_isa(opnn_cpu_isa isa);

/* The instruction set opnn_cpu_reduce uses now (never AUTO). */
opnn_cpu_isa opnn__cpu_reduce_isa(void);

/* Narrows in[0, n) (n a multiple of 8) to f16 (bf16 false) or bf16 as isa's kernels narrow
 * their 16-bit results, a vector at a time; tests compare it with the scalar narrowing. Returns
 * false, and writes nothing, if this CPU or build cannot run isa or n is not a multiple of 8. */
bool opnn__cpu_narrow16(opnn_cpu_isa isa, bool bf16, const float *in, uint16_t *out, int64_t n);

#endif /* OPNN_KERNEL_CPU_REDUCE_CPU_H */
