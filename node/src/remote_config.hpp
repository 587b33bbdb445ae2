#pragma once

// The parts of a node's TOML about other processes (docs/config.md): `[agent]` (serve the
// local clusters to other brokers), `[remote]` (how to reach agents) and a `[[cluster]]` with
// `agent = "host:port"` (a cluster an agent serves).

#include "arbroker/node/node_config.hpp"
#include "config_reading.hpp"

namespace arbroker::detail {

/// A [[cluster]] table with an `agent` key: name, agent, agent_name and nothing else.
result<cluster_entry> read_remote_cluster(const toml::table& t, const std::string& path);
status read_agent(const toml::table& root, node_config& cfg);
status read_remote(const toml::table& root, node_config& cfg);
/// What validate() checks of them.
status validate_remote(const node_config& cfg);

}  // namespace arbroker::detail
