/* Shared test helpers: seeded random data, fp16/bf16 conversion, tensors with guard bytes, and
 * an independent float64 reference reduction (a naive multi-index loop, no planner). */
#ifndef OPNN_TEST_SUPPORT_H
#define OPNN_TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include <opnn/opnn.h>

#define TS_GUARD_BYTES 64
#define TS_GUARD_BYTE 0xA5

/* --- random numbers (splitmix64), seeded; the seed is printed by ts_seed() --- */
typedef struct ts_rng {
    uint64_t s;
} ts_rng;
uint64_t ts_seed(const char *test_name); /* OPNN_TEST_SEED or a fixed default, printed */
uint64_t ts_next(ts_rng *r);
double ts_uniform(ts_rng *r);                        /* [0, 1) */
int64_t ts_range(ts_rng *r, int64_t lo, int64_t hi); /* [lo, hi] */

/* --- 16-bit floats --- */
uint16_t ts_f32_to_f16(float f);
float ts_f16_to_f32(uint16_t h);
uint16_t ts_f32_to_bf16(float f);
float ts_bf16_to_f32(uint16_t h);

/* --- dtypes --- */
DLDataType ts_dtype(const char *name); /* "f32" "f64" "f16" "bf16" "i32" "i64" */
const char *ts_dtype_name(DLDataType t);
size_t ts_dtype_size(DLDataType t);
bool ts_dtype_is_float(DLDataType t);
double ts_load(const void *base, DLDataType t, int64_t index); /* element as double */
int64_t ts_load_int(const void *base, DLDataType t, int64_t index);
void ts_store(void *base, DLDataType t, int64_t index, double v); /* rounds to t */

/* --- host buffers with guard bytes after the end --- */
typedef struct ts_buf {
    void *data;   /* elements */
    size_t bytes; /* without the guard */
} ts_buf;
ts_buf ts_buf_alloc(size_t bytes); /* fills data with 0x5A and the guard with TS_GUARD_BYTE */
bool ts_buf_guard_ok(const ts_buf *b);
void ts_buf_free(ts_buf *b);

/* Fills n elements at base (with element stride 1) with random values: floats uniform in
 * [-1, 1) (scaled by `scale`), ints in [-1000, 1000]. */
void ts_fill_random(ts_rng *r, void *base, DLDataType t, int64_t n, double scale);

/* A DLTensor over caller-owned storage. shape/strides are copied into the struct's arrays. */
typedef struct ts_tensor {
    DLTensor t;
    int64_t shape[16];
    int64_t strides[16];
} ts_tensor;
void ts_tensor_init(ts_tensor *x, void *data, DLDeviceType dev, DLDataType dtype, int32_t ndim,
                    const int64_t *shape, const int64_t *strides /* NULL: compact */);
int64_t ts_numel(int32_t ndim, const int64_t *shape);
/* Extent of storage (elements) that a strided view touches: max offset + 1 (0 if empty). */
int64_t ts_storage_elems(int32_t ndim, const int64_t *shape, const int64_t *strides);

/* --- the float64 reference --- */
typedef enum ts_op {
    TS_SUM,
    TS_MEAN,
    TS_MAX,
    TS_MIN,
    TS_PROD
} ts_op;
ts_op ts_op_from_name(const char *op); /* "ReduceSum" ... */

/* Reduces x over the dims in mask (bit i = dim i) into out_f (floats, n outputs) or out_i
 * (integers), in compact output order of the kept dims. Float results in double (sums and
 * means compensated, so within a few ulp of exact whatever N); integer results wrap like int64
 * then are truncated to the dtype's width. Returns the number of outputs (-1 if out of memory).
 * empty-set identities per DESIGN.md. */
int64_t ts_reference(ts_op op, const DLTensor *x, uint32_t mask, double *out_f, int64_t *out_i);

/* Compares output (dtype t, n elements) with the reference. Tolerance: relative+absolute per
 * dtype, scaled by sqrt(N) for sums (N = elements combined). NaN must match NaN, inf must match
 * the same inf, ints exactly. Prints the first mismatch with its index; returns true if equal. */
bool ts_check(const char *what, const void *out, DLDataType t, int64_t n, const double *ref_f,
              const int64_t *ref_i, int64_t red_n, ts_op op);

/* --- the example plugins' ops (examples/plugins: reduce_extra, argminmax) --- */
typedef enum ts_xop {
    TS_X_L1,
    TS_X_L2,
    TS_X_SUMSQ,
    TS_X_LOGSUM,
    TS_X_LOGSUMEXP,
    TS_X_ARGMAX,
    TS_X_ARGMIN,
    TS_X_COUNT
} ts_xop;
extern const char *const ts_xop_names[TS_X_COUNT]; /* "ReduceL1" ... "ArgMin" */
bool ts_xop_is_arg(ts_xop op);                     /* ArgMax, ArgMin */
bool ts_xop_floats_only(ts_xop op);                /* LogSum, LogSumExp */

