/* Scalar conversions between float and the 16-bit float formats for the built-in CPU kernels,
 * on raw uint16_t storage: thin names over the installed opnn/cpu/half.h, which plugins use, so
 * the built-ins and plugins round identically. Vectorised loads live in
 * kernel/cpu/reduce_cpu_simd.h.
 *
 * Numerics: widening is exact; narrowing rounds to nearest, ties to even; NaN stays NaN (made
 * quiet), infinities stay infinite, f16 overflow gives inf, f16 underflow gives subnormals. */
#ifndef OPNN_KERNEL_CPU_HALF_H
#define OPNN_KERNEL_CPU_HALF_H

#include <stdint.h>

#include "opnn/cpu/half.h"

static inline uint32_t opnn__f32_bits(float f)
{
    return op_f32_bits_(f);
}

static inline float opnn__f32_from_bits(uint32_t u)
{
    return op_f32_from_bits_(u);
}

static inline float opnn__f16_to_f32(uint16_t h)
{
    return op_f16_to_f32((op_f16){h});
}

static inline uint16_t opnn__f32_to_f16(float f)
{
    return op_f32_to_f16(f).bits;
}

static inline float opnn__bf16_to_f32(uint16_t h)
{
    return op_bf16_to_f32((op_bf16){h});
}

static inline uint16_t opnn__f32_to_bf16(float f)
{
    return op_f32_to_bf16(f).bits;
}

#endif /* OPNN_KERNEL_CPU_HALF_H */
