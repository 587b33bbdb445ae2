#include "arbroker/adapters/lrms.hpp"

#include <gtest/gtest.h>

namespace arbroker {
namespace {

TEST(ToWorkload, RemainingWalltimesAndBoundJobs) {
  lrms_snapshot s;
  s.now = 1000;
  s.cpus = 16;
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
  lrms_snapshot s;
  s.now = 1000;
  s.cpus = 8;
  s.job_end_margin = 1;
  s.running = {{"1", "u", 8, 600, 0, 700, {}, ""}};  // EndTime 1300
  auto w = to_workload(s);
  EXPECT_EQ(w.running, (std::vector<running_job>{{8, 301}}));  // free from 1301
  s.job_end_margin = 60;                                       // Grid Engine's DURATION_OFFSET
  EXPECT_EQ(to_workload(s).running, (std::vector<running_job>{{8, 360}}));
}

}  // namespace
}  // namespace arbroker
