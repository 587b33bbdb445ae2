#!/usr/bin/env bash
# End to end over loopback, paper 002's reservations with laxity: a real arbd with one
# simulated cluster that has `laxity = true`, the arb CLI. A movable reservation is pushed
# back within its window to admit an urgent one, `arb show` tells its window and its new
# start, `arb status` counts the move, and after a restart it keeps its terms and window.
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

stop_arbd
start_arbd --config "$work/node.toml"
check "after a restart" 0 env ARB_USER=alice ARB_TOKEN=alice-secret "$arb" -o json show "$id"
[ "$(json_number "$out" start)" = "$moved" ] && [ "$(json_number "$out" deadline)" = "$deadline" ] \
  && pass "its terms and window survive a restart" || fail "after restart: $out"
stop_arbd

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
