#include "support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(OPNN_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

uint64_t ts_seed(const char *test_name)
{
    const char *env = getenv("OPNN_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : 0x5eed2026u;
    printf("[ seed ] %s: OPNN_TEST_SEED=%llu\n", test_name, (unsigned long long)seed);
    return seed;
}

uint64_t ts_next(ts_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double ts_uniform(ts_rng *r)
{
    return (double)(ts_next(r) >> 11) * 0x1.0p-53;
}

int64_t ts_range(ts_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(ts_next(r) % (uint64_t)(hi - lo + 1));
}

uint16_t ts_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) /* inf or NaN */
        return (uint16_t)(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0));
    if (absx >= 0x477ff000u) /* rounds to >= 65520: inf */
        return (uint16_t)(sign | 0x7c00u);
    if (absx < 0x38800000u) { /* subnormal or zero in f16 */
        float a;
        memcpy(&a, &absx, 4);
        /* a * 2^24 rounded to nearest even gives the subnormal mantissa */
        float m = a * 16777216.0f;
        uint32_t mi = (uint32_t)lrintf(m);
        return (uint16_t)(sign | mi);
    }
    uint32_t mant = absx & 0x7fffffu;
    uint32_t exp = (absx >> 23) - 127 + 15;
    uint32_t h = (exp << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

float ts_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t x;
    if (exp == 0x1f) {
        x = sign | 0x7f800000u | (mant << 13);
    } else if (exp == 0) {
        float v = (float)mant * 0x1.0p-24f;
        memcpy(&x, &v, 4);
        x |= sign;
    } else {
        x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}

uint16_t ts_f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

float ts_bf16_to_f32(uint16_t h)
{
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

DLDataType ts_dtype(const char *name)
{
    DLDataType t = {kDLFloat, 32, 1};
    if (!strcmp(name, "f64"))
        t.bits = 64;
    else if (!strcmp(name, "f16"))
        t.bits = 16;
    else if (!strcmp(name, "bf16"))
        t = (DLDataType){kDLBfloat, 16, 1};
    else if (!strcmp(name, "i32"))
        t = (DLDataType){kDLInt, 32, 1};
    else if (!strcmp(name, "i64"))
        t = (DLDataType){kDLInt, 64, 1};
    return t;
}

const char *ts_dtype_name(DLDataType t)
{
    if (t.code == kDLFloat)
        return t.bits == 64 ? "f64" : t.bits == 16 ? "f16" : "f32";
    if (t.code == kDLBfloat)
        return "bf16";
    return t.bits == 64 ? "i64" : "i32";
}

size_t ts_dtype_size(DLDataType t)
{
    return t.bits / 8u;
}

bool ts_dtype_is_float(DLDataType t)
{
    return t.code == kDLFloat || t.code == kDLBfloat;
}

double ts_load(const void *base, DLDataType t, int64_t i)
{
    if (t.code == kDLFloat && t.bits == 32)
        return ((const float *)base)[i];
    if (t.code == kDLFloat && t.bits == 64)
        return ((const double *)base)[i];
    if (t.code == kDLFloat && t.bits == 16)
        return ts_f16_to_f32(((const uint16_t *)base)[i]);
    if (t.code == kDLBfloat)
        return ts_bf16_to_f32(((const uint16_t *)base)[i]);
    return (double)ts_load_int(base, t, i);
}

int64_t ts_load_int(const void *base, DLDataType t, int64_t i)
{
    if (t.bits == 32)
        return ((const int32_t *)base)[i];
    return ((const int64_t *)base)[i];
}

void ts_store(void *base, DLDataType t, int64_t i, double v)
{
    if (t.code == kDLFloat && t.bits == 32)
        ((float *)base)[i] = (float)v;
    else if (t.code == kDLFloat && t.bits == 64)
        ((double *)base)[i] = v;
    else if (t.code == kDLFloat && t.bits == 16)
        ((uint16_t *)base)[i] = ts_f32_to_f16((float)v);
    else if (t.code == kDLBfloat)
        ((uint16_t *)base)[i] = ts_f32_to_bf16((float)v);
    else if (t.bits == 32)
        ((int32_t *)base)[i] = (int32_t)v;
    else
        ((int64_t *)base)[i] = (int64_t)v;
}

ts_buf ts_buf_alloc(size_t bytes)
{
    ts_buf b;
    b.bytes = bytes;
    b.data = malloc(bytes + TS_GUARD_BYTES);
    if (b.data) {
        memset(b.data, 0x5A, bytes);
        memset((char *)b.data + bytes, TS_GUARD_BYTE, TS_GUARD_BYTES);
    }
    return b;
}

bool ts_buf_guard_ok(const ts_buf *b)
{
    const unsigned char *g = (const unsigned char *)b->data + b->bytes;
    for (int i = 0; i < TS_GUARD_BYTES; i++)
        if (g[i] != TS_GUARD_BYTE)
            return false;
    return true;
}

void ts_buf_free(ts_buf *b)
{
    free(b->data);
    b->data = NULL;
}

void ts_fill_random(ts_rng *r, void *base, DLDataType t, int64_t n, double scale)
{
    for (int64_t i = 0; i < n; i++) {
        if (ts_dtype_is_float(t))
            ts_store(base, t, i, (ts_uniform(r) * 2.0 - 1.0) * scale);
        else
            ts_store(base, t, i, (double)ts_range(r, -1000, 1000));
    }
}

void ts_tensor_init(ts_tensor *x, void *data, DLDeviceType dev, DLDataType dtype, int32_t ndim,
                    const int64_t *shape, const int64_t *strides)
{
    memset(x, 0, sizeof(*x));
    for (int i = 0; i < ndim; i++) {
        x->shape[i] = shape[i];
        x->strides[i] = strides ? strides[i] : 0;
    }
    x->t.data = data;
    x->t.device = (DLDevice){dev, 0};
    x->t.ndim = ndim;
    x->t.dtype = dtype;
    x->t.shape = x->shape;
    x->t.strides = strides ? x->strides : NULL;
    x->t.byte_offset = 0;
}

int64_t ts_numel(int32_t ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= shape[i];
    return n;
}

int64_t ts_storage_elems(int32_t ndim, const int64_t *shape, const int64_t *strides)
{
    int64_t last = 0;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] == 0)
            return 0;
        int64_t st = strides ? strides[i] : ts_numel(ndim - i - 1, shape + i + 1);
        last += (shape[i] - 1) * st;
    }
    return last + 1;
}

