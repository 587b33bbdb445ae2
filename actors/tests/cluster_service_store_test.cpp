// What a cluster service writes, forgets and recovers: every answered change written before
// its answer, finished reservations leaving memory, the ended transactions a restart
// remembers, an agent's holds in doubt, a store that cannot write.

#include <gtest/gtest.h>

#include "arbroker/store/recovery_plan.hpp"
#include "cluster_service_fixture.hpp"
#include "memory_journal.hpp"

namespace arbroker {
namespace {

using testing::cluster_service_fixture;
using testing::memory_journal;

TEST_F(cluster_service_fixture, EveryAnsweredChangeIsWrittenBeforeTheAnswer) {
  auto j = std::make_shared<memory_journal>();
  make(0, j);
  using rs = reservation_state;
  auto p = svc->prepare(hold("t1", now + 600, 3600, 8), now);
  ASSERT_TRUE(p.error.ok());
  EXPECT_EQ(j->rows.at(p.reservation_id).state, rs::accepted);
  EXPECT_EQ(j->rows.at(p.reservation_id).expiry, now + 60);
  ASSERT_TRUE(svc->commit_txn({"t1"}, now).error.ok());
  EXPECT_EQ(j->rows.at(p.reservation_id).state, rs::committed);
  ASSERT_TRUE(svc->cancel({"alice", p.reservation_id}, now).error.ok());
  EXPECT_EQ(j->rows.at(p.reservation_id).state, rs::cancelled);
  auto q = svc->prepare(hold("t2", now + 600, 3600, 8), now);
  ASSERT_TRUE(q.error.ok());
  now += 61;
  svc->sweep(now);
  EXPECT_EQ(j->rows.at(q.reservation_id).state, rs::expired);
  EXPECT_EQ(j->written, (std::vector<rs>{rs::accepted, rs::committed, rs::cancelled, rs::accepted,
                                         rs::expired}));
}

// list and status read indexes (by owner; what has not finished): they must still answer
// exactly what a walk over every record would, as reservations finish and are forgotten.
TEST_F(cluster_service_fixture, ListAndStatusStayExactAsReservationsFinishAndAreForgotten) {
  make();
  auto ids = [&](const std::string& user) {  // without a store, history is in memory
    std::vector<std::pair<std::string, reservation_state>> out;
    for (const auto& r : svc->list({user, true, 0, ""}, now).reservations)
      out.emplace_back(r.id, r.state);
    return out;
  };
  using rs = reservation_state;
  auto a1 = svc->prepare(hold("a1", now + 600, 3600, 8), now);         // committed
  auto a2 = svc->prepare(hold("a2", now + 100, 200, 8), now);          // completes
  auto b1 = svc->prepare(hold("b1", now + 600, 3600, 8, "bob"), now);  // cancelled
  auto a3 = svc->prepare(hold("a3", now + 900, 3600, 8), now);         // expires
  for (const auto* p : {&a1, &a2, &b1, &a3})
    ASSERT_TRUE(p->error.ok()) << p->error.message;
  ASSERT_TRUE(svc->commit_txn({"a1"}, now).error.ok());
  ASSERT_TRUE(svc->commit_txn({"a2"}, now).error.ok());
  ASSERT_TRUE(svc->commit_txn({"b1"}, now).error.ok());
  ASSERT_TRUE(svc->cancel({"bob", b1.reservation_id}, now).error.ok());
  now += 301;  // a2 has run; a3's hold expired
  auto st = svc->status_report({}, now);
  EXPECT_EQ(st.holds, 0);
  EXPECT_EQ(st.committed, 1);
  ASSERT_EQ(st.reservations.size(), 1u);
  EXPECT_EQ(st.reservations[0].id, a1.reservation_id);
  EXPECT_EQ(ids("alice"),
            (std::vector<std::pair<std::string, rs>>{{a2.reservation_id, rs::completed},
                                                     {a1.reservation_id, rs::committed},
                                                     {a3.reservation_id, rs::expired}}));
  EXPECT_EQ(ids("bob"),
            (std::vector<std::pair<std::string, rs>>{{b1.reservation_id, rs::cancelled}}));
  EXPECT_TRUE(ids("carol").empty());
  EXPECT_EQ(svc->list({"", true, 0, ""}, now).reservations.size(), 4u);  // everyone's (an admin)
  // Without history: the live ones only.
  ASSERT_EQ(svc->list({"alice"}, now).reservations.size(), 1u);
  EXPECT_EQ(svc->list({"alice"}, now).reservations[0].id, a1.reservation_id);
  EXPECT_EQ(svc->list({}, now).reservations.size(), 1u);
  now += 4000;  // past the default retention (1 h) of the finished ones; a1 has completed
  EXPECT_EQ(ids("bob").size(), 0u);
  EXPECT_EQ(ids("alice"),
            (std::vector<std::pair<std::string, rs>>{{a1.reservation_id, rs::completed}}));
  EXPECT_EQ(svc->status_report({}, now).committed, 0);
}

// With a store, a reservation that ends leaves memory at once: its row, marked with the
// time it ended, is its history (completed by time too); the store's history is purged
// past the retention.
TEST_F(cluster_service_fixture, WithAStoreFinishedReservationsLeaveMemoryAndStayInTheStore) {
  auto j = std::make_shared<memory_journal>();
  make(0, j);
  auto a = svc->prepare(hold("a", now + 600, 3600, 8), now);
  auto b = svc->prepare(hold("b", now + 100, 200, 8), now);  // completes at now + 300
  for (const auto* p : {&a, &b})
    ASSERT_TRUE(p->error.ok()) << p->error.message;
  ASSERT_TRUE(svc->commit_txn({"a"}, now).error.ok());
  ASSERT_TRUE(svc->commit_txn({"b"}, now).error.ok());
  ASSERT_TRUE(svc->cancel({"alice", a.reservation_id}, now).error.ok());
  EXPECT_EQ(j->rows.at(a.reservation_id).finished, now);
  EXPECT_EQ(j->rows.at(b.reservation_id).finished, 0);
  // Forgotten by the service: a query and a second cancel find nothing here (the node asks
  // the store, node/src/history.hpp), and even a list with history has only what is live.
  EXPECT_EQ(svc->query({"alice", a.reservation_id}, now).error.code,
            static_cast<std::uint8_t>(errc::not_found));
  EXPECT_EQ(svc->cancel({"alice", a.reservation_id}, now).error.code,
            static_cast<std::uint8_t>(errc::not_found));
  auto listed = svc->list({"alice", true, 0, ""}, now).reservations;
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].id, b.reservation_id);
  now += 301;
  svc->sweep(now);  // b ran to its end: written as completed, with its end
  EXPECT_EQ(j->rows.at(b.reservation_id).state, reservation_state::completed);
  EXPECT_EQ(j->rows.at(b.reservation_id).finished, now);
  EXPECT_TRUE(svc->list({"", true, 0, ""}, now).reservations.empty());
  EXPECT_TRUE(j->rows_of("c1")->empty());  // a restart recovers nothing
  // Past the retention (1 h) the history is purged, but for the row of the last id.
  now += 3700;
  svc->sweep(now);
  EXPECT_EQ(j->rows.count(a.reservation_id), 0u);
  EXPECT_EQ(j->rows.count(b.reservation_id), 1u);
}

