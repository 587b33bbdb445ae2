#!/usr/bin/env bash
# An agent on another "host": arb-agent in a network namespace this test makes (a veth pair,
# 10.213.N.0/30), a broker node (arbd) outside reaching it over mutual TLS. Real faults:
#  - a partition (the host's end of the link taken down): the broker declares the link dead
#    within [remote] silence and answers `not connected` at once; healed, it reconnects;
#  - a black hole (nftables drops every packet to the agent, TCP stays open): a request costs
#    at most the call deadline, never a hang; the rule removed, the link comes back;
#  - the agent stopped (SIGSTOP): the same; continued (SIGCONT), it serves again.
# The kernel has no netem here: delay is not injected. Needs root, ip and nft.
# Usage: agents_netns.sh ARBD ARB WORKDIR ARB_AGENT
set -u
arbd=$1 arb=$2 work=$3 agent_bin=$4
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/checks.sh"
[ "$(id -u)" -eq 0 ] || { echo "FAIL - needs root (network namespaces)"; exit 1; }
certs=$work/certs
"$(dirname "$0")/../../scripts/make-test-certs.sh" "$certs" >/dev/null 2>&1 || { echo "FAIL - certificates"; exit 1; }

n=$(($$ % 200 + 20))
ns=arbns$$ host_if=arbh$$ ns_if=arbn$$ table=arbloss$$
host_ip=10.213.$n.1 agent_ip=10.213.$n.2
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
  ip netns exec "$ns" nft delete table inet "$table" 2>/dev/null
  ip netns del "$ns" 2>/dev/null
  ip link del "$host_if" 2>/dev/null
}
trap cleanup EXIT
ip netns add "$ns" || { echo "FAIL - ip netns add"; exit 1; }
ip link add "$host_if" type veth peer name "$ns_if"
ip link set "$ns_if" netns "$ns"
ip addr add "$host_ip/30" dev "$host_if"
ip link set "$host_if" up
ip netns exec "$ns" ip addr add "$agent_ip/30" dev "$ns_if"
ip netns exec "$ns" ip link set "$ns_if" up
ip netns exec "$ns" ip link set lo up

cat >"$work/agent.toml" <<TOML
[node]
name = "agent1"
data_dir = "$work/agent-data"
[agent]
listen = "$agent_ip:7711"
certificate = "$certs/agent1.pem"
private_key = "$certs/agent1.key"
broker_ca = "$certs/ca.pem"
brokers = ["broker1"]
[[cluster]]
name = "far"
cpus = 16
TOML
cat >"$work/broker.toml" <<TOML
$(broker_head_toml broker1)
call_timeout = 2
heartbeat = 0.2
silence = 1
$(users_toml alice)
[[cluster]]
name = "far"
agent = "$agent_ip:7711"
agent_name = "agent1"
TOML

reserve() {  # EXPECTED_EXIT NAME
  check "$2" "$1" env ARB_SERVER="$broker_server" ARB_USER=alice ARB_TOKEN=alice-secret \
    "$arb" reserve --est now+1h --let now+3h --np 2 --dur-ref 1h --cluster far
}
# A request while the agent cannot answer: refused as unreachable within 5 s.
refused_quickly() {  # NAME: refused as `unreachable` (exit 1), not as busy (7)
  local start=$SECONDS
  reserve 1 "$1"
  contains "$out $(cat "$work/stderr")" "unreachable" && pass "... as unreachable" ||
    fail "... not as unreachable: $out $(cat "$work/stderr")"
  [ $((SECONDS - start)) -le 5 ] && pass "... within 5 s" || fail "... took $((SECONDS - start)) s"
}

launch agent ip netns exec "$ns" "$agent_bin" --config "$work/agent.toml"  # (ip execs it)
launch broker "$arbd" --config "$work/broker.toml" --data-dir "$work/broker-data" \
  --listen 127.0.0.1:0 --metrics "" --log-level info
broker_server=127.0.0.1:$(cut -d' ' -f2 <<<"$ready_line")
grep -q "connected to agent 'agent1' ($agent_ip:7711)" "$work/broker.log" &&
  pass "the broker reaches the agent in its namespace" || fail "log: $(cat "$work/broker.log")"
reserve 0 "a reservation across the link"

# Partition: the link down.
seen=$(lines "$work/broker.log")
ip link set "$host_if" down
wait_log "$work/broker.log" "lost agent 'agent1'" "$seen" && pass "partition: the link is declared dead" ||
  fail "partition not noticed"
refused_quickly "partition: a request is refused at once"
seen=$(lines "$work/broker.log")
ip link set "$host_if" up
wait_log "$work/broker.log" "connected to agent 'agent1'" "$seen" && pass "healed: reconnected" ||
  fail "no reconnection after the partition"
reserve 0 "healed: a reservation again"

# A black hole: every packet to the agent dropped, the connection left open.
seen=$(lines "$work/broker.log")
ip netns exec "$ns" nft add table inet "$table"
ip netns exec "$ns" nft add chain inet "$table" input '{ type filter hook input priority 0; policy accept; }'
ip netns exec "$ns" nft add rule inet "$table" input tcp dport 7711 drop
refused_quickly "black hole: a request costs a deadline, not a hang"
wait_log "$work/broker.log" "lost agent 'agent1'" "$seen" && pass "black hole: the link is declared dead" ||
  fail "black hole not noticed"
seen=$(lines "$work/broker.log")
ip netns exec "$ns" nft delete table inet "$table"
wait_log "$work/broker.log" "connected to agent 'agent1'" "$seen" && pass "rule removed: reconnected" ||
  fail "no reconnection after the black hole"
reserve 0 "after the black hole: a reservation again"

# The agent stopped.
seen=$(lines "$work/broker.log")
kill -STOP "$agent_pid"
refused_quickly "agent stopped: a request costs a deadline, not a hang"
kill -CONT "$agent_pid"
wait_log "$work/broker.log" "connected to agent 'agent1'" "$seen" && pass "continued: reconnected" ||
  fail "no reconnection after SIGCONT"
reserve 0 "continued: a reservation again"

env ARB_SERVER="$broker_server" ARB_USER=alice ARB_TOKEN=alice-secret "$arb" -o json status \
  >"$work/status.json" 2>&1
[ "$(json_number "$(cat "$work/status.json")" committed)" = 4 ] &&
  pass "the agent holds the four reservations, no more" || fail "status: $(cat "$work/status.json")"
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
