#!/usr/bin/env bash
# Replay speed against a plain EASY reference (issue 14; docs/performance.md, "Replay speed
# against a plain EASY reference"). For every trace, RUNS rounds in one run window, each
# running the reference (bench/easy_reference.py --loose: Python, no engine) and then arb-sim
# (the engine: GIS, broker and cluster service actors on CAF's test coordinator, a simulated
# LRMS with EASY backfilling) on the same jobs: arb-sim's loose soundness, walltime rule kill,
# the trace's MaxProcs, no reservations. Prints per trace the median and range (min-max) of
# the replay time (without reading the trace) and of the whole process, the ratios of the
# medians, and fails if the two mean waits differ (both must simulate the same schedule).
# Each round starts with the machine's calibration (CAF round trips/s, arb-stress).
#
#   bench/replay_vs_reference.sh [RUNS=5] [TRACE...]
#
# TRACE: file names in ARB_TRACES_DIR (default traces/ in the checkout; all of
# its *.swf and *.swf.gz when none is given). ARB_BUILD_DIR: the build (default build).
# ARB_BASELINE_SIM: another arb-sim (an older build) to time side by side: each round runs it
# right after the engine, and a second line per trace gives its medians and ratios.
# ARB_PYTHON: the reference's interpreter (default python3; pypy3 for Debian's PyPy).
# ARB_NEIGHBOUR_SECONDS: runs bench/memory_churn.py (a noisy neighbour that fragments the
# kernel's free memory) in the background for that long, to see how both programs fare.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${ARB_BUILD_DIR:-$here/build}
traces_dir=${ARB_TRACES_DIR:-$here/traces}
runs=${1:-5}
shift $(($# < 1 ? $# : 1))
traces=("$@")
if ((${#traces[@]} == 0)); then
  for f in "$traces_dir"/*.swf "$traces_dir"/*.swf.gz; do [[ -e $f ]] && traces+=("$(basename "$f")"); done
fi
# The interpreter itself, not a wrapper in front of it (pyenv's shim adds about 0.4 s to every
# start, which would flatter the engine's process ratio). ARB_PYTHON names another (pypy3: the
# reference under a JIT, issue 38).
python=$("${ARB_PYTHON:-python3}" -c 'import sys; print(sys.executable)')
sim=$build/apps/arb-sim
stress=$build/apps/arb-stress
for exe in "$sim" "$stress"; do
  [[ -x $exe ]] || { echo "missing $exe: run scripts/build.sh" >&2; exit 2; }
done
baseline=${ARB_BASELINE_SIM:-}
[[ -z $baseline || -x $baseline ]] || { echo "ARB_BASELINE_SIM: $baseline is not executable" >&2; exit 2; }
export ARB_TRACES_DIR=$traces_dir  # arb-sim finds the trace there
work=$(mktemp -d)
neighbour=
trap 'rm -rf "$work"; [[ -z $neighbour ]] || kill "$neighbour" 2>/dev/null || true' EXIT
if [[ -n ${ARB_NEIGHBOUR_SECONDS:-} ]]; then
  "$python" "$here/bench/memory_churn.py" "$ARB_NEIGHBOUR_SECONDS" &
  neighbour=$!
fi

# median and range of the numbers on stdin: "median (min-max)"
stats() { sort -g | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.3f (%.3f-%.3f)", m, v[1], v[NR]}'; }
median() { sort -g | awk '{v[NR]=$1} END {print NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
# ratio of the medians of two files of numbers
ratio() { echo "$(median <"$work/$1") $(median <"$work/$2")" | awk '{printf "%.1f", $1 / $2}'; }
# The wall time of a command (seconds) into $work/$1.wall, its output into $work/$1.out. The
# clock is bash's own (no `date` process around the command, which would add its start-up to
# both programs' times and so flatten the ratio).
timed() {
  local tag=$1
  shift
  local t0 t1
  t0=$EPOCHREALTIME
  "$@" >"$work/$tag.out"
  t1=$EPOCHREALTIME
  echo "$t0 $t1" | awk '{printf "%.4f\n", $2 - $1}' >"$work/$tag.wall"
}

printf "%-32s %8s %6s | %-23s %-23s %6s | %-23s %-23s %6s\n" trace jobs MWT \
  "reference replay s" "engine replay s" ratio "reference process s" "engine process s" ratio
status=0
for t in "${traces[@]}"; do
  # (zcat stops with SIGPIPE once grep has the header line)
  cpus=$( (zcat -f "$traces_dir/$t" || true) | grep -m1 -i '^; *MaxProcs:' | awk -F: '{print $2 + 0}')
  cat >"$work/run.toml" <<EOF
experiment = "replay"
name = "ref"
[workload]
source = "swf"
trace = "$t"
jobs = 0
soundness = "loose"
walltime_rule = "kill"
[cluster]
name = "c"
cpus = $cpus
scheduler = "easy"
[requests]
group_size = 1         # 1: no job becomes a request
[reservations]
book_ahead_h = 2
time_range_h = 10
EOF
  : >"$work/cal" >"$work/rr" >"$work/er" >"$work/rp" >"$work/ep" >"$work/br" >"$work/bp"
  for ((i = 0; i < runs; ++i)); do
    "$stress" --calibrate-only --calibrate-seconds 1 | awk '/calibration:/ {print $2}' >>"$work/cal"
    timed ref "$python" "$here/bench/easy_reference.py" --loose "$traces_dir/$t"
    timed eng "$sim" --no-plots --no-progress -o "$work/out" "$work/run.toml"
    sed -n 's/.*, replay \([0-9.]*\) s,.*/\1/p' "$work/ref.out" >>"$work/rr"
    sed -n 's/.* replay \([0-9.]*\) s;.*/\1/p' "$work/eng.out" >>"$work/er"
    cat "$work/ref.wall" >>"$work/rp"
    cat "$work/eng.wall" >>"$work/ep"
    if [[ -n $baseline ]]; then
      timed base "$baseline" --no-plots --no-progress -o "$work/out" "$work/run.toml"
      sed -n 's/.* replay \([0-9.]*\) s;.*/\1/p' "$work/base.out" >>"$work/br"
      cat "$work/base.wall" >>"$work/bp"
    fi
  done
  jobs=$(sed -n 's/.* \([0-9]*\) jobs, walltime.*/\1/p' "$work/ref.out")
  mwt_ref=$(sed -n 's/.*MWT \([0-9]*\) s.*/\1/p' "$work/ref.out")
  mwt_eng=$(sed -n 's/.*(mean wait \([0-9.]*\) s).*/\1/p' "$work/eng.out" | awk '{printf "%.0f", $1}')
  if [[ $mwt_ref != "$mwt_eng" ]]; then
    echo "$t: the mean waits differ: reference $mwt_ref s, engine $mwt_eng s" >&2
    status=1
  fi
  printf "%-32s %8s %6s | %-23s %-23s %6s | %-23s %-23s %6s\n" "$t" "$jobs" "$mwt_ref" \
    "$(stats <"$work/rr")" "$(stats <"$work/er")" "$(ratio rr er)" \
    "$(stats <"$work/rp")" "$(stats <"$work/ep")" "$(ratio rp ep)"
  if [[ -n $baseline ]]; then
    printf "%-32s %8s %6s | %-23s %-23s %6s | %-23s %-23s %6s\n" "  baseline" "" "" "" \
      "$(stats <"$work/br")" "$(ratio rr br)" "" "$(stats <"$work/bp")" "$(ratio rp bp)"
  fi
  printf "%-32s calibration %s CAF round trips/s\n" "" \
    "$(sort -g "$work/cal" | awk '{v[NR]=$1} END {printf "%.0f (%.0f-%.0f)", v[int((NR+1)/2)], v[1], v[NR]}')"
done
exit $status
