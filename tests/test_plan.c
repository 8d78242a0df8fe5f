/* White-box tests of the reduce planner (core/plan.c): a table of views and the plan each must
 * give, the errors, and a seeded random sweep that checks a plan reads the same elements into
 * the same outputs as the view it came from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/plan.h"
#include "support/test_support.h"

/* --- the table ------------------------------------------------------------------------------ */

typedef struct plan_case {
    const char *name;
    /* the request */
    int32_t ndim;
    int64_t shape[OP_MAX_DIMS];
    const int64_t *strides; /* NULL: compact */
    size_t num_axes;
    int64_t axes[OP_MAX_DIMS];
    bool noop;
    const char *dtype; /* NULL: "f32" */
    /* the plan */
    opnn_reduce_class cls;
    int64_t out_numel, red_numel;
    uint32_t mask;
    const char *pat; /* merged dims, outer to inner: K kept, R reduced */
    int64_t mshape[OP_MAX_DIMS], mistride[OP_MAX_DIMS], mostride[OP_MAX_DIMS];
    /* a, r, b (FULL, ROW, COL, MIDDLE) or r1, c, r2 (OUTER_INNER); all zero: both views absent */
    int64_t view[3], vstride[3];
    /* GENERIC [R1, A, R, B]: r1 and its stride beside the view a, r, b (zero: none) */
    int64_t slab[2];
} plan_case;

#define NUM_(...) (sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define SHAPE(...) .ndim = (int32_t)NUM_(__VA_ARGS__), .shape = {__VA_ARGS__}
#define STRIDES(...)                                                                               \
    .strides = (const int64_t[])                                                                   \
    {                                                                                              \
        __VA_ARGS__                                                                                \
    }
#define AXES(...) .num_axes = NUM_(__VA_ARGS__), .axes = {__VA_ARGS__}

#define R16_SHAPE 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2
#define R16_ISTRIDE 32768, 16384, 8192, 4096, 2048, 1024, 512, 256, 128, 64, 32, 16, 8, 4, 2, 1

/* clang-format off */
static const plan_case cases[] = {
    /* --- FULL --- */
    {
        .name = "plan__full_contiguous",
        SHAPE(1024),
        .cls = OPNN_CLASS_FULL, .out_numel = 1, .red_numel = 1024, .mask = 0x1,
        .pat = "R", .mshape = {1024}, .mistride = {1}, .mostride = {0},
        .view = {1, 1024, 1}, .vstride = {0, 1, 0},
    },
    {
        .name = "plan__full_empty_axes_merge_all",
        SHAPE(4, 8, 16),
        .cls = OPNN_CLASS_FULL, .out_numel = 1, .red_numel = 512, .mask = 0x7,
        .pat = "R", .mshape = {512}, .mistride = {1}, .mostride = {0},
        .view = {1, 512, 1}, .vstride = {0, 1, 0},
    },
    {
        .name = "plan__full_explicit_axes_unordered",
        SHAPE(4, 8, 16), AXES(2, 0, -2),
        .cls = OPNN_CLASS_FULL, .out_numel = 1, .red_numel = 512, .mask = 0x7,
        .pat = "R", .mshape = {512}, .mistride = {1}, .mostride = {0},
        .view = {1, 512, 1}, .vstride = {0, 1, 0},
    },
    {
        /* a transposed view of a [8, 16] buffer: the reduced set is still one contiguous run */
        .name = "plan__full_transposed_merges",
        SHAPE(16, 8), STRIDES(1, 16),
        .cls = OPNN_CLASS_FULL, .out_numel = 1, .red_numel = 128, .mask = 0x3,
        .pat = "R", .mshape = {128}, .mistride = {1}, .mostride = {0},
        .view = {1, 128, 1}, .vstride = {0, 1, 0},
    },
    {
        .name = "plan__full_beyond_int32",
        SHAPE(8589934592), .dtype = "f32",
        .cls = OPNN_CLASS_FULL, .out_numel = 1, .red_numel = 8589934592, .mask = 0x1,
        .pat = "R", .mshape = {8589934592}, .mistride = {1}, .mostride = {0},
        .view = {1, 8589934592, 1}, .vstride = {0, 1, 0},
    },
    {
        .name = "plan__full_all_size1",
        SHAPE(1, 1, 1),
        .cls = OPNN_CLASS_FULL, .out_numel = 1, .red_numel = 1, .mask = 0x7,
        .pat = "",
        .view = {1, 1, 1}, .vstride = {0, 1, 0},
    },
    {
        .name = "plan__full_rank0",
        .ndim = 0,
        .cls = OPNN_CLASS_FULL, .out_numel = 1, .red_numel = 1, .mask = 0x0,
        .pat = "",
        .view = {1, 1, 1}, .vstride = {0, 1, 0},
    },
    {
        .name = "plan__full_rank0_noop",
        .ndim = 0, .noop = true,
        .cls = OPNN_CLASS_FULL, .out_numel = 1, .red_numel = 1, .mask = 0x0,
        .pat = "",
        .view = {1, 1, 1}, .vstride = {0, 1, 0},
    },
    {
        .name = "plan__full_rank16",
        SHAPE(R16_SHAPE), .dtype = "f64",
        .cls = OPNN_CLASS_FULL, .out_numel = 1, .red_numel = 65536, .mask = 0xffff,
        .pat = "R", .mshape = {65536}, .mistride = {1}, .mostride = {0},
        .view = {1, 65536, 1}, .vstride = {0, 1, 0},
    },
    /* --- ROW --- */
    {
        .name = "plan__row_contiguous",
        SHAPE(64, 1024), AXES(1),
        .cls = OPNN_CLASS_ROW, .out_numel = 64, .red_numel = 1024, .mask = 0x2,
        .pat = "KR", .mshape = {64, 1024}, .mistride = {1024, 1}, .mostride = {1, 0},
        .view = {64, 1024, 1}, .vstride = {1024, 1, 0},
    },
    {
        .name = "plan__row_adjacent_axes_merge",
        SHAPE(8, 16, 32, 4), AXES(2, 3),
        .cls = OPNN_CLASS_ROW, .out_numel = 128, .red_numel = 128, .mask = 0xc,
        .pat = "KR", .mshape = {128, 128}, .mistride = {128, 1}, .mostride = {1, 0},
        .view = {128, 128, 1}, .vstride = {128, 1, 0},
    },
    {
        .name = "plan__row_negative_axes",
        SHAPE(8, 16, 32), AXES(-1, -2), .dtype = "i64",
        .cls = OPNN_CLASS_ROW, .out_numel = 8, .red_numel = 512, .mask = 0x6,
        .pat = "KR", .mshape = {8, 512}, .mistride = {512, 1}, .mostride = {1, 0},
        .view = {8, 512, 1}, .vstride = {512, 1, 0},
    },
    {
        /* bench seed_hw: [N, C, H, W] over H, W */
        .name = "plan__row_nchw_spatial",
        SHAPE(128, 256, 56, 56), AXES(2, 3),
        .cls = OPNN_CLASS_ROW, .out_numel = 32768, .red_numel = 3136, .mask = 0xc,
        .pat = "KR", .mshape = {32768, 3136}, .mistride = {3136, 1}, .mostride = {1, 0},
        .view = {32768, 3136, 1}, .vstride = {3136, 1, 0},
    },
    {
        /* rows padded to a pitch of 16 */
        .name = "plan__row_gapped_pitch",
        SHAPE(6, 10), STRIDES(16, 1), AXES(1),
        .cls = OPNN_CLASS_ROW, .out_numel = 6, .red_numel = 10, .mask = 0x2,
        .pat = "KR", .mshape = {6, 10}, .mistride = {16, 1}, .mostride = {1, 0},
        .view = {6, 10, 1}, .vstride = {16, 1, 0},
    },
    {
        /* x[2:5, 3:7] of an [8, 12] buffer (the start lives in byte_offset) */
        .name = "plan__row_subview",
        SHAPE(3, 4), STRIDES(12, 1), AXES(1), .dtype = "bf16",
        .cls = OPNN_CLASS_ROW, .out_numel = 3, .red_numel = 4, .mask = 0x2,
        .pat = "KR", .mshape = {3, 4}, .mistride = {12, 1}, .mostride = {1, 0},
        .view = {3, 4, 1}, .vstride = {12, 1, 0},
    },
    {
        /* x[:, 2:6, :] of a [4, 8, 16] buffer over its last two dims: one gapped run per row */
        .name = "plan__row_subview_merges_inner",
        SHAPE(4, 4, 16), STRIDES(128, 16, 1), AXES(1, 2),
        .cls = OPNN_CLASS_ROW, .out_numel = 4, .red_numel = 64, .mask = 0x6,
        .pat = "KR", .mshape = {4, 64}, .mistride = {128, 1}, .mostride = {1, 0},
        .view = {4, 64, 1}, .vstride = {128, 1, 0},
    },
    {
        /* every row is the same broadcast data */
        .name = "plan__row_broadcast_kept",
        SHAPE(5, 7), STRIDES(0, 1), AXES(1),
        .cls = OPNN_CLASS_ROW, .out_numel = 5, .red_numel = 7, .mask = 0x2,
        .pat = "KR", .mshape = {5, 7}, .mistride = {0, 1}, .mostride = {1, 0},
        .view = {5, 7, 1}, .vstride = {0, 1, 0},
    },
    {
        /* a broadcast dim goes outermost whatever its position */
        .name = "plan__row_broadcast_moves_outermost",
        SHAPE(5, 7), STRIDES(1, 0), AXES(0),
        .cls = OPNN_CLASS_ROW, .out_numel = 7, .red_numel = 5, .mask = 0x1,
        .pat = "KR", .mshape = {7, 5}, .mistride = {0, 1}, .mostride = {1, 0},
        .view = {7, 5, 1}, .vstride = {0, 1, 0},
    },
    {
        .name = "plan__row_size1_everywhere",
        SHAPE(1, 6, 1, 8, 1), AXES(3, 4),
        .cls = OPNN_CLASS_ROW, .out_numel = 6, .red_numel = 8, .mask = 0x18,
        .pat = "KR", .mshape = {6, 8}, .mistride = {8, 1}, .mostride = {1, 0},
        .view = {6, 8, 1}, .vstride = {8, 1, 0},
    },
    {
        /* reducing a transposed view along its stride-1 dim */
        .name = "plan__row_from_transpose",
        SHAPE(16, 8), STRIDES(1, 16), AXES(0),
        .cls = OPNN_CLASS_ROW, .out_numel = 8, .red_numel = 16, .mask = 0x1,
        .pat = "KR", .mshape = {8, 16}, .mistride = {16, 1}, .mostride = {1, 0},
        .view = {8, 16, 1}, .vstride = {16, 1, 0},
    },
    {
        .name = "plan__row_wide_beyond_int32",
        SHAPE(65536, 65536), AXES(1), .dtype = "f16",
        .cls = OPNN_CLASS_ROW, .out_numel = 65536, .red_numel = 65536, .mask = 0x2,
        .pat = "KR", .mshape = {65536, 65536}, .mistride = {65536, 1}, .mostride = {1, 0},
        .view = {65536, 65536, 1}, .vstride = {65536, 1, 0},
    },
    {
        /* the reduced dim has size 1: each output copies one input */
        .name = "plan__row_reduced_size1_only",
        SHAPE(4, 1, 6), AXES(1),
        .cls = OPNN_CLASS_ROW, .out_numel = 24, .red_numel = 1, .mask = 0x2,
        .pat = "K", .mshape = {24}, .mistride = {1}, .mostride = {1},
        .view = {24, 1, 1}, .vstride = {1, 1, 0},
    },
    {
        .name = "plan__row_nothing_reduced_noop",
        SHAPE(4, 6), .noop = true, .dtype = "i32",
        .cls = OPNN_CLASS_ROW, .out_numel = 24, .red_numel = 1, .mask = 0x0,
        .pat = "K", .mshape = {24}, .mistride = {1}, .mostride = {1},
        .view = {24, 1, 1}, .vstride = {1, 1, 0},
    },
    /* --- COL --- */
    {
        .name = "plan__col_contiguous",
        SHAPE(1024, 64), AXES(0),
        .cls = OPNN_CLASS_COL, .out_numel = 64, .red_numel = 1024, .mask = 0x1,
        .pat = "RK", .mshape = {1024, 64}, .mistride = {64, 1}, .mostride = {0, 1},
        .view = {1, 1024, 64}, .vstride = {0, 64, 1},
    },
    {
        .name = "plan__col_adjacent_axes_merge",
        SHAPE(4, 8, 16, 32), AXES(0, 1),
        .cls = OPNN_CLASS_COL, .out_numel = 512, .red_numel = 32, .mask = 0x3,
        .pat = "RK", .mshape = {32, 512}, .mistride = {512, 1}, .mostride = {0, 1},
        .view = {1, 32, 512}, .vstride = {0, 512, 1},
    },
    {
        .name = "plan__col_broadcast_reduced",
        SHAPE(5, 7), STRIDES(0, 1), AXES(0),
        .cls = OPNN_CLASS_COL, .out_numel = 7, .red_numel = 5, .mask = 0x1,
        .pat = "RK", .mshape = {5, 7}, .mistride = {0, 1}, .mostride = {0, 1},
        .view = {1, 5, 7}, .vstride = {0, 0, 1},
    },
    {
        /* two broadcast reduced dims merge into one */
        .name = "plan__col_broadcast_reduced_merge",
        SHAPE(3, 4, 5), STRIDES(0, 0, 1), AXES(0, 1),
        .cls = OPNN_CLASS_COL, .out_numel = 5, .red_numel = 12, .mask = 0x3,
        .pat = "RK", .mshape = {12, 5}, .mistride = {0, 1}, .mostride = {0, 1},
        .view = {1, 12, 5}, .vstride = {0, 0, 1},
    },
    {
        .name = "plan__col_gapped_pitch",
        SHAPE(6, 10), STRIDES(16, 1), AXES(0),
        .cls = OPNN_CLASS_COL, .out_numel = 10, .red_numel = 6, .mask = 0x1,
        .pat = "RK", .mshape = {6, 10}, .mistride = {16, 1}, .mostride = {0, 1},
        .view = {1, 6, 10}, .vstride = {0, 16, 1},
    },
    {
        .name = "plan__col_from_transpose",
        SHAPE(16, 8), STRIDES(1, 16), AXES(1),
        .cls = OPNN_CLASS_COL, .out_numel = 16, .red_numel = 8, .mask = 0x2,
        .pat = "RK", .mshape = {8, 16}, .mistride = {16, 1}, .mostride = {0, 1},
        .view = {1, 8, 16}, .vstride = {0, 16, 1},
    },
    {
        .name = "plan__col_subview_merges_inner",
        SHAPE(4, 4, 16), STRIDES(128, 16, 1), AXES(0),
        .cls = OPNN_CLASS_COL, .out_numel = 64, .red_numel = 4, .mask = 0x1,
        .pat = "RK", .mshape = {4, 64}, .mistride = {128, 1}, .mostride = {0, 1},
        .view = {1, 4, 64}, .vstride = {0, 128, 1},
    },
    {
        /* NCHW sizes stored NHWC (channels last), reduced over N, H, W: per-channel stats */
        .name = "plan__col_channels_last",
        SHAPE(2, 3, 4, 5), STRIDES(60, 1, 15, 3), AXES(0, 2, 3),
        .cls = OPNN_CLASS_COL, .out_numel = 3, .red_numel = 40, .mask = 0xd,
        .pat = "RK", .mshape = {40, 3}, .mistride = {3, 1}, .mostride = {0, 1},
        .view = {1, 40, 3}, .vstride = {0, 3, 1},
    },
    {
        .name = "plan__col_beyond_int32",
        SHAPE(4294967296, 4), AXES(0), .dtype = "f32",
        .cls = OPNN_CLASS_COL, .out_numel = 4, .red_numel = 4294967296, .mask = 0x1,
        .pat = "RK", .mshape = {4294967296, 4}, .mistride = {4, 1}, .mostride = {0, 1},
        .view = {1, 4294967296, 4}, .vstride = {0, 4, 1},
    },
    /* --- MIDDLE --- */
    {
        .name = "plan__middle_contiguous",
        SHAPE(4, 6, 8), AXES(1),
        .cls = OPNN_CLASS_MIDDLE, .out_numel = 32, .red_numel = 6, .mask = 0x2,
        .pat = "KRK", .mshape = {4, 6, 8}, .mistride = {48, 8, 1}, .mostride = {8, 0, 1},
        .view = {4, 6, 8}, .vstride = {48, 8, 1},
    },
    {
        .name = "plan__middle_adjacent_axes_merge",
        SHAPE(2, 3, 4, 5, 6), AXES(2, 3),
        .cls = OPNN_CLASS_MIDDLE, .out_numel = 36, .red_numel = 20, .mask = 0xc,
        .pat = "KRK", .mshape = {6, 20, 6}, .mistride = {120, 6, 1}, .mostride = {6, 0, 1},
        .view = {6, 20, 6}, .vstride = {120, 6, 1},
    },
    {
        .name = "plan__middle_broadcast_outer",
        SHAPE(3, 4, 5), STRIDES(0, 5, 1), AXES(1),
        .cls = OPNN_CLASS_MIDDLE, .out_numel = 15, .red_numel = 4, .mask = 0x2,
        .pat = "KRK", .mshape = {3, 4, 5}, .mistride = {0, 5, 1}, .mostride = {5, 0, 1},
        .view = {3, 4, 5}, .vstride = {0, 5, 1},
    },
    {
        /* zero strides on A and R: ties keep their original order, A before R */
        .name = "plan__middle_broadcast_both",
        SHAPE(3, 4, 5), STRIDES(0, 0, 1), AXES(1),
        .cls = OPNN_CLASS_MIDDLE, .out_numel = 15, .red_numel = 4, .mask = 0x2,
        .pat = "KRK", .mshape = {3, 4, 5}, .mistride = {0, 0, 1}, .mostride = {5, 0, 1},
        .view = {3, 4, 5}, .vstride = {0, 0, 1},
    },
    {
        .name = "plan__middle_broadcast_moves_outermost",
        SHAPE(3, 4, 5), STRIDES(5, 0, 1), AXES(0),
        .cls = OPNN_CLASS_MIDDLE, .out_numel = 20, .red_numel = 3, .mask = 0x1,
        .pat = "KRK", .mshape = {4, 3, 5}, .mistride = {0, 5, 1}, .mostride = {5, 0, 1},
        .view = {4, 3, 5}, .vstride = {0, 5, 1},
    },
    {
        .name = "plan__middle_subview",
        SHAPE(4, 4, 16), STRIDES(128, 16, 1), AXES(1),
        .cls = OPNN_CLASS_MIDDLE, .out_numel = 64, .red_numel = 4, .mask = 0x2,
        .pat = "KRK", .mshape = {4, 4, 16}, .mistride = {128, 16, 1}, .mostride = {16, 0, 1},
        .view = {4, 4, 16}, .vstride = {128, 16, 1},
    },
    {
        /* channels last over H, W: [N] [H*W] [C] */
        .name = "plan__middle_channels_last",
        SHAPE(2, 3, 4, 5), STRIDES(60, 1, 15, 3), AXES(2, 3),
        .cls = OPNN_CLASS_MIDDLE, .out_numel = 6, .red_numel = 20, .mask = 0xc,
        .pat = "KRK", .mshape = {2, 20, 3}, .mistride = {60, 3, 1}, .mostride = {3, 0, 1},
        .view = {2, 20, 3}, .vstride = {60, 3, 1},
    },
    {
        .name = "plan__middle_rank8_merges",
        SHAPE(2, 2, 2, 2, 2, 2, 2, 2), AXES(2, 3, 4, 5),
        .cls = OPNN_CLASS_MIDDLE, .out_numel = 16, .red_numel = 16, .mask = 0x3c,
        .pat = "KRK", .mshape = {4, 16, 4}, .mistride = {64, 4, 1}, .mostride = {4, 0, 1},
        .view = {4, 16, 4}, .vstride = {64, 4, 1},
    },
    /* --- OUTER_INNER --- */
    {
        .name = "plan__outer_inner_contiguous",
        SHAPE(3, 4, 5), AXES(0, 2),
        .cls = OPNN_CLASS_OUTER_INNER, .out_numel = 4, .red_numel = 15, .mask = 0x5,
        .pat = "RKR", .mshape = {3, 4, 5}, .mistride = {20, 5, 1}, .mostride = {0, 1, 0},
        .view = {3, 4, 5}, .vstride = {20, 5, 1},
    },
    {
        /* bench bn_nhw: [N, C, H, W] over N, H, W */
        .name = "plan__outer_inner_nchw_batchnorm",
        SHAPE(128, 256, 56, 56), AXES(0, 2, 3),
        .cls = OPNN_CLASS_OUTER_INNER, .out_numel = 256, .red_numel = 401408, .mask = 0xd,
        .pat = "RKR", .mshape = {128, 256, 3136}, .mistride = {802816, 3136, 1},
        .mostride = {0, 1, 0},
        .view = {128, 256, 3136}, .vstride = {802816, 3136, 1},
    },
    {
        .name = "plan__outer_inner_size1_dims",
        SHAPE(1, 3, 1, 4, 5, 1), AXES(-6, 1, 4, 5),
        .cls = OPNN_CLASS_OUTER_INNER, .out_numel = 4, .red_numel = 15, .mask = 0x33,
        .pat = "RKR", .mshape = {3, 4, 5}, .mistride = {20, 5, 1}, .mostride = {0, 1, 0},
        .view = {3, 4, 5}, .vstride = {20, 5, 1},
    },
    /* --- GENERIC --- */
    {
        .name = "plan__generic_alternating_krkr",
        SHAPE(2, 3, 4, 5), AXES(1, 3),
        .cls = OPNN_CLASS_GENERIC, .out_numel = 8, .red_numel = 15, .mask = 0xa,
        .pat = "KRKR", .mshape = {2, 3, 4, 5}, .mistride = {60, 20, 5, 1},
        .mostride = {4, 0, 1, 0},
    },
    {
        .name = "plan__generic_alternating_rkrk",
        SHAPE(2, 3, 4, 5), AXES(0, 2),
        .cls = OPNN_CLASS_GENERIC, .out_numel = 15, .red_numel = 8, .mask = 0x5,
        .pat = "RKRK", .mshape = {2, 3, 4, 5}, .mistride = {60, 20, 5, 1},
        .mostride = {0, 5, 0, 1}, .view = {3, 4, 5}, .vstride = {20, 5, 1}, .slab = {2, 60},
    },
    {
        /* R K R K whose kept dims are not compact in the output: no slab view */
        .name = "plan__generic_rkrk_output_strided",
        SHAPE(2, 3, 4, 5), STRIDES(60, 1, 3, 12), AXES(0, 2),
        .cls = OPNN_CLASS_GENERIC, .out_numel = 15, .red_numel = 8, .mask = 0x5,
        .pat = "RKRK", .mshape = {2, 5, 4, 3}, .mistride = {60, 12, 3, 1},
        .mostride = {0, 1, 0, 5},
    },
    {
        .name = "plan__generic_rank8_alternating",
        SHAPE(2, 3, 2, 3, 2, 3, 2, 3), AXES(1, 3, 5, 7),
        .cls = OPNN_CLASS_GENERIC, .out_numel = 16, .red_numel = 81, .mask = 0xaa,
        .pat = "KRKRKRKR", .mshape = {2, 3, 2, 3, 2, 3, 2, 3},
        .mistride = {648, 216, 108, 36, 18, 6, 3, 1}, .mostride = {8, 0, 4, 0, 2, 0, 1, 0},
    },
    {
        .name = "plan__generic_rank16_alternating",
        SHAPE(R16_SHAPE), AXES(1, 3, 5, 7, 9, 11, 13, 15),
        .cls = OPNN_CLASS_GENERIC, .out_numel = 256, .red_numel = 256, .mask = 0xaaaa,
        .pat = "KRKRKRKRKRKRKRKR", .mshape = {R16_SHAPE}, .mistride = {R16_ISTRIDE},
        .mostride = {128, 0, 64, 0, 32, 0, 16, 0, 8, 0, 4, 0, 2, 0, 1, 0},
    },
    {
        /* kept dims [4, 5] whose input order is [5, 4]: the output is not compact in [A, B] */
        .name = "plan__generic_permuted_kept_dims",
        SHAPE(4, 5, 6), STRIDES(1, 24, 4), AXES(2),
        .cls = OPNN_CLASS_GENERIC, .out_numel = 20, .red_numel = 6, .mask = 0x4,
        .pat = "KRK", .mshape = {5, 6, 4}, .mistride = {24, 4, 1}, .mostride = {1, 0, 5},
    },
    {
        /* a transposed copy: contiguous in the input, but not in the same order in the output */
        .name = "plan__generic_transposed_copy",
        SHAPE(4, 6), STRIDES(1, 4), .noop = true,
        .cls = OPNN_CLASS_GENERIC, .out_numel = 24, .red_numel = 1, .mask = 0x0,
        .pat = "KK", .mshape = {6, 4}, .mistride = {4, 1}, .mostride = {1, 6},
    },
    {
        .name = "plan__generic_inner_stride_2",
        SHAPE(6, 10), STRIDES(20, 2), AXES(1),
        .cls = OPNN_CLASS_GENERIC, .out_numel = 6, .red_numel = 10, .mask = 0x2,
        .pat = "KR", .mshape = {6, 10}, .mistride = {20, 2}, .mostride = {1, 0},
    },
    {
        .name = "plan__generic_full_strided",
        SHAPE(10), STRIDES(3),
        .cls = OPNN_CLASS_GENERIC, .out_numel = 1, .red_numel = 10, .mask = 0x1,
        .pat = "R", .mshape = {10}, .mistride = {3}, .mostride = {0},
    },
    {
        /* a broadcast dim next to a stride-1 dim does not merge with it */
        .name = "plan__generic_full_broadcast",
        SHAPE(4, 5), STRIDES(0, 1),
        .cls = OPNN_CLASS_GENERIC, .out_numel = 1, .red_numel = 20, .mask = 0x3,
        .pat = "RR", .mshape = {4, 5}, .mistride = {0, 1}, .mostride = {0, 0},
    },
    {
        /* overlapping rows (a sliding window): a_stride 2 < R 3 */
        .name = "plan__generic_row_overlapping",
        SHAPE(4, 3), STRIDES(2, 1), AXES(1),
        .cls = OPNN_CLASS_GENERIC, .out_numel = 4, .red_numel = 3, .mask = 0x2,
        .pat = "KR", .mshape = {4, 3}, .mistride = {2, 1}, .mostride = {1, 0},
    },
    {
        /* equal strides keep their order: dim 0 stays outer */
        .name = "plan__generic_equal_strides",
        SHAPE(3, 3), STRIDES(1, 1), AXES(1),
        .cls = OPNN_CLASS_GENERIC, .out_numel = 3, .red_numel = 3, .mask = 0x2,
        .pat = "KR", .mshape = {3, 3}, .mistride = {1, 1}, .mostride = {1, 0},
    },
    /* --- EMPTY and FILL --- */
    {
        .name = "plan__empty_kept_dim_zero",
        SHAPE(0, 5), AXES(1),
        .cls = OPNN_CLASS_EMPTY, .out_numel = 0, .red_numel = 5, .mask = 0x2,
        .pat = "KR", .mshape = {0, 5}, .mistride = {5, 1}, .mostride = {1, 0},
    },
    {
        /* an empty output wins over an empty reduction */
        .name = "plan__empty_both_zero",
        SHAPE(0, 0), AXES(0),
        .cls = OPNN_CLASS_EMPTY, .out_numel = 0, .red_numel = 0, .mask = 0x1,
        .pat = "RK", .mshape = {0, 0}, .mistride = {0, 1}, .mostride = {0, 1},
    },
    {
        .name = "plan__fill_reduced_dim_zero",
        SHAPE(5, 0), AXES(1),
        .cls = OPNN_CLASS_FILL, .out_numel = 5, .red_numel = 0, .mask = 0x2,
        .pat = "KR", .mshape = {5, 0}, .mistride = {0, 1}, .mostride = {1, 0},
    },
    {
        .name = "plan__fill_middle_zero",
        SHAPE(3, 0, 4), AXES(1),
        .cls = OPNN_CLASS_FILL, .out_numel = 12, .red_numel = 0, .mask = 0x2,
        .pat = "KRK", .mshape = {3, 0, 4}, .mistride = {0, 4, 1}, .mostride = {4, 0, 1},
    },
    {
        .name = "plan__fill_full_zero",
        SHAPE(0),
        .cls = OPNN_CLASS_FILL, .out_numel = 1, .red_numel = 0, .mask = 0x1,
        .pat = "R", .mshape = {0}, .mistride = {1}, .mostride = {0},
    },
};

