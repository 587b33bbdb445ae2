#include "arbroker/actors/job_end_watch.hpp"

#include <algorithm>
#include <unordered_set>

namespace arbroker {

void job_end_watch::watch(serial_t n, timestamp now) {
  watched_.insert(n);
  look_at_ = std::min(look_at_, now + every_);
}

std::optional<timestamp> job_end_watch::next() const {
  if (watched_.empty()) return std::nullopt;
  return look_at_;
}

std::vector<job_end_watch::serial_t> job_end_watch::look(const lrms_snapshot& snap,
                                                         const jobs_of& jobs, timestamp now) {
  std::unordered_set<std::string_view> alive;
  for (const auto* list : {&snap.queued, &snap.running})
    for (const auto& j : *list)
      alive.insert(j.id);
  std::vector<serial_t> done;
  for (auto it = watched_.begin(); it != watched_.end();) {
    const auto* bound = jobs(*it);
    const bool running_on = bound && std::any_of(bound->begin(), bound->end(), [&](const auto& id) {
                              return alive.count(id) > 0;
                            });
    if (running_on) {
      ++it;
      continue;
    }
    if (bound) done.push_back(*it);
    it = watched_.erase(it);
  }
  looked(now);
  return done;
}

}  // namespace arbroker
