// Local Jobs Preferred at a cluster reservation service (paper 004, Sec. III-B; issue 14):
// under `ese` a hold must fit the vacancies of the queued jobs' plan, under `twkl` start at
// or after T_wkl; the site's policy says who may waive it; probes offer only what prepare
// admits.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "arbroker/core/earliest_start.hpp"
#include "simulated_service.hpp"

namespace arbroker {
namespace {

struct ljp_fixture : testing::simulated_service {
  int cpus = 10;

  ljp_fixture() { now = 2'000'000; }

  void make(ljp_policy policy, ljp_method method, int n_cpus = 10) {
    cpus = n_cpus;
    testing::service_setup setup{.journaled = false};
    setup.config.info.name = "c";
    setup.config.info.cpus = cpus;
    setup.config.ljp = policy;
    setup.config.ljp_check = method;
    simulated_service::make(std::move(setup));
  }

  // Issue 14's counterexample to T_wkl: nine 1-CPU jobs with 10 s left, one with 1000 s,
  // and a queued 10-CPU job of 100 s, planned at now + 1000. T_wkl = now + 209.
  void counterexample() {
    for (int i = 0; i < 9; ++i)
      ASSERT_TRUE(lrms->submit_local_job({"short" + std::to_string(i), "bob", 1, 10, {}, ""}, 10));
    ASSERT_TRUE(lrms->submit_local_job({"long", "bob", 1, 1000, {}, ""}, 1000));
    ASSERT_TRUE(lrms->submit_local_job({"wide", "bob", 10, 100, {}, ""}, 100));
    ASSERT_EQ(lrms->snapshot()->queued.size(), 1u);
  }

  msg::prepare_request hold(std::string txn, timestamp start, timestamp end, int np,
                            bool ljp = true, bool admin = false) {
    return {.txn = std::move(txn),
            .owner = "alice",
            .start = start,
            .end = end,
            .np = np,
            .expiry = now + 60,
            .local_jobs_preferred = ljp,
            .admin = admin,
            .commit_at_once = true};
  }

  // The planned starts of the queued jobs as the LRMS's workload is now.
  std::vector<timestamp> queue_plan() {
    auto plan =
        plan_workload(to_workload(*lrms->snapshot()), now, ese_policy::local_jobs_preferred);
    EXPECT_TRUE(plan) << to_string(plan.err());
    return plan ? plan->queued_starts : std::vector<timestamp>{};
  }

