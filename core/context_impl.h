/* The op_context's insides, shared by core/ and register/ (never by kernels). */
#ifndef OPNN_CORE_CONTEXT_IMPL_H
#define OPNN_CORE_CONTEXT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "core/plan.h"
#include "opnn/context.h"
#include "opnn/plugin.h"

#define OPNN_ATTR_NAME_MAX 64
#define OPNN_ATTR_INTS_MAX (OP_MAX_DIMS * 4)
#define OPNN_MSG_MAX 1024
#define OPNN_CHECKED_PTRS 16

typedef struct opnn_attr {
    char name[OPNN_ATTR_NAME_MAX];
    op_attr_type type;
    int64_t i;
    double f;
    int64_t *ints; /* owned; n values */
    size_t n;
} opnn_attr;

/* A bound tensor: the caller's DLTensor copied, with its shape and strides arrays copied too. */
typedef struct opnn_bound {
    bool set;
    DLTensor t;
    int64_t shape[OP_MAX_DIMS];
    int64_t strides[OP_MAX_DIMS];
} opnn_bound;

struct opnn_plan_entry; /* plan cache entry, core/plan_cache.c */
struct opnn_cuda_state;

struct op_context {
    opnn_bound inputs[OP_MAX_TENSORS];
    opnn_bound outputs[OP_MAX_TENSORS];
    opnn_attr *attrs;
    size_t num_attrs, cap_attrs;
    void *stream;
    char msg[OPNN_MSG_MAX];

    struct opnn_plan_entry *plans; /* uthash */
    struct opnn_plan_entry *last;  /* the entry the previous lookup found or added */
    size_t num_plans;
    uint64_t plans_epoch;          /* registry epoch the cache was filled under */
    opnn_reduce_plan plan_scratch; /* the latest plan when it could not be cached */

    struct opnn_cuda_state *cuda; /* workspace etc., created by the CUDA backend on first use */
    /* device pointers that passed the CUDA pointer check (a driver call), most recent first:
     * a program cycling through a few buffers checks each once */
    const void *checked_ptrs[OPNN_CHECKED_PTRS];

    /* Bumped whenever an attribute is set or the attributes are cleared. */
    uint64_t attr_gen;
    /* What the previous calls worked out, reused while nothing it depends on changed (a small
     * op_run is a few microseconds, and looking these up again was a tenth of it). All of it is
     * dropped when the registry epoch moves (ops leave only with a new epoch); within one:
     * - the op a name found;
     * - that the attributes (of generation attrs_gen) passed attrs_op's schema;
     * - op_reduce_mask's mask and keepdims for reduce_op, an input rank and attributes. */
    struct {
        uint64_t epoch;
        const void *op;
        const void *attrs_op;
        uint64_t attrs_gen;
        const void *reduce_op;
        uint64_t reduce_gen;
        int32_t reduce_ndim;
        uint32_t reduce_mask;
        bool reduce_keepdims;
    } memo;
};

/* Records "fmt..." as the context's message and returns s. ctx may be NULL. */
op_status opnn__ctx_fail(op_context *ctx, op_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Clears the message (a call starting). */
void opnn__ctx_ok(op_context *ctx);

/* The attribute of that name, or NULL. */
const opnn_attr *opnn__ctx_attr(const op_context *ctx, const char *name);

/* --- plan cache (core/plan_cache.c) --- */

/* What identifies a plan: everything the planner and the launch heuristics look at. */
typedef struct opnn_plan_key {
    uint64_t op_uid;
    int32_t ndim;
    int32_t device_type;
    int32_t device_id;
    uint32_t mask; /* reduced dims after axis normalisation */
    DLDataType dtype;
    uint8_t pad_[4];
    int64_t shape[OP_MAX_DIMS];
    int64_t strides[OP_MAX_DIMS];
} opnn_plan_key;

/* The cached plan for key, or NULL. Flushes the cache first if the registry changed since. */
const opnn_reduce_plan *opnn__plan_cache_get(op_context *ctx, const opnn_plan_key *key,
                                             uint64_t epoch);
/* Stores a copy of plan under key (evicting everything when the cache is full). Failure to
 * allocate only means no caching. */
void opnn__plan_cache_put(op_context *ctx, const opnn_plan_key *key, const opnn_reduce_plan *plan);
void opnn__plan_cache_clear(op_context *ctx);

#endif /* OPNN_CORE_CONTEXT_IMPL_H */
