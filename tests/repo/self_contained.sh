#!/usr/bin/env bash
# repo.self_contained: no tracked file names a path beside the repository (a folder next to a
# clone is not part of it), so a plain clone builds and tests with nothing beside it.
#   tests/repo/self_contained.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: self_contained.sh SOURCE_DIR}
cd "$src"
# The pattern is built from parts so that this script does not find itself.
beside='\.\./'"shared"'|/work/'"shared"'|'"shared"'/(traces|notes|papers)'
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files() { git ls-files -z; }
else
  files() { find . -path ./build -prune -o -type f -print0; }
fi
# -I: the traces are data (a .swf is text, but no path in it is ours).
hits=$(files | grep -zv '^traces/' | xargs -0 grep -InE "$beside" -- 2>/dev/null || true)
if [[ -n $hits ]]; then
  echo "FAIL: tracked files name a path beside the repository:"
  echo "$hits"
  exit 1
fi
# Every trace the build reads is in the repository, as its checksum says.
(cd traces && sha256sum --quiet -c SHA256SUMS) || { echo "FAIL: traces/SHA256SUMS"; exit 1; }
echo "self-contained: $(files | tr -cd '\0' | wc -c) tracked files, $(wc -l <traces/SHA256SUMS) traces checked"
