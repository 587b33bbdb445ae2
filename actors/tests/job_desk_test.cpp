// The job desk without a cluster service: a simulated LRMS of 64 CPUs and a count of the
// queue changes the service would hear of.
#include "arbroker/actors/job_desk.hpp"

#include <gtest/gtest.h>

#include "arbroker/sim/simulated_lrms.hpp"

namespace arbroker {
namespace {

struct job_desk_test : ::testing::Test {
  timestamp now = 1'000'000;
  std::unique_ptr<simulated_lrms> lrms;
  std::unique_ptr<job_desk> desk;
  int changes = 0;

  void SetUp() override { start(false); }
  void start(bool scoped) {
    auto l = simulated_lrms::create({"c1", 64, {8, {}}, [this] { return now; }});
    ASSERT_TRUE(l);
    lrms = std::move(*l);
    desk = std::make_unique<job_desk>(job_desk::settings{"c1", 64, "arb-", scoped}, *lrms,
                                      [this] { ++changes; });
  }
  std::string submit(const std::string& name, int np = 64, duration walltime = 600) {
    auto r = desk->submit({"alice", name, "run", np, walltime});
    EXPECT_TRUE(r.error.ok()) << r.error.message;
    return r.lrms_id;
  }
};

TEST_F(job_desk_test, ASubmitTheClusterCannotRunIsRefusedAndEachChangeIsTold) {
  EXPECT_EQ(desk->submit({"alice", "g1.0", "run", 0, 600}).error.err(), errc::invalid_parameter);
  EXPECT_EQ(desk->submit({"alice", "g1.0", "run", 8, 0}).error.err(), errc::invalid_parameter);
  auto big = desk->submit({"alice", "g1.0", "run", 65, 600});
  EXPECT_EQ(big.error.err(), errc::infeasible);
  EXPECT_EQ(big.error.message, "job of 65 CPUs: c1 has 64");
  EXPECT_EQ(changes, 0);
  auto ok = desk->submit({"alice", "g1.0", "run", 8, 600});
  ASSERT_TRUE(ok.error.ok()) << ok.error.message;
  EXPECT_EQ(ok.cluster, "c1");
  EXPECT_FALSE(ok.lrms_id.empty());
  EXPECT_EQ(changes, 1);
}

TEST_F(job_desk_test, StatesComeInTheOrderAskedAndAnUnknownJobIsAnErrorOfItsOwn) {
  const auto first = submit("g1.0"), second = submit("g2.0");  // the second waits
  auto s = desk->states({{second, "nope", first}});
  ASSERT_TRUE(s.error.ok()) << s.error.message;
  ASSERT_EQ(s.jobs.size(), 3u);
  EXPECT_EQ(s.jobs[0].lrms_id, second);
  EXPECT_EQ(s.jobs[0].state, observed_state::queued);
  EXPECT_FALSE(s.jobs[1].error.ok());
  EXPECT_EQ(s.jobs[2].state, observed_state::running);
  EXPECT_EQ(s.jobs[2].started, now);
}

TEST_F(job_desk_test, AWithdrawalLeavesARunningJobAndACancelEndsAQueuedOne) {
  const auto running = submit("g1.0"), queued = submit("g2.0");
  changes = 0;
  auto w = desk->cancel({running, true});
  ASSERT_TRUE(w.error.ok()) << w.error.message;
  EXPECT_EQ(w.found, observed_state::running);
  EXPECT_EQ(desk->states({{running}}).jobs[0].state, observed_state::running);
  EXPECT_EQ(changes, 0);
  auto c = desk->cancel({queued, true});
  EXPECT_EQ(c.found, observed_state::queued);
  EXPECT_EQ(desk->states({{queued}}).jobs[0].state, observed_state::cancelled);
  EXPECT_EQ(changes, 1);
}

TEST_F(job_desk_test, AtAnAgentAnotherBrokersJobAnswersLikeAMissingOne) {
  start(true);
  const auto id = submit("b1+g1.0");
  auto theirs = desk->cancel({"b2:" + id, false});
  EXPECT_EQ(theirs.error.err(), errc::not_found);
  EXPECT_EQ(theirs.error.message, "no job '" + id + "' on c1");
  EXPECT_EQ(desk->states({{id}}).jobs[0].state, observed_state::running);
  auto mine = desk->cancel({"b1:" + id, false});
  ASSERT_TRUE(mine.error.ok()) << mine.error.message;
  EXPECT_EQ(mine.lrms_id, id);
  EXPECT_EQ(desk->states({{id}}).jobs[0].state, observed_state::cancelled);
}

TEST_F(job_desk_test, JobsAreFoundByTheirNamesUnderThePrefix) {
  const auto id = submit("g1.0");
  auto f = desk->find({{"g1.0", "g9.0"}});
  ASSERT_TRUE(f.error.ok()) << f.error.message;
  EXPECT_EQ(f.lrms_ids, (std::vector<std::string>{id, ""}));
}

TEST_F(job_desk_test, TheOutlookPlansAroundWhatRunsAndWaits) {
  submit("g1.0", 64, 600);                      // runs until now + 600
  const auto queued = submit("g2.0", 32, 300);  // then from now + 600
  auto o = desk->outlook({{{32, 100}, {64, 100}, {128, 100}}, {queued}});
  ASSERT_TRUE(o.error.ok()) << o.error.message;
  EXPECT_EQ(o.now, now);
  EXPECT_EQ(o.starts, (std::vector<std::int64_t>{now + 600, now + 900, -1}));
  EXPECT_EQ(o.queued_starts, std::vector<std::int64_t>{now + 600});
  EXPECT_EQ(o.busy_cores, 96);
  EXPECT_EQ(o.longest_walltime, 600);
}

}  // namespace
}  // namespace arbroker
