#!/usr/bin/env bash
# The Python client as a user gets it: installed with pip from the repository into a fresh
# venv (offline: Debian's setuptools through --system-site-packages), then its tests run
# with that venv's Python, from outside the source tree, against a real arbd.
# Usage: run.sh ARBD SOURCE_DIR WORKDIR
set -euo pipefail
arbd=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
# From the tree, as the README says: setuptools builds in the folder it is given (build/,
# *.egg-info), which .gitignore names, so the tree stays clean.
"$work/venv/bin/pip" install --quiet --no-index --no-build-isolation "$src/clients/python" \
  >"$work/pip.log" 2>&1 || { cat "$work/pip.log"; exit 1; }
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  left=$(git -C "$src" status --porcelain --untracked-files=all -- clients/python)
  [[ -z $left ]] || { echo "FAIL: pip install left files in the tree:"; echo "$left"; exit 1; }
fi
cd "$work"
ARBD=$arbd ARB_EXPECT_INSTALLED="$src/clients/python" \
  "$work/venv/bin/python" -m unittest discover -v -s "$src/clients/python/tests"
