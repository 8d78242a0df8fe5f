/* Plugin loading: load, run, unload, reload; reference counting; duplicates; rollback of a
 * failed load; ABI mismatch; missing symbol and path; op_run on other threads meanwhile. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <opnn/opnn.h>

#define PLUGIN(name) OPNN_TEST_PLUGIN_DIR "/" name ".so"

/* A new context with input 0 and output 0 bound. */
static op_context *ctx_with(const DLTensor *x, const DLTensor *y)
{
    op_context *ctx;
    assert_int_equal(op_context_create(&ctx), OP_OK);
    assert_int_equal(op_context_set_input(ctx, 0, x), OP_OK);
    assert_int_equal(op_context_set_output(ctx, 0, y), OP_OK);
    return ctx;
}

/* Runs TestScale (y = x * scale) on 5 values; returns the status, checks values on success. */
static op_status run_scale(const char *op, double scale, bool set_scale)
{
    float x[5] = {1, -2, 3.5f, 0, 8}, y[5] = {0};
    int64_t shape[1] = {5};
    DLTensor X = {x, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
    DLTensor Y = {y, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
    op_context *ctx = ctx_with(&X, &Y);
    if (set_scale)
        assert_int_equal(op_context_set_attr_float(ctx, "scale", scale), OP_OK);
    op_status st = op_run(op, ctx);
    if (st == OP_OK)
        for (int i = 0; i < 5; i++)
            assert_float_equal(y[i], x[i] * scale, 1e-6);
    op_context_destroy(ctx);
    return st;
}

static bool op_exists(const char *name)
{
    op_info info;
    return op_describe(name, &info) == OP_OK;
}

static void plugin__load_run_unload_reload(void **state)
{
    (void)state;
    for (int round = 0; round < 2; round++) {
        /* set up */
        op_plugin *p = NULL;
        assert_int_equal(op_load_plugin(PLUGIN("tp_good"), &p), OP_OK);
        assert_non_null(p);
        /* run */
        assert_int_equal(run_scale("TestScale", 3.0, true), OP_OK);
        assert_int_equal(run_scale("TestScaleB", 2.0, false), OP_OK); /* default scale 2 */
        op_info info;
        assert_int_equal(op_describe("TestScale", &info), OP_OK);
        assert_string_equal(info.plugin, "tp_good");
        /* check */
        assert_int_equal(op_unload_plugin(p), OP_OK);
        assert_int_equal(run_scale("TestScale", 3.0, true), OP_ERR_NOT_FOUND);
        assert_false(op_exists("TestScaleB"));
        assert_true(op_exists("ReduceSum"));
    }
}

static void plugin__same_path_twice_is_refcounted(void **state)
{
    (void)state;
    op_plugin *a = NULL, *b = NULL;
    assert_int_equal(op_load_plugin(PLUGIN("tp_good"), &a), OP_OK);
    assert_int_equal(op_load_plugin(PLUGIN("tp_good"), &b), OP_OK);
    assert_ptr_equal(a, b);
    assert_int_equal(op_unload_plugin(a), OP_OK);
    assert_int_equal(run_scale("TestScale", 1.5, true), OP_OK); /* one reference left */
    assert_int_equal(op_unload_plugin(b), OP_OK);
    assert_false(op_exists("TestScale"));
    assert_int_equal(op_unload_plugin(b), OP_ERR_INVALID_ARGUMENT); /* gone */
}

static void plugin__duplicate_name_across_plugins(void **state)
{
    (void)state;
    op_plugin *good = NULL, *dup = (op_plugin *)0x1;
    assert_int_equal(op_load_plugin(PLUGIN("tp_good"), &good), OP_OK);
    assert_int_equal(op_load_plugin(PLUGIN("tp_dup"), &dup), OP_ERR_ALREADY_EXISTS);
    assert_ptr_equal(dup, (op_plugin *)0x1); /* not written on failure */
    assert_non_null(strstr(op_plugin_error(), "TestScale"));
    /* the first plugin's op still works and is still the first plugin's */
    op_info info;
    assert_int_equal(op_describe("TestScale", &info), OP_OK);
    assert_string_equal(info.plugin, "tp_good");
    assert_int_equal(op_unload_plugin(good), OP_OK);
    assert_false(op_exists("TestScale"));
}

static void plugin__failed_load_leaves_nothing(void **state)
{
    (void)state;
    size_t before = op_list(NULL, 0);
    op_plugin *p = NULL;
    assert_int_equal(op_load_plugin(PLUGIN("tp_clash"), &p), OP_ERR_ALREADY_EXISTS);
    assert_null(p);
    assert_false(op_exists("TestClashFirst"));
    assert_int_equal(op_list(NULL, 0), before);
    assert_non_null(strstr(op_plugin_error(), "ReduceSum"));
    /* the built-in it clashed with is untouched */
    op_info info;
    assert_int_equal(op_describe("ReduceSum", &info), OP_OK);
    assert_string_equal(info.plugin, "builtin");
}

/* ReduceSum over all of a u8 [2, 3] into [1, 1]: the status, and the output in *y */
static op_status run_u8_sum(uint8_t *y)
{
    uint8_t x[6] = {1, 2, 3, 4, 5, 6};
    int64_t xs[2] = {2, 3}, ys[2] = {1, 1};
    DLTensor X = {x, {kDLCPU, 0}, 2, {kDLUInt, 8, 1}, xs, NULL, 0};
    DLTensor Y = {y, {kDLCPU, 0}, 2, {kDLUInt, 8, 1}, ys, NULL, 0};
    op_context *ctx = ctx_with(&X, &Y);
    op_status st = op_run("ReduceSum", ctx);
    op_context_destroy(ctx);
    return st;
}

/* A plugin's kernel for a built-in op runs while the plugin is loaded and goes with it (its code
 * is unmapped then: a kernel left behind would be called there); a load whose registration fails
 * after adding such a kernel leaves it out. */
static void plugin__kernel_for_builtin_goes_with_plugin(void **state)
{
    (void)state;
    const size_t before = op_list_kernels("ReduceSum", NULL, NULL, 0);
    uint8_t y = 0;
    op_plugin *p = NULL;

    assert_int_not_equal(run_u8_sum(&y), OP_OK); /* no built-in u8 kernel */
    for (int round = 0; round < 2; round++) {
        assert_int_equal(op_load_plugin(PLUGIN("tp_extend"), &p), OP_OK);
        assert_int_equal(op_list_kernels("ReduceSum", NULL, NULL, 0), before + 1);
        y = 0;
        assert_int_equal(run_u8_sum(&y), OP_OK);
        assert_int_equal(y, 42);
        assert_int_equal(op_unload_plugin(p), OP_OK);
        assert_int_equal(op_list_kernels("ReduceSum", NULL, NULL, 0), before);
        y = 7;
        assert_int_not_equal(run_u8_sum(&y), OP_OK);
        assert_int_equal(y, 7);
    }
    p = NULL;
    assert_int_equal(op_load_plugin(PLUGIN("tp_extend_fail"), &p), OP_ERR_PLUGIN);
    assert_null(p);
    assert_int_equal(op_list_kernels("ReduceSum", NULL, NULL, 0), before);
    assert_int_not_equal(run_u8_sum(&y), OP_OK);
    /* the built-in kernels are all still there and run */
    float x[4] = {1, 2, 3, 4}, out = 0;
    int64_t xs[1] = {4}, os[1] = {1};
    DLTensor X = {x, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, xs, NULL, 0};
    DLTensor Y = {&out, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, os, NULL, 0};
    op_context *ctx = ctx_with(&X, &Y);
    assert_int_equal(op_run("ReduceSum", ctx), OP_OK);
    assert_float_equal(out, 10.0f, 0);
    op_context_destroy(ctx);
}

static void plugin__abi_mismatch_names_both_versions(void **state)
{
    (void)state;
    op_plugin *p = NULL;
    assert_int_equal(op_load_plugin(PLUGIN("tp_abi"), &p), OP_ERR_PLUGIN);
    assert_null(p);
    char want[64], got[64];
    snprintf(want, sizeof(want), "%u", (unsigned)OP_ABI_VERSION);
    snprintf(got, sizeof(got), "%u", (unsigned)(OP_ABI_VERSION + 41u));
    const char *msg = op_plugin_error();
    assert_non_null(strstr(msg, want));
    assert_non_null(strstr(msg, got));
    assert_non_null(strstr(msg, "ABI"));
    assert_false(op_exists("TestAbiNeverRegistered"));
}

static void plugin__missing_entry_symbol(void **state)
{
    (void)state;
    op_plugin *p = NULL;
    assert_int_equal(op_load_plugin(PLUGIN("tp_nosym"), &p), OP_ERR_PLUGIN);
    assert_non_null(strstr(op_plugin_error(), "opnn_plugin_entry"));
    assert_non_null(strstr(op_plugin_error(), "tp_nosym"));
}

static void plugin__missing_path(void **state)
{
    (void)state;
    op_plugin *p = NULL;
    assert_int_equal(op_load_plugin("/nonexistent/dir/libnothing.so", &p), OP_ERR_PLUGIN);
    assert_non_null(strstr(op_plugin_error(), "/nonexistent/dir/libnothing.so"));
    /* a file that exists but is no shared library */
    assert_int_equal(op_load_plugin(OPNN_TEST_PLUGIN_DIR "/../CMakeCache.txt", &p), OP_ERR_PLUGIN);
    assert_null(p);
}

static void plugin__null_arguments(void **state)
{
    (void)state;
    op_plugin *p = NULL;
    assert_int_equal(op_load_plugin(NULL, &p), OP_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(op_plugin_error(), "path"));
    assert_int_equal(op_load_plugin(PLUGIN("tp_good"), NULL), OP_ERR_INVALID_ARGUMENT);
    assert_false(op_exists("TestScale"));
    assert_int_equal(op_unload_plugin(NULL), OP_ERR_INVALID_ARGUMENT);
    int not_a_plugin;
    assert_int_equal(op_unload_plugin((op_plugin *)&not_a_plugin), OP_ERR_INVALID_ARGUMENT);
}

/* --- concurrency: op_run of a built-in and of the plugin's op while another thread loads and
 * unloads the plugin over and over --- */

typedef struct churn {
    volatile int stop;
    int runs, plugin_runs, failures;
} churn;

static void *runner(void *arg)
{
    churn *c = arg;
    float x[64], y[4];
    for (int i = 0; i < 64; i++)
        x[i] = (float)(i % 7) - 3.0f;
    int64_t xs[2] = {4, 16}, ys[1] = {4}, axes[1] = {1};
    DLTensor X = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, xs, NULL, 0};
    DLTensor Y = {y, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, ys, NULL, 0};
    op_context *ctx;
    if (op_context_create(&ctx) != OP_OK)
        return NULL;
    op_context_set_input(ctx, 0, &X);
    op_context_set_output(ctx, 0, &Y);
    op_context_set_attr_ints(ctx, "axes", axes, 1);
    op_context_set_attr_int(ctx, "keepdims", 0);
    while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
        memset(y, 0, sizeof(y));
        if (op_run("ReduceSum", ctx) != OP_OK)
            __atomic_add_fetch(&c->failures, 1, __ATOMIC_RELAXED);
        for (int r = 0; r < 4; r++) {
            float want = 0;
            for (int k = 0; k < 16; k++)
                want += x[r * 16 + k];
            if (y[r] != want)
                __atomic_add_fetch(&c->failures, 1, __ATOMIC_RELAXED);
        }
        __atomic_add_fetch(&c->runs, 1, __ATOMIC_RELAXED);
        op_status st = run_scale("TestScale", 0.5, true);
        if (st == OP_OK)
            __atomic_add_fetch(&c->plugin_runs, 1, __ATOMIC_RELAXED);
        else if (st != OP_ERR_NOT_FOUND)
            __atomic_add_fetch(&c->failures, 1, __ATOMIC_RELAXED);
    }
    op_context_destroy(ctx);
    return NULL;
}

