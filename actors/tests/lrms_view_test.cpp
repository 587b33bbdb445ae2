// The LRMS view of a cluster service on its own: when it reads the LRMS (whole, or the jobs
// only), and the admission rule it gives for each site policy.

#include "arbroker/actors/lrms_view.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "arbroker/adapters/timed_lrms.hpp"
#include "arbroker/sim/simulated_lrms.hpp"

namespace arbroker {
namespace {

struct lrms_view_test : ::testing::Test {
  timestamp now = 1'000'000;
  simulated_lrms* sim = nullptr;  // owned by backend
  std::unique_ptr<lrms> backend;
  std::map<lrms_call, int> calls;

  void SetUp() override {
    auto l = simulated_lrms::create({"c1", 64, {1, {}}, [this] { return now; }});
    ASSERT_TRUE(l);
    sim = l->get();
    backend = std::make_unique<timed_lrms>(std::move(*l),
                                           [this](lrms_call c, auto, bool) { ++calls[c]; });
  }

  lrms_view make(ljp_policy ljp = ljp_policy::off, ljp_method check = ljp_method::ese) {
    cluster_policy p;
    p.refresh = 10;
    p.full_refresh = 60;
    p.ljp = ljp;
    p.ljp_check = check;
    auto v = lrms_view::create({"c1", 64, p});
    EXPECT_TRUE(v) << to_string(v.err());
    return std::move(*v);
  }
  // Which reads a refresh at `t` made: "whole", "jobs" or "none".
  std::string read_at(lrms_view& v, timestamp t) {
    now = t;
    calls.clear();
    EXPECT_TRUE(v.refresh(*backend, now));
    if (calls[lrms_call::snapshot]) return "whole";
    return calls[lrms_call::jobs_snapshot] ? "jobs" : "none";
  }
};

TEST_F(lrms_view_test, ReadsTheJobsEveryRefreshAndTheWholeEveryFullRefresh) {
  auto v = make();
  const timestamp t0 = now;
  EXPECT_EQ(read_at(v, t0), "whole");  // the first use
  EXPECT_EQ(read_at(v, t0 + 9), "none");
  EXPECT_EQ(read_at(v, t0 + 10), "jobs");
  EXPECT_EQ(read_at(v, t0 + 15), "none");
  EXPECT_EQ(read_at(v, t0 + 60), "whole");
}

// refresh 0 reads the jobs on every call, but not twice at one instant while the LRMS says
// none of them changed (one request makes several calls).
TEST_F(lrms_view_test, WithRefreshZeroTheJobsAreReadOncePerInstantWhileTheyStayTheSame) {
  cluster_policy p;
  p.refresh = 0;
  p.full_refresh = 60;
  auto v = lrms_view::create({"c1", 64, p});
  ASSERT_TRUE(v);
  const timestamp t0 = now;
  EXPECT_EQ(read_at(*v, t0), "whole");
  EXPECT_EQ(read_at(*v, t0), "none");
  ASSERT_TRUE(sim->create_reservation({"r", "alice", t0 + 600, 600, 8}));  // no job changed
  EXPECT_EQ(read_at(*v, t0), "none");
  ASSERT_TRUE(sim->submit_local_job({"j", "bob", 4, 600, std::nullopt, "", ""}, 600));
  EXPECT_EQ(read_at(*v, t0), "jobs");
  EXPECT_EQ(read_at(*v, t0), "none");
  EXPECT_EQ(read_at(*v, t0 + 1), "jobs");  // another instant: the remaining walltimes moved
  v->jobs_changed();
  EXPECT_EQ(read_at(*v, t0 + 1), "jobs");
}

TEST_F(lrms_view_test, ReadsAgainAtOnceWhenToldItIsWrongOrTheJobsChanged) {
  auto v = make();
  const timestamp t0 = now;
  EXPECT_EQ(read_at(v, t0), "whole");
  v.jobs_changed();
  EXPECT_EQ(read_at(v, t0 + 1), "jobs");
  v.wrong();
  EXPECT_EQ(read_at(v, t0 + 2), "whole");
  now = t0 + 3;
  calls.clear();
  ASSERT_TRUE(v.refresh(*backend, now, true));  // forced
  EXPECT_EQ(calls[lrms_call::snapshot], 1);
}

TEST_F(lrms_view_test, KeepsItsOwnReservationsBetweenReadsAndFreedCpusBringTheJobsBack) {
  auto v = make();
  ASSERT_TRUE(sim->submit_local_job({"big", "bob", 64, 3600, std::nullopt, "", ""}, 3600));
  ASSERT_TRUE(sim->submit_local_job({"next", "bob", 8, 600, std::nullopt, "", ""}, 600));
  EXPECT_EQ(read_at(v, now), "whole");
  EXPECT_EQ(v.running(), 1);
  EXPECT_EQ(v.queued(), 1);
  v.put("r1", {now + 7200, now + 9000, 16}, now);
  EXPECT_EQ(v.profile().free_at(now + 8000), 48);  // without reading the LRMS
  v.erase("r1");
  EXPECT_EQ(v.profile().free_at(now + 8000), 64);
  EXPECT_EQ(read_at(v, now + 1), "jobs");  // a queued job may take the CPUs
}

TEST_F(lrms_view_test, TheAdmissionRuleFollowsTheSitePolicy) {
  ASSERT_TRUE(sim->submit_local_job({"big", "bob", 64, 3600, std::nullopt, "", ""}, 3600));
  ASSERT_TRUE(sim->submit_local_job({"next", "bob", 32, 600, std::nullopt, "", ""}, 600));
  {
    auto v = make(ljp_policy::off);
    ASSERT_EQ(read_at(v, now), "whole");
    auto rule = v.admission_for(true, false, now);
    ASSERT_TRUE(rule);
    EXPECT_FALSE(rule->ljp);
    EXPECT_EQ(rule->free, &v.profile());
    EXPECT_EQ(rule->not_before, now);
  }
  {
    auto v = make(ljp_policy::enforce, ljp_method::twkl);
    ASSERT_EQ(read_at(v, now), "whole");
    auto rule = v.admission_for(true, false, now);
    ASSERT_TRUE(rule);
    EXPECT_TRUE(rule->ljp);
    EXPECT_EQ(rule->not_before, v.capacity().t_wkl());
    EXPECT_GT(rule->not_before, now);  // the queued job waits for the big one
    // A user may not waive it where the site enforces it; an admin may.
    EXPECT_EQ(v.admission_for(false, false, now).err().code, errc::permission_denied);
    EXPECT_FALSE(v.admission_for(false, true, now)->ljp);
  }
  {
    auto v = make(ljp_policy::enforce, ljp_method::ese);
    ASSERT_EQ(read_at(v, now), "whole");
    auto rule = v.admission_for(true, false, now);
    ASSERT_TRUE(rule);
    EXPECT_EQ(rule->free, &v.capacity().planned(now));
    // The queued job's 32 CPUs are planned after the big one: vacant there only 32.
    EXPECT_EQ(rule->free->free_at(now + 3600), 32);
    EXPECT_EQ(v.profile().free_at(now + 3600), 64);
  }
}

}  // namespace
}  // namespace arbroker
