#pragma once

#include <cstddef>
#include <deque>
#include <optional>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// The number of idle CPUs sampled at `begin`, standing for the interval [begin, begin+delta).
struct history_record {
  timestamp begin = 0;
  int idle = 0;

  friend bool operator==(const history_record&, const history_record&) = default;
};

/// esr_H for np CPUs given the average number of idle CPUs aip (paper 000, Sec. 3.2.3):
/// 1 if 2 np <= aip, 2 - 2 np / aip if np <= aip, 0 otherwise. Continuous: it falls
/// linearly from 1 at aip = 2 np to 0 at aip = np. Fails on np <= 0 or aip negative or
/// not finite.
result<double> esr_history(int np, double aip);

/// Method "history" of the estimated success rate: a recorded utilization history H of
/// intervals of equal length delta, read through a daily pattern. For a candidate [s, e)
///
///   aip(s, e, H) = mean of H_idle over the records whose time of day intersects the
///                  time of day of [s, e)
///
/// (the paper's dp() weights are 1 or 0, so the weighted mean is a plain mean). Both the
/// records and the candidate are half-open, so a candidate ending at 08:00 does not touch
/// the record beginning at 08:00; a candidate of a day or longer touches every record;
/// a candidate crossing midnight touches the records at both ends of the day.
///
/// No time zone is needed: records and candidates are timestamps of the same clock, and
/// whether two times of day overlap on the 24 h circle does not change when both are
/// shifted by the same offset.
class history {
 public:
  /// delta in (0, 86400] s (a coarser sample carries no time-of-day information);
  /// max_records > 0 keeps only the newest max_records samples (oldest dropped first),
  /// 0 keeps all.
  static result<history> create(duration delta, std::size_t max_records = 0);

  /// Appends a sample. Samples come in time order and do not overlap: begin must be at
  /// least the previous begin + delta (gaps, i.e. missed samples, are fine). idle >= 0.
  status record(timestamp begin, int idle);

  /// Average number of idle CPUs over the records matching [s, e); std::nullopt when no
  /// record matches (empty history, or no sample at that time of day yet). Fails on
  /// s >= e or a time beyond +-time_infinity.
  result<std::optional<double>> aip(timestamp s, timestamp e) const;

  /// esr_H(s, e, np, H). When no record matches, 1.0: no evidence against the candidate
  /// (the paper observes that history filtered nothing while little had been recorded).
  /// Fails like aip() and on np <= 0.
  result<double> esr(timestamp s, timestamp e, int np) const;

  duration delta() const noexcept { return delta_; }
  std::size_t max_records() const noexcept { return max_records_; }
  const std::deque<history_record>& records() const noexcept { return records_; }

 private:
  history() = default;

  duration delta_ = 1;
  std::size_t max_records_ = 0;
  std::deque<history_record> records_;
};

}  // namespace arbroker
