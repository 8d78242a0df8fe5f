/* tp_index: reductions whose every term depends on the element's reduction index, to check that
 * each CUDA walk hands an element the index the CPU kernels give it (opnn/cpu/reduce_cpu.h: the
 * flat index over the reduced dims, row-major in the plan's merged order). For int32 and int64:
 *   y = sum of x * w(i), w(i) = bits 40..63 of (i + 1) * 0x9E3779B97F4A7C15,
 * in int64 with wrapping (so exact, and equal bit for bit on both devices), narrowed like the
 * built-in sums. A wrong index changes w, so the sum. Three ops with one CPU kernel; their CUDA
 * operators differ in what they give the kernels (tp_index.cu): TpIndexMap (map alone),
 * TpIndexFold (a fold of one element), TpIndexFoldVec (fold and fold_vec). */
#include <stdint.h>

#include <opnn/cpu/reduce_cpu.h>
#include <opnn/opnn.h>

#include "tp_index.h"

static inline int64_t tpi_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

#define TPI_CPU(d, IN, ACC, code, bits, unused)                                                    \
    static inline int64_t tpi_map_##d(IN x, int64_t i)                                             \
    {                                                                                              \
        return TP_INDEX_TERM((int64_t)x, i);                                                       \
    }                                                                                              \
    static inline IN tpi_final_##d(int64_t a, int64_t n)                                           \
    {                                                                                              \
        (void)n;                                                                                   \
        return (IN)(uint64_t)a;                                                                    \
    }                                                                                              \
    OP_CPU_REDUCE_DEFINE(tpi_cpu_##d, IN, int64_t, IN, (int64_t)0, tpi_map_##d, tpi_add,           \
                         tpi_final_##d)
OP_CPU_INT_DTYPES(TPI_CPU, 0)

typedef struct tpi_kernel {
    op_cpu_reduce_fn fn;
} tpi_kernel;

#define TPI_DATA(d, IN, ACC, code, bits, unused) static const tpi_kernel tpi_k_##d = {tpi_cpu_##d};
OP_CPU_INT_DTYPES(TPI_DATA, 0)

static op_status tpi_cpu(op_kernel_ctx *kc)
{
    const tpi_kernel *k = (const tpi_kernel *)op_kernel_data(kc);
    uint32_t mask;
    op_status st = op_reduce_mask(kc, &mask);
    return st != OP_OK ? st : op_cpu_reduce_kernel(kc, mask, k->fn);
}

#if defined(TP_INDEX_CUDA)
#define TPI_REGISTER_CUDA(name, fn, code, bits)                                                    \
    OP_REGISTER_KERNEL(r, name, kDLCUDA, OP_DTYPE(code, bits), fn, NULL)
#else
#define TPI_REGISTER_CUDA(name, fn, code, bits)
#endif
#define TPI_REGISTER(d, IN, ACC, code, bits, name, cuda_fn)                                        \
    OP_REGISTER_KERNEL(r, name, kDLCPU, OP_DTYPE(code, bits), tpi_cpu, &tpi_k_##d);                \
    TPI_REGISTER_CUDA(name, cuda_fn, code, bits);

static const op_attr_def tpi_attrs[] = {OP_REDUCE_ATTR_DEFS};

static const op_schema tpi_schema = {NULL,
                                     "test: sum of x * w(reduction index)",
                                     1,
                                     1,
                                     tpi_attrs,
                                     sizeof(tpi_attrs) / sizeof(tpi_attrs[0]),
                                     op_reduce_infer};

#define TPI_OP(op_name, cuda_fn)                                                                   \
    do {                                                                                           \
        op_schema s_ = tpi_schema;                                                                 \
        s_.name = op_name;                                                                         \
        OP_REGISTER_OP(r, &s_);                                                                    \
        OP_CPU_INT_DTYPES(TPI_REGISTER, op_name, cuda_fn)                                          \
    } while (0)

static op_status tp_index_register(op_registrar *r)
{
    TPI_OP("TpIndexMap", tp_index_cuda_map);
    TPI_OP("TpIndexFold", tp_index_cuda_fold);
    TPI_OP("TpIndexFoldVec", tp_index_cuda_fold_vec);
    return OP_OK;
}

OP_PLUGIN_DEFINE("tp_index", tp_index_register)
