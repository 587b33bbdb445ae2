#include "arbroker/actors/reservation_attempt.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <set>

namespace arbroker {
namespace {

using phase = reservation_attempt::phase;
using calls = reservation_attempt::calls;

// The coordinator's log of commit decisions, in memory, with a switch to make it fail.
struct decision_log : reservation_journal {
  std::set<std::string> decided;
  std::vector<std::string> events;  // "log t" / "forget t", in order
  bool broken = false;
  status save(const reservation_row&) override { return {}; }
  status forget(const std::string&) override { return {}; }
  result<std::vector<reservation_row>> rows_of(const std::string&) override {
    return std::vector<reservation_row>{};
  }
  result<std::uint64_t> last_serial(const std::string&) override { return std::uint64_t{0}; }
  result<std::optional<reservation_row>> find(const std::string&) override {
    return std::optional<reservation_row>();
  }
  result<std::vector<reservation_row>> finished_rows(const history_query&) override {
    return std::vector<reservation_row>{};
  }
  status purge_finished(const std::string&, timestamp) override { return {}; }
  result<std::optional<lrms_claim>> claim_of(const std::string&) override {
    return std::optional<lrms_claim>();
  }
  status save_claim(const std::string&, const lrms_claim&) override { return {}; }
  result<std::string> node_id() override { return std::string(); }
  status save_node_id(const std::string&) override { return {}; }
  status log_commit(const std::string& txn) override {
    if (broken) return fail(errc::storage_failure, "disk full");
    decided.insert(txn);
    events.push_back("log " + txn);
    return {};
  }
  // Pipelined (as the SQLite journal is): a decision is written at once and durable only
  // when the test says so (sync()), or never (broken_sync).
  bool pipelined = false;
  write_ticket written = 0;
  std::vector<std::pair<write_ticket, std::function<void(status)>>> waiting;
  result<write_ticket> log_commit_pipelined(const std::string& txn) override {
    if (!pipelined) return reservation_journal::log_commit_pipelined(txn);
    if (auto ok = log_commit(txn); !ok) return ok.err();
    return ++written;
  }
  void when_durable(write_ticket t, std::function<void(status)> done) override {
    waiting.emplace_back(t, std::move(done));
  }
  void sync(status outcome = {}) {
    auto ws = std::move(waiting);
    waiting.clear();
    for (auto& [t, done] : ws)
      done(outcome);
  }
  status forget_commit(const std::string& txn) override {
    decided.erase(txn);
    events.push_back("forget " + txn);
    return {};
  }
  result<std::vector<std::string>> commits() override {
    return std::vector<std::string>(decided.begin(), decided.end());
  }
};

struct attempt_test : ::testing::Test {
  static constexpr timestamp now = 1'000'000;
  std::shared_ptr<decision_log> log = std::make_shared<decision_log>();

  attempt_terms terms(bool client_commits = false) {
    attempt_terms t;
    t.user = "alice";
    t.txn_base = "inc-7";
    t.client_commits = client_commits;
    t.hold_seconds = 90;
    t.prepare_expiry = 30;
    t.journal = log;
    return t;
  }

  static placement_part part(std::size_t site, timestamp start = now + 3600, int np = 8) {
    return {site, "c" + std::to_string(site), start, start + 3600, np};
  }

  template <class Request>
  static const Request& request_of(const reservation_attempt::call& c) {
    EXPECT_TRUE(std::holds_alternative<Request>(c.request));
    return std::get<Request>(c.request);
  }

  static msg::prepare_reply granted(const std::string& id, double cost = 1) {
    msg::prepare_reply r;
    r.reservation_id = id;
    r.cost = cost;
    return r;
  }

  static msg::prepare_reply refused(timestamp busy_until, msg::refusal by = msg::refusal::lrms) {
    msg::prepare_reply r;
    r.busy_until = busy_until;
    r.refused_by = by;
    r.error = msg::wire(errc::busy, "taken");
    return r;
  }

  // Two parts granted on a pipelined journal: the attempt is deciding; its calls (the
  // durable_wait) are returned.
  calls hold_two_parts_and_decide(reservation_attempt& a) {
    log->pipelined = true;
    auto cs = a.try_placement({part(0), part(1)}, now);
    auto g0 = granted("c0/1"), g1 = granted("c1/1");
    a.answer(cs[0].id, &g0);
    return a.answer(cs[1].id, &g1);
  }

