/// @file plugin.h
/// Registering operators: schemas, kernels, and plugins loaded at run time.
#ifndef OPNN_PLUGIN_H
#define OPNN_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "opnn/context.h"
#include "opnn/export.h"
#include "opnn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Version of the registration ABI below (and of opnn/reduce_plan.h's launch record, which a
/// plugin's CUDA kernels follow). A plugin built against another version is refused.
/// 2: opnn_launch.ranges, OPNN_KERNEL_FULL.
/// 3: OPNN_KERNEL_ROW_TILE (rows up to 512 bytes) in place of OPNN_KERNEL_ROW_TINY.
/// 4: GENERIC plans of [R1, A, R, B] carry the view and r1 and may get OPNN_KERNEL_OUTER
///    (R1 slabs: launch.segs per slice); OUTER's launch.ranges 1 means a warp a unit.
/// 5: MIDDLE plans of 2 or 4 columns narrower than a vector may get OPNN_KERNEL_ROW_VEC (each
///    contiguous [R, B] slab a row of `sub` vectors, B interleaved outputs).
/// 6: ROW_TILE plans: launch.block 64, launch.tiles up to OPNN_CUDA_ROW_TILE_MAX_VEC vectors
///    (dynamic shared memory, two tiles a warp), a lane a row while 32 rows fit; INNER_BLOCK's
///    launch.ranges 2 * OPNN_CUDA_UNROLL: twice the loads in flight.
/// 7: INNER_GROUP's launch.ranges may be 2 * OPNN_CUDA_UNROLL too: one row a group, twice as
///    deep (a version 6 kernel read it as four rows a group: correct, but no longer the plan);
///    ROW_WARP plans may take blocks of OPNN_CUDA_BLOCK / 2 threads (version 14's planner
///    also OPNN_CUDA_BLOCK / 4 where the tiles are fewer than the SMs; the launcher runs any
///    block of 64 to OPNN_CUDA_BLOCK threads that is a multiple of 64).
/// 8: MIDDLE plans whose B columns fill one vector (B * size == 16: B = 2, 4 or 8) may get
///    OPNN_KERNEL_ROW_VEC too (a version 7 launcher refused them as an internal error).
/// 9: OUTER plans' launch.vec is the elements of one load: 16, 8 or 4 bytes (rows off 16 bytes
///    get 8 or 4, and tiles and split for it), or 1; version 8 had 16 bytes or 1 only. OUTER's
///    launch.ranges 2: contiguous rows off 16 bytes staged through shared memory, a thread a
///    column (launch.sub up to OPNN_CUDA_BLOCK columns, one tile).
/// 10: OUTER's launch.ranges 2 also for rows of 16 bytes or less (b >= 2), and its split's slices
///    interleave over the slab as one run of 16-byte vectors, a lane a column (a version 9
///    launcher read them as slices of whole rows staged through shared memory).
/// 11: OUTER's launch.ranges 3: super-rows, k rows of B (k * B * size a multiple of 16) read as
///    one row of the view [A, R / k, k * B]; the workspace ends with A * k * B results and one
///    more counter for the fold (a version 10 launcher would write k * B outputs).
/// 12: super-rows (OUTER's ranges 3) carry k in launch.segs and end their workspace with a
///    counter a chunk of OPNN_CUDA_SUPER_FOLD_COLS output columns; the tile that completes a
///    chunk folds it (a version 11 launcher derived k, counted tiles in the first of those
///    counters and folded every column in the last tile).
/// 13: OUTER's launch.ranges OPNN_CUDA_SHIFT_RANGES (5): rows off 16 bytes read as the aligned
///    16-byte vectors that cover them, launch.sub (32 or 16) lanes a row, in tiles of sub - 1
///    vectors' columns (a version 12 launcher read them as tiles of sub vectors; an earlier
///    version 13 launcher, which took sub 32 only, reads a sub 16 plan as single elements).
/// 14: opnn_launch.whole: a shift plan (OUTER's OPNN_CUDA_SHIFT_RANGES) may read its first
///    `whole` tiles unsplit and split only the tiles after them, the last wave's (a version 13
///    launcher would split every tile, with too small a workspace).
/// 15: shift plans carry their tiles' vectors in launch.segs: sub - 1, or sub (exact tiles, lane
///    0 of a row also reading the vector after the lanes'); a version 14 launcher read segs as
///    slabs (1) and tiles of sub - 1 vectors, which may not cover exact tiles' columns.
/// 16: OUTER's launch.ranges may be 2 * OPNN_CUDA_UNROLL: a block a unit of 16-byte loads twice
///    as deep, on grids of at most 2 blocks an SM (a version 15 launcher read it as a block a
///    unit 4 loads deep: correct, but no longer the plan).
/// 17: MIDDLE plans of B = 4 or 8 columns whose rows fill 2 vectors (B * size 32) may get
///    OPNN_KERNEL_ROW_VEC (a version 16 launcher refused them as an internal error), and MIDDLE
///    plans of contiguous slabs whose pack fits a ROW_TILE tile OPNN_KERNEL_ROW_TILE: each slab
///    [R, B] a row of the tile, B outputs (a version 16 launcher would reduce each slab to one).
/// 18: ROW_TILE's slab plans (MIDDLE) carry the lanes an output in launch.sub (lane h of them
///    folding rows h, h + sub, ... of the column, the partials combined by shuffles) and mark
///    columns folded from a staggered row with launch.ranges 2 (1 otherwise); ROW_TILE's ranges
///    is 1 elsewhere. A version 17 launcher ran a lane an output and staggered by slab length:
///    correct, but not the plan.
/// 19: ROW_TILE's slab plans of B = 3, 5, 6 or 7 columns whose R is a whole number of packs (P
///    rows spanning whole 16-byte vectors) get launch.ranges 3: launch.sub lanes a slab, lane h
///    folding the slab's packs h, h + sub, ... from 16-byte vectors. A version 18 launcher read
///    ranges 3 as an element-wise fold of sub lanes an output: correct, but not the plan.
#define OP_ABI_VERSION 19u