/* clang-format on */

#define NUM_CASES (sizeof cases / sizeof cases[0])

/* --- helpers -------------------------------------------------------------------------------- */

static DLDataType case_dtype(const plan_case *c)
{
    return ts_dtype(c->dtype ? c->dtype : "f32");
}

static opnn_reduce_request case_request(const plan_case *c)
{
    opnn_reduce_request req = {
        .op = "ReduceSum",
        .ndim = c->ndim,
        .shape = c->shape,
        .strides = c->strides,
        .axes = c->num_axes ? c->axes : NULL,
        .num_axes = c->num_axes,
        .noop_with_empty_axes = c->noop,
        .dtype = case_dtype(c),
    };
    return req;
}

/* One input element: where it is read from and which output it goes to. */
typedef struct io_pair {
    int64_t in, out;
} io_pair;

static int io_pair_cmp(const void *x, const void *y)
{
    const io_pair *a = x, *b = y;

    if (a->in != b->in)
        return a->in < b->in ? -1 : 1;
    if (a->out != b->out)
        return a->out < b->out ? -1 : 1;
    return 0;
}

/* Lists (input offset, output index) for every element of a strided view with per-dim output
 * strides, sorted. Returns the count. */
static int64_t io_pairs(int n, const int64_t *size, const int64_t *istride, const int64_t *ostride,
                        io_pair *out)
{
    int64_t idx[OP_MAX_DIMS] = {0};
    int64_t total = 1, k;

    for (int d = 0; d < n; d++)
        total *= size[d];
    for (k = 0; k < total; k++) {
        int64_t in = 0, o = 0;

        for (int d = 0; d < n; d++) {
            in += idx[d] * istride[d];
            o += idx[d] * ostride[d];
        }
        out[k].in = in;
        out[k].out = o;
        for (int d = n - 1; d >= 0; d--) {
            if (++idx[d] < size[d])
                break;
            idx[d] = 0;
        }
    }
    qsort(out, (size_t)total, sizeof *out, io_pair_cmp);
    return total;
}

/* Checks, element by element, that the plan's merged dims and its class view read the same
 * elements into the same outputs as the request describes. Small views only. */
static void check_plan_mapping(const opnn_reduce_request *req, const opnn_reduce_plan *plan)
{
    int64_t istride[OP_MAX_DIMS], ostride[OP_MAX_DIMS], step = 1, out_step = 1, n;
    io_pair *want, *got;

    for (int d = req->ndim - 1; d >= 0; d--) {
        istride[d] = req->strides ? req->strides[d] : step;
        step *= req->shape[d];
        /* an independent compact output: kept dims in their original order */
        if ((plan->red_mask >> d) & 1u) {
            ostride[d] = 0;
        } else {
            ostride[d] = out_step;
            out_step *= req->shape[d];
        }
    }
    n = ts_numel(req->ndim, req->shape);
    want = malloc((size_t)n * sizeof *want);
    got = malloc((size_t)n * sizeof *got);
    assert_non_null(want);
    assert_non_null(got);
    assert_int_equal(io_pairs(req->ndim, req->shape, istride, ostride, want), n);

    assert_int_equal(io_pairs(plan->ndim, plan->shape, plan->istride, plan->ostride, got), n);
    assert_memory_equal(want, got, (size_t)n * sizeof *want);

    if (plan->cls == OPNN_CLASS_OUTER_INNER) {
        int64_t size[3] = {plan->r1, plan->c, plan->r2};
        int64_t is[3] = {plan->r1_stride, plan->c_stride, plan->r2_stride};
        int64_t os[3] = {0, 1, 0};

        assert_int_equal(io_pairs(3, size, is, os, got), n);
        assert_memory_equal(want, got, (size_t)n * sizeof *want);
    } else if (plan->cls != OPNN_CLASS_GENERIC) {
        int64_t size[3] = {plan->a, plan->r, plan->b};
        int64_t is[3] = {plan->a_stride, plan->r_stride, plan->b_stride};
        int64_t os[3] = {plan->b, 0, 1};

        assert_int_equal(io_pairs(3, size, is, os, got), n);
        assert_memory_equal(want, got, (size_t)n * sizeof *want);
    }
    free(want);
    free(got);
}

/* The invariants core/plan.h promises for each class. */
static void check_plan_invariants(const opnn_reduce_plan *p)
{
    for (int i = 0; i < p->ndim; i++) {
        assert_true(p->shape[i] != 1);
        if (p->reduced[i])
            assert_int_equal(p->ostride[i], 0);
    }
    switch (p->cls) {
    case OPNN_CLASS_FULL:
        assert_int_equal(p->r_stride, 1);
        assert_int_equal(p->a * p->b, 1);
        assert_int_equal(p->out_numel, 1);
        break;
    case OPNN_CLASS_ROW:
        assert_int_equal(p->r_stride, 1);
        assert_true(p->a_stride == 0 || p->a_stride >= p->r);
        assert_int_equal(p->b, 1);
        break;
    case OPNN_CLASS_COL:
        assert_int_equal(p->b_stride, 1);
        assert_true(p->r_stride == 0 || p->r_stride >= p->b);
        assert_int_equal(p->a, 1);
        break;
    case OPNN_CLASS_MIDDLE:
        assert_int_equal(p->b_stride, 1);
        break;
    case OPNN_CLASS_OUTER_INNER:
        assert_int_equal(p->r2_stride, 1);
        assert_int_equal(p->c, p->out_numel);
        assert_int_equal(p->r1 * p->r2, p->red_numel);
        break;
    default:
        break;
    }
    if (p->cls >= OPNN_CLASS_FULL && p->cls <= OPNN_CLASS_MIDDLE) {
        assert_int_equal(p->a * p->b, p->out_numel);
        assert_int_equal(p->r, p->red_numel);
    }
}

/* --- the table test ------------------------------------------------------------------------- */

static void plan__case(void **state)
{
    const plan_case *c = *state;
    const int64_t none[3] = {1, 1, 1}, none_stride[3] = {0, 0, 0};
    const int64_t *arb = none, *arb_stride = none_stride, *rcr = none, *rcr_stride = none_stride;
    int64_t slab[3] = {1, 1, 1}, slab_stride[3] = {0, 0, 0};
    opnn_reduce_request req;
    opnn_reduce_plan plan;
    char msg[256] = "";
    op_status st;
    int n = (int)strlen(c->pat);

    /* set up */
    req = case_request(c);
    memset(&plan, 0xA5, sizeof plan);

    /* run */
    st = opnn__reduce_plan_init(&plan, &req, msg, sizeof msg);

    /* check */
    if (st != OP_OK)
        fail_msg("%s: status %d, message \"%s\"", c->name, (int)st, msg);
    assert_string_equal(opnn__reduce_class_name(plan.cls), opnn__reduce_class_name(c->cls));
    assert_int_equal(plan.out_numel, c->out_numel);
    assert_int_equal(plan.red_numel, c->red_numel);
    assert_int_equal(plan.red_mask, c->mask);
    assert_int_equal(plan.dtype.code, req.dtype.code);
    assert_int_equal(plan.dtype.bits, req.dtype.bits);
    assert_int_equal(plan.dtype.lanes, 1);

    assert_int_equal(plan.ndim, n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(plan.reduced[i], c->pat[i] == 'R');
        assert_int_equal(plan.shape[i], c->mshape[i]);
        assert_int_equal(plan.istride[i], c->mistride[i]);
        assert_int_equal(plan.ostride[i], c->mostride[i]);
    }

    if (c->view[0] != 0 && c->cls == OPNN_CLASS_OUTER_INNER) {
        rcr = c->view;
        rcr_stride = c->vstride;
    } else if (c->view[0] != 0) {
        arb = c->view;
        arb_stride = c->vstride;
    }
    if (c->slab[0] != 0) {
        slab[0] = c->slab[0];
        slab_stride[0] = c->slab[1];
        rcr = slab;
        rcr_stride = slab_stride;
    }
    assert_int_equal(plan.a, arb[0]);
    assert_int_equal(plan.r, arb[1]);
    assert_int_equal(plan.b, arb[2]);
    assert_int_equal(plan.a_stride, arb_stride[0]);
    assert_int_equal(plan.r_stride, arb_stride[1]);
    assert_int_equal(plan.b_stride, arb_stride[2]);
    assert_int_equal(plan.r1, rcr[0]);
    assert_int_equal(plan.c, rcr[1]);
    assert_int_equal(plan.r2, rcr[2]);
    assert_int_equal(plan.r1_stride, rcr_stride[0]);
    assert_int_equal(plan.c_stride, rcr_stride[1]);
    assert_int_equal(plan.r2_stride, rcr_stride[2]);

    /* the planner leaves the launch to opnn__reduce_plan_launch */
    assert_int_equal(plan.launch.family, 0);
    assert_int_equal(plan.launch.workspace_bytes, 0);

    check_plan_invariants(&plan);
    if (plan.out_numel > 0 && plan.red_numel > 0 && ts_numel(c->ndim, c->shape) <= (1 << 17))
        check_plan_mapping(&req, &plan);
}

/* --- keepdims ------------------------------------------------------------------------------- */

