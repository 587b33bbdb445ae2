#pragma once

// Nodes alike as one group: what an adapter publishes of a cluster's nodes
// (lrms::node_groups), from Slurm's node table or Grid Engine's hosts.

#include <algorithm>
#include <utility>
#include <vector>

#include "arbroker/core/job_requirements.hpp"

namespace arbroker {

/// Adds one node (`g`, count 1) to `groups`: to the group of nodes with the same CPUs, memory
/// and features (features in the same order), or as a new group. O(groups).
inline void add_node(std::vector<node_group>& groups, node_group g) {
  auto same = std::find_if(groups.begin(), groups.end(), [&](const node_group& o) {
    return o.cpus == g.cpus && o.memory == g.memory && o.features == g.features;
  });
  if (same != groups.end())
    ++same->count;
  else
    groups.push_back(std::move(g));
}

}  // namespace arbroker
