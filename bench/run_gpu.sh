#!/usr/bin/env bash
# One pass on a CUDA machine: build with CUDA, run the GPU test suite, the sanitizers on a
# subset, the benchmark suite, the plugin ops beside ReduceSum, and a kernel-time profile of
# the small cases. Logs go to $OUT (default build/gpu-out). Dependencies not installed on the
# machine (uthash, cmocka, dlpack headers) may be staged in .deps/ (see README).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/build/gpu-out}
B=${BUILD:-build/gpu}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.deps/lib:${LD_LIBRARY_PATH:-}
PATH=$PATH:/usr/local/cuda/bin
jobs=$(nproc)
step() { echo "=== $* ($(date -u +%T))"; }

step build
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOPNN_WITH_CUDA=ON \
    -DCMAKE_PREFIX_PATH="$PWD/.deps" >"$OUT/build.log" 2>&1 &&
    cmake --build "$B" -j"$jobs" >>"$OUT/build.log" 2>&1 || {
    tail -40 "$OUT/build.log"
    exit 1
}
grep -E "warning" "$OUT/build.log" | head -5
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv >"$OUT/gpu.txt"
cat "$OUT/gpu.txt"

step "ctest (all labels; GPU tests run here)"
ctest --test-dir "$B" -j4 --output-on-failure --timeout 600 >"$OUT/tests.log" 2>&1
echo "ctest rc=$?"
grep -E "tests passed|Failed|\*\*\*|Passed|Skipped" "$OUT/tests.log" | tail -40

step "demo"
"$B/tools/opnn" demo 2>&1 | tail -5

step "bench suite"
"$B/tools/opnn" bench --json "$OUT/bench.json" >"$OUT/bench.log" 2>&1
echo "bench rc=$?"
cat "$OUT/bench.log"

if [ -f "$B/plugins/reduce_extra.so" ] && [ -f "$B/plugins/argminmax.so" ]; then
    step "plugin ops beside ReduceSum"
    P="--plugin $B/plugins/reduce_extra.so --plugin $B/plugins/argminmax.so"
    big="--case full --case row_wide --case row_mid --case row_tiny --case col_wide"
    big="$big --case col_narrow --case col_short --case seed_hw --case bn_nhw --case middle"
    one="--case full --case row_wide --case row_mid --case row_tiny --case col_wide"
    one="$one --case col_narrow --case col_short --case middle"
    "$B/tools/opnn" $P bench --op ReduceSum $big --json "$OUT/plug_sum.json" >"$OUT/plugins.log" 2>&1
    "$B/tools/opnn" $P bench --op ReduceL2 $big --json "$OUT/plug_l2.json" >>"$OUT/plugins.log" 2>&1
    "$B/tools/opnn" $P bench --op ArgMax $one --json "$OUT/plug_argmax.json" >>"$OUT/plugins.log" 2>&1
    cat "$OUT/plugins.log"
fi

step "compute-sanitizer (memcheck, racecheck) on a subset"
export OPNN_TEST_QUICK=1 OPNN_TEST_FILTER='families__every*'
for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 "$B/tests/test_cuda_kernels" \
        >"$OUT/sanitizer_$tool.log" 2>&1
    echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer_$tool.log" | tail -1)"
done
unset OPNN_TEST_QUICK OPNN_TEST_FILTER
if [ -x "$B/tests/test_plugin_ops_cuda" ]; then
    compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tests/test_plugin_ops_cuda" \
        >"$OUT/sanitizer_plugins.log" 2>&1
    echo "plugin memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/sanitizer_plugins.log" | tail -1)"
fi

step "kernel time of the small cases (ncu)"
for shape in "4096" "64,1024"; do
    axes=$([ "$shape" = 4096 ] && echo 0 || echo 1)
    ncu -c 6 --metrics gpu__time_duration.sum "$B/tools/opnn" run ReduceSum --shape $shape \
        --axes $axes --device cuda 2>&1 | grep -E "gpu__time_duration|Kernel|kernel" | tail -4
done
step done
