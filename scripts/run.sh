#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and runs the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
build_dir=${ARB_BUILD_DIR:-build}
exec "$build_dir/apps/arb-demo" --config configs/examples/demo.toml "$@"
