#!/usr/bin/env bash
# Several arbd nodes on one live Slurm cluster (docs/operations.md, "Several nodes on one
# batch system"): each names its reservations after its own id and leaves the other's alone
# across restarts; a node configured with another node's prefix on a fresh store refuses to
# start and deletes nothing; with --adopt it takes the reservation over; two nodes running at
# once, one killed -9 and restarted, each end with exactly their own reservations.
# Usage: shared_lrms.sh ARBD ARB CONFIG WORKDIR SLURM_RUN_DIR
set -u
arbd=$1 arb=$2 config=$3 work=$4 slurm_run=$5
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
export SLURM_CONF=$slurm_run/arbtest/slurm.conf

# A node on data directory $1 with config $2 (and more arguments); sets port, ARB_*.
start_node() {
  local dir=$1 conf=$2; shift 2
  coproc ARBD { exec "$arbd" --config "$conf" --data-dir "$dir" --listen 127.0.0.1:0 \
    --metrics "" --log-level info "$@" 2>>"$work/arbd.log"; }
  arbd_pid=$ARBD_PID
  read -r word port _ <&"${ARBD[0]}"
  [ "${word:-}" = ready ] || { echo "arbd did not start:"; tail -n 20 "$work/arbd.log"; exit 1; }
  export ARB_SERVER=127.0.0.1:$port ARB_USER=root ARB_TOKEN=root-secret
}
prefix_of_node() { json_field "$(ARB_USER=admin ARB_TOKEN=admin-secret "$arb" -o json status)" name_prefix; }
in_slurm() { scontrol -o show reservation 2>/dev/null | grep -o "ReservationName=[^ ]*" | cut -d= -f2; }
reserve() {  # an hour of 2 CPUs within the next six
  check "$1: reserve" 0 "$arb" -o json reserve --est now+10m --let now+6h --np 2 --dur-ref 1h
}

start_node "$work/a" "$config"
prefix_a=$(prefix_of_node)
[[ $prefix_a =~ ^arb-[a-z0-9]{8}-$ ]] && pass "node A names its reservations $prefix_a<n>" \
  || fail "node A's prefix: '$prefix_a'"
reserve "node A"
name_a=$prefix_a$(json_field "$out" id | cut -d/ -f2)
in_slurm | grep -qx "$name_a" && pass "Slurm holds $name_a" || fail "Slurm: $(in_slurm)"
stop_arbd

start_node "$work/b" "$config"
prefix_b=$(prefix_of_node)
[ -n "$prefix_b" ] && [ "$prefix_b" != "$prefix_a" ] && pass "node B has its own prefix $prefix_b" \
  || fail "node B's prefix: '$prefix_b' (A: $prefix_a)"
in_slurm | grep -qx "$name_a" && pass "node B's start left node A's $name_a alone" \
  || fail "node B deleted node A's reservation: $(in_slurm)"
reserve "node B"
name_b=$prefix_b$(json_field "$out" id | cut -d/ -f2)
stop_arbd

start_node "$work/a" "$config"
[ "$(prefix_of_node)" = "$prefix_a" ] && pass "node A keeps its prefix across a restart" \
  || fail "node A's prefix after a restart: $(prefix_of_node)"
check "node A lists its reservation after the restart" 0 "$arb" -o json list
contains "$out" "\"state\": \"committed\"" || fail "node A's list: $out"
in_slurm | grep -qx "$name_b" && pass "node A's restart left node B's $name_b alone" \
  || fail "node A deleted node B's reservation: $(in_slurm)"
stop_arbd

# Node C is configured with node A's prefix, on a fresh store.
sed "s/^kind = \"slurm\"/kind = \"slurm\"\nname_prefix = \"$prefix_a\"/" "$config" >"$work/c.toml"
"$arbd" --config "$work/c.toml" --data-dir "$work/c" --listen 127.0.0.1:0 --metrics "" \
  --log-level warn >/dev/null 2>"$work/c.log"
rc=$?
[ "$rc" -eq 3 ] && contains "$(cat "$work/c.log")" "did not make: $name_a (root, " \
  && contains "$(cat "$work/c.log")" "--adopt" \
  && pass "node C refuses to start over node A's reservation, naming it" \
  || fail "node C (exit $rc): $(cat "$work/c.log")"
