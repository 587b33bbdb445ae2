// The simulated LRMS's jobs version: while it stays the same at one instant, a jobs snapshot
// is the same too, whatever else happened (reservations made, changed, deleted, calls that
// started nothing), so that a cluster service may skip the read.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "simulated_lrms_fixture.hpp"

namespace arbroker {
namespace {

TEST(JobsVersion, AnUnchangedVersionAtOneInstantMeansUnchangedJobs) {
  std::mt19937 rng(11);
  for (auto policy :
       {scheduling_policy::fcfs, scheduling_policy::easy, scheduling_policy::conservative}) {
    testing_sim::cluster c(32, {}, policy);
    timestamp t = 1000;
    c.at(t);
    std::vector<std::string> reservations;
    std::vector<std::string> jobs;
    auto version = c->jobs_version();
    auto jobs_then = c->jobs_snapshot();
    int same = 0, changed = 0;
    for (int step = 0; step < 3000; ++step) {
      if (rng() % 4 == 0) c.at(t += 1 + static_cast<timestamp>(rng() % 120));
      const int np = 1 + static_cast<int>(rng() % 12);
      const timestamp start = t + static_cast<timestamp>(rng() % 600);
      switch (rng() % 7) {
        case 0:
          if (auto id = c->create_reservation({"r", "alice", start, 300, np}))
            reservations.push_back(*id);
          break;
        case 1:
          if (!reservations.empty()) {
            (void)c->delete_reservation(reservations.back());
            reservations.pop_back();
          }
          break;
        case 2:
          if (!reservations.empty())
            if (auto id =
                    c->modify_reservation(reservations.back(), {"r", "alice", start, 400, np}))
              reservations.back() = *id;
          break;
        case 3:
          if (!reservations.empty()) (void)c->extend_reservation(reservations.back(), start + 900);
          break;
        case 4:
          if (!reservations.empty()) {  // a job in it
            if (auto id = c->submit_job({"b", "alice", 1, 60, reservations.back(), ""}))
              jobs.push_back(*id);
          }
          break;
        case 5:
          if (auto id = c->submit_local_job({"l", "bob", np, 200, std::nullopt, ""},
                                            50 + static_cast<duration>(rng() % 300)))
            jobs.push_back(*id);
          break;
        default:
          if (!jobs.empty()) (void)c->cancel_job(jobs[rng() % jobs.size()]);
      }
      const auto now_version = c->jobs_version();
      auto now_jobs = c->jobs_snapshot();
      ASSERT_TRUE(now_version && now_jobs);
      if (*now_version == *version && now_jobs->now == jobs_then->now) {
        ++same;
        ASSERT_EQ(now_jobs->running, jobs_then->running) << "step " << step;
        ASSERT_EQ(now_jobs->queued, jobs_then->queued) << "step " << step;
      } else {
        ++changed;
      }
      version = now_version;
      jobs_then = std::move(now_jobs);
    }
    EXPECT_GT(same, 100);  // both cases came up often
    EXPECT_GT(changed, 100);
  }
}

}  // namespace
}  // namespace arbroker
