// Several nodes on one batch system: the names a cluster service claims in its LRMS, and
// what recovery does with a name under its prefix that it did not make (lrms_claim). Each
// "node" is a cluster service with its own journal over one shared simulated LRMS.

#include <gtest/gtest.h>

#include <set>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/store/recovery_plan.hpp"
#include "c1_config.hpp"
#include "delegating_lrms.hpp"
#include "memory_journal.hpp"

namespace arbroker {
namespace {

using testing::memory_journal;

struct shared_batch_system : ::testing::Test {
  timestamp now = 1'000'000;
  std::shared_ptr<simulated_lrms> lrms;

  void SetUp() override {
    auto l = simulated_lrms::create({"c1", 64, {8, {}}, [this] { return now; }});
    ASSERT_TRUE(l) << to_string(l.err());
    lrms = std::move(*l);
  }

  // A node's service for cluster c1, recovered from its journal as a start does.
  result<std::unique_ptr<cluster_service>> start(const std::shared_ptr<memory_journal>& j,
                                                 const std::string& prefix, recovery_report& report,
                                                 bool adopt = false) {
    auto cfg = testing::c1_config();
    cfg.name_prefix = prefix;
    cfg.adopt_foreign = adopt;
    cfg.journal = j;
    auto s =
        cluster_service::create(std::move(cfg), std::make_unique<testing::delegating_lrms>(lrms));
    if (!s) return s.err();
    auto rows = *j->rows_of("c1");
    if (auto ok = (*s)->recover(rows, plan_recovery(rows, {}), now, report); !ok) return ok.err();
    return s;
  }

  // A plain reservation (committed at once) for an hour from `later` + 10 minutes on.
  std::string reserve(cluster_service& s, int np = 8, duration later = 0) {
    msg::prepare_request req{.txn = "t" + std::to_string(++txns),
                             .owner = "alice",
                             .start = now + later + 600,
                             .end = now + later + 4200,
                             .np = np,
                             .expiry = now + 60,
                             .commit_at_once = true};
    auto r = s.prepare(req, now);
    EXPECT_TRUE(r.error.ok()) << r.error.message;
    return r.reservation_id;
  }

  // The store of a node on prefix "arb-" that made one reservation of np CPUs and stopped.
  std::shared_ptr<memory_journal> node_that_reserved_and_stopped(int np = 8) {
    auto store = std::make_shared<memory_journal>();
    recovery_report rep;
    auto a = start(store, "arb-", rep);
    EXPECT_TRUE(a) << to_string(a.err());
    if (a) reserve(**a, np);
    return store;
  }

  std::set<std::string> names() {
    std::set<std::string> out;
    auto snap = lrms->snapshot();
    EXPECT_TRUE(snap);
    if (snap)
      for (const auto& r : snap->reservations)
        out.insert(r.name);
    return out;
  }

