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
#include "elastic_coordinator.hpp"

namespace arbroker {

/// One elastic request the matchmaker is working on.
struct match_job : elastic_job_base {
  using elastic_job_base::elastic_job_base;

  std::vector<adapted_host> window;       ///< the selection window's fit clusters, by name
  std::vector<msg::advice_reply> advice;  ///< per cluster; error set when none came
  std::vector<std::size_t> order;         ///< clusters to try, best first
  std::size_t next = 0;
};

/// Per request: pick the selection window from the GIS's directory, ask every cluster's
/// match advisor in parallel, order the clusters by the policy (core match_order) and reserve
/// at the first that accepts, falling back along the order on refusal.
class matchmaker_state : public elastic_coordinator<matchmaker_state, match_job> {
 public:
  using elastic_coordinator::elastic_coordinator;
  static inline const char* name = "arb.matchmaker";

  elastic_coordinator_actor::behavior_type make_behavior(broker_config cfg,
                                                         const broker_actor& broker) {
    rng_.seed(cfg.matchmaker_seed);
    return elastic_coordinator::make_behavior(std::move(cfg), broker);
  }

  // -- hooks of the coordinator bases --------------------------------------------------------
  void start(const job_ptr& j, const std::vector<const directory_entry*>& clusters);
  void try_next(const job_ptr& j);
  void on_granted(const match_job& j) { next_fit_ = j.attempt.parts().front().terms.cluster; }
  const cluster_service_actor& service_of(const match_job& j, std::size_t site) const;

 private:
  void on_advice(const job_ptr& j, std::size_t i, msg::advice_reply r);
  void decide(const job_ptr& j);

  std::mt19937_64 rng_;
  std::string next_fit_;          ///< NF: the cluster chosen last
  std::size_t window_start_ = 0;  ///< where the next selection window begins
};

}  // namespace arbroker
