#include "../workload/tests/trace_files.hpp"
#include "arbroker/sim/sound_jobs.hpp"
#include "batch_policy_checker.hpp"

// The first 1500 sound batch jobs of KTH-SP2 (a real EASY-scheduled machine of 100 CPUs) and
// a reservation every 25 jobs, replayed under each policy, with every invariant of
// batch_policy_checker.hpp checked at every submission and every event instant.

namespace arbroker {
namespace {

using namespace testing_sim;

void replay(const sim::swf_trace& trace, scheduling_policy policy) {
  const auto jobs = sim::sound_batch_jobs(trace.jobs, sim::soundness::strict, 1500);
  policy_checker check(100, policy);
  cluster& c = check.c();
  std::vector<std::string> ids;
  std::size_t index = 0, events = 0;
  auto step_to = [&](timestamp t) {  // every event instant up to t, one at a time
    while (auto next = c->next_event_time()) {
      if (*next > t) break;
      check.step(
          [&] {
            c.at(*next);
            c->advance_to(*next);
            ++events;
            return false;
          },
          "event at " + std::to_string(*next));
      if (::testing::Test::HasFatalFailure()) return;
    }
  };
  const timestamp t0 = jobs.front().submit_time;
  for (const auto& j : jobs) {
    const timestamp t = j.submit_time - t0;
    step_to(t);
    if (::testing::Test::HasFatalFailure()) return;
    c.at(t);
    const int np = static_cast<int>(std::min<std::int64_t>(sim::procs(j), 100));
    const duration wall = j.requested_time;  // a job that overran it is killed
    const bool make_reservation = ++index % 25 == 0;
    check.step(
        [&] {
          if (make_reservation) {
            auto r = c->create_reservation(rsv(t + 3600, j.run_time, np));
            if (r) (void)c->submit_job(job(np, j.run_time, *r));
            return true;
          }
          auto id = c->submit_local_job(job(np, wall), j.run_time);
          EXPECT_TRUE(id);
          if (id) ids.push_back(*id);
          return false;
        },
        "submit of SWF job " + std::to_string(j.job_id));
    if (::testing::Test::HasFatalFailure()) return;
  }
  step_to(time_infinity);
  EXPECT_GT(ids.size(), 1400u);
  EXPECT_GT(events, ids.size());  // every job's end at least, and the starts between
  for (const auto& id : ids)      // every job ran: nothing is left waiting
    EXPECT_NE(state(*c, id), lrms_job_state::queued) << id;
}

class BatchPolicyTrace : public ::testing::TestWithParam<scheduling_policy> {};

TEST_P(BatchPolicyTrace, KthSp2PrefixKeepsEveryInvariant) {
  const auto* trace = sim::testing::cached_trace("KTH-SP2-1996-2.1-cln.swf");
  if (trace == nullptr) return;  // the test has failed
  replay(*trace, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Policies, BatchPolicyTrace, testing_sim::every_policy(),
                         testing_sim::policy_test_name);

}  // namespace
}  // namespace arbroker
