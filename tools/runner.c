/* One checked, timed op call: random input, op_infer_output, op_run, the float64 reference, the
 * comparison, then the timing. Device memory goes through the CUDA runtime when the build has
 * CUDA; without a device at run time the caller falls back to the CPU. */
#include "tool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(OPNN_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

#define GUARD_BYTES 64
#define GUARD_BYTE 0xA5

struct tool_input {
    DLDataType dtype;
    DLDeviceType device;
    int32_t ndim;
    int64_t shape[OP_MAX_DIMS];
    int64_t numel;
    size_t bytes;
    void *host;
    void *dev; /* the device copy, or NULL on the CPU */
};

bool tool_cuda_available(const char **why)
{
#if defined(OPNN_HAVE_CUDA)
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        if (why)
            *why = cudaGetErrorString(e);
        (void)cudaGetLastError();
        return false;
    }
    if (n == 0) {
        if (why)
            *why = "no CUDA device";
        return false;
    }
    return true;
#else
    if (why)
        *why = "this opnn was built without CUDA";
    return false;
#endif
}

/* Device memory; each prints its own error. */
static void *dev_alloc(size_t bytes)
{
#if defined(OPNN_HAVE_CUDA)
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        fprintf(stderr, "opnn: cudaMalloc(%zu): %s\n", bytes, cudaGetErrorString(e));
        return NULL;
    }
    return p;
#else
    (void)bytes;
    fprintf(stderr, "opnn: this opnn was built without CUDA\n");
    return NULL;
#endif
}

static void dev_free(void *p)
{
#if defined(OPNN_HAVE_CUDA)
    if (p)
        cudaFree(p);
#else
    (void)p;
#endif
}

/* dir > 0: host to device. */
static bool dev_copy(void *dst, const void *src, size_t bytes, int dir)
{
#if defined(OPNN_HAVE_CUDA)
    cudaError_t e =
        cudaMemcpy(dst, src, bytes, dir > 0 ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        fprintf(stderr, "opnn: cudaMemcpy: %s\n", cudaGetErrorString(e));
        return false;
    }
    return true;
#else
    (void)dst, (void)src, (void)bytes, (void)dir;
    return false;
#endif
}

static bool dev_sync(void)
{
#if defined(OPNN_HAVE_CUDA)
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fprintf(stderr, "opnn: cudaDeviceSynchronize: %s\n", cudaGetErrorString(e));
        return false;
    }
#endif
    return true;
}

tool_input *tool_input_create(const tool_case *c)
{
    size_t esize = tool_dtype_size(c->dtype);
    tool_input *in = calloc(1, sizeof *in);
    if (!in || !esize) {
        fprintf(stderr, "opnn: %s\n", in ? "unsupported dtype" : "out of memory");
        free(in);
        return NULL;
    }
    in->dtype = c->dtype;
    in->device = c->device;
    in->ndim = c->args.ndim;
    in->numel = 1;
    for (int32_t d = 0; d < c->args.ndim; d++) {
        in->shape[d] = c->args.shape[d];
        if (in->shape[d] < 0 || (in->shape[d] && in->numel > INT64_MAX / 16 / in->shape[d])) {
            char dims[TOOL_DIMS_STR_MAX];
            tool_dims_str(dims, sizeof dims, true, (size_t)c->args.ndim, c->args.shape);
            fprintf(stderr, "opnn: %s: bad --shape %s (%s)\n", c->args.op, dims,
                    in->shape[d] < 0 ? "a negative dimension" : "more than 2^59 elements");
            goto out_free;
        }
        in->numel *= in->shape[d];
    }
    in->bytes = (size_t)in->numel * esize;
    in->host = malloc(in->bytes ? in->bytes : 1);
    if (!in->host) {
        fprintf(stderr, "opnn: cannot allocate %zu bytes for the input\n", in->bytes);
        goto out_free;
    }
    tool_fill_random(c->seed, c->args.op, in->host, c->dtype, in->numel);
    if (c->device == kDLCUDA) {
        in->dev = dev_alloc(in->bytes);
        if (!in->dev)
            goto out_free_host;
        if (!dev_copy(in->dev, in->host, in->bytes, 1))
            goto out_free_dev;
    }
    return in;

out_free_dev:
    dev_free(in->dev);
out_free_host:
    free(in->host);
out_free:
    free(in);
    return NULL;
}

void tool_input_destroy(tool_input *in)
{
    if (!in)
        return;
    dev_free(in->dev);
    free(in->host);
    free(in);
}

