#include "arbroker/core/linear_profile.hpp"

#include <algorithm>

#include "profile_rules.hpp"

namespace arbroker {

result<linear_profile> linear_profile::create(int total_cpus) {
  if (auto ok = detail::check_total("linear_profile", total_cpus); !ok) return ok.err();
  return linear_profile(total_cpus);
}

// Minimum and maximum of used CPUs over [a, b), by one scan from the first change point.
linear_profile::extremes linear_profile::used_over(timestamp a, timestamp b) const {
  int used = base_;
  auto it = deltas_.begin();
  for (; it != deltas_.end() && it->first <= a; ++it)
    used += it->second;
  extremes out{used, used};
  for (; it != deltas_.end() && it->first < b; ++it) {
    used += it->second;
    out.min_used = std::min(out.min_used, used);
    out.max_used = std::max(out.max_used, used);
  }
  return out;
}

// Adds delta at key; a change point whose delta becomes 0 is erased. Each stored delta is
// a difference of two used levels of a consistent profile, so it lies in [-total, total].
void linear_profile::bump(timestamp key, int delta) {
  if (key <= origin_) {
    base_ += delta;
    return;
  }
  const auto [it, inserted] = deltas_.try_emplace(key, 0);
  it->second += delta;
  if (it->second == 0) deltas_.erase(it);
}

status linear_profile::add(timestamp start, timestamp end, int np) {
  if (auto ok = detail::check_allocation("linear_profile::add", start, end, np); !ok)
    return ok.err();
  const int free = end > origin_ ? total_ - used_over(start, end).max_used : total_;
  if (free < np) return detail::over_capacity("linear_profile::add", start, end, np, free);
  bump(start, np);
  bump(end, -np);
  return {};
}

status linear_profile::remove(timestamp start, timestamp end, int np) {
  if (auto ok = detail::check_allocation("linear_profile::remove", start, end, np); !ok)
    return ok.err();
  const int used = end > origin_ ? used_over(start, end).min_used : np;
  if (used < np) return detail::not_allocated("linear_profile::remove", start, end, np, used);
  bump(start, -np);
  bump(end, np);
  return {};
}

int linear_profile::free_at(timestamp t) const {
  int used = base_;
  for (auto it = deltas_.begin(); it != deltas_.end() && it->first <= t; ++it)
    used += it->second;
  return total_ - used;
}

void linear_profile::advance_origin(timestamp t) {
  if (t <= origin_) return;
  origin_ = t;
  while (!deltas_.empty() && deltas_.begin()->first <= t) {
    base_ += deltas_.begin()->second;
    deltas_.erase(deltas_.begin());
  }
}

result<int> linear_profile::min_free(timestamp a, timestamp b) const {
  if (auto ok = detail::check_window("linear_profile::min_free", a, b); !ok) return ok.err();
  return total_ - used_over(a, b).max_used;
}

// One sweep over the change points in time order, keeping the start of the current stretch
// where used <= total - np (the only candidates for the earliest start are t0 and the starts
// of such stretches). A candidate is the answer as soon as the sweep reaches a change point
// at or after its end without leaving the stretch.
result<timestamp> linear_profile::earliest_start(timestamp t0, duration dur, int np,
                                                 timestamp deadline) const {
  constexpr const char* who = "linear_profile::earliest_start";
  if (auto ok = detail::check_request(who, dur, np); !ok) return ok.err();
  if (np > total_) return detail::too_many_cpus(who, np, total_);
  const int threshold = total_ - np;
  int used = base_;
  auto it = deltas_.begin();
  for (; it != deltas_.end() && it->first <= t0; ++it)
    used += it->second;
  // (A flag and a value rather than std::optional: GCC 12 warns maybe-uninitialized.)
  bool in_stretch = used <= threshold;
  timestamp candidate = t0;
  for (; it != deltas_.end(); ++it) {
    if (in_stretch) {
      if (!detail::ends_by(candidate, dur, deadline)) break;
      if (detail::ends_by(candidate, dur, it->first)) return candidate;
    }
    used += it->second;
    if (used > threshold) {
      in_stretch = false;
    } else if (!in_stretch) {
      in_stretch = true;
      candidate = it->first;
    }
  }
  if (in_stretch && detail::ends_by(candidate, dur, deadline)) return candidate;
  return detail::no_start(who, t0, dur, np, deadline);
}

// The same sweep, emitting for every stretch [c, e) with used <= total - np the starts
// [c, e - dur] clipped to [from, latest_start].
result<std::vector<start_interval>> linear_profile::feasible_starts(timestamp from,
                                                                    timestamp latest_start,
                                                                    duration dur, int np) const {
  constexpr const char* who = "linear_profile::feasible_starts";
  if (auto ok = detail::check_start_window(who, from, latest_start); !ok) return ok.err();
  if (auto ok = detail::check_request(who, dur, np); !ok) return ok.err();
  std::vector<start_interval> out;
  if (np > total_) return out;
  const int threshold = total_ - np;
  int used = base_;
  auto it = deltas_.begin();
  for (; it != deltas_.end() && it->first <= from; ++it)
    used += it->second;
  bool in_stretch = used <= threshold;
  timestamp stretch = from;  // start of the current stretch, clipped to from
  for (; it != deltas_.end(); ++it) {
    used += it->second;
    if (used > threshold) {
      if (in_stretch && detail::ends_by(stretch, dur, it->first))
        out.push_back({stretch, std::min(it->first - dur, latest_start)});
      in_stretch = false;
    } else if (!in_stretch) {
      if (it->first > latest_start) break;
      in_stretch = true;
      stretch = it->first;
    }
  }
  if (in_stretch) out.push_back({stretch, latest_start});
  return out;
}

}  // namespace arbroker
