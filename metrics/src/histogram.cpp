#include <algorithm>
#include <cmath>

#include "arbroker/metrics/metric.hpp"

namespace arbroker::metrics {

histogram::histogram(std::shared_ptr<const std::vector<double>> bounds)
    : bounds_(std::move(bounds)),
      counts_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds_->size() + 1)) {}

void histogram::observe(double v) noexcept {
  const auto& b = *bounds_;
  // lower_bound compares false against NaN and would put it first; it belongs in +Inf.
  const auto i =
      std::isnan(v) ? b.size()
                    : static_cast<std::size_t>(std::lower_bound(b.begin(), b.end(), v) - b.begin());
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

histogram::snapshot histogram::read() const {
  snapshot s;
  s.cumulative.resize(bounds_->size() + 1);
  std::uint64_t running = 0;
  for (std::size_t i = 0; i <= bounds_->size(); ++i) {
    running += counts_[i].load(std::memory_order_relaxed);
    s.cumulative[i] = running;
  }
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace arbroker::metrics
