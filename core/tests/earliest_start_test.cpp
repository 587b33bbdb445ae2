#include "arbroker/core/earliest_start.hpp"

#include <gtest/gtest.h>

namespace arbroker {
namespace {

// The situation of paper 004, Fig. 2/3: 4 CPUs; J1 runs on all of them until t = 10;
// queued in FIFO order J2 (2 CPUs, 10 s), J3 (2 CPUs, 20 s), J4 (4 CPUs, 5 s).
// Planned: J2 [10, 20) and J3 [10, 30) side by side, J4 [30, 35) once both are done.
cluster_workload figure2() {
  cluster_workload w;
  w.cpus = 4;
  w.running = {{4, 10}};
  w.queued = {{2, 10}, {2, 20}, {4, 5}};
  return w;
}

TEST(EarliestStart, PlansQueuedJobsFirstFitInFifoOrder) {
  auto plan = plan_workload(figure2(), 0, ese_policy::local_jobs_preferred);
  ASSERT_TRUE(plan) << to_string(plan.err());
  EXPECT_EQ(plan->queued_starts, (std::vector<timestamp>{10, 10, 30}));
  EXPECT_EQ(plan->queue_tail, 30);
  EXPECT_EQ(plan->profile.free_at(15), 0);
  EXPECT_EQ(plan->profile.free_at(25), 2);
  EXPECT_EQ(plan->profile.free_at(35), 4);
}

TEST(EarliestStart, Figure3aLocalJobsPreferredPlacesRnewAfterJ1ToJ4) {
  // R_new: 4 CPUs for 5 s. It may not overtake any queued job: after J4, at t = 35.
  auto t = estimate_earliest_start(figure2(), 0, 0, 5, 4, ese_policy::local_jobs_preferred);
  ASSERT_TRUE(t) << to_string(t.err());
  EXPECT_EQ(*t, 35);
}

TEST(EarliestStart, Figure3bWithoutLjpRnewFollowsJ1) {
  // The LRMS postpones J3 (and the rest): R_new starts right after J1, at t = 10.
  auto t = estimate_earliest_start(figure2(), 0, 0, 5, 4, ese_policy::reservations_first);
  ASSERT_TRUE(t);
  EXPECT_EQ(*t, 10);
}

TEST(EarliestStart, LjpFillsAHoleThatPostponesNoQueuedJob) {
  // A 2-CPU, 10 s reservation fits beside J3 over [20, 30): a vacancy of the plan (Listing
  // 1 searches all of them), and J4 still starts at 30, so LJP allows it there.
  auto plan = plan_workload(figure2(), 0, ese_policy::local_jobs_preferred);
  ASSERT_TRUE(plan);
  auto t = estimate_earliest_start(figure2(), 0, 0, 10, 2, ese_policy::local_jobs_preferred);
  ASSERT_TRUE(t);
  EXPECT_EQ(*t, 20);
  auto with = figure2();
  with.reservations.push_back({20, 30, 2});
  auto after = plan_workload(with, 0, ese_policy::local_jobs_preferred);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->queued_starts, plan->queued_starts);
  // One second longer and it would postpone J4: the next vacancy is after J4.
  EXPECT_EQ(*estimate_earliest_start(figure2(), 0, 0, 11, 2, ese_policy::local_jobs_preferred), 35);
}

// The counterexample of issue 14 to paper 000's T_wkl rule: 10 CPUs, nine 1-CPU jobs with
// 10 s left, one with 1000 s left, a queued 10-CPU job of 100 s (planned at 1000).
cluster_workload t_wkl_counterexample() {
  cluster_workload w;
  w.cpus = 10;
  w.running.assign(9, running_job{1, 10});
  w.running.push_back({1, 1000});
  w.queued = {{10, 100}};
  return w;
}

TEST(EarliestStart, AHoldThatWouldPostponeAQueuedJobDoesNotFitTheVacancies) {
  auto plan = plan_workload(t_wkl_counterexample(), 0, ese_policy::local_jobs_preferred);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->queued_starts, (std::vector<timestamp>{1000}));
  // T_wkl admits [209, 1100) with 9 CPUs; it would push the queued job to 1100.
  EXPECT_FALSE(plan->profile.fits(209, 1100, 9));
  // The vacancy before the queued job takes 9 CPUs up to 1000, not longer.
  EXPECT_TRUE(plan->profile.fits(209, 1000, 9));
  EXPECT_EQ(*estimate_earliest_start(*plan, 0, 209, 891, 9), 1100);
}

TEST(EarliestStart, OnePlanAnswersForSeveralShapes) {
  // Same answers as planning per question (Fig. 3a and 3b above), from one plan each.
  for (auto policy : {ese_policy::local_jobs_preferred, ese_policy::reservations_first}) {
    auto plan = plan_workload(figure2(), 0, policy);
    ASSERT_TRUE(plan);
    for (int np : {1, 2, 4})
      for (duration dur : {5, 10, 40})
        EXPECT_EQ(*estimate_earliest_start(*plan, 0, 0, dur, np),
                  *estimate_earliest_start(figure2(), 0, 0, dur, np, policy));
  }
  auto plan = plan_workload(figure2(), 0, ese_policy::reservations_first);
  EXPECT_EQ(*estimate_earliest_start(*plan, 0, 0, 5, 4), 10);
  EXPECT_EQ(estimate_earliest_start(*plan, 0, 0, 0, 4).err().code, errc::invalid_duration);
  EXPECT_EQ(estimate_earliest_start(*plan, 0, 0, 5, 0).err().code, errc::invalid_processor_range);
}

