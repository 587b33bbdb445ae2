#pragma once

#include <vector>

namespace arbroker::metrics {

/// Histogram bounds for latencies in seconds, 100 µs to 60 s: one set for every latency the
/// node exports, so that their quantiles compare.
inline std::vector<double> latency_buckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
          0.1,    0.25,    0.5,    1,     2.5,    5,     10,   30,    60};
}

}  // namespace arbroker::metrics