  // A hold for its client at `site`, granted: the attempt is granted, the hold uncommitted.
  void hold_granted(reservation_attempt& a, std::size_t site) {
    auto cs = a.try_placement({part(site)}, now);
    auto r = granted("c" + std::to_string(site) + "/1");
    a.answer(cs[0].id, &r);
    ASSERT_EQ(a.current(), phase::granted);
  }

  static msg::ack_reply ok() { return {}; }
  static msg::ack_reply refused_ack() { return {msg::wire(errc::illegal_transition, "expired")}; }

  // The kinds of request in `cs`, by site, e.g. {{0, "commit"}, {1, "commit"}}.
  static std::vector<std::pair<std::size_t, std::string>> kinds(const calls& cs) {
    std::vector<std::pair<std::size_t, std::string>> out;
    for (const auto& c : cs) {
      const char* names[] = {"prepare", "commit", "abort", "release", "wait"};
      out.emplace_back(c.site, names[c.request.index()]);
    }
    return out;
  }
};

TEST_F(attempt_test, OnePartIsReservedByItsPrepareAlone) {
  reservation_attempt a(terms());
  auto cs = a.try_placement({part(3)}, now);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].site, 3u);
  const auto& p = request_of<msg::prepare_request>(cs[0]);
  EXPECT_EQ(p.txn, "inc-7.1");
  EXPECT_EQ(p.owner, "alice");
  EXPECT_EQ(p.np, 8);
  EXPECT_EQ(p.expiry, now + 30);
  EXPECT_TRUE(p.commit_at_once);
  EXPECT_EQ(a.current(), phase::preparing);
  auto r = granted("c3/1", 2.5);
  EXPECT_TRUE(a.answer(cs[0].id, &r).empty());
  EXPECT_EQ(a.current(), phase::granted);
  EXPECT_TRUE(a.done());
  EXPECT_TRUE(a.parts()[0].committed);
  EXPECT_EQ(a.parts()[0].prepared.reservation_id, "c3/1");
  EXPECT_EQ(a.open_calls(), 0u);
  EXPECT_TRUE(log->events.empty());  // one participant: no decision to log
}

TEST_F(attempt_test, AHoldForItsClientStaysAHold) {
  reservation_attempt a(terms(true));
  auto cs = a.try_placement({part(0)}, now);
  const auto& p = request_of<msg::prepare_request>(cs[0]);
  EXPECT_FALSE(p.commit_at_once);
  EXPECT_EQ(p.expiry, now + 90);
  auto r = granted("c0/1");
  a.answer(cs[0].id, &r);
  EXPECT_EQ(a.current(), phase::granted);
  EXPECT_FALSE(a.parts()[0].committed);
}

// An owner that is its own client (the grid-job manager's reserve flow) commits the hold it
// was granted, or lets it go.
TEST_F(attempt_test, TheOwnerOfAHoldCommitsIt) {
  reservation_attempt a(terms(true));
  hold_granted(a, 2);
  auto commit = a.commit_hold();
  ASSERT_EQ(kinds(commit), (std::vector<std::pair<std::size_t, std::string>>{{2, "commit"}}));
  EXPECT_EQ(request_of<msg::commit_txn_request>(commit[0]).txn, "inc-7.1");
  EXPECT_EQ(a.current(), phase::committing);
  EXPECT_TRUE(a.commit_hold().empty());  // once
  auto ack = ok();
  EXPECT_TRUE(a.answer(commit[0].id, &ack).empty());
  EXPECT_EQ(a.current(), phase::granted);
  EXPECT_TRUE(a.parts()[0].committed);
  EXPECT_EQ(a.reservation_of(0).state, reservation_state::committed);
  // A committed reservation is no hold to commit or let go.
  EXPECT_TRUE(a.commit_hold().empty());
  EXPECT_TRUE(a.release_hold().empty());
  EXPECT_EQ(a.open_calls(), 0u);
}

TEST_F(attempt_test, AHoldThatExpiredBeforeItsCommitIsReleasedAndTheAttemptIdle) {
  reservation_attempt a(terms(true));
  hold_granted(a, 0);
  auto commit = a.commit_hold();
  auto no = refused_ack();
  auto release = a.answer(commit[0].id, &no);
  ASSERT_EQ(kinds(release), (std::vector<std::pair<std::size_t, std::string>>{{0, "release"}}));
  EXPECT_NE(a.failure().find("a hold expired during commit (expired)"), std::string::npos)
      << a.failure();
  auto ack = ok();
  a.answer(release[0].id, &ack);
  EXPECT_EQ(a.current(), phase::idle);
  EXPECT_FALSE(a.parts()[0].committed);
  EXPECT_EQ(a.open_calls(), 0u);
}

