/* `opnn bench`: the benchmark suite of DESIGN.md, through the public API only (op_context_*,
 * op_run), so it measures what users get.
 *
 * CUDA: each case is timed with CUDA events around back-to-back op_run calls, the median of >= 20
 * after a warm-up; the calls and events are enqueued behind a kernel that holds the stream until
 * all are in (bench_cuda_hold), so the GPU runs them back to back and a call's time is the GPU's,
 * not the host's submission rate (which the small cases' host loop shows). Inputs smaller than
 * 4x the L2 are rotated among several buffers. Bytes are input + output. The read ceiling is a
 * read-only streaming kernel (tools/bench_cuda.cu) over 1 GiB, measured in the same run (the
 * best of its variants and grid sizes), and a device-to-device copy is reported beside it; each
 * case is also measured against the same kernel reading its own input bytes from the same
 * buffers ("of read at size": what memory allows for an input that size, launch included). Small
 * cases print microseconds per call, event-timed and as a host loop of 10000 op_run calls.
 * CPU: wall-clock timing around each op_run, the median of >= 10 after a warm-up; inputs under
 * 2x the last-level cache are rotated. The ceiling is a streaming read with all OpenMP threads
 * (cpu_ceiling), measured in the same run; the machine is described from /proc/cpuinfo. */
#include "tool.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(_OPENMP)
#include <omp.h>
#endif

#if defined(OPNN_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "bench_cuda.h"
#endif

#define BENCH_MAX_CASES 64 /* suite cases named with --case */
#define BENCH_MAX_FILE_CASES 1024
/* A --shapes line: its characters, its newline and a NUL */
#define BENCH_LINE_BYTES 512
#define BENCH_HOST_LOOP 10000

typedef struct bench_case {
    char name[32];
    int32_t ndim;
    int64_t shape[OP_MAX_DIMS];
    size_t naxes;
    int64_t axes[OP_MAX_DIMS];
    bool all_axes; /* no axes attribute: reduce everything */
    DLDataType dtype;
    bool small;     /* report microseconds per call */
    bool mean_max;  /* also ReduceMean and ReduceMax */
    const char *op; /* custom case: the one op; NULL: the suite's ops */
    bool from_file; /* a line of --shapes: its results are printed after "[S] axes [A] D: " */
} bench_case;

typedef struct bench_result {
    const char *op;
    double time_us;       /* median per call, event-timed (CUDA) or wall-clock (CPU) */
    double gbps;          /* (input + output bytes) / time */
    double fraction;      /* of the read ceiling */
    double size_gbps;     /* the read kernel over the input's bytes (CUDA; 0 if not measured) */
    double size_fraction; /* gbps / size_gbps: bytes counted as for the ceiling (input + output
                             for the call, input for the read), only the reference differs */
    bool host_bound;      /* the hold timed out: some calls waited for the host (CUDA) */
    double host_us;       /* small cases: host loop, per call */
    int host_calls;       /* calls in that loop */
    int status;           /* op_status of the first failure, 0 if none */
    char msg[1024];
} bench_result;

static const char bench_usage[] =
    "usage: opnn bench [--device cuda|cpu] [--json FILE] [--case NAME]...\n"
    "                  [--op OP --shape D0,D1,... [--axes A,...] [--dtype T]]\n"
    "                  [--op OP --case NAME...]   (OP on the named suite cases)\n"
    "                  [[--op OP] --shapes FILE]   (OP, default ReduceSum, on each line's shape)\n"
    "                  [--iters N] [--warmup N] [--list]\n"
    "  Runs the benchmark suite (or the named cases, or custom cases) and prints per case the\n"
    "  time, GB/s (input + output bytes) and the fraction of the read ceiling measured in the\n"
    "  same run; small cases print microseconds per call (event-timed and host loop).\n"
    "  FILE has one custom case a line, 'D0,D1,... A0,A1,...|all DTYPE' ('#' starts a comment,\n"
    "  as in bench/offsuite_shapes.txt); each result line starts with '[S] axes [A] DTYPE: '.\n";

/* --- the suite (DESIGN.md) ----------------------------------------------------------------- */

typedef struct suite_entry {
    const char *name;
    int32_t ndim;
    int64_t shape[4];
    int naxes; /* -1: all */
    int64_t axes[3];
    const char *dtype;
    bool mean_max, small;
} suite_entry;

static const suite_entry suite[] = {
    {"full", 1, {268435456}, -1, {0}, "f32", true, false},
    {"row_wide", 2, {16384, 16384}, 1, {1}, "f32", true, false},
    {"row_mid", 2, {1048576, 256}, 1, {1}, "f32", false, false},
    {"row_tiny", 2, {16777216, 16}, 1, {1}, "f32", false, false},
    {"col_wide", 2, {16384, 16384}, 1, {0}, "f32", true, false},
    {"col_narrow", 2, {16777216, 16}, 1, {0}, "f32", false, false},
    {"col_short", 2, {16, 16777216}, 1, {0}, "f32", false, false},
    {"seed_hw", 4, {128, 256, 56, 56}, 2, {2, 3}, "f32", true, false},
    {"bn_nhw", 4, {128, 256, 56, 56}, 3, {0, 2, 3}, "f32", true, false},
    {"middle", 3, {64, 4096, 1024}, 1, {1}, "f32", false, false},
    {"row_wide16", 2, {16384, 16384}, 1, {1}, "f16", false, false},
    {"full_bf16", 1, {536870912}, -1, {0}, "bf16", false, false},
    {"col_wide16", 2, {16384, 16384}, 1, {0}, "bf16", false, false},
    {"small_full", 1, {4096}, -1, {0}, "f32", false, true},
    {"small_rows", 2, {64, 1024}, 1, {1}, "f32", false, true},
};
#define SUITE_SIZE (sizeof suite / sizeof suite[0])

static void case_from_suite(bench_case *c, const suite_entry *e)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", e->name);
    c->ndim = e->ndim;
    memcpy(c->shape, e->shape, sizeof(int64_t) * (size_t)e->ndim);
    c->all_axes = e->naxes < 0;
    c->naxes = e->naxes < 0 ? 0 : (size_t)e->naxes;
    memcpy(c->axes, e->axes, sizeof(int64_t) * c->naxes);
    tool_dtype_parse(e->dtype, &c->dtype);
    c->small = e->small;
    c->mean_max = e->mean_max;
}

