#!/usr/bin/env bash
# Issue 15's transport decision (docs/architecture.md, "Between processes"): in one run
# window, ROUNDS rounds each of build/bench/arb_bench_cluster_transport (the cluster protocol
# over caf_io and caf_openssl, and the CPU a half-open TLS handshake costs there and on the
# Asio server) and of build/bench/arb_bench_api's round trips (the msgpack protocol over
# Boost.Asio, plain and TLS: the other choice); the median and range of each figure, between
# two calibrations of the machine (CAF round trips/s).
#   bench/cluster_transport.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
build=${1:-build}
rounds=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/apps/arb-stress" --calibrate-only 2>/dev/null | grep calibration || true
for ((i = 0; i < rounds; ++i)); do
  "$build/bench/arb_bench_cluster_transport" --benchmark_format=json >"$work/caf-$i.json" 2>/dev/null
  "$build/bench/arb_bench_api" --benchmark_filter='loopback_round_trip' --benchmark_format=json \
    >"$work/asio-$i.json" 2>/dev/null
done
"$build/apps/arb-stress" --calibrate-only 2>/dev/null | grep calibration || true
python3 - "$work"/*.json <<'PY'
import json, statistics, sys
by = {}
for f in sys.argv[1:]:
    for b in json.load(open(f))["benchmarks"]:
        if b.get("run_type") != "iteration" or "error_message" in b: continue
        key = (b["run_name"], b.get("label", ""))
        v = b.get("items_per_second", b.get("cpu_per_s"))
        if v is not None: by.setdefault(key, []).append(v)
print(f"{'benchmark':62} {'median':>10}  range")
for (name, label), v in sorted(by.items()):
    unit = "/s" if "round_trip" in name else " CPU s/s"
    print(f"{name + ' ' + label:62} {statistics.median(v):10.3f}{unit}  {min(v):.3f}-{max(v):.3f} (n={len(v)})")
PY
