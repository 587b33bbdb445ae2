#!/usr/bin/env bash
# The long soak of issue 16: a real arbd (one simulated cluster of 256 CPUs, a store with the
# default 30-day history) under arb-soak's steady load, reserving and cancelling over many
# connections, then idle. Prints arb-soak's samples and summary: RSS slope, list and
# history-page latency at the start and the end, reserve/cancel p50/p99/p99.9/max, idle CPU.
#   bench/soak.sh [BUILD_DIR] [SECONDS] [RATE] [CONNECTIONS]      (defaults: build 1800 300 64)
set -euo pipefail
build=${1:-build}
seconds=${2:-1800}
rate=${3:-300}
connections=${4:-64}
work=$(mktemp -d)
trap 'kill -TERM "$ARBD_PID" 2>/dev/null; wait "$ARBD_PID" 2>/dev/null; rm -rf "$work"' EXIT
"$build/apps/arb-stress" --calibrate-only 2>/dev/null | grep calibration || true
coproc ARBD { exec "$build/apps/arbd" --config "$(dirname "$0")/../tests/soak/node.toml" --data-dir "$work/data" \
  --listen 127.0.0.1:0 --metrics "" --log-level warn 2>>"$work/arbd.log"; }
read -r word port _ <&"${ARBD[0]}"
[ "${word:-}" = ready ] || { echo "arbd did not start: $(cat "$work/arbd.log")"; exit 1; }
"$build/apps/arb-soak" --server "127.0.0.1:$port" --pid "$ARBD_PID" --user alice \
  --token alice-secret --rate "$rate" --connections "$connections" --warmup 60 \
  --duration "$seconds" --sample 10 --idle 60 || true
echo "store: $(du -h "$work/data/arbroker.db" | cut -f1) ($(ls "$work/data"))"
"$build/apps/arb-stress" --calibrate-only 2>/dev/null | grep calibration || true
