#!/usr/bin/env bash
# Replays side by side: for every config, RUNS rounds, each running every binary in turn
# (arb-sim --no-plots, its own output folder), with /usr/bin/time's wall seconds and peak RSS.
# Prints per config and binary the median and the range (min-max) of both, and the summary
# line of the last run (which must be the same for every binary: the same replay). The
# machine's calibration (CAF round trips/s, by the last binary's arb-stress beside it) before
# and after.
#
#   bench/replay_side_by_side.sh RUNS CONFIG... -- ARB_SIM...
#   bench/replay_side_by_side.sh 5 configs/experiments/perf_lublin_300k_heavy_replay.toml -- \
#       /tmp/arb-sim-old build/apps/arb-sim
set -euo pipefail
runs=$1
shift
configs=()
while (($#)) && [[ $1 != -- ]]; do configs+=("$1"); shift; done
shift
sims=("$@")
((${#sims[@]})) || { echo "no binaries after --" >&2; exit 2; }
stress=$(dirname "${sims[-1]}")/arb-stress
calibrate() { [[ -x $stress ]] && "$stress" --calibrate-only 2>/dev/null | grep calibration || true; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
calibrate
for config in "${configs[@]}"; do
  for ((r = 0; r < runs; r++)); do
    for i in "${!sims[@]}"; do
      /usr/bin/time -f "%e %M" -o "$work/time" "${sims[$i]}" --no-plots --no-progress \
        -o "$work/out$i" "$config" >"$work/line$i" 2>"$work/err"
      cat "$work/time" >>"$work/$(basename "$config").$i"
    done
  done
  echo "== $(basename "$config") ($runs runs)"
  for i in "${!sims[@]}"; do
    f=$work/$(basename "$config").$i
    secs=$(cut -d' ' -f1 "$f" | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f s (%.2f-%.2f)", v[int((NR + 1) / 2)], v[1], v[NR] }')
    mb=$(cut -d' ' -f2 "$f" | sort -n | awk '{ v[NR] = $1 / 1024 } END { printf "%d MB (%d-%d)", v[int((NR + 1) / 2)], v[1], v[NR] }')
    echo "  ${sims[$i]}: $secs, $mb"
    sed -E 's/; read [0-9.]+ s, replay [0-9.]+ s//; s/; output in .*//; s/^/    /' "$work/line$i"
  done
done
calibrate
