/* DLPack helpers. */
#include "core/tensor.h"

#include <stdio.h>
#include <string.h>

int64_t opnn__numel(int32_t ndim, const int64_t *shape)
{
    /* the dims other than zeros must multiply within int64 too, wherever a zero is: an empty
     * [0, 2^62, 4]'s compact strides would overflow, as [2^62, 4, 0]'s would */
    int64_t n = 1;
    bool empty = false;
    for (int32_t i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return -1;
        if (shape[i] == 0) {
            empty = true;
            continue;
        }
        if (n > INT64_MAX / shape[i])
            return -1;
        n *= shape[i];
    }
    return empty ? 0 : n;
}

bool opnn__tensor_is_compact(const DLTensor *t)
{
    if (!t->strides)
        return true;
    int64_t expect = 1;
    for (int32_t i = t->ndim - 1; i >= 0; i--) {
        if (t->shape[i] == 0)
            return true; /* an empty tensor has no layout to violate */
        if (t->shape[i] != 1 && t->strides[i] != expect)
            return false;
        expect *= t->shape[i];
    }
    return true;
}

DLDeviceType opnn__device_kind(DLDevice d)
{
    switch (d.device_type) {
    case kDLCUDAHost:
        return kDLCPU;
    case kDLCUDAManaged:
        return kDLCUDA;
    default:
        return d.device_type;
    }
}

const char *opnn__device_name(DLDeviceType t)
{
    switch (t) {
    case kDLCPU:
        return "cpu";
    case kDLCUDA:
        return "cuda";
    case kDLCUDAHost:
        return "cuda_host";
    case kDLCUDAManaged:
        return "cuda_managed";
    case kDLOpenCL:
        return "opencl";
    case kDLVulkan:
        return "vulkan";
    case kDLMetal:
        return "metal";
    case kDLROCM:
        return "rocm";
    default:
        return "unknown device";
    }
}

/* Any dtype, served or not, in the short notation of opnn__dtype_name: "u8", "f32x2", "c64",
 * and "<code 9, 8 bits>" for codes DLPack 0.6 does not name. For messages only. */
void opnn__dtype_format(DLDataType dtype, char *buf, size_t len)
{
    const char *prefix = NULL;
    int n;

    switch (dtype.code) {
    case kDLInt:
        prefix = "i";
        break;
    case kDLUInt:
        prefix = "u";
        break;
    case kDLFloat:
        prefix = "f";
        break;
    case kDLBfloat:
        prefix = "bf";
        break;
    case kDLComplex:
        prefix = "c";
        break;
    case kDLOpaqueHandle:
        prefix = "handle";
        break;
    default:
        break;
    }
    if (prefix)
        n = snprintf(buf, len, "%s%u", prefix, (unsigned)dtype.bits);
    else
        n = snprintf(buf, len, "<code %u, %u bits>", (unsigned)dtype.code, (unsigned)dtype.bits);
    if (dtype.lanes != 1 && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "x%u", (unsigned)dtype.lanes);
}

void opnn__shape_format(int32_t ndim, const int64_t *shape, char *buf, size_t len)
{
    size_t used = 0;
    int n = snprintf(buf, len, "[");
    used = n > 0 ? (size_t)n : 0;
    for (int32_t i = 0; i < ndim && used < len; i++) {
        n = snprintf(buf + used, len - used, i ? ", %lld" : "%lld", (long long)shape[i]);
        used += n > 0 ? (size_t)n : 0;
    }
    if (used < len)
        snprintf(buf + used, len - used, "]");
}
