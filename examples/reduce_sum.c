/* reduce_sum: the smallest complete opnn program. Sums a 2x3x4 float tensor over axes 1 and 2
 * (keeping them as size-1 dims), prints the result, then shows how a failure is reported.
 *
 *   cc reduce_sum.c $(pkg-config --cflags --libs opnn) -o reduce_sum && ./reduce_sum
 */
#include <stdio.h>
#include <stdlib.h>

#include <opnn/opnn.h>

/* Aborting on the first error is fine in an example; the library itself never aborts. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        op_status st_ = (call);                                                                    \
        if (st_ != OP_OK) {                                                                        \
            fprintf(stderr, "%s failed: %s: %s\n", #call, op_status_str(st_),                      \
                    op_context_error(ctx));                                                        \
            op_context_destroy(ctx);                                                               \
            return EXIT_FAILURE;                                                                   \
        }                                                                                          \
    } while (0)

int main(void)
{
    op_context *ctx = NULL;
    CHECK(op_context_create(&ctx));

    /* the input: 2 x 3 x 4 floats, compact row-major (strides NULL), in host memory */
    float in[2 * 3 * 4];
    for (int i = 0; i < 2 * 3 * 4; i++)
        in[i] = (float)i;
    int64_t in_shape[] = {2, 3, 4};
    DLTensor x = {.data = in,
                  .device = {kDLCPU, 0},
                  .ndim = 3,
                  .dtype = {kDLFloat, 32, 1},
                  .shape = in_shape};
    CHECK(op_context_set_input(ctx, 0, &x));

    /* reduce over axes 1 and 2; keepdims defaults to 1 */
    const int64_t axes[] = {1, -1}; /* -1 wraps to 2 */
    CHECK(op_context_set_attr_ints(ctx, "axes", axes, 2));

    /* ask the op what it will produce, then bind an output of exactly that */
    int32_t ndim;
    int64_t out_shape[OP_MAX_DIMS];
    DLDataType dtype;
    CHECK(op_infer_output("ReduceSum", ctx, 0, &ndim, out_shape, &dtype));
    float out[2];
    DLTensor y = {
        .data = out, .device = {kDLCPU, 0}, .ndim = ndim, .dtype = dtype, .shape = out_shape};
    CHECK(op_context_set_output(ctx, 0, &y));

    CHECK(op_run("ReduceSum", ctx));
    printf("ReduceSum over axes [1,2] of 0..23 shaped [2,3,4] -> [%lld,%lld,%lld]: %g %g\n",
           (long long)out_shape[0], (long long)out_shape[1], (long long)out_shape[2], out[0],
           out[1]);
    if (out[0] != 66.0f || out[1] != 210.0f) { /* 0+...+11, 12+...+23 */
        fprintf(stderr, "unexpected result\n");
        op_context_destroy(ctx);
        return EXIT_FAILURE;
    }

    /* a mistake: axis 3 does not exist for a rank-3 input. The call fails, nothing aborts,
     * and the context says why. */
    const int64_t bad_axes[] = {3};
    CHECK(op_context_set_attr_ints(ctx, "axes", bad_axes, 1));
    op_status st = op_run("ReduceSum", ctx);
    printf("with axes [3]: %s: %s\n", op_status_str(st), op_context_error(ctx));

    op_context_destroy(ctx);
    return st == OP_ERR_INVALID_ARGUMENT ? EXIT_SUCCESS : EXIT_FAILURE;
}