static int64_t case_numel(const bench_case *c)
{
    int64_t n = 1;
    for (int32_t i = 0; i < c->ndim; i++)
        n *= c->shape[i];
    return n;
}

/* True if op has an integer attribute "axis" and no "axes" (ArgMax, ArgMin). */
static bool op_takes_axis(const char *op)
{
    op_info info;
    bool axis = false, axes = false;
    if (op_describe(op, &info) != OP_OK)
        return false;
    for (size_t i = 0; i < info.num_attrs; i++) {
        axis = axis || !strcmp(info.attrs[i].name, "axis");
        axes = axes || !strcmp(info.attrs[i].name, "axes");
    }
    return axis && !axes;
}

/* c = a custom case of op on shape, axes (NULL or "all": every axis) and dtype; nonzero with a
 * message on stderr naming the bad value: `where` is a file's "path:line: ", or NULL for the
 * command line (the messages then name its options). Small: under 1 MB of input. */
static int custom_case(bench_case *c, const char *op, const char *shape, const char *axes,
                       const char *dtype, const char *where)
{
    const char *pre = where ? where : "", *sn = where ? "shape" : "--shape";
    const char *an = where ? "axes" : "--axes", *dn = where ? "dtype" : "--dtype";
    size_t nd = 0;
    int64_t numel = 1;
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "custom");
    c->op = op ? op : "ReduceSum";
    if (!shape || !tool_parse_ints(shape, c->shape, OP_MAX_DIMS, &nd) || nd == 0) {
        fprintf(stderr, "opnn bench: %sbad %s %s (D0,D1,..., at most %d dims)\n", pre, sn,
                shape ? shape : "''", OP_MAX_DIMS);
        return 2;
    }
    c->ndim = (int32_t)nd;
    for (size_t i = 0; i < nd; i++)
        if (c->shape[i] < 0 || __builtin_mul_overflow(numel, c->shape[i], &numel)) {
            fprintf(stderr, "opnn bench: %sbad %s %s (%s)\n", pre, sn, shape,
                    c->shape[i] < 0 ? "a negative dimension" : "more than 2^63 elements");
            return 2;
        }
    if (axes && strcmp(axes, "all")) {
        uint32_t seen = 0;
        if (!tool_parse_ints(axes, c->axes, OP_MAX_DIMS, &c->naxes)) {
            fprintf(stderr, "opnn bench: %sbad %s %s (A0,A1,... or all)\n", pre, an, axes);
            return 2;
        }
        for (size_t i = 0; i < c->naxes; i++) {
            const int64_t a = c->axes[i] < 0 ? c->axes[i] + (int64_t)nd : c->axes[i];
            if (a < 0 || a >= (int64_t)nd || (seen & (1u << a))) {
                fprintf(stderr, "opnn bench: %sbad %s %s for %zu dims (axis %lld %s)\n", pre, an,
                        axes, nd, (long long)c->axes[i],
                        a < 0 || a >= (int64_t)nd ? "out of range" : "repeated");
                return 2;
            }
            seen |= 1u << a;
        }
        if (c->naxes == 0 && op_takes_axis(c->op)) { /* ArgMax: one axis, or "all" of 1-D */
            fprintf(stderr, "opnn bench: %sbad %s '' for %s (it reduces one axis)\n", pre, an,
                    c->op);
            return 2;
        }
    } else {
        c->all_axes = true;
    }
    if (!tool_dtype_parse(dtype, &c->dtype)) {
        fprintf(stderr, "opnn bench: %sunknown %s %s\n", pre, dn, dtype);
        return 2;
    }
    /* the input's bytes must count in int64 too: they size the buffers the fill writes */
    if (__builtin_mul_overflow(numel, (int64_t)tool_dtype_size(c->dtype), &numel)) {
        fprintf(stderr, "opnn bench: %sbad %s %s (more than 2^63 bytes of %s)\n", pre, sn, shape,
                dtype);
        return 2;
    }
    c->small = (size_t)case_numel(c) * tool_dtype_size(c->dtype) < ((size_t)1 << 20);
    return 0;
}

/* Appends the cases of path's lines (see bench_usage) to cases[*n], at most `max` of them;
 * nonzero with a message on stderr naming the file, the line and the bad value (2), or why the
 * file could not be read (1). */
static int file_cases(const char *path, const char *op, bench_case *cases, size_t *n, size_t max)
{
    const size_t wlen = strlen(path) + 32;
    char *where = malloc(wlen), *line = NULL;
    size_t cap = 0;
    ssize_t len;
    FILE *f = where ? fopen(path, "r") : NULL;
    int rc = 0, lineno = 0;
    size_t added = 0;
    if (!f) {
        fprintf(stderr, "opnn bench: cannot read --shapes %s: %s\n", path,
                where ? strerror(errno) : "out of memory");
        free(where);
        return 1;
    }
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        /* fields as long as the line: a longer one would be split into the next */
        char *hash, shape[BENCH_LINE_BYTES], axes[BENCH_LINE_BYTES], dtype[BENCH_LINE_BYTES],
            extra[2];
        snprintf(where, wlen, "%s:%d: ", path, ++lineno);
        if (memchr(line, '\0', (size_t)len)) { /* the last line too, newline or not */
            fprintf(stderr, "opnn bench: %sa NUL byte (not a text file?)\n", where);
            rc = 2;
            break;
        }
        if ((size_t)len - (len > 0 && line[len - 1] == '\n') > BENCH_LINE_BYTES - 2) {
            fprintf(stderr, "opnn bench: %sline longer than %d characters\n", where,
                    BENCH_LINE_BYTES - 2);
            rc = 2;
            break;
        }
        hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        line[strcspn(line, "\r\n")] = '\0';
        _Static_assert(BENCH_LINE_BYTES == 512, "the widths below are BENCH_LINE_BYTES - 1");
        const int got = sscanf(line, "%511s %511s %511s %1s", shape, axes, dtype, extra);
        if (got <= 0)
            continue;
        if (got != 3) {
            fprintf(stderr, "opnn bench: %sexpected 'SHAPE AXES DTYPE', got '%s'\n", where, line);
            rc = 2;
        } else if (added >= max) {
            fprintf(stderr, "opnn bench: %smore than %zu cases\n", where, max);
            rc = 2;
        } else if ((rc = custom_case(&cases[*n], op, shape, axes, dtype, where)) == 0) {
            cases[(*n)++].from_file = true;
            added++;
        }
    }
    if (rc == 0 && (ferror(f) || !feof(f))) { /* a read error, or getline out of memory */
        fprintf(stderr, "opnn bench: cannot read --shapes %s: %s\n", path, strerror(errno));
        rc = 1;
    } else if (rc == 0 && added == 0) {
        fprintf(stderr, "opnn bench: --shapes %s has no cases\n", path);
        rc = 2;
    }
    fclose(f);
    free(line);
    free(where);
    return rc;
}

