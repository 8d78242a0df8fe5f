/* opnn: the command-line program. `list` shows the registry, `run` runs one op on random data
 * and checks it against the float64 reference, `demo` runs the three headline reductions,
 * `bench` runs the benchmark suite (bench.c). Plugins given with --plugin register into the
 * shared library's registry before the command runs. */
#include "tool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLUGINS 32

static const char usage_text[] =
    "usage: opnn [--plugin PATH]... COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  list                 registered ops: doc, attributes with defaults, kernels\n"
    "  run OP --shape D0,D1,... [options]\n"
    "                       run OP on seeded random data, check it against a float64\n"
    "                       reference, print the error, the time and the bandwidth\n"
    "      --axes A,...     axes to reduce (\"\" for an empty list; unset: the op's default)\n"
    "      --dtype T        f32 (default), f64, f16, bf16, i32, i64\n"
    "      --keepdims 0|1   (unset: the op's default, 1)\n"
    "      --noop 0|1       noop_with_empty_axes (unset: 0)\n"
    "      --select-last 0|1  select_last_index of ArgMax/ArgMin\n"
    "      --device D       cpu or cuda (default: cuda when a device is present)\n"
    "      --seed N         random seed (default 42)\n"
    "      --iters N        timed repetitions (default 20 on cuda, 5 on cpu)\n"
    "  demo                 ReduceSum, ReduceMean, ReduceMax on [128,256,56,56] over axes [2,3]\n"
    "                       (GPU when there is one, else CPU), each checked: PASS/FAIL\n"
    "  bench [ARGS]         the benchmark suite (opnn bench --help)\n"
    "\n"
    "options:\n"
    "  --plugin PATH        load an op plugin (repeatable, before the command)\n"
    "  -h, --help           this text\n"
    "  --version            the library version\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "opnn: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n%s", usage_text);
    return 2;
}

static bool parse_flag(const char *s, int *out)
{
    if (strcmp(s, "0") != 0 && strcmp(s, "1") != 0)
        return false;
    *out = s[0] - '0';
    return true;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 0);
    if (end == s || *end || errno || s[0] == '-')
        return false;
    *out = x;
    return true;
}

/* --- list --- */

static const char *attr_type_name(op_attr_type t)
{
    switch (t) {
    case OP_ATTR_INT:
        return "int";
    case OP_ATTR_INTS:
        return "ints";
    case OP_ATTR_FLOAT:
        return "float";
    }
    return "?";
}

static int cmd_list(int argc, char **argv)
{
    (void)argv;
    if (argc > 1)
        return usage_error("list takes no arguments (got %s)", argv[1]);
    size_t n = op_list(NULL, 0);
    const char **names = calloc(n ? n : 1, sizeof *names);
    if (!names) {
        fprintf(stderr, "opnn: out of memory\n");
        return 1;
    }
    n = op_list(names, n);
    printf("%zu ops\n", n);
    for (size_t i = 0; i < n; i++) {
        op_info info;
        if (op_describe(names[i], &info) != OP_OK)
            continue;
        printf("\n%s  (%s; %d input%s, %d output%s)\n", info.name, info.plugin, info.num_inputs,
               info.num_inputs == 1 ? "" : "s", info.num_outputs, info.num_outputs == 1 ? "" : "s");
        if (info.doc[0])
            printf("    %s\n", info.doc);
        printf("    attributes:");
        if (!info.num_attrs)
            printf(" none");
        for (size_t a = 0; a < info.num_attrs; a++) {
            const op_attr_def *d = &info.attrs[a];
            printf("%s %s %s = ", a ? "," : "", d->name, attr_type_name(d->type));
            if (d->type == OP_ATTR_INT)
                printf("%lld", (long long)d->default_int);
            else if (d->type == OP_ATTR_FLOAT)
                printf("%g", d->default_float);
            else
                printf("[]");
        }
        printf("\n    kernels:");
        size_t nk = op_list_kernels(info.name, NULL, NULL, 0);
        DLDeviceType *devs = calloc(nk ? nk : 1, sizeof *devs);
        DLDataType *dts = calloc(nk ? nk : 1, sizeof *dts);
        if (!devs || !dts) {
            free(devs);
            free(dts);
            free(names);
            fprintf(stderr, "opnn: out of memory\n");
            return 1;
        }
        nk = op_list_kernels(info.name, devs, dts, nk);
        if (!nk)
            printf(" none");
        for (size_t k = 0; k < nk; k++) {
            char buf[32];
            if (k == 0 || devs[k] != devs[k - 1])
                printf("%s %s:", k ? ";" : "", tool_device_name(devs[k]));
            printf(" %s", tool_dtype_name(dts[k], buf, sizeof buf));
        }
        printf("\n");
        free(devs);
        free(dts);
    }
    free(names);
    return 0;
}

