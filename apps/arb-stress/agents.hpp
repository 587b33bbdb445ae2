#pragma once

// arb-stress across processes: clusters behind agents (arb-agent processes) reached over the
// agent protocol, so that several arb-stress processes, each a broker node of its own, race
// for the same slots; and, once they are done, one more process (an admin broker at the
// agents) that audits the agents' ledgers. tests/stress/agents_stress.sh runs them all.
// Plain text on loopback only: the transport's TLS is tested and measured elsewhere
// (remote/tests, bench/remote_bench.cpp).

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <caf/fwd.hpp>

#include "arbroker/actors/protocols.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/messages/gis_protocol.hpp"
#include "arbroker/remote/remote_agent.hpp"

namespace arbroker::stress {

/// One agent: where it listens and the clusters of it this process uses.
struct agent_spec {
  std::string address;
  std::vector<std::string> clusters;
};

/// "host:port=c0,c1,...": invalid_parameter naming what is wrong.
result<agent_spec> parse_agent_spec(const std::string& text);

struct reached_agents {
  std::vector<std::unique_ptr<remote::remote_agent>> links;  ///< one per agent
  /// Every cluster as its agent describes it, with its proxy, in the order of the specs.
  std::vector<std::pair<msg::cluster_info, cluster_service_actor>> clusters;
};

/// Connects to every agent as broker `name` and waits (at most `limit` in all) until each
/// has welcomed it and described every cluster asked for; unreachable naming the agent if not.
result<reached_agents> reach_agents(caf::actor_system& sys, const std::vector<agent_spec>& specs,
                                    const std::string& name, std::chrono::milliseconds limit);

}  // namespace arbroker::stress
