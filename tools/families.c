/* opnn_families: times every CUDA kernel family that can serve one reduction, the planner's
 * choice first, so that a family choice or a launch parameter can be checked against the others
 * on the device itself. A developer's tool: it links the internal library and forces plans that
 * op_run would not make.
 *
 *   opnn_families --shape 16,16777216 --axes 0 [--dtype f32] [--strides S] [--offset E]
 *                 [--op sum|mean|max|min|prod] [--family NAME|planner|all]
 *                 [--sub N[,N..]] [--vec N] [--ranges N[,N..]] [--block N] [--grid N]
 *                 [--packs 0|1] [--reps N]
 *
 * Inputs of less than 1 MB are timed as a host loop of 10000 calls (the graph replays op_run
 * gets); larger ones as `opnn bench` times them: --reps calls enqueued behind a hold and run back
 * to back, each between two events, the best and the median printed, and beside them the read
 * kernel over the same bytes ("read at size"). Inputs under 4x the L2 rotate among copies, so
 * that every timed call reads from memory: an input that stayed in L2 from one call to the next
 * timed the cache, not DRAM ([8217, 1021] over 0: 18.3 us a call in L2, 22.7 from memory; H200).
 * GB/s counts input and output bytes, as `opnn bench` does. Exit status 77 when there is no CUDA
 * device. */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cuda.h"
#include "tool.h"

#include "core/launch.h"
#include "core/plan.h"
#include "kernel/reduce_kernels.h"

#define FAM_MAX_DIMS 8
#define FAM_SMALL_BYTES ((int64_t)1 << 20)
#define FAM_HOST_LOOP 10000
#define FAM_MAX_BUFS 64
#define FAM_MAX_LIST 8

typedef struct fam_args {
    int ndim, naxes, nstrides;
    int64_t shape[FAM_MAX_DIMS], axes[FAM_MAX_DIMS], strides[FAM_MAX_DIMS];
    int64_t offset; /* elements */
    DLDataType dtype;
    opnn_reduce_kind kind;
    const char *family; /* NULL or "all": every family; "planner": the planner's only */
    int vec, block, reps, packs;
    bool check; /* --check: random input, each plan's output against the float64 reference */
    int subs[FAM_MAX_LIST], nsub;      /* --sub values, each timed (0 values: the plan's) */
    int ranges[FAM_MAX_LIST], nranges; /* --ranges values, each timed with each --sub */
    int64_t grid, split;
} fam_args;

static const char usage[] =
    "usage: opnn_families --shape D0,D1,.. [--axes A0,..] [--dtype f32|f16|bf16|f64|i32|i64]\n"
    "                     [--strides S0,S1,..] [--offset ELEMENTS] [--op sum|mean|max|min|prod]\n"
    "                     [--family NAME|planner|all] [--sub N[,N..]] [--vec N]\n"
    "                     [--ranges N[,N..]] [--block 64|128|192|256] [--grid N] [--split N]\n"
    "                     [--packs 0|1] [--reps N] [--check 0|1]\n"
    "Times the planner's CUDA family and every other family that serves the reduction (or the\n"
    "one named); --sub, --vec, --ranges, --block and --grid override those launch fields of\n"
    "every plan timed, unchecked: a value its kernel does not support may compute garbage or\n"
    "fault (the launcher refuses some: a ROW_TILE block whose tiles pass 48 KB). --sub and\n"
    "--ranges take up to 8 values each: every pair is timed, on the same input. --grid is not\n"
    "applied to plans whose blocks write partials (their workspace is sized by the grid).\n"
    "--block on a group-kernel plan also scales its tiles (units), and its grid where it had a\n"
    "block a tile. --vec (a power of two) or --sub on an OUTER plan of whole units also sets\n"
    "its column tiles: sub loads of vec elements each (one element where vec passes 16 bytes);\n"
    "a split plan's units and workspace follow them, then --split.\n"
    "--split sets the slices of an OUTER plan of a block a unit, a run of vectors, super-rows\n"
    "or shift tiles (no R1): rows, units, grid and workspace follow.\n"
    "--packs 1 plans a MIDDLE slab plan of ROW_TILE with its pack fold (launch.ranges 3: lanes\n"
    "a slab and tiles as the planner plans them), --packs 0 with its element-wise fold (ranges\n"
    "1 or 2, the plan before the pack fold), before --sub/--ranges.\n"
    "--check 1 fills the input with random values (zeros otherwise) and checks each plan's\n"
    "output, after its timed calls, against the float64 reference: 'check ok' or 'WRONG'\n"
    "follows its time. An override's time counts only where its check is ok.\n";

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || *end || x < lo || x > hi)
        return -1;
    *out = (int)x;
    return 0;
}