// `show` tells when a reservation was made and the window its request asked for: kept in
// the store's row, and again after a restart.
TEST_F(cluster_service_fixture, AReservationKeepsWhenItWasMadeAndTheWindowAskedFor) {
  auto j = std::make_shared<memory_journal>();
  make(0, j);
  auto req = hold("w", now + 600, 3600, 8);
  req.window_start = now + 300;
  req.window_end = now + 9000;
  const timestamp made = now;
  auto h = svc->prepare(req, now);
  ASSERT_TRUE(h.error.ok()) << h.error.message;
  now += 10;
  ASSERT_TRUE(svc->commit_txn({"w"}, now).error.ok());
  auto q = svc->query({"alice", h.reservation_id}, now);
  ASSERT_TRUE(q.error.ok()) << q.error.message;
  EXPECT_EQ(q.info.created, made);  // the hold's grant, not its commit
  EXPECT_EQ(q.info.window_start, now - 10 + 300);
  EXPECT_EQ(q.info.window_end, made + 9000);
  const auto& row = j->rows.at(h.reservation_id);
  EXPECT_EQ(std::tie(row.created, row.window_start, row.window_end),
            std::tie(q.info.created, q.info.window_start, q.info.window_end));
  auto rows = *j->rows_of("c1");
  make(0, j);
  recovery_report report;
  ASSERT_TRUE(svc->recover(rows, plan_recovery(rows, {}), now, report));
  auto again = svc->query({"alice", h.reservation_id}, now);
  ASSERT_TRUE(again.error.ok()) << again.error.message;
  EXPECT_EQ(again.info.created, made);
  EXPECT_EQ(again.info.window_end, made + 9000);
}