TEST_F(attempt_test, TheOwnerOfAHoldLetsItGo) {
  reservation_attempt a(terms(true));
  EXPECT_TRUE(a.release_hold().empty());  // nothing held yet
  auto cs = a.try_placement({part(1)}, now);
  EXPECT_TRUE(a.release_hold().empty());  // still preparing: give_up() is for that
  auto r = granted("c1/1");
  a.answer(cs[0].id, &r);
  auto abort = a.release_hold();
  ASSERT_EQ(kinds(abort), (std::vector<std::pair<std::size_t, std::string>>{{1, "abort"}}));
  EXPECT_EQ(request_of<msg::abort_txn_request>(abort[0]).txn, "inc-7.1");
  EXPECT_EQ(a.current(), phase::given_up);
  EXPECT_TRUE(a.done());
  EXPECT_EQ(a.open_calls(), 1u);
  auto ack = ok();
  EXPECT_TRUE(a.answer(abort[0].id, &ack).empty());
  EXPECT_EQ(a.open_calls(), 0u);
  EXPECT_TRUE(a.commit_hold().empty());
}

TEST_F(attempt_test, ARefusalLeavesItIdleForTheNextTry) {
  reservation_attempt a(terms());
  auto cs = a.try_placement({part(0)}, now);
  auto no = refused(now + 7200, msg::refusal::service);
  EXPECT_TRUE(a.answer(cs[0].id, &no).empty());
  EXPECT_EQ(a.current(), phase::idle);
  EXPECT_FALSE(a.done());
  EXPECT_EQ(a.parts()[0].prepared.busy_until, now + 7200);
  EXPECT_EQ(a.parts()[0].prepared.refused_by, msg::refusal::service);
  auto next = a.try_placement({part(1)}, now);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(request_of<msg::prepare_request>(next[0]).txn, "inc-7.2");
  EXPECT_EQ(a.tries(), 2);
  // A service that went away counts as a refusal, and nothing is left to release there.
  EXPECT_TRUE(a.answer(next[0].id, static_cast<const msg::prepare_reply*>(nullptr)).empty());
  EXPECT_EQ(a.current(), phase::idle);
  EXPECT_TRUE(a.parts()[0].lost);
  EXPECT_EQ(a.parts()[0].prepared.error.err(), errc::unreachable);
}

TEST_F(attempt_test, SeveralPartsCommitInTwoPhasesAfterTheDecisionIsLogged) {
  reservation_attempt a(terms());
  auto cs = a.try_placement({part(0), part(1), part(2, now + 4200)}, now);
  ASSERT_EQ(cs.size(), 3u);
  for (const auto& c : cs) {
    const auto& p = request_of<msg::prepare_request>(c);
    EXPECT_FALSE(p.commit_at_once);  // holds, committed in phase two
    EXPECT_EQ(p.expiry, now + 30);
    EXPECT_EQ(p.txn, "inc-7.1");
  }
  auto g0 = granted("c0/1"), g1 = granted("c1/1"), g2 = granted("c2/1");
  EXPECT_TRUE(a.answer(cs[2].id, &g2).empty());
  EXPECT_TRUE(a.answer(cs[0].id, &g0).empty());
  EXPECT_TRUE(log->events.empty());  // not before every part holds
  auto commits = a.answer(cs[1].id, &g1);
  EXPECT_EQ(log->events, (std::vector<std::string>{"log inc-7.1"}));
  EXPECT_EQ(kinds(commits), (std::vector<std::pair<std::size_t, std::string>>{
                                {0, "commit"}, {1, "commit"}, {2, "commit"}}));
  EXPECT_EQ(a.current(), phase::committing);
  for (const auto& c : commits) {
    EXPECT_EQ(request_of<msg::commit_txn_request>(c).txn, "inc-7.1");
    auto ack = ok();
    a.answer(c.id, &ack);
  }
  EXPECT_EQ(a.current(), phase::granted);
  EXPECT_EQ(log->events, (std::vector<std::string>{"log inc-7.1", "forget inc-7.1"}));
  for (const auto& p : a.parts())
    EXPECT_TRUE(p.committed);
}

