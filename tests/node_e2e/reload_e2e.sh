#!/usr/bin/env bash
# Users and tokens reloaded without a restart (SIGHUP): a real arbd with a config file, the
# arb CLI. After the file changes and arbd gets SIGHUP, a new user may log in, a removed
# one may not, a changed token takes effect, and a file that does not load changes nothing.
# Usage: reload_e2e.sh ARBD ARB WORKDIR
set -u
arbd=$1 arb=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/checks.sh"

write_config() {  # the users given as name:token pairs, one simulated cluster
  {
    echo '[node]'
    echo 'name = "reload-e2e"'
    for u in "$@"; do
      printf '[[user]]\nname = "%s"\ntoken = "%s"\n' "${u%%:*}" "${u#*:}"
    done
    printf '[[cluster]]\nname = "c1"\ncpus = 8\n'
  } >"$work/node.toml.new"
  mv "$work/node.toml.new" "$work/node.toml"
}
# Sends SIGHUP and waits (at most 10 s) for arbd's n-th reload line in its audit trail.
reload() {
  local want=$1 line=$2
  kill -HUP "$arbd_pid"
  for _ in $(seq 1 100); do
    [ "$(grep -c "$line" "$work/arbd.log")" -ge "$want" ] && return 0
    sleep 0.1
  done
  return 1
}
as() { env ARB_USER="${1%%:*}" ARB_TOKEN="${1#*:}" "$arb" clusters; }

write_config alice:alice-secret bob:bob-secret
start_arbd --config "$work/node.toml"
check "alice logs in" 0 as alice:alice-secret
check "carol is unknown" 4 as carol:carol-secret

write_config alice:alice-new carol:carol-secret
reload 1 "event=reloaded" && pass "arbd reloaded its users" || fail "no reload: $(tail -n 3 "$work/arbd.log")"
check "carol logs in after the reload" 0 as carol:carol-secret
check "bob, removed, is refused" 4 as bob:bob-secret
check "alice's old token is refused" 4 as alice:alice-secret
check "alice's new token works" 0 as alice:alice-new

echo 'this is not [toml' >"$work/node.toml"
reload 1 "event=reload_failed" && pass "a broken file is reported" || fail "no reload_failed line"
check "and changes nothing" 0 as carol:carol-secret

stop_arbd
[ "$stopped_rc" -eq 0 ] && pass "arbd stops cleanly" || fail "arbd exit $stopped_rc"
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
