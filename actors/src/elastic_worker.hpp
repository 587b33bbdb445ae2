#pragma once

// The broker's elastic workers (internal): a small pool of long-lived actors, each running
// many elastic requests at once. An actor per request cost a spawn, a termination (which
// wakes CAF's clock thread) and a down message per request, and with thousands of requests
// in flight it made CAF 0.17's ready queues so long that every steal (a walk of the victim's
// queue under its locks) stalled both scheduler threads.

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "arbroker/actors/broker.hpp"
#include "arbroker/actors/tagged_calls.hpp"
#include "arbroker/core/candidate.hpp"
#include "arbroker/core/preference.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/core/site_adaptation.hpp"

namespace arbroker {

/// One elastic request a worker is running: the 8 steps of paper 000 Sec. 2.2.
struct elastic_job {
  std::uint64_t id = 0;  ///< the broker's request number
  std::string txn_base;
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
  /// The directory the request was started with: the entries in `fit` point into it.
  std::shared_ptr<const cluster_directory> clusters;
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
  std::string reasons;    ///< why clusters were left out, for the failure message
  bool done = false;      ///< the client has its answer; late replies only clean up
  bool awaiting = false;  ///< a prepare or commit is on its way to a service
};

/// A worker of the pool. It keeps its own copy of the GIS's directory (subscribed at start).
/// Replies to its services' answers hold their job by shared pointer, so a job outlives its
/// answer as long as something of it is still on its way (a late grant to undo).
///   (request number, elastic_request) -> (request number, elastic_reply), sent by the
///   broker as an ordinary message, so the answer comes back as one (see broker.cpp)
///   (timeout_atom, request number): the broker's deadline for that request has passed
struct elastic_worker_state {
  broker_config cfg;
  directory_view directory;
  std::unordered_map<std::uint64_t, std::shared_ptr<elastic_job>> jobs;  ///< not yet answered
  /// Calls to cluster services in flight, answered by tag (see tagged_calls.hpp).
  tagged_calls<msg::probe_reply> probes;
  tagged_calls<msg::prepare_reply> prepares;
  tagged_calls<msg::ack_reply> commits;
  std::unordered_set<caf::actor_addr> watched;  ///< services monitored
  static inline const char* name = "arb.elastic_worker";
};

caf::behavior elastic_worker(caf::stateful_actor<elastic_worker_state>* self, broker_config cfg);

/// The txn base of request `id` of a broker: unique per broker start (its incarnation).
std::string txn_base_of(const broker_config& cfg, std::uint64_t id);

}  // namespace arbroker
