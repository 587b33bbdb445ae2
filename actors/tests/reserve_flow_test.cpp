#include "arbroker/actors/reserve_flow.hpp"

#include <gtest/gtest.h>

namespace arbroker {
namespace {

using phase = reserve_flow::phase;
using calls = reserve_flow::calls;

struct reserve_flow_test : ::testing::Test {
  static constexpr timestamp now = 1'000'000;
  reserve_flow flow{"arb/g7", "alice", 60};

  // Cluster `name`'s hold from now + `in` for 100 s, the job finishing `finish` after its start.
  static reserve_option option(const std::string& name, duration in, duration finish) {
    return {name, now + in, 100, 8, finish};
  }

  // The one call of `cs` to hold h, of request type R.
  template <class R>
  static const reserve_flow::call& only(const calls& cs, std::size_t h) {
    const reserve_flow::call* found = nullptr;
    for (const auto& c : cs)
      if (c.hold == h && std::holds_alternative<R>(c.what.request)) {
        EXPECT_EQ(found, nullptr) << "two calls of one kind to hold " << h;
        found = &c;
      }
    EXPECT_NE(found, nullptr) << "no such call to hold " << h;
    return *found;
  }
  template <class R>
  static std::size_t count(const calls& cs) {
    std::size_t n = 0;
    for (const auto& c : cs)
      n += std::holds_alternative<R>(c.what.request);
    return n;
  }

