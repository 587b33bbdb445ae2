#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and runs the main job, a
# broker node (arbd) on the embedded simulated grid. It shows the node at work with a few
# `arb` commands, then keeps serving on 127.0.0.1:7400 (metrics on :9464) until Ctrl-C.
# ARB_RUN_ONCE=1 stops it after the demonstration. Extra arguments go to arbd.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --demo  # no test frameworks, no batch systems
build_dir=${ARB_BUILD_DIR:-build}
# Only the node and its client; without the tests' packages unless a full build is there.
lean=(-DARB_BUILD_TESTS=OFF -DARB_BUILD_BENCH=OFF)
grep -qs "ARB_BUILD_TESTS:BOOL=ON" "$build_dir/CMakeCache.txt" && lean=()
ARB_TARGETS="arbd arb" scripts/build.sh "${lean[@]}"
arbd=$build_dir/apps/arbd
arb=$build_dir/apps/arb

coproc ARBD { exec "$arbd" --data-dir "${ARB_DATA_DIR:-$build_dir/arbd-data}" "$@"; }
arbd_pid=$ARBD_PID
trap 'kill -TERM "$arbd_pid" 2>/dev/null; wait "$arbd_pid"' INT TERM
read -r word port mport hport <&"${ARBD[0]}" || true   # "ready <api> <metrics> <http> ports"
if [ "${word:-}" != ready ]; then
  wait "$arbd_pid"
  exit 1
fi

export ARB_SERVER=127.0.0.1:$port ARB_USER=alice ARB_TOKEN=alice-secret
show() { echo; echo "\$ arb $*"; "$arb" "$@" || true; }
show clusters
show reserve --est now+1h --let now+12h --np 8 --runtime 2h
show reserve --est now+1h --let now+12h --np 4-32 --runtime 2h --pp-ref 1500 --np-ref 8 \
  --speedup amdahl:0.01 --prefer end,cost
show coreserve --est now+2h --let now+14h -c 'np=8;dur=1h;np-ref=8;pp-ref=1500' \
  -c 'np=16;dur=1h;np-ref=16;pp-ref=1500'
show estimate --np 32 --walltime 2h
show list
echo
echo "arbd is serving on 127.0.0.1:$port (metrics: http://127.0.0.1:$mport/metrics)."
echo "HTTP/JSON API: curl -H 'X-Arb-User: alice' -H 'Authorization: Bearer alice-secret' \\"
echo "  -H 'Content-Type: application/json' -d '{}' http://127.0.0.1:$hport/v1/clusters"
echo "  (the API's document: http://127.0.0.1:$hport/v1/openapi.json)"
echo "Web console: http://127.0.0.1:$hport/ (alice / alice-secret); changes as they happen:"
echo "  ARB_SERVER=127.0.0.1:$port ARB_USER=alice ARB_TOKEN=alice-secret $arb watch"
echo "Try: ARB_SERVER=127.0.0.1:$port ARB_USER=bob ARB_TOKEN=bob-secret $arb --help"
if [ "${ARB_RUN_ONCE:-0}" = 1 ]; then
  kill -TERM "$arbd_pid"
  wait "$arbd_pid"
  exit $?
fi
echo "Ctrl-C stops it."
wait "$arbd_pid"
