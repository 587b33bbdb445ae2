#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

// Laxity, remaining laxity and the laxity impact used by the Minimum Laxity Impact (MLI)
// matchmaker (paper 002, Sec. 3.1.7, eq. 3.1-3.4).

/// One advance reservation in a resource's schedule. Plain data; the functions below
/// validate it: 0 <= earliest_start < deadline <= time_infinity (time_infinity: no
/// deadline), 0 < runtime < time_infinity, earliest_start <= scheduled_start < time_infinity.
struct scheduled_job {
  std::string id;
  timestamp earliest_start = 0;   ///< t_i
  duration runtime = 0;           ///< e_i on this resource
  timestamp deadline = 0;         ///< d_i: must finish by then
  timestamp scheduled_start = 0;  ///< s_i: where the resource's scheduler currently put it

  friend bool operator==(const scheduled_job&, const scheduled_job&) = default;
};

/// Eq. 3.1: LX = d - e - t. Negative when the window [t, d) is shorter than the runtime,
/// i.e. the job cannot meet its deadline anywhere on this resource. scheduled_start is not
/// looked at. Fails with invalid_duration for a bad runtime, invalid_window for d <= t,
/// invalid_parameter for times outside [0, time_infinity].
result<duration> laxity(const scheduled_job& job);

/// Eq. 3.2: RL = d - e - s. Negative when the schedule makes the job miss its deadline.
/// Fails as laxity() and, with invalid_parameter, for s < t or s >= time_infinity.
result<duration> remaining_laxity(const scheduled_job& job);

/// Eq. 3.3-3.4: zeta = sum over C of (RL_i before - RL_i after) = sum of (s_i after - s_i
/// before), where C holds the jobs of `before` scheduled to start at or after `arrival`
/// (a_j; a job starting exactly then has not been committed to the CPUs yet, and counting
/// it is harmless when it did not move). Jobs are matched by id. `after` may hold the new
/// job `new_job_id`, which is not part of C. Positive zeta: jobs were pushed towards their
/// deadlines; negative: the scheduler pulled them forward.
/// Fails with not_found when a job of `before` is missing from `after` or `after` holds a
/// job other than the new one that `before` lacks; invalid_parameter for an empty or
/// duplicate id, the new job already in `before`, a matched job whose t, e or d changed,
/// arrival outside [0, time_infinity), a sum reaching time_infinity; and any error of
/// remaining_laxity() for a job of either schedule.
result<duration> laxity_impact(std::span<const scheduled_job> before,
                               std::span<const scheduled_job> after, timestamp arrival,
                               std::string_view new_job_id);

/// What one resource reports to the MLI matchmaker for a new job.
struct mli_option {
  bool meets_qos = true;          ///< false: the resource cannot meet the job's deadline
  duration zeta = 0;              ///< laxity_impact() on this resource
  timestamp completion_time = 0;  ///< of the new job on this resource
  double relative_speed = 1.0;    ///< speed relative to a reference resource (1 = identical)

  friend bool operator==(const mli_option&, const mli_option&) = default;
};

/// MLI: among the options that meet QoS, the index of the one with the smallest scaled
/// zeta = zeta * relative_speed, ties (exact equality) broken by the smaller completion
/// time, then by the lower index. Scaling converts seconds of lost laxity into seconds of
/// reference-resource work: slack on a resource twice as fast could have absorbed twice as
/// much future work, so losing it costs twice as much. With identical resources it reduces
/// to the paper's plain zeta. Fails with invalid_parameter for an empty list, or for a
/// QoS-meeting option with relative_speed not positive and finite, |zeta| >= time_infinity
/// or completion_time outside [0, time_infinity); infeasible when no option meets QoS.
/// Options that do not meet QoS are neither validated nor chosen.
result<std::size_t> choose_min_laxity_impact(std::span<const mli_option> options);

}  // namespace arbroker
