#pragma once

// The RLC scheduler of paper 002 (Sec. 3, 4, 5.3) as a part of a cluster service with
// `laxity = true`: committed reservations that came with a window are kept in an
// earliest-deadline-first plan (core/laxity_plan.hpp) and moved on the LRMS when the plan
// changes. Holds and started reservations never move.
//
// The planner decides; the service acts. It reads the movable reservations from the
// reservation ledger and a base profile from the LRMS view, plans (room for a new span
// pinned at its terms, reservations pulled forward after an early end, the match advisor's
// placement and zeta), and hands each move to the service's `move` callback, which carries
// it out as an owner's modify is (make-before-break on the LRMS, the journal, the view, the
// ledger). Its own state is one flag: an early end asked for a pull forward.
//
// Complexity: movable() O(m log m) over the m movable reservations; the plans are
// core/laxity_plan.hpp's; apply() O(k^2) calls of `move` at most for k moves (each round
// retries what the LRMS refused while another move made progress).

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "arbroker/core/availability_profile.hpp"
#include "arbroker/core/laxity_plan.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/core/reservation_ledger.hpp"
#include "arbroker/messages/cluster_protocol.hpp"

namespace arbroker {

class laxity_planner {
 public:
  /// Moves reservation `serial` to start at `start` (same length); false when the LRMS (or
  /// the journal) refused it, which leaves it where it was.
  using mover = std::function<bool(std::uint64_t serial, timestamp start)>;

  /// The reservations that may still move, and `base` without their spans.
  struct movable_set {
    std::vector<laxity_job> jobs;  ///< key = serial
    availability_profile fixed;
  };
  /// From the ledger's movable index: committed, not started at `now`, and held by `base`
  /// (a span the base does not hold, a stale view, stays where it is, as if rigid).
  static movable_set movable(const reservation_ledger& ledger, const availability_profile& base,
                             timestamp now);

  /// Moves `jobs` to `starts` through `move`: moves forward first (earliest first), then
  /// moves back (latest first), since make-before-break needs each new span free while the
  /// others are still where they were; a move refused is tried again after the others made
  /// room, as long as one succeeds. Returns how many moved.
  static std::size_t apply(const std::vector<laxity_job>& jobs,
                           const std::vector<timestamp>& starts, const mover& move);

  /// Makes room on `free` for a span pinned at [start, end) x np (a hold, an overrun
  /// quantum): the plan around it, applied. True when any reservation moved.
  static bool make_room(const reservation_ledger& ledger, timestamp start, timestamp end, int np,
                        const availability_profile& free, timestamp now, const mover& move);

  /// After reservations ended early: the movable ones pulled forward on `base`, applied.
  static std::size_t pull_forward(const reservation_ledger& ledger,
                                  const availability_profile& base, timestamp now,
                                  const mover& move);

  /// The match advisor on a laxity cluster of `cpus` CPUs: the EDF placement on `free` of
  /// the best of `shapes` within [ready, deadline] (the earliest end, then the fewest CPUs)
  /// and its zeta over the movable reservations (eq. 3.3), into `out`.
  static void advise(const reservation_ledger& ledger, int cpus, timestamp ready,
                     timestamp deadline, const std::vector<job_shape>& shapes,
                     const availability_profile& free, timestamp now, msg::advice_reply& out);

  /// A reservation ended early: the next sweep pulls the others forward ...
  void note_early_end() noexcept { pull_due_ = true; }
  /// ... until take_pull() says so once.
  bool pull_due() const noexcept { return pull_due_; }
  bool take_pull() noexcept { return std::exchange(pull_due_, false); }

 private:
  bool pull_due_ = false;
};

}  // namespace arbroker
