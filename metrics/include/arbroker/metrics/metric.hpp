#pragma once

// The three kinds of metric. Updates are lock-free atomics: a caller keeps the reference a
// family handed out and updates it from any thread.

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace arbroker::metrics {

/// A count that only goes up (requests, commits, expiries).
class counter {
 public:
  void inc(std::uint64_t n = 1) noexcept { value_.fetch_add(n, std::memory_order_relaxed); }
  std::uint64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

/// A value that goes up and down (holds in place, reserved CPUs).
class gauge {
 public:
  void set(double v) noexcept { value_.store(v, std::memory_order_relaxed); }
  void add(double d) noexcept { value_.fetch_add(d, std::memory_order_relaxed); }
  void inc() noexcept { add(1); }
  void dec() noexcept { add(-1); }
  double value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

/// Observations counted into buckets by upper bound (latencies in seconds).
class histogram {
 public:
  /// `bounds`: finite, strictly increasing upper bounds, shared by a family (checked there).
  explicit histogram(std::shared_ptr<const std::vector<double>> bounds);

  /// Counts `v` in the first bucket whose bound is >= v (NaN and values above every bound go
  /// to the implicit +Inf bucket) and adds it to the sum.
  void observe(double v) noexcept;

  struct snapshot {
    std::vector<std::uint64_t> cumulative;  ///< per bound, then +Inf (== count)
    double sum = 0;
    std::uint64_t count = 0;
  };
  /// The current counts, cumulative as the exposition format wants them. Concurrent
  /// observations may or may not be in it, but count always equals the +Inf bucket.
  snapshot read() const;

  const std::vector<double>& bounds() const noexcept { return *bounds_; }

 private:
  std::shared_ptr<const std::vector<double>> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;  ///< per bucket, not cumulative
  std::atomic<double> sum_{0};
};

}  // namespace arbroker::metrics
