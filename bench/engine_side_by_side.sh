#!/usr/bin/env bash
# Measures the actor engine with arb-stress, two binaries side by side in one run window:
# for every workload, RUNS rounds, each running OLD then NEW, each run preceded by the
# machine's calibration (CAF round trips/s, measured by NEW with --calibrate-only, since an
# old binary may not calibrate itself). Prints per workload and binary the median and the
# range (min-max) of throughput, p99 latency and calibration, and the median throughput per
# 1000 calibration round trips. Every run must report 0 invariant violations.
#
#   bench/engine_side_by_side.sh OLD_ARB_STRESS NEW_ARB_STRESS [RUNS=5] [WORKLOAD...]
#
# OLD_ARGS and NEW_ARGS (environment) add options to one side; the word STORE in them becomes
# a fresh file for each run, the word PGSTORE a fresh schema (made before the run, dropped
# after) of the PostgreSQL database ARB_BENCH_POSTGRESQL names. The journal's durability,
# FULL against NORMAL, on one binary; then SQLite against PostgreSQL (the test server of
# scripts/postgresql/start.sh):
#   OLD_ARGS="--store STORE --store-sync normal" NEW_ARGS="--store STORE --store-sync full" \
#     bench/engine_side_by_side.sh build/apps/arb-stress build/apps/arb-stress 5 elastic200
#   ARB_BENCH_POSTGRESQL=$(scripts/postgresql/start.sh bench --port 17942) \
#   OLD_ARGS="--store STORE" NEW_ARGS="--store PGSTORE" \
#     bench/engine_side_by_side.sh build/apps/arb-stress build/apps/arb-stress 5 coreserve200
#
# Workloads: elastic200 elastic10k elastic10k_shared filling coreserve200 coreserve50 mli
# mixed gridjobs (default: the first six, the targets' rows; gridjobs is docs/performance.md's
# "Grid jobs" run). The commands are those of
# docs/performance.md.
set -euo pipefail
old=$1
new=$2
runs=${3:-5}
shift $(($# < 3 ? $# : 3))
workloads=("$@")
((${#workloads[@]})) || workloads=(elastic200 elastic10k elastic10k_shared filling coreserve200 coreserve50)

E="--mix 100,0,0,0,0,0 --spread-hours 720 --hot-share 0 --no-local-jobs --hold-seconds 1"
C="--mix 0,0,100,0,0,0 --spread-hours 720 --no-local-jobs --hold-seconds 1"
args_of() {
  case $1 in
    elastic200) echo "--clusters 16 --clients 200 --requests 50 $E" ;;
    elastic10k) echo "--clusters 16 --clients 10000 --requests 5 $E" ;;
    elastic10k_shared) echo "--clusters 16 --clients 10000 --requests 5 $E --clients-per-actor 100" ;;
    filling) echo "--clusters 16 --clients 10000 --requests 20 $E" ;;
    coreserve200) echo "--clusters 8 --clients 200 --requests 50 $C" ;;
    coreserve50) echo "--clusters 8 --clients 50 --requests 200 $C" ;;
    mli) echo "--clusters 16 --clients 200 --requests 50 $E --policy mli" ;;
    mixed) echo "--clusters 8 --clients 200 --requests 200" ;;
    gridjobs) echo "--clusters 16 --clients 10000 --requests 2 --mix 0,0,0,0,0,0,50,50" ;;
    *) echo "unknown workload $1" >&2; exit 2 ;;
  esac
}

# median and range of the numbers on stdin
stats() { sort -g | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.0f (%.0f-%.0f)", m, v[1], v[NR]}'; }
median() { sort -g | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.1f", m}'; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
for w in "${workloads[@]}"; do
  read -r -a a <<<"$(args_of "$w")"
  for ((i = 1; i <= runs; ++i)); do
    for which in old new; do
      bin=${!which}
      cal=$("$new" --calibrate-only --calibrate-seconds 1 | awk '/calibration:/ {print $2}')
      extra=()
      "$bin" --help | grep -q -- --calibrate-seconds && extra=(--calibrate-seconds 0)
      side_args=${which^^}_ARGS
      read -r -a side <<<"${!side_args:-}"
      schema=
      for k in "${!side[@]}"; do
        if [[ ${side[$k]} == STORE ]]; then side[$k]="$tmp/store-$w-$i-$which.db"; fi
        if [[ ${side[$k]} == PGSTORE ]]; then
          schema=bench_${w}_${i}_$which
          PGOPTIONS=--client-min-messages=warning psql "${ARB_BENCH_POSTGRESQL:?PGSTORE needs ARB_BENCH_POSTGRESQL}" -Xq \
            -c "DROP SCHEMA IF EXISTS $schema CASCADE" -c "CREATE SCHEMA $schema" >/dev/null
          side[$k]="$ARB_BENCH_POSTGRESQL?options=-csearch_path%3D$schema"
        fi
      done
      extra+=("${side[@]}")
      out=$("$bin" "${a[@]}" "${extra[@]}" 2>&1) || true
      thr=$(awk '/^throughput:/ {print $(NF-1)}' <<<"$out")
      p99=$(awk '$1 == "all" {print $5}' <<<"$out")
      viol=$(awk '/^invariant violations:/ {print $3}' <<<"$out")
      if [[ "$viol" != 0 ]]; then
        echo "$w $which run $i: invariant violations: ${viol:-none reported}" >&2
        echo "$out" | tail -20 >&2
        exit 1
      fi
      rm -f "$tmp"/store-*
      [[ -z $schema ]] || PGOPTIONS=--client-min-messages=warning psql "$ARB_BENCH_POSTGRESQL" -Xqc "DROP SCHEMA $schema CASCADE" >/dev/null
      echo "$thr" >>"$tmp/$w.$which.thr"
      echo "$p99" >>"$tmp/$w.$which.p99"
      echo "$cal" >>"$tmp/$w.$which.cal"
      awk -v t="$thr" -v c="$cal" 'BEGIN {print 1000 * t / c}' >>"$tmp/$w.$which.rel"
    done
  done
  for which in old new; do
    printf "%-18s %-3s requests/s %-22s p99 ms %-18s calibration %-24s per 1000 round trips %s\n" \
      "$w" "$which" "$(stats <"$tmp/$w.$which.thr")" "$(sort -g "$tmp/$w.$which.p99" | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.1f (%.1f-%.1f)", m, v[1], v[NR]}')" \
      "$(stats <"$tmp/$w.$which.cal")" "$(median <"$tmp/$w.$which.rel")"
  done
done