in_slurm | grep -qx "$name_a" && pass "node C deleted nothing" || fail "Slurm: $(in_slurm)"

start_node "$work/c" "$work/c.toml" --adopt
contains "$(cat "$work/arbd.log")" "event=adopted count=1" && pass "node C adopted it" \
  || fail "no adoption in the log: $(tail -n 5 "$work/arbd.log")"
check "node C lists it as its own" 0 "$arb" -o json list
contains "$out" "\"state\": \"committed\"" || fail "node C's list: $out"
id_c=$(json_field "$out" id)
check "node C cancels it" 0 "$arb" cancel "$id_c"
stop_arbd
in_slurm | grep -qx "$name_a" && fail "Slurm still holds $name_a" || pass "Slurm no longer holds $name_a"

start_node "$work/b" "$config"  # clean up node B's
check "node B lists its reservation" 0 "$arb" -o json list
check "node B cancels it" 0 "$arb" cancel "$(json_field "$out" id)"
stop_arbd

# Two nodes at once on the batch system, one killed (-9) while the other goes on making
# reservations: after its restart each has exactly its own, nothing of the other's is gone.
# A node in the background: its "ready" line through a FIFO held open until the end.
start_bg() {  # NAME DATA_DIR: sets NAME_pid and NAME_server
  local fifo=$work/$1.ready word p fd
  rm -f "$fifo" && mkfifo "$fifo"
  "$arbd" --config "$config" --data-dir "$2" --listen 127.0.0.1:0 --metrics "" \
    --log-level warn >"$fifo" 2>>"$work/$1.log" &
  eval "$1_pid=$!"
  exec {fd}<"$fifo"
  read -r word p _ <&"$fd"
  [ "${word:-}" = ready ] || { echo "$1 did not start:"; tail -n 20 "$work/$1.log"; exit 1; }
  eval "$1_server=127.0.0.1:$p"
}
names_under() { in_slurm | grep -c "^$1" || true; }
reserve_on() {  # NAME COUNT
  local i
  for ((i = 0; i < $2; ++i)); do
    ARB_SERVER=$(eval echo "\$$1_server") check "$1: reserve $i" 0 "$arb" -o json reserve \
      --est now+10m --let now+6h --np 2 --dur-ref 1h
  done
}
start_bg p "$work/p"
start_bg q "$work/q"
export ARB_SERVER=$p_server
prefix_p=$(prefix_of_node)
export ARB_SERVER=$q_server
prefix_q=$(prefix_of_node)
[ -n "$prefix_p" ] && [ -n "$prefix_q" ] && [ "$prefix_p" != "$prefix_q" ] \
  && pass "nodes P and Q, running at once, have prefixes of their own" \
  || fail "prefixes: '$prefix_p' '$prefix_q'"
reserve_on p 3
reserve_on q 3
kill -9 "$p_pid"; wait "$p_pid" 2>/dev/null
reserve_on q 2
[ "$(names_under "$prefix_q")" -eq 5 ] && pass "node Q holds its 5 while node P is down" \
  || fail "node Q's in Slurm: $(in_slurm)"
start_bg p "$work/p"
[ "$(names_under "$prefix_p")" -eq 3 ] && [ "$(names_under "$prefix_q")" -eq 5 ] \
  && pass "after node P's restart: its 3 and node Q's 5, nothing lost or taken" \
  || fail "in Slurm after the restart: $(in_slurm)"
for n in p q; do
  export ARB_SERVER=$(eval echo "\$${n}_server")
  check "node $n lists its own" 0 "$arb" -o json list
  for id in $(grep -o '"id": *"[^"]*"' <<<"$out" | cut -d'"' -f4); do
    check "node $n cancels $id" 0 "$arb" cancel "$id"
  done
  kill -TERM "$(eval echo "\$${n}_pid")"
done
wait "$p_pid" "$q_pid"
left=$(in_slurm | grep -E "^($prefix_a|$prefix_b|$prefix_p|$prefix_q)" || true)
[ -z "$left" ] && pass "no reservation of these nodes is left in Slurm" || fail "left: $left"
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
