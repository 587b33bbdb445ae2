// The laxity planner without a cluster service: a ledger, a profile, and a mover that
// records (or refuses) the moves it is handed.
#include "arbroker/actors/laxity_planner.hpp"

#include <gtest/gtest.h>

#include <set>

namespace arbroker {
namespace {

constexpr timestamp now = 1000;

struct laxity_planner_test : ::testing::Test {
  void TearDown() override { EXPECT_EQ(ledger.check(), ""); }

  reservation_ledger ledger{8};
  availability_profile free = *availability_profile::create(8);

  // A committed reservation n of np CPUs over [start, end), which may move within
  // [earliest, deadline] (deadline 0: rigid), held in `free`.
  void committed(std::uint64_t n, timestamp start, timestamp end, int np, timestamp earliest = 0,
                 timestamp deadline = 0, bool in_profile = true) {
    auto life = reservation_lifecycle::create(start, end);
    ASSERT_TRUE(life->accept(0, now + 3600));
    reservation_record r{"c/" + std::to_string(n), "t" + std::to_string(n), "ann",
                         "lrms-" + std::to_string(n), *life};
    r.np = np;
    r.serial = n;
    r.earliest = earliest;
    r.deadline = deadline;
    ASSERT_TRUE(ledger.add(std::move(r), 0));
    ASSERT_TRUE(ledger.apply(n, reservation_event::commit, 0));
    if (in_profile) {
      ASSERT_TRUE(free.add(start, end, np));
    }
  }

