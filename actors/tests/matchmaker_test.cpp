// The matchmaker behind the broker: elastic requests that name a policy (paper 002 Sec. 3.1,
// SED of paper 004, TTD of paper 003), on a hand-built grid where the policies disagree.

#include <set>

#include "engine_fixture.hpp"

namespace arbroker {
namespace {

using testing::engine_fixture;

constexpr duration T = 3600;

errc code(const msg::wire_error& e) {
  return e.err();
}

// Six clusters of 8 CPUs reserving in bunches of 4. The request: exactly 4 CPUs for T on
// power 1000 (linear speedup), window [now, now + 20T), queued local jobs may be overtaken
// (local_jobs_preferred = false), so a reservation can push them back.
//
//      pp    local load (times in T from now)            placement   zeta  utilization  SED
//   a  1000  running 8 CPUs to 2, queued 8 CPUs for 1;   [2, 3)      1T    44/160=.275   5
//            reservation 4 CPUs [10, 15)                 (queued job pushed 2 -> 3)
//   b  1000  running 8 to 1, queued 8 for 2;             [1, 2)      1T    64/160=.4     5
//            reservation 4 CPUs [10, 20)                 (queued job pushed 1 -> 2)
//   c  1000  running 8 to 3; reservation 4 [10, 17)      [3, 4)      0     52/160=.325   4
//   d  1000  running 5 CPUs to 5                         [5, 6)      0     25/160=.156   6
//   e  1000  running 8 to 4; reservation 8 [10, 20)      [4, 5)      0     112/160=.7    5
//   f  4000  reservation 8 CPUs [0, 7)                   [7, 7.25)   0     56/160=.35    .25
// Utilization: booked CPU-seconds in the window / (8 CPUs x 20T), queued jobs where planned.
// SED (paper 004 eq. 1-6, units of T): wait = longest walltime x ceil(job cores / 8), run =
// (1000 / pp) x 1, e.g. a: 2 x ceil(16 / 8) + 1 = 5; f: 0 + 0.25. Reservations are not
// jobs, so SED does not see f's block.
// TTD (paper 003) = queue wait + execution = completion - now here (no staging terms).
struct matchmaker_test : engine_fixture {
  void SetUp() override {
    for (const auto& name : {"a", "b", "c", "d", "e"})
      add_cluster(name, 8, 1000, 4);
    add_cluster("f", 8, 4000, 4);
    run_local("a", 8, 2 * T);
    run_local("a", 8, T);  // queued
    reserve_local("a", 10 * T, 5 * T, 4);
    run_local("b", 8, T);
    run_local("b", 8, 2 * T);  // queued
    reserve_local("b", 10 * T, 10 * T, 4);
    run_local("c", 8, 3 * T);
    reserve_local("c", 10 * T, 7 * T, 4);
    run_local("d", 5, 5 * T);
    run_local("e", 8, 4 * T);
    reserve_local("e", 10 * T, 10 * T, 8);
    reserve_local("f", 0, 7 * T, 8);
  }

  void run_local(const std::string& cluster, int np, duration walltime) {
    ASSERT_TRUE(lrms.at(cluster)->submit_job({"local", "bob", np, walltime, {}, ""}));
  }
  void reserve_local(const std::string& cluster, duration from, duration length, int np) {
    ASSERT_TRUE(lrms.at(cluster)->create_reservation({"site", "bob", now + from, length, np}));
  }

  msg::elastic_request job(const std::string& policy,
                           msg::request_mode mode = msg::request_mode::reserve) {
    auto r = elastic(0, 20 * T, 4, 4, T, 4);
    r.policy = policy;
    r.mode = mode;
    r.local_jobs_preferred = false;
    r.admin = true;  // the clusters enforce LJP: only an admin may waive it
    return r;
  }

  std::string ranking(const std::string& policy) { return whatif_ranking(job(policy)); }

