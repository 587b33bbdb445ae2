#include "arbroker/core/reservation_ledger.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace arbroker {
namespace {

using serials = std::set<std::uint64_t>;

// A hold of `np` CPUs over [start, end), held until `expiry` from `now`.
reservation_record hold(std::uint64_t n, std::string owner, timestamp now, timestamp start,
                        timestamp end, timestamp expiry, timestamp deadline = 0) {
  auto life = reservation_lifecycle::create(start, end);
  EXPECT_TRUE(life->accept(now, expiry));
  reservation_record r{"c/" + std::to_string(n), "t" + std::to_string(n), std::move(owner),
                       "lrms-" + std::to_string(n), *life};
  r.np = 2;
  r.serial = n;
  if (deadline != 0) {
    r.earliest = start;
    r.deadline = deadline;
  }
  return r;
}

class ReservationLedger : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_EQ(ledger.check(), ""); }
  reservation_ledger ledger{2};  // remembers two ended transactions
};

TEST_F(ReservationLedger, AHoldIsPendingUntilCommittedThenOnTheTimelineUntilItsEnd) {
  ASSERT_TRUE(ledger.add(hold(1, "ann", 0, 100, 200, 50), 0));
  EXPECT_EQ(ledger.of_txn("t1")->id, "c/1");
  EXPECT_EQ(ledger.of_owner("ann"), serials{1});
  EXPECT_EQ(ledger.live(), serials{1});
  EXPECT_EQ(ledger.next_expiry(), 50);
  EXPECT_FALSE(ledger.due_hold(49));
  EXPECT_EQ(ledger.due_hold(50), 1u);
  ASSERT_TRUE(ledger.apply(1, reservation_event::commit, 10));
  EXPECT_FALSE(ledger.next_expiry());  // committed: nothing pending
  EXPECT_TRUE(ledger.take_ended(199).empty());
  EXPECT_EQ(ledger.check(), "");
  EXPECT_EQ(ledger.take_ended(200), std::vector<std::uint64_t>{1});
  EXPECT_EQ(ledger.find(1)->life.state(), reservation_state::completed);
  EXPECT_EQ(ledger.find(1)->finished, 200);
  EXPECT_TRUE(ledger.live().empty());
  EXPECT_EQ(ledger.of_owner("ann"), serials{1});  // history stays until purged
}

TEST_F(ReservationLedger, AnEventThatEndsARecordFinishesItEvenWhenTheLifecycleRefusesIt) {
  ASSERT_TRUE(ledger.add(hold(1, "ann", 0, 100, 200, 50), 0));
  // At 60 the hold has expired: the commit is refused, and the record is expired and finished.
  EXPECT_EQ(ledger.apply(1, reservation_event::commit, 60).err().code, errc::illegal_transition);
  EXPECT_EQ(ledger.find(1)->life.state(), reservation_state::expired);
  EXPECT_EQ(ledger.find(1)->finished, 60);
  EXPECT_FALSE(ledger.due_hold(1000));
  // A finished record refuses every further event and stays as it was.
  EXPECT_FALSE(ledger.apply(1, reservation_event::cancel, 70));
  EXPECT_EQ(ledger.find(1)->finished, 60);
}

TEST_F(ReservationLedger, AHoldCommittedAfterItsEndIsEndedByTheNextLook) {
  ASSERT_TRUE(ledger.add(hold(1, "ann", 0, 10, 20, 100), 0));
  EXPECT_TRUE(ledger.take_ended(30).empty());  // a hold past its end waits for its expiry
  EXPECT_EQ(ledger.check(), "");
  ASSERT_TRUE(ledger.apply(1, reservation_event::commit, 40));
  EXPECT_EQ(ledger.check(), "");
  EXPECT_EQ(ledger.take_ended(41), std::vector<std::uint64_t>{1});
  EXPECT_EQ(ledger.find(1)->life.state(), reservation_state::completed);
}

TEST_F(ReservationLedger, NewTermsMoveItOnTheTimelineAndAWindowlessOneIsNoLongerMovable) {
  ASSERT_TRUE(ledger.add(hold(1, "ann", 0, 100, 200, 50, 500), 0));
  ASSERT_TRUE(ledger.apply(1, reservation_event::commit, 10));
  EXPECT_EQ(ledger.movable(), serials{1});
  auto changed = *ledger.find(1);
  ASSERT_TRUE(changed.life.apply(reservation_event::request_change, 20));
  ASSERT_TRUE(changed.life.change_terms(20, 300, 400));
  changed.deadline = changed.earliest = 0;
  changed.lrms_id = "lrms-1b";
  ASSERT_TRUE(ledger.replace(1, changed));
  EXPECT_TRUE(ledger.movable().empty());
  EXPECT_EQ(ledger.find(1)->lrms_id, "lrms-1b");
  EXPECT_TRUE(ledger.take_ended(399).empty());
  EXPECT_EQ(ledger.take_ended(400), std::vector<std::uint64_t>{1});
}

