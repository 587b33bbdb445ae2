# Shared by the node_e2e scripts (sourced): test-anything output and small JSON readers.
# The caller sets `work` (its scratch directory) before using check, and `arbd` before
# start_arbd.
fails=0
pass() { echo "ok   - $1"; }
fail() { echo "FAIL - $1"; fails=$((fails + 1)); }
check() {  # check NAME EXPECTED_EXIT COMMAND...: runs it, output in $out
  local name=$1 want=$2; shift 2
  out=$("$@" 2>"$work/stderr") ; rc=$?
  if [ "$rc" -eq "$want" ]; then pass "$name"; else
    fail "$name (exit $rc, wanted $want): $out $(cat "$work/stderr")"; fi
}
# The [[user]] tables of a node's config for the users named, each with the token
# "<name>-secret" (the scripts log in as them with `as`).
users_toml() {
  local u
  for u in "$@"; do printf '[[user]]\nname = "%s"\ntoken = "%s-secret"\n' "$u" "$u"; done
}
# The head of the config of a broker node NAME that reaches agents over mutual TLS: [node]
# (plaintext API on loopback) and the start of [remote] (its certificate and key in $certs,
# the agents' CA); the caller adds the rest of [remote].
broker_head_toml() {
  printf '[node]\nname = "%s"\nallow_plaintext = true\n[remote]\n' "$1"
  printf 'certificate = "%s"\nprivate_key = "%s"\nagent_ca = "%s"\n' \
    "$certs/$1.pem" "$certs/$1.key" "$certs/ca.pem"
}
contains() { case "$1" in *"$2"*) return 0 ;; *) return 1 ;; esac; }
json_field() { sed -n "s/.*\"$2\": *\"\([^\"]*\)\".*/\1/p" <<<"$1" | head -n1; }
json_number() { sed -n "s/.*\"$2\": *\([0-9-]*\).*/\1/p" <<<"$1" | head -n1; }
# The real arbd on loopback ports of its choice, its data in $work/data, with the extra
# arguments given (e.g. --config FILE); sets arbd_pid, port, mport, hport (HTTP API; 0: off)
# and ARB_SERVER.
start_arbd() {
  coproc ARBD { exec "$arbd" --data-dir "${data_dir:-$work/data}" --listen 127.0.0.1:0 \
    --metrics 127.0.0.1:0 --http 127.0.0.1:0 --log-level warn "$@" 2>>"$work/arbd.log"; }
  arbd_pid=$ARBD_PID
  read -r word port mport hport <&"${ARBD[0]}"   # "ready <api> <metrics> <http> ports"
  [ "${word:-}" = ready ] || { echo "arbd did not start:"; cat "$work/arbd.log"; exit 1; }
  export ARB_SERVER=127.0.0.1:$port
}
# Stops it as an operator would (SIGTERM); its exit code in stopped_rc.
stop_arbd() {
  kill -TERM "$arbd_pid"; wait "$arbd_pid"; stopped_rc=$?
}
# Runs a daemon in the background, its stdout in $work/NAME.out, until it prints its ready
# line (or ends); sets ${NAME}_pid and ready_line, and adds the pid to the caller's `pids`.
launch() {  # NAME COMMAND...
  local name=$1; shift
  : >"$work/$name.out"
  "$@" >"$work/$name.out" 2>>"$work/$name.log" &
  local pid=$!
  pids+=("$pid")
  printf -v "${name}_pid" '%s' "$pid"
  ready_line=$(grep -m1 "^ready" < <(timeout 30 tail -n +1 --pid="$pid" -f "$work/$name.out"))
  [ -n "$ready_line" ] || { echo "FAIL - $name did not start: $(cat "$work/$name.log")"; exit 1; }
}
# Waits (at most 30 s) for a line matching PATTERN in FILE after its first SKIP lines (0: from
# the start): an event, not a delay.
wait_log() {  # FILE PATTERN [SKIP]
  grep -q -m1 -- "$2" < <(timeout 30 tail -n +$((${3:-0} + 1)) -f "$1")
}
lines() { wc -l <"$1"; }