/* The request has no keepdims: the output offsets a plan gives are the compact offsets of the
 * kept dims, which are the same whether or not the reduced dims stay as size-1 dims. */
static void plan__keepdims_independent(void **state)
{
    const int64_t shape[3] = {3, 4, 5}, axes[1] = {1};
    const int64_t keep[3] = {3, 1, 5}, drop[2] = {3, 5};
    int64_t keep_stride[3], drop_stride[2];
    opnn_reduce_request req = {
        .op = "ReduceSum",
        .ndim = 3,
        .shape = shape,
        .axes = axes,
        .num_axes = 1,
        .dtype = ts_dtype("f32"),
    };
    opnn_reduce_plan plan;
    char msg[128] = "";
    (void)state;

    /* set up: compact strides of both output shapes */
    keep_stride[2] = 1;
    keep_stride[1] = keep[2] * keep_stride[2];
    keep_stride[0] = keep[1] * keep_stride[1];
    drop_stride[1] = 1;
    drop_stride[0] = drop[1];

    /* run */
    assert_int_equal(opnn__reduce_plan_init(&plan, &req, msg, sizeof msg), OP_OK);

    /* check: output (i, k) of the MIDDLE view [A=3, R=4, B=5] lands at i * B + k in both */
    assert_int_equal(plan.cls, OPNN_CLASS_MIDDLE);
    for (int64_t i = 0; i < plan.a; i++) {
        for (int64_t k = 0; k < plan.b; k++) {
            int64_t o = i * plan.b + k;

            assert_int_equal(o, i * keep_stride[0] + k * keep_stride[2]);
            assert_int_equal(o, i * drop_stride[0] + k * drop_stride[1]);
        }
    }
}

/* --- errors --------------------------------------------------------------------------------- */

typedef struct plan_error {
    const char *name;
    int32_t ndim;
    int64_t shape[OP_MAX_DIMS + 1];
    const int64_t *strides;
    size_t num_axes;
    int64_t axes[OP_MAX_DIMS];
    const char *dtype; /* NULL: "f32" */
    uint8_t code, bits;
    uint16_t lanes; /* with bits != 0: a raw dtype instead of `dtype` */
    op_status want;
    const char *msg; /* the whole message */
} plan_error;

#define R17_SHAPE 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2

/* clang-format off */
static const plan_error errors[] = {
    {
        .name = "plan__axis_out_of_range_rejected",
        SHAPE(2, 3, 4), AXES(3),
        .want = OP_ERR_INVALID_ARGUMENT, .msg = "ReduceSum: axis 3 out of range for rank 3",
    },
    {
        .name = "plan__negative_axis_out_of_range_rejected",
        SHAPE(2, 3, 4), AXES(0, -4),
        .want = OP_ERR_INVALID_ARGUMENT, .msg = "ReduceSum: axis -4 out of range for rank 3",
    },
    {
        .name = "plan__duplicate_axis_after_wrap_rejected",
        SHAPE(2, 3, 4), AXES(1, -2),
        .want = OP_ERR_INVALID_ARGUMENT, .msg = "ReduceSum: duplicate axis 1 (given as -2)",
    },
    {
        .name = "plan__duplicate_axis_rejected",
        SHAPE(2, 3, 4), AXES(2, 0, 2),
        .want = OP_ERR_INVALID_ARGUMENT, .msg = "ReduceSum: duplicate axis 2",
    },
    {
        .name = "plan__rank0_axis_rejected",
        .ndim = 0, AXES(0),
        .want = OP_ERR_INVALID_ARGUMENT, .msg = "ReduceSum: axis 0 given for a rank-0 input, which takes no axes",
    },
    {
        .name = "plan__rank17_unsupported",
        SHAPE(R17_SHAPE),
        .want = OP_ERR_UNSUPPORTED, .msg = "ReduceSum: rank 17 exceeds the maximum of 16 dims",
    },
    {
        .name = "plan__negative_rank_rejected",
        .ndim = -1,
        .want = OP_ERR_INVALID_ARGUMENT, .msg = "ReduceSum: negative rank -1",
    },
    {
        .name = "plan__negative_dim_rejected",
        SHAPE(2, -3), AXES(0),
        .want = OP_ERR_INVALID_ARGUMENT, .msg = "ReduceSum: dim 1 has negative size -3",
    },
    {
        .name = "plan__negative_stride_rejected",
        SHAPE(2, 3), STRIDES(3, -1), AXES(0),
        .want = OP_ERR_INVALID_ARGUMENT, .msg = "ReduceSum: dim 1 has negative stride -1",
    },
    {
        .name = "plan__dtype_u8_unsupported",
        SHAPE(2, 3), .code = kDLUInt, .bits = 8, .lanes = 1,
        .want = OP_ERR_UNSUPPORTED, .msg = "ReduceSum: dtype u8 is not supported",
    },
    {
        .name = "plan__dtype_lanes2_unsupported",
        SHAPE(2, 3), .code = kDLFloat, .bits = 32, .lanes = 2,
        .want = OP_ERR_UNSUPPORTED, .msg = "ReduceSum: dtype f32x2 is not supported",
    },
    {
        .name = "plan__dtype_i16_unsupported",
        SHAPE(2, 3), .code = kDLInt, .bits = 16, .lanes = 1,
        .want = OP_ERR_UNSUPPORTED, .msg = "ReduceSum: dtype i16 is not supported",
    },
    {
        .name = "plan__dtype_unknown_code_unsupported",
        SHAPE(2, 3), .code = 9, .bits = 8, .lanes = 1,
        .want = OP_ERR_UNSUPPORTED, .msg = "ReduceSum: dtype <code 9, 8 bits> is not supported",
    },
    {
        .name = "plan__sizes_overflow_rejected",
        SHAPE(4294967296, 4294967296), AXES(1),
        .want = OP_ERR_INVALID_ARGUMENT,
        .msg = "ReduceSum: tensor too large: sizes multiply past 2^63 at dim 1 (size 4294967296)",
    },
    {
        /* the other sizes overflow even though the tensor is empty */
        .name = "plan__empty_sizes_overflow_rejected",
        SHAPE(0, 4294967296, 4294967296),
        .want = OP_ERR_INVALID_ARGUMENT,
        .msg = "ReduceSum: tensor too large: sizes multiply past 2^63 at dim 2 (size 4294967296)",
    },
    {
        .name = "plan__strides_overflow_rejected",
        SHAPE(4, 2), STRIDES(INT64_MAX / 2, 1), AXES(1),
        .want = OP_ERR_INVALID_ARGUMENT,
        .msg = "ReduceSum: tensor too large: dim 0 (size 4, stride 4611686018427387903) reaches "
               "past 2^63 elements",
    },
    {
        /* the last element is addressable in elements but not in bytes */
        .name = "plan__strides_bytes_overflow_rejected",
        SHAPE(2, 2), STRIDES(INT64_MAX / 4, 1), AXES(1),
        .want = OP_ERR_INVALID_ARGUMENT,
        .msg = "ReduceSum: tensor too large: strides reach 2305843009213693953 elements, past "
               "2^63 bytes",
    },
    {
        .name = "plan__compact_bytes_overflow_rejected",
        SHAPE(2305843009213693952, 2), .dtype = "f64",
        .want = OP_ERR_INVALID_ARGUMENT,
        .msg = "ReduceSum: tensor too large: 4611686018427387904 elements of 8 bytes pass 2^63 "
               "bytes",
    },
};

/* clang-format on */

#define NUM_ERRORS (sizeof errors / sizeof errors[0])

static void plan__error(void **state)
{
    const plan_error *e = *state;
    opnn_reduce_request req = {
        .op = "ReduceSum",
        .ndim = e->ndim,
        .shape = e->shape,
        .strides = e->strides,
        .axes = e->num_axes ? e->axes : NULL,
        .num_axes = e->num_axes,
        .dtype = ts_dtype(e->dtype ? e->dtype : "f32"),
    };
    opnn_reduce_plan plan, before;
    char msg[256];
    op_status st;

    /* set up */
    if (e->bits != 0) {
        req.dtype.code = e->code;
        req.dtype.bits = e->bits;
        req.dtype.lanes = e->lanes;
    }
    memset(&plan, 0x5A, sizeof plan);
    memcpy(&before, &plan, sizeof plan);
    memset(msg, 0, sizeof msg);

    /* run */
    st = opnn__reduce_plan_init(&plan, &req, msg, sizeof msg);

    /* check: the status, the whole message (op, argument, value), and *plan untouched */
    assert_int_equal(st, e->want);
    assert_string_equal(msg, e->msg);
    assert_memory_equal(&plan, &before, sizeof plan);

    /* the same failure without a message buffer, and with one too short to hold it */
    assert_int_equal(opnn__reduce_plan_init(&plan, &req, NULL, 0), e->want);
    memset(msg, 'x', sizeof msg);
    assert_int_equal(opnn__reduce_plan_init(&plan, &req, msg, 11), e->want);
    assert_int_equal(strlen(msg), 10);
    assert_memory_equal(msg, e->msg, 10);
    assert_int_equal(msg[11], 'x');
    assert_memory_equal(&plan, &before, sizeof plan);
}

static void plan__null_arguments_rejected(void **state)
{
    const int64_t shape[1] = {4};
    opnn_reduce_request req = {
        .op = "ReduceSum", .ndim = 1, .shape = shape, .dtype = ts_dtype("f32")};
    opnn_reduce_plan plan, before;
    char msg[128] = "";
    (void)state;

    memset(&plan, 0x5A, sizeof plan);
    memcpy(&before, &plan, sizeof plan);
    assert_int_equal(opnn__reduce_plan_init(NULL, &req, msg, sizeof msg), OP_ERR_INVALID_ARGUMENT);
    assert_string_equal(msg, "reduce planner: NULL plan");
    assert_int_equal(opnn__reduce_plan_init(&plan, NULL, msg, sizeof msg), OP_ERR_INVALID_ARGUMENT);
    assert_string_equal(msg, "reduce planner: NULL request");

    req.shape = NULL;
    assert_int_equal(opnn__reduce_plan_init(&plan, &req, msg, sizeof msg), OP_ERR_INVALID_ARGUMENT);
    assert_string_equal(msg, "ReduceSum: shape is NULL for rank 1");
    req.shape = shape;
    req.num_axes = 2;
    assert_int_equal(opnn__reduce_plan_init(&plan, &req, msg, sizeof msg), OP_ERR_INVALID_ARGUMENT);
    assert_string_equal(msg, "ReduceSum: axes is NULL but holds 2 values");
    assert_memory_equal(&plan, &before, sizeof plan);
}

/* A negative stride on a dim that is never walked (size 1) is harmless and accepted. */
static void plan__negative_stride_on_size1_accepted(void **state)
{
    const int64_t shape[2] = {1, 6}, strides[2] = {-1, 1};
    opnn_reduce_request req = {
        .op = "ReduceMax", .ndim = 2, .shape = shape, .strides = strides, .dtype = ts_dtype("f32")};
    opnn_reduce_plan plan;
    char msg[128] = "";
    (void)state;

    assert_int_equal(opnn__reduce_plan_init(&plan, &req, msg, sizeof msg), OP_OK);
    assert_int_equal(plan.cls, OPNN_CLASS_FULL);
    assert_int_equal(plan.r, 6);
}

/* --- axes, dtypes, names -------------------------------------------------------------------- */

static void axes_mask__wraps_and_defaults(void **state)
{
    const int64_t axes[3] = {-1, 0, 2};
    uint32_t mask = 0xdead;
    char msg[128] = "";
    (void)state;

    assert_int_equal(opnn__reduce_axes_mask("ReduceMin", 4, axes, 3, false, &mask, msg, sizeof msg),
                     OP_OK);
    assert_int_equal(mask, 0xd);
    assert_int_equal(opnn__reduce_axes_mask("ReduceMin", 4, NULL, 0, false, &mask, msg, sizeof msg),
                     OP_OK);
    assert_int_equal(mask, 0xf);
    assert_int_equal(opnn__reduce_axes_mask("ReduceMin", 4, NULL, 0, true, &mask, msg, sizeof msg),
                     OP_OK);
    assert_int_equal(mask, 0x0);
    /* noop_with_empty_axes has no say once axes are given */
    assert_int_equal(opnn__reduce_axes_mask("ReduceMin", 4, axes, 1, true, &mask, msg, sizeof msg),
                     OP_OK);
    assert_int_equal(mask, 0x8);
    assert_int_equal(
        opnn__reduce_axes_mask("ReduceMin", 16, NULL, 0, false, &mask, msg, sizeof msg), OP_OK);
    assert_int_equal(mask, 0xffff);
    assert_int_equal(opnn__reduce_axes_mask("ReduceMin", 0, NULL, 0, false, &mask, msg, sizeof msg),
                     OP_OK);
    assert_int_equal(mask, 0x0);
}

