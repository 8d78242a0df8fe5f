/* Device properties the planner needs, as a plain struct (no CUDA types). */
#ifndef OPNN_CORE_DEVICE_H
#define OPNN_CORE_DEVICE_H

#include <stddef.h>
#include <stdint.h>

typedef struct opnn_device_props {
    int device_id; /* CUDA ordinal; -1 for the CPU */
    int sm_count;  /* multiprocessors (CPU: threads) */
    int max_threads_per_sm;
    int max_threads_per_block;
    int warp_size;
    int cc_major, cc_minor;
    size_t l2_bytes;
    size_t shared_per_block;
} opnn_device_props;

#endif /* OPNN_CORE_DEVICE_H */