// The decision is written pipelined: no commit leaves before the journal says it is
// durable, and the owner is asked to wait for it (one durable_wait call), not a thread.
TEST_F(attempt_test, CommitsWaitUntilTheDecisionIsDurable) {
  reservation_attempt a(terms());
  auto wait = hold_two_parts_and_decide(a);
  ASSERT_EQ(kinds(wait), (std::vector<std::pair<std::size_t, std::string>>{{0, "wait"}}));
  const auto& w = request_of<reservation_attempt::durable_wait>(wait[0]);
  EXPECT_EQ(w.ticket, 1u);
  EXPECT_EQ(w.journal, log);
  EXPECT_EQ(a.current(), phase::deciding);
  EXPECT_EQ(log->events, (std::vector<std::string>{"log inc-7.1"}));  // written, not synced
  auto ack = ok();
  EXPECT_TRUE(a.answer(wait[0].id, &ack).empty());  // an ack is not the journal's word
  EXPECT_EQ(a.current(), phase::deciding);
  auto commits = a.decided(wait[0].id, {});
  EXPECT_EQ(kinds(commits),
            (std::vector<std::pair<std::size_t, std::string>>{{0, "commit"}, {1, "commit"}}));
  EXPECT_EQ(a.current(), phase::committing);
  EXPECT_TRUE(a.decided(wait[0].id, {}).empty());  // answered once
  for (const auto& c : commits)
    a.answer(c.id, &ack);
  EXPECT_EQ(a.current(), phase::granted);
  EXPECT_TRUE(log->decided.empty());
}

TEST_F(attempt_test, ADecisionThatNeverBecomesDurableAbortsTheHolds) {
  reservation_attempt a(terms());
  auto wait = hold_two_parts_and_decide(a);
  ASSERT_EQ(wait.size(), 1u);
  auto aborts = a.decided(wait[0].id, fail(errc::storage_failure, "cannot sync the log"));
  EXPECT_EQ(kinds(aborts),
            (std::vector<std::pair<std::size_t, std::string>>{{0, "abort"}, {1, "abort"}}));
  EXPECT_NE(a.failure().find("cannot sync the log"), std::string::npos) << a.failure();
  auto ack = ok();
  for (const auto& c : aborts)
    a.answer(c.id, &ack);
  EXPECT_EQ(a.current(), phase::idle);
  EXPECT_FALSE(a.parts()[0].committed);
}

// The deadline passes while the decision is on its way to the disk: every hold is released
// at once, no commit is ever sent, and the record is forgotten only once the write it waits
// for has answered and every release is done (until then, recovery may still need it).
TEST_F(attempt_test, GivingUpWhileDecidingReleasesEveryHoldAndNeverCommits) {
  reservation_attempt a(terms());
  auto wait = hold_two_parts_and_decide(a);
  ASSERT_EQ(a.current(), phase::deciding);
  auto releases = a.give_up();
  EXPECT_EQ(kinds(releases),
            (std::vector<std::pair<std::size_t, std::string>>{{0, "release"}, {1, "release"}}));
  EXPECT_EQ(a.current(), phase::given_up);
  auto ack = ok();
  for (const auto& c : releases)
    EXPECT_TRUE(a.answer(c.id, &ack).empty());
  EXPECT_EQ(log->decided.count("inc-7.1"), 1u);  // the write is still open
  EXPECT_EQ(a.open_calls(), 1u);
  EXPECT_TRUE(a.decided(wait[0].id, {}).empty());  // durable now: still no commit
  EXPECT_EQ(a.open_calls(), 0u);
  EXPECT_TRUE(log->decided.empty());
}