/* --- run --- */

typedef struct run_opts {
    tool_case c;
    int64_t shape[OP_MAX_DIMS];
    int64_t axes[OP_MAX_DIMS * 4];
    bool device_set;
} run_opts;

static int parse_run(int argc, char **argv, run_opts *o)
{
    tool_reduce_args *a = &o->c.args;
    *a = (tool_reduce_args){.keepdims = -1, .noop = -1, .select_last = -1};
    a->shape = o->shape;
    a->axes = o->axes;
    o->c.dtype = (DLDataType){kDLFloat, 32, 1};
    o->c.device = kDLCPU;
    o->c.seed = 42;
    bool have_shape = false;
    if (argc < 2 || argv[1][0] == '-')
        return usage_error("run: missing OP%s", "");
    a->op = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *opt = argv[i], *val;
        char name[32];
        const char *eq = strchr(opt, '=');
        if (strncmp(opt, "--", 2) != 0)
            return usage_error("run: unexpected argument %s", opt);
        if (eq) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - opt), opt);
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", opt);
            if (i + 1 >= argc)
                return usage_error("run: %s needs a value", opt);
            val = argv[++i];
        }
        uint64_t u;
        if (strcmp(name, "--shape") == 0) {
            size_t n;
            if (!tool_parse_ints(val, o->shape, OP_MAX_DIMS, &n))
                return usage_error("run: bad --shape %s (D0,D1,... up to 16 dims)", val);
            a->ndim = (int32_t)n;
            have_shape = true;
        } else if (strcmp(name, "--axes") == 0) {
            if (!tool_parse_ints(val, o->axes, sizeof o->axes / sizeof o->axes[0], &a->naxes))
                return usage_error("run: bad --axes %s (A0,A1,...)", val);
            a->has_axes = true;
        } else if (strcmp(name, "--dtype") == 0) {
            if (!tool_dtype_parse(val, &o->c.dtype))
                return usage_error("run: bad --dtype %s (f32, f64, f16, bf16, i32, i64)", val);
        } else if (strcmp(name, "--keepdims") == 0) {
            if (!parse_flag(val, &a->keepdims))
                return usage_error("run: bad --keepdims %s (0 or 1)", val);
        } else if (strcmp(name, "--noop") == 0) {
            if (!parse_flag(val, &a->noop))
                return usage_error("run: bad --noop %s (0 or 1)", val);
        } else if (strcmp(name, "--select-last") == 0) {
            if (!parse_flag(val, &a->select_last))
                return usage_error("run: bad --select-last %s (0 or 1)", val);
        } else if (strcmp(name, "--device") == 0) {
            if (strcmp(val, "cpu") == 0)
                o->c.device = kDLCPU;
            else if (strcmp(val, "cuda") == 0 || strcmp(val, "gpu") == 0)
                o->c.device = kDLCUDA;
            else
                return usage_error("run: bad --device %s (cpu or cuda)", val);
            o->device_set = true;
        } else if (strcmp(name, "--seed") == 0) {
            if (!parse_u64(val, &o->c.seed))
                return usage_error("run: bad --seed %s", val);
        } else if (strcmp(name, "--iters") == 0) {
            if (!parse_u64(val, &u) || u < 1 || u > 100000)
                return usage_error("run: bad --iters %s (1 to 100000)", val);
            o->c.iters = (int)u;
        } else {
            return usage_error("run: unknown option %s", name);
        }
    }
    if (!have_shape)
        return usage_error("run: --shape is required%s", "");
    return 0;
}

/* Picks the device: CUDA when asked for (or unset) and present, else the CPU. */
static DLDeviceType pick_device(bool requested, DLDeviceType want)
{
    const char *why = "";
    if (requested && want == kDLCPU)
        return kDLCPU;
    if (tool_cuda_available(&why))
        return kDLCUDA;
    if (requested)
        fprintf(stderr, "opnn: no CUDA device (%s); running on the CPU\n", why);
    return kDLCPU;
}

