#!/usr/bin/env bash
# Several processes over loopback with mutual TLS: two arb-agent processes (agent1 with clusters
# sa and sb, agent2 with sc, simulated, each with its own store) and two arbd broker nodes
# (broker1, broker2) that reach every cluster only through the agents (remote/README.md).
#  - both brokers see every cluster and reserve there; the agents hold the reservations;
#  - the agent is the authority for its capacity: what one broker holds, the other cannot get;
#  - an agent killed -9 makes its clusters unreachable at once (no hang), the others go on;
#    restarted on its store, it has every reservation, and the brokers reconnect by themselves;
#  - a broker the agent does not list, or an agent config without TLS off loopback, is refused.
# Usage: agents_e2e.sh ARBD ARB WORKDIR ARB_AGENT
set -u
arbd=$1 arb=$2 work=$3 agent_bin=$4
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
certs=$work/certs
"$(dirname "$0")/../../scripts/make-test-certs.sh" "$certs" >/dev/null 2>&1 || { echo "FAIL - certificates"; exit 1; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; }
trap cleanup EXIT

agent_config() {  # NAME PORT CLUSTER:CPUS...
  local name=$1 port=$2; shift 2
  {
    printf '[node]\nname = "%s"\ndata_dir = "%s"\nlog_level = "info"\n' "$name" "$work/$name-data"
    printf '[agent]\nlisten = "127.0.0.1:%s"\ncertificate = "%s"\nprivate_key = "%s"\n' \
      "$port" "$certs/$name.pem" "$certs/$name.key"
    printf 'broker_ca = "%s"\nbrokers = ["broker1", "broker2"]\n' "$certs/ca.pem"
    for c in "$@"; do printf '[[cluster]]\nname = "%s"\ncpus = %s\n' "${c%%:*}" "${c##*:}"; done
  } >"$work/$name.toml"
}
start_agent() {  # NAME: sets ${NAME}_pid and ${NAME}_port
  launch "$1" "$agent_bin" --config "$work/$1.toml"
  printf -v "${1}_port" '%s' "$(cut -d' ' -f2 <<<"$ready_line")"
}
broker_config() {  # NAME [ONLY_SA]: all three clusters, or only sa
  cat >"$work/$1.toml" <<TOML
$(broker_head_toml "$1")
call_timeout = 3
heartbeat = 0.2
silence = 1
$(users_toml alice bob)
[[cluster]]
name = "sa"
agent = "127.0.0.1:$agent1_port"
agent_name = "agent1"
TOML
  [ -n "${2:-}" ] && return
  cat >>"$work/$1.toml" <<TOML
[[cluster]]
name = "sb"
agent = "127.0.0.1:$agent1_port"
agent_name = "agent1"
[[cluster]]
name = "sc"
agent = "127.0.0.1:$agent2_port"
agent_name = "agent2"
TOML
}
start_broker() {  # NAME: sets ${NAME}_pid and ${NAME}_server
  launch "$1" "$arbd" --config "$work/$1.toml" --data-dir "$work/$1-data" \
    --listen 127.0.0.1:0 --metrics "" --log-level info
  printf -v "${1}_server" '127.0.0.1:%s' "$(cut -d' ' -f2 <<<"$ready_line")"
}
as() {  # BROKER USER ARB-ARGS...
  local server=${1}_server
  env ARB_SERVER="${!server}" ARB_USER="$2" ARB_TOKEN="$2-secret" "$arb" "${@:3}"
}
agent_config agent1 0 sa:16 sb:32
agent_config agent2 0 sc:8
check "arb-agent --check" 0 "$agent_bin" --check --config "$work/agent1.toml"
contains "$out" "mutual TLS" && pass "... over mutual TLS" || fail "check: $out"
start_agent agent1
start_agent agent2
broker_config broker1
broker_config broker2
start_broker broker1
start_broker broker2

