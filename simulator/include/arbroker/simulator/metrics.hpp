#pragma once
// The metrics experiment 1 needs (paper 000 Sec. 4), computed from a run's output in one
// place. When sim_backend gains its metrics collector (W_R, P_b, Q, R_OD, R_AR, ...), these
// functions are meant to delegate to it.

#include <cstddef>
#include <vector>

#include "arbroker/simulator/driver.hpp"

namespace arbroker::sim {

/// Mean per-request counts of the broker's stats (paper 000 Fig. 7), over one set of requests.
struct request_counts {
  std::size_t requests = 0;
  double candidates = 0;
  double above_threshold = 0;
  double rejected_by_service = 0;
  double rejected_by_lrms = 0;
};

struct run_summary {
  std::size_t requests = 0;
  std::size_t successes = 0;
  std::size_t jobs = 0;
  std::size_t jobs_started = 0;
  double mean_wait = 0;  ///< MWT of the local jobs that started, seconds
  request_counts succeeded;
  request_counts failed;
};

run_summary summarize(const sim_output& out);

/// Per-job extra wait against a baseline run of the same jobs (paper 000 Fig. 8): wait -
/// baseline wait for every job that started in both, sorted ascending. The two outputs must
/// hold the same jobs in the same order (else an empty vector).
std::vector<duration> additional_waits(const sim_output& run, const sim_output& baseline);

}  // namespace arbroker::sim
