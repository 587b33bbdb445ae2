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

write_config() {  # the users as name:token or name=token_hash, one simulated cluster
  {
    echo '[node]'
    echo 'allow_plaintext = true'
    echo 'name = "reload-e2e"'
    for u in "$@"; do
      if [[ $u == *=* ]]; then
        printf '[[user]]\nname = "%s"\ntoken_hash = "%s"\n' "${u%%=*}" "${u#*=}"
      else
        printf '[[user]]\nname = "%s"\ntoken = "%s"\n' "${u%%:*}" "${u#*:}"
      fi
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
grep -q 'event=request api=msgpack user="alice" .*op=clusters' "$log" && grep -q 'event=login_refused api=msgpack user="carol"' "$log" \
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

# Hashed tokens: made by arbd --hash-token from stdin, checked by libsodium.
dave_hash=$(printf 'dave-secret-token\n' | "$arbd" --hash-token)
[[ $dave_hash == '$argon2id$'* ]] && pass "arbd --hash-token prints an argon2id hash" \
  || fail "hash: $dave_hash"
check "--hash-token refuses a short token" 2 sh -c "echo short | '$arbd' --hash-token"
write_config alice:alice-new "dave=$dave_hash"
reload 2 "event=reloaded" && pass "reloaded with a hashed token" || fail "no second reload"
grep -q 'dave-secret-token' "$work/node.toml" && fail "the config holds dave's token" \
  || pass "the config holds only dave's hash"
check "dave logs in with his hashed token" 0 as dave:dave-secret-token
check "and again (checked before)" 0 as dave:dave-secret-token
check "dave's wrong token is refused" 4 as dave:dave-wrong-token
write_config alice:alice-new 'dave=$argon2id$v=19$m=65536,t=2,p=1$bm90aGluZw$bm90aGluZw'
check "arbd --check refuses a hash libsodium cannot read" 2 "$arbd" --check --config "$work/node.toml"
reload 1 "event=reload_failed" && pass "... and a reload with it is refused" || fail "no reload_failed line"
check "which changes nothing" 0 as dave:dave-secret-token

echo 'this is not [toml' >"$work/node.toml"
reload 2 "event=reload_failed" && pass "a broken file is reported" || fail "no reload_failed line"
check "and changes nothing" 0 as dave:dave-secret-token

stop_arbd
[ "$stopped_rc" -eq 0 ] && pass "arbd stops cleanly" || fail "arbd exit $stopped_rc"

# Whoever started arbd may have closed its stdout (a pipe whose reader is gone) before arbd
# prints its ready line: the write fails, arbd serves on and stops cleanly (it used to die of
# SIGPIPE, exit 141). The pipe's read end is closed before arbd starts: no race.
write_config alice:alice-secret
rc=$(python3 - "$arbd" "$work/node.toml" <<'PY'
import os, signal, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.Popen([sys.argv[1], "--config", sys.argv[2], "--listen", "127.0.0.1:0",
                      "--metrics", "", "--http", "", "--log-level", "info"],
                     stdout=w, stderr=subprocess.PIPE, text=True)
os.close(w)
for line in p.stderr:  # its log, until it serves
    if "event=ready" in line:
        break
p.send_signal(signal.SIGTERM)
p.stderr.read()
print(p.wait())
PY
)
[ "$rc" = 0 ] && pass "arbd with its stdout closed serves and stops cleanly" \
  || fail "arbd with its stdout closed: exit $rc"
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