check "broker1 lists the agents' clusters" 0 as broker1 alice clusters
for c in sa sb sc; do contains "$out" "$c" && pass "broker1 sees $c" || fail "no $c in: $out"; done
contains "$out" "remote" && pass "... as remote" || fail "kind: $out"

# Both brokers reserve on agent1's sa: 12 of its 16 CPUs for broker1's alice ...
check "alice reserves 12 CPUs on sa through broker1" 0 as broker1 alice -o json reserve \
  --est now+1h --let now+3h --np 12 --dur-ref 2h --cluster sa
id1=$(json_field "$out" id)
contains "$id1" "sa/" && pass "reserved $id1" || fail "id: $out"
# ... so broker2 cannot get 12 more over the same two hours there: the agent decides.
check "bob cannot overbook sa through broker2" 7 as broker2 bob reserve \
  --est now+1h --let now+3h --np 12 --dur-ref 2h --cluster sa
check "bob reserves 4 on sa through broker2" 0 as broker2 bob -o json reserve \
  --est now+1h --let now+3h --np 4 --dur-ref 2h --cluster sa
id2=$(json_field "$out" id)
check "bob reserves on agent2's sc" 0 as broker2 bob -o json reserve \
  --est now+1h --let now+3h --np 8 --dur-ref 1h --cluster sc