  // Reserves with `policy` and checks it landed, committed, on `cluster` at `start`.
  void expect_reserved_on(const std::string& policy, const std::string& cluster, timestamp start,
                          timestamp end) {
    const std::size_t before = lrms_reservations(cluster);
    auto reply = ask<msg::elastic_reply>(broker, job(policy));
    ASSERT_TRUE(reply.error.ok()) << policy << ": " << reply.error.message;
    const auto& r = reply.reservation;
    EXPECT_EQ(r.cluster, cluster) << policy;
    EXPECT_EQ(r.start, start) << policy;
    EXPECT_EQ(r.end, end) << policy;
    EXPECT_EQ(r.np, 4);
    EXPECT_EQ(r.state, reservation_state::committed);
    EXPECT_EQ(r.id.rfind(cluster + "/", 0), 0u);
    EXPECT_EQ(lrms_reservations(cluster), before + 1) << policy;
    auto q = ask<msg::query_reply>(broker, msg::query_request{"alice", r.id});
    EXPECT_TRUE(q.error.ok()) << q.error.message;
  }
};

TEST_F(matchmaker_test, EachPolicyRanksTheWindowAsThePaperDefinesIt) {
  EXPECT_EQ(ranking("ff"), "abcdef");  // the agreed sequence (by name)
  EXPECT_EQ(ranking("nf"), "abcdef");  // nothing chosen yet: from the start
  // Completion 2 (b), 3 (a), 4 (c), 5 (e), 6 (d), 7.25 (f).
  EXPECT_EQ(ranking("imct"), "bacedf");
  EXPECT_EQ(ranking("ttd"), "bacedf");
  EXPECT_EQ(ranking("minu"), "dacfbe");  // .156 .275 .325 .35 .4 .7
  EXPECT_EQ(ranking("maxu"), "ebfcad");
  // zeta 0 first (c, e, d, f by completion), then a and b (zeta 1T each; b completes first).
  EXPECT_EQ(ranking("mli"), "cedfba");
  EXPECT_EQ(ranking("sed"), "fcabed");  // .25, 4, 5 (a, b, e by name), 6
  // Asking reserved nothing.
  for (const auto& name : {"a", "b", "c", "d", "e", "f"})
    EXPECT_EQ(ask<msg::cluster_status>(services[name], msg::cluster_status_request{}).holds +
                  ask<msg::cluster_status>(services[name], msg::cluster_status_request{}).committed,
              0);
}

// Issue 16: a request naming no reference power (pp_ref 0) runs its time on every cluster's
// own CPUs: f, four times faster, gets T like the others (not T / 4), and SED's run term is 1
// everywhere, so f (no queue) still leads and c (wait 3) beats a, b, e (4) and d (5).
TEST_F(matchmaker_test, WithoutAReferencePowerEveryClusterGetsTheSameRunTime) {
  auto r = job("sed", msg::request_mode::whatif);
  r.pp_ref = 0;
  auto reply = ask<msg::elastic_reply>(broker, r);
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  std::string order;
  for (const auto& s : reply.ranked) {
    order += s.cluster;
    EXPECT_EQ(s.end - s.start, T) << s.cluster;
  }
  EXPECT_EQ(order, "fcabed");
  r.pp_ref = 1000;  // named: f's slot is a quarter as long
  reply = ask<msg::elastic_reply>(broker, r);
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  ASSERT_FALSE(reply.ranked.empty());
  EXPECT_EQ(reply.ranked.front().cluster, "f");
  EXPECT_EQ(reply.ranked.front().end - reply.ranked.front().start, T / 4);
}

// Paper 002, Sec. 3.1: with a selection window of 3, the matchmaker is passed three of the
// six clusters, a window that slides by one per request, in name order within.
TEST_F(matchmaker_test, ASelectionWindowPassesOnlyPartOfTheClusters) {
  auto windowed = broker_cfg;
  windowed.selection_window = 3;
  self->send_exit(broker, caf::exit_reason::user_shutdown);  // the fixture ends the new one
  broker = spawn_broker(sys, windowed);
  sched.run();
  EXPECT_EQ(ranking("ff"), "abc");
  EXPECT_EQ(ranking("ff"), "bcd");
  EXPECT_EQ(ranking("imct"), "ced");  // completion 4 (c), 5 (e), 6 (d)
  EXPECT_EQ(ranking("ff"), "def");
  EXPECT_EQ(ranking("minu"), "afe");  // window {e, f, a}: .275 (a), .35 (f), .7 (e)
  EXPECT_EQ(ranking("ff"), "abf");    // window {f, a, b}
}

TEST_F(matchmaker_test, FirstFitReservesOnTheFirstCluster) {
  expect_reserved_on("ff", "a", now + 2 * T, now + 3 * T);
}
TEST_F(matchmaker_test, ImctReservesWhereTheJobCompletesFirst) {
  expect_reserved_on("imct", "b", now + T, now + 2 * T);
}
TEST_F(matchmaker_test, TtdReservesWhereTheResultIsDeliveredFirst) {
  expect_reserved_on("ttd", "b", now + T, now + 2 * T);
}
TEST_F(matchmaker_test, MinUReservesOnTheLeastUtilizedCluster) {
  expect_reserved_on("minu", "d", now + 5 * T, now + 6 * T);
}
TEST_F(matchmaker_test, MaxUReservesOnTheMostUtilizedCluster) {
  expect_reserved_on("maxu", "e", now + 4 * T, now + 5 * T);
}
TEST_F(matchmaker_test, MliReservesWhereLocalJobsLoseNoLaxity) {
  // b and a would finish earlier but push their queued local jobs back by T.
  expect_reserved_on("mli", "c", now + 3 * T, now + 4 * T);
}
TEST_F(matchmaker_test, SedReservesOnTheShortestExpectedDelay) {
  expect_reserved_on("sed", "f", now + 7 * T, now + 7 * T + T / 4);
}

TEST_F(matchmaker_test, NextFitMovesOnAfterEachChoice) {
  expect_reserved_on("nf", "a", now + 2 * T, now + 3 * T);
  expect_reserved_on("nf", "b", now + T, now + 2 * T);
  // The pointer is the cluster chosen last (by a request of any policy).
  expect_reserved_on("nf", "c", now + 3 * T, now + 4 * T);
  EXPECT_EQ(ranking("nf"), "defabc");
}

TEST_F(matchmaker_test, RandomIsSeededAndPicksOnlyClustersThatMeetTheDeadline) {
  // Window [now, now + 5T): d (6) and f (7.25) cannot finish in time.
  auto asked = [this](const broker_actor& b) {
    auto r = job("ran", msg::request_mode::whatif);
    r.let = now + 5 * T;
    auto reply = ask<msg::elastic_reply>(b, r);
    EXPECT_TRUE(reply.error.ok()) << reply.error.message;
    std::string out;
    for (const auto& s : reply.ranked)
      out += s.cluster;
    return out;
  };
  auto twin = spawn_broker(sys, broker_cfg);  // same seed as `broker`
  std::set<char> firsts;
  for (int i = 0; i < 20; ++i) {
    const auto one = asked(broker);
    EXPECT_EQ(one, asked(twin));
    EXPECT_EQ(std::set<char>(one.begin(), one.end()), (std::set<char>{'a', 'b', 'c', 'e'}));
    firsts.insert(one.front());
  }
  EXPECT_GT(firsts.size(), 1u);  // not a fixed order
  self->send_exit(twin, caf::exit_reason::user_shutdown);
}

TEST_F(matchmaker_test, RefusalFallsBackToThePolicysNextChoice) {
  // Two IMCT requests for 8 CPUs at once: both are advised before either reserves, so both
  // pick b ([1, 2)); b takes only one, the other falls back to IMCT's next choice, a ([2, 3)).
  auto r = job("imct");
  r.np_min = r.np_max = 8;
  r.np_ref = 8;
  auto h1 = self->request(broker, caf::infinite, checked(r));
  auto h2 = self->request(broker, caf::infinite, checked(r));
  sched.run();
  std::vector<msg::elastic_reply> replies;
  for (auto* h : {&h1, &h2})
    h->receive([&](msg::elastic_reply& x) { replies.push_back(std::move(x)); },
               [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  ASSERT_EQ(replies.size(), 2u);
  std::map<std::string, msg::elastic_reply> by_cluster;
  for (auto& x : replies) {
    ASSERT_TRUE(x.error.ok()) << x.error.message;
    by_cluster[x.reservation.cluster] = x;
  }
  ASSERT_EQ(by_cluster.size(), 2u);
  ASSERT_TRUE(by_cluster.count("b") && by_cluster.count("a"));
  EXPECT_EQ(by_cluster["b"].reservation.start, now + T);
  EXPECT_EQ(by_cluster["a"].reservation.start, now + 2 * T);
  const auto& s = by_cluster["a"].stats;
  EXPECT_EQ(s.rejected_by_service + s.rejected_by_lrms, 1);
  EXPECT_EQ(lrms_reservations("a"), 2u);  // the local one and ours
  EXPECT_EQ(lrms_reservations("b"), 2u);
}

TEST_F(matchmaker_test, UnknownPolicyIsRefusedAndChangesNothing) {
  expect_reserved_on("nf", "a", now + 2 * T, now + 3 * T);
  auto refused = msg::check(job("best"));  // never reaches the engine
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.err().code, errc::invalid_parameter);
  for (auto name : {"'best'", "ran", "ff", "nf", "imct", "minu", "maxu", "mli", "sed", "ttd"})
    EXPECT_NE(refused.err().message.find(name), std::string::npos) << refused.err().message;
  EXPECT_EQ(lrms_reservations("a"), 2u);
  for (const auto& name : {"b", "c", "d", "e", "f"})
    EXPECT_EQ(lrms_reservations(name), std::string(name) == "d" ? 0u : 1u);
  // The next-fit pointer did not move either.
  expect_reserved_on("nf", "b", now + T, now + 2 * T);
}

TEST_F(matchmaker_test, BadRequestsAndNoFitAreTypedErrors) {
  auto r = job("mli");
  r.user = "";
  EXPECT_EQ(msg::check(r).err().code, errc::permission_denied);
  r = job("mli");
  r.let = r.est;
  EXPECT_EQ(msg::check(r).err().code, errc::invalid_window);
  r = job("mli");
  r.let = now + T / 2;  // nowhere can 4 CPUs run for T (f: 900 s, but blocked until 7T)
  auto reply = ask<msg::elastic_reply>(broker, r);
  EXPECT_EQ(code(reply.error), errc::infeasible);
  EXPECT_EQ(reply.stats.clusters, 6);
  r = job("mli");
  r.clusters = {"nowhere"};
  EXPECT_EQ(code(ask<msg::elastic_reply>(broker, r).error), errc::infeasible);
}

TEST_F(matchmaker_test, LocalJobsPreferredAdviceIsWhatTheServiceAdmits) {
  // With LJP the advisor starts no earlier than T_wkl, the bound prepare checks: every
  // policy's first choice is admitted at once, no refusal.
  for (const auto& policy : {"ff", "imct", "minu", "maxu", "mli", "sed", "ttd"}) {
    auto r = job(policy);
    r.local_jobs_preferred = true;
    auto reply = ask<msg::elastic_reply>(broker, r);
    ASSERT_TRUE(reply.error.ok()) << policy << ": " << reply.error.message;
    EXPECT_EQ(reply.stats.rejected_by_service + reply.stats.rejected_by_lrms, 0) << policy;
    auto q = ask<msg::query_reply>(broker, msg::query_request{"alice", reply.reservation.id});
    ASSERT_TRUE(q.error.ok());
    EXPECT_GE(q.info.start, q.info.admitted_after) << policy;
    EXPECT_GT(q.info.admitted_after, 0) << policy;
  }
}

TEST_F(matchmaker_test, HoldModeLeavesAHoldThatExpires) {
  auto r = job("mli", msg::request_mode::hold);
  r.hold_seconds = 60;
  auto reply = ask<msg::elastic_reply>(broker, r);
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  EXPECT_EQ(reply.reservation.cluster, "c");
  EXPECT_EQ(reply.reservation.state, reservation_state::accepted);
  EXPECT_EQ(reply.reservation.expiry, now + 60);
  EXPECT_EQ(ask<msg::cluster_status>(services["c"], msg::cluster_status_request{}).holds, 1);
  advance(61);
  EXPECT_EQ(ask<msg::cluster_status>(services["c"], msg::cluster_status_request{}).holds, 0);
}

}  // namespace
}  // namespace arbroker
