#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs every test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh -DARB_BUILD_TESTS=ON -DARB_BUILD_BENCH=ON  # after run.sh's lean build too
build_dir=${ARB_BUILD_DIR:-build}
ctest --test-dir "$build_dir" --output-on-failure -j "${ARB_JOBS:-$(nproc)}" "$@"
