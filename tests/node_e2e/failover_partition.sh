#!/usr/bin/env bash
# A partition between the leader and its database (issue 36): two arbd on one PostgreSQL
# store, the leader on another "host" (a network namespace this test makes: a veth pair,
# 10.214.N.0/30) reaching the database over the link, the standby beside the database. The
# leader's clients run in its namespace too (its API on the namespace's loopback: plain text
# is for loopback only). An nftables rule in the namespace drops every packet between the
# leader and the database while its clients still reach it. Then:
#  - the leader stops answering within its lease's term (it cannot renew: it steps down, exit
#    75), and a request sent to it meanwhile is never acknowledged without being kept;
#  - the standby takes the lease with the next epoch and serves every reservation the leader
#    acknowledged before the partition;
#  - no double booking: the CPUs a reservation of the old leader holds are refused to a new one.
# Then the database itself hangs (SIGSTOP of every process of the server): the leader steps
# down within its term the same way, and a standby serves once the server is continued.
# The test starts a PostgreSQL server of its own (scripts/postgresql/start.sh --also-listen),
# listening on the veth's host end too. Needs root, ip and nft.
# Usage: failover_partition.sh ARBD ARB WORKDIR
set -u
arbd=$1 arb=$2 work=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
[ "$(id -u)" -eq 0 ] || { echo "FAIL - needs root (network namespaces)"; exit 1; }

n=$(($$ % 200 + 20))
ns=arbpg$$ host_if=arbph$$ ns_if=arbpn$$ table=arbcut$$
host_ip=10.214.$n.1 leader_ip=10.214.$n.2
instance=partition$$ pg_port=$((18000 + $$ % 1000))
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
  [ -n "${server_pids:-}" ] && kill -CONT "${server_pids[@]}" 2>/dev/null
  ip netns exec "$ns" nft delete table inet "$table" 2>/dev/null
  ip netns del "$ns" 2>/dev/null
  ip link del "$host_if" 2>/dev/null
  "$src/scripts/postgresql/stop.sh" "$instance" >/dev/null 2>&1
  rm -rf "${ARB_RUN_DIR:-/tmp/arb-postgresql}/$instance"
}
trap cleanup EXIT
ip netns add "$ns" || { echo "FAIL - ip netns add"; exit 1; }
ip link add "$host_if" type veth peer name "$ns_if"
ip link set "$ns_if" netns "$ns"
ip addr add "$host_ip/30" dev "$host_if"
ip link set "$host_if" up
ip netns exec "$ns" ip addr add "$leader_ip/30" dev "$ns_if"
ip netns exec "$ns" ip link set "$ns_if" up
ip netns exec "$ns" ip link set lo up
"$src/scripts/postgresql/start.sh" "$instance" --port "$pg_port" --clean \
  --also-listen "$host_ip/30" >"$work/postgresql.out" 2>&1 ||
  { echo "FAIL - PostgreSQL: $(cat "$work/postgresql.out")"; exit 1; }

term=3
node_toml() {  # STORE_HOST: the same node but for where it reaches the database
  printf '[node]\nname = "ha"\nallow_plaintext = true\nlease = %d\n' "$term"
  printf 'store = "postgresql://arb@%s:%d/arb"\n' "$1" "$pg_port"
  users_toml alice admin
  printf '[[cluster]]\nname = "c1"\ncpus = 16\n'
}
node_toml "$host_ip" >"$work/a.toml"
node_toml 127.0.0.1 >"$work/b.toml"
export ARB_USER=alice ARB_TOKEN=alice-secret

launch a ip netns exec "$ns" "$arbd" --config "$work/a.toml" --data-dir "$work/a-data" \
  --listen 127.0.0.1:0 --metrics "" --http "" --log-level info
a_api=127.0.0.1:$(cut -d' ' -f2 <<<"$ready_line")
in_ns() { ip netns exec "$ns" "$@"; }
grep -q "event=leader epoch=1" "$work/a.log" && pass "a, in its namespace, leads with epoch 1" ||
  fail "a: $(cat "$work/a.log")"
"$arbd" --config "$work/b.toml" --data-dir "$work/b-data" --listen 127.0.0.1:0 --metrics "" \
  --http "" --log-level info >"$work/b.out" 2>"$work/b.log" &
b_pid=$!; pids+=("$b_pid")
wait_log "$work/b.log" "event=standby serving=ha at $a_api" && pass "b waits as a standby, naming a" ||
  fail "b: $(cat "$work/b.log")"

export ARB_SERVER=$a_api
# Every CPU of c1 over one hour, and a smaller one elsewhere.
check "a reserves all 16 CPUs" 0 in_ns "$arb" -o json reserve --est now+2h --let now+3h --np 16 \
  --runtime 1h
full=$(json_field "$out" id)
check "a reserves 4 more" 0 in_ns "$arb" -o json reserve --est now+5h --let now+9h --np 4 \
  --runtime 1h
small=$(json_field "$out" id)

# The partition: every packet between a and the database dropped; a's clients still reach it.
ip netns exec "$ns" nft add table inet "$table"
ip netns exec "$ns" nft add chain inet "$table" output '{ type filter hook output priority 0; policy accept; }'
ip netns exec "$ns" nft add chain inet "$table" input '{ type filter hook input priority 0; policy accept; }'
ip netns exec "$ns" nft add rule inet "$table" output ip daddr "$host_ip" tcp dport "$pg_port" drop
ip netns exec "$ns" nft add rule inet "$table" input ip saddr "$host_ip" tcp sport "$pg_port" drop
cut=$(date +%s.%N)
# A request to a meanwhile: it cannot be kept, so it must not be acknowledged (or, if it was
# acknowledged before the cut took hold, the new leader has it).
timeout 30 ip netns exec "$ns" "$arb" -o json reserve --est now+12h --let now+13h --np 2 --runtime 1h \
  >"$work/during.out" 2>&1