ts_op ts_op_from_name(const char *op)
{
    if (!strcmp(op, "ReduceMean"))
        return TS_MEAN;
    if (!strcmp(op, "ReduceMax"))
        return TS_MAX;
    if (!strcmp(op, "ReduceMin"))
        return TS_MIN;
    if (!strcmp(op, "ReduceProd"))
        return TS_PROD;
    return TS_SUM;
}

int64_t ts_reference(ts_op op, const DLTensor *x, uint32_t mask, double *out_f, int64_t *out_i)
{
    int nd = x->ndim;
    int64_t ostride[16], istride[16], nout = 1, nred = 1;
    for (int i = nd - 1; i >= 0; i--) {
        istride[i] =
            x->strides ? x->strides[i] : (i == nd - 1 ? 1 : istride[i + 1] * x->shape[i + 1]);
    }
    for (int i = nd - 1; i >= 0; i--) {
        if (mask & (1u << i)) {
            ostride[i] = 0;
            nred *= x->shape[i];
        } else {
            ostride[i] = nout;
            nout *= x->shape[i];
        }
    }
    bool isf = ts_dtype_is_float(x->dtype);
    /* Sums are compensated (Neumaier): the reference stays within a few ulp of the exact sum
     * whatever N, so the tolerance of ts_check measures the kernel, not the reference. */
    double *comp = NULL;
    if (isf && (op == TS_SUM || op == TS_MEAN) && nout > 0) {
        comp = calloc((size_t)nout, sizeof(double));
        if (!comp)
            return -1;
    }
    for (int64_t o = 0; o < nout; o++) {
        if (isf)
            out_f[o] = op == TS_SUM || op == TS_MEAN ? 0.0
                       : op == TS_PROD               ? 1.0
                       : op == TS_MAX                ? -INFINITY
                                                     : INFINITY;
        else
            out_i[o] = op == TS_SUM || op == TS_MEAN ? 0
                       : op == TS_PROD               ? 1
                       : op == TS_MAX                ? (x->dtype.bits == 32 ? INT32_MIN : INT64_MIN)
                                      : (x->dtype.bits == 32 ? INT32_MAX : INT64_MAX);
    }
    int64_t total = ts_numel(nd, x->shape);
    const char *base = (const char *)x->data + x->byte_offset;
    int64_t idx[16] = {0};
    for (int64_t n = 0; n < total; n++) {
        int64_t off = 0, o = 0;
        for (int i = 0; i < nd; i++) {
            off += idx[i] * istride[i];
            o += idx[i] * ostride[i];
        }
        if (isf) {
            double v = ts_load(base, x->dtype, off), *a = &out_f[o];
            switch (op) {
            case TS_SUM:
            case TS_MEAN: {
                double t = *a + v;
                if (isfinite(t))
                    comp[o] += fabs(*a) >= fabs(v) ? (*a - t) + v : (v - t) + *a;
                *a = t;
                break;
            }
            case TS_PROD:
                *a *= v;
                break;
            case TS_MAX:
                *a = (isnan(*a) || isnan(v)) ? NAN : (v > *a ? v : *a);
                break;
            case TS_MIN:
                *a = (isnan(*a) || isnan(v)) ? NAN : (v < *a ? v : *a);
                break;
            }
        } else {
            int64_t v = ts_load_int(base, x->dtype, off), *a = &out_i[o];
            switch (op) {
            case TS_SUM:
            case TS_MEAN:
                *a = (int64_t)((uint64_t)*a + (uint64_t)v);
                break;
            case TS_PROD:
                *a = (int64_t)((uint64_t)*a * (uint64_t)v);
                break;
            case TS_MAX:
                *a = v > *a ? v : *a;
                break;
            case TS_MIN:
                *a = v < *a ? v : *a;
                break;
            }
        }
        for (int i = nd - 1; i >= 0; i--) {
            if (++idx[i] < x->shape[i])
                break;
            idx[i] = 0;
        }
    }
    for (int64_t o = 0; o < nout; o++) {
        if (comp && isfinite(out_f[o]))
            out_f[o] += comp[o];
        if (op == TS_MEAN) {
            if (isf)
                out_f[o] = out_f[o] / (double)nred; /* 0/0 = NaN for an empty set */
            else if (nred > 0)
                out_i[o] = out_i[o] / nred;
        }
        if (!isf && x->dtype.bits == 32)
            out_i[o] = (int32_t)(uint32_t)(uint64_t)out_i[o]; /* wrap to the output width */
    }
    free(comp);
    return nout;
}

