/* op_context: bound tensors, attributes, stream, message, caches. */
#include "core/context_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/reduce_kernels.h"

op_status opnn__ctx_fail(op_context *ctx, op_status s, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->msg, sizeof(ctx->msg), fmt, ap);
        va_end(ap);
    }
    return s;
}

void opnn__ctx_ok(op_context *ctx)
{
    if (ctx)
        ctx->msg[0] = '\0';
}

op_status op_context_create(op_context **out)
{
    if (!out)
        return OP_ERR_INVALID_ARGUMENT;
    op_context *ctx = calloc(1, sizeof(*ctx));
    if (!ctx)
        return OP_ERR_OUT_OF_MEMORY;
    *out = ctx;
    return OP_OK;
}

static void opnn__attrs_free(op_context *ctx)
{
    for (size_t i = 0; i < ctx->num_attrs; i++)
        free(ctx->attrs[i].ints);
    ctx->num_attrs = 0;
    ctx->attr_gen++;
}

void op_context_destroy(op_context *ctx)
{
    if (!ctx)
        return;
    opnn__attrs_free(ctx);
    free(ctx->attrs);
    opnn__plan_cache_clear(ctx);
    opnn_cuda_state_destroy(ctx->cuda);
    free(ctx);
}

static op_status opnn__bind(op_context *ctx, opnn_bound *slots, const char *what, int index,
                            const DLTensor *t)
{
    if (!ctx)
        return OP_ERR_INVALID_ARGUMENT;
    if (index < 0 || index >= OP_MAX_TENSORS)
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                              "op_context_set_%s: index %d out of range [0, %d)", what, index,
                              OP_MAX_TENSORS);
    if (!t)
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT, "op_context_set_%s: %s %d is NULL",
                              what, what, index);
    if (t->ndim < 0)
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                              "op_context_set_%s: %s %d has negative ndim %d", what, what, index,
                              (int)t->ndim);
    if (t->ndim > OP_MAX_DIMS)
        return opnn__ctx_fail(ctx, OP_ERR_UNSUPPORTED,
                              "op_context_set_%s: %s %d has ndim %d, more than the %d supported",
                              what, what, index, (int)t->ndim, OP_MAX_DIMS);
    if (t->ndim > 0 && !t->shape)
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                              "op_context_set_%s: %s %d has ndim %d but a NULL shape", what, what,
                              index, (int)t->ndim);
    for (int32_t d = 0; d < t->ndim; d++) {
        if (t->shape[d] < 0)
            return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                                  "op_context_set_%s: %s %d has negative dim %d = %lld", what, what,
                                  index, (int)d, (long long)t->shape[d]);
        if (t->strides && t->strides[d] < 0 && t->shape[d] > 1) /* never stepped otherwise */
            return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                                  "op_context_set_%s: %s %d has negative stride %d = %lld", what,
                                  what, index, (int)d, (long long)t->strides[d]);
    }
    opnn_bound *b = &slots[index];
    b->t = *t;
    if (t->ndim > 0) /* rank 0 may come with a NULL shape */
        memcpy(b->shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
    b->t.shape = b->shape;
    if (t->strides && t->ndim > 0) {
        memcpy(b->strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
        b->t.strides = b->strides;
    }
    b->set = true;
    opnn__ctx_ok(ctx);
    return OP_OK;
}

op_status op_context_set_input(op_context *ctx, int index, const DLTensor *t)
{
    return opnn__bind(ctx, ctx ? ctx->inputs : NULL, "input", index, t);
}

op_status op_context_set_output(op_context *ctx, int index, const DLTensor *t)
{
    return opnn__bind(ctx, ctx ? ctx->outputs : NULL, "output", index, t);
}

const opnn_attr *opnn__ctx_attr(const op_context *ctx, const char *name)
{
    for (size_t i = 0; i < ctx->num_attrs; i++)
        if (!strcmp(ctx->attrs[i].name, name))
            return &ctx->attrs[i];
    return NULL;
}

/* Finds or appends the slot for name; the old value (if any) is freed. */
static op_status opnn__attr_slot(op_context *ctx, const char *fn, const char *name, opnn_attr **out)
{
    if (!ctx)
        return OP_ERR_INVALID_ARGUMENT;
    if (!name || !name[0])
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT, "%s: attribute name is %s", fn,
                              name ? "empty" : "NULL");
    if (strlen(name) >= OPNN_ATTR_NAME_MAX)
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                              "%s: attribute name '%.20s...' longer than %d bytes", fn, name,
                              OPNN_ATTR_NAME_MAX - 1);
    opnn_attr *a = (opnn_attr *)opnn__ctx_attr(ctx, name);
    if (!a) {
        if (ctx->num_attrs == ctx->cap_attrs) {
            size_t cap = ctx->cap_attrs ? ctx->cap_attrs * 2 : 8;
            opnn_attr *grown = realloc(ctx->attrs, cap * sizeof(*grown));
            if (!grown)
                return opnn__ctx_fail(ctx, OP_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
            ctx->attrs = grown;
            ctx->cap_attrs = cap;
        }
        a = &ctx->attrs[ctx->num_attrs++];
        memset(a, 0, sizeof(*a));
        strcpy(a->name, name);
    }
    ctx->attr_gen++; /* the caller writes the value next */
    *out = a;
    return OP_OK;
}

