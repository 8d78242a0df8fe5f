/* op_run and op_infer_output: look the op up, check the call against its schema, infer and
 * check the outputs, pick the kernel by (device, dtype), run it. The registry's read lock is
 * held for the whole call, so a plugin cannot be unloaded under a running kernel. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/context_impl.h"
#include "core/tensor.h"
#include "opnn/op.h"
#include "register/registry_impl.h"

static const char *opnn__attr_type_name(op_attr_type t)
{
    switch (t) {
    case OP_ATTR_INT:
        return "int";
    case OP_ATTR_INTS:
        return "ints";
    case OP_ATTR_FLOAT:
        return "float";
    }
    return "unknown";
}

static const op_attr_def *opnn__attr_def(const opnn_op *op, const char *name)
{
    for (size_t i = 0; i < op->num_attrs; i++)
        if (!strcmp(op->attrs[i].name, name))
            return &op->attrs[i];
    return NULL;
}

static op_status opnn__check_attrs(const opnn_op *op, op_context *ctx)
{
    if (ctx->memo.attrs_op == op && ctx->memo.attrs_gen == ctx->attr_gen)
        return OP_OK;
    for (size_t i = 0; i < ctx->num_attrs; i++) {
        const opnn_attr *a = &ctx->attrs[i];
        const op_attr_def *def = opnn__attr_def(op, a->name);
        if (!def)
            return opnn__ctx_fail(ctx, OP_ERR_NOT_FOUND, "%s: unknown attribute '%s'", op->name,
                                  a->name);
        if (def->type != a->type)
            return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                                  "%s: attribute '%s' must be %s, got %s", op->name, a->name,
                                  opnn__attr_type_name(def->type), opnn__attr_type_name(a->type));
    }
    ctx->memo.attrs_op = op;
    ctx->memo.attrs_gen = ctx->attr_gen;
    return OP_OK;
}

/* Checks one bound tensor's own fields (not its shape against the schema). */
static op_status opnn__check_tensor(const opnn_op *op, op_context *ctx, const char *what, int i,
                                    const opnn_bound *b)
{
    char dt[32];
    if (!b->set)
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT, "%s: %s %d is not bound", op->name,
                              what, i);
    const DLTensor *t = &b->t;
    int64_t n = opnn__numel(t->ndim, t->shape);
    if (n < 0) {
        char sh[OPNN_SHAPE_STR_MAX];
        opnn__shape_format(t->ndim, t->shape, sh, sizeof(sh));
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                              "%s: %s %d of shape %s has a negative dim, or dims (zeros aside) "
                              "whose product int64 cannot count",
                              op->name, what, i, sh);
    }
    if (t->dtype.lanes != 1) {
        opnn__dtype_format(t->dtype, dt, sizeof(dt));
        return opnn__ctx_fail(ctx, OP_ERR_UNSUPPORTED,
                              "%s: %s %d has vector dtype %s (lanes %u); only lanes 1 is served",
                              op->name, what, i, dt, (unsigned)t->dtype.lanes);
    }
    if (n > 0 && !t->data)
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                              "%s: %s %d data is NULL with %lld elements", op->name, what, i,
                              (long long)n);
    /* elements of 2 to 16 bytes (a power of two) on their own alignment: a CUDA kernel's load
     * from an address off it is a sticky error of the caller's CUDA context, and in C undefined */
    const unsigned es = t->dtype.bits % 8 == 0 ? t->dtype.bits / 8u : 1u;
    if (n > 0 && es > 1 && es <= 16 && (es & (es - 1)) == 0 &&
        ((uintptr_t)t->data + t->byte_offset) % es != 0)
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                              "%s: %s %d data %p with byte_offset %llu is not aligned to its "
                              "%u-byte elements",
                              op->name, what, i, t->data, (unsigned long long)t->byte_offset, es);
    return OP_OK;
}

static bool opnn__same_device(DLDevice a, DLDevice b)
{
    DLDeviceType ka = opnn__device_kind(a), kb = opnn__device_kind(b);
    return ka == kb && (ka == kDLCPU || a.device_id == b.device_id);
}

/* Everything op_infer_output and op_run share: attributes and inputs. */
static op_status opnn__check_inputs(const opnn_op *op, op_context *ctx)
{
    op_status st = opnn__check_attrs(op, ctx);
    if (st != OP_OK)
        return st;
    for (int i = 0; i < OP_MAX_TENSORS; i++) {
        if (i >= op->num_inputs) {
            if (ctx->inputs[i].set)
                return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                                      "%s: input %d is bound but the op takes %d input%s", op->name,
                                      i, op->num_inputs, op->num_inputs == 1 ? "" : "s");
            continue;
        }
        st = opnn__check_tensor(op, ctx, "input", i, &ctx->inputs[i]);
        if (st != OP_OK)
            return st;
        DLDevice d0 = ctx->inputs[0].t.device, di = ctx->inputs[i].t.device;
        if (!opnn__same_device(d0, di))
            return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                                  "%s: input %d is on %s:%d but input 0 is on %s:%d", op->name, i,
                                  opnn__device_name(di.device_type), (int)di.device_id,
                                  opnn__device_name(d0.device_type), (int)d0.device_id);
    }
    return OP_OK;
}

