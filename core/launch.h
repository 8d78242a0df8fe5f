/* CUDA launch geometry chosen by the planner (core/plan_launch.c). Pure C: no CUDA types. */
#ifndef OPNN_CORE_LAUNCH_H
#define OPNN_CORE_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

typedef struct opnn_launch {
    int family;             /* kernel family id, see kernel/cuda (opnn_cuda_family) */
    int block;              /* threads per block */
    int64_t grid_x;
    int64_t grid_y;
    int64_t split;          /* blocks that share one output's reduction (1: no split) */
    int64_t chunk;          /* elements of the reduced extent per block when split */
    int vec;                /* elements per vector load */
    int sub;                /* threads per output for sub-warp families */
    size_t workspace_bytes; /* device workspace the launch needs (partials + counters) */
} opnn_launch;

#endif /* OPNN_CORE_LAUNCH_H */