/* "N[,N..]": up to FAM_MAX_LIST values in [lo, hi] into out[0 .. *n - 1] */
static int parse_int_list(const char *s, int lo, int hi, int *out, int *n)
{
    int64_t v[FAM_MAX_LIST];
    size_t k = 0;

    if (!tool_parse_ints(s, v, FAM_MAX_LIST, &k) || k == 0)
        return -1;
    for (size_t i = 0; i < k; i++) {
        if (v[i] < lo || v[i] > hi)
            return -1;
        out[i] = (int)v[i];
    }
    *n = (int)k;
    return 0;
}

/* --op's names, the ops they are (the reference's names for --check), and their kinds */
static const struct fam_op {
    const char *name, *op;
    opnn_reduce_kind kind;
} fam_ops[] = {{"sum", "ReduceSum", OPNN_REDUCE_SUM},
               {"mean", "ReduceMean", OPNN_REDUCE_MEAN},
               {"max", "ReduceMax", OPNN_REDUCE_MAX},
               {"min", "ReduceMin", OPNN_REDUCE_MIN},
               {"prod", "ReduceProd", OPNN_REDUCE_PROD}};

static int parse_kind(const char *s, opnn_reduce_kind *k)
{
    for (size_t i = 0; i < sizeof fam_ops / sizeof fam_ops[0]; i++)
        if (!strcmp(s, fam_ops[i].name)) {
            *k = fam_ops[i].kind;
            return 0;
        }
    return -1;
}

/* The op of kind k (the reference's name). */
static const char *op_of_kind(opnn_reduce_kind k)
{
    for (size_t i = 0; i < sizeof fam_ops / sizeof fam_ops[0]; i++)
        if (fam_ops[i].kind == k)
            return fam_ops[i].op;
    return "?";
}

