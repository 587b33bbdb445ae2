#!/usr/bin/env bash
# Users and tokens reloaded without a restart (SIGHUP): a real arbd with a config file and a
# log file, the arb CLI. After the file changes and arbd gets SIGHUP, a new user may log in,
# a removed one may not, a changed token takes effect, and a file that does not load changes
# nothing. The same SIGHUP reopens the log file, as logrotate needs.
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
log=$work/arbd-file.log
# Sends SIGHUP and waits (at most 10 s) for arbd's n-th such line in its (new) log file.
reload() {
  local want=$1 line=$2
  kill -HUP "$arbd_pid"
  for _ in $(seq 1 100); do
    [ "$(grep -c "$line" "$log" 2>/dev/null)" -ge "$want" ] && return 0
    sleep 0.1
  done
  return 1
}
as() { env ARB_USER="${1%%:*}" ARB_TOKEN="${1#*:}" "$arb" clusters; }

write_config alice:alice-secret bob:bob-secret
start_arbd --config "$work/node.toml" --log-file "$log"
check "alice logs in" 0 as alice:alice-secret
check "carol is unknown" 4 as carol:carol-secret
grep -q 'event=request user="alice" .*op=clusters' "$log" && grep -q 'event=login_refused user="carol"' "$log" \
  && pass "the audit trail is in the log file" || fail "log file: $(cat "$log")"
[ ! -s "$work/arbd.log" ] && pass "nothing on stderr" || fail "stderr: $(cat "$work/arbd.log")"
mv "$log" "$log.1"  # as logrotate does

write_config alice:alice-new carol:carol-secret
reload 1 "event=reloaded" && pass "arbd reloaded its users, into a new log file" \
  || fail "no reload: $(tail -n 3 "$log" "$log.1")"
grep -q "event=reloaded" "$log.1" && fail "the moved file got the reload line" \
  || pass "the moved-away file was left alone"
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
