/* opnn_cpu_reduce: checks the request and calls the (kind, dtype) kernel built for the best
 * instruction set this CPU runs (kernel/cpu/reduce_cpu_base.c, kernel/cpu/reduce_cpu_avx2.c). */
#include "kernel/cpu/reduce_cpu.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "kernel/cpu/reduce_cpu_common.h"
#include "kernel/reduce_kernels.h"

static atomic_int cpu_forced_isa = OPNN_CPU_ISA_AUTO;

static bool cpu_detect_avx2(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    unsigned a, b, c, d;

    /* __builtin_cpu_supports also checks that the OS saves the AVX registers; F16C (CPUID.1
     * ECX bit 29) is asked of CPUID directly, Clang's builtin does not know it */
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 29)))
        return false;
    return opnn__cpu_reduce_avx2[OPNN_REDUCE_SUM][OPNN_CPU_F32] != NULL;
#else
    return false;
#endif
}

/* Detected once: CPUID traps to the hypervisor in a VM (about 10 us a call). Racing first calls
 * store the same answer. */
static bool cpu_has_avx2(void)
{
    static atomic_int known = -1;
    int v = atomic_load_explicit(&known, memory_order_relaxed);

    if (v < 0) {
        v = cpu_detect_avx2();
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return v != 0;
}

bool opnn__cpu_reduce_set_isa(opnn_cpu_isa isa)
{
    if (isa != OPNN_CPU_ISA_AUTO && isa != OPNN_CPU_ISA_BASE && isa != OPNN_CPU_ISA_AVX2)
        return false;
    if (isa == OPNN_CPU_ISA_AVX2 && !cpu_has_avx2())
        return false;
    atomic_store(&cpu_forced_isa, (int)isa);
    return true;
}

opnn_cpu_isa opnn__cpu_reduce_isa(void)
{
    int isa = atomic_load(&cpu_forced_isa);

    if (isa != OPNN_CPU_ISA_AUTO)
        return (opnn_cpu_isa)isa;
    return cpu_has_avx2() ? OPNN_CPU_ISA_AVX2 : OPNN_CPU_ISA_BASE;
}

bool opnn__cpu_narrow16(opnn_cpu_isa isa, bool bf16, const float *in, uint16_t *out, int64_t n)
{
    if (n < 0 || n % 8 != 0)
        return false;
    if (isa == OPNN_CPU_ISA_AUTO)
        isa = opnn__cpu_reduce_isa();
    if (isa == OPNN_CPU_ISA_BASE)
        opnn__cpu_narrow16_base(bf16, in, out, n);
    else if (isa == OPNN_CPU_ISA_AVX2 && cpu_has_avx2())
        opnn__cpu_narrow16_avx2(bf16, in, out, n);
    else
        return false;
    return true;
}

static int cpu_dtype_slot(DLDataType t)
{
    if (t.lanes != 1)
        return -1;
    if (t.code == kDLFloat && t.bits == 32)
        return OPNN_CPU_F32;
    if (t.code == kDLFloat && t.bits == 64)
        return OPNN_CPU_F64;
    if (t.code == kDLFloat && t.bits == 16)
        return OPNN_CPU_F16;
    if (t.code == kDLBfloat && t.bits == 16)
        return OPNN_CPU_BF16;
    if (t.code == kDLInt && t.bits == 32)
        return OPNN_CPU_I32;
    if (t.code == kDLInt && t.bits == 64)
        return OPNN_CPU_I64;
    return -1;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
cpu_msg(char *msg, size_t msg_len, const char *fmt, ...)
{
    va_list ap;

    if (!msg || msg_len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, msg_len, fmt, ap);
    va_end(ap);
}

op_status opnn_cpu_reduce(const opnn_reduce_plan *plan, opnn_reduce_kind kind, const void *in,
                          void *out, char *msg, size_t msg_len)
{
    opnn_cpu_reduce_fn fn;
    int slot;

    if (!plan) {
        cpu_msg(msg, msg_len, "cpu reduce: plan is NULL");
        return OP_ERR_INVALID_ARGUMENT;
    }
    if ((int)kind < 0 || kind >= OPNN_REDUCE_KIND_COUNT_) {
        cpu_msg(msg, msg_len, "cpu reduce: unknown reduction kind %d", (int)kind);
        return OP_ERR_INVALID_ARGUMENT;
    }
    slot = cpu_dtype_slot(plan->dtype);
    if (slot < 0) {
        cpu_msg(msg, msg_len, "cpu reduce: dtype (code %u, bits %u, lanes %u) is not supported",
                (unsigned)plan->dtype.code, (unsigned)plan->dtype.bits,
                (unsigned)plan->dtype.lanes);
        return OP_ERR_UNSUPPORTED;
    }
    if ((int)plan->cls < 0 || plan->cls >= OPNN_CLASS_COUNT_) {
        cpu_msg(msg, msg_len, "cpu reduce: invalid plan class %d", (int)plan->cls);
        return OP_ERR_INTERNAL;
    }
    if (plan->cls == OPNN_CLASS_EMPTY)
        return OP_OK;
    if (!out || (!in && plan->cls != OPNN_CLASS_FILL)) {
        cpu_msg(msg, msg_len, "cpu reduce: %s pointer is NULL", out ? "input" : "output");
        return OP_ERR_INVALID_ARGUMENT;
    }
    fn = opnn__cpu_reduce_isa() == OPNN_CPU_ISA_AVX2 ? opnn__cpu_reduce_avx2[kind][slot]
                                                     : opnn__cpu_reduce_base[kind][slot];
    fn(plan, in, out);
    return OP_OK;
}
