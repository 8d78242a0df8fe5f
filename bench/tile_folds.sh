#!/usr/bin/env bash
# Times the folds ROW_TILE has for MIDDLE slabs [A, R, B] (ReduceSum over axis 1) on a CUDA
# machine: element by element over g lanes an output (launch.ranges 1), from a staggered row (2),
# and from whole packs of rows, g lanes a slab (3: B of OPNN_CUDA_ROW_TILE_PACK_COLS, R a
# multiple of the pack's 16 / gcd(B * size, 16) rows; `opnn_families --packs 1`, the tiles as
# they would be planned), each at g = 1, 2, 4, ... (up to 32 and R), beside the planner's plan,
# with `opnn_families --sub LIST --ranges LIST` (one input a shape). One line a timing:
#   shape dtype fold g median_us best_us
# fold: planner(ranges,g), plain, stagger, packs, packs-plan (the pack fold at its planned g, the
# planner's where it serves), or elements-plan (the element-wise fold's own plan of such slabs).
#
#   bench/tile_folds.sh [SHAPES]      SHAPES: lines "A,R,B dtype" (default: the list below)
#   BIN (default build/default/tools/opnn_families, as `make` builds it), REPS (30)
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-build/default/tools/opnn_families}
REPS=${REPS:-30}
[[ -x $BIN ]] || {
    echo "tile_folds.sh: no $BIN (set BIN to a CUDA build's opnn_families)" >&2
    exit 1
}
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
# the timing lines of opnn_families whose label is $1 (planner or forced), as "fold g median
# best"; a refusal, a host-loop timing (inputs under 1 MB) or a CUDA error in the median column
pick() {
    awk -v lab="$1" -v fold="$2" -v s="$3" -v d="$4" '
        $1 == lab && / grid / {
            for (i = 1; i <= NF; i++) { if ($i == "ranges") rg = $(i + 1); if ($i == "sub") g = $(i + 1) }
            f = fold == "" ? (rg == 1 ? "plain" : rg == 2 ? "stagger" : rg == 3 ? "packs" : "ranges" rg) : fold
            if (f == "planner") f = "planner(" rg "," g ")"
            if (/refused/) { m = "refused"; b = "-" }
            else if (/host loop/) { m = $(NF - 5) "/call"; b = "-" }
            else for (i = 1; i <= NF; i++) { if ($i == "best") b = $(i + 1); if ($i == "median") m = $(i + 1) }
            printf "%s %s %s %s %s %s\n", s, d, f, g, m, b
        }
        /a CUDA error was raised/ { printf "%s %s CUDA-error\n", s, d }'
}
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
    F=("$BIN" --shape "$shape" --axes 1 --dtype "$dtype" --reps "$REPS")
    packs=0
    case $b in 3 | 5 | 6 | 7) ((r % prow == 0)) && packs=1 ;; esac
    # the element-wise folds on their own plan's tiles (--packs 0 where the planner folds packs)
    E=()
    ((packs)) && E=(--packs 0)
    "${F[@]}" --family planner | pick planner planner "$shape" "$dtype"
    "${F[@]}" --family row_tile "${E[@]}" --sub "$subs" --ranges 1,2 | pick forced "" "$shape" "$dtype"
    if ((packs)); then
        "${F[@]}" --family row_tile "${E[@]}" | pick forced elements-plan "$shape" "$dtype"
        "${F[@]}" --family row_tile --packs 1 | pick forced packs-plan "$shape" "$dtype"
        "${F[@]}" --family row_tile --packs 1 --sub "$subs" | pick forced "" "$shape" "$dtype"
    fi
done <<<"$shapes"
