/* Scalar conversions between float and the 16-bit float formats (IEEE binary16 "f16" and
 * bfloat16 "bf16"), portable C11 with no ISA requirement. Vectorised loads live in
 * kernel/cpu/reduce_cpu_simd.h.
 *
 * Numerics: widening is exact; narrowing rounds to nearest, ties to even; NaN stays NaN (made
 * quiet), infinities stay infinite, f16 overflow gives inf, f16 underflow gives subnormals. */
#ifndef OPNN_KERNEL_CPU_HALF_H
#define OPNN_KERNEL_CPU_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t opnn__f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline float opnn__f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

static inline float opnn__f16_to_f32(uint16_t h)
{
    /* Move exponent and mantissa into place, then fix up inf/NaN and subnormals. */
    const uint32_t shifted_exp = 0x7c00u << 13;
    uint32_t o = ((uint32_t)h & 0x7fffu) << 13;
    uint32_t exp = shifted_exp & o;
    o += (uint32_t)(127 - 15) << 23;
    if (exp == shifted_exp) {
        o += (uint32_t)(128 - 16) << 23; /* inf or NaN */
    } else if (exp == 0) {
        /* zero or subnormal: renormalise with one exact float subtraction */
        o += 1u << 23;
        o = opnn__f32_bits(opnn__f32_from_bits(o) - opnn__f32_from_bits(113u << 23));
    }
    o |= ((uint32_t)h & 0x8000u) << 16;
    return opnn__f32_from_bits(o);
}

static inline uint16_t opnn__f32_to_f16(float f)
{
    uint32_t u = opnn__f32_bits(f);
    uint32_t sign = u & 0x80000000u;
    uint32_t o;
    u ^= sign;
    if (u >= (uint32_t)(127 + 16) << 23) {
        o = u > 0x7f800000u ? 0x7e00u : 0x7c00u; /* NaN stays NaN; >= 65536 is inf */
    } else if (u < 113u << 23) {
        /* f16 subnormal or zero: one float addition of a magic constant rounds (ties to even)
         * the 10 mantissa bits into the low bits of the sum. */
        const uint32_t magic = (uint32_t)((127 - 15) + (23 - 10) + 1) << 23;
        o = opnn__f32_bits(opnn__f32_from_bits(u) + opnn__f32_from_bits(magic)) - magic;
    } else {
        uint32_t mant_odd = (u >> 13) & 1u;
        u += ((uint32_t)(15 - 127) << 23) + 0xfffu; /* rebias; round half up ... */
        u += mant_odd;                              /* ... or to even on a tie */
        o = u >> 13;                                /* a carry into the exponent gives inf */
    }
    return (uint16_t)(o | (sign >> 16));
}

static inline float opnn__bf16_to_f32(uint16_t h)
{
    return opnn__f32_from_bits((uint32_t)h << 16);
}

static inline uint16_t opnn__f32_to_bf16(float f)
{
    uint32_t u = opnn__f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x0040u); /* NaN: keep sign and payload top, quiet */
    u += 0x7fffu + ((u >> 16) & 1u);            /* ties to even; overflow gives inf */
    return (uint16_t)(u >> 16);
}

#endif /* OPNN_KERNEL_CPU_HALF_H */
