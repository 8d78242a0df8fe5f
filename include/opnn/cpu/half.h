/// @file half.h
/// The 16-bit float formats for plugin CPU kernels: IEEE binary16 (op_f16) and bfloat16
/// (op_bf16) as distinct one-member structs (so `_Generic` tells them apart and a kernel cannot
/// mix them up), with scalar conversions to and from float. Header-only, portable C11.
///
/// Numerics: widening is exact; narrowing rounds to nearest, ties to even; NaN stays NaN (made
/// quiet), infinities stay infinite, f16 overflow gives inf, f16 underflow gives subnormals.
#ifndef OPNN_CPU_HALF_H
#define OPNN_CPU_HALF_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An IEEE binary16 value (DLPack kDLFloat, 16 bits), as stored in memory.
typedef struct op_f16 {
    uint16_t bits;
} op_f16;

/// A bfloat16 value (DLPack kDLBfloat, 16 bits), as stored in memory.
typedef struct op_bf16 {
    uint16_t bits;
} op_bf16;

static inline uint32_t op_f32_bits_(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline float op_f32_from_bits_(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

/// Widens a binary16 value to float (exact).
static inline float op_f16_to_f32(op_f16 h)
{
    /* exponent and mantissa moved into place, then inf/NaN and subnormals fixed up */
    const uint32_t shifted_exp = 0x7c00u << 13;
    uint32_t o = ((uint32_t)h.bits & 0x7fffu) << 13;
    uint32_t exp = shifted_exp & o;
    o += (uint32_t)(127 - 15) << 23;
    if (exp == shifted_exp) {
        o += (uint32_t)(128 - 16) << 23; /* inf or NaN */
    } else if (exp == 0) {
        /* zero or subnormal: renormalised with one exact float subtraction */
        o += 1u << 23;
        o = op_f32_bits_(op_f32_from_bits_(o) - op_f32_from_bits_(113u << 23));
    }
    o |= ((uint32_t)h.bits & 0x8000u) << 16;
    return op_f32_from_bits_(o);
}

/// Narrows a float to binary16, rounding to nearest even.
static inline op_f16 op_f32_to_f16(float f)
{
    uint32_t u = op_f32_bits_(f);
    uint32_t sign = u & 0x80000000u;
    uint32_t o;
    op_f16 h;
    u ^= sign;
    if (u >= (uint32_t)(127 + 16) << 23) {
        o = u > 0x7f800000u ? 0x7e00u : 0x7c00u; /* NaN stays NaN; >= 65536 is inf */
    } else if (u < 113u << 23) {
        /* subnormal or zero: adding a magic constant rounds (ties to even) the 10 mantissa
         * bits into the low bits of the sum */
        const uint32_t magic = (uint32_t)((127 - 15) + (23 - 10) + 1) << 23;
        o = op_f32_bits_(op_f32_from_bits_(u) + op_f32_from_bits_(magic)) - magic;
    } else {
        uint32_t mant_odd = (u >> 13) & 1u;
        u += ((uint32_t)(15 - 127) << 23) + 0xfffu; /* rebias; round half up ... */
        u += mant_odd;                              /* ... or to even on a tie */
        o = u >> 13;                                /* a carry into the exponent gives inf */
    }
    h.bits = (uint16_t)(o | (sign >> 16));
    return h;
}

/// Widens a bfloat16 value to float (exact).
static inline float op_bf16_to_f32(op_bf16 h)
{
    return op_f32_from_bits_((uint32_t)h.bits << 16);
}

/// Narrows a float to bfloat16, rounding to nearest even.
static inline op_bf16 op_f32_to_bf16(float f)
{
    uint32_t u = op_f32_bits_(f);
    op_bf16 h;
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        h.bits = (uint16_t)((u >> 16) | 0x0040u); /* NaN: sign and top of payload, quiet */
        return h;
    }
    u += 0x7fffu + ((u >> 16) & 1u); /* ties to even; overflow gives inf */
    h.bits = (uint16_t)(u >> 16);
    return h;
}

#ifdef __cplusplus
}
#endif

#endif /* OPNN_CPU_HALF_H */