// Transactions that ended are remembered across a restart (from the store's history): a
// commit of a part a compensation released says so (a broker's decision settler must not
// take it for a cluster without a part), a late prepare of it is refused.
TEST_F(cluster_service_fixture, ARestartRemembersTheTransactionsThatEnded) {
  auto j = std::make_shared<memory_journal>();
  make(0, j);
  auto h = svc->prepare(hold("T.1#0", now + 600, 3600, 8), now);
  ASSERT_TRUE(h.error.ok()) << h.error.message;
  ASSERT_TRUE(svc->commit_txn({"T.1#0"}, now).error.ok());
  ASSERT_TRUE(svc->release_txn({"T.1#0"}, now).error.ok());  // the compensation's release
  now += 5;
  auto rows = *j->rows_of("c1");
  make(0, j);
  recovery_report report;
  ASSERT_TRUE(svc->recover(rows, plan_recovery(rows, {}), now, report));
  auto c = svc->commit_txn({"T.1#0"}, now);
  EXPECT_EQ(c.error.err(), errc::illegal_transition) << c.error.message;
  EXPECT_NE(c.error.message.find("cancelled"), std::string::npos) << c.error.message;
  EXPECT_EQ(svc->commit_txn({"T.1#1"}, now).error.err(), errc::not_found);  // no such part
  EXPECT_FALSE(svc->prepare(hold("T.1#0", now + 600, 3600, 8), now).error.ok());
  EXPECT_EQ(lrms_reservations(), 0u);
}

// An agent's recovery (keep_in_doubt_holds): a hold without a commit decision stays a hold
// until its expiry, so that a broker's commit still on its way succeeds; past its expiry it
// is released as before. Without the setting: presumed abort.
TEST_F(cluster_service_fixture, AnAgentKeepsInDoubtHoldsUntilTheirExpiry) {
  for (bool keep : {false, true}) {
    auto j = std::make_shared<memory_journal>();
    make(0, j);
    // The node restarts on its store (a new, empty simulated LRMS), recovering its rows.
    const auto restart = [&](bool keep_holds, recovery_report& report) {
      auto rows = *j->rows_of("c1");
      svc.reset();
      auto l = simulated_lrms::create({"c1", 64, {8, {}}, [this] { return now; }});
      ASSERT_TRUE(l);
      lrms = l->get();
      auto cfg = testing::c1_config();
      cfg.refresh = 0;
      cfg.journal = j;
      cfg.keep_in_doubt_holds = keep_holds;
      auto s = cluster_service::create(cfg, std::move(*l));
      ASSERT_TRUE(s);
      svc = std::move(*s);
      ASSERT_TRUE(svc->recover(rows, plan_recovery(rows, {}), now, report));
    };
    auto h = svc->prepare(hold("b1:t", now + 600, 3600, 8), now);  // expires at now + 60
    ASSERT_TRUE(h.error.ok()) << h.error.message;
    auto soon = hold("b1:u", now + 600, 3600, 8);
    soon.expiry = now + 10;
    ASSERT_TRUE(svc->prepare(soon, now).error.ok());
    now += 20;  // one hold is due by now, the other is not
    recovery_report report;
    restart(keep, report);
    EXPECT_EQ(report.kept_holds, keep ? 1 : 0);
    EXPECT_EQ(report.aborted_holds, keep ? 1 : 2);
    EXPECT_EQ(lrms_reservations(), keep ? 1u : 0u);
    auto c = svc->commit_txn({"b1:t"}, now);
    EXPECT_EQ(c.error.ok(), keep) << c.error.message;
    EXPECT_FALSE(svc->commit_txn({"b1:u"}, now).error.ok());
    if (keep) {
      EXPECT_EQ(svc->query({"alice", h.reservation_id}, now).info.state,
                reservation_state::committed);
    }
    // A kept hold nobody commits expires at its time, like any other.
    auto again = svc->prepare(hold("b1:v", now + 600, 3600, 8), now);
    ASSERT_TRUE(again.error.ok()) << again.error.message;
    recovery_report second;
    restart(true, second);
    EXPECT_EQ(second.kept_holds, 1);
    now += 61;
    svc->sweep(now);
    EXPECT_EQ(svc->query({"alice", again.reservation_id}, now).error.code,
              static_cast<std::uint8_t>(errc::not_found));  // expired, forgotten
    EXPECT_EQ(j->rows.at(again.reservation_id).state, reservation_state::expired);
  }
}

