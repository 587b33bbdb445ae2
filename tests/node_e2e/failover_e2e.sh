#!/usr/bin/env bash
# Two arbd on one PostgreSQL store (issue 36): the first holds the store's lease and serves,
# the second waits as a standby. Killed (kill -9), the leader is replaced by the standby
# within the lease's term plus its recovery, with every acknowledged reservation there.
# Paused (SIGSTOP), the leader is replaced the same way, and when it is continued it steps
# down (exit 75) instead of serving or writing.
# Usage: failover_e2e.sh ARBD ARB WORKDIR POSTGRESQL_URI
set -u
arbd=$1 arb=$2 work=$3 server=$4
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
pids=()
trap 'kill -9 "${pids[@]}" 2>/dev/null; kill -CONT "${pids[@]}" 2>/dev/null' EXIT

schema=failover_$$
PGOPTIONS=--client-min-messages=warning psql "$server" -Xq \
  -c "DROP SCHEMA IF EXISTS $schema CASCADE" -c "CREATE SCHEMA $schema" ||
  { echo "FAIL - cannot make a schema on $server"; exit 1; }
store="$server?options=-csearch_path%3D$schema"
term=3
{
  printf '[node]\nname = "ha"\nallow_plaintext = true\nlease = %d\nstore = "%s"\n' "$term" "$store"
  users_toml alice admin
  printf '[[cluster]]\nname = "c1"\ncpus = 64\n[[cluster]]\nname = "c2"\ncpus = 64\n'
} >"$work/node.toml"
node() {  # NAME: one arbd of the pair, its data and logs its own
  exec "$arbd" --config "$work/node.toml" --data-dir "$work/$1-data" --listen 127.0.0.1:0 \
    --metrics "" --http "" --log-level info
}
export ARB_USER=alice ARB_TOKEN=alice-secret
standby() {  # NAME: starts one more node, which must wait, naming who serves; sets NAME_pid
  node "$1" >"$work/$1.out" 2>"$work/$1.log" &
  printf -v "${1}_pid" '%s' "$!"
  pids+=("$!")
  wait_log "$work/$1.log" "event=standby serving=ha at" && pass "$1 waits as a standby" \
    || fail "$1: $(cat "$work/$1.log")"
}

launch a node a
export ARB_SERVER=127.0.0.1:$(cut -d' ' -f2 <<<"$ready_line")
grep -q "event=leader epoch=1" "$work/a.log" && pass "a leads with epoch 1" || fail "a: $(cat "$work/a.log")"
ids=()
for i in 1 2 3; do
  check "a reserves ($i)" 0 "$arb" -o json reserve --est now+1h --let now+12h --np 4 --runtime 1h
  ids+=("$(json_field "$out" id)")
done

standby b
[ ! -s "$work/b.out" ] && pass "the standby does not serve" || fail "b serves: $(cat "$work/b.out")"

killed=$(date +%s.%N)
kill -9 "$a_pid"
ready_line=$(grep -m1 "^ready" < <(timeout 30 tail -n +1 --pid="$b_pid" -f "$work/b.out"))
served=$(date +%s.%N)
[ -n "$ready_line" ] && pass "b took over" || { fail "b did not serve: $(cat "$work/b.log")"; exit 1; }
echo "# failover after kill -9: $(awk -v a="$killed" -v b="$served" 'BEGIN {printf "%.1f", b - a}') s (lease term $term s)"
grep -q "event=leader epoch=2" "$work/b.log" && pass "b leads with epoch 2" || fail "b: $(cat "$work/b.log")"
export ARB_SERVER=127.0.0.1:$(cut -d' ' -f2 <<<"$ready_line")
check "list on b" 0 "$arb" -o json list
for id in "${ids[@]}"; do
  contains "$out" "\"$id\"" && pass "$id, acknowledged by a, is on b" || fail "$id lost: $out"
done
check "b reserves" 0 "$arb" -o json reserve --est now+1h --let now+12h --np 4 --runtime 1h

# A third node waits; b paused is replaced, and b, continued, steps down.
standby c
kill -STOP "$b_pid"
ready_line=$(grep -m1 "^ready" < <(timeout 30 tail -n +1 --pid="$c_pid" -f "$work/c.out"))
[ -n "$ready_line" ] && pass "c took over from the paused b" || fail "c did not serve: $(cat "$work/c.log")"
grep -q "event=leader epoch=3" "$work/c.log" && pass "c leads with epoch 3" || fail "c: $(cat "$work/c.log")"
kill -CONT "$b_pid"
timeout 30 tail --pid="$b_pid" -f /dev/null
wait "$b_pid"; rc=$?
[ "$rc" = 75 ] && pass "b, continued, stepped down (exit 75)" || fail "b exit $rc: $(tail -5 "$work/b.log")"
grep -q "event=stepped_down" "$work/b.log" && pass "b says why" || fail "b: $(tail -5 "$work/b.log")"
export ARB_SERVER=127.0.0.1:$(cut -d' ' -f2 <<<"$ready_line")
check "list on c" 0 "$arb" -o json list
n=$(grep -o '"id": *"c[12]/[0-9]*"' <<<"$out" | sort -u | wc -l)
[ "$n" = 4 ] && pass "c has the 4 reservations" || fail "c has $n: $out"

# Stopped on purpose (SIGTERM), c gives the lease up: a standby serves at once, not a term
# later.
standby d
kill -TERM "$c_pid"; wait "$c_pid"
grep -q "event=lease_released epoch=3" "$work/c.log" && pass "c gave the lease up" \
  || fail "c: $(tail -5 "$work/c.log")"
ready_line=$(grep -m1 "^ready" < <(timeout 30 tail -n +1 --pid="$d_pid" -f "$work/d.out"))
[ -n "$ready_line" ] && pass "d took over from the stopped c" || fail "d: $(cat "$work/d.log")"
grep -q "event=leader epoch=4" "$work/d.log" && pass "d leads with epoch 4" || fail "d: $(cat "$work/d.log")"
kill -TERM "$d_pid"; wait "$d_pid"
PGOPTIONS=--client-min-messages=warning psql "$server" -Xqc "DROP SCHEMA $schema CASCADE"
echo "# $fails failed"
[ "$fails" = 0 ]
