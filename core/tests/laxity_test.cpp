#include "arbroker/core/laxity.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace arbroker {
namespace {

// A non-shared resource when new job "n" (t=100, e=80, d=300) arrives at a_j = 100:
// "a" already runs, "b" and "c" are scheduled after the arrival.
//   id   t    e    d    s
//   a    0   50  200   60   started before a_j: not in C
//   b  100  100  500  110
//   c  150   50  400  210
std::vector<scheduled_job> before() {
  return {{"a", 0, 50, 200, 60}, {"b", 100, 100, 500, 110}, {"c", 150, 50, 400, 210}};
}

// The scheduler squeezes n in at 110 and pushes b and c back by its 80 s.
std::vector<scheduled_job> after_push() {
  return {{"a", 0, 50, 200, 60},
          {"n", 100, 80, 300, 110},
          {"b", 100, 100, 500, 190},
          {"c", 150, 50, 400, 290}};
}

TEST(Laxity, Eq31) {
  // b: 500 - 100 - 100 = 300; c: 400 - 50 - 150 = 200
  EXPECT_EQ(*laxity(before()[1]), 300);
  EXPECT_EQ(*laxity(before()[2]), 200);
  // No deadline: all of the remaining time is laxity.
  EXPECT_EQ(*laxity({"od", 10, 5, time_infinity, 10}), time_infinity - 15);
}

TEST(Laxity, NegativeWhenWindowShorterThanRuntime) {
  // 150 - 100 - 0: the job cannot finish by its deadline even when started at once.
  EXPECT_EQ(*laxity({"x", 0, 100, 50, 0}), -50);
}

TEST(Laxity, IgnoresScheduledStart) {
  EXPECT_EQ(*laxity({"x", 100, 10, 200, 0}), 90);  // s < t would fail remaining_laxity
}

TEST(Laxity, RejectsBadInput) {
  EXPECT_EQ(laxity({"x", 0, 0, 100, 0}).err().code, errc::invalid_duration);
  EXPECT_EQ(laxity({"x", 0, -5, 100, 0}).err().code, errc::invalid_duration);
  EXPECT_EQ(laxity({"x", 0, time_infinity, time_infinity, 0}).err().code, errc::invalid_duration);
  EXPECT_EQ(laxity({"x", -1, 10, 100, 0}).err().code, errc::invalid_parameter);
  EXPECT_EQ(laxity({"x", time_infinity, 10, time_infinity, 0}).err().code, errc::invalid_parameter);
  EXPECT_EQ(laxity({"x", 0, 10, time_infinity + 1, 0}).err().code, errc::invalid_parameter);
  EXPECT_EQ(laxity({"x", 100, 10, 100, 100}).err().code, errc::invalid_window);
  auto r = laxity({"late", 100, 10, 90, 100});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::invalid_window);
  EXPECT_NE(r.err().message.find("late"), std::string::npos);
  EXPECT_NE(r.err().message.find("90"), std::string::npos);
}

TEST(RemainingLaxity, Eq32) {
  // b: 500 - 100 - 110 = 290 before, 500 - 100 - 190 = 210 after
  EXPECT_EQ(*remaining_laxity(before()[1]), 290);
  EXPECT_EQ(*remaining_laxity(after_push()[2]), 210);
  // At its earliest start, remaining laxity equals laxity.
  const scheduled_job on_time{"x", 40, 10, 100, 40};
  EXPECT_EQ(*remaining_laxity(on_time), *laxity(on_time));
  // Scheduled too late for the deadline: 100 - 10 - 95 = -5.
  EXPECT_EQ(*remaining_laxity({"x", 40, 10, 100, 95}), -5);
}

TEST(RemainingLaxity, RejectsBadInput) {
  EXPECT_EQ(remaining_laxity({"x", 100, 10, 200, 99}).err().code, errc::invalid_parameter);
  EXPECT_EQ(remaining_laxity({"x", 100, 10, time_infinity, time_infinity}).err().code,
            errc::invalid_parameter);
  EXPECT_EQ(remaining_laxity({"x", 100, 0, 200, 100}).err().code, errc::invalid_duration);
  EXPECT_EQ(remaining_laxity({"x", 100, 10, 50, 100}).err().code, errc::invalid_window);
}

TEST(LaxityImpact, PushedJobsCount) {
  // C = {b, c}. RL before: 290 + 140 = 430; RL after: 210 + 60 = 270; zeta = 160,
  // i.e. (190 - 110) + (290 - 210).
  auto z = laxity_impact(before(), after_push(), 100, "n");
  ASSERT_TRUE(z) << to_string(z.err());
  EXPECT_EQ(*z, 160);
}

