#!/usr/bin/env bash
# The steps of configs/ha/README.md, as written there: node-a and node-b on one PostgreSQL
# server (scripts/postgresql/start.sh ha --port 17962, as the configs say), a leads and b
# waits, a reservation through ARB_SERVER=a,b, kill -9 of a, the same list on b, b's lease
# metrics; a started again waits as b's standby.
# Usage: ha_demo.sh ARBD ARB WORKDIR
set -u
arbd=$(realpath "$1") arb=$(realpath "$2") work=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
pids=()
trap 'kill -9 "${pids[@]}" 2>/dev/null; "$src/scripts/postgresql/stop.sh" ha >/dev/null 2>&1' EXIT
"$src/scripts/postgresql/start.sh" ha --port 17962 --clean >"$work/postgresql.out" 2>&1 ||
  { echo "FAIL - PostgreSQL: $(cat "$work/postgresql.out")"; exit 1; }
cd "$work" || exit 1  # the configs' data directories are relative
launch a "$arbd" --config "$src/configs/ha/node-a.toml"
grep -q "event=leader epoch=1" "$work/a.log" && pass "node-a leads" || fail "a: $(cat "$work/a.log")"
"$arbd" --config "$src/configs/ha/node-b.toml" >"$work/b.out" 2>"$work/b.log" &
b_pid=$!; pids+=("$b_pid")
wait_log "$work/b.log" "event=standby serving=vo-broker at 127.0.0.1:7421" &&
  pass "node-b waits, naming node-a" || fail "b: $(cat "$work/b.log")"
export ARB_SERVER=127.0.0.1:7421,127.0.0.1:7422 ARB_USER=alice ARB_TOKEN=alice-secret
check "reserve through a,b" 0 "$arb" -o json reserve --est now+1h --let now+6h --np 16 --dur-ref 1h
id=$(json_field "$out" id)
kill -9 "$a_pid"
check "list through a,b after a's death" 0 "$arb" -o json list
contains "$out" "\"$id\"" && pass "$id is there, on b" || fail "$id lost: $out"
metrics=$(curl -s 127.0.0.1:9472/metrics)
contains "$metrics" "arb_lease_serving 1" && contains "$metrics" "arb_lease_epoch 2" &&
  pass "b's metrics: serving, epoch 2" || fail "b's metrics: $(grep arb_lease_ <<<"$metrics")"
: >"$work/a.log"
"$arbd" --config "$src/configs/ha/node-a.toml" >"$work/a2.out" 2>"$work/a.log" &
pids+=("$!")
wait_log "$work/a.log" "event=standby serving=vo-broker at 127.0.0.1:7422" &&
  pass "node-a, started again, waits as b's standby" || fail "a: $(cat "$work/a.log")"
echo "# $fails failed"
[ "$fails" = 0 ]