static int cmd_run(int argc, char **argv)
{
    run_opts o = {0};
    int rc = parse_run(argc, argv, &o);
    if (rc)
        return rc;
    o.c.device = pick_device(o.device_set, o.c.device);
    return tool_run_case(&o.c, NULL);
}

/* --- demo --- */

static int cmd_demo(int argc, char **argv)
{
    static const char *const ops[] = {"ReduceSum", "ReduceMean", "ReduceMax"};
    static const int64_t shape[] = {128, 256, 56, 56};
    static const int64_t axes[] = {2, 3};
    if (argc > 1)
        return usage_error("demo takes no arguments (got %s)", argv[1]);

    const char *why = "";
    bool gpu = tool_cuda_available(&why);
    tool_case c = {
        .args = {.op = ops[0],
                 .ndim = 4,
                 .shape = shape,
                 .has_axes = true,
                 .naxes = 2,
                 .axes = axes,
                 .keepdims = -1,
                 .noop = -1,
                 .select_last = -1},
        .dtype = {kDLFloat, 32, 1},
        .device = gpu ? kDLCUDA : kDLCPU,
        .seed = 42,
        .iters = gpu ? 20 : 3,
        .quiet = true,
    };
    printf("opnn demo: f32 [128,256,56,56], axes [2,3], on the %s%s%s%s\n", gpu ? "GPU" : "CPU",
           gpu ? "" : " (", gpu ? "" : why, gpu ? "" : ")");
    tool_input *in = tool_input_create(&c); /* shared: the three ops draw the same data */
    if (!in)
        return 1;
    int failed = 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        c.args.op = ops[i];
        if (tool_run_case(&c, in) != 0)
            failed++;
    }
    tool_input_destroy(in);
    printf("%d passed, %d failed\n", (int)(sizeof ops / sizeof ops[0]) - failed, failed);
    return failed ? 1 : 0;
}

#if !defined(OPNN_TOOL_HAVE_BENCH)
int opnn_tool_bench(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "opnn: bench not built (tools/bench.c is missing)\n");
    return 1;
}
#endif

int main(int argc, char **argv)
{
    op_plugin *plugins[MAX_PLUGINS];
    int nplugins = 0, rc = 0, i = 1;

    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0 || strcmp(arg, "help") == 0) {
            fputs(usage_text, stdout);
            goto out_unload;
        } else if (strcmp(arg, "--version") == 0) {
            printf("opnn %d.%d.%d\n", OPNN_VERSION_MAJOR, OPNN_VERSION_MINOR, OPNN_VERSION_PATCH);
            goto out_unload;
        } else if (strcmp(arg, "--plugin") == 0 || strncmp(arg, "--plugin=", 9) == 0) {
            const char *path = arg[8] == '=' ? arg + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!path) {
                rc = usage_error("--plugin needs a PATH%s", "");
                goto out_unload;
            }
            if (nplugins == MAX_PLUGINS) {
                fprintf(stderr, "opnn: at most %d plugins\n", MAX_PLUGINS);
                rc = 2;
                goto out_unload;
            }
            op_status st = op_load_plugin(path, &plugins[nplugins]);
            if (st != OP_OK) {
                fprintf(stderr, "opnn: cannot load plugin %s: %s (%s)\n", path, op_plugin_error(),
                        op_status_str(st));
                rc = 1;
                goto out_unload;
            }
            nplugins++;
        } else if (arg[0] == '-') {
            rc = usage_error("unknown option %s", arg);
            goto out_unload;
        } else {
            break;
        }
    }
    if (i == argc) {
        rc = usage_error("missing COMMAND%s", "");
        goto out_unload;
    }

    const char *cmd = argv[i];
    int cargc = argc - i;
    char **cargv = argv + i;
    if (strcmp(cmd, "list") == 0)
        rc = cmd_list(cargc, cargv);
    else if (strcmp(cmd, "run") == 0)
        rc = cmd_run(cargc, cargv);
    else if (strcmp(cmd, "demo") == 0)
        rc = cmd_demo(cargc, cargv);
    else if (strcmp(cmd, "bench") == 0)
        rc = opnn_tool_bench(cargc, cargv);
    else
        rc = usage_error("unknown command %s", cmd);

out_unload:
    while (nplugins > 0)
        op_unload_plugin(plugins[--nplugins]);
    /* results written to a full disk are lost: say so, and fail */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "opnn: cannot write the output: %s\n",
                errno ? strerror(errno) : "write error");
        rc = rc ? rc : 1;
    }
    return rc;
}
