// The calls about jobs (their states, finding them by name, a broker's cancel at an agent)
// read the LRMS's jobs alone: on Grid Engine a full snapshot runs qrstat as well, on Slurm
// it loads every reservation, and none of these calls needs them.

#include <gtest/gtest.h>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/sim/simulated_lrms.hpp"
#include "c1_config.hpp"
#include "delegating_lrms.hpp"

namespace arbroker {
namespace {

// A simulated LRMS that counts full snapshots and snapshots of the jobs alone.
class counting_snapshots final : public testing::delegating_lrms {
 public:
  using delegating_lrms::delegating_lrms;
  int full = 0;
  int jobs_only = 0;

  result<lrms_snapshot> snapshot() override {
    ++full;
    return delegating_lrms::snapshot();
  }
  result<lrms_snapshot> jobs_snapshot() override {
    ++jobs_only;
    return delegating_lrms::jobs_snapshot();
  }
};

struct job_calls_test : ::testing::Test {
  timestamp now = 1'000'000;
  counting_snapshots* lrms = nullptr;  // owned by the service
  std::unique_ptr<cluster_service> svc;

  void SetUp() override {
    auto inner = simulated_lrms::create({"c1", 64, {8, {}}, [this] { return now; }});
    ASSERT_TRUE(inner);
    auto l = std::make_unique<counting_snapshots>(std::move(*inner));
    lrms = l.get();
    auto c = testing::c1_config();
    c.scoped_callers = true;  // as at an agent: a caller names its broker
    auto s = cluster_service::create(c, std::move(l));
    ASSERT_TRUE(s) << to_string(s.err());
    svc = std::move(*s);
  }
};

TEST_F(job_calls_test, JobCallsReadTheJobsAlone) {
  // A job of broker b1 at an agent (its name carries its broker), one queued behind it.
  auto mine = svc->submit_job({"alice", "b1+g1.0", "run", 64, 600}, now);
  ASSERT_TRUE(mine.error.ok()) << mine.error.message;
  auto queued = svc->submit_job({"alice", "b1+g2.0", "run", 64, 600}, now);
  ASSERT_TRUE(queued.error.ok()) << queued.error.message;
  lrms->full = lrms->jobs_only = 0;

  auto states = svc->job_states({{mine.lrms_id, queued.lrms_id}}, now);
  ASSERT_TRUE(states.error.ok()) << states.error.message;
  ASSERT_EQ(states.jobs.size(), 2u);
  EXPECT_EQ(states.jobs[0].state, observed_state::running);
  EXPECT_EQ(states.jobs[1].state, observed_state::queued);

  auto found = svc->find_jobs({{"b1+g2.0", "b1+g3.0"}}, now);
  ASSERT_TRUE(found.error.ok()) << found.error.message;
  EXPECT_EQ(found.lrms_ids, (std::vector<std::string>{queued.lrms_id, ""}));

  // Another broker's cancel of b1's job answers as for a missing one; b1's own goes through.
  auto theirs = svc->cancel_job({"b2:" + queued.lrms_id, false}, now);
  EXPECT_EQ(theirs.error.err(), errc::not_found);
  auto own = svc->cancel_job({"b1:" + queued.lrms_id, false}, now);
  EXPECT_TRUE(own.error.ok()) << own.error.message;
  EXPECT_EQ(lrms->inner().job_status(queued.lrms_id).value(), lrms_job_state::cancelled);

  EXPECT_EQ(lrms->full, 0);
  EXPECT_EQ(lrms->jobs_only, 4);  // states, find, and one ownership check per cancel
}

}  // namespace
}  // namespace arbroker