/// Attribute value types.
typedef enum op_attr_type {
    OP_ATTR_INT = 1,   ///< int64_t, set with op_context_set_attr_int
    OP_ATTR_INTS = 2,  ///< list of int64_t, set with op_context_set_attr_ints; default empty
    OP_ATTR_FLOAT = 3, ///< double, set with op_context_set_attr_float
} op_attr_type;

/// One attribute an op accepts. Attributes not listed in the schema are refused by op_run
/// (OP_ERR_NOT_FOUND); a value of the wrong type is OP_ERR_INVALID_ARGUMENT.
typedef struct op_attr_def {
    const char *name;
    op_attr_type type;
    int64_t default_int;  ///< default of an OP_ATTR_INT
    double default_float; ///< default of an OP_ATTR_FLOAT
} op_attr_def;

/// The state a kernel or an inference function sees: the bound tensors, the attributes with
/// defaults applied, the stream. Valid only during the call it is passed to.
typedef struct op_kernel_ctx op_kernel_ctx;

/// Infers output @p index. Writes ndim, shape (room for OP_MAX_DIMS) and dtype; on failure
/// returns op_kernel_fail(...). Called with inputs and attributes already checked against the
/// schema (count, types), but not their values.
typedef op_status (*op_infer_fn)(op_kernel_ctx *kc, int index, int32_t *ndim, int64_t *shape,
                                 DLDataType *dtype);
/// Runs the op. Called after the outputs were checked against op_infer_fn's result.
typedef op_status (*op_kernel_fn)(op_kernel_ctx *kc);

/// An operator's schema. All strings and arrays are copied at registration.
typedef struct op_schema {
    const char *name;         ///< unique op name, at most 63 bytes
    const char *doc;          ///< one line for `opnn list`; may be NULL
    int num_inputs;           ///< exact number of inputs, 1..OP_MAX_TENSORS
    int num_outputs;          ///< exact number of outputs, 1..OP_MAX_TENSORS
    const op_attr_def *attrs; ///< may be NULL when num_attrs is 0
    size_t num_attrs;
    op_infer_fn infer; ///< required
} op_schema;