static void axes_mask__errors_leave_mask(void **state)
{
    const int64_t dup[2] = {-1, 3}, big[1] = {INT64_MIN};
    uint32_t mask = 0xdead;
    char msg[128] = "";
    (void)state;

    assert_int_equal(opnn__reduce_axes_mask("ReduceProd", 4, dup, 2, false, &mask, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    assert_string_equal(msg, "ReduceProd: duplicate axis 3 (given as -1)");
    assert_int_equal(opnn__reduce_axes_mask("ReduceProd", 4, big, 1, false, &mask, msg, sizeof msg),
                     OP_ERR_INVALID_ARGUMENT);
    assert_string_equal(msg, "ReduceProd: axis -9223372036854775808 out of range for rank 4");
    assert_int_equal(
        opnn__reduce_axes_mask("ReduceProd", 17, NULL, 0, false, &mask, msg, sizeof msg),
        OP_ERR_UNSUPPORTED);
    assert_string_equal(msg, "ReduceProd: rank 17 exceeds the maximum of 16 dims");
    assert_int_equal(mask, 0xdead);
}

static void dtype__served_sizes_and_names(void **state)
{
    static const struct {
        uint8_t code, bits;
        uint16_t lanes;
        size_t size;
        const char *name;
    } t[] = {
        {kDLFloat, 32, 1, 4, "f32"},
        {kDLFloat, 64, 1, 8, "f64"},
        {kDLFloat, 16, 1, 2, "f16"},
        {kDLBfloat, 16, 1, 2, "bf16"},
        {kDLInt, 32, 1, 4, "i32"},
        {kDLInt, 64, 1, 8, "i64"},
        {kDLUInt, 8, 1, 0, "unsupported"},
        {kDLUInt, 32, 1, 0, "unsupported"},
        {kDLInt, 8, 1, 0, "unsupported"},
        {kDLFloat, 32, 2, 0, "unsupported"},
        {kDLFloat, 8, 1, 0, "unsupported"},
        {kDLBfloat, 32, 1, 0, "unsupported"},
        {kDLComplex, 64, 1, 0, "unsupported"},
    };
    (void)state;

    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        DLDataType d = {.code = t[i].code, .bits = t[i].bits, .lanes = t[i].lanes};

        assert_int_equal(opnn__dtype_size(d), t[i].size);
        assert_string_equal(opnn__dtype_name(d), t[i].name);
    }
}

static void class_name__every_class(void **state)
{
    static const char *const names[OPNN_CLASS_COUNT_] = {
        "empty", "fill", "full", "row", "col", "middle", "outer_inner", "generic",
    };
    (void)state;

    for (int i = 0; i < OPNN_CLASS_COUNT_; i++)
        assert_string_equal(opnn__reduce_class_name((opnn_reduce_class)i), names[i]);
    assert_string_equal(opnn__reduce_class_name(OPNN_CLASS_COUNT_), "unknown");
    assert_string_equal(opnn__reduce_class_name((opnn_reduce_class)-1), "unknown");
}

/* --- random views --------------------------------------------------------------------------- */

/* Random shapes (size-0 and size-1 dims included), strides that are permuted, padded,
 * broadcast or overlapping, and random axes in either form: every plan must read the same
 * elements into the same outputs as its request, and keep its class's invariants. */
static void plan__random_views_keep_mapping(void **state)
{
    ts_rng rng = {ts_seed("plan__random_views_keep_mapping")};
    int hits[OPNN_CLASS_COUNT_] = {0};
    (void)state;

    for (int iter = 0; iter < 3000; iter++) {
        int64_t shape[OP_MAX_DIMS], strides[OP_MAX_DIMS], axes[OP_MAX_DIMS];
        int order[OP_MAX_DIMS];
        int32_t ndim = (int32_t)ts_range(&rng, 0, 6);
        size_t num_axes = 0;
        opnn_reduce_request req = {
            .op = "ReduceSum", .ndim = ndim, .shape = shape, .dtype = ts_dtype("f32")};
        opnn_reduce_plan plan;
        char msg[256] = "";
        op_status st;

        /* set up */
        for (int d = 0; d < ndim; d++) {
            int64_t pick = ts_range(&rng, 0, 19);

            shape[d] = pick == 0 ? 0 : pick < 5 ? 1 : ts_range(&rng, 2, 4);
            order[d] = d;
        }
        for (int d = ndim - 1; d > 0; d--) { /* a random layout order */
            int j = (int)ts_range(&rng, 0, d), t = order[d];

            order[d] = order[j];
            order[j] = t;
        }
        switch (ts_range(&rng, 0, 3)) {
        case 0: /* compact */
            req.strides = NULL;
            break;
        case 1: /* fully random, overlaps and zeros included */
            for (int d = 0; d < ndim; d++)
                strides[d] = ts_range(&rng, 0, 7);
            req.strides = strides;
            break;
        default: { /* permuted layout with padding and some broadcast dims */
            int64_t step = 1;

            for (int k = ndim - 1; k >= 0; k--) {
                int d = order[k];

                strides[d] = ts_range(&rng, 0, 9) == 0 ? 0 : step;
                step *= (shape[d] > 0 ? shape[d] : 1) + (ts_range(&rng, 0, 3) == 0 ? 1 : 0);
            }
            req.strides = strides;
            break;
        }
        }
        for (int d = 0; d < ndim; d++) {
            if (ts_range(&rng, 0, 1))
                axes[num_axes++] = ts_range(&rng, 0, 1) ? d : d - ndim;
        }
        for (size_t i = num_axes; i > 1; i--) {
            size_t j = (size_t)ts_range(&rng, 0, (int64_t)i - 1);
            int64_t t = axes[i - 1];

            axes[i - 1] = axes[j];
            axes[j] = t;
        }
        req.axes = axes;
        req.num_axes = num_axes;
        req.noop_with_empty_axes = ts_range(&rng, 0, 1);

        /* run */
        st = opnn__reduce_plan_init(&plan, &req, msg, sizeof msg);

        /* check */
        if (st != OP_OK)
            fail_msg("iteration %d: status %d, \"%s\"", iter, (int)st, msg);
        hits[plan.cls]++;
        check_plan_invariants(&plan);
        if (plan.cls == OPNN_CLASS_EMPTY) {
            assert_int_equal(plan.out_numel, 0);
        } else if (plan.cls == OPNN_CLASS_FILL) {
            assert_int_equal(plan.red_numel, 0);
            assert_true(plan.out_numel > 0);
        } else {
            check_plan_mapping(&req, &plan);
        }
    }
    for (int k = 0; k < OPNN_CLASS_COUNT_; k++) {
        print_message("[ info ] %-12s %d\n", opnn__reduce_class_name((opnn_reduce_class)k),
                      hits[k]);
        assert_true(hits[k] > 0);
    }
}

/* --- CUDA launch geometry (core/plan_launch.c), on an H200's numbers --------------------- */

static const opnn_device_props h200 = {.device_id = 0,
                                       .sm_count = 132,
                                       .max_threads_per_sm = 2048,
                                       .max_threads_per_block = 1024,
                                       .warp_size = 32,
                                       .cc_major = 9,
                                       .l2_bytes = 60u << 20,
                                       .shared_per_block = 48u << 10};

/* ReduceSum's plan of a view (strides in elements; NULL: contiguous) */
static void plan_view_for(opnn_reduce_plan *p, int32_t ndim, const int64_t *shape,
                          const int64_t *strides, size_t naxes, const int64_t *axes,
                          DLDataType dtype)
{
    opnn_reduce_request req = {.op = "ReduceSum",
                               .ndim = ndim,
                               .shape = shape,
                               .strides = strides,
                               .axes = axes,
                               .num_axes = naxes,
                               .dtype = dtype};
    char msg[256] = "";

    if (opnn__reduce_plan_init(p, &req, msg, sizeof msg) != OP_OK)
        fail_msg("plan: %s", msg);
}

static void plan_dtype_for(opnn_reduce_plan *p, int32_t ndim, const int64_t *shape, size_t naxes,
                           const int64_t *axes, DLDataType dtype)
{
    plan_view_for(p, ndim, shape, NULL, naxes, axes, dtype);
}

static void plan_for(opnn_reduce_plan *p, int32_t ndim, const int64_t *shape, size_t naxes,
                     const int64_t *axes)
{
    plan_dtype_for(p, ndim, shape, naxes, axes, ts_dtype("f32"));
}

/* What every launch must hold: a grid the hardware takes, 256-thread blocks (ROW_TILE: 64, two
 * warp tiles a warp within the 48 KB of dynamic shared memory a launch gets without opting in,
 * a tile or more a warp), and a workspace that fits the partials and counters it will use. */
static void check_launch(const opnn_reduce_plan *p)
{
    const opnn_launch *l = &p->launch;

    if (l->family == OPNN_FAMILY_NONE) { /* nothing is launched */
        assert_int_equal(l->workspace_bytes, 0);
        return;
    }
    if (!(l->grid_x >= 1 && l->grid_x <= 0x7fffffff && l->units >= 1))
        fail_msg("family %s: grid %lld, units %lld", opnn__cuda_family_name(l->family),
                 (long long)l->grid_x, (long long)l->units);
    if (l->kernel == OPNN_KERNEL_ROW_TILE) {
        assert_int_equal(l->block, OPNN_CUDA_ROW_TILE_BLOCK);
        assert_true(l->tiles >= 1 && l->tiles <= OPNN_CUDA_ROW_TILE_MAX_VEC);
        assert_true(l->block / 32 * 2 * l->tiles * 16 <= 48 * 1024); /* two tiles a warp */
        assert_true(l->grid_x <= (l->units + l->block / 32 - 1) / (l->block / 32));
        /* lanes a row (a slab's output): a power of two, each with a row of its own; the
         * staggered columns (ranges 2) only for slabs, and the pack fold (ranges 3) only for
         * slabs of B of OPNN_CUDA_ROW_TILE_PACK_COLS whose rows are whole packs, sub lanes a
         * slab at most its packs */
        assert_true(l->sub >= 1 && l->sub <= 32 && (l->sub & (l->sub - 1)) == 0);
        assert_true(p->cls != OPNN_CLASS_MIDDLE || l->sub <= p->r);
        assert_true(l->ranges == 1 || (l->ranges == 2 && p->cls == OPNN_CLASS_MIDDLE) ||
                    (l->ranges == 3 && p->cls == OPNN_CLASS_MIDDLE));
        if (l->ranges == 3) {
            const int64_t row = p->b * (int64_t)opnn__dtype_size(p->dtype);
            const int64_t prow = 16 / (row % 16 == 0  ? 16
                                       : row % 8 == 0 ? 8
                                       : row % 4 == 0 ? 4
                                                      : 2);
            assert_true(OPNN_CUDA_ROW_TILE_PACK_COLS(p->b));
            assert_int_equal(p->r % prow, 0);
            assert_true(l->sub <= p->r / prow);
        }
    } else if (l->family == OPNN_FAMILY_OUTER_INNER && l->block != OPNN_CUDA_BLOCK) {
        /* units of a few loads a thread: 64 or 128 threads, more units than slots, no split */
        assert_true(l->block == OPNN_CUDA_BLOCK / 4 || l->block == OPNN_CUDA_BLOCK / 2);
        assert_int_equal(l->split, 1);
        assert_int_equal(l->ranges, 1);
        assert_true(l->sub <= l->block);
        assert_true(l->grid_x <= l->units);
    } else if (l->family == OPNN_FAMILY_ROW_WARP && l->block != OPNN_CUDA_BLOCK) {
        /* blocks of 4 warps: one row a warp over several waves of tiles; or of 2 to 4 warps
         * where blocks of twice that would be fewer than the SMs (at most 132 here) */
        assert_true(l->block == OPNN_CUDA_BLOCK / 2 || l->block == OPNN_CUDA_BLOCK / 4);
        assert_true(l->ranges == 1 || l->ranges == 2 * OPNN_CUDA_UNROLL);
        assert_true(l->grid_x == l->units);
        assert_true((l->block == OPNN_CUDA_BLOCK / 2 && l->units >= 2 * 3 * 132) ||
                    l->units < 2 * 132);
    } else {
        assert_int_equal(l->block, OPNN_CUDA_BLOCK);
    }
    /* twice as deep: the block kernel in grids of at most 2 blocks an SM (a block a unit, or
     * striding over one to two waves of units); the group kernel one row a group, a block a
     * tile; the outer kernel's 16-byte loads in at most 1.5 blocks an SM */
    assert_true(l->ranges == 1 || l->ranges == 2 || l->ranges == OPNN_CUDA_UNROLL ||
                (l->kernel == OPNN_KERNEL_OUTER && l->ranges == 3) ||
                (l->kernel == OPNN_KERNEL_ROW_TILE && l->ranges == 3) ||
                (l->kernel == OPNN_KERNEL_OUTER && l->ranges == 2 * OPNN_CUDA_UNROLL &&
                 2 * l->grid_x <= 3 * 132 && l->vec * (p->dtype.bits / 8) == 16) ||
                (l->kernel == OPNN_KERNEL_OUTER && l->ranges == OPNN_CUDA_SHIFT_RANGES &&
                 (l->sub == 16 || l->sub == 32) && l->vec * (p->dtype.bits / 8) == 16) ||
                (l->kernel == OPNN_KERNEL_INNER_BLOCK && l->ranges == 2 * OPNN_CUDA_UNROLL &&
                 l->grid_x == l->units && l->units <= 2 * 132) ||
                (l->kernel == OPNN_KERNEL_INNER_BLOCK && l->ranges == 2 * OPNN_CUDA_UNROLL &&
                 l->grid_x == 2 * 132 && l->units > 3 * 132 && l->units < 2 * 3 * 132) ||
                (l->kernel == OPNN_KERNEL_INNER_GROUP && l->ranges == 2 * OPNN_CUDA_UNROLL &&
                 l->grid_x == l->units));
    /* warp units of the outer kernel: no split, 16-byte loads at 32 lanes a row */
    if (l->kernel == OPNN_KERNEL_OUTER && l->ranges == 1) {
        assert_int_equal(l->split, 1);
        assert_int_equal(l->workspace_bytes, 0);
        assert_true(l->sub < 32 || l->vec * (p->dtype.bits / 8) == 16);
    }
    /* the inner kernels' groups of `sub` lanes tile the block (the launcher refuses others) */
    if (l->kernel == OPNN_KERNEL_INNER_BLOCK || l->kernel == OPNN_KERNEL_INNER_GROUP)
        assert_true(l->sub >= 1 && l->sub <= l->block && (l->sub & (l->sub - 1)) == 0);
    assert_int_equal(l->workspace_bytes, l->partial_bytes + (size_t)l->ncounters * 4u);
    if (l->split > 1)
        assert_true(l->partial_bytes > 0 && l->ncounters > 0);
    /* rows off 16 bytes read as covering vectors: tiles of segs vectors (sub - 1, or sub: exact
     * tiles, in one wave of whole ones), as few as cover the columns,
     * and a split's workspace also holds the launcher's fallback, tiles of sub single elements
     * (only shift plans have whole tiles before split ones) */
    if (!(l->kernel == OPNN_KERNEL_OUTER && l->ranges == OPNN_CUDA_SHIFT_RANGES))
        assert_int_equal(l->whole, 0);
    else {
        const int64_t tiles1 = (p->b + l->sub - 1) / l->sub;
        const int64_t nt = p->a * l->tiles, split_tiles = nt - l->whole;

        assert_true(l->segs == l->sub - 1 || (l->segs == l->sub && l->sub == 32));
        assert_int_equal(l->tiles, (p->b + l->segs * l->vec - 1) / (l->segs * l->vec));
        if (l->segs == l->sub)
            assert_true(l->split == 1 && l->whole == 0 && l->units == nt && l->units <= 3 * 132);
        assert_int_equal(l->units, l->whole + split_tiles * l->split);
        /* whole tiles first: the split ones are fewer than a wave and cut in slices of rows,
         * which the fallback does not need (it reads every tile whole) */
        assert_true(l->whole >= 0 && l->whole < nt);
        if (l->whole > 0) {
            assert_true(l->split > 1 && split_tiles * l->split <= 3 * 132);
            assert_true(l->chunk * (l->split - 1) < p->r && l->chunk * l->split >= p->r);
            assert_true(l->sub == 32 && l->chunk >= 16 * (OPNN_CUDA_BLOCK / l->sub));
            assert_true(l->ncounters >= split_tiles);
            assert_true(l->partial_bytes >= (size_t)(split_tiles * l->sub * l->vec * l->split) *
                                                OPNN_CUDA_MAX_ACC_BYTES);
        } else if (l->split > 1) {
            assert_true(l->ncounters >= p->a * (l->tiles > tiles1 ? l->tiles : tiles1));
            assert_true(l->partial_bytes >=
                        (size_t)(p->a * tiles1 * l->sub * l->split) * OPNN_CUDA_MAX_ACC_BYTES);
        }
    }
}

/* plan_dtype_for, planned for the H200 and checked against check_launch */
static void h200_launch(opnn_reduce_plan *p, int32_t ndim, const int64_t *shape, size_t naxes,
                        const int64_t *axes, const char *dtype)
{
    plan_dtype_for(p, ndim, shape, naxes, axes, ts_dtype(dtype));
    opnn__reduce_plan_launch(p, &h200);
    check_launch(p);
}

/* OPNN_CUDA_COVER_VECTORS bounds the aligned vectors that cover k elements from any start
 * (the cover walk reads that many a segment, the planner counts them), and is reached. */
static void launch__cover_vectors_bound(void **state)
{
    (void)state;
    for (int64_t v = 1; v <= 16; v *= 2)
        for (int64_t k = 1; k <= 300; k++) {
            int64_t most = 0;
            for (int64_t h = 0; h < v; h++)
                if ((h + k + v - 1) / v > most)
                    most = (h + k + v - 1) / v;
            assert_int_equal(OPNN_CUDA_COVER_VECTORS(k, v), most);
        }
}

/* h200_launch of an f32 view with strides (elements) */
static void h200_launch_strided(opnn_reduce_plan *p, int32_t ndim, const int64_t *shape,
                                const int64_t *strides, size_t naxes, const int64_t *axes)
{
    plan_view_for(p, ndim, shape, strides, naxes, axes, ts_dtype("f32"));
    opnn__reduce_plan_launch(p, &h200);
    check_launch(p);
}

/* The element-wise fold's plan (tile_col_plan) of a slab plan [A, R, 3] over 1, whose B has a
 * pack fold the planner takes instead */
static void h200_tile_elements(opnn_reduce_plan *p, const int64_t *shape, const char *dtype)
{
    const int64_t ax1[1] = {1};

    h200_launch(p, 3, shape, 1, ax1, dtype);
    assert_int_equal(p->launch.ranges, 3);
    assert_true(opnn__reduce_launch_tile_packs(p, &h200, false));
    check_launch(p);
    assert_int_equal(p->launch.family, OPNN_FAMILY_ROW_TILE);
}

/* ROW_TILE's pack fold (launch.ranges 3), the planner's for such slabs: g the most lanes (a power
 * of two, at most 32) that leave each lane two or more of a slab's packs, tiles of whole rounds of
 * 32 / g slabs where they stay whole 32-byte sectors; refused, the plan untouched, for B without a
 * pack fold, rows that are not whole packs, slabs past a tile and plans that are not slabs. */
static void launch__tile_packs(void **state)
{
    const int64_t ax1[1] = {1};
    struct {
        int64_t shape[3];
        const char *dtype;
        int g;
        int64_t slabs, vectors; /* a tile */
    } ok[] = {
        {{4194304, 32, 3}, "f16", 2, 32, 384},  /* 4 packs of 8 rows, 192 bytes: 34 -> 32 */
        {{4194304, 32, 3}, "bf16", 2, 32, 384}, /* the same */
        {{4194304, 32, 3}, "f32", 4, 16, 384},  /* 8 packs of 4 rows, 384 bytes: 17 -> 16 */
        {{4194304, 32, 3}, "i32", 4, 16, 384},  /* the same */
        {{2097152, 64, 3}, "f16", 4, 16, 384},  /* 8 packs: 17 -> 16 */
        {{2097152, 64, 3}, "f32", 8, 8, 384},   /* 16 packs, 768 bytes: 8 */
        {{4194304, 16, 3}, "f16", 1, 64, 384},  /* 2 packs, 96 bytes: 69 -> 64 */
        {{4194304, 16, 3}, "f64", 4, 16, 384},  /* 8 packs of 2 rows, 384 bytes */
        {{1048576, 128, 3}, "f32", 16, 4, 384}, /* 32 packs, 1536 bytes */
        {{65536, 1024, 3}, "f16", 32, 1, 384},  /* 128 packs, 6 KB: a slab a tile */
        {{4096, 48, 3}, "f16", 2, 16, 288},     /* 6 packs over 2 lanes: 23 -> 16 */
        {{4096, 100, 5}, "f32", 8, 2, 250},     /* 25 packs; 3 slabs would end mid-sector */
        {{4096, 8, 6}, "f16", 1, 64, 384},      /* 2 packs of 4 rows of 12 bytes */
        {{4096, 8, 6}, "f64", 4, 16, 384},      /* 8 packs of one 48-byte row */
        {{4096, 64, 7}, "f64", 16, 1, 224},     /* 32 packs of 2 rows, 3584 bytes */
        {{4096, 16, 5}, "i64", 4, 8, 320},      /* 8 packs, 640 bytes: 10 -> 8 */
    };
    struct {
        int64_t shape[3];
        const char *dtype;
    } refused[] = {
        {{4096, 100, 5}, "f16"},   /* 100 rows: not whole packs of 8 */
        {{4096, 129, 3}, "f32"},   /* 129 rows: not whole packs of 4 */
        {{4096, 24, 4}, "f32"},    /* 4 columns: no pack fold */
        {{4096, 8, 17}, "f32"},    /* 17 columns: no pack fold */
        {{65536, 1024, 3}, "f32"}, /* 12 KB slabs: past a tile */
    };
    opnn_reduce_plan p, q;
    (void)state;

    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        plan_dtype_for(&p, 3, ok[i].shape, 1, ax1, ts_dtype(ok[i].dtype));
        opnn__reduce_plan_launch(&p, &h200);
        assert_true(opnn__reduce_launch_tile_packs(&p, &h200, true));
        check_launch(&p);
        assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
        assert_int_equal(p.launch.ranges, 3);
        assert_int_equal(p.launch.sub, ok[i].g);
        assert_int_equal(p.launch.segs, 1); /* a slab a pack: slabs of whole vectors */
        assert_int_equal(p.launch.chunk, ok[i].slabs);
        assert_int_equal(p.launch.tiles, ok[i].vectors);
        assert_int_equal(p.launch.tiles % 2, 0); /* whole sectors */
        assert_int_equal(p.launch.units, (ok[i].shape[0] + ok[i].slabs - 1) / ok[i].slabs);
    }
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        plan_dtype_for(&p, 3, refused[i].shape, 1, ax1, ts_dtype(refused[i].dtype));
        opnn__reduce_plan_launch(&p, &h200);
        memcpy(&q, &p, sizeof p);
        assert_false(opnn__reduce_launch_tile_packs(&p, &h200, true));
        assert_memory_equal(&p, &q, sizeof p);
    }
    /* rows (not slabs) of a tile */
    const int64_t rows[2] = {4096, 96};
    plan_dtype_for(&p, 2, rows, 1, ax1, ts_dtype("f32"));
    opnn__reduce_plan_launch(&p, &h200);
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    memcpy(&q, &p, sizeof p);
    assert_false(opnn__reduce_launch_tile_packs(&p, &h200, true));
    assert_memory_equal(&p, &q, sizeof p);
    /* the planner's plan of such slabs is the pack fold's; packs false gives the element-wise
     * fold, the plan they had before (f16 [4194304, 32, 3]: 2 lanes an output, not staggered) */
    const int64_t s32[3] = {4194304, 32, 3};
    h200_launch(&p, 3, s32, 1, ax1, "f16");
    memcpy(&q, &p, sizeof p);
    assert_true(opnn__reduce_launch_tile_packs(&q, &h200, true));
    assert_memory_equal(&p, &q, sizeof p);
    assert_true(opnn__reduce_launch_tile_packs(&q, &h200, false));
    check_launch(&q);
    assert_int_equal(q.launch.family, OPNN_FAMILY_ROW_TILE);
    assert_int_equal(q.launch.ranges, 1);
    assert_int_equal(q.launch.sub, 2);
    /* refused both ways where B has no pack fold */
    const int64_t s4[3] = {4096, 24, 4};
    h200_launch(&p, 3, s4, 1, ax1, "f32");
    memcpy(&q, &p, sizeof p);
    assert_false(opnn__reduce_launch_tile_packs(&p, &h200, false));
    assert_memory_equal(&p, &q, sizeof p);
}

/* A shift plan of exact tiles (a warp a row, tiles of 32 vectors): `tiles` a slab, one wave of
 * whole units */
