#pragma once

// Many deadlines behind one timer: an actor with many things due (the broker's requests in
// flight, a cluster service's holds) sets a timer only when something is due earlier than
// any timer it has set (docs/architecture.md, "CAF 0.17 constraints", 2).

#include <optional>
#include <set>
#include <utility>

#include "arbroker/core/time.hpp"

namespace arbroker {

/// The arming rule alone, for an actor that keeps its due times elsewhere (a cluster
/// service's holds are in cluster_service).
class earliest_timer {
 public:
  /// Something is due at `t`: the time to set a timer for, when none is set that early.
  std::optional<timestamp> arm(timestamp t) {
    if (t >= armed_) return std::nullopt;
    armed_ = t;
    return t;
  }

  /// The timer set last fired (an earlier one may have fired before: none is left armed).
  void fired() { armed_ = time_infinity; }

 private:
  timestamp armed_ = time_infinity;  ///< the earliest timer set and not yet fired
};

/// Deadlines by key, behind one timer.
template <class Key>
class deadline_timer {
 public:
  /// Adds a deadline; returns the time to set a timer for when none is set that early.
  std::optional<timestamp> add(timestamp t, Key key) {
    pending_.emplace(t, std::move(key));
    return timer_.arm(t);
  }

  /// Forgets a deadline (its request was answered).
  void remove(timestamp t, const Key& key) { pending_.erase({t, key}); }

  /// On the timer: `due(key)` for every deadline <= now, each removed first; returns the
  /// time to set the next timer for, if any deadline is left.
  template <class Due>
  std::optional<timestamp> fire(timestamp now, Due due) {
    timer_.fired();
    while (!pending_.empty() && pending_.begin()->first <= now) {
      Key key = pending_.begin()->second;
      pending_.erase(pending_.begin());
      due(key);
    }
    if (pending_.empty()) return std::nullopt;
    return timer_.arm(pending_.begin()->first);
  }

  std::size_t size() const { return pending_.size(); }

 private:
  std::set<std::pair<timestamp, Key>> pending_;
  earliest_timer timer_;
};

}  // namespace arbroker
