#include "arbroker/core/capacity_view.hpp"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "arbroker/core/earliest_start.hpp"

namespace arbroker {
namespace {

capacity_view make(int cpus, const load_params& load = {}) {
  auto v = capacity_view::create(cpus, load);
  EXPECT_TRUE(v) << (v ? "" : v.err().message);
  return std::move(*v);
}

TEST(CapacityView, RefusesWhatTWklWouldRefuse) {
  EXPECT_EQ(capacity_view::create(0).err().code, errc::invalid_processor_range);
  EXPECT_EQ(capacity_view::create(4, {.acc_r = -1.0}).err().code, errc::invalid_parameter);
}

TEST(CapacityView, KeepsReservationsByKeyBetweenReadsOfTheJobs) {
  auto v = make(10);
  v.reset(0, {{4, 100}}, {}, {{"r1", {200, 300, 6}}});
  EXPECT_EQ(v.profile().free_at(50), 6);
  EXPECT_EQ(v.profile().free_at(250), 4);
  ASSERT_TRUE(v.put("r2", {250, 400, 4}, 10));
  EXPECT_EQ(v.profile().free_at(260), 0);
  // Its terms change: the old ones are given back.
  ASSERT_TRUE(v.put("r2", {500, 600, 10}, 20));
  EXPECT_EQ(v.profile().free_at(260), 4);
  EXPECT_EQ(v.profile().free_at(550), 0);
  // The jobs read again: the job has ended, another runs; the reservations stay.
  ASSERT_TRUE(v.set_jobs(120, {{2, 30}}, {}));
  EXPECT_EQ(v.profile().free_at(130), 8);
  EXPECT_EQ(v.profile().free_at(250), 4);
  v.erase("r1");
  v.erase("unknown");
  EXPECT_EQ(v.profile().free_at(250), 10);
  EXPECT_EQ(v.reservations(), 1u);
  EXPECT_FALSE(v.wrong());
}

// The workload the match advisor places on is what a read of the LRMS at that time gives:
// walltimes left as of then, the queue, the reservations that have not ended, by start.
TEST(CapacityView, TheWorkloadIsWhatAReadNowWouldGive) {
  auto v = make(16);
  v.reset(100, {{4, 100}, {2, 30}}, {{8, 600}}, {{"r9", {500, 900, 6}}, {"r2", {150, 200, 4}}});
  ASSERT_TRUE(v.put("r3", {500, 700, 2}, 100));
  const auto at_read = v.workload(100);
  EXPECT_EQ(at_read.cpus, 16);
  EXPECT_EQ(at_read.running, (std::vector<running_job>{{4, 100}, {2, 30}}));
  EXPECT_EQ(at_read.queued, (std::vector<waiting_job>{{8, 600}}));
  EXPECT_EQ(at_read.reservations,
            (std::vector<reservation_span>{{150, 200, 4}, {500, 700, 2}, {500, 900, 6}}));
  // 60 s later, nothing read since: 40 s left of the first job, the second past its walltime
  // but still running (1 s, as to_workload says); r2 has not ended yet.
  const auto later = v.workload(160);
  EXPECT_EQ(later.running, (std::vector<running_job>{{4, 40}, {2, 1}}));
  EXPECT_EQ(later.reservations.size(), 3u);
  EXPECT_EQ(v.workload(200).reservations,
            (std::vector<reservation_span>{{500, 700, 2}, {500, 900, 6}}));  // r2 has ended
}

TEST(CapacityView, WhatDoesNotFitMakesTheViewWrongUntilTheNextFullRead) {
  auto v = make(10);
  v.reset(0, {}, {}, {{"r1", {100, 200, 8}}});
  EXPECT_FALSE(v.put("r2", {150, 250, 4}, 0));  // someone else's view was better
  EXPECT_TRUE(v.wrong());
  EXPECT_EQ(v.profile().free_at(220), 10);  // left out
  v.reset(1, {}, {}, {{"r1", {100, 200, 8}}});
  EXPECT_FALSE(v.wrong());
  // A running job the reservations leave no room for: the LRMS knows better.
  EXPECT_FALSE(v.set_jobs(120, {{4, 50}}, {}));
  EXPECT_TRUE(v.wrong());
  // A full read that does not fit (stale, overbooked) is taken as far as it goes: what the
  // view holds as the LRMS has it stays, the rest goes in as it fits.
  v.reset(130, {{4, 50}}, {}, {{"r1", {100, 200, 8}}, {"r3", {300, 400, 2}}});
  EXPECT_FALSE(v.wrong());
  EXPECT_EQ(v.profile().free_at(150), 2);  // r1 held, the job left out
  EXPECT_EQ(v.profile().free_at(350), 8);
  // A reservation the LRMS no longer lists makes room before anything new goes in.
  v.reset(140, {}, {}, {{"r4", {150, 250, 10}}});
  EXPECT_EQ(v.profile().free_at(150), 0);
  EXPECT_EQ(v.profile().free_at(350), 10);
  EXPECT_EQ(v.reservations(), 1u);
}

TEST(CapacityView, TWklIsTheEstimateOverTheJobsAndTheReservationsKept) {
  auto v = make(10);
  v.reset(1000, {{10, 100}}, {{5, 40}}, {});
  EXPECT_EQ(v.t_wkl(), 1000 + 100 + 20);
  // A reservation starting before T_wkl pushes it (work share: 10 x 50 / 10).
  ASSERT_TRUE(v.put("a", {1110, 1160, 10}, 1000));
  EXPECT_EQ(v.t_wkl(), 1170);
  // One starting at T_wkl or later does not.
  ASSERT_TRUE(v.put("b", {1170, 1200, 10}, 1000));
  EXPECT_EQ(v.t_wkl(), 1170);
  v.erase("a");
  EXPECT_EQ(v.t_wkl(), 1120);
  // A job the estimate refuses (larger than the cluster) makes it the read's time.
  ASSERT_FALSE(v.set_jobs(1001, {{11, 100}}, {}));
  EXPECT_EQ(v.t_wkl(), 1001);
}

TEST(CapacityView, ThePlanIsTheProfileWhileNothingIsQueued) {
  auto v = make(10);
  v.reset(0, {{10, 100}}, {}, {});
  EXPECT_EQ(&v.planned(0), &v.profile());
  ASSERT_TRUE(v.set_jobs(0, {{10, 100}}, {{10, 50}}));
  const auto& plan = v.planned(0);
  EXPECT_NE(&plan, &v.profile());
  EXPECT_EQ(plan.free_at(120), 0);  // the queued job, planned at 100
  EXPECT_EQ(plan.free_at(150), 10);
  // A queue entry the plan cannot take leaves the plan without the queue.
  ASSERT_TRUE(v.set_jobs(0, {{10, 100}}, {{0, 50}}));
  EXPECT_EQ(&v.planned(0), &v.profile());
}

// The view kept by put/erase/set_jobs equals one read whole at the same time, and its T_wkl
// and plan are the estimator's over the same workload.
RC_GTEST_PROP(CapacityView, KeptStepByStepItEqualsAFullRead, ()) {
  const int cpus = *rc::gen::inRange(16, 65);
  auto v = make(cpus);
  std::map<std::string, reservation_span> kept;
  std::vector<running_job> running;
  std::vector<waiting_job> queue;
  timestamp now = 0;
  timestamp jobs_at = 0;  // of the last set_jobs
  // Reservations start at or after every `now` of the run, so where the view starts to hold
  // them (put's now, or reset's) does not matter.
  const auto span = [&] {
    const timestamp s = *rc::gen::inRange<timestamp>(1000, 3000);
    return reservation_span{s, s + *rc::gen::inRange<duration>(1, 500),
                            *rc::gen::inRange(1, cpus / 16 + 1)};  // 13 of them fit
  };
  const int steps = *rc::gen::inRange(1, 60);
  for (int i = 0; i < steps; ++i) {
    now += *rc::gen::inRange<duration>(0, 10);
    const std::string key = "r" + std::to_string(*rc::gen::inRange(0, 12));
    switch (*rc::gen::inRange(0, 4)) {
      case 0:
      case 1: {
        const auto s = span();
        RC_ASSERT(v.put(key, s, now));
        kept[key] = s;
        break;
      }
      case 2:
        v.erase(key);
        kept.erase(key);
        break;
      default:
        running.clear();
        queue.clear();
        for (int j = *rc::gen::inRange(0, 4); j > 0; --j)
          running.push_back({*rc::gen::inRange(1, cpus / 4 + 1),
                             *rc::gen::inRange<duration>(1, 400)});  // over by 1000
        for (int j = *rc::gen::inRange(0, 4); j > 0; --j)
          queue.push_back({*rc::gen::inRange(1, cpus + 1), *rc::gen::inRange<duration>(1, 400)});
        RC_ASSERT(v.set_jobs(now, running, queue));
        jobs_at = now;
        break;
    }
    // A plan made now is kept through the changes it can absorb.
    if (*rc::gen::inRange(0, 3) == 0) (void)v.planned(jobs_at);
  }
  std::vector<keyed_reservation> all;
  std::vector<reservation_span> spans;
  for (const auto& [k, s] : kept) {
    all.push_back({k, s});
    spans.push_back(s);
  }
  auto whole = make(cpus);
  whole.reset(jobs_at, running, queue, all);
  RC_ASSERT(!v.wrong());
  RC_ASSERT(v.reservations() == kept.size());
  for (timestamp t = jobs_at; t < 4000; t += 7)
    RC_ASSERT(v.profile().free_at(t) == whole.profile().free_at(t));
  auto expected = t_wkl(jobs_at, cpus, running, queue, spans);
  RC_ASSERT(bool(expected));
  RC_ASSERT(v.t_wkl() == *expected);
  RC_ASSERT(whole.t_wkl() == *expected);
  auto plan = v.profile();
  RC_ASSERT(bool(plan_queued_jobs(plan, queue, jobs_at)));
  const auto& got = v.planned(jobs_at);
  for (timestamp t = jobs_at; t < 4000; t += 7)
    RC_ASSERT(got.free_at(t) == plan.free_at(t));
}

// A full read keeps the running jobs' holds while it reconciles the reservations; when the
// LRMS reports more than the cluster has, what is left out is what a new read leaves out: the
// jobs, which go last.
TEST(CapacityView, AnOverbookedFullReadLeavesOutWhatANewReadLeavesOut) {
  auto v = make(10);
  v.reset(0, {{8, 100}}, {}, {});
  v.reset(10, {{8, 90}}, {}, {{"r1", {10, 50, 6}}});  // the same job, and 6 CPUs more
  auto fresh = make(10);
  fresh.reset(10, {{8, 90}}, {}, {{"r1", {10, 50, 6}}});
  EXPECT_EQ(fresh.profile().free_at(20), 4);  // the reservation held, the job left out
  for (timestamp t = 10; t < 120; t += 5)
    EXPECT_EQ(v.profile().free_at(t), fresh.profile().free_at(t)) << "at " << t;
}

// Reads of the jobs change the profile by what changed: a job that runs on keeps its hold (it
// ends when it did), one that ended gives its CPUs back, one that started takes them. From the
// read's time on the view equals one read whole then, also when the jobs do not all fit (the
// ones late in the LRMS's list are left out, as a new read leaves them out).
RC_GTEST_PROP(CapacityView, JobsThatRunOnKeepTheirHoldsAndTheViewEqualsAFullRead, ()) {
  const int cpus = *rc::gen::inRange(8, 65);
  auto v = make(cpus);
  struct job {
    int np;
    timestamp end;
  };
  std::vector<job> jobs;  // in the LRMS's order
  timestamp now = 0;
  const int reads = *rc::gen::inRange(1, 40);
  for (int i = 0; i < reads; ++i) {
    now += *rc::gen::inRange<duration>(0, 60);
    std::vector<job> on;
    for (const auto& j : jobs)  // ended by now, or early (cancelled) now and then
      if (j.end > now && *rc::gen::inRange(0, 8) != 0) on.push_back(j);
    for (int n = *rc::gen::inRange(0, 4); n > 0; --n)
      on.push_back({*rc::gen::inRange(1, cpus / 2 + 1), now + *rc::gen::inRange<duration>(1, 300)});
    jobs = on;
    std::vector<running_job> running;
    for (const auto& j : jobs)
      running.push_back({j.np, j.end - now});
    const bool fits = v.set_jobs(now, running, {});
    auto whole = make(cpus);
    whole.reset(now, running, {}, {});
    int total = 0;
    for (const auto& j : jobs)
      total += j.np;
    if (total <= cpus) RC_ASSERT(fits);
    for (timestamp t = now; t < now + 400; t += 3)
      RC_ASSERT(v.profile().free_at(t) == whole.profile().free_at(t));
  }
}

}  // namespace
}  // namespace arbroker
