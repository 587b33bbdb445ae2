#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "arbroker/actors/engine.hpp"
#include "arbroker/messages/cluster_protocol.hpp"
#include "arbroker/messages/gis_protocol.hpp"

namespace arbroker {

using subscribe_atom = caf::atom_constant<caf::atom("subscribe")>;
using directory_atom = caf::atom_constant<caf::atom("directory")>;

/// One cluster the GIS knows: its static attributes and its reservation service.
struct directory_entry {
  msg::cluster_info info;
  caf::actor crs;
};

/// Every cluster the GIS knows, ordered by name, as a subscriber keeps it. Built once per
/// change and never modified afterwards, so that a broker can hand it to the workers it
/// spawns in its own process without copying.
using cluster_directory = std::vector<directory_entry>;

/// The directory a subscriber of the GIS holds, or why it has none.
struct directory_view {
  std::shared_ptr<const cluster_directory> clusters = std::make_shared<cluster_directory>();
  std::string error;  ///< non-empty: the GIS could not be asked
};

/// The grid information service (paper 000, steps 2-3): which clusters exist, their static
/// attributes and their reservation services.
///   (register_atom, cluster_info, actor crs) -> ack_reply     (replaces a same-named entry)
///   gis_query -> (vector<cluster_info>, vector<actor>)        (clusters fit for a request)
///   subscribe_atom -> (directory_atom, vector<cluster_info>, vector<actor>)
///       the whole directory now; afterwards the same message is sent to the subscriber
///       after every change, until it terminates. Brokers subscribe, so that a request
///       costs no round trip to the GIS.
/// A cluster whose service terminates is dropped.
struct gis_state {
  std::map<std::string, directory_entry> clusters;  ///< by name
  std::vector<caf::actor> subscribers;
  static inline const char* name = "arb.gis";
};

caf::behavior gis_actor(caf::stateful_actor<gis_state>* self);

/// True when the cluster satisfies the query's core requirements.
bool satisfies(const msg::cluster_info& c, const msg::gis_query& q);

/// The clusters of `dir` that satisfy `q`, in directory order.
std::vector<const directory_entry*> fit(const cluster_directory& dir, const msg::gis_query& q);

/// The entry named `name`, or null.
const directory_entry* find_cluster(const cluster_directory& dir, const std::string& name);

/// A directory from the GIS's message (parallel vectors; a length mismatch keeps the
/// common prefix).
std::shared_ptr<const cluster_directory> make_directory(std::vector<msg::cluster_info>& infos,
                                                        std::vector<caf::actor>& handles);

}  // namespace arbroker
