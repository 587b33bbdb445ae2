#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"
#include "arbroker/core/workload.hpp"

namespace arbroker {

/// How an existing reservation that starts before the current T_wkl moves it later. The
/// paper only says "iteratively increasing T_wkl"; both readings are offered.
enum class reservation_push : std::uint8_t {
  /// T_wkl += r_np * |[r_s, r_e) n [ct, inf)| / np_site: the reservation's remaining
  /// CPU-seconds are spread over the whole site, like the waiting jobs' work.
  work_share,
  /// T_wkl = max(T_wkl, r_e): conservatively, nothing new starts before the reservation
  /// ends.
  past_end,
};

/// "work_share" / "past_end".
std::string_view to_string(reservation_push push) noexcept;

/// Tuning of the workload end time estimate.
struct load_params {
  double acc_r = 1.0;  ///< accuracy factor of running jobs' remaining times, finite, >= 0
  double acc_w = 1.0;  ///< accuracy factor of waiting jobs' wall time limits, finite, >= 0
  reservation_push push = reservation_push::work_share;
};

/// Approximate end time T_wkl of the known workload of a site with np_site CPUs at the
/// current time ct (paper 000, Sec. 3.2.3, method "load"):
///
///   T_Jr  = sum_{J_r} (np * remaining * acc_r) / sum_{J_r} np     (0 without running jobs)
///   T_Jw  = sum_{J_w} (np * walltime * acc_w) / np_site
///   T_wkl = ct + T_Jr + T_Jw
///
/// then, in order of start, each reservation with r_s < T_wkl and r_e > ct increases T_wkl
/// as `params.push` says; a larger T_wkl may bring later reservations into range. The
/// result is rounded up to whole seconds (fractions below 1e-6 s count as float noise) and
/// saturates at time_infinity.
///
/// `running` must hold only jobs that do not use reserved CPUs (those are covered by
/// `reservations`). This is also the admission check of a reserve request (Sec. 3.3.2): a
/// reservation must not start before T_wkl, so it cannot bypass waiting jobs.
///
/// Fails on ct beyond +-time_infinity, np_site <= 0, acc_r/acc_w negative or not finite,
/// a job or reservation with np <= 0 or np > np_site, a negative remaining time, a
/// walltime <= 0, or a reservation that is empty, reversed or beyond +-time_infinity.
result<timestamp> t_wkl(timestamp ct, int np_site, std::span<const running_job> running,
                        std::span<const waiting_job> waiting,
                        std::span<const reservation_span> reservations,
                        const load_params& params = {});

/// T_wkl computed step by step, for a caller that keeps its reservations ordered by start
/// and must not copy or sort them for every estimate (the capacity view): made from the
/// jobs, then offered reservations in order of start as long as `counts(r.start)`; `value()`
/// is then what t_wkl() returns for the same input. The input must be valid as t_wkl()
/// checks it (the accumulator does not check again); a reservation that does not count
/// (already over, or starting at or after the current value) changes nothing.
class t_wkl_accumulator {
 public:
  t_wkl_accumulator(timestamp ct, int np_site, std::span<const running_job> running,
                    std::span<const waiting_job> waiting, const load_params& params);

  /// The estimate so far.
  timestamp value() const noexcept { return value_; }
  /// Whether a reservation starting at `start` still counts (starts before value()); once
  /// one does not, no later-starting one does.
  bool counts(timestamp start) const noexcept { return start < value_; }
  /// Takes a reservation into the estimate (in order of start).
  void add(const reservation_span& r) noexcept;

 private:
  timestamp ct_;
  double site_;
  load_params params_;
  double w_ = 0.0;  // T_wkl - ct in seconds, relative so that large times keep precision
  timestamp value_;
};

/// esr_L(s, T_wkl): 1 if the candidate starts at or after T_wkl, else 0.
constexpr double esr_load(timestamp start, timestamp t_wkl) noexcept {
  return start >= t_wkl ? 1.0 : 0.0;
}

}  // namespace arbroker
