#!/usr/bin/env bash
# A CI-sized soak (issue 16): arbd on one simulated cluster, arb-soak reserving and cancelling
# at a steady 200 requests/s over 16 connections for 20 s of warm-up and 90 s measured. The
# node's RSS must not grow by more than 4 MiB/min (a least-squares slope over 3 s samples) and
# the median latency of `list` in the last third must stay within twice the first third's
# (or within 2 ms of it: below that it is noise).
# The cluster's retention is 0 s: finished reservations leave memory (and the store) at once.
# Usage: soak.sh ARBD ARB_SOAK WORKDIR
set -u
arbd=$1 soak=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cat >"$work/node.toml" <<'TOML'
[node]
name = "soak"
allow_plaintext = true  # loopback only
[[user]]
name = "alice"
token = "alice-secret"
[[cluster]]
name = "c1"
cpus = 256
retention = "0s"
TOML
coproc ARBD { exec "$arbd" --config "$work/node.toml" --data-dir "$work/data" --listen 127.0.0.1:0 \
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
