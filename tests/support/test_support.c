#include "support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opnn/opnn.h>

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

const char *ts_case_name(const char *fn, const char *scenario)
{
    static char pool[64 * 1024];
    static size_t used;
    size_t len = strlen(fn) + 1 + strlen(scenario) + 1;
    if (used + len > sizeof pool)
        return fn;
    char *s = pool + used;
    snprintf(s, len, "%s/%s", fn, scenario);
    used += len;
    return s;
}

bool ts_msg_has(const char *msg, const char *want)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", want);
    for (char *save = NULL, *tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save))
        if (strstr(msg, tok))
            return true;
    return false;
}

uint64_t ts_seed_mix(uint64_t seed, const char *name)
{
    uint64_t h = 1469598103934665603ull;
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 1099511628211ull;
    return seed ^ h;
}

#if defined(OPNN_TEST_PLUGIN_DIR)
static op_plugin *ts_plugins[2];

int ts_load_example_plugins(void **state)
{
    (void)state;
    if (op_load_plugin(OPNN_TEST_PLUGIN_DIR "/reduce_extra.so", &ts_plugins[0]) != OP_OK ||
        op_load_plugin(OPNN_TEST_PLUGIN_DIR "/argminmax.so", &ts_plugins[1]) != OP_OK) {
        printf("cannot load the example plugins from %s: %s\n", OPNN_TEST_PLUGIN_DIR,
               op_plugin_error());
        return -1;
    }
    return 0;
}

int ts_unload_example_plugins(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++)
        if (ts_plugins[i])
            op_unload_plugin(ts_plugins[i]);
    return 0;
}
#endif

bool ts_have_cuda(void)
{
#if defined(OPNN_HAVE_CUDA)
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
#else
    return false;
#endif
}

/* --- the example plugins' ops ----------------------------------------------------------------- */

const char *const ts_xop_names[TS_X_COUNT] = {
    "ReduceL1",        "ReduceL2", "ReduceSumSquare", "ReduceLogSum",
    "ReduceLogSumExp", "ArgMax",   "ArgMin",
};

bool ts_xop_is_arg(ts_xop op)
{
    return op == TS_X_ARGMAX || op == TS_X_ARGMIN;
}

bool ts_xop_floats_only(ts_xop op)
{
    return op == TS_X_LOGSUM || op == TS_X_LOGSUMEXP;
}

const char *ts_plan_sms_for(const char *name)
{
    return strcmp(name, "col_super_left") == 0      ? "8"
           : strcmp(name, "middle_warp_tiles") == 0 ? "2"
                                                    : NULL;
}

void ts_xcase_from_big(const ts_xbig *b, size_t d, ts_xop op, ts_xcase *c)
{
    memset(c, 0, sizeof(*c));
    c->ndim = b->ndim;
    memcpy(c->shape, b->shape, sizeof(b->shape));
    c->naxes = b->naxes;
    memcpy(c->axes, b->axes, sizeof(b->axes));
    c->keepdims = (int)(d % 2);
    c->noop = -1;
    c->select_last = ts_xop_is_arg(op) ? (int)(d % 2) : -1;
    c->compact = !b->transpose;
    c->offset = (int64_t)d % 3;
    if (b->transpose) { /* dims 0 and 1 swapped in storage */
        int64_t st = 1;
        for (int i = b->ndim - 1; i >= 2; i--) {
            c->strides[i] = st;
            st *= b->shape[i];
        }
        c->strides[0] = st;
        c->strides[1] = st * b->shape[0];
    }
}

