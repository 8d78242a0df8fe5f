/* The tool's float64 reference: seeded random inputs, dtype conversions, a naive reduction over a
 * compact tensor that knows every rule of DESIGN.md's "Reduce semantics", and the comparison.
 * It is independent of the library's planner and kernels on purpose. */
#include "tool.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- random numbers --- */

uint64_t tool_rng_next(tool_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double tool_rng_uniform(tool_rng *r)
{
    return (double)(tool_rng_next(r) >> 11) * 0x1.0p-53;
}

/* --- 16-bit floats (round to nearest even) --- */

static uint16_t f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) /* inf or NaN */
        return (uint16_t)(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0));
    if (absx >= 0x477ff000u) /* rounds to 65520 or more: inf */
        return (uint16_t)(sign | 0x7c00u);
    if (absx < 0x38800000u) { /* below the smallest normal f16: a multiple of 2^-24 */
        float a;
        memcpy(&a, &absx, 4);
        return (uint16_t)(sign | (uint32_t)lrintf(a * 16777216.0f));
    }
    uint32_t mant = absx & 0x7fffffu;
    uint32_t h = (((absx >> 23) - 127 + 15) << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
        h++; /* a carry into the exponent is the right result */
    return (uint16_t)(sign | h);
}

static float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    float f;
    if (exp == 0) {
        f = (float)mant * 0x1.0p-24f;
        return sign ? -f : f;
    }
    uint32_t x = exp == 0x1f ? sign | 0x7f800000u | (mant << 13)
                             : sign | ((exp - 15 + 127) << 23) | (mant << 13);
    memcpy(&f, &x, 4);
    return f;
}

static uint16_t f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u); /* keep NaN a NaN */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

static float bf16_to_f32(uint16_t h)
{
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* --- dtypes --- */

static const struct {
    const char *name, *alias;
    uint8_t code, bits;
} dtypes[] = {
    {"f32", "float32", kDLFloat, 32}, {"f64", "float64", kDLFloat, 64},
    {"f16", "float16", kDLFloat, 16}, {"bf16", "bfloat16", kDLBfloat, 16},
    {"i32", "int32", kDLInt, 32},     {"i64", "int64", kDLInt, 64},
};

void tool_dims_str(char *buf, size_t len, bool brackets, size_t n, const int64_t *v)
{
    size_t at = (size_t)snprintf(buf, len, "%s", brackets ? "[" : "");
    for (size_t i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%lld", i ? "," : "", (long long)v[i]);
    if (brackets && at < len)
        snprintf(buf + at, len - at, "]");
}

double tool_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "128,256,56,56" -> v; "" is an empty list. */
bool tool_parse_ints(const char *s, int64_t *v, size_t cap, size_t *n)
{
    *n = 0;
    if (*s == '\0')
        return true;
    for (;;) {
        char *end;
        errno = 0;
        long long x = strtoll(s, &end, 10);
        if (end == s || errno || *n == cap)
            return false;
        v[(*n)++] = x;
        if (*end == '\0')
            return true;
        if (*end != ',')
            return false;
        s = end + 1;
    }
}

bool tool_dtype_parse(const char *s, DLDataType *out)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
        if (strcmp(s, dtypes[i].name) == 0 || strcmp(s, dtypes[i].alias) == 0) {
            *out = (DLDataType){dtypes[i].code, dtypes[i].bits, 1};
            return true;
        }
    }
    return false;
}

const char *tool_dtype_name(DLDataType t, char *buf, size_t len)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
        if (t.code == dtypes[i].code && t.bits == dtypes[i].bits && t.lanes == 1)
            return dtypes[i].name;
    }
    static const char *const codes[] = {"i", "u", "f", "opaque", "bf", "c", "bool"};
    if (t.lanes == 1 && t.code < sizeof codes / sizeof codes[0])
        snprintf(buf, len, "%s%u", codes[t.code], (unsigned)t.bits);
    else
        snprintf(buf, len, "dt(%u,%u,%u)", (unsigned)t.code, (unsigned)t.bits, (unsigned)t.lanes);
    return buf;
}

