#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/metrics/family.hpp"

namespace arbroker::metrics {

namespace detail {
struct family_base;
}

/// The metrics of one process and their Prometheus text rendering. Thread-safe: families and
/// label sets may be added from any thread while others update metrics and a scraper renders.
///
/// Registering a name again with the same type, help, labels (and buckets) returns the same
/// family, so independent components can share one; any difference is an error.
/// Names must match [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]* without a
/// leading "__" (and no "le" on a histogram).
class registry {
 public:
  registry();
  ~registry();
  registry(const registry&) = delete;
  registry& operator=(const registry&) = delete;

  result<family<counter>> add_counter(std::string name, std::string help,
                                      std::vector<std::string> label_names = {});
  result<family<gauge>> add_gauge(std::string name, std::string help,
                                  std::vector<std::string> label_names = {});
  /// `bounds`: finite, strictly increasing bucket upper bounds (+Inf is implicit).
  result<family<histogram>> add_histogram(std::string name, std::string help,
                                          std::vector<double> bounds,
                                          std::vector<std::string> label_names = {});

  /// Every family in registration order, label sets sorted by their values, in the text
  /// exposition format 0.0.4.
  std::string render() const;

 private:
  template <class Metric>
  result<family<Metric>> add(std::unique_ptr<detail::family_state<Metric>> f);

  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<detail::family_base>> families_;
};

/// Bucket bounds for request latencies in seconds: 1 ms to 60 s.
std::vector<double> latency_buckets();

}  // namespace arbroker::metrics
