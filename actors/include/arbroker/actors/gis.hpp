#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/protocols.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/messages/gis_protocol.hpp"
#include "arbroker/messages/runtime_hints.hpp"

namespace arbroker {

/// Starts the grid information service (protocols.hpp, gis_actor).
gis_actor spawn_gis(caf::actor_system& sys);

/// One cluster the GIS knows: its static attributes and its reservation service.
struct directory_entry {
  msg::cluster_info info;
  cluster_service_actor service;
  /// The cluster as the core's site adaptation sees it (made once per directory, not per
  /// request; make_directory sets it).
  site_description site;
  /// Its benchmark results as predict_runtime takes them (paper 003; made once per
  /// directory with `site`, not per request and cluster).
  cluster_benchmarks benchmarks;
};

/// Every cluster the GIS knows, ordered by name, as a subscriber keeps it. Built once per
/// change and never modified afterwards, so that an actor can share it with the coordinators
/// of its own process without copying.
using cluster_directory = std::vector<directory_entry>;

/// The directory a subscriber of the GIS holds, or why it has none.
struct directory_view {
  std::shared_ptr<const cluster_directory> clusters = std::make_shared<cluster_directory>();
  std::string error;  ///< non-empty: the GIS could not be asked
};

/// True when the cluster satisfies the query's core requirements.
bool satisfies(const msg::cluster_info& c, const msg::gis_query& q);
/// Why it does not ("" when it does): not among the clusters asked for, not open to the
/// user, too few CPUs, or the needs of its nodes (core/job_requirements.hpp, unmet).
std::string why_not(const msg::cluster_info& c, const msg::gis_query& q);

/// The clusters of `dir` that satisfy `q`, in directory order.
std::vector<const directory_entry*> fit(const cluster_directory& dir, const msg::gis_query& q);

/// The entry named `name`, or null.
const directory_entry* find_cluster(const cluster_directory& dir, const std::string& name);

/// A directory from the GIS's message (parallel vectors; a length mismatch keeps the
/// common prefix).
std::shared_ptr<const cluster_directory> make_directory(
    std::vector<msg::cluster_info>& infos, std::vector<cluster_service_actor>& services);

}  // namespace arbroker