/* A count for --iters or --warmup: decimal, 0 to 100000, nothing after it. */
static bool parse_count(const char *s, int *out)
{
    char *end;
    errno = 0;
    const long x = strtol(s, &end, 10);
    if (end == s || *end || errno || x < 0 || x > 100000)
        return false;
    *out = (int)x;
    return true;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Binds input `x` and output `y` of one op call on ctx; infers the output shape. */
static op_status bind_call(op_context *ctx, const bench_case *c, const char *op, DLTensor *x,
                           DLTensor *y, int64_t *oshape, char *err, size_t err_len)
{
    int32_t ondim;
    DLDataType odt;
    op_status st;

    op_context_clear(ctx);
    st = op_context_set_input(ctx, 0, x);
    if (st == OP_OK && op_takes_axis(op)) {
        /* ArgMax-style ops reduce one axis: the case's only axis (or dim 0 of a 1-D "all") */
        if (c->naxes > 1 || (c->all_axes && c->ndim > 1)) {
            snprintf(err, err_len, "%s reduces one axis; case %s reduces several", op, c->name);
            return OP_ERR_INVALID_ARGUMENT;
        }
        st = op_context_set_attr_int(ctx, "axis", c->all_axes ? 0 : c->axes[0]);
    } else if (st == OP_OK && !c->all_axes) {
        st = op_context_set_attr_ints(ctx, "axes", c->axes, c->naxes);
    }
    if (st == OP_OK)
        st = op_infer_output(op, ctx, 0, &ondim, oshape, &odt);
    if (st != OP_OK) {
        snprintf(err, err_len, "%s", op_context_error(ctx));
        return st;
    }
    y->ndim = ondim;
    y->shape = oshape;
    y->dtype = odt;
    y->strides = NULL;
    y->byte_offset = 0;
    st = op_context_set_output(ctx, 0, y);
    if (st != OP_OK)
        snprintf(err, err_len, "%s", op_context_error(ctx));
    return st;
}

/* --- CUDA ----------------------------------------------------------------------------------- */

#if defined(OPNN_HAVE_CUDA)

typedef struct cuda_env {
    int dev;
    int sm_count;
    size_t l2_bytes;
    cudaStream_t stream;
    double read_gbps; /* the ceiling */
    double copy_gbps;
    int *hold; /* bench_cuda_hold's flags: mapped pinned host memory */
} cuda_env;

/* The stream and the hold flags, where made. */
static void cuda_env_free(cuda_env *env)
{
    if (env->stream)
        cudaStreamDestroy(env->stream);
    if (env->hold)
        cudaFreeHost(env->hold);
    env->stream = NULL;
    env->hold = NULL;
}

#define CU(call, label)                                                                            \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "opnn bench: %s: %s\n", #call, cudaGetErrorString(e_));                \
            goto label;                                                                            \
        }                                                                                          \
    } while (0)

/* The median of the n intervals between ev[0], ..., ev[n] (recorded on one stream), in seconds;
 * t holds n. */
static cudaError_t event_median(cudaEvent_t *ev, double *t, int n, double *sec)
{
    cudaError_t e = (cudaError_t)bench_cuda_event_times(ev, n, t);
    if (e == cudaSuccess)
        *sec = median(t, n);
    return e;
}

/* The read ceiling: the streaming-read kernel over 1 GiB, the median of 30 after warm-up, the
 * best of its variants (4 or 8 loads in flight, chunked or grid-stride) at 2, 4 and 8 blocks
 * of 256 threads per SM; and a device-to-device copy of 512 MiB. */
static int cuda_ceiling(cuda_env *env)
{
    const size_t bytes = (size_t)1 << 30;
    void *buf = NULL, *sink = NULL;
    cudaEvent_t ev[31];
    double t[30];
    int rc = 1, nev = 0;

    CU(cudaMalloc(&buf, bytes), out);
    CU(cudaMalloc(&sink, 1 << 20), out);
    if (bench_cuda_fill(buf, (int64_t)(bytes / 4), kDLInt, 32, 1, env->stream) != 0)
        goto out;
    for (nev = 0; nev < 31; nev++)
        CU(cudaEventCreate(&ev[nev]), out);
    env->read_gbps = 0;
    for (int variant = 0; variant < BENCH_CUDA_READ_VARIANTS; variant++) {
        for (int per_sm = 2; per_sm <= 8; per_sm *= 2) {
            int blocks = env->sm_count * per_sm;
            double gbps = 0;
            CU((cudaError_t)bench_cuda_time_read(&buf, 1, bytes, blocks, variant, sink, 30,
                                                 env->stream, env->hold, &gbps),
               out);
            printf("read kernel variant %d, %5d blocks x 256: %.0f GB/s\n", variant, blocks, gbps);
            if (gbps > env->read_gbps)
                env->read_gbps = gbps;
        }
    }
    {
        const size_t half = bytes / 2;
        for (int w = 0; w < 3; w++)
            CU(cudaMemcpyAsync(buf, (char *)buf + half, half, cudaMemcpyDeviceToDevice,
                               env->stream),
               out);
        CU(cudaEventRecord(ev[0], env->stream), out);
        for (int i = 0; i < 20; i++) {
            CU(cudaMemcpyAsync(buf, (char *)buf + half, half, cudaMemcpyDeviceToDevice,
                               env->stream),
               out);
            CU(cudaEventRecord(ev[i + 1], env->stream), out);
        }
        double sec = 0;
        CU(event_median(ev, t, 20, &sec), out);
        env->copy_gbps = 2.0 * (double)half / sec * 1e-9;
    }
    printf("read ceiling: %.0f GB/s; device-to-device copy: %.0f GB/s (read + write)\n\n",
           env->read_gbps, env->copy_gbps);
    rc = 0;
out:
    for (int i = 0; i < nev; i++)
        cudaEventDestroy(ev[i]);
    cudaFree(buf);
    cudaFree(sink);
    return rc;
}

/* A case's input buffers, allocated and filled once for all of its ops: inputs under 4x the L2
 * rotate among buffers so that each call reads from memory. */
