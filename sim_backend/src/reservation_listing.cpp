#include "arbroker/sim/reservation_listing.hpp"

#include <utility>

namespace arbroker {

reservation_listing::row& reservation_listing::writable(slot s) {
  auto& c = chunks_[s / chunk_rows];
  // Only this object hands out new references, so 1 means nobody else holds it; a taken
  // copy being dropped on another thread at worst makes a needless copy.
  if (c.use_count() > 1) c = std::make_shared<chunk>(*c);
  return (*c)[s % chunk_rows];
}

reservation_listing::slot reservation_listing::add(row r) {
  const slot s = size_;
  if (s % chunk_rows == 0) {
    chunks_.push_back(std::make_shared<chunk>());
    chunks_.back()->reserve(chunk_rows);
  } else {
    (void)writable(s - 1);  // the last chunk, unshared
  }
  chunks_.back()->push_back(std::move(r));
  ++size_;
  return s;
}

std::optional<std::uint64_t> reservation_listing::remove(slot s) {
  const slot last = size_ - 1;
  std::optional<std::uint64_t> moved;
  if (s != last) {
    row r = at(last);
    moved = r.rid;
    writable(s) = std::move(r);
  }
  (void)writable(last);
  chunks_.back()->pop_back();
  if (chunks_.back()->empty()) chunks_.pop_back();
  --size_;
  return moved;
}

void reservation_listing::set_end(slot s, timestamp end) {
  writable(s).end = end;
}

reservation_listing::taken reservation_listing::take() const {
  return taken(chunks_.begin(), chunks_.end());
}

}  // namespace arbroker