TEST(LaxityImpact, AppendingAtTheEndCostsNothing) {
  std::vector<scheduled_job> after = before();
  after.push_back({"n", 100, 80, 300, 260});  // after c ends at 260
  EXPECT_EQ(*laxity_impact(before(), after, 100, "n"), 0);
}

TEST(LaxityImpact, NewJobMayBeAbsentFromAfter) {
  std::vector<scheduled_job> after = after_push();
  after.erase(after.begin() + 1);
  EXPECT_EQ(*laxity_impact(before(), after, 100, "n"), 160);
}

TEST(LaxityImpact, EmptyScheduleHasNoImpact) {
  const std::vector<scheduled_job> after{{"n", 0, 10, 100, 0}};
  EXPECT_EQ(*laxity_impact({}, after, 0, "n"), 0);
  EXPECT_EQ(*laxity_impact({}, {}, 0, "n"), 0);
}

TEST(LaxityImpact, OnlyJobsStartingAtOrAfterArrivalCount) {
  std::vector<scheduled_job> b = before();
  b[1].scheduled_start = 100;  // b starts exactly at a_j = 100: in C
  std::vector<scheduled_job> a = after_push();
  a[2].scheduled_start = 180;
  a[0].scheduled_start = 70;  // a (s = 60 < a_j) is outside C: its move is not counted
  // (180 - 100) + (290 - 210) = 160
  EXPECT_EQ(*laxity_impact(b, a, 100, "n"), 160);
  // With a later arrival, b (s = 100) drops out of C: only c's 80 s remain.
  EXPECT_EQ(*laxity_impact(b, a, 101, "n"), 80);
}

TEST(LaxityImpact, PullingForwardIsNegative) {
  // A rescheduling that moves c from 210 to 150 while placing n at the end.
  std::vector<scheduled_job> after = before();
  after[2].scheduled_start = 150;
  after.push_back({"n", 100, 80, 300, 210});
  EXPECT_EQ(*laxity_impact(before(), after, 100, "n"), -60);
}

TEST(LaxityImpact, RejectsInconsistentSchedules) {
  auto code = [](const std::vector<scheduled_job>& b, const std::vector<scheduled_job>& a) {
    auto r = laxity_impact(b, a, 100, "n");
    EXPECT_FALSE(r);
    return r ? errc{} : r.err().code;
  };
  // c vanished from the schedule after.
  std::vector<scheduled_job> lost = after_push();
  lost.pop_back();
  EXPECT_EQ(code(before(), lost), errc::not_found);
  auto r = laxity_impact(before(), lost, 100, "n");
  EXPECT_NE(r.err().message.find("'c'"), std::string::npos);
  // An unknown job appeared.
  std::vector<scheduled_job> extra = after_push();
  extra.push_back({"z", 0, 10, 1000, 500});
  EXPECT_EQ(code(before(), extra), errc::not_found);
  // The new job was already scheduled.
  std::vector<scheduled_job> had_n = before();
  had_n.push_back({"n", 100, 80, 300, 260});
  EXPECT_EQ(code(had_n, after_push()), errc::invalid_parameter);
  // A matched job changed its runtime.
  std::vector<scheduled_job> changed = after_push();
  changed[2].runtime = 101;
  EXPECT_EQ(code(before(), changed), errc::invalid_parameter);
  changed = after_push();
  changed[3].deadline = 401;
  EXPECT_EQ(code(before(), changed), errc::invalid_parameter);
  changed = after_push();
  changed[3].earliest_start = 151;
  EXPECT_EQ(code(before(), changed), errc::invalid_parameter);
  // Duplicate and empty ids.
  std::vector<scheduled_job> dup = before();
  dup.push_back(dup[0]);
  EXPECT_EQ(code(dup, after_push()), errc::invalid_parameter);
  std::vector<scheduled_job> dup_after = after_push();
  dup_after.push_back(dup_after[1]);
  EXPECT_EQ(code(before(), dup_after), errc::invalid_parameter);
  std::vector<scheduled_job> anon = before();
  anon[0].id.clear();
  EXPECT_EQ(code(anon, after_push()), errc::invalid_parameter);
}

TEST(LaxityImpact, RejectsInvalidJobsAndArguments) {
  std::vector<scheduled_job> bad = after_push();
  bad[2].scheduled_start = 99;  // before b's earliest start 100
  auto r = laxity_impact(before(), bad, 100, "n");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::invalid_parameter);
  EXPECT_NE(r.err().message.find("after"), std::string::npos);
  std::vector<scheduled_job> bad_before = before();
  bad_before[1].deadline = 50;
  EXPECT_EQ(laxity_impact(bad_before, after_push(), 100, "n").err().code, errc::invalid_window);
  bad_before = before();
  bad_before[1].runtime = 0;
  EXPECT_EQ(laxity_impact(bad_before, after_push(), 100, "n").err().code, errc::invalid_duration);
  EXPECT_EQ(laxity_impact(before(), after_push(), -1, "n").err().code, errc::invalid_parameter);
  EXPECT_EQ(laxity_impact(before(), after_push(), time_infinity, "n").err().code,
            errc::invalid_parameter);
  EXPECT_EQ(laxity_impact(before(), after_push(), 100, "").err().code, errc::invalid_parameter);
}

