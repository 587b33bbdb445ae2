#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "arbroker/metrics/metric.hpp"

namespace arbroker::metrics {

namespace detail {
template <class Metric>
struct family_state;
}

/// A handle on one registered metric name: the metrics of all its label sets. Cheap to copy;
/// valid as long as the registry that made it.
///
///   auto requests = *reg.add_counter("arb_requests_total", "...", {"operation", "outcome"});
///   counter& reserved_ok = requests.with({"reserve", "ok"});  // once, e.g. at start
///   reserved_ok.inc();                                        // hot path: one atomic add
template <class Metric>
class family {
 public:
  explicit family(detail::family_state<Metric>* state) : state_(state) {}

  /// The metric of these label values, in the order of the label names: created on first use,
  /// the same object afterwards (keep the reference). Passing a different number of values
  /// than there are label names is a programming error: throws std::invalid_argument.
  Metric& with(std::initializer_list<std::string_view> values) const;
  Metric& with(std::span<const std::string> values) const;

  /// The metric of a family without labels.
  Metric& get() const { return with({}); }

  const std::string& name() const;

 private:
  detail::family_state<Metric>* state_;
};

}  // namespace arbroker::metrics
