/* CUDA launch geometry chosen by the planner (core/plan_launch.c). Pure C: no CUDA types.
 *
 * A family names one kernel of kernel/cuda/reduce_families.cuh and the view of the plan it
 * reads; the other fields are that kernel's geometry. The struct and the constants live in
 * opnn/reduce_plan.h (kernels in plugins read them); this header has the planner's functions. The
 * "inner" kernels reduce a view [R1, C, K] whose K is contiguous (FULL = [1, 1, R], ROW = [1, A,
 * R], OUTER_INNER as planned), the "outer" kernel a view [A, R, B] whose B is contiguous (COL = [1,
 * R, B], MIDDLE). */
#ifndef OPNN_CORE_LAUNCH_H
#define OPNN_CORE_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "opnn/reduce_plan.h"

struct opnn_reduce_plan;
struct opnn_device_props;

/* Fills plan->launch with the geometry of @p family for this plan and device; false (launch
 * untouched) when the family cannot serve the plan's class or layout. opnn__reduce_plan_launch
 * picks the family; tests and the benchmark force one through this. */
bool opnn__reduce_launch_family(struct opnn_reduce_plan *plan,
                                const struct opnn_device_props *props, int family);

/* Sets the split of an OUTER plan of one slab (a block a unit, a run of vectors, super-rows,
 * whose rows are then super-rows of launch.segs rows, or shift tiles, every tile then split
 * alike) to about @p split slices of its rows (rows a slice rounded up, so the slices may be
 * fewer; super-rows 2 at least; exact shift tiles 1 only), with the units, grid and workspace the
 * planner would give that split; false (plan untouched) for any other plan. For
 * `opnn_families --split`. */
bool opnn__reduce_launch_outer_split(struct opnn_reduce_plan *plan, int64_t split);

/* Sets the loads of an OUTER plan of block or warp units (launch.ranges 1, OPNN_CUDA_UNROLL or
 * twice that; no R1) to @p sub lanes across of @p vec elements each (one element where vec passes
 * 16 bytes, as the launcher narrows them; vec a power of two), with the column tiles that cover B
 * at that width and the units, grid and workspace that follow at the plan's split; false (plan
 * untouched) for any other plan. For `opnn_families --sub/--vec`. */
bool opnn__reduce_launch_outer_tiles(struct opnn_reduce_plan *plan, int sub, int vec);

/* Plans a MIDDLE view of contiguous slabs whose B has a pack fold (OPNN_CUDA_ROW_TILE_PACK_COLS)
 * and whose R is a multiple of a pack's rows (16 / gcd(B * size, 16)), a slab's pack fitting a
 * tile, as ROW_TILE with the pack fold (packs: launch.ranges 3, sub the most lanes a slab, a
 * power of two up to 32, that leave each lane two or more packs; tiles of whole rounds of
 * 32 / sub slabs where they stay whole 32-byte sectors; the planner's plan for such slabs) or
 * with the element-wise fold (!packs: ranges 1 or 2, the plan such slabs had before the pack
 * fold). False (plan untouched) for any other plan. For `opnn_families --packs 0|1` and the
 * tests. */
bool opnn__reduce_launch_tile_packs(struct opnn_reduce_plan *plan,
                                    const struct opnn_device_props *props, bool packs);

/* Name of a family ("row_split"), for tests, messages and `opnn run --verbose`. */
const char *opnn__cuda_family_name(int family);

#ifdef __cplusplus
}
#endif

#endif /* OPNN_CORE_LAUNCH_H */
