#pragma once

// Poisson arrivals: exponential inter-arrival times of a fixed mean, seeded.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"
#include "arbroker/sim/random_variates.hpp"
#include "arbroker/sim/swf.hpp"

namespace arbroker::sim {

/// A Poisson process started at `start`: each next() adds an exponential gap of mean
/// `mean_interarrival` seconds to a real-valued clock and returns the clock rounded down to
/// whole seconds (the clock itself is not rounded, so no drift accumulates). The first
/// arrival is one gap after `start`. Same seed, same times.
class poisson_arrivals {
 public:
  /// errc::invalid_parameter unless mean_interarrival is finite and > 0.
  static result<poisson_arrivals> create(double mean_interarrival, std::uint64_t seed,
                                         timestamp start = 0);

  timestamp next();
  double mean_interarrival() const noexcept { return mean_; }

 private:
  poisson_arrivals(double mean, std::uint64_t seed, timestamp start)
      : rng_(seed), mean_(mean), clock_(static_cast<double>(start)) {}

  rng_engine rng_;
  double mean_;
  double clock_;
};

/// `n` arrival times of a fresh poisson_arrivals(mean_interarrival, seed, start).
result<std::vector<timestamp>> poisson_arrival_times(double mean_interarrival, std::size_t n,
                                                     std::uint64_t seed, timestamp start = 0);

/// Gives the jobs, in order, the submit times of `arrivals` (e.g. to drive the runtimes and
/// sizes of a trace or of the Lublin model with Poisson arrivals instead).
void assign_submit_times(std::span<swf_job> jobs, poisson_arrivals& arrivals);

}  // namespace arbroker::sim
