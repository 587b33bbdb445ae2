#include "arbroker/core/laxity_plan.hpp"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <vector>

namespace arbroker {
namespace {

availability_profile empty(int cpus) {
  return *availability_profile::create(cpus);
}

// Paper 002, Sec. 5.1: the scheduler pushes an accepted job toward its deadline to fit a
// new one that is due earlier; a rigid cluster would refuse the new one.
TEST(LaxityPlan, PushesAnAcceptedJobWithinItsLaxity) {
  const auto fixed = empty(10);
  const std::vector<laxity_job> accepted{
      {.key = 1, .earliest = 0, .runtime = 100, .deadline = 1000, .np = 10, .start = 0}};
  const laxity_job late{.key = 2, .earliest = 0, .runtime = 100, .deadline = 100, .np = 10};
  auto a = admit_with_laxity(fixed, accepted, late, 0);
  ASSERT_TRUE(a) << a.err().message;
  EXPECT_TRUE(a->replanned);
  EXPECT_EQ(a->start, 0);
  EXPECT_EQ(a->starts, std::vector<timestamp>{100});
  EXPECT_EQ(a->zeta, 100);
}

TEST(LaxityPlan, RefusesWhatNoPlanTakes) {
  const auto fixed = empty(1);
  const std::vector<laxity_job> accepted{
      {.key = 1, .earliest = 0, .runtime = 10, .deadline = 10, .np = 1, .start = 0}};
  auto a = admit_with_laxity(fixed, accepted,
                             {.key = 2, .earliest = 0, .runtime = 5, .deadline = 10, .np = 1}, 0);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.err().code, errc::infeasible);
}

// EDF is a heuristic: here it puts the new job (due 19) first at 5, and the accepted one
// (12 s, due 20) no longer fits; keeping the current plan, the new one fits after it.
TEST(LaxityPlan, KeepsTheCurrentPlanWhereEdfFindsNone) {
  auto fixed = empty(1);
  ASSERT_TRUE(fixed.add(20, 100, 1));
  const std::vector<laxity_job> accepted{
      {.key = 1, .earliest = 0, .runtime = 12, .deadline = 20, .np = 1, .start = 0}};
  const laxity_job job{.key = 2, .earliest = 5, .runtime = 5, .deadline = 19, .np = 1};
  ASSERT_FALSE(plan_edf(fixed, std::vector<laxity_job>{accepted[0], job}, 0));
  auto a = admit_with_laxity(fixed, accepted, job, 0);
  ASSERT_TRUE(a) << a.err().message;
  EXPECT_FALSE(a->replanned);
  EXPECT_EQ(a->start, 12);
  EXPECT_EQ(a->starts, std::vector<timestamp>{0});
  EXPECT_EQ(a->zeta, 0);
}

TEST(LaxityPlan, ZetaIsNegativeWhenThePlanPullsJobsForward) {
  const std::vector<laxity_job> accepted{
      {.key = 1, .earliest = 0, .runtime = 10, .deadline = 500, .np = 2, .start = 300}};
  auto a = admit_with_laxity(empty(4), accepted,
                             {.key = 2, .earliest = 0, .runtime = 10, .deadline = 500, .np = 2}, 0);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->starts, std::vector<timestamp>{0});
  EXPECT_EQ(a->zeta, -300);
}

TEST(LaxityPlan, NothingStartsBeforeNow) {
  auto s =
      plan_edf(empty(4),
               std::vector<laxity_job>{
                   {.key = 1, .earliest = 0, .runtime = 10, .deadline = 500, .np = 2, .start = 0}},
               50);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, std::vector<timestamp>{50});
}

TEST(LaxityPlan, PullForwardFillsTheTimeAnEarlyFinishLeft) {
  // 2 CPUs; a job ended early and left [0, 100) free. The first waiting job moves to 0,
  // the second (not before 30) to 30 beside it; none moves later.
  const std::vector<laxity_job> accepted{
      {.key = 1, .earliest = 0, .runtime = 50, .deadline = 400, .np = 1, .start = 100},
      {.key = 2, .earliest = 30, .runtime = 50, .deadline = 400, .np = 1, .start = 100},
      {.key = 3, .earliest = 0, .runtime = 50, .deadline = 400, .np = 2, .start = 150}};
  auto s = pull_forward(empty(2), accepted, 0);
  ASSERT_TRUE(s) << s.err().message;
  EXPECT_EQ(*s, (std::vector<timestamp>{0, 30, 80}));
}

