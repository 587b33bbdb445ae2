#pragma once

// A node's links with other processes (remote/README.md): the agent server of `[agent]`, over
// the node's local cluster services, and one link per agent for the clusters of kind remote.

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arbroker/node/node_config.hpp"
#include "arbroker/remote/agent_server.hpp"
#include "arbroker/remote/remote_agent.hpp"
#include "history.hpp"

namespace arbroker::detail {

using remote_event_fn = std::function<void(const std::string&)>;

/// [agent]: serves `local` to the brokers it lists.
/// [agent]: serves `local`; a query of a finished reservation is answered from `history`
/// (the node's store; null: none), as the calling broker may see it (broker_scope.hpp).
/// `history` outlives the server and the actor system.
result<std::unique_ptr<remote::agent_server>> serve_agent(
    caf::actor_system& sys, const node_config& cfg, std::vector<remote::agent_served_cluster> local,
    remote_event_fn on_event, history_reader* history);

struct remote_links {
  std::vector<std::unique_ptr<remote::remote_agent>> agents;
  std::vector<std::pair<std::string, cluster_service_actor>> proxies;  ///< configuration order
};

/// The clusters of kind remote, one link per agent address. `on_cluster` gets each as its
/// agent describes it, after every (re)connection: register it with the GIS there.
/// `may_change` (may be null) fences the changes sent to the agents (remote_agent_config).
result<remote_links> reach_agents(
    caf::actor_system& sys, const node_config& cfg, remote_event_fn on_event,
    std::function<void(const msg::cluster_info&, const cluster_service_actor&)> on_cluster,
    std::function<status()> may_change);

}  // namespace arbroker::detail
