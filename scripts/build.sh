#!/usr/bin/env bash
# Configures and builds arbroker into build/ (or $ARB_BUILD_DIR). Two parallel jobs: a CAF
# translation unit needs up to 650 MB, and the reference machine has 2 cores. Arguments go
# to cmake's configure step; ARB_TARGETS="arbd arb" builds only those targets.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${ARB_BUILD_DIR:-build}
jobs=${ARB_JOBS:-$(nproc)}
# ccache, where installed (scripts/setup.sh installs it for the tests): a second build folder
# of the same tree (tests/minimal_build) compiles from the cache. Paths below the source
# tree are hashed relative to the build folder, and not the folder itself, so that build/
# and build-minimal/ share their objects.
launcher=()
if command -v ccache > /dev/null && ! grep -qs "^CMAKE_CXX_COMPILER_LAUNCHER:" "$build_dir/CMakeCache.txt"; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${ARB_BUILD_TYPE:-RelWithDebInfo}" \
  "${launcher[@]}" "$@"
targets=()
for t in ${ARB_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j "$jobs" "${targets[@]}"
