#!/usr/bin/env bash
# Times the folds ROW_TILE has for MIDDLE slabs [A, R, B] (ReduceSum over axis 1) on a CUDA
# machine: element by element over g lanes an output (launch.ranges 1), from a staggered row (2),
# and from whole packs of rows, g lanes a slab (3: B of OPNN_CUDA_ROW_TILE_PACK_COLS, R a
# multiple of the pack's 16 / gcd(B * size, 16) rows), each at g = 1, 2, 4, ... (up to 32 and
# R), beside the planner's plan, with `opnn_families --sub LIST --ranges LIST` (one input a
# shape). One line a timing: shape dtype ranges g median_us best_us; the planner's as "planner".
#
#   bench/tile_folds.sh [SHAPES]      SHAPES: lines "A,R,B dtype" (default: the list below)
#   BIN=build/tools/opnn_families REPS=30
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-build/tools/opnn_families}
REPS=${REPS:-30}
default_shapes="4194304,32,3 f16
2097152,64,3 f16
4194304,16,3 f16
1048576,128,3 f16
4194304,32,3 bf16
4194304,32,3 f32
2097152,64,3 f32
4194304,16,3 f32
1048576,128,3 f32
131072,512,3 f32
2097152,16,5 f16
1048576,64,7 f16
2097152,16,6 f16
4194304,8,6 f32
1048576,100,5 f32
524288,200,7 f32
1048576,64,3 f64
4194304,32,3 i32"
if [[ $# -gt 0 ]]; then
    shapes=$(grep -v '^#' "$1")
else
    shapes=$default_shapes
fi
size_of() { case $1 in f16 | bf16) echo 2 ;; f32 | i32) echo 4 ;; *) echo 8 ;; esac; }
while read -r shape dtype; do
    [[ -z $shape ]] && continue
    IFS=, read -r _ r b <<<"$shape"
    es=$(size_of "$dtype")
    row=$((b * es))
    gcd=16
    while ((row % gcd != 0)); do gcd=$((gcd / 2)); done
    prow=$((16 / gcd))
    subs=""
    for ((g = 1; g <= 32 && g <= r; g *= 2)); do subs+="${subs:+,}$g"; done
    ranges="1,2"
    case $b in 3 | 5 | 6 | 7) ((r % prow == 0)) && ranges="1,2,3" ;; esac
    "$BIN" --shape "$shape" --axes 1 --dtype "$dtype" --reps "$REPS" --family planner |
        awk -v s="$shape" -v d="$dtype" '/best/ { for (i = 1; i <= NF; i++) { if ($i == "ranges") rg = $(i + 1); if ($i == "sub") g = $(i + 1); if ($i == "best") b = $(i + 1); if ($i == "median") m = $(i + 1) } printf "%s %s planner(%s,%s) %s %s\n", s, d, rg, g, m, b }'
    "$BIN" --shape "$shape" --axes 1 --dtype "$dtype" --reps "$REPS" --family row_tile \
        --sub "$subs" --ranges "$ranges" |
        awk -v s="$shape" -v d="$dtype" '/best|refused/ { for (i = 1; i <= NF; i++) { if ($i == "ranges") rg = $(i + 1); if ($i == "sub") g = $(i + 1); if ($i == "best") b = $(i + 1); if ($i == "median") m = $(i + 1) } if ($0 ~ /refused/) { m = "refused"; b = "-" } printf "%s %s %s %s %s %s\n", s, d, rg, g, m, b }'
done <<<"$shapes"
