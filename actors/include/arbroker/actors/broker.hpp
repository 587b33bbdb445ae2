#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "arbroker/actors/deadline_timer.hpp"
#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/gis.hpp"
#include "arbroker/messages/broker_protocol.hpp"
#include "arbroker/store/journal.hpp"

namespace arbroker {

/// Settings of a grid reservation service.
struct broker_config {
  caf::actor gis;
  clock_fn clock;
  double default_esr_threshold = -1;  ///< applied when a request gives none (< 0: no filter)
  duration hold_seconds = 120;        ///< hold length for mode_hold when a request gives none
  duration prepare_expiry = 30;       ///< holds between prepare and commit
  duration request_timeout = 30;      ///< a request is answered within this, whatever happens
  int max_tries = 64;                 ///< reserve tries per request (depth-first)
  /// Prefix of every transaction id; unique per broker start ("": random, 64 bits). Set it
  /// only where runs must be reproducible (the simulator).
  std::string incarnation;
  /// The co-reservation coordinators' log of commit decisions (null: not kept).
  std::shared_ptr<reservation_journal> journal;
  std::uint64_t matchmaker_seed = 1;  ///< the matchmaker's RAN policy draws from this seed
  /// Candidates each cluster sends per probe, its best by the request's preferences; the
  /// rest are asked for only when the reserve tries get past them (0: all at once).
  int probe_keep = 4;
  /// Long-lived actors that run the elastic requests (each many at once), in turn.
  int elastic_workers = 4;
};

/// The grid reservation service (GRS, the broker). Elastic requests go in turn to a pool of
/// `elastic_workers` long-lived workers that run the 8 steps of paper 000 Sec. 2.2 (a worker
/// that dies is replaced); per co-reservation it spawns a co-reservation agent.
/// Elastic requests that name a matchmaking policy go to its one matchmaker (an unknown
/// policy is refused at once with errc::invalid_parameter naming the valid ones).
/// It monitors them and answers the client itself (errc::lrms_failure) if one dies without
/// answering. Operations on an existing reservation ("<cluster>/<n>") are
/// routed to that cluster's service; a cluster the GIS does not know answers not_found.
/// It subscribes to the GIS's directory at start and serves nothing before the first copy
/// has arrived; afterwards no request costs a round trip to the GIS.
///   elastic_request -> elastic_reply
///   coreservation_request -> coreservation_reply
///   commit_request -> ack_reply (for mode_hold clients; txn = reservation id)
///   cancel_request -> ack_reply, modify_request -> query_reply, query_request -> query_reply,
///   bind_job_request -> bind_job_reply, list_request -> list_reply (all clusters)
struct broker_state {
  broker_config cfg;
  std::uint64_t next_request = 1;
  caf::actor matchmaker;                    ///< linked: ends with the broker
  std::vector<caf::actor> elastic_workers;  ///< linked; a dead one is replaced
  std::size_t next_elastic_worker = 0;
  /// Requests whose worker (or agent) still owes the client an answer, by request number,
  /// and how to tell the client if the worker dies first (CAF 0.17 drops an unfulfilled
  /// promise silently).
  struct worker_entry {
    caf::actor handle;
    timestamp deadline;        ///< the worker is told to give up (timeout_atom) at this time
    bool pooled;               ///< an elastic worker (told which request), not an agent of its own
    caf::response_promise rp;  ///< the client's (pooled: answered from here)
    std::function<void(std::string)> tell;  ///< answers the client if the worker dies
  };
  std::map<std::uint64_t, worker_entry> workers;
  std::map<caf::actor_addr, std::uint64_t> agents;  ///< the request of each agent in `workers`
  deadline_timer<std::uint64_t> deadlines;          ///< of the requests in flight, behind one timer
  /// The GIS's clusters, kept current by its pushes (directory_subscription.hpp).
  directory_view directory;
  static inline const char* name = "arb.broker";
};

caf::behavior broker_actor(caf::stateful_actor<broker_state>* self, broker_config cfg);

/// The cluster part of a reservation id "<cluster>/<n>" (empty if there is none).
std::string cluster_of(const std::string& reservation_id);

}  // namespace arbroker
