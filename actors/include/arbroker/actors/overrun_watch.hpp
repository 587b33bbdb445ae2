#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <utility>

#include "arbroker/adapters/lrms.hpp"
#include "arbroker/core/reservation_state.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// When a cluster service looks for jobs that overrun their reservation (paper 002, Sec. 5.3;
/// the policy itself is overruns.cpp): `notice` before each reservation's current end, at its
/// start when it is shorter than the notice, and again a second later while a job of it waits
/// or the LRMS cannot be read. A look is keyed by the reservation's serial and the time it was
/// asked for; one whose reservation has since moved, been extended or ended is dropped when it
/// comes due (what_now), so nobody has to take looks back. Off (watch does nothing) when
/// `quantum` is 0.
///
/// Complexity: O(log n) per look in the number of looks pending.
class overrun_watch {
 public:
  using serial_t = std::uint64_t;

  overrun_watch(duration quantum, duration notice) : quantum_(quantum), notice_(notice) {}

  bool on() const noexcept { return quantum_ > 0; }
  /// Look at reservation `n` `notice` before `end` (a new one, or a new end).
  void watch(serial_t n, timestamp end);
  /// Look at it again at `at`.
  void again(serial_t n, timestamp at) { looks_.emplace(at, n); }
  /// The earliest look pending.
  std::optional<timestamp> next() const;
  /// The earliest look due at `now`, taken off: (when it was asked for, the serial).
  std::optional<std::pair<timestamp, serial_t>> take_due(timestamp now);

  /// What a look asked for at `at` does with a reservation now [start, end) in `state`.
  enum class verdict {
    stale,     ///< not for its current end (moved, extended, ended), or not active: dropped
    at_start,  ///< shorter than the notice and not started: look again at its start
    look,      ///< active, and the look is for its end: see whether its jobs overrun
  };
  verdict what_now(timestamp at, reservation_state state, timestamp start, timestamp end) const;

  /// What a look sees of the jobs in LRMS reservation `lrms_id`, which ends at `end`.
  enum class jobs_seen {
    overrunning,  ///< one runs whose own time limit does not stop it before `end`: a quantum
    waiting,      ///< none does, but one still waits to start there: look again soon
    none,         ///< every job of it ends in time (or it has none): nothing to do
  };
  static jobs_seen jobs_at_end(const lrms_snapshot& snap, const std::string& lrms_id,
                               timestamp end);

 private:
  duration quantum_;
  duration notice_;
  std::set<std::pair<timestamp, serial_t>> looks_;  // (when, serial)
};

}  // namespace arbroker