TEST(LaxityImpact, RejectsSumReachingInfinity) {
  // Two jobs pushed by almost time_infinity each.
  const timestamp far = time_infinity - 10;
  const std::vector<scheduled_job> b{{"p", 0, 1, time_infinity, 0}, {"q", 0, 1, time_infinity, 0}};
  const std::vector<scheduled_job> a{{"p", 0, 1, time_infinity, far},
                                     {"q", 0, 1, time_infinity, far}};
  EXPECT_EQ(laxity_impact(b, a, 0, "n").err().code, errc::invalid_parameter);
}

TEST(ChooseMinLaxityImpact, SmallestZetaWins) {
  // The push schedule (160), the append schedule (0), something in between (40).
  const std::vector<mli_option> o{{true, 160, 190, 1.0}, {true, 0, 340, 1.0}, {true, 40, 250, 1.0}};
  EXPECT_EQ(*choose_min_laxity_impact(o), 1u);
}

TEST(ChooseMinLaxityImpact, TiesByCompletionTimeThenIndex) {
  const std::vector<mli_option> o{{true, 0, 500, 1.0}, {true, 0, 400, 1.0}, {true, 0, 400, 1.0}};
  EXPECT_EQ(*choose_min_laxity_impact(o), 1u);
}

TEST(ChooseMinLaxityImpact, SkipsResourcesFailingQoS) {
  const std::vector<mli_option> o{
      {false, -100, 50, 1.0}, {true, 30, 300, 1.0}, {false, 0, -1, -3.0}};  // last: garbage
  EXPECT_EQ(*choose_min_laxity_impact(o), 1u);
}

TEST(ChooseMinLaxityImpact, ZetaScaledBySpeed) {
  // 100 * 2 = 200 > 150 * 1: the fast resource's laxity is worth more work.
  const std::vector<mli_option> fast_loses{{true, 100, 200, 2.0}, {true, 150, 300, 1.0}};
  EXPECT_EQ(*choose_min_laxity_impact(fast_loses), 1u);
  // 100 * 0.5 = 50 < 80 * 1
  const std::vector<mli_option> slow_wins{{true, 100, 400, 0.5}, {true, 80, 300, 1.0}};
  EXPECT_EQ(*choose_min_laxity_impact(slow_wins), 0u);
  // 60 * 2 = 120 = 120 * 1: tie, the earlier completion (300) wins.
  const std::vector<mli_option> tie{{true, 60, 350, 2.0}, {true, 120, 300, 1.0}};
  EXPECT_EQ(*choose_min_laxity_impact(tie), 1u);
  // Negative zeta (jobs pulled forward) scales too: -10 * 3 = -30 < -20.
  const std::vector<mli_option> neg{{true, -20, 300, 1.0}, {true, -10, 300, 3.0}};
  EXPECT_EQ(*choose_min_laxity_impact(neg), 1u);
}

TEST(ChooseMinLaxityImpact, RejectsBadInput) {
  EXPECT_EQ(choose_min_laxity_impact({}).err().code, errc::invalid_parameter);
  const std::vector<mli_option> none{{false, 0, 10, 1.0}, {false, 5, 20, 1.0}};
  EXPECT_EQ(choose_min_laxity_impact(none).err().code, errc::infeasible);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double speed : {0.0, -1.0, nan, inf}) {
    const std::vector<mli_option> o{{true, 0, 10, 1.0}, {true, 0, 10, speed}};
    auto r = choose_min_laxity_impact(o);
    ASSERT_FALSE(r) << speed;
    EXPECT_EQ(r.err().code, errc::invalid_parameter);
    EXPECT_NE(r.err().message.find("resource 1"), std::string::npos);
  }
  const std::vector<mli_option> big{{true, time_infinity, 10, 1.0}};
  EXPECT_EQ(choose_min_laxity_impact(big).err().code, errc::invalid_parameter);
  const std::vector<mli_option> small{{true, -time_infinity, 10, 1.0}};
  EXPECT_EQ(choose_min_laxity_impact(small).err().code, errc::invalid_parameter);
  const std::vector<mli_option> early{{true, 0, -1, 1.0}};
  EXPECT_EQ(choose_min_laxity_impact(early).err().code, errc::invalid_parameter);
  const std::vector<mli_option> never{{true, 0, time_infinity, 1.0}};
  EXPECT_EQ(choose_min_laxity_impact(never).err().code, errc::invalid_parameter);
}

}  // namespace
}  // namespace arbroker
