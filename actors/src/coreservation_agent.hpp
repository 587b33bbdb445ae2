#pragma once

// The co-reservation agent (internal): one per co-reservation request, spawned by the broker.

#include <map>
#include <string>
#include <vector>

#include "arbroker/actors/broker.hpp"
#include "arbroker/core/request.hpp"

namespace arbroker {

struct coreservation_agent_state {
  /// A way to host one component: np CPUs on a cluster for `length` seconds, feasible for
  /// common start times in [first, last] (already shifted by the component's offset).
  struct option {
    std::string cluster;
    std::int32_t np = 0;
    duration length = 0;
    duration offset = 0;  ///< the component starts this long after the common start
    timestamp first = 0;
    timestamp last = 0;
  };
  /// One attempt's choice for every component.
  struct placement {
    std::string cluster;
    std::int32_t np = 0;
    timestamp start = 0;
    timestamp end = 0;
  };

  broker_config cfg;
  std::string txn_base;
  directory_view directory;  ///< the broker's copy of the GIS's clusters
  msg::coreservation_request req;
  std::vector<elastic_request> components;  ///< core form, window shifted per offset
  caf::response_promise rp;
  std::map<std::string, caf::actor> crs;
  std::vector<std::vector<option>> options;  ///< per component
  std::vector<timestamp> starts;             ///< common start times to try, ascending
  std::size_t next_start = 0;
  int attempts = 0;
  int pending = 0;
  std::string txn;  ///< of the current attempt
  std::vector<placement> current;
  std::vector<msg::prepare_reply> prepared;
  std::vector<bool> committed;
  std::vector<bool> waiting;  ///< participant i owes an answer in the current phase
  timestamp skip_until = 0;   ///< refusals' busy-until hints: no common start before this
  bool all_prepared = true;
  bool all_committed = true;
  std::int64_t earliest_alternative = -1;
  std::string reasons;
  bool done = false;
  static inline const char* name = "arb.coreservation_agent";
};

caf::behavior coreservation_agent(caf::stateful_actor<coreservation_agent_state>* self,
                                  broker_config cfg, std::string txn_base,
                                  directory_view directory);

}  // namespace arbroker
