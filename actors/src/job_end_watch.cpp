#include "arbroker/actors/job_end_watch.hpp"

#include <algorithm>

namespace arbroker {

void job_end_watch::watch(serial_t n, timestamp now) {
  watched_.insert(n);
  look_at_ = std::min(look_at_, now + every_);
}

std::optional<timestamp> job_end_watch::next() const {
  if (watched_.empty()) return std::nullopt;
  return look_at_;
}

}  // namespace arbroker
