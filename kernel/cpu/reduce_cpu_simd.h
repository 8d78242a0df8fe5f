/* Portable 32-byte vectors (GCC/Clang vector extensions) for the CPU reduce template: types,
 * widening loads from every served dtype, NaN-propagating max/min, lane shuffles.
 *
 * Accumulator vectors are 32 bytes whatever the instruction set, so the lane layout, and with it
 * the rounding, is the same on every CPU: with AVX2 each operation is one instruction, without
 * it the compiler splits it in two SSE2 halves. The translation unit that includes this header
 * chooses the instruction set (reduce_cpu_avx2.c sets a target pragma and defines RC_USE_AVX2,
 * meaning AVX2 with F16C, first); static inline functions are compiled for it. The widening
 * loads use intrinsics there: GCC's generic lowering of them is two to three times longer. */
#ifndef OPNN_KERNEL_CPU_REDUCE_CPU_SIMD_H
#define OPNN_KERNEL_CPU_REDUCE_CPU_SIMD_H

#include <stdint.h>
#include <string.h>

#include "kernel/cpu/half.h"

#if defined(RC_USE_AVX2)
#include <immintrin.h>
#endif

/* Functions returning a vector are forced inline: no function boundary ever passes one by
 * value, so the 32-byte vector ABI (which differs with and without AVX) never matters. */
#if defined(__GNUC__)
#define OPNN_VINLINE static inline __attribute__((always_inline))
#else
#define OPNN_VINLINE static inline
#endif

typedef float opnn_v8f __attribute__((vector_size(32)));
typedef int32_t opnn_v8i __attribute__((vector_size(32)));
typedef uint32_t opnn_v8u __attribute__((vector_size(32)));
typedef double opnn_v4d __attribute__((vector_size(32)));
typedef int64_t opnn_v4l __attribute__((vector_size(32)));
typedef uint64_t opnn_v4q __attribute__((vector_size(32)));
typedef uint16_t opnn_v8h __attribute__((vector_size(16)));
typedef int16_t opnn_v8s __attribute__((vector_size(16)));
typedef int32_t opnn_v4i __attribute__((vector_size(16)));

/* Two-source lane shuffles with constant indices (0..n-1 from a, n..2n-1 from b). */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
#define OPNN_SHUF32(a, b, ...) __builtin_shufflevector((a), (b), __VA_ARGS__)
#define OPNN_SHUF64(a, b, ...) __builtin_shufflevector((a), (b), __VA_ARGS__)
#else
#define OPNN_SHUF32(a, b, ...) __builtin_shuffle((a), (b), (opnn_v8i){__VA_ARGS__})
#define OPNN_SHUF64(a, b, ...) __builtin_shuffle((a), (b), (opnn_v4l){__VA_ARGS__})
#endif

/* --- loads: 8 (32-bit accumulators) or 4 (64-bit) consecutive elements, unaligned --- */

OPNN_VINLINE opnn_v8f opnn__vload_f32(const float *p)
{
    opnn_v8f v;
    memcpy(&v, p, sizeof v);
    return v;
}

OPNN_VINLINE opnn_v4d opnn__vload_f64(const double *p)
{
    opnn_v4d v;
    memcpy(&v, p, sizeof v);
    return v;
}

OPNN_VINLINE opnn_v8f opnn__vload_f16(const uint16_t *p)
{
#if defined(RC_USE_AVX2)
    __m128i h;
    memcpy(&h, p, sizeof h);
    return (opnn_v8f)_mm256_cvtph_ps(h);
#else
    opnn_v8f v;
    for (int j = 0; j < 8; j++)
        v[j] = opnn__f16_to_f32(p[j]);
    return v;
#endif
}

