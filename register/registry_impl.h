/* The op registry's insides, for the files in register/ only. */
#ifndef OPNN_REGISTER_REGISTRY_IMPL_H
#define OPNN_REGISTER_REGISTRY_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/hash.h"
#include "opnn/plugin.h"

typedef struct opnn_kernel {
    DLDeviceType device;
    DLDataType dtype;
    op_kernel_fn fn;
    const void *data;
    const struct op_registrar *owner; /* who added it: its code goes when that plugin does */
} opnn_kernel;

typedef struct opnn_op {
    char *name; /* owned; also the hash key */
    char *doc;  /* owned, never NULL */
    int num_inputs, num_outputs;
    op_attr_def *attrs; /* owned, names owned */
    size_t num_attrs;
    op_infer_fn infer;
    opnn_kernel *kernels; /* owned, sorted by (device, code, bits) */
    size_t num_kernels;
    op_registrar *owner; /* NULL: the host program */
    uint64_t uid;        /* unique per registration, for plan cache keys */
    bool staged;         /* registered by a plugin still loading: invisible to lookups */
    UT_hash_handle hh;
} opnn_op;

/* What a kernel or an inference function is handed (opaque in the public API). */
struct op_kernel_ctx {
    op_context *ctx;
    const opnn_op *op;
    const opnn_kernel *kernel; /* NULL during inference */
};

/* Everything one plugin (or the built-in set) registered, for rollback and unloading. */
struct op_registrar {
    const char *name; /* "builtin" or the plugin's name */
    char **ops;       /* owned copies of the names it added */
    size_t num_ops, cap_ops;
    bool staging; /* ops it adds stay invisible until opnn__registrar_commit */
};

/* The built-ins are registered on first use of any registry entry point. */
void opnn__registry_init(void);

/* Read lock for lookups and op_run; write lock for changes. */
void opnn__registry_rdlock(void);
void opnn__registry_wrlock(void);
void opnn__registry_unlock(void);

/* Lookups of visible ops; call with the lock held. */
opnn_op *opnn__op_find(const char *name);
const opnn_kernel *opnn__kernel_find(const opnn_op *op, DLDeviceType device, DLDataType dtype);

/* Why the calling thread's last registration failed ("" if it did not). */
const char *opnn__registry_error(void);

/* Bumped whenever an op is removed, so plan caches drop stale plans. */
uint64_t opnn__registry_epoch(void);

/* Makes a staging registrar's ops visible, all at once. */
void opnn__registrar_commit(op_registrar *r);

/* Removes every op a registrar added and every kernel it added to other ops (a plugin's kernel
 * for a built-in op), takes the write lock, and forgets them. */
void opnn__registrar_remove_all(op_registrar *r);

/* Registration without the once-guard, for the built-in initialiser itself (which runs inside
 * it). Same rules as op_register_op / op_register_kernel. */
op_status opnn__builtin_op(op_registrar *r, const op_schema *s);
op_status opnn__builtin_kernel(op_registrar *r, const char *op, DLDeviceType device,
                               DLDataType dtype, op_kernel_fn fn, const void *data);

/* op_reduce_prepare that also gives, for a CUDA call, the current device it found (which
 * opnn_cuda_reduce_on then need not ask CUDA for again); -1 for a CPU call. */
struct op_reduce_call;
op_status opnn__reduce_prepare(op_kernel_ctx *kc, uint32_t mask, struct op_reduce_call *call,
                               int *device);

/* Registers the built-in ops through r (register/reduce_ops.c). */
op_status opnn__register_builtins(op_registrar *r);

#endif /* OPNN_REGISTER_REGISTRY_IMPL_H */
