// Paper 002's RLC scheduler in a cluster service with `laxity = true`: movable reservations
// move within their windows on the LRMS (their bound jobs with them), the match advisor
// reports the laxity impact over them, and early ends pull them forward.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "arbroker/store/recovery_plan.hpp"
#include "simulated_service.hpp"

namespace arbroker {
namespace {

// Laxity on (make(true)) or off.
struct laxity_test : testing::simulated_service {
  void SetUp() override { make(true); }
  void make(bool laxity) {
    simulated_service::make([laxity](cluster_service_config& c) { c.laxity = laxity; });
  }
};

TEST_F(laxity_test, AMovableReservationMovesWithinItsWindowToAdmitAnUrgentOne) {
  auto a = reserve(now + 600, 3600, 64, now, now + 20'000);
  ASSERT_TRUE(a.error.ok()) << a.error.message;
  // Due at now + 4200, on CPUs a holds: the cluster pushes a back within its laxity.
  auto b = reserve(now + 600, 3600, 64);
  ASSERT_TRUE(b.error.ok()) << b.error.message;
  const auto moved = info(a.reservation_id);
  EXPECT_EQ(moved.start, now + 4200);
  EXPECT_EQ(moved.end, now + 7800);
  EXPECT_EQ(moved.earliest, now);
  EXPECT_EQ(moved.deadline, now + 20'000);
  // The LRMS and the journal hold the new terms.
  auto l = in_lrms(a.reservation_id);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->start, now + 4200);
  EXPECT_EQ(journal->rows.at(a.reservation_id).start, now + 4200);
  EXPECT_EQ(journal->rows.at(a.reservation_id).state, reservation_state::committed);
  // b is rigid: its terms are fixed and nothing may push it.
  EXPECT_EQ(info(b.reservation_id).deadline, 0);
  EXPECT_EQ(svc->status_report({}, now).committed, 2);
}

TEST_F(laxity_test, ARigidClusterRefusesTheSame) {
  make(false);
  ASSERT_TRUE(reserve(now + 600, 3600, 64, now, now + 20'000).error.ok());
  auto b = reserve(now + 600, 3600, 64);
  EXPECT_EQ(b.error.code, static_cast<std::uint8_t>(errc::busy));
}

TEST_F(laxity_test, NoReservationIsPushedPastItsDeadline) {
  ASSERT_TRUE(reserve(now + 600, 3600, 64, now, now + 4300).error.ok());
  auto b = reserve(now + 600, 3600, 64);
  EXPECT_EQ(b.error.code, static_cast<std::uint8_t>(errc::busy));
}

TEST_F(laxity_test, BoundJobsFollowTheirReservation) {
  auto a = reserve(now + 600, 3600, 32, now, now + 20'000);
  ASSERT_TRUE(a.error.ok());
  ASSERT_TRUE(svc->bind_job({"alice", a.reservation_id, "sim", 32, 3600, "run"}, now).error.ok());
  ASSERT_TRUE(reserve(now + 600, 3600, 64).error.ok());  // pushes a to now + 4200
  ASSERT_EQ(info(a.reservation_id).start, now + 4200);
  now += 4199;
  EXPECT_TRUE(lrms->snapshot()->running.empty());
  now += 1;
  auto snap = lrms->snapshot();
  ASSERT_EQ(snap->running.size(), 1u);
  EXPECT_EQ(snap->running[0].name, "arb-sim");  // name_prefix + name
  EXPECT_EQ(snap->running[0].started, now);
}

TEST_F(laxity_test, TheAdvisorReportsWhereTheJobGoesAndWhatItCostsTheOthers) {
  ASSERT_TRUE(reserve(now + 600, 3600, 64, now, now + 20'000).error.ok());
  msg::advice_request ask;
  ask.user = "bob";
  ask.site = {now, now + 4200, {{64, 3600}}};
  ask.local_jobs_preferred = false;
  auto r = svc->advise(ask, now);
  ASSERT_TRUE(r.error.ok()) << r.error.message;
  EXPECT_TRUE(r.meets_qos);
  EXPECT_EQ(r.start, now);
  EXPECT_EQ(r.end, now + 3600);
  EXPECT_EQ(r.zeta, 3000);  // the accepted one goes from now + 600 to now + 3600
  // Without laxity the job does not fit by its deadline.
  make(false);
  ASSERT_TRUE(reserve(now + 600, 3600, 64, now, now + 20'000).error.ok());
  r = svc->advise(ask, now);
  ASSERT_TRUE(r.error.ok());
  EXPECT_FALSE(r.meets_qos);
}

// A probe offers what prepare would admit: slots that need accepted reservations moved.
TEST_F(laxity_test, AProbeOffersSlotsThatMoveOthers) {
  auto probe = [this] {
    msg::probe_request p;
    p.user = "bob";
    p.site = {now, now + 4200, {{64, 3600}}};
    p.slotting = {4, 200};
    p.local_jobs_preferred = false;
    return svc->probe(p, now);
  };
  ASSERT_TRUE(reserve(now + 600, 3600, 64, now, now + 20'000).error.ok());
  auto offered = probe();
  ASSERT_TRUE(offered.error.ok()) << offered.error.message;
  ASSERT_FALSE(offered.slots.empty());
  const auto& s = offered.slots.front();
  EXPECT_TRUE(reserve(s.start, s.end - s.start, s.np).error.ok());
  make(false);  // a rigid cluster has nothing to offer by now + 4200
  ASSERT_TRUE(reserve(now + 600, 3600, 64, now, now + 20'000).error.ok());
  offered = probe();
  ASSERT_TRUE(offered.error.ok());
  EXPECT_TRUE(offered.slots.empty());
}

TEST_F(laxity_test, AnEarlyEndPullsTheOthersForward) {
  auto first = reserve(now, 3600, 64);
  ASSERT_TRUE(first.error.ok());
  auto waiting = reserve(now + 3600, 1800, 64, now, now + 20'000);
  ASSERT_TRUE(waiting.error.ok());
  now += 100;
  ASSERT_TRUE(svc->cancel({"alice", first.reservation_id}, now).error.ok());
  // The actor is asked to sweep at once (a time already past), which pulls it forward.
  ASSERT_TRUE(svc->next_expiry());
  EXPECT_LE(*svc->next_expiry(), now);
  svc->sweep(now);
  EXPECT_FALSE(svc->next_expiry());
  EXPECT_EQ(info(waiting.reservation_id).start, now);
  EXPECT_EQ(in_lrms(waiting.reservation_id)->start, now);
}

// The window is journaled: after a restart (a new service on an LRMS that lost everything)
// the reservation is recreated where it was and can still be moved within its window.
TEST_F(laxity_test, ARestartKeepsTheWindow) {
  auto a = reserve(now + 600, 3600, 64, now, now + 20'000);
  ASSERT_TRUE(a.error.ok());
  EXPECT_EQ(journal->rows.at(a.reservation_id).deadline, now + 20'000);
  auto rows = *journal->rows_of("c1");
  make(true);
  recovery_report report;
  ASSERT_TRUE(svc->recover(rows, plan_recovery(rows, {}), now, report));
  EXPECT_EQ(report.recreated, 1);
  EXPECT_EQ(info(a.reservation_id).deadline, now + 20'000);
  ASSERT_TRUE(reserve(now + 600, 3600, 64).error.ok());  // moves it
  EXPECT_EQ(info(a.reservation_id).start, now + 4200);
}

TEST_F(laxity_test, AnOwnersChangeFixesTheTerms) {
  auto a = reserve(now + 600, 3600, 32, now, now + 20'000);
  ASSERT_TRUE(a.error.ok());
  auto m = svc->modify({"alice", a.reservation_id, now + 1200, now + 4800, 32, false}, now);
  ASSERT_TRUE(m.error.ok()) << m.error.message;
  EXPECT_EQ(m.info.deadline, 0);
  EXPECT_EQ(journal->rows.at(a.reservation_id).deadline, 0);  // rigid after a restart too
  EXPECT_EQ(reserve(now + 1200, 3600, 64).error.code, static_cast<std::uint8_t>(errc::busy));
}

TEST_F(laxity_test, AHoldOutsideItsOwnWindowIsRefused) {
  auto a = reserve(now + 600, 3600, 8, now + 700, now + 20'000);
  EXPECT_EQ(a.error.code, static_cast<std::uint8_t>(errc::invalid_window));
  a = reserve(now + 600, 3600, 8, now, now + 4000);
  EXPECT_EQ(a.error.code, static_cast<std::uint8_t>(errc::invalid_window));
  EXPECT_TRUE(lrms->snapshot()->reservations.empty());
}

// Many requests, some movable, some rigid, some cancelled, time moving on: every committed
// reservation stays within its window, the service's terms are the LRMS's, and the CPUs are
// never overbooked (the simulated LRMS refuses that, so a mismatch would show).
TEST_F(laxity_test, UnderLoadEveryPromiseHolds) {
  std::mt19937_64 rng(2002);
  auto draw = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  std::vector<std::string> ids;
  int moved_somewhere = 0;
  for (int k = 0; k < 400; ++k) {
    now += draw(0, 300);
    const duration len = draw(60, 3600);
    const int np = static_cast<int>(draw(1, 64));
    const timestamp t = now + draw(0, 6 * 3600);
    const bool movable = draw(0, 3) > 0;
    const timestamp d = t + len + (movable ? draw(0, 4 * 3600) : 0);
    msg::advice_request ask{"alice", {t, d, {{np, len}}}, false, false};
    auto adv = svc->advise(ask, now);
    ASSERT_TRUE(adv.error.ok()) << adv.error.message;
    if (adv.meets_qos) {
      auto r = movable ? reserve(adv.start, len, np, t, d) : reserve(adv.start, len, np);
      if (r.error.ok()) ids.push_back(r.reservation_id);
    }
    if (!ids.empty() && draw(0, 9) == 0)
      (void)svc->cancel({"alice", ids[static_cast<std::size_t>(draw(0, ids.size() - 1))]}, now);
    auto snap = lrms->snapshot();
    ASSERT_TRUE(snap);
    for (const auto& id : ids) {
      const auto i = info(id);
      if (i.state != reservation_state::committed) continue;
      if (i.deadline != 0) {
        EXPECT_GE(i.start, i.earliest) << id;
        EXPECT_LE(i.end, i.deadline) << id;
        if (i.start != journal->rows.at(id).start) ADD_FAILURE() << id << " not journaled";
      }
      auto l = in_lrms(id);
      ASSERT_TRUE(l) << id;
      EXPECT_EQ(l->start, i.start) << id;
      EXPECT_EQ(l->end, i.end) << id;
    }
    moved_somewhere = static_cast<int>(svc->status_report({}, now).moves);
    ASSERT_EQ(svc->ledger_violation(), "") << "after request " << k;
  }
  EXPECT_GT(moved_somewhere, 0);  // the load did make the cluster move reservations
}

}  // namespace
}  // namespace arbroker