  static msg::prepare_reply granted(const std::string& id) {
    msg::prepare_reply r;
    r.reservation_id = id;
    return r;
  }
  static msg::prepare_reply refused(timestamp busy_until, errc code = errc::busy) {
    msg::prepare_reply r;
    r.busy_until = busy_until;
    r.error = msg::wire(code, "taken");
    return r;
  }
  static msg::ack_reply ack(bool ok = true) {
    return ok ? msg::ack_reply{} : msg::ack_reply{msg::wire(errc::illegal_transition, "expired")};
  }
};

TEST_F(reserve_flow_test, HoldsEverywhereKeepsWhatFinishesFirstAndLetsTheRestGo) {
  auto cs = flow.start({option("a", 10, 500), option("b", 10, 200), option("c", 50, 200)}, now);
  ASSERT_EQ(cs.size(), 3u);
  for (std::size_t h = 0; h < 3; ++h) {
    const auto& p = std::get<msg::prepare_request>(only<msg::prepare_request>(cs, h).what.request);
    EXPECT_EQ(p.txn, "arb/g7.1");
    EXPECT_EQ(p.owner, "alice");
    EXPECT_EQ(p.np, 8);
    EXPECT_EQ(p.end - p.start, 100);
    EXPECT_EQ(p.expiry, now + 60);
    EXPECT_FALSE(p.commit_at_once);  // a hold: the flow commits the one it keeps
  }
  auto ga = granted("a/1"), gb = granted("b/1"), gc = granted("c/1");
  EXPECT_TRUE(flow.answer(0, cs[0].what.id, &ga, now).empty());
  EXPECT_TRUE(flow.answer(2, cs[2].what.id, &gc, now).empty());
  EXPECT_EQ(flow.current(), phase::holding);  // b has not answered
  auto decided = flow.answer(1, cs[1].what.id, &gb, now);
  EXPECT_EQ(flow.current(), phase::committing);
  ASSERT_EQ(flow.kept(), 1u);  // b finishes at now + 210, c at now + 250, a at now + 510
  EXPECT_EQ(flow.reservation_id(), "b/1");
  ASSERT_EQ(decided.size(), 3u);
  only<msg::abort_txn_request>(decided, 0);
  only<msg::abort_txn_request>(decided, 2);
  const auto& commit = only<msg::commit_txn_request>(decided, 1);
  EXPECT_EQ(std::get<msg::commit_txn_request>(commit.what.request).txn, "arb/g7.1");
  EXPECT_EQ(
      flow.take_notes(),
      (std::vector<std::string>{"released the hold a/1 (finish " + std::to_string(now + 510) + ")",
                                "released the hold c/1 (finish " + std::to_string(now + 250) + ")",
                                "kept b/1: finishes first (" + std::to_string(now + 210) + ")"}));
  auto ok = ack();
  for (const auto& c : decided)
    EXPECT_TRUE(flow.answer(c.hold, c.what.id, &ok).empty());
  EXPECT_EQ(flow.current(), phase::kept);
  EXPECT_TRUE(flow.done());
  EXPECT_EQ(flow.open_calls(), 0u);
  EXPECT_TRUE(flow.failure().empty());
}

TEST_F(reserve_flow_test, ARefusalNamingALaterStartIsTriedThereOnce) {
  auto cs = flow.start({option("a", 10, 100)}, now);
  auto no = refused(now + 900);
  auto retry = flow.answer(0, cs[0].what.id, &no, now);
  ASSERT_EQ(retry.size(), 1u);
  const auto& p = std::get<msg::prepare_request>(retry[0].what.request);
  EXPECT_EQ(p.start, now + 900);
  EXPECT_EQ(p.end, now + 1000);
  EXPECT_EQ(p.txn, "arb/g7.2");
  EXPECT_EQ(flow.finish_of(0), now + 1000);
  auto again = refused(now + 5000);
  EXPECT_TRUE(flow.answer(0, retry[0].what.id, &again, now).empty());  // once only
  EXPECT_EQ(flow.current(), phase::failed);
  EXPECT_EQ(flow.failure(), "no cluster granted a hold: a: taken");
  EXPECT_EQ(flow.open_calls(), 0u);
}

// A move's hold (latest_start): a later start would be no better than the reservation the
// job has, so it is not asked for; the flow fails with the cluster's refusal.
TEST_F(reserve_flow_test, ARefusalNamingAStartPastTheLatestUsefulOneIsNotTried) {
  auto o = option("a", 10, 100);
  o.latest_start = now + 899;
  auto cs = flow.start({o}, now);
  auto no = refused(now + 900);
  EXPECT_TRUE(flow.answer(0, cs[0].what.id, &no, now).empty());
  EXPECT_EQ(flow.current(), phase::failed);
  EXPECT_EQ(flow.failure(), "no cluster granted a hold: a: taken");
  // At the latest useful start itself, it is.
  reserve_flow other{"arb/g8", "alice", 60};
  o.latest_start = now + 900;
  auto cs2 = other.start({o}, now);
  ASSERT_EQ(other.answer(0, cs2[0].what.id, &no, now).size(), 1u);
}

TEST_F(reserve_flow_test, RefusedHoldsAreNamedBesideTheKeptOne) {
  auto cs = flow.start({option("a", 10, 100), option("b", 10, 300)}, now);
  auto no = refused(-1);  // no later start named: no retry
  EXPECT_TRUE(flow.answer(0, cs[0].what.id, &no, now).empty());
  auto gb = granted("b/4");
  auto commit = flow.answer(1, cs[1].what.id, &gb, now);
  ASSERT_EQ(commit.size(), 1u);
  EXPECT_EQ(flow.take_notes(),
            (std::vector<std::string>{"no hold at a: taken", "kept b/4: finishes first (" +
                                                                 std::to_string(now + 310) + ")"}));
}

TEST_F(reserve_flow_test, AGoneServiceAndALostAnswerAreRefusalsAndTheLostOneIsReleased) {
  auto cs = flow.start({option("a", 10, 100), option("b", 10, 100)}, now);
  EXPECT_TRUE(flow.answer(0, cs[0].what.id, static_cast<const msg::prepare_reply*>(nullptr), now)
                  .empty());  // gone: nothing to release there
  auto lost = refused(-1, errc::unreachable);
  auto settle = flow.answer(1, cs[1].what.id, &lost, now);
  // b's answer was lost on its way: it may hold something, released without waiting.
  const auto& rel = only<msg::release_txn_request>(settle, 1);
  EXPECT_EQ(flow.current(), phase::failed);
  EXPECT_NE(flow.failure().find("a: the reservation service of 'a' is gone"), std::string::npos)
      << flow.failure();
  EXPECT_EQ(flow.open_calls(), 1u);
  auto ok = ack();
  flow.answer(1, rel.what.id, &ok);
  EXPECT_EQ(flow.open_calls(), 0u);
}

TEST_F(reserve_flow_test, ACommitThatFailsReleasesTheHoldAndFails) {
  auto cs = flow.start({option("a", 10, 100)}, now);
  auto ga = granted("a/1");
  auto commit = flow.answer(0, cs[0].what.id, &ga, now);
  flow.take_notes();
  auto no = ack(false);
  auto release = flow.answer(0, commit[0].what.id, &no);
  only<msg::release_txn_request>(release, 0);
  EXPECT_EQ(flow.current(), phase::failed);
  EXPECT_NE(flow.failure().find("the commit failed: a: a hold expired during commit (expired)"),
            std::string::npos)
      << flow.failure();
  EXPECT_EQ(flow.take_notes(), std::vector<std::string>{flow.failure()});
}

TEST_F(reserve_flow_test, GivingUpLetsGoOfWhatIsHeldNowAndOfWhatIsGrantedLater) {
  auto cs = flow.start({option("a", 10, 100), option("b", 10, 100), option("c", 10, 100)}, now);
  auto ga = granted("a/1");
  flow.answer(0, cs[0].what.id, &ga, now);
  auto no = refused(now + 50);
  auto retry = flow.answer(2, cs[2].what.id, &no, now);  // c tries again later
  ASSERT_EQ(retry.size(), 1u);
  auto gone = flow.give_up();
  EXPECT_EQ(flow.current(), phase::given_up);
  ASSERT_EQ(gone.size(), 1u);
  only<msg::abort_txn_request>(gone, 0);
  auto gb = granted("b/1"), gc = granted("c/1");
  only<msg::release_txn_request>(flow.answer(1, cs[1].what.id, &gb, now), 1);
  only<msg::release_txn_request>(flow.answer(2, retry[0].what.id, &gc, now), 2);
  EXPECT_FALSE(flow.kept());
  EXPECT_TRUE(flow.give_up().empty());  // once
}

TEST_F(reserve_flow_test, GivingUpDuringTheCommitReleasesTheKeptHoldAfterIt) {
  auto cs = flow.start({option("a", 10, 100)}, now);
  auto ga = granted("a/1");
  auto commit = flow.answer(0, cs[0].what.id, &ga, now);
  ASSERT_EQ(flow.current(), phase::committing);
  auto gone = flow.give_up();
  only<msg::release_txn_request>(gone, 0);  // arrives after the commit on its way
  auto ok = ack();
  flow.answer(0, commit[0].what.id, &ok);
  EXPECT_EQ(flow.current(), phase::given_up);
}

TEST_F(reserve_flow_test, StrayAnswersChangeNothing) {
  auto cs = flow.start({option("a", 10, 100)}, now);
  EXPECT_TRUE(flow.start({option("b", 10, 100)}, now).empty());  // once
  auto ga = granted("a/1");
  EXPECT_TRUE(flow.answer(5, cs[0].what.id, &ga, now).empty());
  EXPECT_TRUE(flow.answer(0, 999, &ga, now).empty());
  EXPECT_EQ(flow.current(), phase::holding);
  EXPECT_EQ(flow.open_calls(), 1u);
}

}  // namespace
}  // namespace arbroker
