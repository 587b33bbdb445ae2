// The simulated LRMS's copy-on-write listing: what was taken stays as it was whatever the
// owner changes afterwards, and the listing always holds exactly the live rows.

#include "arbroker/sim/reservation_listing.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <tuple>
#include <vector>

namespace arbroker {
namespace {

using rows = std::map<std::uint64_t, std::tuple<timestamp, timestamp, int, std::string>>;

rows of(const reservation_listing::taken& t) {
  rows out;
  for (const auto& c : t)
    for (const auto& r : *c)
      EXPECT_TRUE(out.emplace(r.rid, std::tuple(r.start, r.end, r.np, r.name)).second)
          << "row " << r.rid << " twice";
  return out;
}

TEST(reservation_listing, WhatWasTakenStaysAsItWasAndTheListingFollowsEveryChange) {
  std::mt19937 rng(3);
  reservation_listing listing;
  rows model;                                                // what the listing must hold
  std::map<std::uint64_t, reservation_listing::slot> where;  // as the simulated LRMS keeps it
  std::vector<std::pair<reservation_listing::taken, rows>> taken;
  std::uint64_t next = 0;
  for (int step = 0; step < 20'000; ++step) {
    const auto op = rng() % 10;
    if (op < 5 || model.empty()) {  // add
      const std::uint64_t rid = ++next;
      const timestamp start = rng() % 100'000;
      const auto r = reservation_listing::row{rid,
                                              start,
                                              start + 600,
                                              1 + static_cast<int>(rng() % 8),
                                              "arb-reservation-name-" + std::to_string(rid),
                                              "alice",
                                              ""};
      where[rid] = listing.add(r);
      model[rid] = {r.start, r.end, r.np, r.name};
    } else {
      auto it = model.begin();
      std::advance(it, static_cast<long>(rng() % model.size()));
      const auto rid = it->first;
      if (op < 8) {  // remove
        const auto s = where.at(rid);
        if (auto moved = listing.remove(s)) where.at(*moved) = s;
        where.erase(rid);
        model.erase(it);
      } else {  // a later end
        const timestamp end = std::get<1>(it->second) + 60;
        listing.set_end(where.at(rid), end);
        std::get<1>(it->second) = end;
      }
    }
    if (step % 997 == 0) {
      for (const auto& [rid, s] : where)
        ASSERT_EQ(listing.at(s).rid, rid);
    }
    if (step % 1500 == 0) taken.emplace_back(listing.take(), model);
  }
  EXPECT_EQ(listing.size(), model.size());
  EXPECT_EQ(of(listing.take()), model);
  for (const auto& [t, then] : taken)
    EXPECT_EQ(of(t), then) << "a taken listing changed after it was taken";
}

}  // namespace
}  // namespace arbroker