TEST_F(ReservationLedger, NewTermsMustNameTheSameCommittedReservation) {
  ASSERT_TRUE(ledger.add(hold(1, "ann", 0, 100, 200, 50), 0));
  auto other = *ledger.find(1);
  other.owner = "bob";
  EXPECT_EQ(ledger.replace(1, other).err().code, errc::invalid_parameter);
  EXPECT_EQ(ledger.replace(1, *ledger.find(1)).err().code, errc::illegal_transition);  // a hold
  EXPECT_EQ(ledger.of_owner("ann"), serials{1});
}

TEST_F(ReservationLedger, AnExtensionMovesTheEndAndCountsTheQuantum) {
  ASSERT_TRUE(ledger.add(hold(1, "ann", 0, 100, 200, 50), 0));
  ASSERT_TRUE(ledger.apply(1, reservation_event::commit, 10));
  ASSERT_TRUE(ledger.extend(1, 150, 260, 5.0));
  EXPECT_EQ(ledger.find(1)->overruns, 1);
  EXPECT_DOUBLE_EQ(ledger.find(1)->cost, 5.0);
  EXPECT_TRUE(ledger.take_ended(259).empty());
  EXPECT_EQ(ledger.take_ended(260), std::vector<std::uint64_t>{1});
  EXPECT_FALSE(ledger.extend(1, 270, 300, 5.0));  // over: nothing changes
  EXPECT_EQ(ledger.find(1)->overruns, 1);
}

TEST_F(ReservationLedger, APurgedRecordLeavesItsTransactionRememberedTheLatestOnly) {
  for (std::uint64_t n = 1; n <= 3; ++n) {
    ASSERT_TRUE(ledger.add(hold(n, "ann", 0, 100, 200, 50), 0));
    ASSERT_TRUE(ledger.apply(n, reservation_event::cancel, static_cast<timestamp>(n)));
  }
  ledger.purge(2);  // cancelled at 1 and 2
  EXPECT_EQ(ledger.size(), 1u);
  EXPECT_EQ(ledger.of_txn("t1"), nullptr);
  ASSERT_NE(ledger.ended("t1"), nullptr);
  EXPECT_EQ(ledger.ended("t1")->id, "c/1");
  EXPECT_EQ(ledger.ended("t1")->state, reservation_state::cancelled);
  ledger.remember_ended("t9", "", reservation_state::cancelled);  // remembers two: t1 goes
  EXPECT_EQ(ledger.ended("t1"), nullptr);
  EXPECT_NE(ledger.ended("t2"), nullptr);
  ledger.remember_ended("t9", "c/9", reservation_state::expired);  // the first word stays
  EXPECT_EQ(ledger.ended("t9")->id, "");
  EXPECT_EQ(ledger.of_owner("ann"), serials{3});
}

TEST_F(ReservationLedger, ASerialOrTransactionIsFiledOnce) {
  ASSERT_TRUE(ledger.add(hold(1, "ann", 0, 100, 200, 50), 0));
  EXPECT_EQ(ledger.add(hold(1, "bob", 0, 100, 200, 50), 0).err().code, errc::invalid_parameter);
  auto same_txn = hold(2, "bob", 0, 100, 200, 50);
  same_txn.txn = "t1";
  EXPECT_EQ(ledger.add(same_txn, 0).err().code, errc::invalid_parameter);
  EXPECT_EQ(ledger.add(hold(0, "bob", 0, 100, 200, 50), 0).err().code, errc::invalid_parameter);
  EXPECT_EQ(ledger.size(), 1u);
  EXPECT_TRUE(ledger.of_owner("bob").empty());
}

TEST_F(ReservationLedger, JobsAreBoundAndTakenOffOneByOne) {
  ASSERT_TRUE(ledger.add(hold(1, "ann", 0, 100, 200, 50), 0));
  ledger.add_jobs(1, {"j1", "j2"});
  EXPECT_TRUE(ledger.remove_job(1, "j1"));
  EXPECT_FALSE(ledger.remove_job(1, "j1"));
  EXPECT_EQ(ledger.find(1)->jobs, std::vector<std::string>{"j2"});
}

}  // namespace
}  // namespace arbroker
