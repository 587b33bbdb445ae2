#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs every test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
build_dir=${ARB_BUILD_DIR:-build}
ctest --test-dir "$build_dir" --output-on-failure -j "${ARB_JOBS:-$(nproc)}" "$@"