  // Moves as the service would (the ledger and the profile), refusing those in `refuse`
  // once each; every call in `calls`.
  std::vector<std::pair<std::uint64_t, timestamp>> calls;
  std::set<std::uint64_t> refuse;
  laxity_planner::mover mover() {
    return [this](std::uint64_t n, timestamp start) {
      calls.emplace_back(n, start);
      if (refuse.erase(n) > 0) return false;
      const auto& r = *ledger.find(n);
      const auto len = r.life.end() - r.life.start();
      EXPECT_TRUE(free.remove(r.life.start(), r.life.end(), r.np));
      EXPECT_TRUE(free.add(start, start + len, r.np)) << "a move onto busy CPUs";
      auto moved = r.life;
      EXPECT_TRUE(moved.apply(reservation_event::request_change, now));
      EXPECT_TRUE(moved.change_terms(now, start, start + len));
      auto changed = r;
      changed.life = moved;
      EXPECT_TRUE(ledger.replace(n, std::move(changed)));
      return true;
    };
  }
};

TEST_F(laxity_planner_test, OnlyCommittedUnstartedReservationsWithAWindowTheViewHoldsMayMove) {
  committed(1, now + 100, now + 200, 4, now, now + 1000);         // movable
  committed(2, now + 100, now + 200, 2);                          // rigid: no window
  committed(3, now - 10, now + 50, 2, now - 100, now + 500);      // started
  committed(4, now + 300, now + 400, 2, now, now + 1000, false);  // the view lacks it: stale
  auto lv = laxity_planner::movable(ledger, free, now);
  ASSERT_EQ(lv.jobs.size(), 1u);
  EXPECT_EQ(lv.jobs[0].key, 1u);
  EXPECT_EQ(lv.jobs[0].runtime, 100);
  EXPECT_EQ(lv.jobs[0].deadline, now + 1000);
  // The fixed profile is the base without the movable one's span.
  EXPECT_EQ(lv.fixed.free_at(now + 150), 8 - 2);
  EXPECT_EQ(free.free_at(now + 150), 8 - 2 - 4);
}

TEST_F(laxity_planner_test, MovesGoForwardFirstThenBackLatestFirstAndARefusalIsTriedAgain) {
  const std::vector<laxity_job> jobs{{1, 0, 10, 10'000, 1, 500},
                                     {2, 0, 10, 10'000, 1, 600},
                                     {3, 0, 10, 10'000, 1, 700},
                                     {4, 0, 10, 10'000, 1, 800}};
  const std::vector<timestamp> starts{400, 650, 800, 800};  // 1 forward, 2 and 3 back, 4 stays
  std::vector<std::pair<std::uint64_t, timestamp>> order;
  bool refused_once = false;
  auto n = laxity_planner::apply(jobs, starts, [&](std::uint64_t key, timestamp start) {
    order.emplace_back(key, start);
    if (key == 3 && !refused_once) return !(refused_once = true);  // the LRMS refuses it once
    return true;
  });
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(order, (std::vector<std::pair<std::uint64_t, timestamp>>{
                       {1, 400}, {3, 800}, {2, 650}, {3, 800}}));
}

TEST_F(laxity_planner_test, MovesThatAreAllRefusedAreTriedOnceEach) {
  const std::vector<laxity_job> jobs{{1, 0, 10, 10'000, 1, 500}, {2, 0, 10, 10'000, 1, 600}};
  int tries = 0;
  EXPECT_EQ(laxity_planner::apply(jobs, {100, 900},
                                  [&](std::uint64_t, timestamp) {
                                    ++tries;
                                    return false;
                                  }),
            0u);
  EXPECT_EQ(tries, 2);
}

TEST_F(laxity_planner_test, RoomForAPinnedSpanMovesAReservationOutOfItsWay) {
  // The whole cluster for [now+100, now+200), which may run anywhere in [now, now+1000].
  committed(1, now + 100, now + 200, 8, now, now + 1000);
  EXPECT_FALSE(free.fits(now + 100, now + 200, 8));
  EXPECT_TRUE(laxity_planner::make_room(ledger, now + 100, now + 200, 8, free, now, mover()));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].first, 1u);
  EXPECT_TRUE(free.fits(now + 100, now + 200, 8));  // the span is free now
  const auto& r = *ledger.find(1);
  EXPECT_GE(r.life.start(), now);
  EXPECT_LE(r.life.end(), now + 1000);  // within its window
}

TEST_F(laxity_planner_test, NoRoomWithoutAPlanAndNothingMoves) {
  committed(1, now + 100, now + 200, 8, now + 100, now + 200 + 10);  // hardly any laxity
  EXPECT_FALSE(laxity_planner::make_room(ledger, now + 100, now + 200, 8, free, now, mover()));
  EXPECT_TRUE(calls.empty());
  EXPECT_EQ(ledger.find(1)->life.start(), now + 100);
}

TEST_F(laxity_planner_test, AfterAnEarlyEndTheMovableArePulledForward) {
  committed(1, now + 500, now + 600, 8, now, now + 1000);
  laxity_planner planner;
  EXPECT_FALSE(planner.pull_due());
  planner.note_early_end();
  ASSERT_TRUE(planner.take_pull());
  EXPECT_FALSE(planner.take_pull());  // once
  EXPECT_EQ(laxity_planner::pull_forward(ledger, free, now, mover()), 1u);
  EXPECT_EQ(ledger.find(1)->life.start(), now);
}

TEST_F(laxity_planner_test, TheAdvisorPlacesTheBestShapeAndSaysHowFarItPushesTheOthers) {
  committed(1, now + 10, now + 110, 8, now + 10, now + 1000);  // the cluster is taken
  msg::advice_reply out;
  laxity_planner::advise(ledger, 8, now, now + 400, {{8, 100}, {16, 50}}, free, now, out);
  ASSERT_TRUE(out.meets_qos);
  EXPECT_EQ(out.np, 8);  // 16 is more than the cluster has
  EXPECT_EQ(out.end - out.start, 100);
  EXPECT_LE(out.end, now + 400);
  // EDF: the new job's deadline is earlier, so it goes first and pushes reservation 1 back.
  EXPECT_EQ(out.start, now);
  EXPECT_GT(out.zeta, 0);
  laxity_planner::advise(ledger, 8, now, now + 50, {{8, 100}}, free, now, out);
  EXPECT_FALSE(out.meets_qos);  // it cannot end by its deadline
}

}  // namespace
}  // namespace arbroker
