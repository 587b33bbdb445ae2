#pragma once

// Messages of the grid information service: what is known of a cluster, and queries for
// clusters satisfying a request's core requirements (paper 000, steps 2-3).

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "arbroker/core/request.hpp"
#include "arbroker/messages/core_types.hpp"
#include "arbroker/messages/fields.hpp"
#include "arbroker/messages/wire_error.hpp"

namespace arbroker::msg {

/// Static attributes of a cluster.
struct cluster_info {
  std::string name;
  std::int32_t cpus = 0;
  double pp = 1;                     ///< processor power (SPEC-like rating)
  std::int32_t bunch = 1;            ///< reservable CPU counts: multiples of bunch ...
  std::vector<std::int32_t> counts;  ///< ... or exactly these, when non-empty
  std::int64_t tz_offset = 0;        ///< seconds east of UTC
  std::string os;
  std::vector<std::string> features;
  std::vector<std::string> allowed_users;  ///< empty: everyone
  std::vector<std::string> benchmark_names;
  std::vector<double> benchmark_results;
  /// Bytes per second from the users' file locations to the cluster: a static stand-in for
  /// paper 003's network weather service (0: unknown, staging counts as instant).
  double bandwidth = 0;
  /// The longest run time the LRMS allows a job (seconds; 0: not published). Paper 004's
  /// eq. 4 takes it as W_max; without it the longest walltime now in the queue stands in.
  std::int64_t max_walltime = 0;
  /// The longest hold its reservation service grants a prepare (seconds; 0: not published):
  /// a request that needs a longer one is not sent there.
  std::int64_t max_hold = 0;
  /// Its nodes, grouped alike (CPUs, MiB, features), as the config or the LRMS says; empty:
  /// not published (a job's memory needs are then left to the LRMS, its features checked
  /// against `features`).
  std::vector<node_group> nodes = {};

  friend bool operator==(const cluster_info&, const cluster_info&) = default;
};

/// W_max of paper 004's eq. 4 on cluster `c`: its published maximum, else the longest
/// walltime now in its queue (`longest_now`), at least 1 s.
inline std::int64_t sed_max_walltime(const cluster_info& c, std::int64_t longest_now) {
  return c.max_walltime > 0 ? c.max_walltime : std::max<std::int64_t>(longest_now, 1);
}

ARB_FIELDS(cluster_info, x.name, x.cpus, x.pp, x.bunch, x.counts, x.tz_offset, x.os, x.features,
           x.allowed_users, x.benchmark_names, x.benchmark_results, x.bandwidth, x.max_walltime,
           x.max_hold, x.nodes)

/// Adds to the cluster's features those of its nodes (a feature some node has is offered:
/// the reservations' requirement check looks at the cluster's list).
inline void add_node_features(cluster_info& c) {
  for (const auto& g : c.nodes)
    for (const auto& f : g.features)
      if (std::find(c.features.begin(), c.features.end(), f) == c.features.end())
        c.features.push_back(f);
}

/// The cluster as the core's site adaptation sees it.
inline site_description site_of(const cluster_info& c) {
  return {c.name, c.cpus, c.pp, {c.bunch, c.counts}};
}

/// Core requirements of a request: which clusters may take it at all.
struct gis_query {
  std::string user;
  std::int32_t np_min = 1;
  std::string os;                     ///< empty: any
  std::vector<std::string> features;  ///< all required
  std::vector<std::string> clusters;  ///< empty: any; else only these names
  std::int64_t mem_per_cpu = 0;       ///< MiB (core/job_requirements.hpp); 0: none
  std::int64_t mem_per_node = 0;      ///< MiB; 0: none
  /// np_min CPUs that meet the needs on any node the LRMS picks (a job in a reservation):
  /// every node must meet them.
  bool every_node = false;

  friend bool operator==(const gis_query&, const gis_query&) = default;
};

ARB_FIELDS(gis_query, x.user, x.np_min, x.os, x.features, x.clusters, x.mem_per_cpu, x.mem_per_node,
           x.every_node)

/// What the cluster publishes of its nodes, and the query's needs, in the core's terms.
inline node_offer offer_of(const cluster_info& c) {
  return {c.os, c.features, c.nodes};
}
inline job_requirements needs_of(const gis_query& q) {
  return {q.mem_per_cpu, q.mem_per_node, q.features, q.os};
}

}  // namespace arbroker::msg