static double ts_round_to(DLDataType t, double v)
{
    unsigned char tmp[8];
    ts_store(tmp, t, 0, v);
    return ts_load(tmp, t, 0);
}

bool ts_check(const char *what, const void *out, DLDataType t, int64_t n, const double *ref_f,
              const int64_t *ref_i, int64_t red_n, ts_op op)
{
    bool isf = ts_dtype_is_float(t);
    double rtol = 1e-5, acc_eps = 2e-7;
    if (t.code == kDLFloat && t.bits == 64)
        rtol = 1e-12, acc_eps = 1e-15;
    else if (t.code == kDLFloat && t.bits == 16)
        rtol = 1e-3;
    else if (t.code == kDLBfloat)
        rtol = 8e-3;
    for (int64_t i = 0; i < n; i++) {
        if (!isf) {
            int64_t got = ts_load_int(out, t, i);
            if (got != ref_i[i]) {
                printf("%s: output %lld is %lld, expected %lld\n", what, (long long)i,
                       (long long)got, (long long)ref_i[i]);
                return false;
            }
            continue;
        }
        double got = ts_load(out, t, i), want = ref_f[i];
        if (isnan(want) || isnan(got)) {
            if (isnan(want) && isnan(got))
                continue;
            printf("%s: output %lld is %.9g, expected %.9g\n", what, (long long)i, got, want);
            return false;
        }
        double wr = ts_round_to(t, want);
        if (isinf(wr) || isinf(got)) {
            if (got == wr)
                continue;
            printf("%s: output %lld is %.9g, expected %.9g\n", what, (long long)i, got, want);
            return false;
        }
        double tol;
        if (op == TS_MAX || op == TS_MIN)
            tol = 0; /* the extreme is one of the inputs: exact */
        else if (op == TS_PROD)
            tol = fabs(want) * (rtol + acc_eps * (double)(red_n + 1) * 4);
        else if (op == TS_MEAN)
            tol = fabs(want) * rtol + acc_eps * 4 * sqrt((double)red_n + 1) + 1e-300;
        else
            tol = fabs(want) * rtol + acc_eps * 4 * (double)(red_n + 1) / sqrt((double)red_n + 1);
        if (fabs(got - wr) > tol) {
            printf("%s: output %lld is %.9g, expected %.9g (tolerance %.3g, N=%lld)\n", what,
                   (long long)i, got, want, tol, (long long)red_n);
            return false;
        }
    }
    return true;
}

bool ts_have_cuda(void)
{
#if defined(OPNN_HAVE_CUDA)
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
#else
    return false;
#endif
}
