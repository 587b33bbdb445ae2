#pragma once

#include <map>
#include <string>

#include "arbroker/actors/engine.hpp"
#include "arbroker/messages/cluster_protocol.hpp"
#include "arbroker/messages/gis_protocol.hpp"

namespace arbroker {

/// The grid information service (paper 000, steps 2-3): which clusters exist, their static
/// attributes and their reservation services.
///   (register_atom, cluster_info, actor crs) -> ack_reply     (replaces a same-named entry)
///   gis_query -> (vector<cluster_info>, vector<actor>)        (clusters fit for a request)
/// A cluster whose service terminates is dropped.
struct gis_state {
  struct entry {
    msg::cluster_info info;
    caf::actor crs;
  };
  std::map<std::string, entry> clusters;
  static inline const char* name = "arb.gis";
};

caf::behavior gis_actor(caf::stateful_actor<gis_state>* self);

/// True when the cluster satisfies the query's core requirements.
bool satisfies(const msg::cluster_info& c, const msg::gis_query& q);

}  // namespace arbroker