static void assert_exact_shift(const opnn_reduce_plan *p, int64_t tiles)
{
    assert_int_equal(p->launch.ranges, OPNN_CUDA_SHIFT_RANGES);
    assert_int_equal(p->launch.sub, 32);
    assert_int_equal(p->launch.segs, 32);
    assert_int_equal(p->launch.tiles, tiles);
    assert_int_equal(p->launch.whole, 0);
    assert_int_equal(p->launch.split, 1);
    assert_int_equal(p->launch.units, p->a * tiles);
}

/* The shapes of test_cuda_kernels' shift_cases that take half a warp a row, planned as there
 * (for a device of 2 or 4 SMs), one that takes a warp, and the "_tail_" ones, whose last tiles
 * alone are split: the GPU test runs both widths, split and not, whole tiles before split ones
 * and not; then those that take exact tiles. */
static void launch__shift_test_shapes(void **state)
{
    /* exact: the tiles a slab of exact tiles of 32 vectors (one wave of whole units at 2 SMs,
     * fewer a most SM than 31 vectors' tiles): test_cuda_kernels' col_shift_short in f16 and
     * bf16 (4 tiles against 5), an f32 column of 501 (4 against 5), middle_shift_exact in f32
     * and i32 (2 slabs of 2 against 3); 0: tiles of sub - 1 vectors */
    static const struct {
        int64_t shape[3];
        int sms;
        const char *dtype;
        int sub;
        bool split;
        bool whole; /* whole tiles, then split ones */
        int64_t exact;
    } cases[] = {
        {{5, 259}, 2, "f32", 16, false, false, 0},
        {{5, 259}, 2, "i32", 16, false, false, 0},
        {{5, 517}, 2, "f16", 16, false, false, 0},
        {{5, 517}, 2, "bf16", 16, false, false, 0},
        {{1109, 257}, 4, "f32", 16, true, false, 0},
        {{1109, 257}, 4, "i32", 16, true, false, 0},
        {{1734, 257}, 4, "f16", 16, true, false, 0},
        {{1734, 257}, 4, "bf16", 16, true, false, 0},
        {{8001, 491}, 2, "f32", 32, true, false, 0},
        {{8001, 491}, 2, "f16", 32, true, false, 0},
        {{8001, 491}, 2, "f64", 32, true, false, 0},
        {{5, 501}, 2, "f32", 32, false, false, 4},
        {{700, 1601}, 2, "f32", 32, true, true, 0},
        {{700, 1601}, 2, "f64", 32, true, true, 0},
        {{700, 1601}, 2, "f16", 32, true, true, 0},
        {{700, 1601}, 2, "bf16", 32, true, true, 0},
        {{3, 300, 1051}, 2, "f32", 32, true, true, 0},
        {{3, 300, 1051}, 2, "f16", 32, true, true, 0},
        {{3, 300, 1051}, 2, "i64", 32, true, true, 0},
        {{5, 1001}, 2, "f16", 32, false, false, 4},
        {{5, 1001}, 2, "bf16", 32, false, false, 4},
        {{2, 50, 251}, 2, "f32", 32, false, false, 2},
        {{2, 50, 251}, 2, "i32", 32, false, false, 2},
    };
    const int64_t ax0[1] = {0}, ax1[1] = {1};
    (void)state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        opnn_device_props small = h200;
        opnn_reduce_plan p;
        const bool middle = cases[i].shape[2] > 0;

        small.sm_count = cases[i].sms;
        plan_dtype_for(&p, middle ? 3 : 2, cases[i].shape, 1, middle ? ax1 : ax0,
                       ts_dtype(cases[i].dtype));
        opnn__reduce_plan_launch(&p, &small);
        check_launch(&p);
        assert_int_equal(p.launch.ranges, OPNN_CUDA_SHIFT_RANGES);
        assert_int_equal(p.launch.sub, cases[i].sub);
        assert_int_equal(p.launch.split > 1, cases[i].split);
        assert_int_equal(p.launch.whole > 0, cases[i].whole);
        if (cases[i].exact)
            assert_exact_shift(&p, cases[i].exact);
        else
            assert_int_equal(p.launch.segs, cases[i].sub - 1);
    }
}

/* Column tiles of 32 16-byte loads are warp units (ranges 1, no split) where rows are few
 * (WARP_TILE_MAX_ROWS) and the units fill a wave of warps; block units otherwise */
static void launch__warp_tiles(void **state)
{
    static const struct {
        int64_t shape[4];
        int ndim, sms;
        const char *dtype;
        bool warp;
    } cases[] = {
        {{4096, 64, 1024}, 3, 132, "f32", true},      {{4096, 64, 1024}, 3, 132, "f16", true},
        {{16384, 32, 512}, 3, 132, "f32", true},      {{4096, 128, 1024}, 3, 132, "f64", true},
        {{1024, 256, 1024}, 3, 132, "f32", false}, /* 32 rows a thread in a block unit */
        {{500, 64, 1024}, 3, 132, "f32", false},   /* 4000 units: fewer than 8 a slot */
        {{4096, 64, 1022}, 3, 132, "f32", false},  /* rows 8 bytes off 16: 8-byte loads */
        {{70, 40, 296}, 3, 2, "f32", true},           {{70, 40, 296}, 3, 2, "f16", true},
        {{70, 40, 296}, 3, 2, "f64", true},           {{3, 70, 20, 296}, 4, 2, "f32", true},
        {{16, 512, 128, 256}, 4, 132, "bf16", false}, /* 2048 rows over (0, 2) */
    };
    const int64_t ax1[1] = {1}, ax02[2] = {0, 2};
    (void)state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        opnn_device_props dev = h200;
        opnn_reduce_plan p;
        const bool slabs = cases[i].ndim == 4;

        dev.sm_count = cases[i].sms;
        plan_dtype_for(&p, cases[i].ndim, cases[i].shape, slabs ? 2 : 1, slabs ? ax02 : ax1,
                       ts_dtype(cases[i].dtype));
        opnn__reduce_plan_launch(&p, &dev);
        check_launch(&p);
        assert_int_equal(p.launch.kernel, OPNN_KERNEL_OUTER);
        assert_int_equal(p.launch.sub, 32);
        assert_int_equal(p.launch.split, 1);
        if ((p.launch.ranges == 1) != cases[i].warp)
            fail_msg("case %zu: ranges %d", i, p.launch.ranges);
        /* a block per 8 warp units: each block's 8 units are 64 KB or more here */
        if (cases[i].warp && p.launch.grid_x != (p.launch.units + 7) / 8)
            fail_msg("case %zu: grid %lld for %lld units", i, (long long)p.launch.grid_x,
                     (long long)p.launch.units);
    }
}

/* Warp units take a block per 8 units where the 8 hold 64 KB or more (the hardware spreads the
 * blocks), and a persistent grid of one wave below that */
static void launch__warp_unit_grid(void **state)
{
    static const struct {
        int64_t shape[3];
        const char *dtype;
        int sub;
        int64_t units, grid;
    } cases[] = {
        {{16384, 32, 512}, "f32", 32, 65536, 8192}, /* 16 KB units */
        {{4096, 64, 1024}, "f32", 32, 32768, 4096}, /* 32 KB */
        {{4096, 64, 1024}, "f16", 32, 16384, 2048}, /* 32 KB */
        {{131072, 256, 8}, "f16", 1, 131072, 528},  /* 4 KB: 32 KB a block, persistent */
        {{16384, 256, 4}, "f32", 1, 16384, 528},    /* 4 KB */
    };
    /* the column kernel's (the planner gives the 4 KB slabs to ROW_TILE, g lanes an output) */
    const int64_t ax1[1] = {1};
    (void)state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        opnn_reduce_plan p;

        plan_dtype_for(&p, 3, cases[i].shape, 1, ax1, ts_dtype(cases[i].dtype));
        assert_true(opnn__reduce_launch_family(&p, &h200, OPNN_FAMILY_MIDDLE));
        check_launch(&p);
        assert_int_equal(p.launch.kernel, OPNN_KERNEL_OUTER);
        assert_int_equal(p.launch.ranges, 1);
        assert_int_equal(p.launch.sub, cases[i].sub);
        assert_int_equal(p.launch.units, cases[i].units);
        if (p.launch.grid_x != cases[i].grid)
            fail_msg("case %zu: grid %lld, expected %lld", i, (long long)p.launch.grid_x,
                     (long long)cases[i].grid);
    }
}

/* Block units fewer than the SMs (few, narrow slabs) take narrower column tiles: unsplit ones halve
 * the threads across until the units fill the SMs or a thread is across; split ones of a middle
 * under 32 MB take, unsplit, tiles of 32 bytes a row or more that make 0.9 of the split's units
 * or more, or keep the split. The loads stay as wide, the tiles still cover B, and units that
 * already fill the SMs keep their tiles */
static void launch__few_units_narrow_tiles(void **state)
{
    static const struct {
        int64_t shape[3];
        const char *dtype;
        int sub, vec;
        int64_t tiles, ranges, split;
    } cases[] = {
        {{32, 3136, 16}, "f32", 1, 4, 4, 8, 1},   /* 32 units of 4 threads -> 128 of 1, 8 deep */
        {{128, 3136, 3}, "f16", 2, 1, 2, 4, 1},   /* 128 of 4 (single halves) -> 256 of 2 */
        {{40, 700, 24}, "f32", 1, 4, 6, 4, 1},    /* 40 of 8 -> 240 of 1: 4 deep past 1.5 an SM */
        {{16, 6272, 16}, "bf16", 1, 8, 2, 8, 1},  /* 16 of 2 -> 32 of 1 */
        {{128, 12544, 4}, "f32", 1, 4, 1, 8, 1},  /* a thread across already */
        {{256, 3136, 32}, "f32", 8, 4, 1, 4, 1},  /* 256 units fill the SMs: unchanged */
        {{150, 700, 24}, "f32", 8, 4, 1, 8, 1},   /* 150: unchanged, a block a slab 8 deep */
        {{24, 4096, 64}, "f16", 2, 8, 4, 8, 1},   /* split 4 (96 units) -> 96 of 2 threads */
        {{12, 4096, 128}, "f32", 2, 4, 16, 8, 1}, /* split 16 (192) -> 192 of 2 */
        {{32, 1024, 96}, "f32", 4, 4, 6, 8, 1},   /* split 4 (128) -> 192 of 4 */
        {{8, 12544, 32}, "f32", 8, 4, 1, 8, 12},  /* 32 units of 2 threads: stays split */
        {{4, 4099, 600}, "f32", 32, 4, 5, 4, 16}, /* 39 MB: stays split */
        {{31, 221, 5}, "f32", 4, 1, 2, 4, 1},     /* single floats: 16 bytes a tile at least */
        {{2, 2972, 56}, "f32", 2, 4, 7, 8, 1},    /* split -> tiles of 32 bytes, not 16 */
        {{3, 5300, 40}, "f32", 16, 4, 1, 8, 10},  /* 32-byte tiles too few: stays split 10 */
    };
    const int64_t ax1[1] = {1};
    (void)state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        opnn_reduce_plan p;
        const opnn_launch *l = &p.launch;

        h200_launch(&p, 3, cases[i].shape, 1, ax1, cases[i].dtype);
        assert_int_equal(l->family, OPNN_FAMILY_MIDDLE);
        assert_int_equal(l->kernel, OPNN_KERNEL_OUTER);
        assert_int_equal(l->split, cases[i].split);
        if (l->sub != cases[i].sub || l->vec != cases[i].vec || l->tiles != cases[i].tiles ||
            l->ranges != cases[i].ranges)
            fail_msg("case %zu: sub %d vec %d tiles %lld ranges %d, expected %d %d %lld %lld", i,
                     l->sub, l->vec, (long long)l->tiles, l->ranges, cases[i].sub, cases[i].vec,
                     (long long)cases[i].tiles, (long long)cases[i].ranges);
        assert_true(l->tiles * l->sub * l->vec >= p.b);
        assert_true((l->tiles - 1) * l->sub * l->vec < p.b);
        assert_int_equal(l->units, p.a * l->tiles * l->split);
        assert_int_equal(l->grid_x, l->units);
    }
}

/* Column shift plans (one slab) that split take about 1.5 units an SM of their tiles more than
 * half full, never more slices than choose_split gave; middles keep choose_split's */
static void launch__shift_col_split(void **state)
{
    static const struct {
        int ndim;
        int64_t shape[3], axis;
        const char *dtype;
        int64_t split;
    } cases[] = {
        {2, {26000, 2501}, 0, "f32", 10},  /* 20 tiles full, the 21st of 21 columns: 198 / 20 */
        {2, {13000, 4001}, 0, "f32", 6},   /* 32 of 33 */
        {2, {6000, 8001}, 0, "f32", 3},    /* the last of 65 columns, 124 a tile: all 65 */
        {2, {26000, 2501}, 0, "f16", 20},  /* 10 of 11 */
        {2, {250000, 259}, 0, "f16", 191}, /* one tile full: 198 slices would be more */
        {3, {16, 4001, 257}, 1, "f16", 7}, /* a middle */
        {3, {4, 20001, 1001}, 1, "f16", 39},
    };
    (void)state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        opnn_reduce_plan p;
        const int64_t axis = cases[i].axis;

        h200_launch(&p, cases[i].ndim, cases[i].shape, 1, &axis, cases[i].dtype);
        if (p.launch.ranges != OPNN_CUDA_SHIFT_RANGES || p.launch.split != cases[i].split)
            fail_msg("case %zu: ranges %d split %lld, want %lld", i, p.launch.ranges,
                     (long long)p.launch.split, (long long)cases[i].split);
        assert_int_equal(p.launch.whole, 0);
        assert_int_equal(p.launch.units, p.a * p.launch.tiles * p.launch.split);
        assert_true(p.launch.chunk * (p.launch.split - 1) < p.r &&
                    p.launch.chunk * p.launch.split >= p.r);
    }
}

/* opnn__reduce_launch_outer_tiles: an OUTER plan of block or warp units re-tiled to other lanes
 * across and loads, at its split, covers B with the units, grid and workspace the split needs;
 * its own sub and vec give the plan back; other plans and a vec not a power of two are refused */
static void launch__outer_retile(void **state)
{
    static const struct {
        int64_t shape[3];
        const char *dtype;
    } cases[] = {
        {{8, 2000, 32}, "f32"}, /* unsplit, a block a unit */
        {{3, 5300, 40}, "f32"}, /* split 10 */
        {{8192, 1024, 1},
         "f32"}, /* a column split 32 (a middle of one slab: B 1024 as [1, R, B]) */
        {{4096, 64, 1024}, "f16"}, /* warp units */
    };
    static const int subs[] = {1, 2, 8, 32}, vecs[] = {1, 2, 4, 8, 16};
    const int64_t ax1[1] = {1}, ax0[1] = {0};
    (void)state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        opnn_reduce_plan p, q;
        const bool col = cases[i].shape[2] == 1;

        h200_launch(&p, col ? 2 : 3, cases[i].shape, 1, col ? ax0 : ax1, cases[i].dtype);
        assert_int_equal(p.launch.kernel, OPNN_KERNEL_OUTER);
        q = p;
        assert_true(opnn__reduce_launch_outer_tiles(&q, p.launch.sub, p.launch.vec));
        assert_memory_equal(&q.launch, &p.launch, sizeof p.launch);
        for (size_t s = 0; s < sizeof subs / sizeof subs[0]; s++)
            for (size_t v = 0; v < sizeof vecs / sizeof vecs[0]; v++) {
                const int64_t v16 = 16 / (p.dtype.bits / 8);
                const int64_t item = vecs[v] <= v16 ? vecs[v] : 1, w = subs[s] * item;
                const opnn_launch *l = &q.launch;

                q = p;
                assert_true(opnn__reduce_launch_outer_tiles(&q, subs[s], vecs[v]));
                assert_int_equal(l->sub, subs[s]);
                assert_int_equal(l->vec, vecs[v]);
                assert_true(l->tiles * w >= q.b && (l->tiles - 1) * w < q.b);
                assert_int_equal(l->split, p.launch.split);
                assert_int_equal(l->units, q.a * l->tiles * l->split);
                assert_true(l->grid_x >= 1);
                if (l->split > 1) /* partials of every tile's sub * vec columns, a counter a tile */
                    assert_true(l->partial_bytes >= (size_t)(q.a * l->tiles * w * l->split) *
                                                        OPNN_CUDA_MAX_ACC_BYTES &&
                                l->ncounters >= q.a * l->tiles);
                else
                    assert_int_equal(l->workspace_bytes, 0);
            }
        q = p;
        assert_false(opnn__reduce_launch_outer_tiles(&q, 2, 3));
        assert_memory_equal(&q, &p, sizeof p);
    }
    /* not an OUTER plan of units: a row plan, and a run of vectors */
    const int64_t row[2] = {4096, 4096}, run[2] = {22369621, 3};
    opnn_reduce_plan p, q;
    h200_launch(&p, 2, row, 1, ax1, "f32");
    q = p;
    assert_false(opnn__reduce_launch_outer_tiles(&q, 2, 4));
    assert_memory_equal(&q, &p, sizeof p);
    h200_launch(&p, 2, run, 1, ax0, "f16");
    assert_int_equal(p.launch.ranges, 2);
    q = p;
    assert_false(opnn__reduce_launch_outer_tiles(&q, 2, 4));
    assert_memory_equal(&q, &p, sizeof p);
}

/* opnn__reduce_launch_outer_split (opnn_families --split): at a plan's own split it gives the
 * planner's launch back (the same workspace sizing), at others a launch check_launch accepts with
 * the split asked for (rows rounded up); plans it does not take are left as they were. */
