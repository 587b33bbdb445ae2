#!/usr/bin/env bash
# The Python client as a user gets it: installed with pip from the repository into a fresh
# venv (offline: Debian's setuptools through --system-site-packages), then its tests run
# with that venv's Python, from outside the source tree, against a real arbd.
# Usage: run.sh ARBD SOURCE_DIR WORKDIR
set -euo pipefail
arbd=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
# From a copy: setuptools builds in the folder it is given (build/, *.egg-info).
cp -r "$src/clients/python" "$work/package"
"$work/venv/bin/pip" install --quiet --no-index --no-build-isolation "$work/package" \
  >"$work/pip.log" 2>&1 || { cat "$work/pip.log"; exit 1; }
cd "$work"
ARBD=$arbd ARB_EXPECT_INSTALLED="$src/clients/python" \
  "$work/venv/bin/python" -m unittest discover -v -s "$src/clients/python/tests"
