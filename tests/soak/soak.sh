#!/usr/bin/env bash
# A CI-sized soak (issue 16): arbd on one simulated cluster, arb-soak reserving and cancelling
# at a steady 200 requests/s over 16 connections for 20 s of warm-up and 90 s measured. The
# node's RSS must not grow by more than 4 MiB/min (a least-squares slope over 3 s samples) and
# the median latency of `list` in the last third (each sample the fastest of 5 calls) must stay
# within twice the first third's (or within 2 ms of it: below that it is noise). ctest runs it
# alone (RUN_SERIAL).
# The cluster keeps its default retention (30 days of history): finished reservations leave
# memory at once and stay in the store, so the history grows on disk, never in memory.
# Usage: soak.sh ARBD ARB_SOAK WORKDIR
set -u
arbd=$1 soak=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
coproc ARBD { exec "$arbd" --config "$(dirname "$0")/node.toml" --data-dir "$work/data" --listen 127.0.0.1:0 \
  --metrics "" --log-level warn 2>>"$work/arbd.log"; }
read -r word port _ <&"${ARBD[0]}"
[ "${word:-}" = ready ] || { echo "FAIL - arbd did not start: $(cat "$work/arbd.log")"; exit 1; }
"$soak" --server "127.0.0.1:$port" --pid "$ARBD_PID" --user alice --token alice-secret \
  --rate 200 --connections 16 --warmup 20 --duration 90 --sample 3 \
  --max-rss-slope 4 --max-latency-growth 2
rc=$?
kill -TERM "$ARBD_PID"; wait "$ARBD_PID"; stopped=$?
[ "$stopped" -eq 0 ] || { echo "FAIL - arbd exit $stopped: $(tail -n 5 "$work/arbd.log")"; exit 1; }
[ "$rc" -eq 0 ] && echo "ok   - flat memory and list latency" || echo "FAIL - soak (exit $rc)"
exit "$rc"