id3=$(json_field "$out" id)
check "alice shows hers through broker1" 0 as broker1 alice show "$id1"
check "bob cannot see alice's" 6 as broker2 bob show "$id1"
# A broker reaches only what it made: not even alice's own reservation through broker2.
check "alice cannot see broker1's reservation through broker2" 6 as broker2 alice show "$id1"
check "... nor cancel it there" 6 as broker2 alice cancel "$id1"
check "alice still has it through broker1" 0 as broker1 alice -o json show "$id1"
contains "$out" '"committed"' && pass "... committed as it was" || fail "after broker2's cancel: $out"
# The agent owns the capacity, so its audit trail has every change, whichever broker made it.
for id in "$id1" "$id2" "$id3"; do
  log=$work/agent1.log
  [[ $id == sc/* ]] && log=$work/agent2.log
  grep -q "event=reservation id=\"$id\" .*state=committed" "$log" &&
    pass "the agent's audit trail has $id committed" ||
    fail "no audit line for $id in $log: $(grep event=reservation "$log")"
done
check "status of sa through broker1" 0 as broker1 alice -o json status --cluster sa
[ "$(json_number "$out" committed)" = 2 ] && pass "sa holds both brokers' reservations" ||
  fail "sa status: $out"

# agent1 killed -9: its clusters are unreachable at once, agent2's are not.
seen1=$(lines "$work/broker1.log") seen2=$(lines "$work/broker2.log")
kill -9 "$agent1_pid"
wait "$agent1_pid" 2>/dev/null
wait_log "$work/broker1.log" "lost agent 'agent1'" "$seen1" && pass "broker1 notices the loss" ||
  fail "no loss in the log"
start=$SECONDS
# Unreachable, not busy: the cluster did not answer (a retry may succeed).
check "a request to sa is refused while agent1 is down" 1 as broker1 alice reserve \
  --est now+1h --let now+3h --np 2 --dur-ref 1h --cluster sa
contains "$(cat "$work/stderr")" "unreachable" && contains "$(cat "$work/stderr")" "agent 'agent1'" &&
  contains "$(cat "$work/stderr")" "not connected" &&
  pass "... as unreachable, saying the agent is not connected" || fail "why: $(cat "$work/stderr")"
[ $((SECONDS - start)) -le 5 ] && pass "... within 5 s" || fail "took $((SECONDS - start)) s"
check "showing a reservation on sa: unreachable" 1 as broker1 alice show "$id1"
contains "$(cat "$work/stderr")" "unreachable" && pass "... saying so" || fail "why: $(cat "$work/stderr")"
check "sc still serves" 0 as broker1 alice reserve --est now+4h --let now+6h --np 2 --dur-ref 1h \
  --cluster sc

# Restarted on its store (same port): the reservations are there, the brokers come back.
sed -i "s/127.0.0.1:0/127.0.0.1:$agent1_port/" "$work/agent1.toml"
old_port=$agent1_port
start_agent agent1
[ "$agent1_port" = "$old_port" ] && pass "agent1 back on its port" || fail "port $agent1_port"
# (A simulated cluster forgets its reservations when its process dies: the agent's store has
# them and puts them back.)
grep "event=started" "$work/agent1.log" | tail -n1 | grep -q "recreated=2" &&
  pass "agent1 recovered both from its store" || fail "recovery: $(grep event=started "$work/agent1.log")"
wait_log "$work/broker1.log" "connected to agent 'agent1'" "$seen1" && pass "broker1 reconnects" ||
  fail "no reconnection"
wait_log "$work/broker2.log" "connected to agent 'agent1'" "$seen2" && pass "broker2 reconnects" ||
  fail "no reconnection of broker2"
check "alice's reservation is back through broker1" 0 as broker1 alice -o json show "$id1"
contains "$out" '"state": "committed"' && pass "... committed" || fail "show: $out"
check "bob's through broker2 too" 0 as broker2 bob show "$id2"
check "and a new one" 0 as broker1 alice reserve --est now+4h --let now+6h --np 2 --dur-ref 1h \
  --cluster sb
[ -n "$id3" ] || fail "no id for sc"
# A finished remote reservation is history in the agent's store: shown through the broker
# that made it, to its owner, and to nobody through another broker.
check "bob cancels his reservation on sc" 0 as broker2 bob cancel "$id3"
check "... and still sees it through broker2" 0 as broker2 bob -o json show "$id3"
contains "$out" '"state": "cancelled"' && pass "... cancelled, from agent2's history" ||
  fail "show of a finished remote reservation: $out"
check "... not through broker1" 6 as broker1 bob show "$id3"
check "bob's history through broker2" 0 as broker2 bob list --history
contains "$out" "$id3" && pass "... has it, from agent2's store" || fail "history: $out"
check "bob's history through broker1" 0 as broker1 bob list --history
contains "$out" "$id3" && fail "broker1 lists broker2's $id3: $out" || pass "... has not"

# Who gets in, and which configs start at all: agent3 serves broker2 only.
sed -e 's/brokers = \["broker1", "broker2"\]/brokers = ["broker2"]/' \
  -e "s/127.0.0.1:$agent1_port/127.0.0.1:0/" -e "s|agent1|agent3|g" \
  "$work/agent1.toml" >"$work/agent3.toml"
cp "$certs/agent1.pem" "$certs/agent3.pem"
cp "$certs/agent1.key" "$certs/agent3.key"
start_agent agent3
kill -TERM "$broker1_pid"
wait "$broker1_pid"
agent1_port=$agent3_port broker_config broker1 only-sa
seen1=$(lines "$work/broker1.log")
start_broker broker1
wait_log "$work/broker1.log" "'broker1' is not a broker this agent serves" "$seen1" &&
  pass "an unlisted broker is refused, told why" || fail "no refusal in broker1's log"
printf '[node]\nname = "x"\n[agent]\nlisten = "0.0.0.0:7799"\nbrokers = ["b"]\nallow_plaintext = true\n[[cluster]]\nname = "c"\ncpus = 4\n' >"$work/wide.toml"
check "plain text off loopback is refused" 3 "$agent_bin" --config "$work/wide.toml"
contains "$(cat "$work/stderr")" "loopback only" && pass "... saying so" || fail "why: $(cat "$work/stderr")"
printf '[node]\nname = "x"\n[[cluster]]\nname = "c"\ncpus = 4\n' >"$work/noagent.toml"
check "an agent config without [agent] is refused" 2 "$agent_bin" --config "$work/noagent.toml"

kill -TERM "$agent2_pid"; wait "$agent2_pid"; rc=$?
[ "$rc" -eq 0 ] && pass "arb-agent stops cleanly on SIGTERM" || fail "agent2 exit $rc"
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