size_t tool_dtype_size(DLDataType t)
{
    char buf[32];
    if (t.lanes != 1 || tool_dtype_name(t, buf, sizeof buf) == buf)
        return 0;
    return t.bits / 8u;
}

bool tool_dtype_is_int(DLDataType t)
{
    return t.code == kDLInt;
}

const char *tool_device_name(DLDeviceType d)
{
    switch (d) {
    case kDLCPU:
        return "cpu";
    case kDLCUDA:
        return "cuda";
    case kDLCUDAHost:
        return "cuda_host";
    case kDLCUDAManaged:
        return "cuda_managed";
    default:
        return "other";
    }
}

double tool_load(const void *base, DLDataType t, int64_t i)
{
    if (t.code == kDLBfloat)
        return bf16_to_f32(((const uint16_t *)base)[i]);
    if (t.code == kDLInt)
        return (double)tool_load_int(base, t, i);
    switch (t.bits) {
    case 16:
        return f16_to_f32(((const uint16_t *)base)[i]);
    case 32:
        return ((const float *)base)[i];
    default:
        return ((const double *)base)[i];
    }
}

int64_t tool_load_int(const void *base, DLDataType t, int64_t i)
{
    return t.bits == 32 ? ((const int32_t *)base)[i] : ((const int64_t *)base)[i];
}

void tool_store(void *base, DLDataType t, int64_t i, double v)
{
    if (t.code == kDLBfloat) {
        ((uint16_t *)base)[i] = f32_to_bf16((float)v);
    } else if (t.code == kDLInt) {
        if (t.bits == 32)
            ((int32_t *)base)[i] = (int32_t)v;
        else
            ((int64_t *)base)[i] = (int64_t)v;
    } else if (t.bits == 16) {
        ((uint16_t *)base)[i] = f32_to_f16((float)v);
    } else if (t.bits == 32) {
        ((float *)base)[i] = (float)v;
    } else {
        ((double *)base)[i] = v;
    }
}

/* --- the ops the reference knows --- */

typedef enum ref_kind {
    REF_SUM,
    REF_MEAN,
    REF_MAX,
    REF_MIN,
    REF_PROD,
    REF_L1,
    REF_L2,
    REF_SUMSQ,
    REF_LOGSUM,
    REF_LOGSUMEXP,
    REF_ARGMAX,
    REF_ARGMIN,
} ref_kind;

static const struct {
    const char *name;
    ref_kind kind;
} ref_ops[] = {
    {"ReduceSum", REF_SUM},       {"ReduceMean", REF_MEAN},
    {"ReduceMax", REF_MAX},       {"ReduceMin", REF_MIN},
    {"ReduceProd", REF_PROD},     {"ReduceL1", REF_L1},
    {"ReduceL2", REF_L2},         {"ReduceSumSquare", REF_SUMSQ},
    {"ReduceLogSum", REF_LOGSUM}, {"ReduceLogSumExp", REF_LOGSUMEXP},
    {"ArgMax", REF_ARGMAX},       {"ArgMin", REF_ARGMIN},
};

static bool ref_kind_of(const char *op, ref_kind *k)
{
    for (size_t i = 0; i < sizeof ref_ops / sizeof ref_ops[0]; i++) {
        if (strcmp(op, ref_ops[i].name) == 0) {
            *k = ref_ops[i].kind;
            return true;
        }
    }
    return false;
}

bool tool_reference_knows(const char *op)
{
    ref_kind k;
    return ref_kind_of(op, &k);
}