/// Collects what one plugin (or the built-in set) registers, so it can be rolled back or
/// unloaded as a unit. NULL means "the host program itself".
typedef struct op_registrar op_registrar;

/// Registers an op schema.
/// @retval OP_OK registered.
/// @retval OP_ERR_INVALID_ARGUMENT NULL schema or name, empty or long name, bad counts,
///         missing infer, an attribute without a name or with an unknown type, a duplicate
///         attribute name.
/// @retval OP_ERR_ALREADY_EXISTS an op of that name is registered.
/// @retval OP_ERR_OUT_OF_MEMORY allocation failed.
OPNN_API op_status op_register_op(op_registrar *r, const op_schema *schema);

/// Registers the kernel of @p op for one (device type, dtype). @p data is handed to the kernel
/// through op_kernel_data and must outlive the registration.
/// @retval OP_OK registered.
/// @retval OP_ERR_INVALID_ARGUMENT NULL op or fn, dtype with lanes != 1.
/// @retval OP_ERR_NOT_FOUND no op of that name.
/// @retval OP_ERR_ALREADY_EXISTS a kernel for that device and dtype exists.
/// @retval OP_ERR_OUT_OF_MEMORY allocation failed.
OPNN_API op_status op_register_kernel(op_registrar *r, const char *op, DLDeviceType device,
                                      DLDataType dtype, op_kernel_fn fn, const void *data);

/// Removes an op registered by the host program (registrar NULL) with all its kernels.
/// @retval OP_OK removed.
/// @retval OP_ERR_INVALID_ARGUMENT NULL name, or the op belongs to a plugin or the built-ins.
/// @retval OP_ERR_NOT_FOUND no op of that name.
OPNN_API op_status op_unregister_op(const char *name);

/// Shorthand for a DLDataType with one lane.
#define OP_DTYPE(code, bits) ((DLDataType){(uint8_t)(code), (uint8_t)(bits), 1})

/// Registers a schema and returns from the enclosing function on failure.
#define OP_REGISTER_OP(reg, schema_ptr)                                                            \
    do {                                                                                           \
        op_status op_reg_st_ = op_register_op((reg), (schema_ptr));                                \
        if (op_reg_st_ != OP_OK)                                                                   \
            return op_reg_st_;                                                                     \
    } while (0)

/// Registers a kernel and returns from the enclosing function on failure.
#define OP_REGISTER_KERNEL(reg, op, device, dtype, fn, data)                                       \
    do {                                                                                           \
        op_status op_reg_st_ = op_register_kernel((reg), (op), (device), (dtype), (fn), (data));   \
        if (op_reg_st_ != OP_OK)                                                                   \
            return op_reg_st_;                                                                     \
    } while (0)

/* --- what a kernel or inference function may ask of its op_kernel_ctx --- */