// A hold that expired has left memory (with a store) by the time a late phase-two commit
// arrives: the coordinator is told the hold expired, not that its transaction is unknown;
// a transaction never prepared here is still unknown.
TEST_F(cluster_service_fixture, ALateCommitOfAForgottenExpiredHoldIsToldItExpired) {
  auto j = std::make_shared<memory_journal>();
  make(0, j);
  auto h = svc->prepare(hold("late", now + 600, 3600, 8), now);
  ASSERT_TRUE(h.error.ok()) << h.error.message;
  now += 61;
  svc->sweep(now);
  ASSERT_EQ(j->rows.at(h.reservation_id).state, reservation_state::expired);
  EXPECT_EQ(svc->query({"alice", h.reservation_id}, now).error.code,
            static_cast<std::uint8_t>(errc::not_found));  // forgotten here
  auto c = svc->commit_txn({"late"}, now);
  EXPECT_EQ(c.error.code, static_cast<std::uint8_t>(errc::illegal_transition)) << c.error.message;
  EXPECT_NE(c.error.message.find(h.reservation_id), std::string::npos) << c.error.message;
  EXPECT_NE(c.error.message.find("expired"), std::string::npos) << c.error.message;
  EXPECT_EQ(svc->commit_txn({"never"}, now).error.code, static_cast<std::uint8_t>(errc::not_found));
  EXPECT_TRUE(svc->abort_txn({"late"}, now).error.ok());  // presumed abort, as before
}

// The audit trail's source: every recorded change, with or without a store, and none that
// the store refused.
TEST_F(cluster_service_fixture, EveryRecordedChangeIsToldOnceAndARefusedOneIsNot) {
  for (bool with_store : {false, true}) {
    SCOPED_TRACE(with_store ? "with a store" : "without a store");
    auto j = with_store ? std::make_shared<memory_journal>() : nullptr;
    std::vector<std::pair<std::string, reservation_state>> told;
    make(0, j, ljp_policy::enforce, ljp_method::ese,
         [&](const reservation_row& r) { told.emplace_back(r.id, r.state); });
    using rs = reservation_state;
    auto p = svc->prepare(hold("t1", now + 600, 3600, 8), now);
    ASSERT_TRUE(p.error.ok());
    ASSERT_TRUE(svc->commit_txn({"t1"}, now).error.ok());
    ASSERT_TRUE(svc->cancel({"alice", p.reservation_id}, now).error.ok());
    auto q = svc->prepare(hold("t2", now + 600, 3600, 8), now);
    ASSERT_TRUE(q.error.ok());
    svc->sweep(now + 61);
    const std::vector<std::pair<std::string, rs>> want{{p.reservation_id, rs::accepted},
                                                       {p.reservation_id, rs::committed},
                                                       {p.reservation_id, rs::cancelled},
                                                       {q.reservation_id, rs::accepted},
                                                       {q.reservation_id, rs::expired}};
    EXPECT_EQ(told, want);
    if (j) {
      told.clear();
      j->broken = true;
      EXPECT_FALSE(svc->prepare(hold("t3", now + 600, 3600, 8), now).error.ok());
      EXPECT_TRUE(told.empty()) << "a change the store refused was reported";
    }
  }
}

TEST_F(cluster_service_fixture, AStoreThatCannotWriteRefusesAndChangesNothing) {
  auto j = std::make_shared<memory_journal>();
  make(0, j);
  auto kept = svc->prepare(hold("t1", now + 600, 3600, 8), now);
  ASSERT_TRUE(kept.error.ok());
  j->broken = true;
  // A new hold: refused, nothing left in the LRMS.
  auto p = svc->prepare(hold("t2", now + 600, 3600, 16), now);
  EXPECT_EQ(p.error.code, static_cast<std::uint8_t>(errc::storage_failure));
  EXPECT_EQ(lrms_reservations(), 1u);
  // A commit: refused, the hold stays a hold.
  auto c = svc->commit_txn({"t1"}, now);
  EXPECT_EQ(c.error.code, static_cast<std::uint8_t>(errc::storage_failure));
  EXPECT_EQ(svc->query({"alice", kept.reservation_id}, now).info.state,
            reservation_state::accepted);
  // Once the store works again the same commit goes through.
  j->broken = false;
  ASSERT_TRUE(svc->commit_txn({"t1"}, now).error.ok());
  j->broken = true;
  // A cancel: refused, the reservation still holds its CPUs in the LRMS.
  auto x = svc->cancel({"alice", kept.reservation_id}, now);
  EXPECT_EQ(x.error.code, static_cast<std::uint8_t>(errc::storage_failure));
  EXPECT_EQ(lrms_reservations(), 1u);
  EXPECT_EQ(svc->query({"alice", kept.reservation_id}, now).info.state,
            reservation_state::committed);
}

}  // namespace
}  // namespace arbroker
