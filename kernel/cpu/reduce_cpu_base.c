/* The built-in CPU reductions for the baseline instruction set of the build (SSE2 on x86-64):
 * what runs on CPUs without AVX2 and F16C, and on other architectures. */
/* The template passes 32-byte vectors between static functions; without AVX, GCC and Clang warn
 * that such arguments have another ABI than in AVX code. None of them crosses this file. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#define RC_ISA base
#define RC_TABLE opnn__cpu_reduce_base
#include "kernel/cpu/reduce_cpu_builtin.h"
