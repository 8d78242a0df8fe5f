/* The opnn command-line program: what its parts share. Nothing here is part of the library's
 * public API; the tool links only libopnn's public symbols.
 *
 *   opnn.c      argument parsing, `list`, `run`, `demo`
 *   reference.c seeded random data, dtype helpers, the float64 reference and the comparison
 *   runner.c    one checked, timed op call on the CPU or a CUDA device
 *   bench.c     `opnn bench` (opnn_tool_bench)
 */
#ifndef OPNN_TOOLS_TOOL_H
#define OPNN_TOOLS_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "opnn/opnn.h"

/* `opnn bench ARGS...`: argv[0] is "bench". Returns the process exit status. */
int opnn_tool_bench(int argc, char **argv);

/* --- seeded random numbers (splitmix64) --- */
typedef struct tool_rng {
    uint64_t s;
} tool_rng;
uint64_t tool_rng_next(tool_rng *r);
double tool_rng_uniform(tool_rng *r); /* [0, 1) */

/* --- dtypes --- */
/* "128,256,56,56" -> v (at most cap values, *n set); "" is an empty list. */
bool tool_parse_ints(const char *s, int64_t *v, size_t cap, size_t *n);
/* Room for "[v0,v1,...]" of OP_MAX_DIMS values of up to 20 characters. */
#define TOOL_DIMS_STR_MAX (OP_MAX_DIMS * 21 + 3)
/* "[128,256,56,56]" (brackets true) or "128,256,56,56" into buf, cut short if len is smaller. */
void tool_dims_str(char *buf, size_t len, bool brackets, size_t n, const int64_t *v);
/* Seconds on the monotonic clock. */
double tool_now_s(void);
/* Parses "f32" "f64" "f16" "bf16" "i32" "i64" (also "float32", "int64" ...). */
bool tool_dtype_parse(const char *s, DLDataType *out);
/* "f32" ...; "u8", "dt(code,bits,lanes)" for others. Returns buf or a static string. */
const char *tool_dtype_name(DLDataType t, char *buf, size_t len);
size_t tool_dtype_size(DLDataType t); /* 0 for a dtype the tool cannot handle */
bool tool_dtype_is_int(DLDataType t);
double tool_load(const void *base, DLDataType t, int64_t i);      /* element i as double */
int64_t tool_load_int(const void *base, DLDataType t, int64_t i); /* integer dtypes */
void tool_store(void *base, DLDataType t, int64_t i, double v);   /* rounds to nearest even */
const char *tool_device_name(DLDeviceType d);

/* Fills n elements with values drawn for @p op: uniform in [-1, 1) for floats, in [-1000, 1000]
 * for integers; ReduceProd gets factors near 1 (small integers), the log ops positive values,
 * so that results stay finite and meaningful. */
void tool_fill_random(uint64_t seed, const char *op, void *base, DLDataType t, int64_t n);

/* --- the float64 reference --- */

/* One reduction the reference knows: the attributes as the tool set them (-1: not set, the
 * op's default applies). */
typedef struct tool_reduce_args {
    const char *op;
    int32_t ndim;
    const int64_t *shape;
    bool has_axes; /* false: the attribute was not set */
    size_t naxes;
    const int64_t *axes;
    int keepdims;    /* -1: default (1) */
    int noop;        /* noop_with_empty_axes, -1: default (0) */
    int select_last; /* ArgMax/ArgMin select_last_index, -1: default (0) */
} tool_reduce_args;

/* True if the reference knows @p op: the built-in reductions and the example plugins' ops
 * (ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum, ReduceLogSumExp, ArgMax, ArgMin). */
bool tool_reference_knows(const char *op);

/* Reduces the compact tensor @p in (dtype @p t) as @p a describes, into @p nout expected values
 * (compact output order) and a tolerance for each. Integer results (integer inputs, and
 * ArgMax/ArgMin) are exact, as int64 in ref_i (already wrapped to the output width); float
 * results are in ref_f with tol. Returns false with a message in err when the arguments are
 * invalid for the reference (it does not replace the library's checks). */
bool tool_reference(const tool_reduce_args *a, const void *in, DLDataType t, int64_t nout,
                    double *ref_f, double *tol, int64_t *ref_i, char *err, size_t err_len);

/* Comparison of nout outputs (dtype t) with the reference. */
typedef struct tool_compare_result {
    double max_abs;    /* max |out - ref| (0 for NaN matching NaN) */
    double max_rel;    /* norm-wise: max_abs / max |ref| (finite refs) */
    int64_t bad;       /* outputs outside the tolerance */
    int64_t first_bad; /* index of the first, -1 if none */
    double first_out, first_ref;
} tool_compare_result;
void tool_compare(const void *out, DLDataType t, int64_t nout, const double *ref_f,
                  const double *tol, const int64_t *ref_i, tool_compare_result *res);

/* --- one checked, timed call (runner.c) --- */

typedef struct tool_case {
    tool_reduce_args args;
    DLDataType dtype;
    DLDeviceType device; /* kDLCPU or kDLCUDA */
    uint64_t seed;
    int iters;  /* timed repetitions after the checked call; 0: a default per device */
    bool quiet; /* only the one-line summary */
} tool_case;

/* A random input on the host (and on the device when the case runs there), reusable across
 * cases with the same shape, dtype, device and fill. */
typedef struct tool_input tool_input;

/* True when the CUDA runtime finds a device (always false in a build without CUDA). When it
 * does not, *why (if not NULL) gets the runtime's reason. */
bool tool_cuda_available(const char **why);

/* Creates the input for @p c (fills it as tool_fill_random does for c->args.op). Prints the
 * reason and returns NULL on failure. */
tool_input *tool_input_create(const tool_case *c);
void tool_input_destroy(tool_input *in);

/* Infers the output, runs the op once and checks it against the reference, then times
 * c->iters more calls; prints the result. Returns 0 on PASS, 1 on a failed check or an op
 * error. @p in may be NULL (made and freed here). */
int tool_run_case(const tool_case *c, tool_input *in);

#endif /* OPNN_TOOLS_TOOL_H */
