#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "arbroker/core/availability_profile.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

// The resource-level scheduler of paper 002 (the RLC's Scheduler, Sec. 3, 4 and 5.3) for
// advance reservations with laxity on one cluster: a reservation (t, e, d, np) asks for np
// CPUs for e seconds, starting at or after t and ending by d; the cluster keeps the right to
// move it within [t, d - e] until it starts. Gang scheduling, earliest deadline first. See
// core/README.md, "Laxity plan".

/// One reservation with laxity. Valid when 0 < np, 0 < runtime and earliest + runtime <=
/// deadline <= time_infinity.
struct laxity_job {
  std::uint64_t key = 0;   ///< the caller's name for it (unique within one call)
  timestamp earliest = 0;  ///< t: may not start before
  duration runtime = 0;    ///< e
  timestamp deadline = 0;  ///< d: must have ended by then
  int np = 0;
  timestamp start = 0;  ///< s: where the current plan has it (ignored for a new job)

  friend bool operator==(const laxity_job&, const laxity_job&) = default;
};

/// A job that must run exactly over [start, end): no laxity (key 0). Admitting it with
/// admit_with_laxity() asks what the movable ones must do to make room for these terms.
inline laxity_job pinned_job(timestamp start, timestamp end, int np) {
  return {0, start, end - start, end, np, start};
}

/// The EDF plan of `jobs` on top of `fixed` (what never moves: running work, started or
/// rigid reservations, and whatever else the caller keeps there): jobs in order of deadline,
/// then earliest start, then key, each placed at its earliest fit at or after max(t, now)
/// given `fixed` and the jobs placed before it. The starts, in the order of `jobs`.
/// infeasible, naming the job, when one cannot end by its deadline; invalid_parameter for an
/// invalid job or a duplicate key. O(n log n + sum of the earliest_start searches).
result<std::vector<timestamp>> plan_edf(const availability_profile& fixed,
                                        std::span<const laxity_job> jobs, timestamp now);

/// What admitting a new reservation does to a cluster's plan.
struct laxity_admission {
  timestamp start = 0;            ///< the new job's start
  std::vector<timestamp> starts;  ///< the accepted jobs' starts, in their order
  duration zeta = 0;              ///< eq. 3.3: sum of (s after - s before) over them
  bool replanned = false;         ///< EDF plan (true), or the current plan kept (false)

  friend bool operator==(const laxity_admission&, const laxity_admission&) = default;
};

/// Admission control of the RLC (paper 002, Sec. 3): `accepted` are the movable reservations
/// at their current starts (not in `fixed`, which must have room for them there). The EDF
/// plan of accepted + job if it is feasible; otherwise the current plan with the job at its
/// earliest fit, nobody moved (so a cluster with laxity never refuses what a rigid one
/// would admit). zeta (eq. 3.3, the set C of eq. 3.3 being every accepted job, none of which
/// has started) is the laxity the new job costs the accepted ones: positive when they are
/// pushed toward their deadlines. infeasible when neither plan exists; the errors of
/// plan_edf otherwise (the new job's key must differ from the accepted ones').
result<laxity_admission> admit_with_laxity(const availability_profile& fixed,
                                           std::span<const laxity_job> accepted,
                                           const laxity_job& job, timestamp now);

/// After an early finish (paper 002, Sec. 5.3: "the scheduling process is triggered to
/// utilize the extra time"): each accepted job, in order of its current start, moves to its
/// earliest fit at or after max(t, now) if that is earlier than where it is, given `fixed`
/// and the others where they are by then. Nobody moves later, so every deadline still holds.
/// The new starts, in the order of `accepted`; the errors of plan_edf for invalid jobs.
result<std::vector<timestamp>> pull_forward(const availability_profile& fixed,
                                            std::span<const laxity_job> accepted, timestamp now);

}  // namespace arbroker