  static std::uint8_t code(errc e) { return static_cast<std::uint8_t>(e); }
};

TEST_F(ljp_fixture, EseRefusesTheHoldThatTwklAdmitsAndThatWouldPostponeTheQueuedJob) {
  make(ljp_policy::enforce, ljp_method::ese);
  counterexample();
  ASSERT_EQ(queue_plan(), std::vector<timestamp>{now + 1000});
  auto r = svc->prepare(hold("t1", now + 209, now + 1100, 9), now);
  EXPECT_EQ(r.error.code, code(errc::busy)) << r.error.message;
  EXPECT_EQ(r.refused_by, msg::refusal::service);
  EXPECT_NE(r.error.message.find("postpone queued local jobs"), std::string::npos)
      << r.error.message;
  EXPECT_EQ(r.busy_until, now + 1100);  // after the queued job: the next vacancy
  EXPECT_TRUE(lrms->snapshot()->reservations.empty());
  // The vacancy before the queued job is admitted, and the job's start does not move.
  auto ok = svc->prepare(hold("t2", now + 209, now + 1000, 9), now);
  ASSERT_TRUE(ok.error.ok()) << ok.error.message;
  EXPECT_EQ(queue_plan(), std::vector<timestamp>{now + 1000});
}

TEST_F(ljp_fixture, TwklAdmitsTheCounterexampleAndItPushesTheQueuedJob) {
  make(ljp_policy::enforce, ljp_method::twkl);
  counterexample();
  auto r = svc->prepare(hold("t1", now + 209, now + 1100, 9), now);
  ASSERT_TRUE(r.error.ok()) << r.error.message;
  EXPECT_EQ(queue_plan(), std::vector<timestamp>{now + 1100});  // what ese prevents
  // Before T_wkl it is refused.
  auto early = svc->prepare(hold("t2", now + 100, now + 150, 1), now);
  EXPECT_EQ(early.error.code, code(errc::busy));
  EXPECT_EQ(early.busy_until, now + 209);
}

TEST_F(ljp_fixture, UnderEnforceOnlyAnAdminMayWaiveIt) {
  make(ljp_policy::enforce, ljp_method::ese);
  counterexample();
  auto user = svc->prepare(hold("t1", now + 209, now + 1100, 9, false, false), now);
  EXPECT_EQ(user.error.code, code(errc::permission_denied));
  EXPECT_NE(user.error.message.find("only an admin"), std::string::npos);
  EXPECT_TRUE(lrms->snapshot()->reservations.empty());
  msg::probe_request p;
  p.user = "alice";
  p.site.est = now;
  p.site.let = now + 4000;
  p.site.shapes = {{9, 891}};
  p.slotting = {8, 100};
  p.local_jobs_preferred = false;
  EXPECT_EQ(svc->probe(p, now).error.code, code(errc::permission_denied));
  EXPECT_EQ(svc->busy_hint({p.site, false, false}, now).error.code, code(errc::permission_denied));
  EXPECT_EQ(svc->advise({"alice", p.site, false, false}, now).error.code,
            code(errc::permission_denied));
  // An admin may, and then only capacity counts.
  auto admin = svc->prepare(hold("t2", now + 209, now + 1100, 9, false, true), now);
  ASSERT_TRUE(admin.error.ok()) << admin.error.message;
  EXPECT_EQ(queue_plan(), std::vector<timestamp>{now + 1100});
}

TEST_F(ljp_fixture, UnderDefaultAnyoneMayWaiveItAndOffNeverChecks) {
  make(ljp_policy::by_default, ljp_method::ese);
  counterexample();
  EXPECT_EQ(svc->prepare(hold("t1", now + 209, now + 1100, 9), now).error.code, code(errc::busy));
  EXPECT_TRUE(svc->prepare(hold("t2", now + 209, now + 1100, 9, false), now).error.ok());

  make(ljp_policy::off, ljp_method::ese);
  counterexample();
  EXPECT_TRUE(svc->prepare(hold("t1", now + 209, now + 1100, 9), now).error.ok());
}

TEST_F(ljp_fixture, ModifyKeepsTheRuleAndCountsItsOwnOldTerms) {
  make(ljp_policy::enforce, ljp_method::ese);
  counterexample();
  auto r = svc->prepare(hold("t1", now + 209, now + 1000, 9), now);
  ASSERT_TRUE(r.error.ok()) << r.error.message;
  // Growing it into the queued job's planned run is refused and changes nothing...
  msg::modify_request m{"alice", r.reservation_id, now + 209, now + 1050, 9, true, false};
  auto grown = svc->modify(m, now);
  EXPECT_EQ(grown.error.code, code(errc::busy)) << grown.error.message;
  EXPECT_EQ(grown.info.end, now + 1000);
  // ... moving it inside its own old span and the vacancy is not (its own CPUs count free).
  m.start = now + 300;
  m.end = now + 1000;
  auto moved = svc->modify(m, now);
  ASSERT_TRUE(moved.error.ok()) << moved.error.message;
  EXPECT_EQ(moved.info.start, now + 300);
  EXPECT_EQ(queue_plan(), std::vector<timestamp>{now + 1000});
}

// The promise behind probes: under ese, every slot a probe offers is admitted by prepare,
// and no admitted hold moves a queued job's planned start later. Random local workloads,
// each slot prepared and then released.
TEST_F(ljp_fixture, EverySlotAProbeOffersIsAdmittedAndPostponesNoQueuedJob) {
  std::mt19937_64 rng(14);
  int prepared = 0;
  for (int round = 0; round < 40; ++round) {
    make(ljp_policy::enforce, ljp_method::ese, 16);
    std::uniform_int_distribution<int> np(1, 16);
    std::uniform_int_distribution<duration> len(10, 2000);
    const int jobs = 3 + round % 10;
    for (int i = 0; i < jobs; ++i) {
      const duration w = len(rng);
      ASSERT_TRUE(lrms->submit_local_job({"j" + std::to_string(i), "bob", np(rng), w, {}, ""}, w));
    }
    const auto before = queue_plan();
    msg::probe_request p;
    p.user = "alice";
    p.site.est = now;
    p.site.let = now + 6000;
    const int a = np(rng), b = np(rng);
    p.site.shapes = {{std::min(a, b), len(rng)}};  // ascending np, as adapt_to_site makes them
    if (a != b) p.site.shapes.push_back({std::max(a, b), len(rng)});
    p.slotting = {12, 150};
    auto reply = svc->probe(p, now);
    ASSERT_TRUE(reply.error.ok()) << reply.error.message;
    for (std::size_t i = 0; i < reply.slots.size(); ++i) {
      const auto& s = reply.slots[i];
      auto h = svc->prepare(
          hold("r" + std::to_string(round) + "." + std::to_string(i), s.start, s.end, s.np), now);
      ASSERT_TRUE(h.error.ok()) << "round " << round << ": [" << s.start - now << ", "
                                << s.end - now << ") x " << s.np << ": " << h.error.message;
      ++prepared;
      const auto after = queue_plan();
      ASSERT_EQ(after.size(), before.size());
      for (std::size_t q = 0; q < before.size(); ++q)
        EXPECT_LE(after[q], before[q]) << "round " << round << ", queued job " << q;
      ASSERT_TRUE(svc->cancel({"alice", h.reservation_id}, now).error.ok());
    }
  }
  EXPECT_GT(prepared, 40);  // the probes did offer slots
}

}  // namespace
}  // namespace arbroker
