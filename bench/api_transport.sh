#!/usr/bin/env bash
# What TLS, hashed tokens and HTTP/JSON cost on the API: round trips at 1 and 32 requests in
# flight (msgpack and HTTP, plain and TLS) and logins, in one run of build/bench/arb_bench_api
# (repetitions interleaved by Google Benchmark), reported as the median of the repetitions with
# their range, beside the machine's calibration (CAF round trips/s from arb-stress).
#   bench/api_transport.sh [BUILD_DIR] [REPETITIONS]
set -euo pipefail
build=${1:-build}
reps=${2:-5}
"$build/apps/arb-stress" --calibrate-only 2>/dev/null | grep calibration || true
out=$(mktemp)
"$build/bench/arb_bench_api" --benchmark_repetitions="$reps" --benchmark_enable_random_interleaving=true \
  --benchmark_filter='round_trip|login' --benchmark_format=json >"$out" 2>/dev/null
"$build/apps/arb-stress" --calibrate-only 2>/dev/null | grep calibration || true
python3 - "$out" <<'PY'
import json, statistics, sys
runs = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("run_type") == "iteration"]
by = {}
for b in runs:
    if "items_per_second" not in b:
        print("skipped:", b["run_name"], b.get("error_message", "")); continue
    by.setdefault((b["run_name"], b.get("label", "")), []).append(b["items_per_second"])
print(f"{'benchmark':58} {'median/s':>10}  range")
for (name, label), v in sorted(by.items()):
    print(f"{name + ' ' + label:58} {statistics.median(v):10.0f}  {min(v):.0f}-{max(v):.0f}  (n={len(v)})")
PY
rm -f "$out"