static void launch__outer_resplit(void **state)
{
    static const struct {
        int ndim;
        int64_t shape[3], axis;
        const char *dtype;
        int ranges;
    } cases[] = {
        {2, {22369621, 3}, 0, "f16", 2},               /* a run of vectors */
        {2, {3000000, 17}, 0, "f64", 2},               /* a run of vectors, 8-byte accumulators */
        {2, {1000000, 259}, 0, "f16", 3},              /* super-rows */
        {2, {100001, 2501}, 0, "f32", 3},              /* super-rows */
        {2, {8192, 1024}, 0, "f32", OPNN_CUDA_UNROLL}, /* a block a unit */
        {2, {1000, 2500}, 0, "f32", 2 * OPNN_CUDA_UNROLL},       /* a block a unit, 8 loads deep */
        {2, {26000, 2501}, 0, "f32", OPNN_CUDA_SHIFT_RANGES},    /* shift tiles, split */
        {3, {16, 4001, 257}, 1, "f16", OPNN_CUDA_SHIFT_RANGES},  /* half a warp a row */
        {3, {32, 1001, 3001}, 1, "f16", OPNN_CUDA_SHIFT_RANGES}, /* exact tiles, whole */
        {3, {34, 1001, 3001}, 1, "f16", OPNN_CUDA_SHIFT_RANGES}, /* whole tiles, a split tail */
    };
    static const int64_t splits[] = {1, 2, 7, 100, 528};
    (void)state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        opnn_reduce_plan p, q;

        plan_dtype_for(&p, cases[i].ndim, cases[i].shape, 1, &cases[i].axis,
                       ts_dtype(cases[i].dtype));
        opnn__reduce_plan_launch(&p, &h200);
        if (p.launch.kernel != OPNN_KERNEL_OUTER || p.launch.ranges != cases[i].ranges)
            fail_msg("case %zu: kernel %d ranges %d", i, p.launch.kernel, p.launch.ranges);
        q = p;
        assert_true(opnn__reduce_launch_outer_split(&q, p.launch.split));
        if (p.launch.whole == 0)
            assert_memory_equal(&q.launch, &p.launch, sizeof p.launch);
        else /* a shift plan's split tail: now every tile split alike */
            assert_int_equal(q.launch.units, p.a * p.launch.tiles * p.launch.split);
        for (size_t k = 0; k < sizeof splits / sizeof splits[0]; k++) {
            const int64_t r = cases[i].ranges == 3 ? p.r / p.launch.segs : p.r;
            const int64_t want =
                (r + (r + splits[k] - 1) / splits[k] - 1) / ((r + splits[k] - 1) / splits[k]);
            q = p;
            if (!opnn__reduce_launch_outer_split(&q, splits[k])) {
                /* only a super-row plan of one slice, and exact shift tiles split */
                if (cases[i].ranges == 3)
                    assert_true(want < 2);
                else
                    assert_true(cases[i].ranges == OPNN_CUDA_SHIFT_RANGES &&
                                p.launch.segs == p.launch.sub && want > 1);
                assert_memory_equal(&q.launch, &p.launch, sizeof p.launch);
                continue;
            }
            assert_int_equal(q.launch.split, want);
            assert_int_equal(q.launch.units, p.a * p.launch.tiles * want);
            assert_int_equal(q.launch.whole, 0);
            assert_int_equal(q.launch.segs, p.launch.segs);
            /* (check_launch also holds the planner's policy: 8 loads deep in at most 1.5
             * blocks an SM) */
            if (q.launch.ranges != 2 * OPNN_CUDA_UNROLL || 2 * q.launch.grid_x <= 3 * 132)
                check_launch(&q);
        }
    }

    /* not an OUTER plan of one slab: a row plan, and a warp-unit plan */
    const int64_t rows[2] = {4096, 4096}, units[3] = {131072, 256, 8}, ax1[1] = {1};
    opnn_reduce_plan p, q;
    plan_dtype_for(&p, 2, rows, 1, ax1, ts_dtype("f32"));
    opnn__reduce_plan_launch(&p, &h200);
    q = p;
    assert_false(opnn__reduce_launch_outer_split(&q, 8));
    assert_memory_equal(&q.launch, &p.launch, sizeof p.launch);
    plan_dtype_for(&p, 3, units, 1, ax1, ts_dtype("f16"));
    opnn__reduce_plan_launch(&p, &h200);
    assert_int_equal(p.launch.ranges, 1);
    q = p;
    assert_false(opnn__reduce_launch_outer_split(&q, 8));
    assert_memory_equal(&q.launch, &p.launch, sizeof p.launch);
}

/* The suite's shapes get the families the comments of plan_launch.c measured, with the
 * geometry their kernels assume. */
