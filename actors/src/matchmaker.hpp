#pragma once

// The matchmaker of the broker (internal): elastic requests that name a policy (paper 002,
// Sec. 3: the MMC's Matchmaker). One per broker, long-lived, so that next-fit keeps its
// pointer and random its generator across requests.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "arbroker/core/matchmaking.hpp"
#include "arbroker/core/site_adaptation.hpp"
#include "coordinator.hpp"

namespace arbroker {

/// One elastic request the matchmaker is working on.
struct match_job : coordinator_job {
  using coordinator_job::coordinator_job;

  msg::checked_elastic_request req;
  std::shared_ptr<const cluster_directory> clusters;  ///< `window` points into it
  std::vector<const directory_entry*> window;         ///< the selection window, by name
  std::vector<site_request> adapted;                  ///< the request adapted to each
  std::vector<msg::advice_reply> advice;              ///< per cluster; error set when none came
  std::vector<std::size_t> order;                     ///< clusters to try, best first
  std::size_t next = 0;
  int advice_pending = 0;
  msg::request_stats stats;
};

/// Per request: pick the selection window from the GIS's directory, ask every cluster's
/// match advisor in parallel, order the clusters by the policy (core match_order) and reserve
/// at the first that accepts, falling back along the order on refusal.
class matchmaker_state : public coordinator_state<matchmaker_state, msg::checked_elastic_request,
                                                  msg::elastic_reply, match_job> {
 public:
  using base = coordinator_state<matchmaker_state, msg::checked_elastic_request, msg::elastic_reply,
                                 match_job>;
  using base::base;
  static inline const char* name = "arb.matchmaker";

  elastic_coordinator_actor::behavior_type make_behavior(broker_config cfg,
                                                         const broker_actor& broker) {
    rng_.seed(cfg.matchmaker_seed);
    return coordinator_behavior(std::move(cfg), broker);
  }

  // -- the coordinator base's hooks ----------------------------------------------------------
  job_ptr make_job(msg::request_no no, const msg::checked_elastic_request& req);
  void start(const job_ptr& j, msg::checked_elastic_request req);
  void settle(const job_ptr& j);
  msg::elastic_reply failure(const match_job& j, errc code, std::string message) const;
  const cluster_service_actor& service_of(const match_job& j, std::size_t site) const;

 private:
  void ask_advisors(const job_ptr& j, const std::vector<const directory_entry*>& clusters);
  void on_advice(const job_ptr& j, std::size_t i, msg::advice_reply r);
  void decide(const job_ptr& j);
  void try_next(const job_ptr& j);

  std::mt19937_64 rng_;
  std::string next_fit_;  ///< NF: the cluster chosen last
};

/// Spawns the matchmaker of `broker` (it ends with the broker).
elastic_coordinator_actor spawn_matchmaker(caf::local_actor* parent, broker_config cfg,
                                           const broker_actor& broker);

}  // namespace arbroker