#define BENCH_MAX_BUFS 64
typedef struct cuda_inputs {
    void *in[BENCH_MAX_BUFS];
    int nbuf;
} cuda_inputs;

static void cuda_inputs_free(cuda_inputs *inp)
{
    for (int i = 0; i < inp->nbuf; i++)
        cudaFree(inp->in[i]);
    memset(inp, 0, sizeof *inp);
}

static int cuda_inputs_alloc(const cuda_env *env, const bench_case *c, cuda_inputs *inp)
{
    const int64_t n = case_numel(c);
    const size_t in_bytes = (size_t)n * tool_dtype_size(c->dtype);
    int nbuf = 1;

    memset(inp, 0, sizeof *inp);
    if (!c->small && in_bytes < 4 * env->l2_bytes) {
        nbuf = (int)((4 * env->l2_bytes + in_bytes - 1) / in_bytes);
        if (nbuf > BENCH_MAX_BUFS)
            nbuf = BENCH_MAX_BUFS;
    }
    for (int i = 0; i < nbuf; i++) {
        if (cudaMalloc(&inp->in[i], in_bytes ? in_bytes : 16) != cudaSuccess) {
            cudaGetLastError();
            cuda_inputs_free(inp);
            return -1;
        }
        inp->nbuf = i + 1;
        if (bench_cuda_fill(inp->in[i], n, c->dtype.code, c->dtype.bits, 42 + (uint64_t)i,
                            env->stream) != 0) {
            cuda_inputs_free(inp);
            return -1;
        }
    }
    return 0;
}

static void cuda_case(const cuda_env *env, const bench_case *c, const cuda_inputs *inp,
                      const char *op, int iters, int warmup, bench_result *r)
{
    const int64_t n = case_numel(c);
    const size_t es = tool_dtype_size(c->dtype), in_bytes = (size_t)n * es;
    int64_t oshape[OP_MAX_DIMS];
    void *const *in = inp->in;
    void *out = NULL;
    cudaEvent_t *ev = NULL;
    double *t = NULL;
    op_context *ctx = NULL;
    DLTensor x, y;
    const int nbuf = inp->nbuf;
    int nev = 0;
    op_status st;

    memset(r, 0, sizeof *r);
    r->op = op;
    if (nbuf < 1) {
        r->status = OP_ERR_OUT_OF_MEMORY;
        snprintf(r->msg, sizeof r->msg, "cannot allocate or fill the input buffers");
        return;
    }
    if (op_context_create(&ctx) != OP_OK || op_context_set_stream(ctx, env->stream) != OP_OK)
        goto out;
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    x.data = in[0];
    x.device = (DLDevice){kDLCUDA, env->dev};
    x.ndim = c->ndim;
    x.shape = (int64_t *)c->shape;
    x.dtype = c->dtype;
    y.device = x.device;
    st = bind_call(ctx, c, op, &x, &y, oshape, r->msg, sizeof r->msg);
    if (st != OP_OK) {
        r->status = st;
        goto out;
    }
    int64_t nout = 1;
    for (int32_t i = 0; i < y.ndim; i++)
        nout *= oshape[i];
    CU(cudaMalloc(&out, (size_t)nout * tool_dtype_size(y.dtype) + 16), out);
    y.data = out;
    st = op_context_set_output(ctx, 0, &y);

    ev = calloc((size_t)iters + 1, sizeof *ev);
    t = calloc((size_t)iters, sizeof *t);
    if (!ev || !t)
        goto out;
    for (nev = 0; nev <= iters; nev++)
        CU(cudaEventCreate(&ev[nev]), out);

    /* warm-up: `warmup` calls and at least 20 ms of them, so that the clocks have settled
     * after the buffers were filled (a first op timed after 5 calls read up to 7% slower) */
    {
        const double w0 = tool_now_s();
        for (int i = 0; st == OP_OK && (i < warmup || tool_now_s() - w0 < 0.02); i++) {
            x.data = in[i % nbuf];
            if (nbuf > 1)
                st = op_context_set_input(ctx, 0, &x);
            if (st == OP_OK)
                st = op_run(op, ctx);
            if (i % 8 == 7)
                CU(cudaStreamSynchronize(env->stream), out);
        }
        CU(cudaStreamSynchronize(env->stream), out);
    }
    {
        /* everything enqueued behind the hold, then released: back to back on the GPU */
        cudaError_t e = (cudaError_t)bench_cuda_hold(env->stream, env->hold, BENCH_CUDA_HOLD_MS);
        if (e == cudaSuccess)
            e = cudaEventRecord(ev[0], env->stream);
        for (int i = 0; i < iters && st == OP_OK && e == cudaSuccess; i++) {
            x.data = in[i % nbuf];
            if (nbuf > 1)
                st = op_context_set_input(ctx, 0, &x);
            if (st == OP_OK)
                st = op_run(op, ctx);
            e = cudaEventRecord(ev[i + 1], env->stream);
        }
        bench_cuda_release(env->hold);
        CU(e, out);
    }
    if (st != OP_OK) {
        r->status = st;
        snprintf(r->msg, sizeof r->msg, "%s", op_context_error(ctx));
        goto out;
    }
    {
        double sec = 0;
        CU(event_median(ev, t, iters, &sec), out);
        r->host_bound = *(volatile int *)&env->hold[1] != 0;
        r->time_us = sec * 1e6;
    }
    r->gbps =
        (double)(in_bytes + (size_t)nout * tool_dtype_size(y.dtype)) / (r->time_us * 1e-6) * 1e-9;
    r->fraction = env->read_gbps > 0 ? r->gbps / env->read_gbps : 0;

    if (c->small) {
        double t0 = tool_now_s();
        for (int i = 0; i < BENCH_HOST_LOOP && st == OP_OK; i++)
            st = op_run(op, ctx);
        CU(cudaStreamSynchronize(env->stream), out);
        r->host_us = (tool_now_s() - t0) / BENCH_HOST_LOOP * 1e6;
        r->host_calls = BENCH_HOST_LOOP;
        if (st != OP_OK) {
            r->status = st;
            snprintf(r->msg, sizeof r->msg, "%s", op_context_error(ctx));
        }
    }
out:
    if (cudaGetLastError() != cudaSuccess && r->status == 0) {
        r->status = OP_ERR_DEVICE;
        snprintf(r->msg, sizeof r->msg, "CUDA error during the case");
    }
    for (int i = 0; i < nev; i++)
        cudaEventDestroy(ev[i]);
    free(ev);
    free(t);
    op_context_destroy(ctx);
    cudaFree(out);
}

