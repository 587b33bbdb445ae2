#pragma once

// The broker's co-reservation workers (internal): a small pool of long-lived coordinators,
// each running many co-reservations at once (paper 002's co-reservation agent, one per
// request there), in two-phase commit on the shared coordinator base.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "coordinator.hpp"

namespace arbroker {

/// One co-reservation a worker is running.
struct coreservation_job : coordinator_job<msg::checked_coreservation_request> {
  using coordinator_job::coordinator_job;

  /// A way to host one component: np CPUs on a cluster for `length` seconds, feasible for
  /// common start times in [first, last] (already shifted by the component's offset).
  struct option {
    std::size_t site = 0;
    std::int32_t np = 0;
    duration length = 0;
    duration offset = 0;  ///< the component starts this long after the common start
    timestamp first = 0;
    timestamp last = 0;
    double per_second = 0;  ///< the price of one second at the window's first start
  };

  std::vector<const directory_entry*> sites;  ///< the clusters probed
  std::vector<std::vector<option>> options;   ///< per component
  /// Common start times with a placement for every component, best first by the request's
  /// preferences over the combined parts (start, end = latest part end, np = sum, cost =
  /// sum, length = end - start).
  std::vector<std::pair<timestamp, placement>> starts;
  std::size_t next_start = 0;
  timestamp skip_until = 0;  ///< refusals' busy-until hints: no common start before this
  int probes_pending = 0;
};

class coreservation_worker_state
    : public coordinator_state<coreservation_worker_state, msg::checked_coreservation_request,
                               msg::coreservation_reply, coreservation_job> {
 public:
  using base = coordinator_state<coreservation_worker_state, msg::checked_coreservation_request,
                                 msg::coreservation_reply, coreservation_job>;
  using base::base;
  static inline const char* name = "arb.coreservation_worker";

  coreservation_coordinator_actor::behavior_type make_behavior(broker_config cfg,
                                                               const broker_actor& broker) {
    return coordinator_behavior(std::move(cfg), broker);
  }

  // -- the coordinator base's hooks ----------------------------------------------------------
  job_ptr make_job(msg::request_no no, const msg::checked_coreservation_request& req) const;
  void start(const job_ptr& j, const std::vector<const directory_entry*>& clusters);
  void settle(const job_ptr& j);
  msg::coreservation_reply failure(const coreservation_job& j, errc code,
                                   std::string message) const;
  const cluster_service_actor& service_of(const coreservation_job& j, std::size_t site) const;

 private:
  void on_probe(const job_ptr& j, std::size_t component, std::size_t site,
                const msg::probe_reply& r);
  void plan(const job_ptr& j);
  void next_attempt(const job_ptr& j);
};

}  // namespace arbroker
