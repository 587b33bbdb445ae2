#pragma once
// A run's measures. Every formula lives in sim_backend's metrics_collector
// (arbroker/sim/metrics.hpp); this file only feeds it a run's records.

#include <cstddef>
#include <optional>
#include <vector>

#include "arbroker/sim/metrics.hpp"
#include "arbroker/simulator/driver.hpp"

namespace arbroker::sim {

/// Which records to feed: all, or those of one cluster (a request counts for the cluster
/// that granted it; a refused one for none, unless `requests_of` says where it was meant).
struct collect_filter {
  std::optional<int> cluster;
  /// Per request (as in the output), the cluster it was restricted to; empty: unknown.
  const std::vector<int>* requests_of = nullptr;
};

/// A collector fed with the run's local jobs (submit, first start: MWT), every busy span
/// (U), and the requests as advance reservations or on-demand jobs (est as the requested
/// start, np_ref x
/// dur_ref as the work, the broker's counts; a bound job's end as the completion). Callers
/// may record more (e.g. work the run did not simulate) before asking for the summary.
result<metrics_collector> collect(const sim_output& out, const collect_filter& filter = {});

/// The summary over [first submit, end of the run] (U over that interval).
struct run_summary {
  std::size_t requests = 0;
  std::size_t successes = 0;
  std::size_t jobs = 0;
  std::size_t jobs_started = 0;
  double mean_wait = 0;  ///< MWT of the local jobs that started, seconds (0: none)
  broker_effort succeeded;
  broker_effort failed;
  metrics_summary metrics;  ///< everything else
};

run_summary summarize(const sim_output& out);

/// Per-job extra wait against a baseline run of the same jobs (paper 000 Fig. 8): wait -
/// baseline wait for every job that started in both, sorted ascending. The two outputs must
/// hold the same jobs in the same order (else an empty vector).
std::vector<duration> additional_waits(const sim_output& run, const sim_output& baseline);

}  // namespace arbroker::sim
