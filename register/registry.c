/* The op registry: a uthash table of schemas and their kernel tables, behind a read-write lock.
 * Built-ins are registered once, on first use of any entry point. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "core/tensor.h"
#include "opnn/op.h"
#include "register/registry_impl.h"

#define OPNN_OP_NAME_MAX 64

static opnn_op *g_ops; /* kept sorted by name */
static pthread_rwlock_t g_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static uint64_t g_next_uid = 1;
static uint64_t g_epoch; /* read under the lock */
static op_registrar g_builtin = {.name = "builtin"};
static _Thread_local char g_reg_msg[256];

const char *opnn__registry_error(void)
{
    return g_reg_msg;
}

void opnn__registry_rdlock(void)
{
    pthread_rwlock_rdlock(&g_lock);
}

void opnn__registry_wrlock(void)
{
    pthread_rwlock_wrlock(&g_lock);
}

void opnn__registry_unlock(void)
{
    pthread_rwlock_unlock(&g_lock);
}

uint64_t opnn__registry_epoch(void)
{
    return __atomic_load_n(&g_epoch, __ATOMIC_ACQUIRE);
}

/* Any op of that name, staged or not. */
static opnn_op *opnn__op_find_any(const char *name)
{
    opnn_op *op = NULL;
    HASH_FIND_STR(g_ops, name, op);
    return op;
}

opnn_op *opnn__op_find(const char *name)
{
    opnn_op *op = opnn__op_find_any(name);
    return op && !op->staged ? op : NULL;
}

static int opnn__kernel_cmp(DLDeviceType da, DLDataType ta, DLDeviceType db, DLDataType tb)
{
    if (da != db)
        return da < db ? -1 : 1;
    if (ta.code != tb.code)
        return ta.code < tb.code ? -1 : 1;
    if (ta.bits != tb.bits)
        return ta.bits < tb.bits ? -1 : 1;
    return 0;
}

const opnn_kernel *opnn__kernel_find(const opnn_op *op, DLDeviceType device, DLDataType dtype)
{
    if (dtype.lanes != 1)
        return NULL;
    for (size_t i = 0; i < op->num_kernels; i++)
        if (!opnn__kernel_cmp(op->kernels[i].device, op->kernels[i].dtype, device, dtype))
            return &op->kernels[i];
    return NULL;
}

static void opnn__op_free(opnn_op *op)
{
    if (!op)
        return;
    for (size_t i = 0; i < op->num_attrs; i++)
        free((char *)op->attrs[i].name);
    free(op->attrs);
    free(op->kernels);
    free(op->doc);
    free(op->name);
    free(op);
}

static char *opnn__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

static int opnn__op_cmp(const void *a, const void *b)
{
    return strcmp(((const opnn_op *)a)->name, ((const opnn_op *)b)->name);
}

static op_status opnn__schema_check(const op_schema *s)
{
    if (!s || !s->name || !s->name[0] || strlen(s->name) >= OPNN_OP_NAME_MAX || !s->infer)
        return OP_ERR_INVALID_ARGUMENT;
    if (s->num_inputs < 1 || s->num_inputs > OP_MAX_TENSORS || s->num_outputs < 1 ||
        s->num_outputs > OP_MAX_TENSORS)
        return OP_ERR_INVALID_ARGUMENT;
    if (s->num_attrs > 0 && !s->attrs)
        return OP_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < s->num_attrs; i++) {
        const op_attr_def *a = &s->attrs[i];
        if (!a->name || !a->name[0] || strlen(a->name) >= OPNN_OP_NAME_MAX)
            return OP_ERR_INVALID_ARGUMENT;
        if (a->type != OP_ATTR_INT && a->type != OP_ATTR_INTS && a->type != OP_ATTR_FLOAT)
            return OP_ERR_INVALID_ARGUMENT;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(s->attrs[j].name, a->name))
                return OP_ERR_INVALID_ARGUMENT;
    }
    return OP_OK;
}

/* Copies the schema into a fresh op. */
static opnn_op *opnn__op_create(const op_schema *s, op_registrar *r)
{
    opnn_op *op = calloc(1, sizeof(*op));
    if (!op)
        return NULL;
    op->name = opnn__strdup(s->name);
    op->doc = opnn__strdup(s->doc ? s->doc : "");
    op->attrs = calloc(s->num_attrs ? s->num_attrs : 1, sizeof(*op->attrs));
    if (!op->name || !op->doc || !op->attrs)
        goto out_free_op;
    for (size_t i = 0; i < s->num_attrs; i++) {
        op->attrs[i] = s->attrs[i];
        op->attrs[i].name = opnn__strdup(s->attrs[i].name);
        op->num_attrs = i + 1;
        if (!op->attrs[i].name)
            goto out_free_op;
    }
    op->num_inputs = s->num_inputs;
    op->num_outputs = s->num_outputs;
    op->infer = s->infer;
    op->owner = r;
    return op;

out_free_op:
    opnn__op_free(op);
    return NULL;
}