#endif /* OPNN_HAVE_CUDA */

/* --- CPU ------------------------------------------------------------------------------------ */

typedef struct cpu_env {
    int threads;      /* OpenMP threads (OMP_NUM_THREADS honoured) */
    size_t llc_bytes; /* the last-level cache, 0 if unknown */
    double read_gbps; /* the ceiling */
    char desc[256];   /* the machine, for the report */
} cpu_env;

static int cpu_threads(void)
{
#if defined(_OPENMP)
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* The largest cache of cpu0 in sysfs ("491520K"), 0 if unknown. */
static size_t cpu_llc_bytes(void)
{
    size_t best = 0;
    for (int i = 0; i < 8; i++) {
        char path[96], buf[64];
        unsigned long long v = 0;
        char unit = 0;
        FILE *f;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(buf, sizeof buf, f) && sscanf(buf, "%llu%c", &v, &unit) >= 1) {
            v <<= unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0;
            if (v > best)
                best = (size_t)v;
        }
        fclose(f);
    }
    return best;
}

/* "Intel(R) Xeon(R) Processor" from /proc/cpuinfo's first "model name", or "unknown CPU". */
static void cpu_model(char *buf, size_t len)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    snprintf(buf, len, "unknown CPU");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !colon)
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(buf, len, "%s", colon);
        break;
    }
    fclose(f);
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <immintrin.h>
#define BENCH_CPU_X86 1

/* Sums n 64-bit words (n a multiple of 16 * streams, p 32-byte aligned) as `streams` equal
 * sub-ranges read side by side, 64 bytes of each per step into its own pair of 256-bit
 * accumulators. One stream per thread is the plain streaming read; several keep more hardware
 * prefetch streams in flight, which is how the column kernels (many rows at once) read: on the
 * 2-core Xeon VM over 1 GiB, 4 streams a thread 25.9 GB/s, 8 streams 25.7, one stream 18.0
 * (the plain loop 17.5), so col_wide no longer reads "above the ceiling". */
__attribute__((target("avx2"))) static uint64_t cpu_read_avx2(const uint64_t *p, size_t n,
                                                              int streams)
{
    __m256i a[16];
    size_t len = n / (size_t)streams;
    uint64_t lane[4], total = 0;
    for (int k = 0; k < 2 * streams; k++)
        a[k] = _mm256_setzero_si256();
    for (size_t i = 0; i < len; i += 8) {
        for (int k = 0; k < streams; k++) {
            const __m256i *q = (const __m256i *)(p + (size_t)k * len + i);
            a[2 * k] = _mm256_add_epi64(a[2 * k], _mm256_load_si256(q));
            a[2 * k + 1] = _mm256_add_epi64(a[2 * k + 1], _mm256_load_si256(q + 1));
        }
    }
    for (int k = 0; k < 2 * streams; k++) {
        _mm256_storeu_si256((__m256i *)lane, a[k]);
        total += lane[0] + lane[1] + lane[2] + lane[3];
    }
    return total;
}
#endif

/* The same in plain C: integer adds reassociate freely, so -O2/-O3 vectorise it. */
static uint64_t cpu_read_plain(const uint64_t *p, size_t n)
{
    uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (size_t i = 0; i < n; i += 4) {
        a0 += p[i];
        a1 += p[i + 1];
        a2 += p[i + 2];
        a3 += p[i + 3];
    }
    return a0 + a1 + a2 + a3;
}

/* Where the read's sums go, so that the reads are not optimised away. */
static volatile uint64_t bench_cpu_sink;

/* One streaming read of words[0, n) with all threads, each a contiguous static slice (the
 * partition the fill used, so pages sit with their reader), n a multiple of 128 * threads; AVX2
 * with avx2_streams streams per thread, or the plain loop when it is 0.
 * Returns the wall-clock seconds of the parallel region, as cpu_case times op_run. */
static double cpu_read_pass(const uint64_t *words, size_t n, int avx2_streams)
{
    uint64_t total = 0;
    double t0 = tool_now_s();
#if defined(_OPENMP)
#pragma omp parallel reduction(+ : total)
#endif
    {
        size_t nt = 1, t = 0;
#if defined(_OPENMP)
        nt = (size_t)omp_get_num_threads();
        t = (size_t)omp_get_thread_num();
#endif
        size_t slice = n / nt;
        const uint64_t *p = words + t * slice;
#if defined(BENCH_CPU_X86)
        if (avx2_streams > 0)
            total += cpu_read_avx2(p, slice, avx2_streams);
        else
#endif
            total += cpu_read_plain(p, slice);
    }
    double dt = tool_now_s() - t0;
    bench_cpu_sink += total;
    return dt;
}

/* The CPU ceiling: a streaming read with all OpenMP threads (static slices, independent
 * accumulators; the plain vectorised loop, and AVX2 with 1, 4 or 8 streams a thread where the
 * CPU has it) over 1 GiB (the
 * suite's input size) and over max(2 GiB, 8x the LLC), the best of 10 passes after two of
 * warm-up for each; the ceiling is the best of all, so no case can honestly beat it. Also
 * describes the machine into env. */