void tool_fill_random(uint64_t seed, const char *op, void *base, DLDataType t, int64_t n)
{
    tool_rng r = {seed};
    ref_kind k = REF_SUM;
    (void)ref_kind_of(op, &k);
    if (tool_dtype_is_int(t)) {
        /* Products of small integers wrap quickly; that is fine, the reference wraps too. */
        int64_t span = k == REF_PROD ? 3 : 1000;
        for (int64_t i = 0; i < n; i++)
            tool_store(base, t, i,
                       (double)((int64_t)(tool_rng_next(&r) % (uint64_t)(2 * span + 1)) - span));
        return;
    }
    double lo = -1.0, hi = 1.0;
    if (k == REF_PROD) { /* a product of thousands of factors must stay finite and non-zero */
        lo = 0.995;
        hi = 1.005;
    } else if (k == REF_LOGSUM) { /* log of a sum: keep the sum positive */
        lo = 0.0;
    }
    for (int64_t i = 0; i < n; i++)
        tool_store(base, t, i, lo + (hi - lo) * tool_rng_uniform(&r));
}

/* --- the reduction --- */

static void load_run_f(const void *in, DLDataType t, int64_t start, int64_t len, double *buf)
{
    if (t.code == kDLFloat && t.bits == 32) {
        const float *p = (const float *)in + start;
        for (int64_t j = 0; j < len; j++)
            buf[j] = p[j];
    } else if (t.code == kDLFloat && t.bits == 64) {
        memcpy(buf, (const double *)in + start, (size_t)len * sizeof(double));
    } else {
        for (int64_t j = 0; j < len; j++)
            buf[j] = tool_load(in, t, start + j);
    }
}

static void load_run_i(const void *in, DLDataType t, int64_t start, int64_t len, int64_t *buf)
{
    for (int64_t j = 0; j < len; j++)
        buf[j] = tool_load_int(in, t, start + j);
}