/* One call: an input view (shape, strides in elements, offset in elements) and attributes. */
typedef struct ts_xcase {
    int32_t ndim;
    int64_t shape[8], strides[8];
    bool compact;    /* strides NULL */
    int64_t offset;  /* byte_offset / element size */
    int naxes;       /* -1: "axes" (or "axis") not set */
    int64_t axes[8]; /* ArgMax/ArgMin: axes[0] is "axis" */
    int keepdims;    /* -1: not set */
    int noop;        /* -1: not set (reduce ops only) */
    int select_last; /* -1: not set (ArgMax/ArgMin only) */
} ts_xcase;

/* A fixed large shape meant to reach one kernel family (its threads, split trees). */
typedef struct ts_xbig {
    const char *name;
    int32_t ndim;
    int64_t shape[4];
    int naxes;
    int64_t axes[4];
    bool transpose; /* storage with the first two dims swapped */
} ts_xbig;

/* The SM count (OPNN_CUDA_PLAN_SMS) the GPU tests plan the named shape for, so that it reaches
 * its plan on any device, or NULL (the device's own): "col_super_left" 8 (super-rows take 3000
 * KB an SM, 405 MB on an H200), "middle_warp_tiles" 2 (warp tiles of 32 lanes take a wave of
 * warps of units) */
const char *ts_plan_sms_for(const char *name);

/* The case of b for the d-th dtype of a sweep: keepdims and (ArgMax/ArgMin) select_last_index
 * alternate with d, the start is offset by d % 3 elements (scalar heads before the vectors). */
void ts_xcase_from_big(const ts_xbig *b, size_t d, ts_xop op, ts_xcase *c);

/* A random case for op: rank 0..5 (1..5 for ArgMax/ArgMin), sizes 0..7 with an occasional long
 * dim, permuted or padded or zero strides, a byte offset, random axes and flags; at most about
 * max_elems elements. ArgMax/ArgMin never get an empty reduced axis. */
void ts_xcase_random(ts_rng *r, ts_xop op, int64_t max_elems, ts_xcase *c);
/* Sets the case's attributes on ctx. */
op_status ts_xset_attrs(op_context *ctx, ts_xop op, const ts_xcase *c);
/* The dims the case reduces (bit i = dim i), as ONNX says; the attributes must be valid. */
uint32_t ts_xmask(ts_xop op, const ts_xcase *c);
/* Storage elements the case's view needs, offset included. */
int64_t ts_xstorage_elems(const ts_xcase *c);
/* A DLTensor over data for the case. */
void ts_xtensor(ts_tensor *x, const ts_xcase *c, void *data, DLDeviceType dev, DLDataType t);

typedef enum ts_xfill_mode {
    TS_XFILL_PLAIN,   /* floats in [-1, 1) (LogSum: (0, 1]), ints in [-1000, 1000] */
    TS_XFILL_TIES,    /* few distinct values: -3 .. 3 (halves for floats) */
    TS_XFILL_SPECIAL, /* TIES with some NaN, +inf, -inf among floats */
} ts_xfill_mode;
void ts_xfill(ts_rng *r, ts_xop op, void *base, DLDataType t, int64_t n, ts_xfill_mode mode);

/* The float64 reference of op over mask (bit i = dim i), outputs in compact order of the kept
 * dims: floats to out_f, integer results and indices to out_i. ArgMax/ArgMin take exactly one
 * bit; the first NaN wins (the last with select_last), then the first extreme (the last). Returns
 * the number of outputs, -1 if out of memory. */
int64_t ts_xreference(ts_xop op, const DLTensor *x, uint32_t mask, bool select_last, double *out_f,
                      int64_t *out_i);
/* Compares n outputs of op (dtype t; int64 indices for ArgMax/ArgMin) with the reference:
 * integers and indices exactly, floats within a relative tolerance per dtype (1 ulp for f16 and
 * bf16), plus an absolute one for the logs; NaN must match NaN, inf the same inf. */
bool ts_xcheck(const char *what, ts_xop op, const void *out, DLDataType t, int64_t n,
               const double *ref_f, const int64_t *ref_i);

/* "<function>/<scenario>", kept in a static pool for the life of the program (nothing to free,
 * nothing for LeakSanitizer to report); fn itself when the pool is full. */
const char *ts_case_name(const char *fn, const char *scenario);

/* True when msg contains one of the '|'-separated alternatives of want. */
bool ts_msg_has(const char *msg, const char *want);

/* A per-case seed: seed mixed with the case's name (FNV-1a), so each case draws its own data. */
uint64_t ts_seed_mix(uint64_t seed, const char *name);

/* Loads the example plugins reduce_extra and argminmax from OPNN_TEST_PLUGIN_DIR (cmocka group
 * setup; -1 with a printed reason if either fails) and unloads them (group teardown). */
int ts_load_example_plugins(void **state);
int ts_unload_example_plugins(void **state);

/* True when a CUDA device is present (always false in a build without CUDA). */
bool ts_have_cuda(void);

#endif /* OPNN_TEST_SUPPORT_H */
