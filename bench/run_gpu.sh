#!/usr/bin/env bash
# One pass on a CUDA machine: build with CUDA, run the GPU test suite, the sanitizers over
# test_cuda_kernels (one kind a dtype) and the plugin ops' tests, the benchmark suite, the plugin ops beside ReduceSum, ReduceSum on shapes outside the
# suite, and a kernel-time profile of the small cases. Output goes to $OUT (default
# build/gpu-out). Dependencies not installed on the machine (uthash, cmocka, dlpack headers) may
# be staged in .deps/ (see README).
#
# bench/report.py turns bench.json into RESULTS.md's suite table, bench/offsuite_table.py the
# offsuite lines (the stage's output) into its table of shapes off the suite.
#
# STAGES picks some of the stages (default: all): build test demo suite plugins sanitizers
# offsuite folds profile (folds: bench/tile_folds.sh). On an H200 the tests take about 2
# minutes, the suite and the shapes off it under one, the sanitizers longest (racecheck past 5
# minutes). A machine with a per-command time limit can run it in two calls, e.g.
# STAGES="build test demo suite plugins offsuite folds" and then STAGES="build sanitizers
# profile" (the build is incremental the second time).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/build/gpu-out}
B=${BUILD:-build/gpu}
mkdir -p "$OUT"
# logs go to $OUT/logs and are packed into $OUT/logs.tgz at the end (a remote runner may bring
# back only a few files); the JSON tables stay beside it
L=$OUT/logs
mkdir -p "$L"
export LD_LIBRARY_PATH=$PWD/.deps/lib:${LD_LIBRARY_PATH:-}
PATH=$PATH:/usr/local/cuda/bin
jobs=$(nproc)
STAGES=${STAGES:-build test demo suite plugins sanitizers offsuite folds profile}
step() { echo "=== $* ($(date -u +%T))"; }
want() { case " $STAGES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

if want build; then
step build
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOPNN_WITH_CUDA=ON \
    -DCMAKE_PREFIX_PATH="$PWD/.deps" >"$L/build.log" 2>&1 &&
    cmake --build "$B" -j"$jobs" >>"$L/build.log" 2>&1 || {
    tail -40 "$L/build.log"
    exit 1
}
grep -E "warning" "$L/build.log" | head -5
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv >"$L/gpu.txt"
cat "$L/gpu.txt"
fi

if want test; then
step "ctest (all labels; GPU tests run here)"
ctest --test-dir "$B" -j4 --output-on-failure --timeout 600 >"$L/tests.log" 2>&1
echo "ctest rc=$?"
grep -E "tests passed|Failed|\*\*\*|Passed|Skipped" "$L/tests.log" | tail -40
fi

if want demo; then
step "demo"
"$B/tools/opnn" demo 2>&1 | tail -5
fi

if want suite; then
step "bench suite"
"$B/tools/opnn" bench --json "$OUT/bench.json" >"$L/bench.log" 2>&1
echo "bench rc=$?"
cat "$L/bench.log"
fi

if want plugins && [ -f "$B/plugins/reduce_extra.so" ] && [ -f "$B/plugins/argminmax.so" ]; then
    step "plugin ops beside ReduceSum"
    P="--plugin $B/plugins/reduce_extra.so --plugin $B/plugins/argminmax.so"
    big="--case full --case row_wide --case row_mid --case row_tiny --case col_wide"
    big="$big --case col_narrow --case col_short --case seed_hw --case bn_nhw --case middle"
    one="--case full --case row_wide --case row_mid --case row_tiny --case col_wide"
    one="$one --case col_narrow --case col_short --case middle"
    "$B/tools/opnn" $P bench --op ReduceSum $big --json "$OUT/plug_sum.json" >"$L/plugins.log" 2>&1
    "$B/tools/opnn" $P bench --op ReduceL2 $big --json "$OUT/plug_l2.json" >>"$L/plugins.log" 2>&1
    "$B/tools/opnn" $P bench --op ArgMax $one --json "$OUT/plug_argmax.json" >>"$L/plugins.log" 2>&1
    cat "$L/plugins.log"
fi

if want sanitizers; then
step "compute-sanitizer (memcheck, racecheck) over test_cuda_kernels, one kind a dtype"
# the suite in its three shards (as ctest runs it), six processes at once: memcheck took 5.5
# minutes so on an H200. racecheck takes ~14 s a families__nan_inf case, so that shard runs as
# 12 processes (OPNN_TEST_SHARD=i/12): 3.3 minutes for its 110 cases (H200, session 29)
shards=("OPNN_TEST_FILTER=families__every_kind_dtype/*" "OPNN_TEST_FILTER=families__nan_inf/*"
        "OPNN_TEST_SKIP=families__*")
for tool in memcheck racecheck; do
    for i in 0 1 2; do
        if [ "$tool" = racecheck ] && [ $i = 1 ]; then
            for k in $(seq 0 11); do
                env OPNN_TEST_QUICK=1 "${shards[$i]}" OPNN_TEST_SHARD=$k/12 compute-sanitizer \
                    --tool $tool --error-exitcode 9 "$B/tests/test_cuda_kernels" \
                    >"$L/sanitizer_${tool}_${i}_$k.log" 2>&1 &
            done
            continue
        fi
        env OPNN_TEST_QUICK=1 "${shards[$i]}" compute-sanitizer --tool $tool --error-exitcode 9 \
            "$B/tests/test_cuda_kernels" >"$L/sanitizer_${tool}_$i.log" 2>&1 &
    done
done
wait
for log in "$L"/sanitizer_memcheck_*.log "$L"/sanitizer_racecheck_*.log; do
    echo "$(basename "$log" .log): $(grep -E '^\[  PASSED|^\[  FAILED' "$log" | tr '\n' ' ')" \
        "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
done
if [ -x "$B/tests/test_plugin_ops_cuda" ]; then
    compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tests/test_plugin_ops_cuda" \
        >"$L/sanitizer_plugins.log" 2>&1
    echo "plugin memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$L/sanitizer_plugins.log" | tail -1)"
fi
fi

if want offsuite; then
step "shapes outside the suite (bench/offsuite_shapes.txt)"
# one process, one read ceiling for every shape; lines "[S] axes [A] D: custom ..."
"$B/tools/opnn" bench --op ReduceSum --shapes bench/offsuite_shapes.txt \
    --json "$OUT/offsuite.json" >"$L/offsuite.log" 2>&1
echo "offsuite rc=$?"
grep -E '^\[' "$L/offsuite.log"
fi

if want folds; then
step "ROW_TILE's slab folds at every lane count (bench/tile_folds.sh)"
BIN="$B/tools/opnn_families" bench/tile_folds.sh >"$OUT/folds.txt" 2>&1
echo "folds rc=$?"
cat "$OUT/folds.txt"
fi

if want profile; then
step "kernel time of the small cases (ncu)"
for shape in "4096" "64,1024"; do
    axes=$([ "$shape" = 4096 ] && echo 0 || echo 1)
    ncu -c 6 --metrics gpu__time_duration.sum "$B/tools/opnn" run ReduceSum --shape $shape \
        --axes $axes --device cuda 2>&1 | grep -E "gpu__time_duration|Kernel|kernel" | tail -4
done
fi
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
step done
