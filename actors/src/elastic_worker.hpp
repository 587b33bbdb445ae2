#pragma once

// The per-request worker of the broker (internal).

#include <string>
#include <vector>

#include "arbroker/actors/broker.hpp"
#include "arbroker/core/candidate.hpp"
#include "arbroker/core/preference.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/core/site_adaptation.hpp"

namespace arbroker {

struct elastic_worker_state {
  broker_config cfg;
  std::string txn_base;
  directory_view directory;  ///< the broker's copy of the GIS's clusters
  msg::elastic_request req;
  elastic_request core;
  preferences prefs;
  caf::response_promise rp;
  /// A cluster that can host the request: its directory entry (service handle) and the
  /// request adapted to it.
  struct fit_cluster {
    const directory_entry* entry = nullptr;
    site_request adapted;
    bool held_back = false;  ///< its last probe sent only its best few of more
    bool send_all = false;   ///< probe it for every candidate (a what-if, a refill)
  };
  std::vector<fit_cluster> fit;
  std::vector<candidate> candidates;
  std::vector<bool> cut_after;   ///< per candidate: the last its cluster sent of more it has
  std::vector<candidate> tried;  ///< not to be tried again after a refill
  bool refilling = false;
  std::vector<std::size_t> order;
  std::size_t next = 0;
  std::size_t boundary = 0;  ///< order position after which a refill is due
  int tries = 0;
  int pending = 0;
  msg::request_stats stats;
  std::int64_t earliest_alternative = -1;
  std::string reasons;  ///< why clusters were left out, for the failure message
  bool done = false;
  bool awaiting = false;  ///< a prepare or commit is on its way to a service
  static inline const char* name = "arb.elastic_worker";
};

caf::behavior elastic_worker(caf::stateful_actor<elastic_worker_state>* self, broker_config cfg,
                             std::string txn_base, directory_view directory);

}  // namespace arbroker
