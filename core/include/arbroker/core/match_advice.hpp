#pragma once

#include <vector>

#include "arbroker/core/earliest_start.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

// The Match Advisor of paper 002 (Sec. 3, Fig. 2): what one cluster reports to the
// matchmaker about a new job, computed from the cluster's known workload.

/// The job to place: ready at `ready`, done by `deadline` (time_infinity: no deadline), in
/// any of `shapes` (e.g. the reservable CPU counts of an elastic request).
struct match_job {
  timestamp ready = 0;
  timestamp deadline = time_infinity;
  std::vector<job_shape> shapes;
};

/// The advisor's report. When meets_qos is false only utilization, busy_cores and
/// longest_walltime are meaningful.
struct match_advice {
  bool meets_qos = false;         ///< some shape fits [ready, deadline]
  job_shape shape;                ///< the shape with the earliest completion (fewer CPUs on a tie)
  timestamp start = 0;            ///< its earliest start (ESE under the given policy)
  timestamp completion = 0;       ///< start + shape.dur
  duration zeta = 0;              ///< laxity impact (eq. 3.3) on the queued local jobs
  double utilization = 0;         ///< booked share of the CPU-seconds of the window, before
  double utilization_after = 0;   ///< the same with the job placed
  int busy_cores = 0;             ///< CPUs of running and queued local jobs (SED's job cores)
  duration longest_walltime = 0;  ///< longest walltime of those jobs (SED's max walltime)

  friend bool operator==(const match_advice&, const match_advice&) = default;
};

/// Places the job at the earliest completion over its shapes (estimate_earliest_start
/// under `policy`), and reports:
/// - zeta: laxity_impact() of the placement on the queued local jobs, planned FIFO
///   (plan_workload, local jobs preferred) before and after the reservation is added; local
///   jobs have no deadline (time_infinity). Reservations and running jobs are rigid and do
///   not move, so only queued jobs contribute: 0 when the job waits for the queue, positive
///   when it jumps ahead (policy reservations_first) and pushes local jobs back.
/// - utilization: CPU-seconds of running jobs, reservations and planned queued jobs within
///   the window [max(now, ready), deadline) -- [.., completion) without a deadline -- over
///   cpus times its length.
/// `committed`, when given, is the availability profile of w's running jobs and
/// reservations from `now` on (what plan_workload builds first; a reservation service keeps
/// one), used as it is for placing under reservations_first instead of building it again.
/// Fails with invalid_parameter for no shapes, a shape with np < 1 or dur <= 0, ready or
/// deadline outside [0, time_infinity] or deadline <= ready; with the errors of
/// plan_workload() for a bad workload (not checked where `committed` replaces the plan).
result<match_advice> advise_match(const cluster_workload& w, timestamp now, const match_job& job,
                                  ese_policy policy,
                                  const availability_profile* committed = nullptr);

}  // namespace arbroker
