// Recovery's rule for one row, without a service: each row state, plan and LRMS fact.
#include "arbroker/actors/row_recovery.hpp"

#include <gtest/gtest.h>

namespace arbroker {
namespace {

constexpr timestamp now = 10'000;
using rs = reservation_state;

struct row_recovery_test : ::testing::Test {
  recovery_plan plan;
  recovery_report report;

  // Row c/1 of txn "inc-1.1" over [start, end), a hold until `expiry`.
  static reservation_row row(rs state, timestamp start = now + 100, timestamp end = now + 200,
                             timestamp expiry = now + 50) {
    reservation_row r;
    r.id = "c/1";
    r.cluster = "c";
    r.txn = "inc-1.1";
    r.start = start;
    r.end = end;
    r.np = 4;
    r.state = state;
    r.expiry = expiry;
    return r;
  }
  row_recovery rule(const reservation_row& r, bool found, bool recreatable = false,
                    bool keep_holds = false) {
    return recover_row(r, plan, keep_holds, found, recreatable, now, report);
  }
};

TEST_F(row_recovery_test, AHoldWithoutADecisionIsAbortedAndDeletedFromTheLrms) {
  auto o = rule(row(rs::accepted), true);
  EXPECT_EQ(o.target, rs::cancelled);
  EXPECT_EQ(o.step, lrms_step::remove);
  EXPECT_EQ(report.aborted_holds, 1);
  EXPECT_EQ(report.restored, 0);
}

TEST_F(row_recovery_test, AHoldWhoseTransactionDecidedCommitIsCommittedOnTheLrmsTerms) {
  plan.commit_txns.insert("inc-1.1");
  auto part = row(rs::accepted);
  part.txn = "inc-1.1#0";  // one of several parts on one cluster: the decision covers it
  auto o = rule(part, true);
  EXPECT_EQ(o.target, rs::committed);
  EXPECT_EQ(o.step, lrms_step::restore);
  EXPECT_EQ(report.completed_holds, 1);
  EXPECT_EQ(report.restored, 1);
}

TEST_F(row_recovery_test, AnInDoubtHoldIsKeptUntilItsExpiryWhereTheSiteSaysSo) {
  auto o = rule(row(rs::accepted), true, false, true);
  EXPECT_TRUE(o.kept_hold);
  EXPECT_EQ(o.target, rs::accepted);
  EXPECT_EQ(o.step, lrms_step::restore);
  EXPECT_EQ(report.kept_holds, 1);
  // One already expired is aborted all the same.
  auto expired = rule(row(rs::accepted, now + 100, now + 200, now - 1), true, false, true);
  EXPECT_FALSE(expired.kept_hold);
  EXPECT_EQ(expired.target, rs::cancelled);
}

TEST_F(row_recovery_test, ACompensatedPartIsCancelledBeforeItsStartAndTerminatedAfter) {
  plan.compensate_ids.insert("c/1");
  auto before = rule(row(rs::committed), true);
  EXPECT_EQ(before.target, rs::cancelled);
  EXPECT_EQ(before.step, lrms_step::remove);
  auto after = rule(row(rs::committed, now - 10, now + 200), true);
  EXPECT_EQ(after.target, rs::terminated);
  EXPECT_EQ(report.compensated, 2);
}

TEST_F(row_recovery_test, ALiveReservationTheLrmsLostIsMadeAgainOnlyWhereItStartsEmpty) {
  auto simulated = rule(row(rs::committed), false, true);
  EXPECT_EQ(simulated.target, rs::committed);
  EXPECT_EQ(simulated.step, lrms_step::recreate);
  EXPECT_EQ(report.lost, 0);  // counted by the service once it tried
  auto real = rule(row(rs::committed), false, false);
  EXPECT_EQ(real.target, rs::cancelled);
  EXPECT_EQ(real.step, lrms_step::none);
  auto started = rule(row(rs::active, now - 10, now + 200), false, false);
  EXPECT_EQ(started.target, rs::terminated);
  EXPECT_EQ(report.lost, 2);
}

TEST_F(row_recovery_test, AChangeInProgressIsRestoredAsCommittedAndAnEndedOneIsLeftAlone) {
  auto changing = rule(row(rs::change_requested), true);
  EXPECT_EQ(changing.target, rs::committed);
  EXPECT_EQ(changing.step, lrms_step::restore);
  // Ended while the node was down: nothing to do in the LRMS (its end is past).
  auto ended = rule(row(rs::committed, now - 200, now - 100), true);
  EXPECT_EQ(ended.target, rs::committed);  // time makes it completed when restored
  EXPECT_EQ(ended.step, lrms_step::none);
  // A cancelled one the LRMS still has (its delete was refused before the crash): deleted.
  auto undeleted = rule(row(rs::cancelled), true);
  EXPECT_EQ(undeleted.step, lrms_step::remove);
  EXPECT_EQ(rule(row(rs::cancelled), false).step, lrms_step::none);
}

}  // namespace
}  // namespace arbroker
