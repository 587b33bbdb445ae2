#!/usr/bin/env bash
# End to end over loopback, paper 002's reservations with laxity: a real arbd with one
# simulated cluster that has `laxity = true`, the arb CLI. A movable reservation is pushed
# back within its window to admit an urgent one, `arb show` tells its window and its new
# start, `arb status` counts the move, and after a restart it keeps its terms and window.
# Alice watches all along (`arb watch` and GET /v1/watch with curl): both show the move as it
# happens, and, after both were cut off while she cancelled, resume from the last id they saw
# with the cancel and nothing repeated (docs/watch.md).
# Usage: laxity_e2e.sh ARBD ARB WORKDIR
set -u
arbd=$1 arb=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/checks.sh"

cat >"$work/node.toml" <<TOML
[node]
allow_plaintext = true  # loopback only
name = "laxity-e2e"
$(users_toml alice bob)
[[cluster]]
name = "lax"
cpus = 8
pp = 1000
ljp = "off"
laxity = true
TOML

start_arbd --config "$work/node.toml"
job=(--np 8 --np-ref 8 --pp-ref 1000 --dur-ref 1h)

# Alice's two watchers, each writing what it is told to a file of its own.
watch_cli() {  # FILE [ARGS...]: arb -o json watch in the background, its pid in cli_pid
  local file=$1; shift
  : >"$file"
  env ARB_USER=alice ARB_TOKEN=alice-secret "$arb" -o json watch "$@" >"$file" 2>>"$work/watch.err" &
  cli_pid=$!
}
watch_sse() {  # FILE [HEADER]: GET /v1/watch with curl in the background, its pid in sse_pid
  local file=$1; shift
  : >"$file"
  curl -sSN -H 'X-Arb-User: alice' -H 'Authorization: Bearer alice-secret' "$@" \
    "http://127.0.0.1:$hport/v1/watch" >"$file" 2>>"$work/watch.err" &
  sse_pid=$!
}
watch_cli "$work/cli1"
watch_sse "$work/sse1"
wait_log "$work/sse1" "^event: watching"  # both started before anything happens
wait_log "$work/watch.err" "watching after event"

check "alice reserves a movable hour within 10 h" 0 env ARB_USER=alice ARB_TOKEN=alice-secret \
  "$arb" -o json reserve --movable --est now+10m --let now+10h "${job[@]}"
id=$(json_field "$out" id)
first=$(json_number "$out" start)
deadline=$(json_number "$out" deadline)
[ -n "$id" ] && [ -n "$first" ] && pass "it is granted ($id at $first)" || fail "no grant: $out"
[ -n "$deadline" ] && pass "the reply carries its window" || fail "no deadline in: $out"

check "bob's rigid hour, due within 70 min, is admitted by moving alice's" 0 \
  env ARB_USER=bob ARB_TOKEN=bob-secret "$arb" -o json reserve --est now --let now+70m "${job[@]}"

check "alice's reservation, shown as json" 0 env ARB_USER=alice ARB_TOKEN=alice-secret \
  "$arb" -o json show "$id"
moved=$(json_number "$out" start)
end=$(json_number "$out" end)
[ -n "$moved" ] && [ "$moved" -gt "$first" ] && pass "it was pushed back ($first -> $moved)" \
  || fail "not moved: $out"
[ -n "$end" ] && [ "$end" -le "$deadline" ] && pass "it still ends by its deadline" \
  || fail "ends after its deadline: $out"
check "shown as a table" 0 env ARB_USER=alice ARB_TOKEN=alice-secret "$arb" show "$id"
contains "$out" "movable: runs within" && pass "the table tells the window" || fail "table: $out"

check "status" 0 env ARB_USER=alice ARB_TOKEN=alice-secret "$arb" -o json status
[ "$(json_number "$out" moves)" = 1 ] && pass "status counts the move" || fail "status: $out"

wait_log "$work/cli1" "\"kind\":\"reservation.moved\",\"subject\":\"$id\"" \
  && pass "arb watch showed the move" || fail "arb watch: $(cat "$work/cli1")"
wait_log "$work/sse1" "^event: reservation.moved" \
  && pass "GET /v1/watch showed the move" || fail "GET /v1/watch: $(cat "$work/sse1")"
grep -q "\"start\":$moved," "$work/cli1" && pass "with the new start" || fail "no new start"
! grep -q '"owner":"bob"' "$work/cli1" "$work/sse1" && pass "nothing of bob's was told to alice" \
  || fail "bob's events reached alice"
last_cli=$(sed -n 's/.*"id":\([0-9]*\),"at".*/\1/p' "$work/cli1" | tail -n1)
last_sse=$(sed -n 's/^id: //p' "$work/sse1" | tail -n1)
kill "$cli_pid" "$sse_pid"; wait "$cli_pid" "$sse_pid" 2>/dev/null
# While nobody watches, alice cancels; then both watch again from the last id they saw.
check "alice cancels while nobody watches" 0 env ARB_USER=alice ARB_TOKEN=alice-secret \
  "$arb" cancel "$id"
watch_cli "$work/cli2" --since "$last_cli" --count 1
watch_sse "$work/sse2" -H "Last-Event-ID: $last_sse"
wait "$cli_pid" && pass "arb watch --since $last_cli --count 1 ends after one event" \
  || fail "arb watch --since: $(cat "$work/watch.err")"
contains "$(cat "$work/cli2")" "\"kind\":\"reservation.ended\",\"subject\":\"$id\"" \
  && pass "it is the cancel, missed while away" || fail "resumed: $(cat "$work/cli2")"
wait_log "$work/sse2" "^event: reservation.ended" && pass "the SSE stream resumed with the cancel" \
  || fail "SSE resumed: $(cat "$work/sse2")"
! grep -q "reservation.moved" "$work/cli2" "$work/sse2" && pass "and repeated nothing" \
  || fail "repeated the move"
kill "$sse_pid"; wait "$sse_pid" 2>/dev/null
check "a watch after an event that never was is refused" 5 \
  env ARB_USER=alice ARB_TOKEN=alice-secret "$arb" watch --since 99999
contains "$(cat "$work/stderr")" "no event 99999 yet" && pass "saying so" \
  || fail "refusal: $(cat "$work/stderr")"

stop_arbd
start_arbd --config "$work/node.toml"
check "after a restart" 0 env ARB_USER=alice ARB_TOKEN=alice-secret "$arb" -o json show "$id"
[ "$(json_number "$out" start)" = "$moved" ] && [ "$(json_number "$out" deadline)" = "$deadline" ] \
  && pass "its terms and window survive a restart" || fail "after restart: $out"
stop_arbd

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
