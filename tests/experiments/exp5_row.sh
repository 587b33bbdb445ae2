#!/usr/bin/env bash
# Experiment 5's table in docs/experiments.md against a fresh run: runs the experiment (with
# its own config, or with extra [grid] lines) and checks that the table's row LABEL shows the
# run's figures for STRATEGY (mean TTD, p95 TTD, mean wait, calls per job, local mean wait,
# refused, failed, and the workflows' mean makespan where the row has one). Fails naming the
# figure that differs.
#
#   tests/experiments/exp5_row.sh ARB_SIM TRACES_DIR OUT_DIR STRATEGY "LABEL" [GRID_LINE...]
set -euo pipefail
sim=$1 traces=$2 out=$3 strategy=$4 label=$5
shift 5
here=$(cd "$(dirname "$0")/../.." && pwd)
config=$here/configs/experiments/exp5_grid_jobs.toml
rm -rf "$out" && mkdir -p "$out"
if (($#)); then  # the extra lines go right after [grid]
  awk -v extra="$(printf '%s\n' "$@")" '{print} /^\[grid\]$/ {print extra}' "$config" \
    >"$out/exp5.toml"
  config=$out/exp5.toml
fi
"$sim" --no-plots --no-progress --traces "$traces" -o "$out/run" "$config" >"$out/run.log"
csv=$out/run/exp5_grid_jobs/summary.csv
row=$(awk -F, -v s="$strategy" '$1 == s' "$csv")
[[ -n $row ]] || { echo "no strategy '$strategy' in $csv" >&2; exit 1; }
IFS=, read -r _ _ _ refused ttd p95 wait _ _ _ calls _ local failed _ _ _ makespan _ <<<"$row"
doc=$(grep -F "| $label |" "$here/docs/experiments.md" | head -1)
[[ -n $doc ]] || { echo "no row '| $label |' in docs/experiments.md" >&2; exit 1; }
IFS='|' read -r -a cells <<<"$doc"
trim() { sed 's/^ *//; s/ *$//' <<<"$1"; }
status=0
check() {  # name, the cell's index in the row, the run's value
  local cell
  cell=$(trim "${cells[$2]}")
  if [[ $cell != "$3" ]]; then
    echo "$label: $1 is $cell in docs/experiments.md, $3 in a fresh run" >&2
    status=1
  fi
}
check "mean TTD" 2 "$ttd"
check "p95 TTD" 3 "$p95"
check "mean wait" 4 "$wait"
check "calls per job" 8 "$calls"
check "local mean wait" 9 "$local"
check "refused" 10 "$refused"
check "failed" 11 "$failed"
[[ $(trim "${cells[12]:-}") == - ]] || check "workflow makespan" 12 "$makespan"
((status == 0)) && echo "$label: as in docs/experiments.md ($(grep -o 'admission [^;]*' "$out/run.log"))"
exit $status
