#include "arbroker/sim/walltime_rule.hpp"

#include <gtest/gtest.h>

namespace arbroker::sim {
namespace {

swf_job job(duration requested, duration run) {
  swf_job j;
  j.job_id = 1;
  j.submit_time = 0;
  j.requested_time = requested;
  j.run_time = run;
  return j;
}

TEST(WalltimeRule, KillKeepsTheRequestExtendNeverCutsARun) {
  // Overran its request: killed at 100 s under kill, runs 150 s under extend.
  EXPECT_EQ(times_of(job(100, 150), walltime_rule::kill).walltime, 100);
  EXPECT_EQ(times_of(job(100, 150), walltime_rule::extend).walltime, 150);
  EXPECT_EQ(times_of(job(100, 150), walltime_rule::kill).runtime, 150);
  // Within its request: the same either way.
  EXPECT_EQ(times_of(job(300, 150), walltime_rule::kill).walltime, 300);
  EXPECT_EQ(times_of(job(300, 150), walltime_rule::extend).walltime, 300);
  // Unknown request: the run time.
  EXPECT_EQ(times_of(job(-1, 150), walltime_rule::kill).walltime, 150);
  EXPECT_EQ(times_of(job(0, 150), walltime_rule::extend).walltime, 150);
}

TEST(WalltimeRule, NamesRoundTrip) {
  for (auto r : {walltime_rule::kill, walltime_rule::extend})
    EXPECT_EQ(parse_walltime_rule(to_string(r)), r);
  EXPECT_FALSE(parse_walltime_rule("max"));
}

}  // namespace
}  // namespace arbroker::sim
