#!/usr/bin/env bash
# The live batch systems the suite starts (two Slurm clusters, the Grid Engine cell), each
# behind an arb-agent of its own, and one arbd broker node reaching all three over mutual TLS:
# reservations on each land in its real LRMS under its agent's names; a co-reservation across
# Slurm and Grid Engine is all there; an agent killed -9 and restarted finds its reservation
# in its LRMS again (restored, not made twice); cancelling through the broker leaves nothing
# of the agents' in any LRMS.
# Usage: ARB_AGENT=arb-agent agents_live.sh ARBD ARB CONFIG(unused) WORKDIR SLURM_RUN_DIR
set -u
arbd=$1 arb=$2 work=$4 slurm_run=$5 agent_bin=${ARB_AGENT:?set ARB_AGENT to the arb-agent executable}
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
export SGE_ROOT=/var/lib/gridengine SGE_CELL=default
certs=$work/certs
"$(dirname "$0")/../../scripts/make-test-certs.sh" "$certs" >/dev/null 2>&1 || { echo "FAIL - certificates"; exit 1; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; }
trap cleanup EXIT
run=ag$$  # names of this run in the LRMSs: nothing a crashed earlier run left can collide

agent_config() {  # NAME CERT CLUSTER-TOML
  cat >"$work/$1.toml" <<TOML
[node]
name = "$1"
data_dir = "$work/$1-data"
[agent]
listen = "127.0.0.1:${port_of[$1]:-0}"
name = "$2"
certificate = "$certs/$2.pem"
private_key = "$certs/$2.key"
broker_ca = "$certs/ca.pem"
brokers = ["broker1"]
[[cluster]]
$3
refresh = 0
TOML
}
declare -A port_of
start_agent() {  # NAME
  launch "$1" "$agent_bin" --config "$work/$1.toml"
  port_of[$1]=$(cut -d' ' -f2 <<<"$ready_line")
  agent_config "$1" "${cert_of[$1]}" "${cluster_of[$1]}"  # the same port after a restart
}
declare -A cert_of=([a1]=agent1 [a2]=agent2 [a3]=agent1)
declare -A cluster_of=(
  [a1]="name = \"slurm1\"
kind = \"slurm\"
slurm_conf = \"$slurm_run/arbtest/slurm.conf\"
name_prefix = \"${run}a-\""
  [a2]="name = \"slurm2\"
kind = \"slurm\"
slurm_conf = \"$slurm_run/arbtest2/slurm.conf\"
name_prefix = \"${run}b-\""
  [a3]="name = \"sge\"
kind = \"gridengine\"
name_prefix = \"${run}c-\"")
for a in a1 a2 a3; do
  agent_config "$a" "${cert_of[$a]}" "${cluster_of[$a]}"
  start_agent "$a"
done

cat >"$work/broker1.toml" <<TOML
$(broker_head_toml broker1)
heartbeat = 0.2
silence = 1
[[user]]
name = "root"
token = "root-secret"
[[user]]
name = "admin"
token = "admin-secret"
admin = true
[[cluster]]
name = "slurm1"
agent = "127.0.0.1:${port_of[a1]}"
agent_name = "agent1"
[[cluster]]
name = "slurm2"
agent = "127.0.0.1:${port_of[a2]}"
agent_name = "agent2"
[[cluster]]
name = "sge"
agent = "127.0.0.1:${port_of[a3]}"
agent_name = "agent1"
TOML
launch broker1 "$arbd" --config "$work/broker1.toml" --data-dir "$work/broker1-data" \
  --listen 127.0.0.1:0 --metrics "" --log-level info
export ARB_SERVER=127.0.0.1:$(cut -d' ' -f2 <<<"$ready_line") ARB_USER=root ARB_TOKEN=root-secret

check "the broker lists the three live clusters" 0 "$arb" clusters
for c in slurm1 slurm2 sge; do
  contains "$out" "$c" && pass "$c is there" || fail "no $c in: $out"
done

# What the LRMS holds under an agent's names.
lrms_names() {  # CLUSTER PREFIX
  case $1 in
    slurm1) SLURM_CONF=$slurm_run/arbtest/slurm.conf scontrol show reservation 2>/dev/null |
      grep -o "ReservationName=$2[0-9]*" ;;
    slurm2) SLURM_CONF=$slurm_run/arbtest2/slurm.conf scontrol show reservation 2>/dev/null |
      grep -o "ReservationName=$2[0-9]*" ;;
    sge) /usr/lib/gridengine/qrstat -u '*' 2>/dev/null | awk -v p="$2" '$2 ~ "^" p' ;;
  esac
}
ids=()
for c in slurm1 slurm2 sge; do
  check "a reservation on $c through its agent" 0 "$arb" -o json reserve --est now+2h \
    --let now+6h --np 1 --dur-ref 30m --cluster "$c"
  id=$(json_field "$out" id)
  ids+=("$id")
done
[ -n "$(lrms_names slurm1 "${run}a-")" ] && pass "slurm1 holds it under agent a1's names" ||
  fail "slurm1: nothing under ${run}a-"
[ -n "$(lrms_names slurm2 "${run}b-")" ] && pass "slurm2 holds it under agent a2's names" ||
  fail "slurm2: nothing under ${run}b-"
[ -n "$(lrms_names sge "${run}c-")" ] && pass "the Grid Engine cell holds it under a3's names" ||
  fail "sge: nothing under ${run}c-"

check "a co-reservation across Slurm and Grid Engine" 0 "$arb" -o json coreserve --est now+3h \
  --let now+8h -c "np=1;dur=20m;clusters=slurm1" -c "np=1;dur=20m;clusters=sge"
contains "$out" '"slurm1/' && contains "$out" '"sge/' && pass "... with a part on each" ||
  fail "coreserve: $out"

# Agent a1 killed -9 and restarted: its reservation is still in Slurm, and it finds it there.
seen=$(lines "$work/broker1.log")
kill -9 "$a1_pid"
wait "$a1_pid" 2>/dev/null
start_agent a1
grep "event=started" "$work/a1.log" | tail -n1 | grep -q "restored=[1-9]" &&
  pass "a1 restored its reservations from Slurm" || fail "a1: $(grep event=started "$work/a1.log" | tail -n1)"
wait_log "$work/broker1.log" "connected to agent 'agent1' (127.0.0.1:${port_of[a1]})" "$seen" &&
  pass "the broker reconnects to a1" || fail "no reconnection"
check "slurm1's reservation shows through the broker" 0 "$arb" show "${ids[0]}"

# Cancel everything: nothing of the agents' names is left in any LRMS.
check "admin lists every live reservation" 0 env ARB_USER=admin ARB_TOKEN=admin-secret \
  "$arb" -o json list --all
for id in $(grep -o '"id": *"[a-z0-9]*/[0-9]*"' <<<"$out" | sed 's/.*"\([a-z0-9]*\/[0-9]*\)"/\1/'); do
  "$arb" cancel "$id" >/dev/null 2>&1 || fail "cancel $id"
done
[ -z "$(lrms_names slurm1 "${run}a-")$(lrms_names slurm2 "${run}b-")$(lrms_names sge "${run}c-")" ] &&
  pass "nothing of the agents' is left in any LRMS" ||
  fail "left: $(lrms_names slurm1 "${run}a-") $(lrms_names slurm2 "${run}b-") $(lrms_names sge "${run}c-")"
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
