#!/usr/bin/env bash
# Configures and builds arbroker into build/ (or $ARB_BUILD_DIR). Two parallel jobs: a CAF
# translation unit needs up to 650 MB, and the reference machine has 2 cores. Arguments go
# to cmake's configure step; ARB_TARGETS="arbd arb" builds only those targets.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${ARB_BUILD_DIR:-build}
jobs=${ARB_JOBS:-$(nproc)}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${ARB_BUILD_TYPE:-RelWithDebInfo}" "$@"
targets=()
for t in ${ARB_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j "$jobs" "${targets[@]}"
