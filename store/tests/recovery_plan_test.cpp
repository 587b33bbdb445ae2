#include "arbroker/store/recovery_plan.hpp"

#include <gtest/gtest.h>

namespace arbroker {
namespace {

reservation_row part(std::string id, std::string txn, reservation_state s) {
  reservation_row r;
  r.id = std::move(id);
  r.cluster = r.id.substr(0, r.id.find('/'));
  r.txn = std::move(txn);
  r.state = s;
  return r;
}

using rs = reservation_state;

TEST(recovery_plan, ADecidedTransactionWithEveryPartHeldOrCommittedIsCompleted) {
  auto plan =
      plan_recovery({part("a/1", "co1.a2", rs::committed), part("b/7", "co1.a2", rs::accepted),
                     part("c/3", "co1.a2", rs::accepted)},
                    {"co1.a2"});
  EXPECT_EQ(plan.commit_txns, std::set<std::string>{"co1.a2"});
  EXPECT_TRUE(plan.compensate_ids.empty());
}

// Two parts on one cluster carry "<txn>#<part>"; the decision for <txn> covers both, and a
// lost one among them compensates the others.
TEST(recovery_plan, PartsOnOneClusterAnswerToTheirTransactionsDecision) {
  EXPECT_EQ(decision_txn("co1.a2#1"), "co1.a2");
  EXPECT_EQ(decision_txn("co1.a2"), "co1.a2");
  auto plan =
      plan_recovery({part("a/1", "co1.a2#0", rs::accepted), part("a/2", "co1.a2#1", rs::accepted),
                     part("b/3", "co1.a2#2", rs::committed)},
                    {"co1.a2"});
  EXPECT_EQ(plan.commit_txns, std::set<std::string>{"co1.a2"});
  plan = plan_recovery(
      {part("a/1", "co1.a2#0", rs::expired), part("a/2", "co1.a2#1", rs::committed)}, {"co1.a2"});
  EXPECT_TRUE(plan.commit_txns.empty());
  EXPECT_EQ(plan.compensate_ids, std::set<std::string>{"a/2"});
}

TEST(recovery_plan, AnUndecidedTransactionIsNeitherCompletedNorCompensated) {
  // Presumed abort: the services abort its holds; nothing committed can exist for it.
  auto plan = plan_recovery(
      {part("a/1", "co1.a1", rs::accepted), part("b/2", "co1.a1", rs::accepted)}, {"other"});
  EXPECT_TRUE(plan.commit_txns.empty());
  EXPECT_TRUE(plan.compensate_ids.empty());
}

TEST(recovery_plan, ADecidedTransactionThatLostAPartCancelsItsCommittedParts) {
  auto plan =
      plan_recovery({part("a/1", "co2.a1", rs::committed), part("b/2", "co2.a1", rs::expired),
                     part("c/5", "co2.a1", rs::accepted), part("d/9", "co3.a1", rs::committed),
                     part("e/4", "co3.a1", rs::active)},
                    {"co2.a1", "co3.a1"});
  EXPECT_EQ(plan.commit_txns, std::set<std::string>{"co3.a1"});
  // a/1 is cancelled; c/5 is a hold of an undecided-for-recovery txn and is aborted anyway.
  EXPECT_EQ(plan.compensate_ids, std::set<std::string>{"a/1"});
}

}  // namespace
}  // namespace arbroker