static void cpu_ceiling(cpu_env *env)
{
    const size_t gib = (size_t)1 << 30;
    size_t sizes[2] = {gib, 2 * gib};
    bool avx2 = false;
    char model[160];

    env->threads = cpu_threads();
    env->llc_bytes = cpu_llc_bytes();
    env->read_gbps = 0;
#if defined(BENCH_CPU_X86)
    avx2 = __builtin_cpu_supports("avx2");
#endif
    if (8 * env->llc_bytes > sizes[1])
        sizes[1] = 8 * env->llc_bytes < 8 * gib ? 8 * env->llc_bytes : 8 * gib;
    cpu_model(model, sizeof model);
    snprintf(env->desc, sizeof env->desc, "%s, %d OpenMP threads of %ld online CPUs, LLC %zu MiB",
             model, env->threads, sysconf(_SC_NPROCESSORS_ONLN), env->llc_bytes >> 20);
    printf("device: %s; AVX2 %s\n", env->desc, avx2 ? "yes" : "no");

    for (int s = 0; s < 2; s++) {
        const size_t align = 128 * (size_t)env->threads;
        size_t n = sizes[s] / sizeof(uint64_t) / align * align;
        uint64_t *buf = aligned_alloc(64, n * sizeof(uint64_t));
        if (!buf) {
            printf("CPU read over %zu MiB: no memory, skipped\n", sizes[s] >> 20);
            continue;
        }
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
        for (size_t i = 0; i < n; i++)
            buf[i] = i * 0x9E3779B97F4A7C15ull;
        /* the plain loop, then AVX2 with 1, 4 and 8 streams per thread */
        for (int v = 0; v < (avx2 ? 4 : 1); v++) {
            const int streams = v == 0 ? 0 : v == 1 ? 1 : 4 * (v - 1);
            double best = 0;
            for (int rep = 0; rep < 12; rep++) {
                double gbps = (double)(n * sizeof(uint64_t)) / cpu_read_pass(buf, n, streams);
                if (rep >= 2 && gbps * 1e-9 > best) /* two passes of warm-up */
                    best = gbps * 1e-9;
            }
            if (streams)
                printf(
                    "CPU read over %5zu MiB, AVX2, %d stream%s a thread: %.1f GB/s (best of 10)\n",
                    sizes[s] >> 20, streams, streams > 1 ? "s" : "", best);
            else
                printf("CPU read over %5zu MiB, plain loop: %.1f GB/s (best of 10)\n",
                       sizes[s] >> 20, best);
            if (best > env->read_gbps)
                env->read_gbps = best;
        }
        free(buf);
    }
    printf("CPU read ceiling (%d threads): %.1f GB/s\n\n", env->threads, env->read_gbps);
}

/* Timed with the wall clock around each op_run: the median of iters after warmup. Inputs under
 * 2x the LLC (and not small) rotate among buffers so that each call reads from memory. */
static void cpu_case(const cpu_env *env, const bench_case *c, const char *op, int iters, int warmup,
                     bench_result *r)
{
    const int64_t n = case_numel(c);
    const size_t es = tool_dtype_size(c->dtype), in_bytes = (size_t)n * es;
    int64_t oshape[OP_MAX_DIMS];
    void *in[16] = {0}, *out = NULL;
    double *t = calloc((size_t)iters, sizeof(double));
    op_context *ctx = NULL;
    DLTensor x, y;
    int nbuf = 1;
    bool oom = !t;
    op_status st;

    memset(r, 0, sizeof *r);
    r->op = op;
    if (!c->small && in_bytes && in_bytes < 2 * env->llc_bytes) {
        nbuf = (int)((2 * env->llc_bytes + in_bytes - 1) / in_bytes);
        if (nbuf > 16)
            nbuf = 16;
    }
    for (int i = 0; i < nbuf && !oom; i++) {
        in[i] = malloc(in_bytes ? in_bytes : 16);
        oom = !in[i];
        if (!oom)
            tool_fill_random(42 + (uint64_t)i, op, in[i], c->dtype, n);
    }
    if (oom || op_context_create(&ctx) != OP_OK) {
        r->status = OP_ERR_OUT_OF_MEMORY;
        snprintf(r->msg, sizeof r->msg, "out of host memory");
        goto out;
    }
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    x.data = in[0];
    x.device = (DLDevice){kDLCPU, 0};
    x.ndim = c->ndim;
    x.shape = (int64_t *)c->shape;
    x.dtype = c->dtype;
    y.device = x.device;
    st = bind_call(ctx, c, op, &x, &y, oshape, r->msg, sizeof r->msg);
    if (st != OP_OK) {
        r->status = st;
        goto out;
    }
    int64_t nout = 1;
    for (int32_t i = 0; i < y.ndim; i++)
        nout *= oshape[i];
    out = malloc((size_t)nout * tool_dtype_size(y.dtype) + 16);
    y.data = out;
    st = out ? op_context_set_output(ctx, 0, &y) : OP_ERR_OUT_OF_MEMORY;
    for (int i = 0; i < warmup + iters && st == OP_OK; i++) {
        x.data = in[i % nbuf];
        if (nbuf > 1)
            st = op_context_set_input(ctx, 0, &x);
        double t0 = tool_now_s();
        if (st == OP_OK)
            st = op_run(op, ctx);
        if (i >= warmup)
            t[i - warmup] = tool_now_s() - t0;
    }
    if (st != OP_OK) {
        r->status = st;
        snprintf(r->msg, sizeof r->msg, "%s", op_context_error(ctx));
        goto out;
    }
    r->time_us = median(t, iters) * 1e6;
    r->gbps =
        (double)(in_bytes + (size_t)nout * tool_dtype_size(y.dtype)) / (r->time_us * 1e-6) * 1e-9;
    r->fraction = env->read_gbps > 0 ? r->gbps / env->read_gbps : 0;
    if (c->small) {
        /* the host loop, cut short after 2 s on a slow CPU */
        double t0 = tool_now_s(), dt = 0;
        int done = 0;
        for (; done < BENCH_HOST_LOOP && st == OP_OK && dt < 2.0; done++) {
            st = op_run(op, ctx);
            if ((done & 63) == 63)
                dt = tool_now_s() - t0;
        }
        r->host_us = (tool_now_s() - t0) / (done ? done : 1) * 1e6;
        r->host_calls = done;
    }
out:
    op_context_destroy(ctx);
    for (int i = 0; i < nbuf; i++)
        free(in[i]);
    free(out);
    free(t);
}

/* --- driver --------------------------------------------------------------------------------- */

