#!/usr/bin/env bash
# Two arbd on one PostgreSQL store (issue 36): the first holds the store's lease and serves,
# the second waits as a standby. Killed (kill -9), the leader is replaced by the standby
# within the lease's term plus its recovery, with every acknowledged reservation there.
# Paused (SIGSTOP), the leader is replaced the same way, and when it is continued it steps
# down (exit 75) instead of serving or writing. Clients given several nodes follow the leader:
# a standby turns them away naming it (msgpack: not_leader; HTTP: 503 with detail.leader), arb
# with ARB_SERVER=a,b waits out a failover, and the Python example does the same over HTTP.
# Usage: failover_e2e.sh ARBD ARB WORKDIR POSTGRESQL_URI
set -u
arbd=$1 arb=$2 work=$3 server=$4
src=$(cd "$(dirname "$0")/../.." && pwd)
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
    --metrics "" --http 127.0.0.1:0 --log-level info
}
api_of() { echo "127.0.0.1:$(cut -d' ' -f2 <<<"$1")"; }   # LINE ("ready|standby API METRICS HTTP")
http_of() { echo "127.0.0.1:$(cut -d' ' -f4 <<<"$1")"; }
# POST /v1/list on an HTTP address: "STATUS BODY"
http_list() {
  python3 - "$1" <<'PY'
import sys, urllib.request, urllib.error
req = urllib.request.Request(f"http://{sys.argv[1]}/v1/list", data=b"{}", method="POST",
    headers={"X-Arb-User": "alice", "Authorization": "Bearer alice-secret",
             "Content-Type": "application/json"})
try:
    with urllib.request.urlopen(req, timeout=10) as r:
        print(r.status, r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode(), e.headers.get("Retry-After"))
PY
}
export ARB_USER=alice ARB_TOKEN=alice-secret
standby() {  # NAME: starts one more node, which must wait, naming who serves; sets NAME_pid
  node "$1" >"$work/$1.out" 2>"$work/$1.log" &
  printf -v "${1}_pid" '%s' "$!"
  pids+=("$!")
  wait_log "$work/$1.log" "event=standby serving=ha at" && pass "$1 waits as a standby" \
    || fail "$1: $(cat "$work/$1.log")"
  printf -v "${1}_line" '%s' "$(grep -m1 "^standby" < <(timeout 30 tail -n +1 -f "$work/$1.out"))"
}

launch a node a
a_api=$(api_of "$ready_line") a_http=$(http_of "$ready_line")
export ARB_SERVER=$a_api
grep -q "event=leader epoch=1" "$work/a.log" && pass "a leads with epoch 1" || fail "a: $(cat "$work/a.log")"
ids=()
for i in 1 2 3; do
  check "a reserves ($i)" 0 "$arb" -o json reserve --est now+1h --let now+12h --np 4 --runtime 1h
  ids+=("$(json_field "$out" id)")
done

standby b
b_api=$(api_of "$b_line") b_http=$(http_of "$b_line")
grep -q "^ready" "$work/b.out" && fail "b serves: $(cat "$work/b.out")" || pass "the standby does not serve"

# The standby turns clients away naming the leader; given only b, arb follows it to a.
check "arb on the standby alone reaches the leader" 0 env ARB_SERVER="$b_api" "$arb" -o json list
contains "$out" "\"${ids[0]}\"" && pass "it listed a's reservations" || fail "$out"
said=$(http_list "$b_http")
contains "$said" "503 " && contains "$said" '"not_leader"' && contains "$said" "\"address\":\"$a_api\"" &&
  contains "$said" "\"http_address\":\"$a_http\"" && contains "$said" " 1" \
  && pass "HTTP on the standby: 503 not_leader naming a, Retry-After 1" || fail "b said: $said"
contains "$(http_list "$a_http")" "200 " && pass "HTTP on the leader: 200" || fail "a over HTTP"

