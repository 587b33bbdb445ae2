#pragma once

// Rows the store's tests write: a committed reservation with every field set, a hold, and the
// kinds of a list of events.

#include <string>
#include <vector>

#include "arbroker/store/events.hpp"
#include "arbroker/store/journal.hpp"

namespace arbroker::testing {

namespace test_rows {

inline reservation_row row(std::string id, reservation_state s = reservation_state::committed) {
  reservation_row r;
  r.cluster = id.substr(0, id.find('/'));
  r.id = std::move(id);
  r.owner = "alice";
  r.txn = "t-" + r.id;
  r.lrms_id = "arb-" + r.id.substr(r.id.find('/') + 1);
  r.start = 1000;
  r.end = 4600;
  r.np = 8;
  r.state = s;
  r.expiry = s == reservation_state::accepted ? 1030 : 0;
  r.admitted_after = 900;
  r.cost = 12.5;
  r.account = "physics";
  r.earliest = 500;  // movable within [500, 9000] (paper 002)
  r.deadline = 9000;
  r.created = 700;  // (schema 6) made at 700 for a request asking for [800, 9500]
  r.window_start = 800;
  r.window_end = 9500;
  return r;
}

inline reservation_row hold(std::string id) {
  reservation_row r;
  r.cluster = id.substr(0, id.find('/'));
  r.id = std::move(id);
  r.owner = "alice";
  r.txn = "t1";
  r.start = 3600;
  r.end = 7200;
  r.np = 8;
  r.state = reservation_state::accepted;
  r.expiry = 60;
  return r;
}

using kinds = std::vector<std::string>;

inline kinds kinds_of(const std::vector<event_row>& es) {
  kinds out;
  for (const auto& e : es)
    out.push_back(e.kind);
  return out;
}

}  // namespace test_rows

}  // namespace arbroker::testing