static void launch__suite_shapes_on_h200(void **state)
{
    const int64_t full[1] = {268435456}, nchw[4] = {128, 256, 56, 56};
    const int64_t ax0[1] = {0}, hw[2] = {2, 3}, nhw[3] = {0, 2, 3};
    opnn_reduce_plan p;
    (void)state;

    /* FULL: grid-stride over every resident block (4 per SM), a partial each, one counter */
    h200_launch(&p, 1, full, 1, ax0, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_FULL_SPLIT);
    assert_int_equal(p.launch.kernel, OPNN_KERNEL_FULL);
    assert_int_equal(p.launch.grid_x, 132 * OPNN_CUDA_BLOCKS_PER_SM);
    assert_int_equal(p.launch.ncounters, 1);
    assert_int_equal(p.launch.partial_bytes, (size_t)p.launch.grid_x * OPNN_CUDA_MAX_ACC_BYTES);

    /* a small FULL: one block, no workspace */
    const int64_t small[1] = {4096};
    h200_launch(&p, 1, small, 1, ax0, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_FULL_SMALL);
    assert_int_equal(p.launch.grid_x, 1);
    assert_int_equal(p.launch.workspace_bytes, 0);

    /* small_rows: a warp a 4 KB row (latency-bound); 8 KB rows of as small an input keep a
     * block a row */
    const int64_t srows[2] = {64, 1024}, srows8k[2] = {32, 2048}, last[1] = {1};
    h200_launch(&p, 2, srows, 1, last, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_WARP);
    assert_int_equal(p.launch.sub, 32);
    /* blocks of 2 warps: 32 tiles on 32 SMs, not 8 of 8 warps */
    assert_int_equal(p.launch.block, 64);
    assert_int_equal(p.launch.grid_x, 64 / 2);
    h200_launch(&p, 2, srows8k, 1, last, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_BLOCK);

    /* seed_hw: a warp per 12.5 KB row, blocks of 4 warps (8192 tiles) */
    h200_launch(&p, 4, nchw, 2, hw, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_WARP);
    assert_int_equal(p.launch.sub, 32);
    assert_int_equal(p.launch.ranges, 1); /* one row a warp at a time, a block per tile */
    assert_int_equal(p.launch.block, OPNN_CUDA_BLOCK / 2);
    assert_int_equal(p.launch.units, 128 * 256 / (OPNN_CUDA_BLOCK / 2 / 32));
    assert_int_equal(p.launch.grid_x, p.launch.units);
    /* rows of 196 vectors: 6.1 a lane, one round of 8 (ranges 8), not two of 4; 1024 vectors
     * (32 a lane) keep ranges 1 */
    const int64_t nchw28[4] = {64, 512, 28, 28}, rows1024[2] = {4096, 4096};
    h200_launch(&p, 4, nchw28, 2, hw, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_WARP);
    assert_int_equal(p.launch.ranges, 2 * OPNN_CUDA_UNROLL);
    assert_int_equal(p.launch.units, 64 * 512 / (OPNN_CUDA_BLOCK / 2 / 32));
    assert_int_equal(p.launch.grid_x, p.launch.units);
    h200_launch(&p, 2, rows1024, 1, last, "f32");
    assert_int_equal(p.launch.kernel, OPNN_KERNEL_INNER_GROUP);
    assert_int_equal(p.launch.ranges, 1);
    assert_int_equal(p.launch.block, OPNN_CUDA_BLOCK); /* 512 tiles: not several waves */
    /* fewer tiles than SMs: blocks halved while they stay so, down to 2 warps: 200 rows take 25
     * blocks of 8 warps, 50 of 4, then 100 of 2; 3000 rows 375 of 8 (more than the SMs) */
    const int64_t rows200[2] = {200, 1024}, rows3000[2] = {3000, 1024};
    h200_launch(&p, 2, rows200, 1, last, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_WARP);
    assert_int_equal(p.launch.block, 64);
    assert_int_equal(p.launch.units, 100);
    h200_launch(&p, 2, rows3000, 1, last, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_WARP);
    assert_int_equal(p.launch.block, OPNN_CUDA_BLOCK);
    assert_int_equal(p.launch.units, 375);

    /* row_wide: 64 KB rows, one row a group too */
    const int64_t wide[2] = {16384, 16384}, ax1[1] = {1};
    h200_launch(&p, 2, wide, 1, ax1, "f32");
    assert_int_equal(p.launch.kernel, OPNN_KERNEL_INNER_GROUP);
    assert_int_equal(p.launch.ranges, 1);

    /* short rows: warp tiles of whole rows, a lane a row while 32 rows fit 416 vectors, tiles
     * of as many rounds of 32 rows as fit. 96-byte rows end on a 16-byte boundary each (packs of
     * one row), 64 of them (384 vectors) a tile; rows of 3 need packs of 4 (48 bytes), 17 rounds
     * a tile; rows of 49, packs of 4 rows, one round of 32 (392 vectors); rows of 100 (400
     * bytes), 2 lanes a row, a round of 16 */
    static const struct {
        int64_t shape[2], segs, chunk, tiles, sub;
    } tile_rows[] = {
        {{1 << 20, 24}, 1, 64, 384, 1},
        {{8388608, 3}, 4, 544, 408, 1},
        {{2097152, 100}, 1, 16, 400, 2},
        {{4194304, 49}, 4, 32, 392, 1},
    };
    for (size_t i = 0; i < sizeof tile_rows / sizeof tile_rows[0]; i++) {
        h200_launch(&p, 2, tile_rows[i].shape, 1, ax1, "f32");
        assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
        assert_int_equal(p.launch.kernel, OPNN_KERNEL_ROW_TILE);
        assert_int_equal(p.launch.segs, tile_rows[i].segs);
        assert_int_equal(p.launch.chunk, tile_rows[i].chunk);
        assert_int_equal(p.launch.tiles, tile_rows[i].tiles);
        assert_int_equal(p.launch.sub, tile_rows[i].sub);
    }
    assert_int_equal(p.launch.units, 4194304 / 32); /* the last: whole packs over 8 a tile */
    h200_launch(&p, 2, tile_rows[0].shape, 1, ax1, "f32");
    assert_int_equal(p.launch.units, (1 << 20) / 64);
    /* blocks of 2 warps, 2 tiles a warp: past one wave of 8 blocks an SM (1056) */
    assert_int_equal(p.launch.grid_x, (1 << 20) / 64 / (2 * 2));
    /* a smaller input keeps the one wave: 4 * 1056 tiles, 2 a warp */
    const int64_t wave_rows[2] = {4 * 1056 * 64, 24};
    h200_launch(&p, 2, wave_rows, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    assert_int_equal(p.launch.units, 4 * 1056);
    assert_int_equal(p.launch.grid_x, 132 * OPNN_CUDA_ROW_TILE_BLOCKS_PER_SM);

    /* rows of 768 bytes (past a tile's 512) go to groups of lanes */
    const int64_t rows192[2] = {1 << 20, 192};
    h200_launch(&p, 2, rows192, 1, ax1, "f32");
    assert_int_equal(p.launch.kernel, OPNN_KERNEL_INNER_GROUP);

    /* bn_nhw: a block per channel walks its 128 segments as one flat sequence; 256 units fit
     * one wave of 3 x 132 blocks, so no split and no partials; at most 2 blocks an SM, so twice
     * the loads in flight (ranges 2 x OPNN_CUDA_UNROLL: the kernel's DEPTH 2) */
    h200_launch(&p, 4, nchw, 3, nhw, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_OUTER_INNER);
    assert_int_equal(p.launch.kernel, OPNN_KERNEL_INNER_BLOCK);
    assert_int_equal(p.launch.ranges, 2 * OPNN_CUDA_UNROLL);
    assert_int_equal(p.launch.grid_x, 256);
    assert_int_equal(p.launch.split, 1);
    assert_int_equal(p.launch.units, 256);
    assert_int_equal(p.launch.ncounters, 0);

    /* 512 channels of 196 KB: more than the 396 slots of one wave, fewer than two; 2 blocks an
     * SM stride over them, DEPTH 2. f16 (98 KB a channel) too; 1024 channels keep a block each */
    const int64_t nchw512[4] = {64, 512, 28, 28}, nchw1024[4] = {64, 1024, 28, 28};
    h200_launch(&p, 4, nchw512, 3, nhw, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_OUTER_INNER);
    assert_int_equal(p.launch.kernel, OPNN_KERNEL_INNER_BLOCK);
    assert_int_equal(p.launch.units, 512);
    assert_int_equal(p.launch.grid_x, 2 * 132);
    assert_int_equal(p.launch.ranges, 2 * OPNN_CUDA_UNROLL);
    h200_launch(&p, 4, nchw512, 3, nhw, "f16");
    assert_int_equal(p.launch.grid_x, 2 * 132);
    h200_launch(&p, 4, nchw1024, 3, nhw, "f32");
    assert_int_equal(p.launch.units, 1024);
    assert_int_equal(p.launch.grid_x, 1024);
    assert_int_equal(p.launch.ranges, 1);

    /* fewer channels: each split over N into as many units as still fit one wave */
    const int64_t nchw64[4] = {256, 64, 112, 112};
    h200_launch(&p, 4, nchw64, 3, nhw, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_OUTER_INNER);
    assert_int_equal(p.launch.split, 6);
    assert_int_equal(p.launch.units, 64 * 6);
    assert_int_equal(p.launch.ncounters, 64);

    /* long rows, many of them: a block per row, no split */
    const int64_t longrows[2] = {4096, 65536};
    h200_launch(&p, 2, longrows, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_BLOCK);
    assert_int_equal(p.launch.ranges, 1);
    assert_int_equal(p.launch.units, 4096);

    /* row_tiny: 4 vectors a row, a warp reads 32 consecutive vectors (ROW_VEC); bf16 rows of 16
     * vectors, and f32 rows of 16 or 32, go to groups of lanes instead, one row at a time, but
     * rows of 16 vectors in 1 GiB or more to ROW_TILE */
    const int64_t tiny[2] = {16777216, 16}, bf16rows[2] = {2097152, 128};
    const int64_t rows64[2] = {4194304, 64}, rows64_half[2] = {2097152, 64};
    const int64_t rows32[2] = {4194304, 32}, rows32_just[2] = {4194303, 32};
    h200_launch(&p, 2, tiny, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_VEC);
    assert_int_equal(p.launch.sub, 4);
    /* 524288 warp tiles of 128 vectors, 2 a warp in blocks of 8 warps */
    assert_int_equal(p.launch.units, 16777216 * 4 / 128);
    assert_int_equal(p.launch.grid_x, 16777216 * 4 / 128 / (8 * 2));
    /* a smaller input keeps one wave of blocks (4 an SM, 528): 6000 tiles, 1 or 2 a warp */
    const int64_t wave_vec[2] = {6000 * 32, 16};
    h200_launch(&p, 2, wave_vec, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_VEC);
    assert_int_equal(p.launch.units, 6000);
    assert_int_equal(p.launch.grid_x, 132 * OPNN_CUDA_BLOCKS_PER_SM);
    h200_launch(&p, 2, bf16rows, 1, ax1, "bf16");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_SUBWARP);
    assert_int_equal(p.launch.sub, 4);
    assert_int_equal(p.launch.ranges, 1);
    h200_launch(&p, 2, rows64_half, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_SUBWARP);
    h200_launch(&p, 2, rows64, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    h200_launch(&p, 2, rows32, 1, ax1, "f64");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    h200_launch(&p, 2, rows32_just, 1, ax1, "f64");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_SUBWARP);
    h200_launch(&p, 2, rows64, 1, ax1, "f64"); /* 32 vectors a row: groups */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_SUBWARP);
    h200_launch(&p, 2, bf16rows, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_SUBWARP);

    /* 16-byte rows, contiguous: tiles (the kernel folds packs in registers); strided ones a
     * thread each, a block per tile */
    const int64_t rows4[2] = {33554432, 4};
    h200_launch(&p, 2, rows4, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    assert_int_equal(p.launch.segs, 1);

    /* columns of 2-4 rows, aligned or not: COL_TINY_R with one A index, which the launcher
     * runs as col_tiny_kernel (opnn/cuda/reduce.cuh); 5 rows stay with the column kernel */
    const int64_t c3[2] = {3, 89478485}, c2[2] = {2, 134217728}, c5[2] = {5, 53687091};
    h200_launch(&p, 2, c3, 1, ax0, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_COL_TINY_R);
    assert_int_equal(p.a, 1);
    assert_int_equal(p.r, 3);
    assert_int_equal(p.launch.vec, 1); /* rows 4 bytes off 16-byte alignment */
    h200_launch(&p, 2, c2, 1, ax0, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_COL_TINY_R);
    assert_int_equal(p.launch.vec, 4);
    h200_launch(&p, 2, c5, 1, ax0, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_COL_TINY_R);
    assert_int_equal(p.r, 5);

    /* [16, 512, 128, 256] over (0, 2): R1 = 16 slabs of [512, 128, 256] for the column kernel;
     * 1024 column tiles of 512 bytes fill two waves, so a slice is all 16 slabs (no partials) */
    const int64_t rkrk[4] = {16, 512, 128, 256}, ax02[2] = {0, 2};
    h200_launch(&p, 4, rkrk, 2, ax02, "f32");
    assert_int_equal(p.cls, OPNN_CLASS_GENERIC);
    assert_int_equal(p.launch.family, OPNN_FAMILY_MIDDLE);
    assert_int_equal(p.launch.kernel, OPNN_KERNEL_OUTER);
    assert_int_equal(p.launch.vec, 4);
    assert_int_equal(p.launch.tiles, 2);
    assert_int_equal(p.launch.split, 1);
    assert_int_equal(p.launch.segs, 16);
    assert_int_equal(p.launch.chunk, 128);
    assert_int_equal(p.launch.units, 512 * 2);
    assert_int_equal(p.launch.workspace_bytes, 0);

    /* few columns, long slabs: each of the 2 slabs cut into pieces of 500 rows (32 rows a
     * thread: 64 would leave 30 blocks), partials for the 2 x 10 slices of each tile and a
     * counter a tile */
    const int64_t pieces[4] = {2, 3, 5000, 64};
    h200_launch(&p, 4, pieces, 2, ax02, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_MIDDLE);
    assert_int_equal(p.launch.segs, 1);
    assert_int_equal(p.launch.chunk, 500);
    assert_int_equal(p.launch.split, 20);
    assert_int_equal(p.launch.units, 3 * 20);
    assert_int_equal(p.launch.ncounters, 3 * 4); /* 4 tiles a column if loads are scalar */

    /* [65536, 1024, 4] over 1: a vector a row, a warp a 16 KB slab, no split, a block per 8
     * slabs */
    const int64_t narrow[3] = {65536, 1024, 4};
    h200_launch(&p, 3, narrow, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_MIDDLE);
    assert_int_equal(p.launch.sub, 1);
    assert_int_equal(p.launch.split, 1);
    assert_int_equal(p.launch.ranges, 1);
    assert_int_equal(p.launch.units, 65536);
    assert_int_equal(p.launch.grid_x, 65536 / 8);
    /* but a block a slab where blocks of 8 warps, a warp a slab, would be under 1.5 an SM:
     * NHWC [256, 3136, 32] over HW (256 slabs of 392 KB) on 256 blocks, not 32; [128, 12544, 4]
     * on 128 blocks of loads twice as deep */
    const int64_t nhwc[3] = {256, 3136, 32}, nhwc4[3] = {128, 12544, 4};
    h200_launch(&p, 3, nhwc, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_MIDDLE);
    assert_int_equal(p.launch.split, 1);
    assert_int_equal(p.launch.units, 256);
    assert_int_equal(p.launch.ranges, OPNN_CUDA_UNROLL);
    assert_int_equal(p.launch.grid_x, 256);
    h200_launch(&p, 3, nhwc4, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_MIDDLE);
    assert_int_equal(p.launch.units, 128);
    assert_int_equal(p.launch.ranges, 2 * OPNN_CUDA_UNROLL);
    assert_int_equal(p.launch.grid_x, 128);
    const int64_t edge[3] = {198 * 8, 1024, 16}; /* 198 blocks of 8 slabs: 1.5 an SM */
    h200_launch(&p, 3, edge, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_MIDDLE);
    assert_int_equal(p.launch.ranges, 1);
    const int64_t below[3] = {197 * 8, 1024, 16};
    h200_launch(&p, 3, below, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_MIDDLE);
    assert_int_equal(p.launch.ranges, OPNN_CUDA_UNROLL);

    /* slabs of 2, 4 or 8 columns that fill a vector or divide it, 2..128 whole vectors each:
     * ROW_VEC, a group of lanes a slab; [1048576, 64, 2] f32 is 512-byte slabs (32 lanes) */
    const int64_t b2[3] = {1048576, 64, 2}, b4[3] = {4096, 8, 4}, b2x[3] = {4096, 48, 2},
                  b8[3] = {4096, 16, 8};
    h200_launch(&p, 3, b2, 1, ax1, "f32");
    assert_int_equal(p.cls, OPNN_CLASS_MIDDLE);
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_VEC);
    assert_int_equal(p.launch.kernel, OPNN_KERNEL_ROW_VEC);
    assert_int_equal(p.launch.sub, 32);
    assert_int_equal(p.launch.units, 1048576 * 32 / (32 * OPNN_CUDA_UNROLL));
    assert_int_equal(p.launch.workspace_bytes, 0);
    h200_launch(&p, 3, b4, 1, ax1, "f16"); /* 64-byte slabs */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_VEC);
    assert_int_equal(p.launch.sub, 4);
    h200_launch(&p, 3, b4, 1, ax1, "f32"); /* 16-byte rows: a vector a row, 8 a slab */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_VEC);
    assert_int_equal(p.launch.sub, 8);
    const int64_t b2l[3] = {262144, 256, 2}, b2xl[3] = {131072, 512, 2};
    h200_launch(&p, 3, b2l, 1, ax1, "f32"); /* 128 vectors: 32 lanes of 4 */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_VEC);
    assert_int_equal(p.launch.sub, 128);
    h200_launch(&p, 3, b2xl, 1, ax1, "f32"); /* 256 vectors: ROW_TILE, 16 lanes an output */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    assert_int_equal(p.launch.sub, 16);
    h200_launch(&p, 3, b2x, 1, ax1, "f32"); /* 24 vectors a slab: not a power of two */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    h200_launch(&p, 3, b8, 1, ax1, "f16"); /* rows of one whole vector: 8 columns */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_VEC);
    assert_int_equal(p.launch.sub, 16);
    h200_launch(&p, 3, b8, 1, ax1, "f32"); /* 32-byte rows: 2 vectors a row, 32 a slab */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_VEC);
    assert_int_equal(p.launch.sub, 32);
    h200_launch(&p, 3, b2, 1, ax1, "f64"); /* 16-byte rows: 64 vectors a slab */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_VEC);
    assert_int_equal(p.launch.sub, 64);
    h200_launch(&p, 3, b4, 1, ax1, "f64"); /* 32-byte rows, 16 vectors a slab */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_VEC);
    assert_int_equal(p.launch.sub, 16);
    h200_launch(&p, 3, b8, 1, ax1, "f64"); /* 64-byte rows (4 vectors): ROW_TILE's slabs */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    /* 16 columns (f16 rows of 2 vectors, f32 of 4, f64 of 8): ROW_TILE's slabs, f32 slabs of
     * 4 KB too (one a tile, 16 outputs) */
    const int64_t b16[3] = {4096, 8, 16}, b16l[3] = {4096, 64, 16};
    h200_launch(&p, 3, b16, 1, ax1, "f16");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    h200_launch(&p, 3, b16, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    h200_launch(&p, 3, b16, 1, ax1, "f64");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    h200_launch(&p, 3, b16l, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    assert_int_equal(p.launch.chunk, 1);

    /* other contiguous slabs whose pack fits a tile: ROW_TILE, a slab a row of the tile, g
     * lanes an output; whole packs a tile (192-byte slabs of 3 columns fold packs of 4 rows,
     * 2 lanes a slab: 34 a tile of 408 vectors, rounded to rounds of 16 slabs, 32); rows of 2
     * vectors (ROW_VEC), slabs past a tile and gapped slabs elsewhere */
    const int64_t t3[3] = {4194304, 16, 3}, t17[3] = {2097152, 8, 17}, t24[3] = {1048576, 16, 24},
                  t2k[3] = {4096, 32, 17}, t3s[3] = {4096, 3, 3}, t3l[3] = {4096, 128, 3};
    h200_launch(&p, 3, t3, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    assert_int_equal(p.launch.kernel, OPNN_KERNEL_ROW_TILE);
    assert_int_equal(p.launch.segs, 1);
    assert_int_equal(p.launch.ranges, 3);
    assert_int_equal(p.launch.sub, 2);
    assert_int_equal(p.launch.chunk, 32);
    assert_int_equal(p.launch.tiles, 32 * 12);
    assert_int_equal(p.launch.units, 4194304 / 32);
    h200_launch(&p, 3, t17, 1, ax1, "f32"); /* 544 bytes: 12 a tile */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    assert_int_equal(p.launch.chunk, 12);
    h200_launch(&p, 3, t17, 1, ax1, "f16"); /* 272 bytes, a pack of 1 */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    h200_launch(&p, 3, t3s, 1, ax1, "f16"); /* 18 bytes: packs of 8 slabs, 9 vectors */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    assert_int_equal(p.launch.segs, 8);
    assert_int_equal(p.launch.tiles % 9, 0);
    h200_launch(&p, 3, t24, 1, ax1, "f32"); /* 1536 bytes */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    assert_int_equal(p.launch.chunk, 4);
    h200_launch(&p, 3, t24, 1, ax1, "f64"); /* 3 KB: 2 a tile, 48 outputs */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    assert_int_equal(p.launch.chunk, 2);
    h200_launch(&p, 3, t2k, 1, ax1, "f32"); /* 2176 bytes: 3 a tile, 51 outputs */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    /* g lanes an output and the stagger by tile_col_plan's cost: a tile's rounds times the
     * loads a lane folds, weighed by the banks' wavefronts (doubled staggered, 4x for 16-bit),
     * plus 4 a shuffle step and 32 a round (the element-wise fold, the planner's for slabs
     * without a pack fold, forced on these) */
    h200_tile_elements(&p, t3, "f32"); /* 4.75 wavefronts a step plain, 1.75 staggered */
    assert_int_equal(p.launch.sub, 1);
    assert_int_equal(p.launch.ranges, 2);
    h200_tile_elements(&p, t3, "f16"); /* 2.9 plain, 2.1 staggered (4x): plain */
    assert_int_equal(p.launch.sub, 1);
    assert_int_equal(p.launch.ranges, 1);
    h200_tile_elements(&p, t3l, "f32"); /* 1536 bytes: 4 a tile, 12 outputs */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    assert_int_equal(p.launch.chunk, 4);
    assert_int_equal(p.launch.sub, 2); /* 128 rows, 64 a lane, staggered */
    assert_int_equal(p.launch.ranges, 2);
    h200_tile_elements(&p, t3l, "f16"); /* 768 bytes: 8 a tile, 24 outputs */
    assert_int_equal(p.launch.sub, 4);
    assert_int_equal(p.launch.ranges, 1);
    const int64_t t3m[3] = {4096, 64, 3}, t3xl[3] = {4096, 1024, 3}, t2xl[3] = {4096, 776, 2};
    h200_tile_elements(&p, t3m, "f32"); /* 768 bytes: 8 a tile, 24 outputs, 64 rows */
    assert_int_equal(p.launch.sub, 1);
    assert_int_equal(p.launch.ranges, 2);
    h200_tile_elements(&p, t3xl, "f16"); /* 6 KB: 3 outputs */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    assert_int_equal(p.launch.sub, 8);
    h200_launch(&p, 3, t2xl, 1, ax1, "f32"); /* 6208 bytes: 2 outputs */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    assert_int_equal(p.launch.sub, 16);
    const int64_t t5[3] = {4096, 100, 5}; /* 2000 bytes: 2 a tile (3 would end mid-sector) */
    h200_launch(&p, 3, t5, 1, ax1, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    assert_int_equal(p.launch.chunk, 2);
    assert_int_equal(p.launch.tiles, 250);
    h200_launch(&p, 3, t3xl, 1, ax1, "f32"); /* 12 KB: past a tile */
    assert_int_equal(p.launch.family, OPNN_FAMILY_MIDDLE);
    const int64_t f16m[3] = {131072, 256, 8}; /* 4 KB: 1 a tile, 8 outputs */
    h200_launch(&p, 3, f16m, 1, ax1, "f16");
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_TILE);
    assert_int_equal(p.launch.sub, 4);
    h200_launch(&p, 3, b8, 1, ax1, "f32"); /* rows of 2 vectors: ROW_VEC first */
    assert_int_equal(p.launch.family, OPNN_FAMILY_ROW_VEC);
    const int64_t t3gap[3] = {64, 3, 1}; /* slabs 64 elements apart: 16 elements of gap */
    h200_launch_strided(&p, 3, t3, t3gap, 1, ax1);
    assert_int_equal(p.cls, OPNN_CLASS_MIDDLE);
    assert_int_equal(p.launch.family, OPNN_FAMILY_MIDDLE);

    /* rows 8 bytes off 16 with a split: loads of 2 floats, 40 tiles of 64 columns, split for
     * them; the partials also hold the launcher's tiles of single floats (79 of 32) for a
     * pointer off 8 bytes */
    const int64_t items[2] = {3001, 2502};
    h200_launch(&p, 2, items, 1, ax0, "f32");
    assert_int_equal(p.launch.vec, 2);
    assert_int_equal(p.launch.sub, 32);
    assert_int_equal(p.launch.tiles, 40);
    assert_true(p.launch.split > 1);
    assert_int_equal(p.launch.units, 40 * p.launch.split);
    assert_true(p.launch.partial_bytes >=
                (size_t)(80 * 32 * p.launch.split) * OPNN_CUDA_MAX_ACC_BYTES);
    assert_true(p.launch.ncounters >= 79);
    /* f16 rows 4 bytes off 16: loads of 2 halves; 8 bytes off: 4 halves; f64 rows off 16: the
     * vectors that cover them */
    h200_launch(&p, 2, items, 1, ax0, "f16");
    assert_int_equal(p.launch.vec, 2);
    const int64_t h8[2] = {100000, 2500}, d3[2] = {50000, 5001}, m6[3] = {65536, 1024, 6},
                  c49[2] = {4194304, 49};
    h200_launch(&p, 2, h8, 1, ax0, "f16");
    assert_int_equal(p.launch.vec, 4);
    assert_int_equal(p.launch.tiles, 20);
    h200_launch(&p, 2, d3, 1, ax0, "f64");
    assert_int_equal(p.launch.ranges, OPNN_CUDA_SHIFT_RANGES);
    assert_int_equal(p.launch.vec, 2);
    /* super-rows (ranges 3): rows 4 bytes off 16 as 4 rows a row of 16-byte loads, 9 tiles of
     * 128 of the 1028 columns, a split; the partials also hold the launcher's tiles of single
     * floats (33 of 32) for a pointer off 16 bytes, then the 1028 results to fold; after the
     * tiles' counters, one for each of the fold's 2 chunks of 256 columns. f16 rows of 2501: 8
     * rows a super-row, 79 tiles of 256 halves, 10 chunks */
    const int64_t s257[2] = {1000000, 257}, s2501[2] = {100001, 2501};
    h200_launch(&p, 2, s257, 1, ax0, "f32");
    assert_int_equal(p.launch.ranges, 3);
    assert_int_equal(p.launch.vec, 4);
    assert_int_equal(p.launch.sub, 32);
    assert_int_equal(p.launch.tiles, 9);
    assert_true(p.launch.split > 1);
    assert_int_equal(p.launch.units, 9 * p.launch.split);
    assert_true(p.launch.chunk * p.launch.split >= 1000000 / 4);
    assert_true(p.launch.partial_bytes >=
                (size_t)(33 * 32 * p.launch.split + 1028) * OPNN_CUDA_MAX_ACC_BYTES);
    assert_int_equal(p.launch.ncounters, 33 + 2);
    assert_int_equal(p.launch.segs, 4);
    h200_launch(&p, 2, s2501, 1, ax0, "f16");
    assert_int_equal(p.launch.ranges, 3);
    assert_int_equal(p.launch.vec, 8);
    assert_int_equal(p.launch.tiles, 79);
    assert_int_equal(p.launch.segs, 8);
    assert_int_equal(p.launch.ncounters, 626 + 10); /* tiles of single halves: 626 */
    /* super-rows from 32 MB and 3000 KB an SM: 405 MB on the H200, [110001, 1021] (449 MB) and
     * not [90001, 1021] (368 MB); test_cuda_kernels' super-row shapes ([16433, 1021], 67 MB, f32
     * (34 MB) and f16; [28001, 301], 34 MB) are planned for 8 SMs (32 MB), and the plugin
     * tests' as OPNN_CUDA_PLAN_SMS=8 plans them; a middle view of two slabs is not */
    const int64_t t1021[2] = {16433, 1021}, t1025[3] = {2, 4096, 1025}, big1021[2] = {110001, 1021},
                  below1021[2] = {90001, 1021}, t301[2] = {28001, 301};
    h200_launch(&p, 2, big1021, 1, ax0, "f32");
    assert_int_equal(p.launch.ranges, 3);
    h200_launch(&p, 2, below1021, 1, ax0, "f32");
    assert_true(p.launch.ranges != 3);
    h200_launch(&p, 2, t1021, 1, ax0, "f32");
    assert_true(p.launch.ranges != 3);
    for (int d = 0; d < 3; d++) {
        opnn_device_props few = h200;

        few.sm_count = 8;
        plan_dtype_for(&p, 2, d < 2 ? t1021 : t301, 1, ax0, ts_dtype(d == 1 ? "f16" : "f32"));
        opnn__reduce_plan_launch(&p, &few);
        check_launch(&p);
        assert_int_equal(p.launch.ranges, 3);
        assert_true(p.launch.split > 1);
    }
    h200_launch(&p, 3, t1025, 1, ax1, "f32");
    assert_true(p.launch.ranges != 3);
    /* one SM: 9 tiles fill its 3 slots with no split, but the fold follows the last block of a
     * tile's split: split in two */
    const opnn_device_props one_sm = {.device_id = 0,
                                      .sm_count = 1,
                                      .max_threads_per_sm = 2048,
                                      .max_threads_per_block = 1024,
                                      .warp_size = 32};
    plan_for(&p, 2, s257, 1, ax0);
    opnn__reduce_plan_launch(&p, &one_sm);
    check_launch(&p);
    assert_int_equal(p.launch.ranges, 3);
    assert_int_equal(p.launch.split, 2);
    assert_int_equal(p.launch.units, 9 * 2);
    assert_int_equal(p.launch.chunk, 125000);
    assert_true(p.launch.partial_bytes >= (size_t)(33 * 32 * 2 + 1028) * OPNN_CUDA_MAX_ACC_BYTES);
    /* not super-rows: slabs off 16 bytes, rows past 1 KB of under 396 MB, a fold of more than a
     * 4096th of the input. Rows off 16 bytes at single elements, at least 31 vectors wide, read
     * the 16-byte vectors that cover them (OPNN_CUDA_SHIFT_RANGES): a warp a row (sub 32), f32
     * tiles of 124 columns, f16 248, f64 62 (segs 31), the workspace that of tiles of 32 vectors
     * (or of single elements); rows that allow 8-byte items keep them. Exact tiles of 32 vectors
     * (segs 32) where they make one wave of whole units and an SM's most tiles fewer columns: f32
     * [32, 1001, 1001] (256 units; 288 of 31 vectors, too few for them), f16 [32, 1001, 3001]
     * (384 against 416). Where a warp a row makes fewer units than 3/4 of the slots, half a warp
     * (sub 16, tiles of 15 vectors) for elements of 4 bytes or less: f16 [128, 1001, 257] 384
     * units (exact tiles half full); else single elements: f16 [8, 2001, 1001] (280 units, and
     * 288 with half a warp) */
    const int64_t m2001[3] = {64, 2001, 1001}, small_odd[2] = {2000, 1001},
                  few_rows[2] = {4000, 4001};
    h200_launch(&p, 3, m2001, 1, ax1, "f32");
    assert_int_equal(p.launch.ranges, OPNN_CUDA_SHIFT_RANGES);
    assert_int_equal(p.launch.vec, 4);
    assert_int_equal(p.launch.sub, 32);
    assert_int_equal(p.launch.segs, 31);
    assert_int_equal(p.launch.tiles, 9);
    assert_int_equal(p.launch.units, 64 * 9 * p.launch.split);
    if (p.launch.split > 1)
        assert_true(p.launch.partial_bytes >=
                    (size_t)(64 * 9 * 128 * p.launch.split) * OPNN_CUDA_MAX_ACC_BYTES);
    h200_launch(&p, 3, m2001, 1, ax1, "f16");
    assert_int_equal(p.launch.ranges, OPNN_CUDA_SHIFT_RANGES);
    assert_int_equal(p.launch.vec, 8);
    assert_int_equal(p.launch.sub, 32);
    assert_int_equal(p.launch.segs, 31);
    assert_int_equal(p.launch.tiles, 5);
    h200_launch(&p, 3, m2001, 1, ax1, "f64");
    assert_int_equal(p.launch.ranges, OPNN_CUDA_SHIFT_RANGES);
    assert_int_equal(p.launch.vec, 2);
    assert_int_equal(p.launch.sub, 32);
    assert_int_equal(p.launch.tiles, 17);
    const int64_t m32[3] = {32, 1001, 1001}, m128[3] = {128, 1001, 257};
    h200_launch(&p, 3, m32, 1, ax1, "f32");
    assert_int_equal(p.launch.vec, 4);
    assert_exact_shift(&p, 8);
    /* f64: 512 exact tiles, past a wave: 544 of 31 vectors, the 148 past the first wave split */
    h200_launch(&p, 3, m32, 1, ax1, "f64");
    assert_int_equal(p.launch.ranges, OPNN_CUDA_SHIFT_RANGES);
    assert_int_equal(p.launch.segs, 31);
    assert_int_equal(p.launch.tiles, 17);
    assert_int_equal(p.launch.whole, 3 * 132);
    assert_int_equal(p.launch.units, 3 * 132 + 148 * p.launch.split);
    h200_launch(&p, 3, m128, 1, ax1, "f16");
    assert_int_equal(p.launch.ranges, OPNN_CUDA_SHIFT_RANGES);
    assert_int_equal(p.launch.sub, 16);
    assert_int_equal(p.launch.segs, 15);
    assert_int_equal(p.launch.tiles, 3);
    /* 384 tiles at half a warp a row: all whole (plan_shift_tail splits a warp a row's only) */
    assert_int_equal(p.launch.whole, 0);
    assert_int_equal(p.launch.units, 128 * 3 * p.launch.split);
    /* f16 [32, 1001, 3001]: 12 exact tiles, 384 units, against 13 of 31 vectors (416, 4 on
     * some SMs); [34, 1001, 3001]: 408 exact tiles are past a wave, so 13 of 31 vectors, 442,
     * the 46 past the first wave in 7 slices of 143 rows (16 rows a thread); [30, 1001, 3001]:
     * 390 of 31 vectors, 3 on most SMs as 360 exact ones would be, so those */
    const int64_t m3001[3] = {34, 1001, 3001}, m3001_32[3] = {32, 1001, 3001},
                  m3001_30[3] = {30, 1001, 3001};
    h200_launch(&p, 3, m3001_32, 1, ax1, "f16");
    assert_exact_shift(&p, 12);
    h200_launch(&p, 3, m3001, 1, ax1, "f16");
    assert_int_equal(p.launch.ranges, OPNN_CUDA_SHIFT_RANGES);
    assert_int_equal(p.launch.sub, 32);
    assert_int_equal(p.launch.segs, 31);
    assert_int_equal(p.launch.tiles, 13);
    assert_int_equal(p.launch.whole, 3 * 132);
    assert_int_equal(p.launch.split, 7);
    assert_int_equal(p.launch.chunk, 143);
    assert_int_equal(p.launch.units, 3 * 132 + 46 * 7);
    assert_int_equal(p.launch.grid_x, p.launch.units);
    assert_true(p.launch.partial_bytes >= (size_t)(46 * 7 * 256) * OPNN_CUDA_MAX_ACC_BYTES);
    assert_true(p.launch.ncounters >= 46);
    h200_launch(&p, 3, m3001_30, 1, ax1, "f16");
    assert_int_equal(p.launch.ranges, OPNN_CUDA_SHIFT_RANGES);
    assert_int_equal(p.launch.segs, 31);
    assert_int_equal(p.launch.whole, 0);
    assert_int_equal(p.launch.split, 1);
    assert_int_equal(p.launch.units, 30 * 13);
    /* narrower than a tile (f32 123 columns, f16 247): the column kernel's narrower items */
    const int64_t m123[3] = {64, 2001, 123}, m247[3] = {64, 2001, 247};
    h200_launch(&p, 3, m123, 1, ax1, "f32");
    assert_int_equal(p.launch.vec, 1);
    assert_true(p.launch.ranges != OPNN_CUDA_SHIFT_RANGES);
    h200_launch(&p, 3, m247, 1, ax1, "f16");
    assert_true(p.launch.ranges != OPNN_CUDA_SHIFT_RANGES);
    h200_launch(&p, 3, m123, 1, ax1, "f16");
    assert_true(p.launch.ranges != OPNN_CUDA_SHIFT_RANGES);
    const int64_t m1002[3] = {64, 2001, 1002}, m8[3] = {8, 2001, 1001};
    h200_launch(&p, 3, m1002, 1, ax1, "f32");
    assert_int_equal(p.launch.vec, 2);
    h200_launch(&p, 3, m8, 1, ax1, "f16");
    assert_int_equal(p.launch.vec, 1);
    assert_int_equal(p.launch.tiles, 32);
    h200_launch(&p, 2, small_odd, 1, ax0, "f32");
    assert_true(p.launch.ranges != 3);
    h200_launch(&p, 2, few_rows, 1, ax0, "f32");
    assert_true(p.launch.ranges != 3);
    /* OUTER_INNER units of a few loads a thread (2048 channels of 32 x 49 floats: 13 covering
     * vectors a segment, 1.6 a thread of 256): blocks of 64 threads, 4 x 396 slots; f16 [32,
     * 1024, 14, 14] (26 covering vectors a segment, 3.3 a thread): 64 threads, a block a unit;
     * [64, 512, 28, 28] (49 vectors a thread) keeps 256 */
    const int64_t u77[4] = {32, 2048, 7, 7}, u1414[4] = {32, 1024, 14, 14},
                  u2828[4] = {64, 512, 28, 28}, nhw3[3] = {0, 2, 3};
    h200_launch(&p, 4, u77, 3, nhw3, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_OUTER_INNER);
    assert_int_equal(p.launch.block, OPNN_CUDA_BLOCK / 4);
    assert_int_equal(p.launch.grid_x, 4 * 3 * 132);
    h200_launch(&p, 4, u1414, 3, nhw3, "f16");
    assert_int_equal(p.launch.block, OPNN_CUDA_BLOCK / 4);
    assert_int_equal(p.launch.grid_x, 1024);
    /* 12 halves a segment (24 bytes): element loads, 3072 a unit (12 a thread): 128 threads */
    const int64_t u34[4] = {256, 2048, 3, 4};
    h200_launch(&p, 4, u34, 3, nhw3, "f16");
    assert_int_equal(p.launch.family, OPNN_FAMILY_OUTER_INNER);
    assert_int_equal(p.launch.block, OPNN_CUDA_BLOCK / 2);
    /* segments of 4 vectors: 512 a unit, 2048 loads: 64 threads; channels 18 floats apart put
     * them off 16 bytes, 5 covering vectors each, 2560 loads: 128 */
    const int64_t s512[3] = {512, 1000, 16}, gapped[3] = {18000, 18, 1};
    h200_launch(&p, 3, s512, 2, ax02, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_OUTER_INNER);
    assert_int_equal(p.launch.segs, 512);
    assert_int_equal(p.launch.block, OPNN_CUDA_BLOCK / 4);
    h200_launch_strided(&p, 3, s512, gapped, 2, ax02);
    assert_int_equal(p.launch.family, OPNN_FAMILY_OUTER_INNER);
    assert_int_equal(p.launch.segs, 512);
    assert_int_equal(p.launch.block, OPNN_CUDA_BLOCK / 2);
    h200_launch(&p, 4, u2828, 3, nhw3, "f32");
    assert_int_equal(p.launch.block, OPNN_CUDA_BLOCK);
    /* 16-byte loads that 64 rows a thread would leave under 1.5 blocks an SM: slices of 32
     * rows a thread. [8192, 1024] f32: 8 tiles, 16 slices -> 32 (256 blocks); f64 [1000, 4096]:
     * 64 tiles, 1 slice -> 3. Single floats keep 64 rows a thread ([1000, 4097]: one slice; as
     * 34 tiles of the vectors that cover the rows, 102 units, under 3/4 of the slots). */
    const int64_t few8k[2] = {8192, 1024}, few1k[2] = {1000, 4096}, few_odd[2] = {1000, 4097};
    h200_launch(&p, 2, few8k, 1, ax0, "f32");
    assert_int_equal(p.launch.vec, 4);
    assert_int_equal(p.launch.tiles, 8);
    assert_int_equal(p.launch.split, 32);
    assert_int_equal(p.launch.units, 256);
    assert_int_equal(p.launch.chunk, 256);
    h200_launch(&p, 2, few1k, 1, ax0, "f64");
    assert_int_equal(p.launch.tiles, 64);
    assert_int_equal(p.launch.split, 3);
    h200_launch(&p, 2, few_odd, 1, ax0, "f32");
    assert_int_equal(p.launch.vec, 1);
    assert_int_equal(p.launch.split, 1);
    /* 16-byte loads in at most 1.5 blocks an SM (198 here) go 8 deep (ranges 2 * UNROLL): f64
     * [1000, 4096] 192 blocks, [2, 4099, 600] over 1 150 (unsplit tiles of 2 threads); not
     * [8192, 1024] (256), f64 [2, 4099, 600] (320), 8-byte loads (f16 [517, 4100]) nor single
     * floats */
    const int64_t mid600[3] = {2, 4099, 600}, c4100[2] = {517, 4100};
    h200_launch(&p, 2, few8k, 1, ax0, "f32");
    assert_int_equal(p.launch.grid_x, 256);
    assert_int_equal(p.launch.ranges, OPNN_CUDA_UNROLL);
    h200_launch(&p, 2, few1k, 1, ax0, "f64");
    assert_int_equal(p.launch.grid_x, 192);
    assert_int_equal(p.launch.ranges, 2 * OPNN_CUDA_UNROLL);
    h200_launch(&p, 3, mid600, 1, ax1, "f32");
    assert_int_equal(p.launch.grid_x, 150);
    assert_int_equal(p.launch.ranges, 2 * OPNN_CUDA_UNROLL);
    h200_launch(&p, 3, mid600, 1, ax1, "f64");
    assert_int_equal(p.launch.grid_x, 320);
    assert_int_equal(p.launch.ranges, OPNN_CUDA_UNROLL);
    h200_launch(&p, 2, c4100, 1, ax0, "f16");
    assert_int_equal(p.launch.vec, 4);
    assert_int_equal(p.launch.ranges, OPNN_CUDA_UNROLL);
    h200_launch(&p, 2, few_odd, 1, ax0, "f32");
    assert_int_equal(p.launch.ranges, OPNN_CUDA_UNROLL);
    /* 24-byte rows in slabs of 24 KB: single floats, a warp a slab (not a run, below); rows
     * of 12 bytes: a run of vectors (ranges 2), sub 4 */
    const int64_t c3w[2] = {33554432, 3};
    h200_launch(&p, 3, m6, 1, ax1, "f32");
    assert_int_equal(p.launch.ranges, 1);
    assert_int_equal(p.launch.vec, 1);
    h200_launch(&p, 2, c3w, 1, ax0, "f32");
    assert_int_equal(p.launch.vec, 1);
    assert_int_equal(p.launch.ranges, 2);
    assert_int_equal(p.launch.sub, 4);
    /* contiguous rows off 16 bytes, at most 1 KB: a run of vectors (ranges 2), sub 64 for 49
     * columns, one tile, slices of at least 64 KB */
    h200_launch(&p, 2, c49, 1, ax0, "f32");
    assert_int_equal(p.launch.kernel, OPNN_KERNEL_OUTER);
    assert_int_equal(p.launch.ranges, 2);
    assert_int_equal(p.launch.vec, 1);
    assert_int_equal(p.launch.sub, 64);
    assert_int_equal(p.launch.tiles, 1);
    assert_true(p.launch.split > 1);
    assert_true(p.launch.chunk * 49 * 4 >= 64 << 10);
    assert_int_equal(p.launch.units, p.launch.split);
    assert_true(p.launch.partial_bytes >= (size_t)(64 * p.launch.split) * OPNN_CUDA_MAX_ACC_BYTES);

    /* a stride between slabs that breaks 16-byte alignment: scalar loads */
    const int64_t odd[4] = {5, 4, 33, 19};
    h200_launch(&p, 4, odd, 2, ax02, "f32");
    assert_int_equal(p.launch.family, OPNN_FAMILY_MIDDLE);
    assert_int_equal(p.launch.vec, 1);
}

/* Every family a random shape of a random dtype admits gives a launch within the limits; the
 * planner's own choice is always admitted. */
static void launch__every_family_within_limits(void **state)
{
    static const char *const dts[] = {"f32", "f16", "bf16", "f64", "i32", "i64"};
    ts_rng rng = {ts_seed("launch__every_family_within_limits")};
    int admitted[OPNN_FAMILY_COUNT_] = {0}, shifted = 0, tails = 0;
    (void)state;

    for (int iter = 0; iter < 4000; iter++) {
        int64_t shape[4], axes[4];
        int32_t ndim = (int32_t)ts_range(&rng, 1, 4);
        size_t naxes = 0;
        opnn_reduce_plan p, q;

        for (int d = 0; d < ndim; d++) {
            const int64_t pick = ts_range(&rng, 0, 19);

            shape[d] = pick == 0  ? 0
                       : pick < 3 ? 1
                       : pick < 6 ? 4 << ts_range(&rng, 0, 5)
                                  : ts_range(&rng, 1, 3000);
            if (ts_range(&rng, 0, 1))
                axes[naxes++] = d;
        }
        if (ts_numel(ndim, shape) > ((int64_t)1 << 34))
            continue;
        plan_dtype_for(&p, ndim, shape, naxes, axes, ts_dtype(dts[ts_range(&rng, 0, 5)]));
        q = p;
        opnn__reduce_plan_launch(&q, &h200);
        check_launch(&q);
        shifted +=
            q.launch.kernel == OPNN_KERNEL_OUTER && q.launch.ranges == OPNN_CUDA_SHIFT_RANGES;
        tails += q.launch.whole > 0;
        for (int f = 0; f < OPNN_FAMILY_COUNT_; f++) {
            q = p;
            if (!opnn__reduce_launch_family(&q, &h200, f))
                continue;
            admitted[f]++;
            assert_int_equal(q.launch.family, f);
            check_launch(&q);
        }
    }
    for (int f = 0; f < OPNN_FAMILY_COUNT_; f++)
        print_message("[ info ] %-18s %d\n", opnn__cuda_family_name(f), admitted[f]);
    print_message("[ info ] shift plans       %d (%d with whole tiles)\n", shifted, tails);
    assert_true(shifted > 0 && tails > 0); /* their invariants (check_launch) were exercised */
}

/* ROW_TILE's geometry for every row length it takes, in every dtype: a pack of P rows ends on a
 * 16-byte boundary and is the fewest such rows; a tile is whole rounds of 32 / sub rows (each a
 * whole number of packs), at most 416 vectors, and the tiles cover every whole pack; a lane a row
 * while 32 rows fit a tile, else the fewest lanes a row (a power of two) for which a round fits.
 * Rows past 512 bytes are refused; the planner takes ROW_TILE for
 * contiguous rows it serves but for rows of 2-8 vectors (ROW_VEC) and of 16 or 32 vectors (groups
 * of lanes). */
static void launch__row_tile_geometry(void **state)
{
    static const char *const dts[] = {"f16", "bf16", "f32", "i32", "f64", "i64"};
    (void)state;

    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        const DLDataType t = ts_dtype(dts[d]);
        const int64_t es = t.bits / 8;

        for (int64_t k = 1; k <= 300; k++) {
            const int64_t rows = 1000003, shape[2] = {rows, k}, ax1[1] = {1};
            opnn_reduce_plan p, q;

            int64_t g16 = 16;
            while ((k * es) % g16 != 0)
                g16 /= 2;
            const bool fits = k * es <= OPNN_CUDA_ROW_TILE_MAX_BYTES &&
                              k * es / g16 <= OPNN_CUDA_ROW_TILE_MAX_VEC;

            plan_dtype_for(&p, 2, shape, 1, ax1, t);
            q = p;
            if (!opnn__reduce_launch_family(&q, &h200, OPNN_FAMILY_ROW_TILE)) {
                if (fits)
                    fail_msg("%s rows of %lld refused", dts[d], (long long)k);
                continue;
            }
            if (!fits)
                fail_msg("%s rows of %lld taken", dts[d], (long long)k);
            check_launch(&q);
            const opnn_launch *l = &q.launch;
            const int64_t pack = l->segs, pack_bytes = pack * k * es;
            assert_int_equal(l->kernel, OPNN_KERNEL_ROW_TILE);
            assert_int_equal(pack_bytes % 16, 0);
            for (int64_t f = 1; f < pack; f++) /* the fewest rows that do */
                assert_true((f * k * es) % 16 != 0);
            assert_int_equal(l->chunk % pack, 0);
            assert_int_equal(l->tiles * 16, l->chunk / pack * pack_bytes);
            assert_true(l->tiles >= 1 && l->tiles <= OPNN_CUDA_ROW_TILE_MAX_VEC);
            assert_int_equal(l->chunk % (32 / l->sub), 0); /* whole rounds */
            if (l->sub > 1) /* the fewest lanes: a round of twice the rows does not fit */
                assert_true(64 / l->sub * k * es > OPNN_CUDA_ROW_TILE_MAX_VEC * 16);
            else
                assert_true(32 * k * es <= OPNN_CUDA_ROW_TILE_MAX_VEC * 16);
            assert_true(l->units * (l->chunk / pack) >= rows / pack);
            assert_true((l->units - 1) * (l->chunk / pack) < rows / pack);
            assert_true(l->sub >= 1 && l->sub <= 32 && (l->sub & (l->sub - 1)) == 0);
            assert_int_equal(l->vec, 16 / es);

            /* the planner's own choice */
            q = p;
            opnn__reduce_plan_launch(&q, &h200);
            const int64_t row_bytes = k * es, nvec = row_bytes / 16;
            const bool vec = row_bytes % 16 == 0 && nvec >= 2 && nvec <= 8 &&
                             (nvec & (nvec - 1)) == 0 && !(es == 2 && nvec > 4);
            const bool groups = row_bytes % 16 == 0 && (nvec == 16 || nvec == 32);
            if (vec)
                assert_int_equal(q.launch.family, OPNN_FAMILY_ROW_VEC);
            else if (!groups)
                assert_int_equal(q.launch.family, OPNN_FAMILY_ROW_TILE);
            else
                assert_int_equal(q.launch.kernel, OPNN_KERNEL_INNER_GROUP);
        }
    }
}

/* --- main ----------------------------------------------------------------------------------- */

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(plan__keepdims_independent),
        cmocka_unit_test(plan__null_arguments_rejected),
        cmocka_unit_test(plan__negative_stride_on_size1_accepted),
        cmocka_unit_test(axes_mask__wraps_and_defaults),
        cmocka_unit_test(axes_mask__errors_leave_mask),
        cmocka_unit_test(dtype__served_sizes_and_names),
        cmocka_unit_test(class_name__every_class),
        cmocka_unit_test(plan__random_views_keep_mapping),
        cmocka_unit_test(launch__suite_shapes_on_h200),
        cmocka_unit_test(launch__tile_packs),
        cmocka_unit_test(launch__shift_test_shapes),
        cmocka_unit_test(launch__warp_tiles),
        cmocka_unit_test(launch__warp_unit_grid),
        cmocka_unit_test(launch__few_units_narrow_tiles),
        cmocka_unit_test(launch__shift_col_split),
        cmocka_unit_test(launch__outer_resplit),
        cmocka_unit_test(launch__outer_retile),
        cmocka_unit_test(launch__every_family_within_limits),
        cmocka_unit_test(launch__row_tile_geometry),
        cmocka_unit_test(launch__cover_vectors_bound),
    };
    struct CMUnitTest tests[NUM_CASES + NUM_ERRORS + sizeof fixed / sizeof fixed[0]];
    size_t n = 0;

    for (size_t i = 0; i < NUM_CASES; i++) {
        struct CMUnitTest t = cmocka_unit_test_prestate(plan__case, (void *)&cases[i]);

        t.name = cases[i].name;
        tests[n++] = t;
    }
    for (size_t i = 0; i < NUM_ERRORS; i++) {
        struct CMUnitTest t = cmocka_unit_test_prestate(plan__error, (void *)&errors[i]);

        t.name = errors[i].name;
        tests[n++] = t;
    }
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        tests[n++] = fixed[i];
    return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
