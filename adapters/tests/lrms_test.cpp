#include "arbroker/adapters/lrms.hpp"

#include <gtest/gtest.h>

namespace arbroker {
namespace {

// An LRMS of `cpus` CPUs as seen at time 1000, ending jobs `margin` s past their walltimes.
lrms_snapshot seen_at_1000(int cpus, duration margin = 0) {
  lrms_snapshot s;
  s.now = 1000;
  s.cpus = cpus;
  s.job_end_margin = margin;
  return s;
}

TEST(ToWorkload, RemainingWalltimesAndBoundJobs) {
  auto s = seen_at_1000(16);
  s.running = {{"1", "u", 4, 600, 0, 700, {}, ""},     // ends at 1300: 300 s left
               {"2", "u", 2, 100, 0, 800, {}, ""},     // overdue: at least 1 s
               {"3", "u", 8, 600, 0, 900, "R1", ""}};  // inside reservation R1
  s.queued = {{"4", "u", 8, 3600, 0, {}, {}, ""}, {"5", "u", 1, 60, 0, {}, "R1", ""}};
  s.reservations = {{"R1", "arb-1", "alice", 900, 2000, 8}};
  auto w = to_workload(s);
  EXPECT_EQ(w.cpus, 16);
  EXPECT_EQ(w.running, (std::vector<running_job>{{4, 300}, {2, 1}}));
  EXPECT_EQ(w.queued, (std::vector<waiting_job>{{8, 3600}}));
  EXPECT_EQ(w.reservations, (std::vector<reservation_span>{{900, 2000, 8}}));
}

// The LRMS's rule at a running job's end (Slurm refuses a reservation starting at the job's
// EndTime): the workload holds the job's CPUs job_end_margin seconds longer, so that no start
// arbroker proposes or suggests is one the LRMS refuses.
TEST(ToWorkload, ARunningJobHoldsItsCpusForTheLrmssMarginPastItsWalltime) {
  auto s = seen_at_1000(8, 1);
  s.running = {{"1", "u", 8, 600, 0, 700, {}, ""}};  // EndTime 1300
  auto w = to_workload(s);
  EXPECT_EQ(w.running, (std::vector<running_job>{{8, 301}}));  // free from 1301
  s.job_end_margin = 60;                                       // Grid Engine's DURATION_OFFSET
  EXPECT_EQ(to_workload(s).running, (std::vector<running_job>{{8, 360}}));
}

// Issue 33: what a queued job waits for besides CPUs reaches the plan: its begin time, a
// running parent's worst-case end (with the LRMS's margin), a queued parent's place.
TEST(ToWorkload, AQueuedJobsBeginTimeAndDependenciesReachThePlan) {
  auto s = seen_at_1000(16, 1);
  s.running = {{"7", "u", 4, 600, 0, 700, {}, ""}};  // ends 1300
  lrms_job begun{"8", "u", 8, 120, 0, {}, {}, ""};
  begun.not_before = 1180;
  lrms_job child{"9", "u", 4, 60, 0, {}, {}, ""};
  child.after = {"7", "8", "3"};  // running, queued, ended
  lrms_job past{"10", "u", 2, 60, 0, {}, {}, ""};
  past.not_before = 900;  // a begin time already passed: none
  s.queued = {begun, child, past};
  auto w = to_workload(s);
  ASSERT_EQ(w.queued.size(), 3u);
  EXPECT_EQ(w.queued[0], (waiting_job{8, 120, 1180, {}}));
  EXPECT_EQ(w.queued[1], (waiting_job{4, 60, 1301, {0}}));
  EXPECT_EQ(w.queued[2], (waiting_job{2, 60, 0, {}}));
}

}  // namespace
}  // namespace arbroker
