#!/usr/bin/env bash
# Builds the executables of an earlier release from this clone's history, for the tests that
# run them against this build (tests/compat/README.md): a release's arb, arbd and arb-agent,
# exactly as they were at its commit.
#
#   build_release.sh SOURCE_DIR COMMIT OUT_DIR
#
# OUT_DIR/src is the commit's tree (git archive), OUT_DIR/src/build/apps/ its executables.
# scripts/build.sh hashes paths relative to the tree, so every file the release shares with
# this one compiles from ccache. A clone without the commit (a shallow one) fails, naming it.
set -euo pipefail
src=$1 commit=$2 out=$3
if ! git -C "$src" cat-file -e "$commit^{commit}" 2>/dev/null; then
  echo "FAIL - this clone has no commit $commit (the release the compatibility tests run):" \
    "a shallow clone? git fetch --unshallow" >&2
  exit 1
fi
stamp=$out/src/.commit
if [[ ! -f $stamp || $(cat "$stamp") != "$commit" || ! -x $out/src/build/apps/arb-agent ]]; then
  rm -rf "$out/src"
  mkdir -p "$out/src"
  git -C "$src" archive "$commit" | tar -x -C "$out/src"
  echo "$commit" > "$stamp"
fi
# The release's build script, with its defaults; only the executables the tests run.
(cd "$out/src" && ARB_TARGETS="arb arbd arb-agent" scripts/build.sh -DARB_BUILD_TESTS=OFF \
  -DARB_BUILD_BENCH=OFF > "$out/build.log" 2>&1) ||
  { tail -n 30 "$out/build.log"; echo "FAIL - building $commit"; exit 1; }
"$out/src/build/apps/arb" --version