// Issue 33: a one-cluster reservation whose prepare's answer was lost (the link to its agent
// broke) may have been committed there. It is released, without the next try waiting for
// that release, and counted, so that the client hears `unreachable`, not a refusal.
TEST_F(attempt_test, APrepareWhoseAnswerWasLostIsReleasedAndCounted) {
  reservation_attempt a(terms());
  auto cs = a.try_placement({part(0)}, now);
  msg::prepare_reply lost;
  lost.txn = "inc-7.1";
  lost.error = msg::wire(errc::unreachable, "agent 'a1': not connected: stream truncated");
  auto out = a.answer(cs[0].id, &lost);
  EXPECT_EQ(kinds(out), (std::vector<std::pair<std::size_t, std::string>>{{0, "release"}}));
  EXPECT_EQ(request_of<msg::release_txn_request>(out[0]).txn, "inc-7.1");
  EXPECT_EQ(a.current(), phase::idle);  // the next try need not wait for the release
  EXPECT_EQ(a.in_doubt(), 1);
  EXPECT_TRUE(a.parts()[0].in_doubt);
  EXPECT_EQ(a.open_calls(), 1u);  // the owner keeps the attempt until the release is answered
  // A timeout is in doubt too (the call may still run at the cluster); a plain refusal not.
  auto next = a.try_placement({part(1)}, now);
  msg::prepare_reply late;
  late.error = msg::wire(errc::timeout, "no answer within 10 s");
  EXPECT_EQ(kinds(a.answer(next[0].id, &late)),
            (std::vector<std::pair<std::size_t, std::string>>{{1, "release"}}));
  auto third = a.try_placement({part(2)}, now);
  auto no = refused(now + 600);
  EXPECT_TRUE(a.answer(third[0].id, &no).empty());
  EXPECT_EQ(a.in_doubt(), 2);
  EXPECT_EQ(in_doubt_note(a),
            "; 2 of them got no answer (released where they may have been granted)");
  auto ack = ok();
  EXPECT_TRUE(a.answer(out[0].id, &ack).empty());
  EXPECT_EQ(a.current(), phase::idle);
  EXPECT_EQ(a.open_calls(), 1u);
}

TEST_F(attempt_test, InSeveralPartsThePartInDoubtIsReleasedAndTheGrantedAborted) {
  reservation_attempt a(terms());
  auto cs = a.try_placement({part(0), part(1)}, now);
  auto g0 = granted("c0/1");
  msg::prepare_reply lost;
  lost.error = msg::wire(errc::unreachable, "link lost");
  auto first = a.answer(cs[1].id, &lost);
  EXPECT_EQ(kinds(first), (std::vector<std::pair<std::size_t, std::string>>{{1, "release"}}));
  EXPECT_EQ(request_of<msg::release_txn_request>(first[0]).txn, "inc-7.1");
  auto aborts = a.answer(cs[0].id, &g0);
  EXPECT_EQ(kinds(aborts), (std::vector<std::pair<std::size_t, std::string>>{{0, "abort"}}));
  auto ack = ok();
  a.answer(aborts[0].id, &ack);
  EXPECT_EQ(a.current(), phase::idle);
  EXPECT_EQ(a.in_doubt(), 1);
}

TEST_F(attempt_test, AnAnswerLostAfterTheDeadlineIsReleasedToo) {
  reservation_attempt a(terms());
  auto cs = a.try_placement({part(0)}, now);
  EXPECT_TRUE(a.give_up().empty());
  msg::prepare_reply lost;
  lost.error = msg::wire(errc::timeout, "no answer");
  auto out = a.answer(cs[0].id, &lost);
  EXPECT_EQ(kinds(out), (std::vector<std::pair<std::size_t, std::string>>{{0, "release"}}));
  auto ack = ok();
  a.answer(out[0].id, &ack);
  EXPECT_EQ(a.open_calls(), 0u);
}

TEST_F(attempt_test, ARefusedPartAbortsTheHoldsOfTheOthersBeforeTheNextTry) {
  reservation_attempt a(terms());
  auto cs = a.try_placement({part(0), part(1), part(2)}, now);
  auto g0 = granted("c0/1"), g2 = granted("c2/1");
  auto no = refused(now + 600);
  a.answer(cs[0].id, &g0);
  a.answer(cs[1].id, &no);
  auto aborts = a.answer(cs[2].id, &g2);
  EXPECT_EQ(kinds(aborts),
            (std::vector<std::pair<std::size_t, std::string>>{{0, "abort"}, {2, "abort"}}));
  EXPECT_EQ(a.current(), phase::releasing);
  EXPECT_EQ(request_of<msg::abort_txn_request>(aborts[0]).txn, "inc-7.1");
  auto ack = ok();
  a.answer(aborts[1].id, &ack);
  EXPECT_EQ(a.current(), phase::releasing);  // the next try waits until nothing is held
  a.answer(aborts[0].id, static_cast<const msg::ack_reply*>(nullptr));  // gone: fine too
  EXPECT_EQ(a.current(), phase::idle);
  EXPECT_TRUE(log->events.empty());
  EXPECT_EQ(a.parts()[1].prepared.busy_until, now + 600);
}

