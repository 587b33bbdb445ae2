// The decision settler: after a broker node's restart, the co-reservations its log decided to
// commit are completed where every part can commit, and released everywhere where one was
// lost (all or nothing), on clusters that may be anywhere (here local services stand in for
// proxies: the settler only speaks the cluster service's interface).

#include <gtest/gtest.h>

#include "arbroker/actors/decision_settler.hpp"
#include "engine_fixture.hpp"

namespace arbroker {
namespace {

using testing::engine_fixture;

struct settler : engine_fixture {
  settler() {
    retention = 0;  // ended parts leave memory at once, as on a node with a journal
    add_cluster("c1", 16, 1000);
    add_cluster("c2", 16, 1000);
    add_cluster("c3", 16, 1000);
  }

  msg::prepare_reply hold(const std::string& cluster, const std::string& txn, duration expiry) {
    msg::prepare_request p{.txn = txn,
                           .owner = "alice",
                           .start = now + 3600,
                           .end = now + 7200,
                           .np = 4,
                           .expiry = now + expiry};
    p.local_jobs_preferred = true;  // nothing is queued: it postpones nothing
    auto r = call<msg::prepare_reply>(services.at(cluster), p);
    EXPECT_TRUE(r.error.ok()) << r.error.message;
    return r;
  }

  reservation_state state_of(const std::string& id) {
    auto q = ask<msg::query_reply>(services.at(id.substr(0, id.find('/'))),
                                   msg::query_request{"alice", id});
    return q.error.ok() ? q.info.state : reservation_state::rejected;  // rejected: gone
  }

  // Runs a settler over every cluster for `decisions`; what it said of each.
  std::vector<std::pair<std::string, bool>> settle(std::vector<std::string> decisions) {
    decision_settler_config c;
    for (const auto& [name, h] : services)
      c.clusters.emplace_back(name, h);
    c.decisions = std::move(decisions);
    c.max_parts = 4;
    std::vector<std::pair<std::string, bool>> out;
    c.on_settled = [&out](const std::string& txn, bool whole) { out.emplace_back(txn, whole); };
    spawn_decision_settler(sys, std::move(c));
    sched.run();
    return out;
  }
};

TEST_F(settler, ADecidedCoReservationInterruptedBetweenItsCommitsIsCompleted) {
  auto a = hold("c1", "T.1", 60);
  auto b = hold("c2", "T.1", 60);
  ASSERT_TRUE(call<msg::ack_reply>(services.at("c1"), msg::commit_txn_request{"T.1"}).error.ok());
  // The broker died here: c2's part is still a hold.
  EXPECT_EQ(state_of(b.reservation_id), reservation_state::accepted);
  auto settled = settle({"T.1"});
  ASSERT_EQ(settled.size(), 1u);
  EXPECT_EQ(settled[0], std::make_pair(std::string("T.1"), true));
  EXPECT_EQ(state_of(a.reservation_id), reservation_state::committed);
  EXPECT_EQ(state_of(b.reservation_id), reservation_state::committed);
}

TEST_F(settler, PartsSharingAClusterAreFoundByTheirNames) {
  auto a = hold("c1", "U.2#0", 60);
  auto b = hold("c1", "U.2#1", 60);
  auto c = hold("c3", "U.2#2", 60);
  auto settled = settle({"U.2"});
  ASSERT_EQ(settled.size(), 1u);
  EXPECT_TRUE(settled[0].second);
  for (const auto& id : {a.reservation_id, b.reservation_id, c.reservation_id})
    EXPECT_EQ(state_of(id), reservation_state::committed) << id;
}

TEST_F(settler, APartLostBeforeItsCommitMeansNoPartStays) {
  auto a = hold("c1", "V.1", 600);
  auto b = hold("c2", "V.1", 10);  // expires before the broker is back
  ASSERT_TRUE(call<msg::ack_reply>(services.at("c1"), msg::commit_txn_request{"V.1"}).error.ok());
  advance(30);  // c2's hold expires
  auto settled = settle({"V.1"});
  ASSERT_EQ(settled.size(), 1u);
  EXPECT_FALSE(settled[0].second);
  EXPECT_NE(state_of(a.reservation_id), reservation_state::committed);  // released
  EXPECT_EQ(lrms_reservations("c1"), 0u);
  EXPECT_EQ(lrms_reservations("c2"), 0u);
  (void)b;
}

TEST_F(settler, ACompensationUnderWayAtTheCrashIsFinishedNotUndone) {
  // Both parts committed, then the co-reservation was given up (its client's deadline): c1's
  // part was released, and the broker died before c2's release.
  auto a = hold("c1", "X.1", 60);
  auto b = hold("c2", "X.1", 60);
  for (const char* c : {"c1", "c2"})
    ASSERT_TRUE(call<msg::ack_reply>(services.at(c), msg::commit_txn_request{"X.1"}).error.ok());
  ASSERT_TRUE(call<msg::ack_reply>(services.at("c1"), msg::release_txn_request{"X.1"}).error.ok());
  auto settled = settle({"X.1"});
  ASSERT_EQ(settled.size(), 1u);
  EXPECT_FALSE(settled[0].second);  // c1's part answers "cancelled", not "no part here"
  EXPECT_NE(state_of(b.reservation_id), reservation_state::committed);
  EXPECT_EQ(lrms_reservations("c1"), 0u);
  EXPECT_EQ(lrms_reservations("c2"), 0u);
  (void)a;
}

TEST_F(settler, DecisionsAreSettledOneAfterAnotherAndUnknownOnesChangeNothing) {
  auto a = hold("c3", "W.1", 60);
  auto settled = settle({"nobody.1", "W.1"});
  ASSERT_EQ(settled.size(), 2u);
  EXPECT_EQ(settled[0], std::make_pair(std::string("nobody.1"), true));
  EXPECT_EQ(settled[1], std::make_pair(std::string("W.1"), true));
  EXPECT_EQ(state_of(a.reservation_id), reservation_state::committed);
  EXPECT_TRUE(settle({}).empty());
}

}  // namespace
}  // namespace arbroker
