#include "refusal_flood.hpp"

namespace arbroker {

bool refusal_flood::admit(const client& who, clock::time_point now) {
  std::lock_guard lock(mu_);
  auto [it, fresh] = windows_.try_emplace(who, window{now, now});
  auto& w = it->second;
  // An interval over starts a new one, unless its summary is still to be written (due()
  // comes soon; until then the refusals count towards it).
  if (!fresh && now - w.began >= interval_ && w.suppressed == 0) w = window{now, now};
  w.last = now;
  if (w.written < burst_ && now - w.began < interval_) {
    ++w.written;
    return true;
  }
  ++w.suppressed;
  return false;
}

std::vector<refusal_flood::summary> refusal_flood::due(clock::time_point now) {
  std::lock_guard lock(mu_);
  std::vector<summary> out;
  for (auto it = windows_.begin(); it != windows_.end();) {
    const auto& w = it->second;
    const bool over = now == clock::time_point::max() || now - w.began >= interval_;
    if (!over) {
      ++it;
      continue;
    }
    if (w.suppressed > 0) out.push_back({it->first, w.suppressed, w.last - w.began});
    it = windows_.erase(it);
  }
  return out;
}

}  // namespace arbroker