/* Fills a from argv; prints what is wrong and returns -1 on bad arguments. */
static int parse_args(int argc, char **argv, fam_args *a)
{
    memset(a, 0, sizeof *a);
    a->dtype = (DLDataType){kDLFloat, 32, 1};
    a->kind = OPNN_REDUCE_SUM;
    a->naxes = -1; /* every axis */
    a->reps = 20;
    a->packs = -1;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            fputs(usage, stdout);
            exit(0);
        }
        if (!v) {
            fprintf(stderr, "opnn_families: %s needs a value\n", o);
            return -1;
        }
        size_t n = 0;
        if (!strcmp(o, "--shape")) {
            bad = !tool_parse_ints(v, a->shape, FAM_MAX_DIMS, &n) || n == 0;
            a->ndim = (int)n;
        } else if (!strcmp(o, "--axes")) {
            bad = !tool_parse_ints(v, a->axes, FAM_MAX_DIMS, &n);
            a->naxes = (int)n;
        } else if (!strcmp(o, "--strides")) {
            bad = !tool_parse_ints(v, a->strides, FAM_MAX_DIMS, &n) || n == 0;
            a->nstrides = (int)n;
        } else if (!strcmp(o, "--offset")) {
            int off;
            bad = parse_int(v, 0, 1 << 20, &off);
            a->offset = off;
        } else if (!strcmp(o, "--dtype"))
            bad = !tool_dtype_parse(v, &a->dtype);
        else if (!strcmp(o, "--op"))
            bad = parse_kind(v, &a->kind);
        else if (!strcmp(o, "--family"))
            a->family = v;
        else if (!strcmp(o, "--sub"))
            bad = parse_int_list(v, 1, 1024, a->subs, &a->nsub);
        else if (!strcmp(o, "--vec"))
            bad = parse_int(v, 1, 16, &a->vec) || (a->vec & (a->vec - 1)) != 0;
        else if (!strcmp(o, "--ranges"))
            bad = parse_int_list(v, 1, 64, a->ranges, &a->nranges);
        else if (!strcmp(o, "--block"))
            bad = parse_int(v, 64, 256, &a->block) || a->block % 64 != 0;
        else if (!strcmp(o, "--grid")) {
            int g;
            bad = parse_int(v, 1, 0x7fffffff, &g);
            a->grid = g;
        } else if (!strcmp(o, "--split")) {
            int sp;
            bad = parse_int(v, 1, 1 << 20, &sp);
            a->split = sp;
        } else if (!strcmp(o, "--packs"))
            bad = parse_int(v, 0, 1, &a->packs);
        else if (!strcmp(o, "--reps"))
            bad = parse_int(v, 1, 10000, &a->reps);
        else if (!strcmp(o, "--check")) {
            int c;
            bad = parse_int(v, 0, 1, &c);
            a->check = c == 1;
        } else {
            fprintf(stderr, "opnn_families: unknown option %s\n%s", o, usage);
            return -1;
        }
        if (bad) {
            fprintf(stderr, "opnn_families: bad value '%s' for %s\n", v, o);
            return -1;
        }
        i++;
    }
    if (a->ndim <= 0) {
        fprintf(stderr, "opnn_families: --shape is required\n%s", usage);
        return -1;
    }
    if (a->nstrides && a->nstrides != a->ndim) {
        fprintf(stderr, "opnn_families: --strides has %d values for %d dims\n", a->nstrides,
                a->ndim);
        return -1;
    }
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] < 0 || (a->nstrides && a->strides[d] < 0)) {
            fprintf(stderr, "opnn_families: dim %d: negative size or stride\n", d);
            return -1;
        }
    if (a->naxes < 0) {
        a->naxes = a->ndim;
        for (int d = 0; d < a->ndim; d++)
            a->axes[d] = d;
    }
    return 0;
}

/* Elements the view spans from its first element (0 for an empty tensor). */
static int64_t span_of(const fam_args *a, const int64_t *strides)
{
    int64_t last = 0;
    for (int d = 0; d < a->ndim; d++) {
        if (a->shape[d] == 0)
            return 0;
        last += (a->shape[d] - 1) * strides[d];
    }
    return last + 1;
}

typedef struct fam_buffers {
    void *in[FAM_MAX_BUFS], *out;
    int nbuf; /* copies of the input the timed calls rotate among */
    cudaStream_t stream;
    cudaEvent_t *ev; /* reps + 1 */
    int *hold;       /* bench_cuda_hold's flags: mapped pinned host memory */
    /* --check: the reference's values (ref_i for integer outputs) and tolerances, and a host
     * buffer for the output; ref_f NULL without --check */
    double *ref_f, *tol;
    int64_t *ref_i;
    void *out_host;
} fam_buffers;

/* Sorts t[0..n) (insertion sort: n is small). */
static void sort_times(double *t, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
}

/* The reps intervals between b->ev[0..reps] into t (microseconds), sorted; -1 on a CUDA error. */
static int held_times(const fam_args *a, const fam_buffers *b, double *t)
{
    if (bench_cuda_event_times(b->ev, a->reps, t) != 0)
        return -1;
    for (int k = 0; k < a->reps; k++)
        t[k] *= 1e6;
    sort_times(t, a->reps);
    return 0;
}

/* --check: the output the timed calls left in b->out against the reference, as a suffix of
 * the plan's line. */
