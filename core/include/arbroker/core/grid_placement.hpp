#pragma once

// What one cluster would cost a grid job (paper 003 Sec. 3.2): its execution time (from the
// user's benchmarks, or the walltime), the walltime to ask for, and the staging times; and
// the job's total time to delivery there once the cluster says when it would start.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/runtime_prediction.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// What the job brings: its walltime and the hints of Sec. 3.2.
struct placement_inputs : runtime_hints {
  duration walltime = 0;  ///< the user's limit; 0 when benchmarks give it
  /// Paper 004 eq. 1-3: the power of the CPU `walltime` holds for (0: none named, the
  /// walltime holds everywhere). On a cluster of power pp the job takes walltime x alpha,
  /// alpha = pp_ref / pp (eq. 2, one power per cluster).
  double pp_ref = 0;
};

/// The job on one cluster.
struct placement_terms {
  duration execution = 0;  ///< mean benchmark estimate, or the walltime
  duration walltime = 0;   ///< sent to the LRMS: the largest estimate (or the user's limit)
  duration stage_in = 0;
  std::optional<duration> stage_out;
  friend bool operator==(const placement_terms&, const placement_terms&) = default;
};

/// Seconds to move `bytes` at `bytes_per_second`, rounded up; 0 for no bytes or an unknown
/// (0) bandwidth.
duration transfer_seconds(std::int64_t bytes, double bytes_per_second);

/// The terms on a cluster publishing `benchmarks` with `bandwidth`, of CPU power `pp`. With
/// benchmarks, the prediction's errors (not_found when the cluster publishes none of them);
/// the user's walltime, when given, caps nothing: the LRMS gets the largest estimate, as paper
/// 003. Without them, the walltime scaled by alpha = pp_ref / pp when the job names pp_ref
/// (both as execution and as the LRMS's limit); invalid_parameter for a pp that is no power.
/// Stage-in moves the input not already there (runtime_hints::held_at, by benchmarks.name).
result<placement_terms> terms_on(const placement_inputs& job, const cluster_benchmarks& benchmarks,
                                 double bandwidth, double pp = 1);

/// TTD = max(stage_in, start - now) + execution + stage_out.
result<duration> ttd_at(const placement_terms& t, timestamp now, timestamp start);

}  // namespace arbroker
