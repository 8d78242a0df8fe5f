/* Shared by the test plugins: one tiny elementwise op "y = x * scale" on the CPU for f32. */
#ifndef OPNN_TP_COMMON_H
#define OPNN_TP_COMMON_H

#include <opnn/opnn.h>

static const op_attr_def tp_scale_attrs[] = {{"scale", OP_ATTR_FLOAT, 0, 2.0}};

static op_status tp_same_infer(op_kernel_ctx *kc, int index, int32_t *ndim, int64_t *shape,
                               DLDataType *dtype)
{
    (void)index;
    const DLTensor *x = op_kernel_input(kc, 0);
    *ndim = x->ndim;
    for (int32_t i = 0; i < x->ndim; i++)
        shape[i] = x->shape[i];
    *dtype = x->dtype;
    return OP_OK;
}

static op_status tp_scale_cpu(op_kernel_ctx *kc)
{
    const DLTensor *x = op_kernel_input(kc, 0), *y = op_kernel_output(kc, 0);
    if (x->strides)
        return op_kernel_fail(kc, OP_ERR_UNSUPPORTED, "input 0 must be compact");
    double scale = op_kernel_attr_float(kc, "scale");
    int64_t n = 1;
    for (int32_t i = 0; i < x->ndim; i++)
        n *= x->shape[i];
    const float *in = (const float *)((const char *)x->data + x->byte_offset);
    float *out = (float *)((char *)y->data + y->byte_offset);
    for (int64_t i = 0; i < n; i++)
        out[i] = (float)(in[i] * scale);
    return OP_OK;
}

static op_status tp_register_scale(op_registrar *r, const char *name)
{
    op_schema s = {name, "test: y = x * scale", 1, 1, tp_scale_attrs, 1, tp_same_infer};
    OP_REGISTER_OP(r, &s);
    OP_REGISTER_KERNEL(r, name, kDLCPU, OP_DTYPE(kDLFloat, 32), tp_scale_cpu, NULL);
    return OP_OK;
}

#endif /* OPNN_TP_COMMON_H */