static op_status opnn__registrar_note(op_registrar *r, const char *name)
{
    if (r->num_ops == r->cap_ops) {
        size_t cap = r->cap_ops ? r->cap_ops * 2 : 8;
        char **grown = realloc(r->ops, cap * sizeof(*grown));
        if (!grown)
            return OP_ERR_OUT_OF_MEMORY;
        r->ops = grown;
        r->cap_ops = cap;
    }
    r->ops[r->num_ops] = opnn__strdup(name);
    if (!r->ops[r->num_ops])
        return OP_ERR_OUT_OF_MEMORY;
    r->num_ops++;
    return OP_OK;
}

/* Registration without the once-guard (used by the built-in initialiser itself). */
static op_status opnn__register_op_impl(op_registrar *r, const op_schema *s)
{
    g_reg_msg[0] = '\0';
    op_status st = opnn__schema_check(s);
    if (st != OP_OK) {
        snprintf(g_reg_msg, sizeof(g_reg_msg), "op_register_op: invalid schema for '%.64s'",
                 s && s->name ? s->name : "(null)");
        return st;
    }
    opnn_op *op = opnn__op_create(s, r);
    if (!op)
        return OP_ERR_OUT_OF_MEMORY;

    opnn__registry_wrlock();
    if (opnn__op_find_any(op->name)) {
        snprintf(g_reg_msg, sizeof(g_reg_msg), "op_register_op: an op named '%s' exists already",
                 op->name);
        st = OP_ERR_ALREADY_EXISTS;
        goto out_unlock;
    }
    if (r) {
        st = opnn__registrar_note(r, op->name);
        if (st != OP_OK)
            goto out_unlock;
    }
    op->uid = g_next_uid++;
    op->staged = r && r->staging;
    opnn__hash_oomed = 0;
    HASH_ADD_KEYPTR_INORDER(hh, g_ops, op->name, strlen(op->name), op, opnn__op_cmp);
    if (opnn__hash_oomed) {
        if (r)
            free(r->ops[--r->num_ops]);
        st = OP_ERR_OUT_OF_MEMORY;
        goto out_unlock;
    }
    op = NULL; /* owned by the table now */
out_unlock:
    opnn__registry_unlock();
    opnn__op_free(op);
    return st;
}

static op_status opnn__register_kernel_impl(op_registrar *r, const char *name, DLDeviceType device,
                                            DLDataType dtype, op_kernel_fn fn, const void *data)
{
    g_reg_msg[0] = '\0';
    if (!name || !fn || dtype.lanes != 1) {
        snprintf(g_reg_msg, sizeof(g_reg_msg), "op_register_kernel: %s",
                 !name ? "op name is NULL"
                 : !fn ? "kernel function is NULL"
                       : "dtype lanes is not 1 (vector dtypes are not served)");
        return OP_ERR_INVALID_ARGUMENT;
    }
    op_status st = OP_OK;
    opnn__registry_wrlock();
    opnn_op *op = opnn__op_find_any(name);
    /* a plugin may add kernels only to visible ops or to its own staged ones */
    if (!op || (op->staged && op->owner != r)) {
        snprintf(g_reg_msg, sizeof(g_reg_msg), "op_register_kernel: no op named '%.64s'", name);
        st = OP_ERR_NOT_FOUND;
        goto out_unlock;
    }
    if (opnn__kernel_find(op, device, dtype)) {
        snprintf(g_reg_msg, sizeof(g_reg_msg),
                 "op_register_kernel: '%s' has a kernel for that device and dtype already", name);
        st = OP_ERR_ALREADY_EXISTS;
        goto out_unlock;
    }
    opnn_kernel *grown = realloc(op->kernels, (op->num_kernels + 1) * sizeof(*grown));
    if (!grown) {
        st = OP_ERR_OUT_OF_MEMORY;
        goto out_unlock;
    }
    op->kernels = grown;
    size_t at = op->num_kernels;
    while (at > 0 &&
           opnn__kernel_cmp(grown[at - 1].device, grown[at - 1].dtype, device, dtype) > 0) {
        grown[at] = grown[at - 1];
        at--;
    }
    grown[at] = (opnn_kernel){device, dtype, fn, data, r};
    op->num_kernels++;
out_unlock:
    opnn__registry_unlock();
    return st;
}

/* Removes one op; call with the write lock held. */
static void opnn__op_remove_locked(opnn_op *op)
{
    HASH_DEL(g_ops, op);
    opnn__op_free(op);
    __atomic_add_fetch(&g_epoch, 1, __ATOMIC_RELEASE);
}

