#!/usr/bin/env bash
# A broker and an agent of different releases (issue 59: a VO upgrades its sites one at a
# time): arbd of one build reaches its clusters through arb-agent of another, over mutual TLS
# on loopback, and serves as with an agent of its own release: it lists and reserves on the
# agent's clusters, the agent refuses what would overbook them, a grid job runs there, and the
# agent killed -9 and restarted on its store keeps every reservation while the broker
# reconnects by itself. Run both ways: a new broker with an old agent, an old broker with a
# new one.
#
#   mixed_agents.sh ARBD ARB ARB_AGENT WORK_DIR
set -u
arbd=$1 arb=$2 agent_bin=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/../node_e2e/checks.sh"
fails=0
certs=$work/certs
"$(dirname "$0")/../../scripts/make-test-certs.sh" "$certs" >/dev/null 2>&1 ||
  { echo "FAIL - certificates"; exit 1; }
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done' EXIT
echo "# $("$arbd" --version) with $("$agent_bin" --version)"

{
  printf '[node]\nname = "agent1"\ndata_dir = "%s"\nlog_level = "info"\n' "$work/agent1-data"
  printf '[agent]\nlisten = "127.0.0.1:0"\ncertificate = "%s"\nprivate_key = "%s"\n' \
    "$certs/agent1.pem" "$certs/agent1.key"
  printf 'broker_ca = "%s"\nbrokers = ["broker1"]\n' "$certs/ca.pem"
  printf '[[cluster]]\nname = "sa"\ncpus = 16\n[[cluster]]\nname = "sb"\ncpus = 8\n'
} > "$work/agent1.toml"
launch agent1 "$agent_bin" --config "$work/agent1.toml" 2>/dev/null
agent_port=$(cut -d' ' -f2 <<<"$ready_line")
# The port the OS gave is kept for the restart below.
sed -i "s/127.0.0.1:0/127.0.0.1:$agent_port/" "$work/agent1.toml"
cat > "$work/broker1.toml" <<TOML
$(broker_head_toml broker1)
call_timeout = 3
heartbeat = 0.2
silence = 1
$(users_toml alice bob)
[[cluster]]
name = "sa"
agent = "127.0.0.1:$agent_port"
agent_name = "agent1"
[[cluster]]
name = "sb"
agent = "127.0.0.1:$agent_port"
agent_name = "agent1"
TOML
launch broker1 "$arbd" --config "$work/broker1.toml" --data-dir "$work/broker1-data" \
  --listen 127.0.0.1:0 --metrics "" --http "" --log-level info
export ARB_SERVER=127.0.0.1:$(cut -d' ' -f2 <<<"$ready_line")
as() { ARB_USER=$1 ARB_TOKEN=$1-secret "$arb" "${@:2}"; }

check "the broker lists the agent's clusters" 0 as alice clusters
for c in sa sb; do contains "$out" "$c" && pass "... $c" || fail "no $c in: $out"; done
check "alice reserves 12 of sa's 16 CPUs" 0 as alice -o json reserve --est now+1h \
  --let now+3h --np 12 --runtime 2h --cluster sa
id=$(json_field "$out" id)
[[ $id == sa/* ]] && pass "... $id" || fail "reserve: $out"
check "bob cannot overbook sa" 7 as bob reserve --est now+1h --let now+3h --np 12 \
  --runtime 2h --cluster sa
check "a co-reservation on both clusters" 0 as bob -o json coreserve --est now+4h \
  --let now+8h -c 'np=4;dur=1h' -c 'np=4;dur=1h'
contains "$out" '"sa/' && contains "$out" '"sb/' && pass "... committed on sa and sb" ||
  fail "coreserve: $out"
check "status of sa" 0 as alice -o json status --cluster sa
[ "$(json_number "$out" committed)" = 2 ] && pass "sa holds both reservations" ||
  fail "status: $out"
check "a grid job on the agent's clusters" 0 as alice -o json submit --np 2 --walltime 1h \
  --strategy single --name mixed --command 'sleep 600'
job=$(json_field "$out" id)
check "... shown" 0 as alice -o json job show "$job"
contains "$out" '"mixed"' && pass "... placed ($(json_field "$out" state))" || fail "job: $out"

seen=$(lines "$work/broker1.log")
kill -9 "$agent1_pid"
wait "$agent1_pid" 2>/dev/null
wait_log "$work/broker1.log" "lost agent 'agent1'" "$seen" && pass "the broker notices the loss" ||
  fail "no loss logged"
seen=$(lines "$work/broker1.log")
launch agent1 "$agent_bin" --config "$work/agent1.toml" 2>/dev/null
wait_log "$work/broker1.log" "connected to agent 'agent1'" "$seen" && pass "the broker reconnects" ||
  fail "no reconnection: $(tail -n 5 "$work/broker1.log")"
check "the reservation is kept across the agent's restart" 0 as alice -o json show "$id"
contains "$out" '"committed"' && pass "... committed" || fail "after the restart: $out"
check "cancel through the broker" 0 as alice cancel "$id"
check "... and the capacity is free again" 0 as bob -o json reserve --est now+1h --let now+3h \
  --np 12 --runtime 2h --cluster sa

echo "$fails failed"
[ "$fails" -eq 0 ]
