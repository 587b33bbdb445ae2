#include "arbroker/actors/overrun_watch.hpp"

#include <algorithm>

namespace arbroker {

void overrun_watch::watch(serial_t n, timestamp end) {
  if (on()) looks_.emplace(end - notice_, n);
}

std::optional<timestamp> overrun_watch::next() const {
  if (looks_.empty()) return std::nullopt;
  return looks_.begin()->first;
}

std::optional<std::pair<timestamp, overrun_watch::serial_t>> overrun_watch::take_due(
    timestamp now) {
  if (looks_.empty() || looks_.begin()->first > now) return std::nullopt;
  auto due = *looks_.begin();
  looks_.erase(looks_.begin());
  return due;
}

overrun_watch::verdict overrun_watch::what_now(timestamp at, reservation_state state,
                                               timestamp start, timestamp end) const {
  // Only a look for its current end counts: one moved, extended or ended has another.
  if (at < end - notice_ || at >= end) return verdict::stale;
  if (state == reservation_state::committed && at < start) return verdict::at_start;
  return state == reservation_state::active ? verdict::look : verdict::stale;
}

overrun_watch::jobs_seen overrun_watch::jobs_at_end(const lrms_snapshot& snap,
                                                    const std::string& lrms_id, timestamp end) {
  const auto in_it = [&](const lrms_job& j) { return j.reservation == lrms_id; };
  if (std::any_of(snap.running.begin(), snap.running.end(), [&](const lrms_job& j) {
        return in_it(j) && j.started && *j.started + j.walltime >= end;
      }))
    return jobs_seen::overrunning;
  // A job still waiting (its LRMS starts it late, or behind another of its jobs) may overrun
  // once it runs.
  if (std::any_of(snap.queued.begin(), snap.queued.end(), in_it)) return jobs_seen::waiting;
  return jobs_seen::none;
}

}  // namespace arbroker