static int64_t wrap_to(DLDataType t, uint64_t v)
{
    return t.bits == 32 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

/* The reduction's geometry: which dims are reduced, where each input lands. */
typedef struct ref_geom {
    int32_t ndim;
    int64_t shape[OP_MAX_DIMS];
    int64_t ostride[OP_MAX_DIMS]; /* 0 for a reduced dim */
    int axis;                     /* ArgMax/ArgMin */
    int64_t nout, nred;
} ref_geom;

static bool ref_geometry(const tool_reduce_args *a, ref_kind k, ref_geom *g, char *err,
                         size_t err_len)
{
    uint32_t mask = 0;
    int32_t r = a->ndim;
    if (r < 0 || r > OP_MAX_DIMS) {
        snprintf(err, err_len, "rank %d not in [0, %d]", (int)r, OP_MAX_DIMS);
        return false;
    }
    if (k == REF_ARGMAX || k == REF_ARGMIN) {
        if (a->has_axes && a->naxes != 1) {
            snprintf(err, err_len, "%s takes one axis, got %zu", a->op, a->naxes);
            return false;
        }
        int64_t ax = a->has_axes ? a->axes[0] : 0;
        if (r == 0 || ax < -r || ax >= r) {
            snprintf(err, err_len, "axis %lld out of range for rank %d", (long long)ax, (int)r);
            return false;
        }
        g->axis = (int)(ax < 0 ? ax + r : ax);
        mask = 1u << g->axis;
    } else if (a->has_axes && a->naxes > 0) {
        for (size_t i = 0; i < a->naxes; i++) {
            int64_t ax = a->axes[i];
            if (ax < -r || ax >= r) {
                snprintf(err, err_len, "axis %lld out of range for rank %d", (long long)ax, (int)r);
                return false;
            }
            uint32_t bit = 1u << (ax < 0 ? ax + r : ax);
            if (mask & bit) {
                snprintf(err, err_len, "duplicate axis %lld", (long long)ax);
                return false;
            }
            mask |= bit;
        }
    } else {
        mask = a->noop == 1 ? 0u : (r ? (uint32_t)((1ull << r) - 1) : 0u);
    }

    g->ndim = r;
    g->nout = 1;
    g->nred = 1;
    for (int d = r - 1; d >= 0; d--) {
        g->shape[d] = a->shape[d];
        if (mask & (1u << d)) {
            g->ostride[d] = 0;
            g->nred *= a->shape[d];
        } else {
            g->ostride[d] = g->nout;
            g->nout *= a->shape[d];
        }
    }
    if (r == 0) { /* a scalar: one element, one output */
        g->ndim = 1;
        g->shape[0] = 1;
        g->ostride[0] = 0;
    }
    return true;
}

/* Calls visit(state, in_start, len, out_start, out_step, idx) for each run of the last dim,
 * in memory order; idx holds the multi-index of the run's first element. */
typedef void (*ref_visit_fn)(void *state, int64_t start, int64_t len, int64_t o, int64_t ostep,
                             const int64_t *idx);

static void ref_walk(const ref_geom *g, ref_visit_fn visit, void *state)
{
    int64_t idx[OP_MAX_DIMS] = {0};
    int last = g->ndim - 1;
    int64_t len = g->shape[last];
    for (int d = 0; d < g->ndim; d++) {
        if (g->shape[d] == 0)
            return;
    }
    int64_t start = 0, o = 0;
    for (;;) {
        visit(state, start, len, o, g->ostride[last], idx);
        start += len;
        int d = last - 1;
        for (; d >= 0; d--) {
            o += g->ostride[d];
            if (++idx[d] < g->shape[d])
                break;
            o -= g->ostride[d] * g->shape[d];
            idx[d] = 0;
        }
        if (d < 0)
            return;
    }
}

typedef struct ref_state {
    ref_kind kind;
    const ref_geom *g;
    const void *in;
    DLDataType t;
    bool is_int;
    bool select_last;
    bool second_pass; /* LogSumExp: the sum of exp(x - max) */
    double *f, *m;    /* accumulator and magnitude (or max, for LogSumExp) */
    int64_t *i;       /* integer accumulator, or ArgMax/ArgMin index */
    double *fbuf;
    int64_t *ibuf;
} ref_state;

static void ref_visit(void *state, int64_t start, int64_t len, int64_t o, int64_t ostep,
                      const int64_t *idx)
{
    ref_state *s = state;
    bool along = s->g->axis == s->g->ndim - 1; /* ArgMax axis is the last dim */
    if (s->is_int) {
        int64_t *x = s->ibuf;
        uint64_t *acc = (uint64_t *)s->i;
        load_run_i(s->in, s->t, start, len, x);
        for (int64_t j = 0; j < len; j++, o += ostep) {
            switch (s->kind) {
            case REF_SUM:
            case REF_MEAN:
                acc[o] += (uint64_t)x[j];
                break;
            case REF_L1:
                acc[o] += x[j] < 0 ? 0u - (uint64_t)x[j] : (uint64_t)x[j];
                break;
            case REF_SUMSQ:
                acc[o] += (uint64_t)x[j] * (uint64_t)x[j];
                break;
            case REF_PROD:
                acc[o] *= (uint64_t)x[j];
                break;
            case REF_MAX:
                if (x[j] > (int64_t)acc[o])
                    acc[o] = (uint64_t)x[j];
                break;
            case REF_MIN:
                if (x[j] < (int64_t)acc[o])
                    acc[o] = (uint64_t)x[j];
                break;
            case REF_ARGMAX:
            case REF_ARGMIN: {
                int64_t pos = along ? j : idx[s->g->axis];
                double v = (double)x[j], best = s->f[o];
                bool better = s->kind == REF_ARGMAX ? v > best : v < best;
                if (s->i[o] < 0 || better || (s->select_last && v == best)) {
                    s->f[o] = v;
                    s->i[o] = pos;
                }
                break;
            }
            default:
                break;
            }
        }
        return;
    }

    double *x = s->fbuf;
    double *f = s->f, *m = s->m;
    load_run_f(s->in, s->t, start, len, x);
    for (int64_t j = 0; j < len; j++, o += ostep) {
        double v = x[j];
        switch (s->kind) {
        case REF_SUM:
        case REF_MEAN:
        case REF_LOGSUM:
            f[o] += v;
            m[o] += fabs(v);
            break;
        case REF_L1:
            f[o] += fabs(v);
            break;
        case REF_L2:
        case REF_SUMSQ:
            f[o] += v * v;
            break;
        case REF_PROD:
            f[o] *= v;
            break;
        case REF_MAX: /* NaN wins wherever it is */
            if (v > f[o] || isnan(v))
                f[o] = isnan(f[o]) ? f[o] : v;
            break;
        case REF_MIN:
            if (v < f[o] || isnan(v))
                f[o] = isnan(f[o]) ? f[o] : v;
            break;
        case REF_LOGSUMEXP:
            if (!s->second_pass) {
                if (v > m[o] || isnan(v))
                    m[o] = isnan(m[o]) ? m[o] : v;
            } else if (!isinf(m[o])) {
                f[o] += exp(v - m[o]);
            }
            break;
        case REF_ARGMAX:
        case REF_ARGMIN: {
            /* The first NaN wins (the last with select_last_index); ties likewise. */
            int64_t pos = along ? j : idx[s->g->axis];
            double best = f[o];
            bool take;
            if (s->i[o] < 0)
                take = true;
            else if (isnan(best))
                take = isnan(v) && s->select_last;
            else if (isnan(v))
                take = true;
            else if (v == best)
                take = s->select_last;
            else
                take = s->kind == REF_ARGMAX ? v > best : v < best;
            if (take) {
                f[o] = v;
                s->i[o] = pos;
            }
            break;
        }
        }
    }
}

/* Accumulation error allowance: a tree or blocked sum of N terms stays well inside
 * (8 + 2 log2 N) eps times the sum of magnitudes. */
static double tol_factor(int64_t n)
{
    return 8.0 + 2.0 * log2((double)(n > 1 ? n : 1));
}

bool tool_reference(const tool_reduce_args *a, const void *in, DLDataType t, int64_t nout,
                    double *ref_f, double *tol, int64_t *ref_i, char *err, size_t err_len)
{
    ref_kind k;
    ref_geom g = {.axis = -1};
    if (!ref_kind_of(a->op, &k)) {
        snprintf(err, err_len, "no reference for %s", a->op);
        return false;
    }
    if (!ref_geometry(a, k, &g, err, err_len))
        return false;
    if (g.nout != nout) {
        snprintf(err, err_len, "the reference has %lld outputs, the op %lld", (long long)g.nout,
                 (long long)nout);
        return false;
    }
    bool is_int = tool_dtype_is_int(t);
    bool is_arg = k == REF_ARGMAX || k == REF_ARGMIN;
    if (is_int && (k == REF_L2 || k == REF_LOGSUM || k == REF_LOGSUMEXP)) {
        snprintf(err, err_len, "no integer reference for %s", a->op);
        return false;
    }
    if (g.nred == 0 && ((is_int && k == REF_MEAN) || is_arg)) {
        snprintf(err, err_len, "%s of an empty set is an error", a->op);
        return false;
    }

    ref_state s = {.kind = k,
                   .g = &g,
                   .in = in,
                   .t = t,
                   .is_int = is_int,
                   .select_last = a->select_last == 1,
                   .f = ref_f,
                   .m = tol,
                   .i = ref_i};
    s.fbuf = malloc((size_t)g.shape[g.ndim - 1] * sizeof(double) + 1);
    s.ibuf = malloc((size_t)g.shape[g.ndim - 1] * sizeof(int64_t) + 1);
    if (!s.fbuf || !s.ibuf) {
        free(s.fbuf);
        free(s.ibuf);
        snprintf(err, err_len, "out of memory");
        return false;
    }

    /* identities: Max starts from -inf (integer minimum), never from 0 */
    for (int64_t o = 0; o < nout; o++) {
        tol[o] = 0.0;
        ref_f[o] = 0.0;
        if (is_int) {
            int64_t lo = t.bits == 32 ? INT32_MIN : INT64_MIN;
            int64_t hi = t.bits == 32 ? INT32_MAX : INT64_MAX;
            ref_i[o] = k == REF_PROD ? 1 : k == REF_MAX ? lo : k == REF_MIN ? hi : 0;
        }
        if (k == REF_PROD)
            ref_f[o] = 1.0;
        else if (k == REF_MAX)
            ref_f[o] = -INFINITY;
        else if (k == REF_MIN)
            ref_f[o] = INFINITY;
        else if (k == REF_LOGSUMEXP)
            tol[o] = -INFINITY; /* the running max */
        if (is_arg)
            ref_i[o] = -1;
    }
    ref_walk(&g, ref_visit, &s);
    if (k == REF_LOGSUMEXP && !is_int) {
        s.second_pass = true;
        ref_walk(&g, ref_visit, &s);
    }
    free(s.fbuf);
    free(s.ibuf);

    if (is_arg)
        return true;
    if (is_int) {
        for (int64_t o = 0; o < nout; o++) {
            int64_t v = ref_i[o];
            if (k == REF_MEAN)
                v /= g.nred; /* truncates toward zero */
            ref_i[o] = wrap_to(t, (uint64_t)v);
        }
        return true;
    }

    bool wide = t.code == kDLFloat && t.bits == 64;
    double eps_acc = wide ? 0x1.0p-52 : 0x1.0p-23; /* fp16/bf16 accumulate in fp32 */
    double eps_out = wide                  ? 0x1.0p-52
                     : t.code == kDLBfloat ? 0x1.0p-7
                     : t.bits == 16        ? 0x1.0p-10
                                           : 0x1.0p-23;
    double kf = tol_factor(g.nred) * eps_acc;
    double n = (double)g.nred;
    for (int64_t o = 0; o < nout; o++) {
        double r = ref_f[o], m = tol[o], e;
        switch (k) {
        case REF_SUM:
            e = kf * m;
            break;
        case REF_MEAN: /* the mean of an empty set is NaN */
            r = g.nred ? r / n : NAN;
            e = g.nred ? kf * m / n : 0.0;
            break;
        case REF_L1:
        case REF_SUMSQ:
            e = kf * r;
            break;
        case REF_L2:
            r = sqrt(r);
            e = kf * r;
            break;
        case REF_PROD:
            e = (tol_factor(g.nred) + n) * eps_acc * fabs(r);
            break;
        case REF_LOGSUM: /* d log s = ds / s */
            e = r != 0.0 ? kf * m / fabs(r) : 0.0;
            r = log(r);
            break;
        case REF_LOGSUMEXP:
            r = g.nred == 0 || isinf(m) || isnan(m) ? (g.nred ? m : -INFINITY) : m + log(r);
            e = kf * (1.0 + fabs(m));
            break;
        default: /* Max and Min are exact */
            e = 0.0;
            break;
        }
        ref_f[o] = r;
        tol[o] = e + (isfinite(r) ? eps_out * fabs(r) : 0.0);
    }
    return true;
}

void tool_compare(const void *out, DLDataType t, int64_t nout, const double *ref_f,
                  const double *tol, const int64_t *ref_i, tool_compare_result *res)
{
    double max_ref = 0.0;
    *res = (tool_compare_result){.first_bad = -1};
    for (int64_t o = 0; o < nout; o++) {
        double got, want, err;
        bool ok;
        if (ref_i) {
            int64_t gi = tool_load_int(out, t, o);
            got = (double)gi;
            want = (double)ref_i[o];
            ok = gi == ref_i[o];
            err = fabs(got - want);
        } else {
            got = tool_load(out, t, o);
            want = ref_f[o];
            if (isnan(want) || isnan(got)) {
                ok = isnan(want) && isnan(got);
                err = ok ? 0.0 : INFINITY;
            } else if (isinf(want) || isinf(got)) {
                ok = got == want;
                err = ok ? 0.0 : INFINITY;
            } else {
                err = fabs(got - want);
                ok = err <= tol[o];
            }
        }
        if (err > res->max_abs)
            res->max_abs = err;
        if (isfinite(want) && fabs(want) > max_ref)
            max_ref = fabs(want);
        if (!ok) {
            if (res->bad++ == 0) {
                res->first_bad = o;
                res->first_out = got;
                res->first_ref = want;
            }
        }
    }
    /* norm-wise: a sum that cancels to ~0 has no meaningful element-wise relative error */
    res->max_rel = max_ref > 0.0 && isfinite(res->max_abs) ? res->max_abs / max_ref : 0.0;
}
