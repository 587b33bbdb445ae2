#!/usr/bin/env bash
# End to end over loopback, paper 002's overrun quanta (Sec. 5.3): a real arbd with one
# simulated cluster that grants `overrun_quantum`, the arb CLI. A job bound to a short
# reservation is still running `overrun_notice` before its end, so the reservation is
# extended in place by one quantum: `arb show` tells the new end, `arb status` and /metrics
# count the quantum, and after a restart the reservation keeps its new end.
# Usage: overrun_e2e.sh ARBD ARB WORKDIR
set -u
arbd=$1 arb=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/checks.sh"

cat >"$work/node.toml" <<TOML
[node]
allow_plaintext = true  # loopback only
name = "overrun-e2e"
$(users_toml alice)
[[cluster]]
name = "sim"
cpus = 4
pp = 1000
ljp = "off"
overrun_quantum = "30s"
overrun_notice = "2s"
overrun_max = 1
TOML

as_alice() { env ARB_USER=alice ARB_TOKEN=alice-secret "$arb" "$@"; }

start_arbd --config "$work/node.toml" --poll 1
# It starts 3 s from now: the commit comes before the start, so the job's 5 s fit however
# long the two calls take (from `now` they would not once a second boundary fell between them).
check "alice reserves the cluster for 5 s" 0 as_alice -o json reserve --est now+3s --let now+5m \
  --np 4 --np-ref 4 --pp-ref 1000 --dur-ref 5s
id=$(json_field "$out" id)
start=$(json_number "$out" start)
end=$(json_number "$out" end)
[ -n "$id" ] && [ -n "$end" ] && [ $((end - start)) -eq 5 ] && pass "granted ($id: $start-$end)" \
  || fail "no 5 s grant: $out"
check "a job that runs to the end is bound to it" 0 as_alice commit "$id" --np 4 --walltime 5s

# The service looks 2 s before the end and finds the job running: one quantum of 30 s.
extended=
for _ in $(seq 1 300); do  # at most 30 s of polls, 0.1 s apart
  out=$(as_alice -o json show "$id" 2>&1)
  e=$(json_number "$out" end)
  if [ -n "$e" ] && [ "$e" -gt "$end" ]; then extended=$e; break; fi
  sleep 0.1
done
[ "$extended" = $((end + 30)) ] && pass "the reservation ends one quantum later ($end -> $extended)" \
  || fail "not extended: $out"
check "status" 0 as_alice -o json status
[ "$(json_number "$out" overruns)" = 1 ] && pass "status counts the quantum" || fail "status: $out"
granted='arb_reservation_overruns_total{cluster="sim",outcome="granted"} 1'
for _ in $(seq 1 100); do  # /metrics polls the clusters every second (--poll 1): at most 10 s
  exec 6<>"/dev/tcp/127.0.0.1/$mport"
  printf 'GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n' >&6
  metrics=$(cat <&6); exec 6>&-
  contains "$metrics" "$granted" && break
  sleep 0.1
done
contains "$metrics" "$granted" && pass "/metrics counts it" \
  || fail "metrics: $(grep overrun <<<"$metrics")"

stop_arbd
start_arbd --config "$work/node.toml" --poll 1
check "after a restart" 0 as_alice -o json show "$id"
[ "$(json_number "$out" end)" = "$extended" ] && pass "the new end survives a restart" \
  || fail "after restart: $out"
stop_arbd

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
