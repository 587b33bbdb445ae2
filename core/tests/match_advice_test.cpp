#include "arbroker/core/match_advice.hpp"

#include <gtest/gtest.h>

namespace arbroker {
namespace {

TEST(MatchAdvice, IdleClusterTakesTheShapeThatFinishesFirst) {
  cluster_workload w{8, {}, {}, {}};
  // 4 CPUs for 200 s or 8 CPUs for 100 s, window [100, 1000).
  match_job job{100, 1000, {{4, 200}, {8, 100}}};
  auto a = advise_match(w, 0, job, ese_policy::local_jobs_preferred);
  ASSERT_TRUE(a) << a.err().message;
  EXPECT_TRUE(a->meets_qos);
  EXPECT_EQ(a->shape, (job_shape{8, 100}));
  EXPECT_EQ(a->start, 100);
  EXPECT_EQ(a->completion, 200);
  EXPECT_EQ(a->zeta, 0);
  EXPECT_DOUBLE_EQ(a->utilization, 0.0);
  // 8 CPUs x 100 s of the 8 x 900 CPU-seconds of the window.
  EXPECT_DOUBLE_EQ(a->utilization_after, 800.0 / 7200.0);
  EXPECT_EQ(a->busy_cores, 0);
}

TEST(MatchAdvice, EqualCompletionPrefersFewerCpus) {
  cluster_workload w{8, {}, {}, {}};
  match_job job{0, time_infinity, {{8, 100}, {4, 100}}};
  auto a = advise_match(w, 0, job, ese_policy::local_jobs_preferred);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->shape.np, 4);
}

// 4 CPUs: a running job holds all of them until 100; a queued local job of 4 CPUs for 100 s
// is planned at [100, 200). The new job wants 4 CPUs for 50 s, ready at 0, no deadline.
cluster_workload queue_ahead() {
  return {4, {{4, 100}}, {{4, 100}}, {}};
}

TEST(MatchAdvice, WaitingBehindTheQueueHasNoLaxityImpact) {
  auto a = advise_match(queue_ahead(), 0, {0, time_infinity, {{4, 50}}},
                        ese_policy::local_jobs_preferred);
  ASSERT_TRUE(a) << a.err().message;
  EXPECT_EQ(a->start, 200);  // after the queued job
  EXPECT_EQ(a->completion, 250);
  EXPECT_EQ(a->zeta, 0);
  EXPECT_EQ(a->busy_cores, 8);
  EXPECT_EQ(a->longest_walltime, 100);
}

TEST(MatchAdvice, JumpingTheQueuePushesLocalJobsBack) {
  auto a =
      advise_match(queue_ahead(), 0, {0, time_infinity, {{4, 50}}}, ese_policy::reservations_first);
  ASSERT_TRUE(a) << a.err().message;
  EXPECT_EQ(a->start, 100);  // right after the running job
  EXPECT_EQ(a->completion, 150);
  // The queued job moves from 100 to 150: it lost 50 s of remaining laxity.
  EXPECT_EQ(a->zeta, 50);
  // Window [0, 50) without a deadline: the running job books all of it.
  EXPECT_DOUBLE_EQ(a->utilization, 1.0);
}

TEST(MatchAdvice, ADeadlineThatCannotBeMetIsReportedNotAnError) {
  auto a = advise_match(queue_ahead(), 0, {0, 120, {{4, 50}}}, ese_policy::reservations_first);
  ASSERT_TRUE(a) << a.err().message;
  EXPECT_FALSE(a->meets_qos);
  // Window [0, 120): running 4 x 100, queued job 4 x 20 of 4 x 120.
  EXPECT_DOUBLE_EQ(a->utilization, 480.0 / 480.0);
}

TEST(MatchAdvice, AKeptProfileOfCommittedWorkGivesTheSameAdvice) {
  // With and without queued jobs, under both policies.
  cluster_workload busy{8, {{4, 100}, {2, 300}}, {}, {{50, 400, 2}}};
  for (auto w : {busy, queue_ahead()}) {
    auto committed = plan_workload(w, 0, ese_policy::reservations_first);
    ASSERT_TRUE(committed);
    for (auto policy : {ese_policy::local_jobs_preferred, ese_policy::reservations_first}) {
      match_job job{10, 1000, {{2, 100}, {4, 60}}};
      auto built = advise_match(w, 0, job, policy);
      auto kept = advise_match(w, 0, job, policy, &committed->profile);
      ASSERT_TRUE(built && kept);
      EXPECT_EQ(*built, *kept);
    }
  }
}

TEST(MatchAdvice, BadInputIsRefused) {
  cluster_workload w{8, {}, {}, {}};
  auto lj = ese_policy::local_jobs_preferred;
  EXPECT_EQ(advise_match(w, 0, {0, 100, {}}, lj).err().code, errc::invalid_parameter);
  EXPECT_EQ(advise_match(w, 0, {0, 100, {{0, 10}}}, lj).err().code, errc::invalid_parameter);
  EXPECT_EQ(advise_match(w, 0, {0, 100, {{2, 0}}}, lj).err().code, errc::invalid_parameter);
  EXPECT_EQ(advise_match(w, 0, {100, 100, {{2, 10}}}, lj).err().code, errc::invalid_parameter);
  cluster_workload overbooked{4, {{4, 100}}, {}, {{0, 100, 2}}};
  EXPECT_FALSE(advise_match(overbooked, 0, {0, 1000, {{2, 10}}}, lj));
}

}  // namespace
}  // namespace arbroker
