#!/usr/bin/env bash
# Runs the fuzzer for a short time from the committed seeds (CI) or longer by hand:
#   run_fuzzer.sh <fuzzer binary> <seed dir> <work dir> [seconds]
set -euo pipefail
fuzzer=$1
seeds=$2
work=$3
seconds=${4:-20}
mkdir -p "$work/corpus"
# The seeds stay untouched; new inputs go to the work corpus.
exec "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=8192 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" "$seeds"
