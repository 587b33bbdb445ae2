// Every call a coordinator makes to a cluster service may arrive twice: a retry after a
// reply that was lost, or a late copy of one that timed out (issue 15: a remote call must
// be idempotent). The second arrival answers as the first did and changes nothing: the
// same reservation, the same state, the same reservations in the LRMS.

#include <gtest/gtest.h>

#include <tuple>

#include "c1_config.hpp"
#include "simulated_service.hpp"

namespace arbroker {
namespace {

struct retried_calls : testing::simulated_service {
  void SetUp() override { make({.config = testing::c1_config(), .bunch = 8}); }

  msg::prepare_request prepare_req(const std::string& txn, timestamp start) const {
    return {.txn = txn,
            .owner = "alice",
            .start = start,
            .end = start + 3600,
            .np = 16,
            .expiry = now + 60};
  }

  // What a retry must not change: the LRMS's reservations, the journal's rows.
  auto state() {
    std::vector<std::tuple<std::string, timestamp, timestamp, int>> in_lrms;
    auto snap = lrms->snapshot();
    EXPECT_TRUE(snap);
    if (snap)
      for (const auto& r : snap->reservations)
        in_lrms.emplace_back(r.name, r.start, r.end, r.np);
    std::vector<std::pair<std::string, reservation_state>> rows;
    for (const auto& [id, r] : journal->rows)
      rows.emplace_back(id, r.state);
    return std::make_pair(in_lrms, rows);
  }
};

TEST_F(retried_calls, APrepareTwiceHoldsOnceAndAnswersTheSame) {
  const auto req = prepare_req("t1", now + 600);
  auto first = svc->prepare(req, now);
  ASSERT_TRUE(first.error.ok()) << first.error.message;
  const auto before = state();
  auto again = svc->prepare(req, now + 1);
  EXPECT_TRUE(again.error.ok()) << again.error.message;
  EXPECT_EQ(again.reservation_id, first.reservation_id);
  EXPECT_DOUBLE_EQ(again.cost, first.cost);
  EXPECT_EQ(state(), before);
  EXPECT_EQ(lrms->snapshot()->reservations.size(), 1u);
}

TEST_F(retried_calls, ACommitTwiceCommitsOnce) {
  auto h = svc->prepare(prepare_req("t1", now + 600), now);
  ASSERT_TRUE(h.error.ok()) << h.error.message;
  ASSERT_TRUE(svc->commit_txn({"t1"}, now).error.ok());
  const auto before = state();
  auto again = svc->commit_txn({"t1"}, now + 1);
  EXPECT_TRUE(again.error.ok()) << again.error.message;
  EXPECT_EQ(state(), before);
  EXPECT_EQ(svc->query({"alice", h.reservation_id}, now + 1).info.state,
            reservation_state::committed);
}

TEST_F(retried_calls, AnAbortTwiceReleasesOnceAndALateAbortOfACommitIsRefused) {
  auto h = svc->prepare(prepare_req("t1", now + 600), now);
  ASSERT_TRUE(h.error.ok()) << h.error.message;
  ASSERT_TRUE(svc->abort_txn({"t1"}, now).error.ok());
  const auto before = state();
  EXPECT_TRUE(svc->abort_txn({"t1"}, now + 1).error.ok());  // presumed abort: still fine
  EXPECT_EQ(state(), before);
  EXPECT_TRUE(lrms->snapshot()->reservations.empty());
  // A copy of the prepare that arrives after its own abort (a retry, or one delayed on the
  // network) gets no new hold: the transaction is over here.
  auto late = svc->prepare(prepare_req("t1", now + 600), now + 2);
  EXPECT_EQ(late.error.code, static_cast<std::uint8_t>(errc::illegal_transition))
      << late.error.message;
  EXPECT_NE(late.error.message.find("a late prepare is refused"), std::string::npos)
      << late.error.message;
  EXPECT_EQ(state(), before);
  // The other order: committed, then a late abort of the same transaction is refused and
  // the reservation stays.
  auto c = svc->prepare(prepare_req("t2", now + 7200), now);
  ASSERT_TRUE(c.error.ok()) << c.error.message;
  ASSERT_TRUE(svc->commit_txn({"t2"}, now).error.ok());
  auto refused = svc->abort_txn({"t2"}, now + 1);
  EXPECT_EQ(refused.error.code, static_cast<std::uint8_t>(errc::illegal_transition));
  EXPECT_EQ(svc->query({"alice", c.reservation_id}, now + 1).info.state,
            reservation_state::committed);
}

// The abort can overtake its prepare (the prepare was delayed, its coordinator timed out and
// aborted every part): the prepare, when it comes, holds nothing.
TEST_F(retried_calls, APrepareThatArrivesAfterItsAbortHoldsNothing) {
  ASSERT_TRUE(svc->abort_txn({"t9"}, now).error.ok());
  ASSERT_TRUE(svc->release_txn({"t8"}, now).error.ok());
  for (const char* txn : {"t9", "t8"}) {
    auto late = svc->prepare(prepare_req(txn, now + 600), now + 1);
    EXPECT_EQ(late.error.code, static_cast<std::uint8_t>(errc::illegal_transition))
        << late.error.message;
    EXPECT_NE(late.error.message.find("aborted before its prepare arrived"), std::string::npos)
        << late.error.message;
  }
  EXPECT_TRUE(lrms->snapshot()->reservations.empty());
  EXPECT_TRUE(svc->prepare(prepare_req("t10", now + 600), now + 1).error.ok());  // others do
}

TEST_F(retried_calls, AReleaseTwiceUndoesOnce) {
  auto h = svc->prepare(prepare_req("t1", now + 600), now);
  ASSERT_TRUE(h.error.ok()) << h.error.message;
  ASSERT_TRUE(svc->commit_txn({"t1"}, now).error.ok());
  ASSERT_TRUE(svc->release_txn({"t1"}, now).error.ok());
  const auto before = state();
  auto again = svc->release_txn({"t1"}, now + 1);
  EXPECT_TRUE(again.error.ok()) << again.error.message;
  EXPECT_EQ(state(), before);
  EXPECT_TRUE(lrms->snapshot()->reservations.empty());
}

}  // namespace
}  // namespace arbroker