/* bf16 is the top half of an f32: widen, shift. */
OPNN_VINLINE opnn_v8f opnn__vload_bf16(const uint16_t *p)
{
#if defined(RC_USE_AVX2)
    __m128i h;
    memcpy(&h, p, sizeof h);
    return (opnn_v8f)_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
#else
    opnn_v8h h;
    memcpy(&h, p, sizeof h);
    return (opnn_v8f)(__builtin_convertvector(h, opnn_v8u) << 16);
#endif
}

#if defined(RC_USE_AVX2)
/* 16 bf16 from p as f32: *even gets elements 0, 2, ... 14, *odd 1, 3, ... 15 (lane j of each
 * from the j-th 32-bit word); opnn__vorder_pair_f32 puts them back in order. */
OPNN_VINLINE void opnn__vload_bf16_pair(const uint16_t *p, opnn_v8f *even, opnn_v8f *odd)
{
    __m256i w;
    memcpy(&w, p, sizeof w);
    *even = (opnn_v8f)_mm256_slli_epi32(w, 16);
    *odd = (opnn_v8f)_mm256_and_si256(w, _mm256_set1_epi32((int)0xffff0000u));
}

/* even, odd as opnn__vload_bf16_pair left them -> elements 0..7 in *a, 8..15 in *b. */
OPNN_VINLINE void opnn__vorder_pair_f32(opnn_v8f even, opnn_v8f odd, opnn_v8f *a, opnn_v8f *b)
{
    __m256 lo = _mm256_unpacklo_ps((__m256)even, (__m256)odd); /* 0 1 2 3 | 8 9 10 11 */
    __m256 hi = _mm256_unpackhi_ps((__m256)even, (__m256)odd); /* 4 5 6 7 | 12 13 14 15 */
    *a = (opnn_v8f)_mm256_permute2f128_ps(lo, hi, 0x20);
    *b = (opnn_v8f)_mm256_permute2f128_ps(lo, hi, 0x31);
}
#endif

/* --- narrowing: 8 floats to 8 f16 / bf16, the bits of opnn__f32_to_f16 / opnn__f32_to_bf16
 * lane by lane. Without F16C every case of the scalar code is computed for every lane, and each
 * lane keeps its own. --- */
OPNN_VINLINE opnn_v8h opnn__vnarrow_f16(opnn_v8f f)
{
#if defined(RC_USE_AVX2)
    /* F16C rounds as the scalar code does (to nearest even, subnormals kept, inf past 65520);
     * its NaNs keep the top of the payload, the scalar code's are 0x7e00 with the sign */
    opnn_v8h h = (opnn_v8h)_mm256_cvtps_ph((__m256)f, _MM_FROUND_TO_NEAREST_INT);
    opnn_v8h nan = (opnn_v8h)((opnn_v8s)(h & 0x7fffu) > (int16_t)0x7c00);
    return (nan & ((h & 0x8000u) | 0x7e00u)) | (~nan & h);
#else
    const uint32_t magic = (uint32_t)((127 - 15) + (23 - 10) + 1) << 23;
    opnn_v8u u = (opnn_v8u)f, sign = u & 0x80000000u, vmagic = (opnn_v8u){0} + magic, big, nan,
             small, o_big, o_small, o_norm;
    u ^= sign;
    big = (opnn_v8u)(u >= (uint32_t)(127 + 16) << 23); /* inf or NaN or >= 65536 */
    nan = (opnn_v8u)(u > 0x7f800000u);
    small = (opnn_v8u)(u < 113u << 23); /* subnormal or zero in f16 */
    o_big = (nan & 0x7e00u) | (~nan & 0x7c00u);
    /* the magic add only on the small lanes (the others add to 0): no inf or NaN goes in */
    o_small = (opnn_v8u)((opnn_v8f)(u & small) + (opnn_v8f)vmagic) - magic;
    o_norm = (u + (((uint32_t)(15 - 127) << 23) + 0xfffu) + ((u >> 13) & 1u)) >> 13;
    u = (big & o_big) | (small & o_small) | (~(big | small) & o_norm) | (sign >> 16);
    return __builtin_convertvector(u, opnn_v8h);
#endif
}

