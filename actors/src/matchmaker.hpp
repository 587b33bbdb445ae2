#pragma once

// The matchmaker of the broker (internal): elastic requests that name a policy.

#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "arbroker/actors/broker.hpp"
#include "arbroker/actors/deadline_timer.hpp"
#include "arbroker/actors/gis.hpp"
#include "arbroker/core/matchmaking.hpp"
#include "arbroker/core/request.hpp"

namespace arbroker {

/// One elastic request the matchmaker is working on.
struct match_in_flight {
  msg::elastic_request req;
  elastic_request core;
  match_policy policy = match_policy::ff;
  caf::response_promise rp;
  std::vector<msg::cluster_info> infos;   ///< the selection window, by name
  std::vector<caf::actor> handles;        ///< their reservation services
  std::vector<msg::advice_reply> advice;  ///< per cluster; error set when none came
  std::vector<std::size_t> order;         ///< clusters to try, best first
  std::size_t next = 0;
  int tries = 0;
  int pending = 0;
  msg::request_stats stats;
  std::int64_t earliest_alternative = -1;
  std::string reasons;     ///< why clusters were left out, for the failure message
  timestamp deadline = 0;  ///< answered with errc::timeout at this time at the latest
};

/// The matchmaker (paper 002, Sec. 3: the MMC's Matchmaker). Long-lived, one per broker, so
/// that next-fit keeps its pointer and random its generator across requests. Per request:
/// pick the selection window from the GIS's directory (subscribed at start), ask every cluster's
/// match advisor in parallel (advice_request), order the clusters by the policy (core match_order)
/// and reserve at the first that accepts (prepare, commit_at_once for mode_reserve), falling back
/// along the order on refusal. Requests in flight are independent; each is answered within
/// cfg.request_timeout.
///   elastic_request (policy set) -> elastic_reply
struct matchmaker_state {
  broker_config cfg;
  std::mt19937_64 rng;
  std::string next_fit;  ///< NF: the cluster chosen last
  std::string txn_base;
  directory_view directory;  ///< the GIS's clusters, kept current by its pushes
  std::uint64_t next_id = 1;
  std::unordered_map<std::uint64_t, match_in_flight> requests;
  deadline_timer<std::uint64_t> deadlines;  ///< of the requests in flight, behind one timer
  static inline const char* name = "arb.matchmaker";
};

/// Transaction ids are `txn_base` + ".m<request>.<try>"; the broker gives it a txn base of
/// its own, unique like its workers'.
caf::behavior matchmaker_actor(caf::stateful_actor<matchmaker_state>* self, broker_config cfg,
                               std::string txn_base);

}  // namespace arbroker
