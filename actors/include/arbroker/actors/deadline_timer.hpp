#pragma once

// Many deadlines behind one timer: an actor that keeps requests in flight (the broker for
// its workers, the matchmaker for its requests) sets a CAF timer only when the earliest
// deadline moves earlier, not once per request. CAF 0.17 wakes its clock thread for every
// timer set, so a timer per request costs a thread hand-off per request.

#include <optional>
#include <set>
#include <utility>

#include "arbroker/core/time.hpp"

namespace arbroker {

template <class Key>
class deadline_timer {
 public:
  /// Adds a deadline; returns the time to set a timer for when none is set that early.
  std::optional<timestamp> add(timestamp t, Key key) {
    pending_.emplace(t, std::move(key));
    return arm();
  }

  /// Forgets a deadline (its request was answered).
  void remove(timestamp t, const Key& key) { pending_.erase({t, key}); }

  /// On the timer: `due(key)` for every deadline <= now, each removed first; returns the
  /// time to set the next timer for, if any deadline is left.
  template <class Due>
  std::optional<timestamp> fire(timestamp now, Due due) {
    armed_ = time_infinity;
    while (!pending_.empty() && pending_.begin()->first <= now) {
      Key key = pending_.begin()->second;
      pending_.erase(pending_.begin());
      due(key);
    }
    return arm();
  }

 private:
  std::optional<timestamp> arm() {
    if (pending_.empty() || pending_.begin()->first >= armed_) return std::nullopt;
    armed_ = pending_.begin()->first;
    return armed_;
  }

  std::set<std::pair<timestamp, Key>> pending_;
  timestamp armed_ = time_infinity;  ///< the earliest timer set and not yet fired
};

}  // namespace arbroker