static void print_result(const bench_case *c, const bench_result *r, FILE *json, bool *first_json,
                         const char *device)
{
    char shape[TOOL_DIMS_STR_MAX], axes[TOOL_DIMS_STR_MAX], dtbuf[32];
    const char *dt;
    tool_dims_str(shape, sizeof shape, false, (size_t)c->ndim, c->shape);
    if (c->all_axes)
        snprintf(axes, sizeof axes, "all");
    else
        tool_dims_str(axes, sizeof axes, false, c->naxes, c->axes);
    dt = tool_dtype_name(c->dtype, dtbuf, sizeof dtbuf);
    if (c->from_file)
        printf("[%s] axes [%s] %s: ", shape, axes, dt);
    if (r->status) {
        printf("%-12s %-11s %-5s  FAILED: %s\n", c->name, r->op, dt, r->msg);
    } else if (c->small) {
        printf("%-12s %-11s %-5s %10.2f us/call (%s) %8.2f us/call (host loop of %d)\n", c->name,
               r->op, dt, r->time_us, strcmp(device, "cuda") ? "timed" : "events", r->host_us,
               r->host_calls);
    } else if (r->size_gbps > 0) {
        printf("%-12s %-11s %-5s %10.1f us %8.0f GB/s %6.3f of ceiling %6.3f of read at size%s\n",
               c->name, r->op, dt, r->time_us, r->gbps, r->fraction, r->size_fraction,
               r->host_bound ? " (host-bound: the hold timed out)" : "");
    } else {
        printf("%-12s %-11s %-5s %10.1f us %8.0f GB/s %6.3f of ceiling\n", c->name, r->op, dt,
               r->time_us, r->gbps, r->fraction);
    }
    if (json) {
        fprintf(json,
                "%s\n    {\"case\": \"%s\", \"op\": \"%s\", \"device\": \"%s\", \"shape\": [%s], "
                "\"axes\": \"%s\", \"dtype\": \"%s\", \"status\": %d, \"time_us\": %.3f, "
                "\"gbps\": %.1f, \"fraction\": %.4f, \"host_loop_us\": %.3f, "
                "\"size_read_gbps\": %.1f, \"size_fraction\": %.4f, \"host_bound\": %s}",
                *first_json ? "" : ",", c->name, r->op, device, shape, axes, dt, r->status,
                r->time_us, r->gbps, r->fraction, r->host_us, r->size_gbps, r->size_fraction,
                r->host_bound ? "true" : "false");
        *first_json = false;
    }
}

/* The cases of the command line: the suite, the named ones or the custom ones; *cases on the
 * heap. Nonzero (the tool's exit status) with a message on stderr. */
static int bench_cases(const char *const *names, size_t nnames, const char *custom_op,
                       const char *custom_shape, const char *custom_axes, const char *custom_dtype,
                       const char *shapes_path, bench_case **cases, size_t *ncases)
{
    const size_t cap = SUITE_SIZE + 1 + (shapes_path ? BENCH_MAX_FILE_CASES : 0);
    bench_case *cs = calloc(cap, sizeof *cs);
    size_t n = 0;
    int rc = 0;

    *cases = NULL;
    *ncases = 0;
    if (!cs) {
        fprintf(stderr, "opnn bench: out of memory\n");
        return 1;
    }
    op_info info;
    if (custom_op && op_describe(custom_op, &info) != OP_OK) { /* built in or a plugin's */
        fprintf(stderr, "opnn bench: unknown --op %s (opnn list names the ops)\n", custom_op);
        free(cs);
        return 2;
    }
    if (!custom_shape && (custom_axes || custom_dtype)) {
        fprintf(stderr, "opnn bench: %s %s applies to --shape only\n",
                custom_axes ? "--axes" : "--dtype", custom_axes ? custom_axes : custom_dtype);
        free(cs);
        return 2;
    }
    if (custom_shape || (custom_op && nnames == 0 && !shapes_path)) {
        if (!custom_shape) {
            fprintf(stderr, "opnn bench: --op needs --shape D0,D1,..., --case or --shapes\n");
            rc = 2;
        } else {
            rc = custom_case(&cs[n], custom_op, custom_shape, custom_axes,
                             custom_dtype ? custom_dtype : "f32", NULL);
            n += rc == 0;
        }
    }
    if (rc == 0 && shapes_path)
        rc = file_cases(shapes_path, custom_op, cs, &n, BENCH_MAX_FILE_CASES);
    for (size_t k = 0; rc == 0 && k < SUITE_SIZE; k++) {
        /* the whole suite, unless cases are named or custom cases are given */
        bool want = nnames == 0 && !(custom_op || custom_shape || shapes_path);
        for (size_t j = 0; j < nnames; j++)
            want = want || !strcmp(names[j], suite[k].name);
        if (want && n < cap) {
            case_from_suite(&cs[n], &suite[k]);
            if (custom_op) { /* --op with --case: that op on the named suite cases */
                cs[n].op = custom_op;
                cs[n].mean_max = false;
            }
            n++;
        }
    }
    for (size_t j = 0; rc == 0 && j < nnames; j++) {
        bool known = false;
        for (size_t k = 0; k < SUITE_SIZE; k++)
            known = known || !strcmp(names[j], suite[k].name);
        if (!known) {
            fprintf(stderr, "opnn bench: no case named %s (opnn bench --list)\n", names[j]);
            rc = 2;
        }
    }
    if (rc != 0) {
        free(cs);
        return rc;
    }
    *cases = cs;
    *ncases = n;
    return 0;
}

/* Runs cases on device (cuda: "cuda"), printing each result and writing json_path if given;
 * the tool's exit status. */