static op_status opnn__lookup(const char *fn, const char *name, op_context *ctx, opnn_op **out)
{
    if (!name)
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT, "%s: op name is NULL", fn);
    /* every call starts here: an op that left may be in the memo, so a new epoch drops it */
    const uint64_t epoch = opnn__registry_epoch();
    if (ctx->memo.epoch != epoch) {
        memset(&ctx->memo, 0, sizeof(ctx->memo));
        ctx->memo.epoch = epoch;
    }
    /* the previous call's op, if the name is its name */
    opnn_op *op = (opnn_op *)ctx->memo.op;
    if (!op || strcmp(op->name, name) != 0)
        op = opnn__op_find(name);
    if (!op)
        return opnn__ctx_fail(ctx, OP_ERR_NOT_FOUND, "%s: no op named '%s'", fn, name);
    ctx->memo.op = op;
    *out = op;
    return OP_OK;
}

static op_status opnn__infer(const opnn_op *op, op_context *ctx, int index, int32_t *ndim,
                             int64_t *shape, DLDataType *dtype)
{
    op_kernel_ctx kc = {ctx, op, NULL};
    op_status st = op->infer(&kc, index, ndim, shape, dtype);
    if (st == OP_OK && (*ndim < 0 || *ndim > OP_MAX_DIMS))
        return opnn__ctx_fail(ctx, OP_ERR_INTERNAL, "%s: inferred rank %d of output %d", op->name,
                              (int)*ndim, index);
    return st;
}

op_status op_infer_output(const char *name, op_context *ctx, int index, int32_t *ndim,
                          int64_t *shape, DLDataType *dtype)
{
    if (!ctx)
        return OP_ERR_INVALID_ARGUMENT;
    opnn__ctx_ok(ctx);
    if (!ndim || !shape || !dtype)
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                              "op_infer_output: %s: ndim, shape and dtype must not be NULL",
                              name ? name : "(null)");
    opnn__registry_init();
    opnn__registry_rdlock();
    opnn_op *op = NULL;
    op_status st = opnn__lookup("op_infer_output", name, ctx, &op);
    if (st != OP_OK)
        goto out_unlock;
    if (index < 0 || index >= op->num_outputs) {
        st =
            opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT, "%s: output index %d out of range [0, %d)",
                           op->name, index, op->num_outputs);
        goto out_unlock;
    }
    st = opnn__check_inputs(op, ctx);
    if (st != OP_OK)
        goto out_unlock;
    int32_t nd;
    int64_t sh[OP_MAX_DIMS];
    DLDataType dt;
    st = opnn__infer(op, ctx, index, &nd, sh, &dt);
    if (st != OP_OK)
        goto out_unlock;
    *ndim = nd;
    memcpy(shape, sh, sizeof(int64_t) * (size_t)nd);
    *dtype = dt;
out_unlock:
    opnn__registry_unlock();
    return st;
}

/* Checks output i against the inferred shape and dtype, its device and its layout. */
static op_status opnn__check_output(const opnn_op *op, op_context *ctx, int i)
{
    op_status st = opnn__check_tensor(op, ctx, "output", i, &ctx->outputs[i]);
    if (st != OP_OK)
        return st;
    const DLTensor *y = &ctx->outputs[i].t;
    DLDevice d0 = ctx->inputs[0].t.device;
    if (!opnn__same_device(y->device, d0))
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                              "%s: output %d is on %s:%d but input 0 is on %s:%d", op->name, i,
                              opnn__device_name(y->device.device_type), (int)y->device.device_id,
                              opnn__device_name(d0.device_type), (int)d0.device_id);
    int32_t nd;
    int64_t sh[OP_MAX_DIMS];
    DLDataType dt;
    st = opnn__infer(op, ctx, i, &nd, sh, &dt);
    if (st != OP_OK)
        return st;
    char want[32], got[32];
    if (dt.code != y->dtype.code || dt.bits != y->dtype.bits || dt.lanes != y->dtype.lanes) {
        opnn__dtype_format(dt, want, sizeof(want));
        opnn__dtype_format(y->dtype, got, sizeof(got));
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                              "%s: output %d has dtype %s, expected %s", op->name, i, got, want);
    }
    bool same = nd == y->ndim;
    for (int32_t d = 0; same && d < nd; d++)
        same = sh[d] == y->shape[d];
    if (!same) {
        char ws[OPNN_SHAPE_STR_MAX], gs[OPNN_SHAPE_STR_MAX];
        opnn__shape_format(nd, sh, ws, sizeof(ws));
        opnn__shape_format(y->ndim, y->shape, gs, sizeof(gs));
        return opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                              "%s: output %d has shape %s, expected %s", op->name, i, gs, ws);
    }
    if (!opnn__tensor_is_compact(y)) {
        char ss[OPNN_SHAPE_STR_MAX];
        opnn__shape_format(y->ndim, y->strides, ss, sizeof(ss));
        return opnn__ctx_fail(ctx, OP_ERR_UNSUPPORTED,
                              "%s: output %d has strides %s; outputs must be compact row-major",
                              op->name, i, ss);
    }
    return OP_OK;
}