static const char *flag_name(int v)
{
    return v < 0 ? "(default)" : v ? "1" : "0";
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* True if @p op declares an attribute @p name; its type goes to *type. The reduce ops take
 * "axes", ArgMax/ArgMin "axis". */
static bool find_attr(const char *op, const char *name, op_attr_type *type)
{
    op_info info;
    if (op_describe(op, &info) != OP_OK)
        return false;
    for (size_t i = 0; i < info.num_attrs; i++) {
        if (strcmp(info.attrs[i].name, name) == 0) {
            *type = info.attrs[i].type;
            return true;
        }
    }
    return false;
}

static op_status set_attrs(op_context *ctx, const tool_reduce_args *a)
{
    op_status st = OP_OK;
    op_attr_type type;
    if (a->has_axes) {
        if (find_attr(a->op, "axes", &type) || !find_attr(a->op, "axis", &type))
            st = op_context_set_attr_ints(ctx, "axes", a->axes, a->naxes);
        else if (a->naxes == 1)
            st = op_context_set_attr_int(ctx, "axis", a->axes[0]);
        else /* let the op say what it thinks of a list */
            st = op_context_set_attr_ints(ctx, "axis", a->axes, a->naxes);
    }
    if (st == OP_OK && a->keepdims >= 0)
        st = op_context_set_attr_int(ctx, "keepdims", a->keepdims);
    if (st == OP_OK && a->noop >= 0)
        st = op_context_set_attr_int(ctx, "noop_with_empty_axes", a->noop);
    if (st == OP_OK && a->select_last >= 0)
        st = op_context_set_attr_int(ctx, "select_last_index", a->select_last);
    return st;
}

/* Runs once; for CUDA waits for the GPU so that asynchronous errors surface here. */
static op_status run_once(const char *op, op_context *ctx, DLDeviceType dev)
{
    op_status st = op_run(op, ctx);
    if (st == OP_OK && dev == kDLCUDA && !dev_sync())
        return OP_ERR_DEVICE;
    return st;
}

/* Times @p iters calls; returns the median in seconds, or a negative value on failure. */
static double time_runs(const char *op, op_context *ctx, DLDeviceType dev, int iters)
{
    double *t = malloc((size_t)iters * sizeof *t);
    if (!t)
        return -1.0;
    double median = -1.0;
    for (int i = 0; i < iters; i++) {
#if defined(OPNN_HAVE_CUDA)
        if (dev == kDLCUDA) {
            cudaEvent_t e0, e1;
            float ms = 0.0f;
            if (cudaEventCreate(&e0) != cudaSuccess)
                goto out_free;
            if (cudaEventCreate(&e1) != cudaSuccess) {
                cudaEventDestroy(e0);
                goto out_free;
            }
            cudaEventRecord(e0, NULL);
            op_status st = op_run(op, ctx);
            cudaEventRecord(e1, NULL);
            cudaError_t e = cudaEventSynchronize(e1);
            if (e == cudaSuccess)
                e = cudaEventElapsedTime(&ms, e0, e1);
            cudaEventDestroy(e0);
            cudaEventDestroy(e1);
            if (st != OP_OK || e != cudaSuccess)
                goto out_free;
            t[i] = ms * 1e-3;
            continue;
        }
#endif
        double t0 = tool_now_s();
        if (run_once(op, ctx, dev) != OP_OK)
            goto out_free;
        t[i] = tool_now_s() - t0;
    }
    qsort(t, (size_t)iters, sizeof *t, cmp_double);
    median = iters % 2 ? t[iters / 2] : 0.5 * (t[iters / 2 - 1] + t[iters / 2]);
out_free:
    free(t);
    return median;
}

int tool_run_case(const tool_case *c, tool_input *in)
{
    const tool_reduce_args *a = &c->args;
    tool_input *own = NULL;
    op_context *ctx = NULL;
    unsigned char *out_host = NULL;
    void *out_dev = NULL;
    double *ref_f = NULL, *tol = NULL;
    int64_t *ref_i = NULL;
    int rc = 1;
    bool reported = false;
    char in_dims[TOOL_DIMS_STR_MAX], out_dims[TOOL_DIMS_STR_MAX], axes[TOOL_DIMS_STR_MAX] = "",
                                                                  dtb[32], odtb[32];
    const char *dtn = tool_dtype_name(c->dtype, dtb, sizeof dtb);

    tool_dims_str(in_dims, sizeof in_dims, true, (size_t)a->ndim, a->shape);
    if (!in && !(in = own = tool_input_create(c)))
        goto out;
    if (a->has_axes)
        tool_dims_str(axes, sizeof axes, true, a->naxes, a->axes);

    op_status st = op_context_create(&ctx);
    if (st != OP_OK) {
        fprintf(stderr, "opnn: op_context_create: %s\n", op_status_str(st));
        goto out;
    }
    DLTensor x = {
        .data = c->device == kDLCUDA ? in->dev : in->host,
        .device = {c->device, 0},
        .ndim = a->ndim,
        .dtype = c->dtype,
        .shape = (int64_t *)a->shape,
    };
    st = op_context_set_input(ctx, 0, &x);
    if (st == OP_OK)
        st = set_attrs(ctx, a);

    int32_t ondim = 0;
    int64_t oshape[OP_MAX_DIMS];
    DLDataType odt = {0, 0, 0};
    if (st == OP_OK)
        st = op_infer_output(a->op, ctx, 0, &ondim, oshape, &odt);
    if (st != OP_OK) {
        fprintf(stderr, "opnn: %s (%s)\n", op_context_error(ctx), op_status_str(st));
        goto out;
    }
    tool_dims_str(out_dims, sizeof out_dims, true, (size_t)ondim, oshape);
    const char *odtn = tool_dtype_name(odt, odtb, sizeof odtb);
    size_t osize = tool_dtype_size(odt);
    if (!osize) {
        fprintf(stderr, "opnn: %s: output dtype %s is not one the tool handles\n", a->op, odtn);
        goto out;
    }
    int64_t nout = 1;
    for (int32_t d = 0; d < ondim; d++)
        nout *= oshape[d];
    size_t obytes = (size_t)nout * osize;

    out_host = malloc(obytes + GUARD_BYTES);
    ref_f = malloc((size_t)nout * sizeof *ref_f + 1);
    tol = malloc((size_t)nout * sizeof *tol + 1);
    ref_i = malloc((size_t)nout * sizeof *ref_i + 1);
    if (!out_host || !ref_f || !tol || !ref_i) {
        fprintf(stderr, "opnn: cannot allocate the output (%zu bytes)\n", obytes);
        goto out;
    }
    memset(out_host, GUARD_BYTE, obytes + GUARD_BYTES);
    if (c->device == kDLCUDA && !(out_dev = dev_alloc(obytes)))
        goto out;
    DLTensor y = {
        .data = c->device == kDLCUDA ? out_dev : (void *)out_host,
        .device = {c->device, 0},
        .ndim = ondim,
        .dtype = odt,
        .shape = oshape,
    };
    st = op_context_set_output(ctx, 0, &y);
    if (st == OP_OK)
        st = run_once(a->op, ctx, c->device);
    if (st != OP_OK) {
        fprintf(stderr, "opnn: %s (%s)\n", op_context_error(ctx), op_status_str(st));
        goto out;
    }
    if (c->device == kDLCUDA && !dev_copy(out_host, out_dev, obytes, -1))
        goto out;

    /* check */
    bool checked = false, pass = true;
    tool_compare_result cmp = {.first_bad = -1};
    char why[256] = "";
    for (size_t i = obytes; i < obytes + GUARD_BYTES; i++) {
        if (out_host[i] != GUARD_BYTE) {
            snprintf(why, sizeof why, "wrote past the end of the output (byte %zu)", i - obytes);
            pass = false;
            break;
        }
    }
    if (pass && tool_reference(a, in->host, c->dtype, nout, ref_f, tol, ref_i, why, sizeof why)) {
        tool_compare(out_host, odt, nout, ref_f, tol, tool_dtype_is_int(odt) ? ref_i : NULL, &cmp);
        checked = true;
        pass = cmp.bad == 0;
    }

    /* time */
    int iters = c->iters > 0 ? c->iters : c->device == kDLCUDA ? 20 : 5;
    double sec = time_runs(a->op, ctx, c->device, iters);
    if (sec < 0.0) {
        fprintf(stderr, "opnn: timing %s failed: %s\n", a->op, op_context_error(ctx));
        pass = false;
    }
    double gbs = sec > 0.0 ? (double)(in->bytes + obytes) / sec * 1e-9 : 0.0;

    const char *verdict = !pass ? "FAIL" : checked ? "PASS" : "DONE";
    if (c->quiet) {
        printf("%s %-12s %s %s axes=%s on %s -> %s: max abs err %.3g, max rel err %.3g, "
               "%.3f ms, %.1f GB/s\n",
               verdict, a->op, dtn, in_dims, a->has_axes ? axes : "(none)",
               tool_device_name(c->device), out_dims, cmp.max_abs, cmp.max_rel, sec * 1e3, gbs);
    } else {
        printf("op        %s\n", a->op);
        printf("input     %s %s on %s (seed %llu)\n", dtn, in_dims, tool_device_name(c->device),
               (unsigned long long)c->seed);
        printf("attrs     axes=%s keepdims=%s noop_with_empty_axes=%s\n",
               a->has_axes ? axes : "(unset)", flag_name(a->keepdims), flag_name(a->noop));
        printf("output    %s %s\n", odtn, out_dims);
        if (checked)
            printf("error     max abs %.3g, max rel %.3g (%lld of %lld outside tolerance)\n",
                   cmp.max_abs, cmp.max_rel, (long long)cmp.bad, (long long)nout);
        printf("time      %.4f ms (median of %d)\n", sec * 1e3, iters);
        printf("bandwidth %.1f GB/s (input + output bytes)\n", gbs);
    }
    if (cmp.first_bad >= 0)
        printf("  first mismatch at output %lld: got %.9g, expected %.9g (tolerance %.3g)\n",
               (long long)cmp.first_bad, cmp.first_out, cmp.first_ref,
               tool_dtype_is_int(odt) ? 0.0 : tol[cmp.first_bad]);
    if (why[0])
        printf("  %s%s\n", checked || !pass ? "" : "not checked: ", why);
    if (!c->quiet)
        printf("%s\n", verdict);
    rc = pass ? 0 : 1;
    reported = true;

out:
    if (!reported && c->quiet)
        printf("FAIL %-12s %s %s: the call failed (above)\n", a->op, dtn, in_dims);
    op_context_destroy(ctx);
    dev_free(out_dev);
    free(out_host);
    free(ref_f);
    free(tol);
    free(ref_i);
    tool_input_destroy(own);
    return rc;
}
