#!/usr/bin/env bash
# Installs a built opnn into a temporary prefix, then builds the client in this folder twice,
# once with find_package(opnn) and once with pkg-config, and runs both.
#   run.sh BUILD_DIR
# Environment: CC, CFLAGS and LDFLAGS are passed to the client builds (the asan preset sets
# them so the client carries the sanitizer runtime too); OPNN_EXPECT_TOOL=0 when the build has
# no opnn program; KEEP=1 keeps the temporary folder.
set -euo pipefail

build_dir=${1:?usage: run.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/opnn-install.XXXXXX")
if [[ ${KEEP:-0} != 1 ]]; then
    trap 'rm -rf "$tmp"' EXIT
fi
prefix=$tmp/prefix

echo "== cmake --install $build_dir --prefix $prefix"
cmake --install "$build_dir" --prefix "$prefix" >"$tmp/install.log" \
    || { cat "$tmp/install.log"; exit 1; }
[[ -e $prefix/include/opnn/opnn.h ]] || { echo "missing $prefix/include/opnn/opnn.h"; exit 1; }
config=$(find "$prefix" -name opnnConfig.cmake | head -n1)
pc=$(find "$prefix" -name opnn.pc | head -n1)
[[ -n $config && -n $pc ]] || { echo "missing opnnConfig.cmake or opnn.pc"; exit 1; }

if [[ ${OPNN_EXPECT_TOOL:-1} == 1 ]]; then
    echo "== installed program: opnn --version, opnn list"
    "$prefix/bin/opnn" --version
    "$prefix/bin/opnn" list >"$tmp/list.txt"
    grep -q ReduceSum "$tmp/list.txt" || { cat "$tmp/list.txt"; exit 1; }
fi

echo "== find_package(opnn) client"
cmake -S "$here" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_C_FLAGS="${CFLAGS:-}" -DCMAKE_EXE_LINKER_FLAGS="${LDFLAGS:-}" \
    >"$tmp/configure.log" || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
"$tmp/build/client"

echo "== pkg-config client"
export PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir opnn)
static=()
[[ -e $libdir/libopnn.so ]] || static=(--static)
# shellcheck disable=SC2046,SC2086
"$cc" -std=c11 -Wall -Wextra -Werror ${CFLAGS:-} $(pkg-config --cflags opnn) \
    "$here/client.c" -o "$tmp/client_pc" ${LDFLAGS:-} \
    $(pkg-config "${static[@]}" --libs opnn) -lm -Wl,-rpath,"$libdir"
"$tmp/client_pc"
echo "install test passed"