OPNN_VINLINE opnn_v8h opnn__vnarrow_bf16(opnn_v8f f)
{
    opnn_v8u u = (opnn_v8u)f, nan = (opnn_v8u)((u & 0x7fffffffu) > 0x7f800000u);
    u = (nan & ((u >> 16) | 0x0040u)) | (~nan & ((u + 0x7fffu + ((u >> 16) & 1u)) >> 16));
    return __builtin_convertvector(u, opnn_v8h);
}

OPNN_VINLINE opnn_v4l opnn__vload_i32(const int32_t *p)
{
#if defined(RC_USE_AVX2)
    __m128i v;
    memcpy(&v, p, sizeof v);
    return (opnn_v4l)_mm256_cvtepi32_epi64(v);
#else
    opnn_v4i v;
    memcpy(&v, p, sizeof v);
    return __builtin_convertvector(v, opnn_v4l);
#endif
}

OPNN_VINLINE opnn_v4l opnn__vload_i64(const int64_t *p)
{
    opnn_v4l v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* --- non-temporal stores of whole vectors (32-byte aligned p); RC_SFENCE orders them before
 * the thread's later stores, as other threads must see them after the parallel region --- */
#if defined(RC_USE_AVX2)
#define opnn__vstore_nt_f32(p, v) _mm256_stream_ps((float *)(p), (__m256)(v))
#define opnn__vstore_nt_f64(p, v) _mm256_stream_pd((double *)(p), (__m256d)(v))
#define RC_SFENCE() _mm_sfence()
#else
#define RC_SFENCE() ((void)0)
#endif

/* --- max / min: NaN wins wherever it is ---
 *
 * max(a, b) is (b > a ? b : a), which is x86's MAXPS(b, a), made NaN when b is NaN by setting
 * the quiet-NaN bits; a NaN in a is never replaced (every comparison with it is false), so a
 * NaN, once in, stays. The scalar, generic-vector and AVX2 forms give the same bits. */

#define OPNN_QNAN32 ((int32_t)0x7fc00000)
#define OPNN_QNAN64 ((int64_t)0x7ff8000000000000)

static inline float opnn__max_f32(float a, float b)
{
    float r = b > a ? b : a;
    return b != b ? opnn__f32_from_bits(opnn__f32_bits(r) | (uint32_t)OPNN_QNAN32) : r;
}

static inline float opnn__min_f32(float a, float b)
{
    float r = b < a ? b : a;
    return b != b ? opnn__f32_from_bits(opnn__f32_bits(r) | (uint32_t)OPNN_QNAN32) : r;
}

static inline double opnn__f64_quiet(double r)
{
    uint64_t u;
    memcpy(&u, &r, sizeof u);
    u |= (uint64_t)OPNN_QNAN64;
    memcpy(&r, &u, sizeof r);
    return r;
}

static inline double opnn__max_f64(double a, double b)
{
    double r = b > a ? b : a;
    return b != b ? opnn__f64_quiet(r) : r;
}

static inline double opnn__min_f64(double a, double b)
{
    double r = b < a ? b : a;
    return b != b ? opnn__f64_quiet(r) : r;
}

static inline int64_t opnn__max_i64(int64_t a, int64_t b)
{
    return b > a ? b : a;
}

static inline int64_t opnn__min_i64(int64_t a, int64_t b)
{
    return b < a ? b : a;
}

/* Vector forms, as statement expressions (GNU C, as are the vector types): a function taking
 * 32-byte vectors by value draws an ABI note from GCC in non-AVX code. */
#define OPNN_VSEL_(VT, IT, m, b, a) ((VT)(((IT)(b) & (m)) | ((IT)(a) & ~(m))))
#define OPNN_VMINMAX_(VT, IT, op, qnan, a, b)                                                      \
    __extension__({                                                                                \
        VT a_ = (a), b_ = (b);                                                                     \
        IT m_ = b_ op a_;                                                                          \
        (VT)((IT)OPNN_VSEL_(VT, IT, m_, b_, a_) | ((b_ != b_) & (qnan)));                          \
    })
#if defined(RC_USE_AVX2)
/* MAXPS / MINPS and three logic ops instead of two compares and a blend: Max of f32 rows 0.88
 * -> 1.0 of the streaming read */
#define OPNN_VMINMAX_X86_(VT, IT, fn, qnan, a, b)                                                  \
    __extension__({                                                                                \
        VT a_ = (a), b_ = (b);                                                                     \
        (VT)((IT)fn(b_, a_) | ((b_ != b_) & (qnan)));                                              \
    })
#define opnn__vmax_f32(a, b) OPNN_VMINMAX_X86_(opnn_v8f, opnn_v8i, _mm256_max_ps, OPNN_QNAN32, a, b)
#define opnn__vmin_f32(a, b) OPNN_VMINMAX_X86_(opnn_v8f, opnn_v8i, _mm256_min_ps, OPNN_QNAN32, a, b)
#define opnn__vmax_f64(a, b) OPNN_VMINMAX_X86_(opnn_v4d, opnn_v4l, _mm256_max_pd, OPNN_QNAN64, a, b)
#define opnn__vmin_f64(a, b) OPNN_VMINMAX_X86_(opnn_v4d, opnn_v4l, _mm256_min_pd, OPNN_QNAN64, a, b)
/* The same when b holds no NaN (then the NaN step adds nothing), and a NaN detector to check
 * that afterwards: m with the lanes where a or b is NaN set, and whether any is. */
#define opnn__vmax_nonan_f32(a, b) ((opnn_v8f)_mm256_max_ps((b), (a)))
#define opnn__vmin_nonan_f32(a, b) ((opnn_v8f)_mm256_min_ps((b), (a)))
#define opnn__vmax_nonan_f64(a, b) ((opnn_v4d)_mm256_max_pd((b), (a)))
#define opnn__vmin_nonan_f64(a, b) ((opnn_v4d)_mm256_min_pd((b), (a)))
#define opnn__vnan_or_f32(m, a, b)                                                                 \
    ((opnn_v8f)_mm256_or_ps((m), _mm256_cmp_ps((a), (b), _CMP_UNORD_Q)))
#define opnn__vnan_or_f64(m, a, b)                                                                 \
    ((opnn_v4d)_mm256_or_pd((m), _mm256_cmp_pd((a), (b), _CMP_UNORD_Q)))
#define opnn__vany_f32(m) (_mm256_movemask_ps((__m256)(m)) != 0)
#define opnn__vany_f64(m) (_mm256_movemask_pd((__m256d)(m)) != 0)
#else
#define opnn__vmax_f32(a, b) OPNN_VMINMAX_(opnn_v8f, opnn_v8i, >, OPNN_QNAN32, a, b)
#define opnn__vmin_f32(a, b) OPNN_VMINMAX_(opnn_v8f, opnn_v8i, <, OPNN_QNAN32, a, b)
#define opnn__vmax_f64(a, b) OPNN_VMINMAX_(opnn_v4d, opnn_v4l, >, OPNN_QNAN64, a, b)
#define opnn__vmin_f64(a, b) OPNN_VMINMAX_(opnn_v4d, opnn_v4l, <, OPNN_QNAN64, a, b)
#endif
/* integers: b != b is all-false */
#define opnn__vmax_i64(a, b) OPNN_VMINMAX_(opnn_v4l, opnn_v4l, >, 0, a, b)
#define opnn__vmin_i64(a, b) OPNN_VMINMAX_(opnn_v4l, opnn_v4l, <, 0, a, b)

#endif /* OPNN_KERNEL_CPU_REDUCE_CPU_SIMD_H */