# kill -9 of the leader while a client that knows both waits for an answer.
killed=$(date +%s.%N)
kill -9 "$a_pid"
check "arb with a,b waits out the failover" 0 env ARB_SERVER="$a_api,$b_api" "$arb" -o json list
answered=$(date +%s.%N)
for id in "${ids[@]}"; do
  contains "$out" "\"$id\"" && pass "$id, acknowledged by a, is on b" || fail "$id lost: $out"
done
echo "# kill -9 to the new leader's first answer: $(awk -v a="$killed" -v b="$answered" 'BEGIN {printf "%.1f", b - a}') s (lease term $term s)"
ready_line=$(grep -m1 "^ready" < <(timeout 30 tail -n +1 --pid="$b_pid" -f "$work/b.out"))
[ -n "$ready_line" ] && pass "b took over" || { fail "b did not serve: $(cat "$work/b.log")"; exit 1; }
grep -q "event=leader epoch=2" "$work/b.log" && pass "b leads with epoch 2" || fail "b: $(cat "$work/b.log")"
export ARB_SERVER=$b_api
check "b reserves" 0 "$arb" -o json reserve --est now+1h --let now+12h --np 4 --runtime 1h

# A third node waits; the Python example, given the standby first, works on the leader.
standby c
c_api=$(api_of "$c_line") c_http=$(http_of "$c_line")
python3 "$src/examples/http/arb_http.py" --url "http://$c_http,http://$a_http,http://$b_http" \
  >"$work/example.out" 2>&1 && pass "the Python example, given c (standby), a (dead) and b, runs on b" \
  || fail "the example: $(cat "$work/example.out")"
# b paused is replaced, and b, continued, steps down.
kill -STOP "$b_pid"
ready_line=$(grep -m1 "^ready" < <(timeout 30 tail -n +1 --pid="$c_pid" -f "$work/c.out"))
[ -n "$ready_line" ] && pass "c took over from the paused b" || fail "c did not serve: $(cat "$work/c.log")"
grep -q "event=leader epoch=3" "$work/c.log" && pass "c leads with epoch 3" || fail "c: $(cat "$work/c.log")"
# The paused b still accepts connections and never answers: passed over after 5 s.
check "arb with b (paused),c reaches c" 0 env ARB_SERVER="$b_api,$c_api" "$arb" -o json list
kill -CONT "$b_pid"
timeout 30 tail --pid="$b_pid" -f /dev/null
wait "$b_pid"; rc=$?
[ "$rc" = 75 ] && pass "b, continued, stepped down (exit 75)" || fail "b exit $rc: $(tail -5 "$work/b.log")"
grep -q "event=stepped_down" "$work/b.log" && pass "b says why" || fail "b: $(tail -5 "$work/b.log")"
export ARB_SERVER=$c_api
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

# A node whose database cannot be reached waits as a standby, saying why, and turns clients
# away; SIGTERM stops it.
sed 's#^store = .*#store = "postgresql://arb@127.0.0.1:1/arb"#' "$work/node.toml" >"$work/far.toml"
"$arbd" --config "$work/far.toml" --data-dir "$work/e-data" --listen 127.0.0.1:0 --metrics "" \
  --http "" >"$work/e.out" 2>"$work/e.log" &
e_pid=$!; pids+=("$e_pid")
wait_log "$work/e.log" "event=standby_waiting why=" && pass "e waits for its database, saying why" \
  || fail "e: $(cat "$work/e.log")"
e_line=$(grep -m1 "^standby" < <(timeout 30 tail -n +1 -f "$work/e.out"))
check "arb on e" 3 env ARB_SERVER="$(api_of "$e_line")" "$arb" -o json list
contains "$out" "not_leader" && contains "$out" "no node serves" && pass "e says no node serves" \
  || fail "e said: $out"
kill -TERM "$e_pid"; wait "$e_pid"; rc=$?
[ "$rc" = 0 ] && pass "e stops on SIGTERM" || fail "e exit $rc"
PGOPTIONS=--client-min-messages=warning psql "$server" -Xqc "DROP SCHEMA $schema CASCADE"
echo "# $fails failed"
[ "$fails" = 0 ]