TEST_F(attempt_test, APartLostBeforeItsCommitReleasesEveryPart) {
  reservation_attempt a(terms());
  auto cs = a.try_placement({part(0), part(1), part(2)}, now);
  for (const auto& c : cs) {
    auto g = granted("c/" + std::to_string(c.site));
    a.answer(c.id, &g);
  }
  ASSERT_EQ(a.current(), phase::committing);
  const auto commits = a.answer(0, static_cast<const msg::ack_reply*>(nullptr));  // unknown id
  EXPECT_TRUE(commits.empty());
  // Take the commits from a fresh look at what was sent: ids 4, 5, 6 follow the prepares.
  auto ack = ok();
  auto expired = refused_ack();
  EXPECT_TRUE(a.answer(4, &ack).empty());
  EXPECT_TRUE(a.answer(5, &expired).empty());
  auto releases = a.answer(6, static_cast<const msg::ack_reply*>(nullptr));  // c2 went away
  EXPECT_EQ(kinds(releases),
            (std::vector<std::pair<std::size_t, std::string>>{{0, "release"}, {1, "release"}}));
  EXPECT_EQ(a.current(), phase::releasing);
  EXPECT_NE(a.failure().find("a hold expired during commit"), std::string::npos) << a.failure();
  EXPECT_EQ(log->decided.count("inc-7.1"), 1u);  // still decided while parts are there
  for (const auto& c : releases) {
    EXPECT_EQ(request_of<msg::release_txn_request>(c).txn, "inc-7.1");
    a.answer(c.id, &ack);
  }
  EXPECT_EQ(a.current(), phase::idle);
  EXPECT_TRUE(log->decided.empty());  // compensation complete: nothing left to settle
  for (const auto& p : a.parts())
    EXPECT_FALSE(p.committed);
}

// A leader whose store was taken over under it: after the decision was logged, a part's
// service cannot record its commit (storage_failure). The decision stands (the next node's
// recovery completes it), so the outcome is not known here: never a plain refusal. A commit
// that a hold's expiry refused is a refusal as before (the test above).
TEST_F(attempt_test, ACommitTheStoreCouldNotRecordLeavesTheOutcomeUnknown) {
  reservation_attempt a(terms());
  auto cs = a.try_placement({part(0), part(1)}, now);
  for (const auto& c : cs) {
    auto g = granted("c/" + std::to_string(c.site));
    a.answer(c.id, &g);
  }
  ASSERT_EQ(a.current(), phase::committing);
  EXPECT_FALSE(a.decision_in_doubt());
  auto ack = ok();
  msg::ack_reply unrecorded{msg::wire(errc::storage_failure, "the store's session was ended")};
  EXPECT_TRUE(a.answer(3, &ack).empty());
  // Released all the same: what the store takes of it, recovery sees.
  auto releases = a.answer(4, &unrecorded);
  EXPECT_EQ(kinds(releases),
            (std::vector<std::pair<std::size_t, std::string>>{{0, "release"}, {1, "release"}}));
  ASSERT_TRUE(a.decision_in_doubt());
  EXPECT_NE(a.decision_in_doubt_why().find("inc-7.1"), std::string::npos);
  EXPECT_NE(a.decision_in_doubt_why().find("the store's session was ended"), std::string::npos);
  const auto note = in_doubt_note(a);
  EXPECT_NE(note.find("the outcome is not known"), std::string::npos) << note;
}

TEST_F(attempt_test, ADecisionThatCannotBeLoggedIsAnAbort) {
  log->broken = true;
  reservation_attempt a(terms());
  auto cs = a.try_placement({part(0), part(1)}, now);
  auto g0 = granted("c0/1"), g1 = granted("c1/1");
  a.answer(cs[0].id, &g0);
  auto aborts = a.answer(cs[1].id, &g1);
  EXPECT_EQ(kinds(aborts),
            (std::vector<std::pair<std::size_t, std::string>>{{0, "abort"}, {1, "abort"}}));
  EXPECT_NE(a.failure().find("disk full"), std::string::npos);
  auto ack = ok();
  for (const auto& c : aborts)
    a.answer(c.id, &ack);
  EXPECT_EQ(a.current(), phase::idle);
}