void ts_xcase_random(ts_rng *r, ts_xop op, int64_t max_elems, ts_xcase *c)
{
    const bool arg = ts_xop_is_arg(op);
    memset(c, 0, sizeof(*c));
    c->ndim = (int32_t)ts_range(r, arg ? 1 : 0, 5);
    int64_t n = 1;
    for (int i = 0; i < c->ndim; i++) {
        int64_t k = ts_range(r, 0, 11);
        c->shape[i] = k == 0 ? 0 : k == 1 ? 1 : ts_range(r, 2, 7);
        n *= c->shape[i] ? c->shape[i] : 1;
    }
    if (c->ndim > 0 && ts_range(r, 0, 2) == 0) { /* one long dim */
        int i = (int)ts_range(r, 0, c->ndim - 1);
        int64_t rest = n / (c->shape[i] ? c->shape[i] : 1);
        int64_t cap = max_elems / rest;
        if (cap > 8)
            c->shape[i] = ts_range(r, 8, cap < 5000 ? cap : 5000);
    }
    /* attributes */
    c->keepdims = (int)ts_range(r, -1, 1);
    c->noop = -1;
    c->select_last = -1;
    if (arg) {
        c->naxes = ts_range(r, 0, 3) == 0 ? -1 : 1;
        c->axes[0] = ts_range(r, -c->ndim, c->ndim - 1);
        c->select_last = (int)ts_range(r, -1, 1);
        int ax = c->naxes < 0 ? 0 : (int)(c->axes[0] < 0 ? c->axes[0] + c->ndim : c->axes[0]);
        if (c->shape[ax] == 0)
            c->shape[ax] = ts_range(r, 1, 5);
    } else {
        c->noop = (int)ts_range(r, -1, 1);
        int64_t how = ts_range(r, 0, 5);
        if (how == 0) {
            c->naxes = -1;
        } else if (how == 1 || c->ndim == 0) {
            c->naxes = 0;
        } else {
            for (int i = 0; i < c->ndim; i++)
                if (ts_range(r, 0, 1))
                    c->axes[c->naxes++] = ts_range(r, 0, 1) ? i : i - c->ndim;
        }
    }
    /* layout: compact, or storage in a random dim order with padding and zero strides */
    c->compact = ts_range(r, 0, 3) == 0;
    c->offset = ts_range(r, 0, 3);
    if (!c->compact) {
        int perm[8];
        for (int i = 0; i < c->ndim; i++)
            perm[i] = i;
        for (int i = c->ndim - 1; i > 0; i--) {
            int j = (int)ts_range(r, 0, i), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        int64_t st = 1;
        for (int k = c->ndim - 1; k >= 0; k--) {
            int d = perm[k];
            c->strides[d] = ts_range(r, 0, 7) == 0 ? 0 : st;
            st *= c->shape[d] + ts_range(r, 0, 2);
        }
    }
}

op_status ts_xset_attrs(op_context *ctx, ts_xop op, const ts_xcase *c)
{
    op_status st = OP_OK;
    if (c->naxes >= 0) {
        if (ts_xop_is_arg(op))
            st = op_context_set_attr_int(ctx, "axis", c->axes[0]);
        else
            st = op_context_set_attr_ints(ctx, "axes", c->axes, (size_t)c->naxes);
    }
    if (st == OP_OK && c->keepdims >= 0)
        st = op_context_set_attr_int(ctx, "keepdims", c->keepdims);
    if (st == OP_OK && c->noop >= 0)
        st = op_context_set_attr_int(ctx, "noop_with_empty_axes", c->noop);
    if (st == OP_OK && c->select_last >= 0)
        st = op_context_set_attr_int(ctx, "select_last_index", c->select_last);
    return st;
}

uint32_t ts_xmask(ts_xop op, const ts_xcase *c)
{
    if (ts_xop_is_arg(op)) {
        int64_t a = c->naxes < 0 ? 0 : c->axes[0];
        return 1u << (a < 0 ? a + c->ndim : a);
    }
    if (c->naxes <= 0)
        return c->noop == 1 ? 0u : (uint32_t)((1ull << c->ndim) - 1);
    uint32_t m = 0;
    for (int i = 0; i < c->naxes; i++)
        m |= 1u << (c->axes[i] < 0 ? c->axes[i] + c->ndim : c->axes[i]);
    return m;
}

int64_t ts_xstorage_elems(const ts_xcase *c)
{
    return c->offset + ts_storage_elems(c->ndim, c->shape, c->compact ? NULL : c->strides);
}

void ts_xtensor(ts_tensor *x, const ts_xcase *c, void *data, DLDeviceType dev, DLDataType t)
{
    ts_tensor_init(x, data, dev, t, c->ndim, c->shape, c->compact ? NULL : c->strides);
    x->t.byte_offset = (uint64_t)c->offset * ts_dtype_size(t);
}

void ts_xfill(ts_rng *r, ts_xop op, void *base, DLDataType t, int64_t n, ts_xfill_mode mode)
{
    const bool isf = ts_dtype_is_float(t);
    for (int64_t i = 0; i < n; i++) {
        double v;
        if (mode == TS_XFILL_PLAIN && isf)
            v = op == TS_X_LOGSUM ? 1.0 - ts_uniform(r) : ts_uniform(r) * 2.0 - 1.0;
        else if (mode == TS_XFILL_PLAIN)
            v = (double)ts_range(r, -1000, 1000);
        else
            v = (double)ts_range(r, -3, 3) * (isf ? 0.5 : 1.0);
        if (mode == TS_XFILL_SPECIAL && isf) {
            int64_t k = ts_range(r, 0, 39);
            v = k == 0 ? NAN : k == 1 ? INFINITY : k == 2 ? -INFINITY : v;
        }
        ts_store(base, t, i, v);
    }
}

/* op over the m values of one output (in reduced-index order) */
static void ts_xreduce(ts_xop op, DLDataType t, bool select_last, const double *v,
                       const int64_t *iv, int64_t m, double *of, int64_t *oi)
{
    const bool isf = ts_dtype_is_float(t);
    if (ts_xop_is_arg(op)) {
        int64_t best = -1;
        for (int64_t k = 0; k < m; k++) {
            bool kn = isf && isnan(v[k]), bn = best >= 0 && isf && isnan(v[best]);
            if (best < 0) {
                best = k;
                continue;
            }
            if (bn) {
                if (kn && select_last)
                    best = k;
                continue;
            }
            if (kn) {
                best = k;
                continue;
            }
            bool better, tie;
            if (isf) {
                better = op == TS_X_ARGMAX ? v[k] > v[best] : v[k] < v[best];
                tie = v[k] == v[best];
            } else {
                better = op == TS_X_ARGMAX ? iv[k] > iv[best] : iv[k] < iv[best];
                tie = iv[k] == iv[best];
            }
            if (better || (tie && select_last))
                best = k;
        }
        *oi = best;
        return;
    }
    if (!isf) {
        uint64_t s = 0;
        for (int64_t k = 0; k < m; k++) {
            uint64_t x = (uint64_t)iv[k];
            s += op == TS_X_L1 ? (iv[k] < 0 ? 0 - x : x) : x * x;
        }
        int64_t res = op == TS_X_L2 ? (int64_t)sqrt((double)s) : (int64_t)s;
        *oi = t.bits == 32 ? (int64_t)(int32_t)(uint32_t)(uint64_t)res : res;
        return;
    }
    if (op == TS_X_LOGSUMEXP) {
        double mx = -INFINITY;
        bool nan = false;
        for (int64_t k = 0; k < m; k++) {
            nan = nan || isnan(v[k]);
            mx = v[k] > mx ? v[k] : mx;
        }
        if (nan || isinf(mx)) {
            *of = nan ? NAN : mx;
            return;
        }
        long double s = 0;
        for (int64_t k = 0; k < m; k++)
            s += expl((long double)v[k] - mx);
        *of = (double)((long double)mx + logl(s));
        return;
    }
    long double s = 0;
    for (int64_t k = 0; k < m; k++)
        s += op == TS_X_L1 ? fabsl(v[k]) : op == TS_X_LOGSUM ? v[k] : (long double)v[k] * v[k];
    *of = op == TS_X_L2 ? (double)sqrtl(s) : op == TS_X_LOGSUM ? (double)logl(s) : (double)s;
}

int64_t ts_xreference(ts_xop op, const DLTensor *x, uint32_t mask, bool select_last, double *out_f,
                      int64_t *out_i)
{
    const int nd = x->ndim;
    int64_t istride[16], kshape[16], kst[16], rshape[16], rst[16], nout = 1, nred = 1;
    int nk = 0, nr = 0;
    for (int i = nd - 1; i >= 0; i--)
        istride[i] =
            x->strides ? x->strides[i] : (i == nd - 1 ? 1 : istride[i + 1] * x->shape[i + 1]);
    for (int i = 0; i < nd; i++) {
        if (mask & (1u << i)) {
            rshape[nr] = x->shape[i];
            rst[nr++] = istride[i];
            nred *= x->shape[i];
        } else {
            kshape[nk] = x->shape[i];
            kst[nk++] = istride[i];
            nout *= x->shape[i];
        }
    }
    double *v = malloc((size_t)(nred ? nred : 1) * sizeof(double));
    int64_t *iv = malloc((size_t)(nred ? nred : 1) * sizeof(int64_t));
    if (!v || !iv) {
        free(v);
        free(iv);
        return -1;
    }
    const char *base = (const char *)x->data + x->byte_offset;
    for (int64_t o = 0; o < nout; o++) {
        int64_t off = 0, k = o;
        for (int i = nk - 1; i >= 0; i--) {
            off += (k % kshape[i]) * kst[i];
            k /= kshape[i];
        }
        for (int64_t f = 0; f < nred; f++) {
            int64_t e = off, q = f;
            for (int i = nr - 1; i >= 0; i--) {
                e += (q % rshape[i]) * rst[i];
                q /= rshape[i];
            }
            if (ts_dtype_is_float(x->dtype))
                v[f] = ts_load(base, x->dtype, e);
            else
                iv[f] = ts_load_int(base, x->dtype, e);
        }
        ts_xreduce(op, x->dtype, select_last, v, iv, nred, &out_f[o], &out_i[o]);
    }
    free(v);
    free(iv);
    return nout;
}

bool ts_xcheck(const char *what, ts_xop op, const void *out, DLDataType t, int64_t n,
               const double *ref_f, const int64_t *ref_i)
{
    const bool ints = ts_xop_is_arg(op) || !ts_dtype_is_float(t);
    /* f32 accumulates in f32 leaves of <= 128 terms then a tree: well within 2e-5 relative on
     * these sums of like-signed terms; f16/bf16 outputs may differ from the rounded reference by
     * one unit in the last place; the logs turn the sum's relative error into an absolute one */
    double rtol = 2e-5, atol = 2e-5;
    if (t.code == kDLFloat && t.bits == 64)
        rtol = 1e-12, atol = 1e-12;
    else if (t.code == kDLFloat && t.bits == 16)
        rtol = 2e-3;
    else if (t.code == kDLBfloat)
        rtol = 1.6e-2;
    if (op != TS_X_LOGSUM && op != TS_X_LOGSUMEXP)
        atol = 1e-300;
    for (int64_t i = 0; i < n; i++) {
        if (ints) {
            DLDataType it = ts_xop_is_arg(op) ? (DLDataType){kDLInt, 64, 1} : t;
            int64_t got = ts_load_int(out, it, i);
            if (got != ref_i[i]) {
                printf("%s: output %lld is %lld, expected %lld\n", what, (long long)i,
                       (long long)got, (long long)ref_i[i]);
                return false;
            }
            continue;
        }
        double got = ts_load(out, t, i), want = ref_f[i], wr = ts_round_to(t, want);
        if (isnan(want) || isnan(got) || isinf(wr) || isinf(got)) {
            if ((isnan(want) && isnan(got)) || got == wr)
                continue;
            printf("%s: output %lld is %.9g, expected %.9g\n", what, (long long)i, got, want);
            return false;
        }
        double tol = fabs(want) * rtol + atol;
        if (fabs(got - wr) > tol) {
            printf("%s: output %lld is %.9g, expected %.9g (tolerance %.3g)\n", what, (long long)i,
                   got, want, tol);
            return false;
        }
    }
    return true;
}