static void check_output(const fam_args *a, const fam_buffers *b, int64_t nout)
{
    tool_compare_result r;
    const size_t bytes = (size_t)nout * (size_t)(a->dtype.bits / 8);

    if (!b->ref_f)
        return;
    if (cudaMemcpy(b->out_host, b->out, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
        printf(" [check: %s]", cudaGetErrorString(cudaGetLastError()));
        return;
    }
    tool_compare(b->out_host, a->dtype, nout, b->ref_f, b->tol,
                 tool_dtype_is_int(a->dtype) ? b->ref_i : NULL, &r);
    if (r.bad == 0)
        printf(" [check ok, max rel %.1e]", r.max_rel);
    else
        printf(" [WRONG: %" PRId64 " of %" PRId64 " outputs, first %" PRId64 ": %g, want %g]",
               r.bad, nout, r.first_bad, r.first_out, r.first_ref);
}

/* Runs plan and reports its time, or why it could not run. */
static void time_plan(const fam_args *a, const opnn_reduce_plan *plan, const fam_buffers *b,
                      const char *label, int64_t in_bytes, int64_t out_bytes)
{
    const opnn_launch *l = &plan->launch;
    char msg[512] = "";
    opnn_cuda_state *cs = NULL;
    op_status st = OP_OK;
    const int64_t off = a->offset * (a->dtype.bits / 8);
    const void *in = (const char *)b->in[0] + off;

    printf("%-8s %-18s grid %6" PRId64 " block %3d sub %3d vec %2d ranges %d split %5" PRId64
           " units %8" PRId64 ": ",
           label, opnn__cuda_family_name(l->family), l->grid_x, l->block, l->sub, l->vec, l->ranges,
           l->split, l->units);
    /* --check: the output starts as all-ones bytes (NaN, or -1), so that outputs a plan leaves
     * unwritten are not the previous plan's */
    if (b->ref_f && cudaMemsetAsync(b->out, 0xff, (size_t)out_bytes, b->stream) != cudaSuccess) {
        snprintf(msg, sizeof msg, "%s", cudaGetErrorString(cudaGetLastError()));
        st = OP_ERR_DEVICE;
    }
    for (int k = 0; k < 3 + b->nbuf && st == OP_OK; k++)
        st = opnn_cuda_reduce(plan, a->kind, (const char *)b->in[k % b->nbuf] + off, b->out,
                              b->stream, &cs, msg, sizeof msg);
    if (st == OP_OK && cudaStreamSynchronize(b->stream) != cudaSuccess) {
        snprintf(msg, sizeof msg, "%s", cudaGetErrorString(cudaGetLastError()));
        st = OP_ERR_DEVICE;
    }
    if (st != OP_OK) {
        printf("refused: %s\n", msg);
        opnn_cuda_state_destroy(cs);
        return;
    }
    if (in_bytes < FAM_SMALL_BYTES) {
        double t0 = tool_now_s();
        for (int k = 0; k < FAM_HOST_LOOP; k++)
            opnn_cuda_reduce(plan, a->kind, in, b->out, b->stream, &cs, msg, sizeof msg);
        cudaStreamSynchronize(b->stream);
        printf("%8.2f us a call (host loop)", (tool_now_s() - t0) / FAM_HOST_LOOP * 1e6);
        check_output(a, b, out_bytes / (a->dtype.bits / 8));
        printf("\n");
    } else {
        double *t = malloc((size_t)a->reps * sizeof *t);
        if (!t) {
            printf("out of host memory\n");
            opnn_cuda_state_destroy(cs);
            return;
        }
        /* the calls enqueued behind a hold, then released: back to back on the GPU, so that a
         * call's time is the GPU's and not the host's launch rate */
        bench_cuda_hold(b->stream, b->hold, BENCH_CUDA_HOLD_MS);
        cudaEventRecord(b->ev[0], b->stream);
        for (int k = 0; k < a->reps; k++) {
            opnn_cuda_reduce(plan, a->kind, (const char *)b->in[k % b->nbuf] + off, b->out,
                             b->stream, &cs, msg, sizeof msg);
            cudaEventRecord(b->ev[k + 1], b->stream);
        }
        bench_cuda_release(b->hold);
        if (held_times(a, b, t) == 0) {
            const double best = t[0], median = t[a->reps / 2];
            printf("best %9.1f us %6.0f GB/s, median %9.1f us%s", best,
                   (double)(in_bytes + out_bytes) / best * 1e-3, median,
                   *(volatile int *)&b->hold[1] ? " (host-bound: the hold timed out)" : "");
            check_output(a, b, out_bytes / (a->dtype.bits / 8));
            printf("\n");
        }
        free(t);
    }
    if (cudaGetLastError() != cudaSuccess)
        printf("         (a CUDA error was raised during the timing)\n");
    opnn_cuda_state_destroy(cs);
}

/* --vec, --block, --split and --grid on a plan whose ranges and sub are set */
static void apply_overrides(const fam_args *a, opnn_reduce_plan *plan)
{
    if (a->vec)
        plan->launch.vec = a->vec;
    if (a->block && plan->launch.kernel == OPNN_KERNEL_INNER_GROUP && plan->launch.split == 1 &&
        a->block != plan->launch.block) {
        /* a tile is a block's groups of rows: as many more tiles as the block is smaller, each
         * its own block where the plan gave each tile one (a tile past the rows reads nothing) */
        const bool own = plan->launch.grid_x == plan->launch.units;
        plan->launch.units = (plan->launch.units * plan->launch.block + a->block - 1) / a->block;
        if (own)
            plan->launch.grid_x = plan->launch.units;
    }
    if (a->block)
        plan->launch.block = a->block;
    /* --vec or --sub on an OUTER plan of block or warp units: its column tiles, units and
     * workspace follow, so that every column is still read; --split after that */
    if (a->vec || a->nsub)
        opnn__reduce_launch_outer_tiles(plan, plan->launch.sub, plan->launch.vec);
    if (a->split && !opnn__reduce_launch_outer_split(plan, a->split))
        printf("(--split not applied to %s: not an OUTER plan of one slab)\n",
               opnn__cuda_family_name(plan->launch.family));
    if (a->grid && plan->launch.workspace_bytes == 0)
        plan->launch.grid_x = a->grid;
    else if (a->grid)
        printf("(--grid not applied to %s: its blocks write partials)\n",
               opnn__cuda_family_name(plan->launch.family));
}

/* --check: random values into every input copy, the view gathered compact for the reference,
 * and the reference's values into b; false with a message on stderr when that fails. */
static bool check_setup(const fam_args *a, const int64_t *strides, size_t alloc, int64_t nout,
                        fam_buffers *b)
{
    const int64_t es = a->dtype.bits / 8, nstore = (int64_t)(alloc - 64) / es;
    int64_t n = 1, idx[FAM_MAX_DIMS] = {0};
    char err[256] = "";
    char *host = malloc(alloc), *cin;
    bool ok;

    for (int d = 0; d < a->ndim; d++)
        n *= a->shape[d];
    cin = malloc((size_t)(n > 0 ? n : 1) * (size_t)es);
    b->ref_f = malloc((size_t)(nout > 0 ? nout : 1) * sizeof(double));
    b->tol = malloc((size_t)(nout > 0 ? nout : 1) * sizeof(double));
    b->ref_i = malloc((size_t)(nout > 0 ? nout : 1) * sizeof(int64_t));
    b->out_host = malloc((size_t)(nout > 0 ? nout : 1) * (size_t)es);
    ok = host && cin && b->ref_f && b->tol && b->ref_i && b->out_host;
    if (ok) {
        tool_fill_random(0x5eed, op_of_kind(a->kind), host, a->dtype, nstore);
        for (int k = 0; ok && k < b->nbuf; k++)
            ok = cudaMemcpy(b->in[k], host, alloc, cudaMemcpyHostToDevice) == cudaSuccess;
        if (!ok)
            snprintf(err, sizeof err, "%s", cudaGetErrorString(cudaGetLastError()));
    } else
        snprintf(err, sizeof err, "out of host memory");
    /* the view's elements in order (last dim fastest) */
    for (int64_t i = 0; ok && i < n; i++) {
        int64_t off = a->offset;
        for (int d = 0; d < a->ndim; d++)
            off += idx[d] * strides[d];
        memcpy(cin + i * es, host + off * es, (size_t)es);
        for (int d = a->ndim - 1; d >= 0 && ++idx[d] == a->shape[d]; d--)
            idx[d] = 0;
    }
    if (ok) {
        const tool_reduce_args ra = {.op = op_of_kind(a->kind),
                                     .ndim = a->ndim,
                                     .shape = a->shape,
                                     .has_axes = true,
                                     .naxes = (size_t)a->naxes,
                                     .axes = a->axes,
                                     .keepdims = -1,
                                     .noop = -1,
                                     .select_last = -1};
        ok = tool_reference(&ra, cin, a->dtype, nout, b->ref_f, b->tol, b->ref_i, err, sizeof err);
    }
    free(host);
    free(cin);
    if (!ok) {
        fprintf(stderr, "opnn_families: --check: %s\n", err);
        free(b->ref_f);
        b->ref_f = NULL;
    }
    return ok;
}

int main(int argc, char **argv)
{
    fam_args a;
    if (parse_args(argc, argv, &a) != 0)
        return 2;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        (void)cudaGetLastError();
        printf("opnn_families: no CUDA device\n");
        return 77;
    }
    opnn_device_props props;
    char msg[512];
    if (opnn_cuda_device_props(&props, msg, sizeof msg) != OP_OK) {
        fprintf(stderr, "opnn_families: %s\n", msg);
        return 1;
    }

    int64_t strides[FAM_MAX_DIMS], c = 1;
    for (int d = a.ndim - 1; d >= 0; d--) {
        strides[d] = a.nstrides ? a.strides[d] : c;
        c *= a.shape[d];
    }
    const opnn_reduce_request req = {.op = "opnn_families",
                                     .ndim = a.ndim,
                                     .shape = a.shape,
                                     .strides = strides,
                                     .axes = a.axes,
                                     .num_axes = (size_t)a.naxes,
                                     .noop_with_empty_axes = false,
                                     .dtype = a.dtype};
    opnn_reduce_plan base;
    if (opnn__reduce_plan_init(&base, &req, msg, sizeof msg) != OP_OK) {
        fprintf(stderr, "opnn_families: %s\n", msg);
        return 1;
    }
    const int64_t es = a.dtype.bits / 8;
    const int64_t in_bytes = base.red_numel * base.out_numel * es, out_bytes = base.out_numel * es;
    const size_t alloc = (size_t)((span_of(&a, strides) + a.offset) * es) + 64;
    fam_buffers b = {{NULL}, NULL, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    int l2 = 0;
    if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, props.device_id) == cudaSuccess &&
        in_bytes >= FAM_SMALL_BYTES && alloc < 4 * (size_t)l2) {
        const size_t want = (4 * (size_t)l2 + alloc - 1) / alloc;
        b.nbuf = want < FAM_MAX_BUFS ? (int)want : FAM_MAX_BUFS;
    }
    (void)cudaGetLastError();
    /* the copies that could be allocated (one at least) */
    for (int k = 0; k < b.nbuf; k++)
        if (cudaMalloc(&b.in[k], alloc) != cudaSuccess ||
            cudaMemset(b.in[k], 0, alloc) != cudaSuccess) {
            cudaFree(b.in[k]);
            b.in[k] = NULL;
            b.nbuf = k;
            (void)cudaGetLastError();
        }
    b.ev = calloc((size_t)a.reps + 1, sizeof *b.ev);
    bool events = b.ev != NULL;
    for (int k = 0; events && k <= a.reps; k++)
        events = cudaEventCreate(&b.ev[k]) == cudaSuccess;
    if (b.nbuf == 0 || !events || cudaMalloc(&b.out, (size_t)(out_bytes + 64)) != cudaSuccess ||
        cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking) != cudaSuccess ||
        cudaHostAlloc((void **)&b.hold, 2 * sizeof(int), cudaHostAllocMapped) != cudaSuccess) {
        fprintf(stderr, "opnn_families: %s (%zu bytes of input)\n",
                cudaGetErrorString(cudaGetLastError()), alloc);
        return 1;
    }
    if (a.check && !check_setup(&a, strides, alloc, base.out_numel, &b))
        return 1;
    printf("cuda:%d (%d SMs, cc %d.%d), class %s, %" PRId64 " outputs of %" PRId64
           " elements, %" PRId64 " bytes in + out, %d input cop%s\n",
           props.device_id, props.sm_count, props.cc_major, props.cc_minor,
           opnn__reduce_class_name(base.cls), base.out_numel, base.red_numel, in_bytes + out_bytes,
           b.nbuf, b.nbuf == 1 ? "y" : "ies");
    if (in_bytes >= FAM_SMALL_BYTES) {
        /* `opnn bench`'s "read at size": its read kernel over the input's bytes, rotated */
        const double r = bench_cuda_read_at(b.in, b.nbuf, (size_t)in_bytes, props.sm_count, a.reps,
                                            b.stream, b.hold);
        if (r > 0)
            printf("read at size: %9.1f us %6.0f GB/s (the read kernel over the input's bytes, "
                   "median)\n",
                   (double)in_bytes / r * 1e-3, r);
    }

    /* the planner's plan unless another family is asked for, then each family asked for */
    const bool all = !a.family || !strcmp(a.family, "all");
    const bool planner_only = a.family && !strcmp(a.family, "planner");
    int timed = 0;
    for (int family = -1; family < OPNN_FAMILY_COUNT_; family++) {
        opnn_reduce_plan plan = base;
        if (family < 0) {
            opnn__reduce_plan_launch(&plan, &props);
            if (!all && !planner_only &&
                strcmp(a.family, opnn__cuda_family_name(plan.launch.family)) != 0)
                continue;
        } else {
            if (planner_only || (!all && strcmp(a.family, opnn__cuda_family_name(family)) != 0))
                continue;
            if (family <= OPNN_FAMILY_NONE || !opnn__reduce_launch_family(&plan, &props, family))
                continue;
        }
        if (a.packs >= 0 && (plan.launch.family != OPNN_FAMILY_ROW_TILE ||
                             !opnn__reduce_launch_tile_packs(&plan, &props, a.packs == 1))) {
            printf("(--packs not applied to %s: not a ROW_TILE slab plan with a pack fold)\n",
                   opnn__cuda_family_name(plan.launch.family));
            continue;
        }
        /* each --ranges with each --sub (the plan's where none is given), set before the other
         * overrides: --split reads the ranges and sizes the workspace by the sub */
        for (int ir = 0; ir < (a.nranges ? a.nranges : 1); ir++)
            for (int is = 0; is < (a.nsub ? a.nsub : 1); is++) {
                opnn_reduce_plan v = plan;
                if (a.nranges)
                    v.launch.ranges = a.ranges[ir];
                if (a.nsub)
                    v.launch.sub = a.subs[is];
                /* a warp a unit: BX lanes of 32 (more left a warp no rows: the kernel looped) */
                if (v.launch.kernel == OPNN_KERNEL_OUTER && v.launch.ranges == 1 &&
                    v.launch.sub > 32) {
                    printf("(--sub %d not applied to %s's warp units: 32 lanes a unit)\n",
                           v.launch.sub, opnn__cuda_family_name(v.launch.family));
                    continue;
                }
                apply_overrides(&a, &v);
                time_plan(&a, &v, &b, family < 0 ? "planner" : "forced", in_bytes, out_bytes);
            }
        timed++;
    }
    if (!timed)
        printf("no family named '%s' serves this reduction\n", a.family);
    for (int k = 0; k < FAM_MAX_BUFS; k++)
        cudaFree(b.in[k]);
    cudaFree(b.out);
    for (int k = 0; k <= a.reps; k++)
        cudaEventDestroy(b.ev[k]);
    free(b.ev);
    cudaFreeHost(b.hold);
    free(b.ref_f);
    free(b.tol);
    free(b.ref_i);
    free(b.out_host);
    return timed ? 0 : 1;
}