TEST(LaxityPlan, RejectsInvalidJobs) {
  const std::vector<laxity_job> twice{
      {.key = 1, .earliest = 0, .runtime = 10, .deadline = 100, .np = 1},
      {.key = 1, .earliest = 0, .runtime = 10, .deadline = 100, .np = 1}};
  EXPECT_EQ(plan_edf(empty(2), twice, 0).err().code, errc::invalid_parameter);
  const std::vector<laxity_job> short_window{
      {.key = 1, .earliest = 0, .runtime = 10, .deadline = 5, .np = 1}};
  EXPECT_EQ(plan_edf(empty(2), short_window, 0).err().code, errc::invalid_parameter);
  const std::vector<laxity_job> no_cpus{
      {.key = 1, .earliest = 0, .runtime = 10, .deadline = 50, .np = 0}};
  EXPECT_EQ(plan_edf(empty(2), no_cpus, 0).err().code, errc::invalid_parameter);
}

// The promises of the scheduler under any sequence of admissions and early finishes:
// every accepted job stays within [t, d - e], capacity is never exceeded, and a job the
// cluster could have placed without moving anybody is never refused.
RC_GTEST_PROP(LaxityPlan, AdmissionsKeepEveryPromise, ()) {
  const int cpus = *rc::gen::inRange(1, 9);
  auto fixed = empty(cpus);
  const int n_fixed = *rc::gen::inRange(0, 4);
  for (int i = 0; i < n_fixed; ++i) {
    const timestamp a = *rc::gen::inRange<timestamp>(0, 300);
    (void)fixed.add(a, a + *rc::gen::inRange<duration>(1, 100), *rc::gen::inRange(1, cpus + 1));
  }
  std::vector<laxity_job> accepted;
  timestamp now = 0;
  const int n = *rc::gen::inRange(1, 25);
  for (int k = 0; k < n; ++k) {
    laxity_job j;
    j.key = static_cast<std::uint64_t>(k + 1);
    j.np = *rc::gen::inRange(1, cpus + 1);
    j.runtime = *rc::gen::inRange<duration>(1, 80);
    j.earliest = now + *rc::gen::inRange<timestamp>(0, 200);
    j.deadline = j.earliest + j.runtime + *rc::gen::inRange<duration>(0, 300);
    // What a rigid cluster would do: the job at its earliest fit, nobody moved.
    auto rigid = fixed;
    for (const auto& a : accepted)
      RC_ASSERT(rigid.add(a.start, a.start + a.runtime, a.np));
    const bool rigid_fits =
        static_cast<bool>(rigid.earliest_start(j.earliest, j.runtime, j.np, j.deadline));
    auto adm = admit_with_laxity(fixed, accepted, j, now);
    if (rigid_fits) RC_ASSERT(adm);
    if (adm) {
      RC_ASSERT(adm->starts.size() == accepted.size());
      for (std::size_t i = 0; i < accepted.size(); ++i)
        accepted[i].start = adm->starts[i];
      j.start = adm->start;
      accepted.push_back(j);
    } else {
      RC_ASSERT(adm.err().code == errc::infeasible);
    }
    auto check = fixed;
    for (const auto& a : accepted) {
      RC_ASSERT(a.start >= a.earliest);
      RC_ASSERT(a.start >= now);
      RC_ASSERT(a.start + a.runtime <= a.deadline);
      RC_ASSERT(check.add(a.start, a.start + a.runtime, a.np));
    }
    if (*rc::gen::inRange(0, 4) == 0 && !accepted.empty()) {
      // One job ends early (it is gone), the rest are pulled forward.
      accepted.erase(accepted.begin() + *rc::gen::inRange<std::ptrdiff_t>(
                                            0, static_cast<std::ptrdiff_t>(accepted.size())));
      auto pulled = pull_forward(fixed, accepted, now);
      RC_ASSERT(pulled);
      for (std::size_t i = 0; i < accepted.size(); ++i) {
        RC_ASSERT((*pulled)[i] <= accepted[i].start);
        RC_ASSERT((*pulled)[i] >= std::max(accepted[i].earliest, now));
        accepted[i].start = (*pulled)[i];
      }
      auto after = fixed;
      for (const auto& a : accepted)
        RC_ASSERT(after.add(a.start, a.start + a.runtime, a.np));
    }
  }
}

}  // namespace
}  // namespace arbroker
