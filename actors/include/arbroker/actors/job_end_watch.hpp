#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "arbroker/adapters/lrms.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// Under job_end_policy::release (paper 003, Sec. 3.1; the policy is reservation_jobs.cpp):
/// the reservations with bound jobs, all looked at together (one LRMS snapshot) at most
/// `every` after a job was bound and then every `every` while any is watched, so that the cost
/// is one snapshot per interval however many reservations wait for their jobs.
///
/// Complexity: O(log n) per change in the number of reservations watched.
class job_end_watch {
 public:
  using serial_t = std::uint64_t;

  /// every: the look's interval (at least 1 s).
  explicit job_end_watch(duration every) : every_(every < 1 ? 1 : every) {}

  /// Jobs were bound to reservation `n` at `now`: looked at within `every`.
  void watch(serial_t n, timestamp now);
  /// No longer looked at (its jobs were unbound, or it ended).
  void forget(serial_t n) { watched_.erase(n); }
  /// The reservations watched, in serial order.
  const std::set<serial_t>& watched() const noexcept { return watched_; }
  /// When the next look is due; nothing while none is watched.
  std::optional<timestamp> next() const;
  bool due(timestamp now) const { return !watched_.empty() && now >= look_at_; }
  /// A look was made (or failed) at `now`: the next one `every` later, if any is watched.
  void looked(timestamp now) { look_at_ = watched_.empty() ? time_infinity : now + every_; }

  /// The jobs bound to a watched reservation, or nullptr when it is gone or has ended.
  using jobs_of = std::function<const std::vector<std::string>*(serial_t)>;
  /// A look at `now` through the LRMS's snapshot: the reservations whose jobs have all left
  /// the LRMS (none queued, none running), to be released, in serial order. They, and those
  /// gone or ended, are no longer watched; the next look is `every` later.
  std::vector<serial_t> look(const lrms_snapshot& snap, const jobs_of& jobs, timestamp now);

 private:
  duration every_;
  std::set<serial_t> watched_;
  timestamp look_at_ = time_infinity;
};

}  // namespace arbroker