static int bench_run(const bench_case *cases, size_t ncases, const char *device, bool cuda,
                     const char *json_path, int iters, int warmup)
{
    int failures = 0;
    FILE *json = NULL;
    bool first_json = true;
    if (json_path) {
        json = fopen(json_path, "w");
        if (!json) {
            fprintf(stderr, "opnn bench: cannot write %s: %s\n", json_path, strerror(errno));
            return 1;
        }
    }

    double ceiling = 0, copy = 0, floor_us = 0;
    char devname[256] = "cpu";
    cpu_env cenv;
    memset(&cenv, 0, sizeof cenv);
#if defined(OPNN_HAVE_CUDA)
    cuda_env env;
    memset(&env, 0, sizeof env);
#endif
    if (cuda) {
#if defined(OPNN_HAVE_CUDA)
        struct cudaDeviceProp prop;
        int l2 = 0;
        if (!tool_cuda_available(NULL) || cudaGetDevice(&env.dev) != cudaSuccess ||
            cudaGetDeviceProperties(&prop, env.dev) != cudaSuccess ||
            cudaStreamCreateWithFlags(&env.stream, cudaStreamNonBlocking) != cudaSuccess ||
            cudaHostAlloc((void **)&env.hold, 2 * sizeof(int), cudaHostAllocMapped) !=
                cudaSuccess) {
            fprintf(stderr, "opnn bench: no usable CUDA device\n");
            cuda_env_free(&env);
            if (json)
                fclose(json);
            return 1;
        }
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, env.dev);
        env.l2_bytes = (size_t)l2;
        env.sm_count = prop.multiProcessorCount;
        snprintf(devname, sizeof devname, "%s", prop.name);
        printf("device: %s, %d SMs, %d MB L2, cc %d.%d\n", prop.name, prop.multiProcessorCount,
               l2 >> 20, prop.major, prop.minor);
        if (cuda_ceiling(&env) != 0) {
            cuda_env_free(&env);
            if (json)
                fclose(json);
            return 1;
        }
        ceiling = env.read_gbps;
        copy = env.copy_gbps;
        /* the small cases' host loop against a bare graph launch on the same machine */
        bool any_small = false;
        for (size_t k = 0; k < ncases; k++)
            any_small = any_small || cases[k].small;
        if (any_small) {
            const int rc = bench_cuda_graph_floor(env.stream, BENCH_HOST_LOOP, &floor_us);
            if (rc != 0) {
                fprintf(stderr, "opnn bench: the launch floor failed: %s\n",
                        cudaGetErrorString((cudaError_t)rc));
                floor_us = 0;
            } else {
                printf("launch floor: %.2f us a call (a graph of one empty kernel, host loop of "
                       "%d)\n\n",
                       floor_us, BENCH_HOST_LOOP);
            }
        }
#else
        fprintf(stderr, "opnn bench: this opnn was built without CUDA\n");
        if (json)
            fclose(json);
        return 1;
#endif
    } else {
        cpu_ceiling(&cenv);
        ceiling = cenv.read_gbps;
        snprintf(devname, sizeof devname, "%s", cenv.desc);
    }
    if (json)
        fprintf(json,
                "{\n  \"device\": \"%s\", \"gpu\": \"%s\", \"read_ceiling_gbps\": %.1f, "
                "\"copy_gbps\": %.1f, \"graph_launch_us\": %.2f, \"iters\": %d,\n  \"results\": [",
                device, devname, ceiling, copy, floor_us, iters);

    for (size_t k = 0; k < ncases; k++) {
        const bench_case *c = &cases[k];
        const char *ops[3] = {c->op ? c->op : "ReduceSum", "ReduceMean", "ReduceMax"};
        int nops = c->mean_max ? 3 : 1;
#if defined(OPNN_HAVE_CUDA)
        cuda_inputs inp = {{0}, 0};
        double size_gbps = 0;
        if (cuda && cuda_inputs_alloc(&env, c, &inp) == 0 && !c->small)
            /* what memory allows for an input that size, rotated as the case's calls are */
            size_gbps = bench_cuda_read_at(inp.in, inp.nbuf,
                                           (size_t)case_numel(c) * tool_dtype_size(c->dtype),
                                           env.sm_count, iters, env.stream, env.hold);
#endif
        for (int o = 0; o < nops; o++) {
            bench_result r;
#if defined(OPNN_HAVE_CUDA)
            if (cuda) {
                cuda_case(&env, c, &inp, ops[o], iters, warmup, &r);
                r.size_gbps = size_gbps;
                if (size_gbps > 0)
                    r.size_fraction = r.gbps / size_gbps;
            } else
#endif
                cpu_case(&cenv, c, ops[o], iters, warmup, &r);
            print_result(c, &r, json, &first_json, device);
            fflush(stdout);
            failures += r.status != 0;
        }
#if defined(OPNN_HAVE_CUDA)
        cuda_inputs_free(&inp);
#endif
    }
    int rc = failures ? 1 : 0;
    if (json) {
        fprintf(json, "\n  ]\n}\n");
        /* a write that failed (a full disk) shows in the stream's error flag or at fclose */
        const bool lost = ferror(json) != 0;
        if (fclose(json) != 0 || lost) {
            fprintf(stderr, "opnn bench: cannot write %s: %s\n", json_path,
                    errno ? strerror(errno) : "write error");
            rc = 1;
        }
    }
#if defined(OPNN_HAVE_CUDA)
    if (cuda)
        cuda_env_free(&env);
#endif
    return rc;
}

int opnn_tool_bench(int argc, char **argv)
{
    bench_case *cases = NULL;
    size_t ncases = 0;
    const char *device = NULL, *json_path = NULL, *custom_op = NULL, *custom_shape = NULL;
    const char *custom_axes = NULL, *custom_dtype = NULL, *shapes_path = NULL;
    const char *names[BENCH_MAX_CASES];
    size_t nnames = 0;
    int iters = 0, warmup = 5;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("%s", bench_usage);
            return 0;
        } else if (!strcmp(a, "--list")) {
            for (size_t k = 0; k < SUITE_SIZE; k++)
                printf("%s\n", suite[k].name);
            return 0;
        }
        if (!v) {
            fprintf(stderr, "opnn bench: %s needs a value\n\n%s", a, bench_usage);
            return 2;
        }
        i++;
        if (!strcmp(a, "--device"))
            device = v;
        else if (!strcmp(a, "--json"))
            json_path = v;
        else if (!strcmp(a, "--case")) {
            if (nnames == BENCH_MAX_CASES) {
                fprintf(stderr, "opnn bench: at most %d --case (%s is one more)\n", BENCH_MAX_CASES,
                        v);
                return 2;
            }
            names[nnames++] = v;
        } else if (!strcmp(a, "--op"))
            custom_op = v;
        else if (!strcmp(a, "--shape"))
            custom_shape = v;
        else if (!strcmp(a, "--axes"))
            custom_axes = v;
        else if (!strcmp(a, "--dtype"))
            custom_dtype = v;
        else if (!strcmp(a, "--shapes"))
            shapes_path = v;
        else if (!strcmp(a, "--iters") || !strcmp(a, "--warmup")) {
            if (!parse_count(v, !strcmp(a, "--iters") ? &iters : &warmup)) {
                fprintf(stderr, "opnn bench: bad %s %s (0 to 100000)\n", a, v);
                return 2;
            }
        } else {
            fprintf(stderr, "opnn bench: unknown option %s\n\n%s", a, bench_usage);
            return 2;
        }
    }
    if (device && strcmp(device, "cuda") && strcmp(device, "cpu")) {
        fprintf(stderr, "opnn bench: --device must be cuda or cpu\n");
        return 2;
    }
    if (!device)
        device = tool_cuda_available(NULL) ? "cuda" : "cpu";
    bool cuda = !strcmp(device, "cuda");
    if (iters <= 0)
        iters = cuda ? 30 : 10;
    if (cuda && iters < 20)
        iters = 20; /* the median of at least 20 runs */
    if (!cuda && iters < 10)
        iters = 10; /* the median of at least 10 runs */
    if (warmup < 1)
        warmup = 1;

    int rc = bench_cases(names, nnames, custom_op, custom_shape, custom_axes, custom_dtype,
                         shapes_path, &cases, &ncases);
    if (rc != 0)
        return rc;
    rc = bench_run(cases, ncases, device, cuda, json_path, iters, warmup);
    free(cases);
    return rc;
}
