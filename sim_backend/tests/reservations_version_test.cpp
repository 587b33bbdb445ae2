// The simulated LRMS's reservations version: it moves with every change to the reservations
// that a call makes (made, deleted, modified, extended) and when its nodes fail, and not when
// a reservation ends at its end or a call changes nothing; so while it stays the same, the
// reservations listed are the ones listed before, less those that ended (what a cluster
// service's view keeps without reading them, lrms_view.hpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "simulated_lrms_fixture.hpp"

namespace arbroker {
namespace {

std::vector<lrms_reservation> live_at(std::vector<lrms_reservation> listed, timestamp t) {
  std::erase_if(listed, [t](const lrms_reservation& r) { return r.end <= t; });
  return listed;
}

TEST(ReservationsVersion, AnUnchangedVersionMeansTheSameReservationsLessThoseThatEnded) {
  std::mt19937 rng(5);
  testing_sim::cluster c(32, {}, scheduling_policy::easy);
  timestamp t = 1000;
  c.at(t);
  std::vector<std::string> reservations;
  auto version = c->reservations_version();
  auto then = c->snapshot();
  ASSERT_TRUE(version && then);
  int same = 0, changed = 0, ended_meanwhile = 0;
  for (int step = 0; step < 3000; ++step) {
    if (rng() % 3 == 0) c.at(t += 1 + static_cast<timestamp>(rng() % 200));
    const int np = 1 + static_cast<int>(rng() % 24);
    const timestamp start = t + static_cast<timestamp>(rng() % 600);
    const auto pick = [&] { return reservations[rng() % reservations.size()]; };
    bool made_a_change = false;  // a call that answered success changed something
    switch (rng() % 6) {
      case 0:
        if (auto id = c->create_reservation({"r", "alice", start, 300, np})) {
          reservations.push_back(*id);
          made_a_change = true;
        }
        break;
      case 1:
        if (!reservations.empty()) made_a_change = bool(c->delete_reservation(pick()));
        break;
      case 2:
        if (!reservations.empty()) {
          const auto old = pick();
          if (auto id = c->modify_reservation(old, {"r", "alice", start, 400, np})) {
            reservations.push_back(*id);
            made_a_change = true;
          }
        }
        break;
      case 3:
        if (!reservations.empty()) made_a_change = bool(c->extend_reservation(pick(), start + 900));
        break;
      case 4:  // jobs only
        (void)c->submit_local_job({"l", "bob", np, 200, std::nullopt, ""},
                                  50 + static_cast<duration>(rng() % 300));
        break;
      default:
        break;
    }
    const auto now_version = c->reservations_version();
    auto now_listed = c->snapshot();
    ASSERT_TRUE(now_version && now_listed);
    if (made_a_change) {
      EXPECT_NE(*now_version, *version) << "step " << step;
    }
    if (*now_version == *version) {
      ++same;
      const auto expected = live_at(then->reservations, now_listed->now);
      if (expected.size() != then->reservations.size()) ++ended_meanwhile;
      ASSERT_EQ(now_listed->reservations, expected) << "step " << step;
    } else {
      ++changed;
    }
    version = now_version;
    then = std::move(now_listed);
  }
  EXPECT_GT(same, 300);  // every case came up often
  EXPECT_GT(changed, 300);
  EXPECT_GT(ended_meanwhile, 30);
}

TEST(ReservationsVersion, MovesWhenTheNodesFail) {
  testing_sim::cluster c(8);
  c.at(100);
  ASSERT_TRUE(c->create_reservation(testing_sim::rsv(200, 100, 4)));
  const auto before = c->reservations_version();
  c->fail_all_nodes("power cut");
  EXPECT_NE(c->reservations_version(), before);
}

}  // namespace
}  // namespace arbroker
