/* Adds a kernel to a built-in op: ReduceSum on the CPU for u8 (every output element 42, which
 * no built-in writes for the test's input). With TP_EXTEND_FAIL its registration then fails, so
 * the load must leave the kernel out. Either way the kernel's code goes with the plugin. */
#include <string.h>

#include <opnn/opnn.h>

static op_status tp_extend_u8_sum(op_kernel_ctx *kc)
{
    const DLTensor *y = op_kernel_output(kc, 0);
    int64_t n = 1;
    for (int32_t i = 0; i < y->ndim; i++)
        n *= y->shape[i];
    memset((char *)y->data + y->byte_offset, 42, (size_t)n);
    return OP_OK;
}

static op_status tp_extend_register(op_registrar *r)
{
    OP_REGISTER_KERNEL(r, "ReduceSum", kDLCPU, OP_DTYPE(kDLUInt, 8), tp_extend_u8_sum, NULL);
#ifdef TP_EXTEND_FAIL
    return OP_ERR_INTERNAL;
#else
    return OP_OK;
#endif
}

#ifdef TP_EXTEND_FAIL
OP_PLUGIN_DEFINE("tp_extend_fail", tp_extend_register)
#else
OP_PLUGIN_DEFINE("tp_extend", tp_extend_register)
#endif