TEST(EarliestStart, ReadyTimeReservationsAndDeadline) {
  auto w = figure2();
  w.reservations = {{40, 100, 3}};  // committed: 3 CPUs over [40, 100)
  // LJP, 2 CPUs for 10 s from ready = 0: the hole beside J3 over [20, 30).
  EXPECT_EQ(*estimate_earliest_start(w, 0, 0, 10, 2, ese_policy::local_jobs_preferred), 20);
  // 12 s no longer fits there; after J4, [35, 47) hits the reservation (1 CPU free from
  // 40): first fit at 100.
  EXPECT_EQ(*estimate_earliest_start(w, 0, 0, 12, 2, ese_policy::local_jobs_preferred), 100);
  // 1 CPU for 12 s fits beside the reservation after J4: at 35.
  EXPECT_EQ(*estimate_earliest_start(w, 0, 0, 12, 1, ese_policy::local_jobs_preferred), 35);
  // a later ready time
  EXPECT_EQ(*estimate_earliest_start(w, 0, 50, 10, 1, ese_policy::local_jobs_preferred), 50);
  // deadline 90 cannot be met for 2 CPUs for 12 s
  auto late = estimate_earliest_start(w, 0, 0, 12, 2, ese_policy::local_jobs_preferred, 90);
  ASSERT_FALSE(late);
  EXPECT_EQ(late.err().code, errc::infeasible);
}

TEST(EarliestStart, NowShiftsEverythingAndPastReservationsAreIgnored) {
  auto w = figure2();
  w.reservations = {{-50, -10, 4}, {-5, 12, 0 + 4}};
  // The second reservation overlaps J1 at [now, 10): 8 CPUs on a 4-CPU cluster.
  auto bad = plan_workload(w, 0, ese_policy::local_jobs_preferred);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.err().code, errc::capacity_exceeded);
  w.reservations = {{-50, -10, 4}};
  EXPECT_EQ(*estimate_earliest_start(w, 1000, 0, 5, 4, ese_policy::local_jobs_preferred), 1035);
}

TEST(EarliestStart, OversizedQueuedJobBlocksNothing) {
  auto w = figure2();
  w.queued.insert(w.queued.begin(), waiting_job{16, 100});
  auto plan = plan_workload(w, 0, ese_policy::local_jobs_preferred);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->queued_starts.front(), time_infinity);
  EXPECT_EQ(plan->queue_tail, 30);
}

// Issue 33: a queued job that waits for its begin time, or for the jobs it depends on, is
// planned there, not at the first vacancy: a reservation in front of it would postpone it.
TEST(EarliestStart, QueuedJobsWaitForTheirBeginTimeAndTheirDependencies) {
  cluster_workload w;
  w.cpus = 8;
  w.queued = {{8, 120, 180, {}},  // sbatch --begin=now+180 -t 2
              {4, 100, 0, {2}},   // after the third job (planned first)
              {4, 60, 0, {}}};
  auto plan = plan_workload(w, 0, ese_policy::local_jobs_preferred);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->queued_starts, (std::vector<timestamp>{180, 60, 0}));
  // A 10-minute reservation of every CPU from 150 s on: not before the begun job's end.
  EXPECT_EQ(*estimate_earliest_start(w, 0, 150, 600, 8, ese_policy::local_jobs_preferred), 300);
  // Without the begin time the job is planned now, and 150 s looks free (what was admitted).
  w.queued[0].not_before = 0;
  EXPECT_EQ(*estimate_earliest_start(w, 0, 150, 600, 8, ese_policy::local_jobs_preferred), 280);
  // A dependency cycle is broken at one edge: the queue is still planned, whole.
  w.queued = {{4, 100, 0, {1}}, {4, 100, 0, {0}}};
  EXPECT_EQ(plan_workload(w, 0, ese_policy::local_jobs_preferred)->queued_starts,
            (std::vector<timestamp>{100, 0}));
}

TEST(EarliestStart, RejectsBadInput) {
  auto w = figure2();
  EXPECT_EQ(estimate_earliest_start(w, 0, 0, 0, 1, ese_policy::local_jobs_preferred).err().code,
            errc::invalid_duration);
  EXPECT_EQ(estimate_earliest_start(w, 0, 0, 5, 0, ese_policy::local_jobs_preferred).err().code,
            errc::invalid_processor_range);
  EXPECT_EQ(estimate_earliest_start(w, 0, 0, 5, 5, ese_policy::local_jobs_preferred).err().code,
            errc::infeasible);
  auto bad = w;
  bad.cpus = 0;
  EXPECT_EQ(plan_workload(bad, 0, ese_policy::local_jobs_preferred).err().code,
            errc::invalid_processor_range);
  bad = w;
  bad.queued[1].walltime = 0;
  EXPECT_EQ(plan_workload(bad, 0, ese_policy::local_jobs_preferred).err().code,
            errc::invalid_duration);
  bad = w;
  bad.running[0].np = 5;
  EXPECT_EQ(plan_workload(bad, 0, ese_policy::local_jobs_preferred).err().code,
            errc::invalid_processor_range);
  bad = w;
  bad.reservations = {{10, 10, 1}};
  EXPECT_EQ(plan_workload(bad, 0, ese_policy::local_jobs_preferred).err().code,
            errc::invalid_window);
}

}  // namespace
}  // namespace arbroker