op_status op_run(const char *name, op_context *ctx)
{
    if (!ctx)
        return OP_ERR_INVALID_ARGUMENT;
    opnn__ctx_ok(ctx);
    opnn__registry_init();
    opnn__registry_rdlock();
    opnn_op *op = NULL;
    op_status st = opnn__lookup("op_run", name, ctx, &op);
    if (st != OP_OK)
        goto out_unlock;
    st = opnn__check_inputs(op, ctx);
    if (st != OP_OK)
        goto out_unlock;
    for (int i = 0; i < OP_MAX_TENSORS; i++) {
        if (i >= op->num_outputs) {
            if (ctx->outputs[i].set) {
                st = opnn__ctx_fail(ctx, OP_ERR_INVALID_ARGUMENT,
                                    "%s: output %d is bound but the op has %d output%s", op->name,
                                    i, op->num_outputs, op->num_outputs == 1 ? "" : "s");
                goto out_unlock;
            }
            continue;
        }
        st = opnn__check_output(op, ctx, i);
        if (st != OP_OK)
            goto out_unlock;
    }
    const DLTensor *x = &ctx->inputs[0].t;
    DLDeviceType dev = opnn__device_kind(x->device);
    const opnn_kernel *k = opnn__kernel_find(op, dev, x->dtype);
    if (!k) {
        char dt[32];
        opnn__dtype_format(x->dtype, dt, sizeof(dt));
        st = opnn__ctx_fail(ctx, OP_ERR_UNSUPPORTED, "%s: no kernel for dtype %s on %s", op->name,
                            dt, opnn__device_name(dev));
        goto out_unlock;
    }
    op_kernel_ctx kc = {ctx, op, k};
    st = k->fn(&kc);
    if (st == OP_OK)
        opnn__ctx_ok(ctx);
    else if (!ctx->msg[0])
        opnn__ctx_fail(ctx, st, "%s: kernel failed: %s", op->name, op_status_str(st));
out_unlock:
    opnn__registry_unlock();
    return st;
}

/* --- what kernels may ask --- */

const char *op_kernel_op_name(const op_kernel_ctx *kc)
{
    return kc->op->name;
}

const DLTensor *op_kernel_input(const op_kernel_ctx *kc, int index)
{
    if (index < 0 || index >= kc->op->num_inputs || !kc->ctx->inputs[index].set)
        return NULL;
    return &kc->ctx->inputs[index].t;
}

const DLTensor *op_kernel_output(const op_kernel_ctx *kc, int index)
{
    if (!kc->kernel || index < 0 || index >= kc->op->num_outputs || !kc->ctx->outputs[index].set)
        return NULL;
    return &kc->ctx->outputs[index].t;
}

int64_t op_kernel_attr_int(const op_kernel_ctx *kc, const char *name)
{
    const opnn_attr *a = opnn__ctx_attr(kc->ctx, name);
    if (a && a->type == OP_ATTR_INT)
        return a->i;
    const op_attr_def *d = opnn__attr_def(kc->op, name);
    return d ? d->default_int : 0;
}

double op_kernel_attr_float(const op_kernel_ctx *kc, const char *name)
{
    const opnn_attr *a = opnn__ctx_attr(kc->ctx, name);
    if (a && a->type == OP_ATTR_FLOAT)
        return a->f;
    const op_attr_def *d = opnn__attr_def(kc->op, name);
    return d ? d->default_float : 0.0;
}

size_t op_kernel_attr_ints(const op_kernel_ctx *kc, const char *name, const int64_t **v)
{
    const opnn_attr *a = opnn__ctx_attr(kc->ctx, name);
    if (a && a->type == OP_ATTR_INTS && a->n > 0) {
        *v = a->ints;
        return a->n;
    }
    *v = NULL;
    return 0;
}

void *op_kernel_stream(const op_kernel_ctx *kc)
{
    return kc->ctx->stream;
}

const void *op_kernel_data(const op_kernel_ctx *kc)
{
    return kc->kernel ? kc->kernel->data : NULL;
}

op_context *op_kernel_context(const op_kernel_ctx *kc)
{
    return kc->ctx;
}

op_status op_kernel_fail(op_kernel_ctx *kc, op_status s, const char *fmt, ...)
{
    char body[OPNN_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof(body), fmt, ap);
    va_end(ap);
    return opnn__ctx_fail(kc->ctx, s, "%s: %s", kc->op->name, body);
}