static void plugin__run_while_loading_and_unloading(void **state)
{
    (void)state;
    churn c = {0, 0, 0, 0};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, runner, &c), 0);
    /* at least 200 loads, and on until both runners have run a while (on a loaded machine
     * they may not be scheduled before 200 loads are done); 100000 loads at most */
    for (int i = 0; i < 200 || (__atomic_load_n(&c.runs, __ATOMIC_RELAXED) < 200 && i < 100000);
         i++) {
        op_plugin *p = NULL;
        assert_int_equal(op_load_plugin(PLUGIN("tp_good"), &p), OP_OK);
        assert_int_equal(op_unload_plugin(p), OP_OK);
    }
    __atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(c.failures, 0);
    assert_true(c.runs > 0);
    assert_false(op_exists("TestScale"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plugin__load_run_unload_reload),
        cmocka_unit_test(plugin__same_path_twice_is_refcounted),
        cmocka_unit_test(plugin__duplicate_name_across_plugins),
        cmocka_unit_test(plugin__failed_load_leaves_nothing),
        cmocka_unit_test(plugin__abi_mismatch_names_both_versions),
        cmocka_unit_test(plugin__missing_entry_symbol),
        cmocka_unit_test(plugin__kernel_for_builtin_goes_with_plugin),
        cmocka_unit_test(plugin__missing_path),
        cmocka_unit_test(plugin__null_arguments),
        cmocka_unit_test(plugin__run_while_loading_and_unloading),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
