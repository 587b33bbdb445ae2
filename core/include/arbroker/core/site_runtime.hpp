#pragma once

// An elastic request on one cluster with paper 003's hints (Sec. 3.2): the run time from the
// user's benchmarks instead of processor-power scaling, a start no earlier than the input can
// arrive, and the terms of the time to delivery (TTD) that the `ttd` matchmaking policy ranks.

#include <optional>

#include "arbroker/core/error.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/core/runtime_prediction.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// What a slot reserved on one cluster delivers, apart from its start and length.
struct delivery_terms {
  /// TTD's execution term per reserved second: mean / largest estimate, each rounded up to
  /// whole seconds as terms_on gives them (ranking uses the mean, paper 003); 1 without
  /// benchmarks.
  double execution_share = 1;
  duration stage_in = 0;
  std::optional<duration> stage_out;  ///< empty when the output size is unknown
};

/// The request as one cluster sees it, and what a reserved slot there delivers.
struct site_runtime {
  /// With benchmarks: dur_ref is the largest estimate (what is reserved, as paper 003 sends
  /// the largest as walltime) at the cluster's own power (pp_ref = the site's pp). With input
  /// files: est is no earlier than now + stage-in. Otherwise the request unchanged.
  elastic_request req;
  delivery_terms delivery;
};

/// The request on `site`, which publishes `published` and moves data at `bandwidth` bytes/s
/// (0: unknown, staging counts as free). Fails with predict_runtime's errors (not_found when
/// the cluster publishes none of the benchmarks) and with infeasible when the input cannot
/// arrive before the window's latest end.
result<site_runtime> runtime_on_site(const elastic_request& req, const site_description& site,
                                     const cluster_benchmarks& published, double bandwidth,
                                     timestamp now);

/// TTD's terms for the slot [start, end) on that cluster, asked at `now`.
ttd_components ttd_terms(const delivery_terms& d, timestamp now, timestamp start, timestamp end);

}  // namespace arbroker