op_status op_context_set_attr_int(op_context *ctx, const char *name, int64_t v)
{
    opnn_attr *a;
    op_status st = opnn__attr_slot(ctx, "op_context_set_attr_int", name, &a);
    if (st != OP_OK)
        return st;
    free(a->ints);
    a->ints = NULL;
    a->n = 0;
    a->type = OP_ATTR_INT;
    a->i = v;
    opnn__ctx_ok(ctx);
    return OP_OK;
}

op_status op_context_set_attr_ints(op_context *ctx, const char *name, const int64_t *v, size_t n)
{
    if (ctx && n > 0 && !v)
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                              "op_context_set_attr_ints: values of '%s' are NULL with n = %zu",
                              name ? name : "(null)", n);
    if (ctx && n > OPNN_ATTR_INTS_MAX)
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                              "op_context_set_attr_ints: '%s' has %zu values, at most %d",
                              name ? name : "(null)", n, OPNN_ATTR_INTS_MAX);
    int64_t *copy = NULL;
    if (ctx && n > 0) {
        copy = malloc(n * sizeof(*copy));
        if (!copy)
            return opnn__ctx_fail(ctx, OP_ERR_OUT_OF_MEMORY,
                                  "op_context_set_attr_ints: out of memory");
        memcpy(copy, v, n * sizeof(*copy));
    }
    opnn_attr *a;
    op_status st = opnn__attr_slot(ctx, "op_context_set_attr_ints", name, &a);
    if (st != OP_OK) {
        free(copy);
        return st;
    }
    free(a->ints);
    a->type = OP_ATTR_INTS;
    a->ints = copy;
    a->n = n;
    opnn__ctx_ok(ctx);
    return OP_OK;
}

op_status op_context_set_attr_float(op_context *ctx, const char *name, double v)
{
    opnn_attr *a;
    op_status st = opnn__attr_slot(ctx, "op_context_set_attr_float", name, &a);
    if (st != OP_OK)
        return st;
    free(a->ints);
    a->ints = NULL;
    a->n = 0;
    a->type = OP_ATTR_FLOAT;
    a->f = v;
    opnn__ctx_ok(ctx);
    return OP_OK;
}

op_status op_context_set_stream(op_context *ctx, void *cuda_stream)
{
    if (!ctx)
        return OP_ERR_INVALID_ARGUMENT;
    ctx->stream = cuda_stream;
    opnn__ctx_ok(ctx);
    return OP_OK;
}

void op_context_clear(op_context *ctx)
{
    if (!ctx)
        return;
    for (int i = 0; i < OP_MAX_TENSORS; i++) {
        ctx->inputs[i].set = false;
        ctx->outputs[i].set = false;
    }
    opnn__attrs_free(ctx);
    opnn__ctx_ok(ctx);
}

const char *op_context_error(const op_context *ctx)
{
    return ctx ? ctx->msg : "op_context_error: context is NULL";
}