static void opnn__registry_init_once(void)
{
    /* Built-ins cannot clash with each other; a failure here is out of memory, which leaves
     * the missing ops unregistered (op_run reports NOT_FOUND) rather than aborting. */
    (void)opnn__register_builtins(&g_builtin);
}

void opnn__registry_init(void)
{
    pthread_once(&g_once, opnn__registry_init_once);
}

op_status opnn__builtin_op(op_registrar *r, const op_schema *s)
{
    return opnn__register_op_impl(r, s);
}

op_status opnn__builtin_kernel(op_registrar *r, const char *op, DLDeviceType device,
                               DLDataType dtype, op_kernel_fn fn, const void *data)
{
    return opnn__register_kernel_impl(r, op, device, dtype, fn, data);
}

/* --- public entry points --- */

op_status op_register_op(op_registrar *r, const op_schema *schema)
{
    opnn__registry_init();
    return opnn__register_op_impl(r, schema);
}

op_status op_register_kernel(op_registrar *r, const char *op, DLDeviceType device, DLDataType dtype,
                             op_kernel_fn fn, const void *data)
{
    opnn__registry_init();
    return opnn__register_kernel_impl(r, op, device, dtype, fn, data);
}

op_status op_unregister_op(const char *name)
{
    if (!name)
        return OP_ERR_INVALID_ARGUMENT;
    opnn__registry_init();
    op_status st = OP_OK;
    opnn__registry_wrlock();
    opnn_op *op = opnn__op_find(name);
    if (!op)
        st = OP_ERR_NOT_FOUND;
    else if (op->owner) /* a plugin's or a built-in: unload the plugin instead */
        st = OP_ERR_INVALID_ARGUMENT;
    else
        opnn__op_remove_locked(op);
    opnn__registry_unlock();
    return st;
}

void opnn__registrar_commit(op_registrar *r)
{
    opnn__registry_wrlock();
    for (size_t i = 0; i < r->num_ops; i++) {
        opnn_op *op = opnn__op_find_any(r->ops[i]);
        if (op && op->owner == r)
            op->staged = false;
    }
    r->staging = false;
    opnn__registry_unlock();
}

void opnn__registrar_remove_all(op_registrar *r)
{
    opnn__registry_wrlock();
    for (size_t i = 0; i < r->num_ops; i++) {
        opnn_op *op = opnn__op_find_any(r->ops[i]);
        if (op && op->owner == r)
            opnn__op_remove_locked(op);
        free(r->ops[i]);
    }
    r->num_ops = 0;
    /* its kernels for other registrars' ops (a built-in op's kernel for another dtype): their
     * code goes with it (op_run looks kernels up under the read lock, every call) */
    for (opnn_op *op = g_ops; op; op = op->hh.next) {
        size_t kept = 0;
        for (size_t k = 0; k < op->num_kernels; k++)
            if (op->kernels[k].owner != r)
                op->kernels[kept++] = op->kernels[k];
        op->num_kernels = kept;
    }
    opnn__registry_unlock();
}

size_t op_list(const char **names, size_t capacity)
{
    opnn__registry_init();
    opnn__registry_rdlock();
    size_t n = 0;
    for (opnn_op *op = g_ops; op; op = op->hh.next) {
        if (op->staged)
            continue;
        if (names && n < capacity)
            names[n] = op->name;
        n++;
    }
    opnn__registry_unlock();
    return n;
}

op_status op_describe(const char *name, op_info *info)
{
    if (!name || !info)
        return OP_ERR_INVALID_ARGUMENT;
    opnn__registry_init();
    opnn__registry_rdlock();
    opnn_op *op = opnn__op_find(name);
    if (op) {
        info->name = op->name;
        info->doc = op->doc;
        info->plugin = op->owner ? op->owner->name : "host";
        info->num_inputs = op->num_inputs;
        info->num_outputs = op->num_outputs;
        info->attrs = op->attrs;
        info->num_attrs = op->num_attrs;
    }
    opnn__registry_unlock();
    return op ? OP_OK : OP_ERR_NOT_FOUND;
}

size_t op_list_kernels(const char *name, DLDeviceType *devices, DLDataType *dtypes, size_t capacity)
{
    if (!name)
        return 0;
    opnn__registry_init();
    opnn__registry_rdlock();
    size_t n = 0;
    opnn_op *op = opnn__op_find(name);
    if (op) {
        n = op->num_kernels;
        for (size_t i = 0; i < n && i < capacity; i++) {
            if (devices)
                devices[i] = op->kernels[i].device;
            if (dtypes)
                dtypes[i] = op->kernels[i].dtype;
        }
    }
    opnn__registry_unlock();
    return n;
}