  int txns = 0;
};

// The old failure: a second node with the same prefix took the first one's reservations for
// its own orphans and deleted them at its start. It now refuses to start, names them, and
// leaves them alone.
TEST_F(shared_batch_system, ANodeRefusesToStartOverAnotherNodesReservationsUnderItsPrefix) {
  auto a_store = std::make_shared<memory_journal>();
  recovery_report rep;
  auto a = start(a_store, "arb-", rep);
  ASSERT_TRUE(a) << to_string(a.err());
  reserve(**a);
  ASSERT_EQ(names(), std::set<std::string>{"arb-1"});

  recovery_report b_rep;
  auto b = start(std::make_shared<memory_journal>(), "arb-", b_rep);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.err().code, errc::in_use);
  EXPECT_NE(b.err().message.find("arb-1 (alice, 8 CPUs"), std::string::npos) << b.err().message;
  EXPECT_NE(b.err().message.find("--adopt"), std::string::npos) << b.err().message;
  EXPECT_EQ(names(), std::set<std::string>{"arb-1"});
  EXPECT_EQ(b_rep.orphans, 0);
}

// Nodes with prefixes of their own share the batch system; one prefix may even begin
// another ("arb-" and "arb-b-"): a name is ours only when a number follows our prefix.
TEST_F(shared_batch_system, NodesWithTheirOwnPrefixesLeaveEachOthersReservationsAlone) {
  auto a_store = std::make_shared<memory_journal>();
  auto b_store = std::make_shared<memory_journal>();
  recovery_report rep;
  auto a = start(a_store, "arb-", rep);
  ASSERT_TRUE(a) << to_string(a.err());
  reserve(**a);
  auto b = start(b_store, "arb-b-", rep);
  ASSERT_TRUE(b) << to_string(b.err());
  reserve(**b);
  EXPECT_EQ(names(), (std::set<std::string>{"arb-1", "arb-b-1"}));

  a->reset();  // both restart
  b->reset();
  recovery_report a_rep, b_rep;
  a = start(a_store, "arb-", a_rep);
  ASSERT_TRUE(a) << to_string(a.err());
  b = start(b_store, "arb-b-", b_rep);
  ASSERT_TRUE(b) << to_string(b.err());
  EXPECT_EQ(a_rep.restored, 1);
  EXPECT_EQ(b_rep.restored, 1);
  EXPECT_EQ(a_rep.orphans + b_rep.orphans, 0);
  EXPECT_EQ(names(), (std::set<std::string>{"arb-1", "arb-b-1"}));
}

// --adopt: the other node's reservation becomes this node's, committed, with the LRMS's
// terms, in its store; ids go on after it.
TEST_F(shared_batch_system, AdoptTakesTheReservationsOver) {
  node_that_reserved_and_stopped(16);  // its store is lost

  auto store = std::make_shared<memory_journal>();
  recovery_report b_rep;
  auto b = start(store, "arb-", b_rep, true);
  ASSERT_TRUE(b) << to_string(b.err());
  EXPECT_EQ(b_rep.adopted, 1);
  auto q = (*b)->query({"alice", "c1/1"}, now);
  ASSERT_TRUE(q.error.ok()) << q.error.message;
  EXPECT_EQ(q.info.state, reservation_state::committed);
  EXPECT_EQ(q.info.np, 16);
  EXPECT_EQ(q.info.start, now + 600);
  ASSERT_EQ(store->rows.count("c1/1"), 1u);
  EXPECT_EQ(store->rows.at("c1/1").lrms_id, lrms->snapshot()->reservations.at(0).id);
  EXPECT_EQ(reserve(**b), "c1/2");
  EXPECT_EQ(names(), (std::set<std::string>{"arb-1", "arb-2"}));
}

// A hold made in the LRMS just before a crash, before its row was written, is still this
// node's orphan: its number was leased (durably) before the LRMS saw it.
TEST_F(shared_batch_system, AHoldMadeJustBeforeACrashIsStillDeletedAsAnOrphan) {
  auto store = std::make_shared<memory_journal>();
  recovery_report rep;
  auto a = start(store, "arb-", rep);
  ASSERT_TRUE(a) << to_string(a.err());
  const auto id = reserve(**a);
  ASSERT_GE(store->claims.at("c1").lease, 2u);
  store->rows.erase(id);  // the crash came between the LRMS and the store
  a->reset();

  recovery_report again;
  a = start(store, "arb-", again);
  ASSERT_TRUE(a) << to_string(a.err());
  EXPECT_EQ(again.orphans, 1);
  EXPECT_TRUE(names().empty());
}

// The lease grows in blocks: one durable write for many reservations.
TEST_F(shared_batch_system, TheLeaseIsWrittenOncePerBlockOfIds) {
  auto store = std::make_shared<memory_journal>();
  recovery_report rep;
  auto a = start(store, "arb-", rep);
  ASSERT_TRUE(a) << to_string(a.err());
  // The first block is claimed at the start, when waiting for the disk costs nothing.
  const auto lease = store->claims.at("c1").lease;
  EXPECT_EQ(store->claims.at("c1").prefix, "arb-");
  EXPECT_GT(lease, 1u);
  for (std::uint64_t i = 1; i < lease; ++i)
    reserve(**a, 8, static_cast<duration>(i) * 3600);
  EXPECT_EQ(store->claims.at("c1").lease, lease);  // no write for these
  reserve(**a, 8, static_cast<duration>(lease) * 3600);
  EXPECT_GT(store->claims.at("c1").lease, lease);  // the next block
  // A lease that cannot be written refuses the hold before the LRMS sees it.
  auto fresh = std::make_shared<memory_journal>();
  recovery_report r2;
  auto b = start(fresh, "arb-b-", r2);
  ASSERT_TRUE(b) << to_string(b.err());
  for (std::uint64_t i = 1; i < fresh->claims.at("c1").lease; ++i)
    reserve(**b, 8, static_cast<duration>(i) * 3600);
  fresh->broken = true;
  auto refused = (*b)->prepare({.txn = "x",
                                .owner = "alice",
                                .start = now + 600,
                                .end = now + 4200,
                                .np = 8,
                                .expiry = now + 60,
                                .commit_at_once = true},
                               now);
  EXPECT_EQ(refused.error.code, static_cast<std::uint8_t>(errc::storage_failure));
  EXPECT_EQ(names().count("arb-b-" + std::to_string(fresh->claims.at("c1").lease)), 0u);
}

// A store from before claims (rows, no claim) counted every name under its prefix as its
// own; it still does, once, and claims the prefix from then on.
TEST_F(shared_batch_system, AStoreFromBeforeClaimsKeepsItsOrphanRule) {
  auto store = node_that_reserved_and_stopped();
  store->claims.clear();  // as an upgraded store has it
  ASSERT_TRUE(lrms->create_reservation({"arb-77", "bob", now + 600, 600, 8, ""}));

  recovery_report again;
  auto a = start(store, "arb-", again);
  ASSERT_TRUE(a) << to_string(a.err());
  EXPECT_EQ(again.restored, 1);
  EXPECT_EQ(again.orphans, 1);
  EXPECT_EQ(names(), std::set<std::string>{"arb-1"});
  EXPECT_EQ(store->claims.at("c1").prefix, "arb-");
}

// The store's claim says how its reservations are named: a node restarted with another
// prefix would lose track of them, and refuses.
TEST_F(shared_batch_system, AnotherPrefixThanTheStoresClaimIsRefused) {
  auto store = node_that_reserved_and_stopped();
  recovery_report rep;
  auto b = start(store, "site-", rep);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.err().code, errc::invalid_parameter);
  EXPECT_NE(b.err().message.find("set name_prefix = \"arb-\""), std::string::npos)
      << b.err().message;
}

}  // namespace
}  // namespace arbroker