/// The op's name.
OPNN_API const char *op_kernel_op_name(const op_kernel_ctx *kc);
/// Input @p index, or NULL when out of range.
OPNN_API const DLTensor *op_kernel_input(const op_kernel_ctx *kc, int index);
/// Output @p index, or NULL when out of range (outputs are absent during op_infer_output).
OPNN_API const DLTensor *op_kernel_output(const op_kernel_ctx *kc, int index);
/// Integer attribute @p name: the value set, else the schema default (0 for an unknown name).
OPNN_API int64_t op_kernel_attr_int(const op_kernel_ctx *kc, const char *name);
/// Float attribute @p name: the value set, else the schema default (0 for an unknown name).
OPNN_API double op_kernel_attr_float(const op_kernel_ctx *kc, const char *name);
/// Integer-list attribute @p name: sets *v (NULL when empty) and returns its length.
OPNN_API size_t op_kernel_attr_ints(const op_kernel_ctx *kc, const char *name, const int64_t **v);
/// The CUDA stream of the context (NULL: default stream).
OPNN_API void *op_kernel_stream(const op_kernel_ctx *kc);
/// The @p data pointer given to op_register_kernel.
OPNN_API const void *op_kernel_data(const op_kernel_ctx *kc);
/// Records a failure message ("<op>: " is prepended) in the context and returns @p s.
OPNN_API op_status op_kernel_fail(op_kernel_ctx *kc, op_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/// The context the kernel runs for (for the reduce helpers of opnn/reduce.h).
OPNN_API op_context *op_kernel_context(const op_kernel_ctx *kc);

/* --- introspection --- */

/// What `opnn list` shows of an op. Strings and arrays stay valid until the op is unregistered.
typedef struct op_info {
    const char *name;
    const char *doc;    ///< "" when the schema gave none
    const char *plugin; ///< plugin name, "builtin", or "host"
    int num_inputs;
    int num_outputs;
    const op_attr_def *attrs; ///< num_attrs entries
    size_t num_attrs;
} op_info;

/// Describes a registered op.
/// @retval OP_OK described.
/// @retval OP_ERR_INVALID_ARGUMENT NULL name or info.
/// @retval OP_ERR_NOT_FOUND no op of that name.
OPNN_API op_status op_describe(const char *name, op_info *info);

/// Copies up to @p capacity (device type, dtype) pairs of @p op's kernels (sorted by device, then
/// dtype) and returns how many there are in all; 0 for an unknown op.
OPNN_API size_t op_list_kernels(const char *op, DLDeviceType *devices, DLDataType *dtypes,
                                size_t capacity);

/* --- plugins --- */

/// A loaded plugin (reference counted by path).
typedef struct op_plugin op_plugin;

/// What a plugin's entry symbol returns.
typedef struct op_plugin_info {
    uint32_t abi_version;                       ///< must be OP_ABI_VERSION
    const char *name;                           ///< for messages and `opnn list`
    op_status (*register_ops)(op_registrar *r); ///< registers the plugin's ops through r
} op_plugin_info;

/// Name of the symbol every plugin exports.
#define OP_PLUGIN_ENTRY_SYMBOL "opnn_plugin_entry"

/// Defines a plugin's entry symbol. Use once per plugin, at file scope.
#define OP_PLUGIN_DEFINE(plugin_name, register_fn)                                                 \
    OPNN_API const op_plugin_info *opnn_plugin_entry(void);                                        \
    OPNN_API const op_plugin_info *opnn_plugin_entry(void)                                         \
    {                                                                                              \
        static const op_plugin_info info_ = {OP_ABI_VERSION, (plugin_name), (register_fn)};        \
        return &info_;                                                                             \
    }

/// Loads a plugin and registers its ops. Loading a path that is loaded already only counts a
/// reference. A failed load registers nothing.
/// @param out receives the handle; written only on success.
/// @retval OP_OK loaded.
/// @retval OP_ERR_INVALID_ARGUMENT NULL path or out.
/// @retval OP_ERR_PLUGIN cannot open, no entry symbol, ABI version mismatch, registration failed
///         for another reason.
/// @retval OP_ERR_ALREADY_EXISTS the plugin registers a name that exists.
/// @retval OP_ERR_OUT_OF_MEMORY allocation failed.
OPNN_API op_status op_load_plugin(const char *path, op_plugin **out);

/// Drops one reference; at the last one, unregisters exactly the plugin's ops, then closes it.
/// @retval OP_OK unloaded (or reference dropped).
/// @retval OP_ERR_INVALID_ARGUMENT NULL or unknown handle.
OPNN_API op_status op_unload_plugin(op_plugin *plugin);

/// The last plugin load error when no context is at hand (thread-local); "" if none.
OPNN_API const char *op_plugin_error(void);

#ifdef __cplusplus
}
#endif

#endif /* OPNN_PLUGIN_H */