TEST_F(attempt_test, AGrantThatArrivesAfterTheDeadlineIsReleased) {
  reservation_attempt a(terms());
  auto cs = a.try_placement({part(0)}, now);
  EXPECT_TRUE(a.give_up().empty());  // nothing granted yet: nothing to release now
  EXPECT_EQ(a.current(), phase::given_up);
  EXPECT_TRUE(a.done());
  EXPECT_EQ(a.open_calls(), 1u);  // the owner keeps it for the grant on its way
  auto late = granted("c0/9");
  auto release = a.answer(cs[0].id, &late);
  ASSERT_EQ(kinds(release), (std::vector<std::pair<std::size_t, std::string>>{{0, "release"}}));
  EXPECT_EQ(request_of<msg::release_txn_request>(release[0]).txn, "inc-7.1");
  auto ack = ok();
  a.answer(release[0].id, &ack);
  EXPECT_EQ(a.open_calls(), 0u);
  // A refusal after the deadline needs nothing.
  reservation_attempt b(terms());
  auto bs = b.try_placement({part(0)}, now);
  b.give_up();
  auto no = refused(-1);
  EXPECT_TRUE(b.answer(bs[0].id, &no).empty());
  EXPECT_EQ(b.open_calls(), 0u);
}

TEST_F(attempt_test, GivingUpMidPrepareReleasesTheGrantedNowAndTheRestOnArrival) {
  reservation_attempt a(terms());
  auto cs = a.try_placement({part(0), part(1), part(2)}, now);
  auto g0 = granted("c0/1");
  auto no = refused(-1);
  a.answer(cs[0].id, &g0);
  a.answer(cs[1].id, &no);
  auto now_released = a.give_up();
  EXPECT_EQ(kinds(now_released),
            (std::vector<std::pair<std::size_t, std::string>>{{0, "release"}}));
  auto g2 = granted("c2/1");
  auto later = a.answer(cs[2].id, &g2);
  EXPECT_EQ(kinds(later), (std::vector<std::pair<std::size_t, std::string>>{{2, "release"}}));
  EXPECT_TRUE(log->events.empty());
}

TEST_F(attempt_test, GivingUpAfterTheDecisionCompensatesAndForgetsItWhenDone) {
  reservation_attempt a(terms());
  auto cs = a.try_placement({part(0), part(1)}, now);
  auto g0 = granted("c0/1"), g1 = granted("c1/1");
  a.answer(cs[0].id, &g0);
  auto commits = a.answer(cs[1].id, &g1);
  ASSERT_EQ(commits.size(), 2u);
  auto ack = ok();
  a.answer(commits[0].id, &ack);  // c0 committed, c1's commit still on its way
  auto releases = a.give_up();
  EXPECT_EQ(kinds(releases),
            (std::vector<std::pair<std::size_t, std::string>>{{0, "release"}, {1, "release"}}));
  EXPECT_EQ(log->decided.count("inc-7.1"), 1u);
  a.answer(commits[1].id, &ack);
  a.answer(releases[0].id, &ack);
  EXPECT_EQ(log->decided.count("inc-7.1"), 1u);
  a.answer(releases[1].id, &ack);
  EXPECT_EQ(a.open_calls(), 0u);
  EXPECT_TRUE(log->decided.empty());
}

TEST_F(attempt_test, StrayAnswersAndMisuseChangeNothing) {
  reservation_attempt a(terms());
  auto cs = a.try_placement({part(0)}, now);
  EXPECT_TRUE(a.try_placement({part(1)}, now).empty());  // a try is in progress
  EXPECT_TRUE(a.try_placement({}, now).empty());
  auto ack = ok();
  EXPECT_TRUE(a.answer(cs[0].id, &ack).empty());  // an ack for a prepare: not its answer
  auto g = granted("c0/1");
  EXPECT_TRUE(a.answer(cs[0].id + 100, &g).empty());  // unknown id
  EXPECT_EQ(a.current(), phase::preparing);
  a.answer(cs[0].id, &g);
  EXPECT_EQ(a.current(), phase::granted);
  EXPECT_TRUE(a.answer(cs[0].id, &g).empty());  // twice
  EXPECT_EQ(a.tries(), 1);
}

}  // namespace
}  // namespace arbroker