during_rc=$?
timeout 30 tail --pid="$a_pid" -f /dev/null
wait "$a_pid"; rc=$?
gone=$(date +%s.%N)
elapsed=$(awk -v a="$cut" -v b="$gone" 'BEGIN {printf "%.2f", b - a}')
[ "$rc" = 75 ] && pass "a, cut off from its database, stepped down (exit 75)" ||
  fail "a exit $rc: $(tail -5 "$work/a.log")"
awk -v e="$elapsed" -v t="$term" 'BEGIN {exit !(e <= t + 1)}' &&
  pass "a stopped answering $elapsed s after the cut (term $term s)" ||
  fail "a stopped $elapsed s after the cut (term $term s)"
grep -q "event=stepped_down" "$work/a.log" && pass "a says why" || fail "a: $(tail -5 "$work/a.log")"

ready_line=$(grep -m1 "^ready" < <(timeout 30 tail -n +1 --pid="$b_pid" -f "$work/b.out"))
[ -n "$ready_line" ] && pass "b took over" || { fail "b did not serve: $(cat "$work/b.log")"; exit 1; }
grep -q "event=leader epoch=2" "$work/b.log" && pass "b leads with epoch 2" || fail "b: $(cat "$work/b.log")"
echo "# the cut to a's step-down: $elapsed s; to b's ready: $(awk -v a="$cut" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}') s"
export ARB_SERVER=127.0.0.1:$(cut -d' ' -f2 <<<"$ready_line")
check "list on b" 0 "$arb" -o json list
for id in "$full" "$small"; do
  contains "$out" "\"$id\"" && pass "$id, acknowledged by a, is on b" || fail "$id lost: $out"
done
if [ "$during_rc" = 0 ]; then
  id=$(json_field "$(cat "$work/during.out")" id)
  contains "$out" "\"$id\"" && pass "the request during the cut was acknowledged and kept ($id)" ||
    fail "acknowledged during the cut and lost: $id"
else
  pass "the request during the cut was not acknowledged (exit $during_rc)"
fi
check "no double booking: b refuses a's full hour" 7 "$arb" -o json reserve --est now+2h \
  --let now+3h --np 1 --runtime 1h
check "b books what is free" 0 "$arb" -o json reserve --est now+3h --let now+4h --np 16 --runtime 1h
mine=$(json_field "$out" id)

# The database hangs (every process of the server stopped: connections stay open, nothing is
# answered): b cannot renew and steps down within its term; c, waiting as a standby, takes
# over once the server is continued, with everything.
"$arbd" --config "$work/b.toml" --data-dir "$work/c-data" --listen 127.0.0.1:0 --metrics "" \
  --http "" --log-level info >"$work/c.out" 2>"$work/c.log" &
c_pid=$!; pids+=("$c_pid")
wait_log "$work/c.log" "event=standby serving=ha at $ARB_SERVER" && pass "c waits as a standby, naming b" ||
  fail "c: $(cat "$work/c.log")"
pg_dir=${ARB_RUN_DIR:-/tmp/arb-postgresql}/$instance
postmaster=$(head -1 "$pg_dir/data/postmaster.pid")
server_pids=("$postmaster" $(pgrep -P "$postmaster"))
kill -STOP "${server_pids[@]}"
stopped=$(date +%s.%N)
timeout 30 tail --pid="$b_pid" -f /dev/null
wait "$b_pid"; rc=$?
elapsed=$(awk -v a="$stopped" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')
kill -CONT "${server_pids[@]}"
[ "$rc" = 75 ] && pass "b, its database stopped, stepped down (exit 75)" ||
  fail "b exit $rc: $(tail -5 "$work/b.log")"
awk -v e="$elapsed" -v t="$term" 'BEGIN {exit !(e <= t + 1)}' &&
  pass "b stopped answering $elapsed s after the database stopped (term $term s)" ||
  fail "b stopped $elapsed s after the database stopped (term $term s)"
ready_line=$(grep -m1 "^ready" < <(timeout 30 tail -n +1 --pid="$c_pid" -f "$work/c.out"))
[ -n "$ready_line" ] && pass "c took over once the database was continued" ||
  { fail "c did not serve: $(cat "$work/c.log")"; exit 1; }
grep -q "event=leader epoch=3" "$work/c.log" && pass "c leads with epoch 3" || fail "c: $(cat "$work/c.log")"
export ARB_SERVER=127.0.0.1:$(cut -d' ' -f2 <<<"$ready_line")
check "list on c" 0 "$arb" -o json list
for id in "$full" "$small" "$mine"; do
  contains "$out" "\"$id\"" && pass "$id is on c" || fail "$id lost: $out"
done
check "no double booking: c refuses b's hour" 7 "$arb" -o json reserve --est now+3h \
  --let now+4h --np 1 --runtime 1h
kill -TERM "$c_pid"; wait "$c_pid"; rc=$?
[ "$rc" = 0 ] && pass "c stops on SIGTERM" || fail "c exit $rc"
echo "# $fails failed"
[ "$fails" = 0 ]
