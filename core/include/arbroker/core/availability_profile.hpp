#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// An inclusive range [first, last] of feasible start times.
struct start_interval {
  timestamp first = 0;
  timestamp last = 0;

  friend bool operator==(const start_interval&, const start_interval&) = default;
};

/// The availability profile of one cluster of `total()` CPUs: the number of free CPUs as a
/// step function of time, changed by allocations of np CPUs over half-open intervals
/// [start, end).
///
/// The profile is stored as change points (time, delta of used CPUs) in an AVL tree whose
/// nodes also hold, for their subtree in time order, the sum of deltas and the maximum and
/// minimum prefix sum. used(t) is the sum of the deltas at times <= t; free = total - used.
/// With n change points (at most two per live allocation; a point whose delta becomes 0 is
/// erased), add, remove, free_at and min_free are O(log n) in the worst case.
/// earliest_start is O((r + 1) log n) where r, the number of rounds, is at most the number
/// of busy stretches (free < np) between t0 and the answer and at most about
/// 2 (answer - t0) / dur + 2: stretches too short for dur are jumped over in one round.
/// feasible_starts is O((r + m + 1) log n) with m the number of intervals returned.
/// See core/README.md, "Availability profile".
///
/// Times of allocations must lie in [-time_infinity, time_infinity]; an allocation ending
/// at time_infinity never ends. Query times may be any int64: `s + dur` is never computed
/// in a way that can overflow.
///
/// Every operation validates its input and reports errors as values; on error nothing
/// changes. linear_profile has the same API and semantics (it is the reference).
class availability_profile {
 public:
  /// An empty profile of total_cpus CPUs; invalid_processor_range unless total_cpus > 0.
  static result<availability_profile> create(int total_cpus);

  int total() const noexcept { return total_; }

  /// Allocates np CPUs over [start, end). invalid_window if start >= end or the interval
  /// leaves [-time_infinity, time_infinity]; invalid_processor_range if np <= 0;
  /// capacity_exceeded if min_free(start, end) < np.
  status add(timestamp start, timestamp end, int np);

  /// Releases np CPUs over [start, end). Same input errors as add; not_allocated if at some
  /// instant of [start, end) fewer than np CPUs are used. (Releasing part of an earlier
  /// allocation is allowed: the profile is a step function, not a list of jobs.)
  status remove(timestamp start, timestamp end, int np);

  /// Free CPUs at instant t (total() before any allocation).
  int free_at(timestamp t) const;

  /// Minimum of free CPUs over [a, b); invalid_window if a >= b.
  result<int> min_free(timestamp a, timestamp b) const;

  /// Whether np CPUs are free over all of [a, b): min_free(a, b) >= np, without building an
  /// error for a refusal (for callers that try many windows). False for an empty window.
  bool fits(timestamp a, timestamp b, int np) const;

  /// Earliest s >= t0 such that np CPUs are free over [s, s + dur) and s + dur <= deadline.
  /// invalid_duration if dur <= 0; invalid_processor_range if np <= 0; infeasible if
  /// np > total() or there is no such s.
  result<timestamp> earliest_start(timestamp t0, duration dur, int np,
                                   timestamp deadline = time_infinity) const;

  /// Every s in [from, latest_start] with np CPUs free over [s, s + dur), as maximal,
  /// disjoint, ascending intervals (empty if there is none, in particular if np > total()).
  /// invalid_window if from > latest_start; invalid_duration if dur <= 0;
  /// invalid_processor_range if np <= 0.
  result<std::vector<start_interval>> feasible_starts(timestamp from, timestamp latest_start,
                                                      duration dur, int np) const;

  /// Number of stored change points (times at which the number of used CPUs changes).
  std::size_t change_points() const noexcept { return size_; }

  /// Forgets the past, for an owner whose clock only moves forward and that never asks
  /// about the past (the simulated LRMS): the profile keeps only the change points after t,
  /// those at or before t fold into a base level. Afterwards every query about a time before
  /// the origin is answered as at the origin, and an update counts from the origin on (its
  /// capacity check too; one wholly before the origin changes nothing): an allocation that
  /// started in the past costs one change point (its end), not two, and its removal touches
  /// only that one. A t at or before the current origin changes nothing.
  /// O((k + 1) log n) for the k change points folded.
  void advance_origin(timestamp t);

  /// The latest t given to advance_origin (the lowest timestamp if none).
  timestamp origin() const noexcept { return origin_; }

 private:
  using index = std::int32_t;
  static constexpr index nil = -1;
  // CPU counts inside the tree. Wider than int so that no sum can overflow, even with
  // total_cpus near INT_MAX and the transient state between the two updates of add/remove.
  using level = std::int64_t;

  struct node {
    timestamp key = 0;
    level delta = 0;       // change of used CPUs at key
    level sum = 0;         // sum of the deltas of the subtree
    level max_prefix = 0;  // max over the subtree's keys k of (sum of subtree deltas <= k)
    level min_prefix = 0;  // min of the same
    index left = nil;
    index right = nil;
    int height = 1;
  };

  /// used(a) and, if there are change points in (a, b), the extremes of used at them.
  struct window_levels {
    level at_a = 0;
    bool any_inside = false;
    level max_inside = 0;
    level min_inside = 0;
  };

  explicit availability_profile(int total_cpus) : total_(total_cpus) {}

  // Queries.
  level used_at(timestamp t) const;
  window_levels window(timestamp a, timestamp b) const;
  level max_used(timestamp a, timestamp b) const;
  level min_used(timestamp a, timestamp b) const;
  bool may_hit(index n, level base, level threshold, bool above) const;
  level sum_of(index n) const noexcept { return n == nil ? 0 : nodes_[n].sum; }
  class cursor;  // forward search from a position (finger search), see the .cpp
  std::optional<timestamp> last_busy_before(index n, timestamp hi, level base,
                                            level threshold) const;
  std::optional<timestamp> last_busy_in(index n, level base, level threshold) const;
  std::optional<timestamp> next_candidate(cursor& c, duration dur, level threshold) const;

  // Updates (AVL).
  void apply(timestamp start, timestamp end, level delta);
  void update(timestamp key, level delta);
  index erase_node(index n);
  index remove_min(index n, index& min_node);
  index rebalance(index n);
  index rotate_left(index n);
  index rotate_right(index n);
  int pull(index n);
  int height(index n) const noexcept { return n == nil ? 0 : nodes_[n].height; }
  index new_node(timestamp key, level delta);
  void free_node(index n);

  int total_;
  timestamp origin_ = std::numeric_limits<timestamp>::min();
  level base_ = 0;  // used CPUs at the origin, before the first change point of the tree
  index root_ = nil;
  std::size_t size_ = 0;
  std::vector<node> nodes_;       // node pool; indices stay valid across reallocation
  std::vector<index> free_list_;  // unused slots of nodes_
};

}  // namespace arbroker
