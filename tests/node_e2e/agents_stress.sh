#!/usr/bin/env bash
# arb-stress across processes: M arb-agent processes (4 simulated clusters each, their own
# stores) and N arb-stress processes, each a broker node of its own with its own clients,
# firing the contended mix (elastic, holds, co-reservations across agents, cancels, modifies,
# what-ifs) at the same clusters at once. Every broker process checks its replies and the
# agents' statuses while it runs; then one more arb-stress process, an admin broker at the
# agents, audits their settled ledgers against what every broker process told its clients:
# no overbooking (LRMS reservations + running jobs within the CPUs at every instant), no hold
# past its expiry, LRMS = live reservations, every acknowledged reservation there once and
# nothing else committed (no partial co-reservation, nothing lost, nothing double-booked).
# Usage: agents_stress.sh ARB_STRESS ARB_AGENT WORKDIR [BROKERS AGENTS CLIENTS REQUESTS]
set -u
stress=$1 agent_bin=$2 work=$3
brokers=${4:-3} agents=${5:-2} clients=${6:-150} requests=${7:-8}
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; }
trap cleanup EXIT

names=$(for b in $(seq 1 "$brokers"); do printf '"stress%s", ' "$b"; done)
specs=()
for a in $(seq 0 $((agents - 1))); do
  {
    printf '[node]\nname = "a%s"\ndata_dir = "%s"\nlog_level = "warn"\n' "$a" "$work/a$a-data"
    printf '[agent]\nlisten = "127.0.0.1:0"\nallow_plaintext = true\n'
    printf 'brokers = [%s]\nadmin_brokers = ["auditor"]\n' "${names%, }"
    # As arb-stress's own clusters: sizes and speeds vary; a quarter busy for up to an hour
    # and a queue of local work behind it (Local-Jobs-Preferred has something to protect).
    cpus=(64 128 256 96) pp=(1000 1500 2000 1200)
    for c in 0 1 2 3; do
      n=${cpus[$c]}
      printf '[[cluster]]\nname = "a%sc%s"\ncpus = %s\npp = %s\nbunch = 4\nname_prefix = "arb-"\n' \
        "$a" "$c" "$n" "${pp[$c]}"
      printf 'local_jobs = [{np = %s, walltime = 3600, runtime = 3000}, ' $((n / 4))
      printf '{np = %s, walltime = 1800, runtime = 1800}, {np = %s, walltime = 1800, runtime = 1200}]\n' \
        $((n / 2)) "$n"
    done
  } >"$work/a$a.toml"
  launch "a$a" "$agent_bin" --config "$work/a$a.toml"
  specs+=(--agent "127.0.0.1:$(cut -d' ' -f2 <<<"$ready_line")=a${a}c0,a${a}c1,a${a}c2,a${a}c3")
done

# The broker processes at once, each with its own seed (its own mix), the same hot clusters.
started=$(date +%s%N)
runs=()
for b in $(seq 1 "$brokers"); do
  "$stress" "${specs[@]}" --name "stress$b" --seed "$b" --clients "$clients" \
    --requests "$requests" --hold-seconds 2 --calibrate-seconds 0 --stall-seconds 120 \
    --report "$work/stress$b.ids" >"$work/stress$b.out" 2>&1 &
  runs+=("$!")
done
for b in $(seq 1 "$brokers"); do
  wait "${runs[$((b - 1))]}"; rc=$?
  if [ "$rc" -eq 0 ]; then pass "broker process stress$b: no violation it could see"; else
    fail "broker process stress$b (exit $rc): $(tail -n 25 "$work/stress$b.out")"; fi
  grep -E "^ +all |^throughput|^failures" "$work/stress$b.out" | sed "s/^/  stress$b: /"
done
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
total=$(awk '/^throughput:/ { n += $2 } END { print n + 0 }' "$work"/stress*.out)
echo "  $brokers broker processes x $agents agents: $total requests in $elapsed_ms ms"

check "the audit of the agents' ledgers" 0 "$stress" "${specs[@]}" --name auditor --audit \
  --hold-seconds 2 --calibrate-seconds 0 $(for b in $(seq 1 "$brokers"); do
    printf -- '--expect %s ' "$work/stress$b.ids"; done)
echo "$out" | grep -E "^audit|violation" | sed 's/^/  /'
n=$(sed -n 's/^audit of .*: \([0-9]*\) reservations acknowledged.*/\1/p' <<<"$out")
[ "${n:-0}" -gt 0 ] && pass "... of $n acknowledged reservations" ||
  fail "no reservation was acknowledged: the run proved nothing"

# The audit can fail: without one broker process's word, its reservations are unaccounted.
if [ "$brokers" -gt 1 ]; then
  check "the audit misses what one broker process acknowledged" 1 "$stress" "${specs[@]}" \
    --name auditor --audit --hold-seconds 2 --calibrate-seconds 0 --expect "$work/stress1.ids"
  contains "$out" "violation (settled)" && pass "... and names the reservations" ||
    fail "audit without reports: $out"
fi

# Another broker is not let in; the admin broker's audit needs the agents' word for it.
check "an unlisted broker is refused" 2 "$stress" "${specs[@]}" --name intruder --audit \
  --calibrate-seconds 0
contains "$(cat "$work/stderr")" "not a broker this agent serves" && pass "... and told why" ||
  fail "intruder: $(cat "$work/stderr")"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
