// The grid-job manager's state without CAF (grid_job_manager_fixture.hpp): batches, floods,
// rounds, recovery, adaptation, ended jobs.
#include "grid_job_manager_fixture.hpp"

namespace arbroker {
namespace {

using testing::grid_job_manager_test;

TEST_F(grid_job_manager_test, ABatchSharesOneOutlookPerClusterAndSpreadsItsJobs) {
  start({"a", "b"});
  submit(job());
  submit(job());
  EXPECT_EQ(port.flushes, 1);  // one flush for the batch
  EXPECT_TRUE(port.calls.empty());
  manager->flush();
  ASSERT_EQ(port.waiting<msg::job_outlook_request>(), 2u);  // one per cluster, not per job
  for (const auto& c : port.calls)
    EXPECT_EQ(std::get<msg::job_outlook_request>(c.request).shapes.size(), 1u);  // one shape
  // a starts either job at once, b in 50 s. The first goes to a; a's queue then grows by
  // one job's worth (8 CPUs x 100 s / 8 CPUs), so the second goes to b.
  const auto first = port.calls.front().cluster;
  answer_outlook(first == "a" ? 0 : 50);
  answer_outlook(first == "a" ? 50 : 0);
  ASSERT_EQ(port.waiting<msg::job_submit_request>(), 2u);
  std::set<std::string> where{port.calls[0].cluster, port.calls[1].cluster};
  EXPECT_EQ(where, (std::set<std::string>{"a", "b"}));
  EXPECT_TRUE(answers.empty());  // answered once the copies are in their queues
  answer_submit();
  answer_submit();
  ASSERT_EQ(answers.size(), 2u);
  for (const auto& a : answers) {
    ASSERT_TRUE(a.error.ok()) << a.error.message;
    EXPECT_EQ(a.job.state, grid_job_state::queued);
  }
}

// One batch's outlooks in flight at a time: a submission that arrives meanwhile waits for
// them, and its batch asks only after the first batch's copies were sent, so the services
// (which take one sender's messages in order) answer it with those copies queued.
TEST_F(grid_job_manager_test, TheNextBatchIsAskedForOnlyOnceTheBatchInFlightIsPlaced) {
  start({"a", "b"});
  submit(job());
  manager->flush();
  ASSERT_EQ(port.waiting<msg::job_outlook_request>(), 2u);
  submit(job());
  submit(job());
  EXPECT_EQ(port.flushes, 2);
  manager->flush();  // the flush the second submission asked for: it waits
  EXPECT_EQ(port.waiting<msg::job_outlook_request>(), 2u);
  submit(job());
  EXPECT_EQ(port.flushes, 2);  // already waiting: no further flush asked for
  answer_outlook(0);
  answer_outlook(0);
  // The first job's copy is sent, then the three waiting jobs' batch asks each cluster once.
  ASSERT_EQ(port.calls.size(), 3u);
  EXPECT_TRUE(std::holds_alternative<msg::job_submit_request>(port.calls[0].request));
  EXPECT_EQ(port.waiting<msg::job_outlook_request>(), 2u);
  answer_outlook(0);
  answer_outlook(0);
  EXPECT_EQ(port.waiting<msg::job_submit_request>(), 4u);
  for (int k = 0; k < 4; ++k)
    answer_submit();
  EXPECT_EQ(answers.size(), 4u);
}

// A batch whose outlooks fail is refused, and the batch waiting behind it is asked for: a
// failed call never holds the submissions after it.
TEST_F(grid_job_manager_test, ABatchWhoseOutlooksFailDoesNotHoldTheNextOne) {
  start({"a"});
  submit(job());
  manager->flush();
  submit(job());
  manager->flush();  // waits for the first batch's outlook
  ASSERT_EQ(port.waiting<msg::job_outlook_request>(), 1u);
  port.take<msg::job_outlook_request>().done(error{errc::unreachable, "a did not answer"});
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].error.err(), errc::infeasible);
  EXPECT_NE(answers[0].error.message.find("a did not answer"), std::string::npos)
      << answers[0].error.message;
  ASSERT_EQ(port.waiting<msg::job_outlook_request>(), 1u);  // the second batch's
  answer_outlook(0);
  answer_submit();
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_TRUE(answers[1].error.ok()) << answers[1].error.message;
}

TEST_F(grid_job_manager_test, ARequestNoClusterCanTakeIsRefusedWithoutACall) {
  start({"a"});
  auto big = job();
  big.np = 64;
  submit(big);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].error.err(), errc::infeasible);
  EXPECT_NE(answers[0].error.message.find("larger than every cluster (largest: 8 CPUs)"),
            std::string::npos)
      << answers[0].error.message;
  EXPECT_EQ(port.flushes, 0);
  EXPECT_TRUE(port.calls.empty());
  EXPECT_TRUE(manager->list({}).jobs.empty());
}

TEST_F(grid_job_manager_test, AFloodsCopyThatStartedFirstWinsAndTheOtherIsCancelled) {
  ranked_at_once({"a", "b"}, grid_strategy::flood, 2);
  answer_submit();
  answer_submit();
  ASSERT_EQ(answers.size(), 1u);
  const auto id = answers[0].job.id;
  EXPECT_EQ(manager->poll_round(), 2);  // two copies asked about
  ASSERT_EQ(port.waiting<msg::job_states_request>(), 2u);
  // Both started between two looks: b's 30 s before a's. Whichever cluster answers first,
  // b's copy wins (a answers first here).
  for (const auto& at : {"a", "b"}) {
    auto it = std::find_if(port.calls.begin(), port.calls.end(),
                           [&](const auto& c) { return c.cluster == at; });
    ASSERT_NE(it, port.calls.end());
    auto p = std::move(*it);
    port.calls.erase(it);
    msg::job_states_reply rep;
    rep.cluster = at;
    for (const auto& lrms_id : std::get<msg::job_states_request>(p.request).lrms_ids)
      rep.jobs.push_back(
          {lrms_id, observed_state::running, std::string(at) == "a" ? now - 10 : now - 40, {}});
    p.done(grid_cluster_reply(rep));
  }
  auto cancel = port.take<msg::job_cancel_request>();
  EXPECT_EQ(cancel.cluster, "a");
  EXPECT_TRUE(port.calls.empty());
  msg::job_cancel_reply found;
  found.lrms_id = std::get<msg::job_cancel_request>(cancel.request).lrms_id;
  found.found = observed_state::running;
  cancel.done(grid_cluster_reply(found));
  auto shown = manager->query({"alice", id});
  ASSERT_TRUE(shown.error.ok());
  EXPECT_EQ(shown.job.state, grid_job_state::running);
  EXPECT_EQ(shown.job.started, now - 40);
}

TEST_F(grid_job_manager_test, ARoundIsSettledOnlyWhenEveryCallItMadeIsAnswered) {
  ranked_at_once({"a"}, grid_strategy::single, 1);
  answer_submit();
  manager->poll_round();
  std::optional<std::int32_t> settled;
  manager->when_settled(1, [&](std::int32_t v) { settled = v; });
  EXPECT_FALSE(settled);
  auto p = port.take<msg::job_states_request>();
  msg::job_states_reply rep;
  for (const auto& lrms_id : std::get<msg::job_states_request>(p.request).lrms_ids)
    rep.jobs.push_back({lrms_id, observed_state::queued, -1, {}});
  p.done(grid_cluster_reply(rep));
  EXPECT_EQ(settled, 1);
}

// A reserve job cancelled while its holds are asked for: nothing is committed or bound, the
// submission hears of the cancel, and the holds granted afterwards are let go.
TEST_F(grid_job_manager_test, AReserveJobCancelledWhileItsHoldsAreAskedForLetsThemGo) {
  ranked_at_once({"a", "b"}, grid_strategy::reserve, 2);
  ASSERT_EQ(port.waiting<msg::prepare_request>(), 2u);
  ASSERT_TRUE(answers.empty());
  auto cancelled = manager->cancel({"alice", "arb/g1"});
  ASSERT_TRUE(cancelled.error.ok()) << cancelled.error.message;
  EXPECT_EQ(cancelled.job.state, grid_job_state::cancelled);
  ASSERT_EQ(answers.size(), 1u);  // the submission's answer
  EXPECT_EQ(answers[0].job.state, grid_job_state::cancelled);
  for (int k = 0; k < 2; ++k) {
    auto p = port.take<msg::prepare_request>();
    msg::prepare_reply granted;
    granted.txn = std::get<msg::prepare_request>(p.request).txn;
    granted.reservation_id = p.cluster + "/1";
    p.done(grid_cluster_reply(granted));
  }
  EXPECT_EQ(port.waiting<msg::release_txn_request>(), 2u);
  EXPECT_EQ(port.waiting<msg::commit_txn_request>(), 0u);
  EXPECT_EQ(port.waiting<msg::bind_job_request>(), 0u);
  EXPECT_TRUE(manager->query({"alice", "arb/g1"}).job.reservation.empty());
}

// A call the port could not deliver (its cluster left the grid before it went out) fails the
// copy; the job is answered with the reason.
TEST_F(grid_job_manager_test, ACopyWhoseClusterLeftBeforeItsSubmitFails) {
  ranked_at_once({"a"}, grid_strategy::single, 1);
  auto p = port.take<msg::job_submit_request>();
  p.done(error{errc::not_found, "a left the grid"});
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].job.state, grid_job_state::failed);
  EXPECT_NE(answers[0].error.message.find("a left the grid"), std::string::npos)
      << answers[0].error.message;
}

// After a restart: a copy written down but never answered for is looked for by its name at
// its cluster, adopted when found, failed when it never got there; the other copy of the
// flood goes on.
TEST_F(grid_job_manager_test, RecoveryLooksForUnansweredCopiesByTheirNames) {
  const auto rec = testing::unanswered_flood("arb/g7", now);
  start({"a", "b"}, {rec});
  manager->poll_round();
  ASSERT_EQ(port.waiting<msg::job_find_request>(), 2u);
  for (int k = 0; k < 2; ++k) {
    auto p = port.take<msg::job_find_request>();
    const auto& names = std::get<msg::job_find_request>(p.request).names;
    ASSERT_EQ(names.size(), 1u);
    EXPECT_EQ(names[0], p.cluster == "a" ? "g7.0" : "g7.1");
    msg::job_find_reply rep;
    rep.lrms_ids = {p.cluster == "a" ? "a.42" : ""};  // b never got its copy
    p.done(grid_cluster_reply(rep));
  }
  auto shown = manager->query({"alice", "arb/g7"});
  ASSERT_TRUE(shown.error.ok());
  ASSERT_EQ(shown.job.copies.size(), 2u);
  EXPECT_EQ(shown.job.copies[0].lrms_id, "a.42");
  EXPECT_EQ(shown.job.copies[0].state, copy_state::queued);
  EXPECT_EQ(shown.job.copies[1].state, copy_state::failed);
  EXPECT_EQ(shown.job.state, grid_job_state::queued);
  // New jobs go on after the recovered one's number.
  submit(job());
  manager->flush();
  answer_outlook(0);
  answer_outlook(0);
  answer_submit();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].job.id, "arb/g8");
}

// Paper 003 Sec. 3.3 from one outlook per cluster: a queued adaptive job moves where its TTD
// is earlier, submitted there first, and its old copy is withdrawn once the new one is in.
TEST_F(grid_job_manager_test, AnAdaptiveJobMovesWhereItWouldStartEarlier) {
  ranked_at_once({"a", "b"}, grid_strategy::adaptive, 1);
  const auto first = answer_submit();
  const auto other = first == "a" ? std::string("b") : std::string("a");
  ASSERT_EQ(answers.size(), 1u);
  const auto old_id = answers[0].job.copies[0].lrms_id;
  EXPECT_EQ(manager->adapt_round(), 1);
  ASSERT_EQ(port.waiting<msg::job_outlook_request>(), 2u);
  // Where it stands it starts in an hour; the other cluster could start it at once.
  for (int k = 0; k < 2; ++k) {
    const auto [at, q] =
        answer_outlook_by([&](const std::string& c) { return c == first ? 3600 : 0; },
                          [](const std::string&) { return 3600; });
    if (at == first) {
      EXPECT_EQ(q.queued_ids, std::vector<std::string>{old_id});
    }
  }
  EXPECT_EQ(port.waiting<msg::job_cancel_request>(), 0u);  // not before the new copy is in
  EXPECT_EQ(answer_submit(), other);
  auto withdraw = port.take<msg::job_cancel_request>();
  EXPECT_EQ(withdraw.cluster, first);
  const auto& w = std::get<msg::job_cancel_request>(withdraw.request);
  EXPECT_EQ(w.lrms_id, old_id);
  EXPECT_TRUE(w.only_if_queued);
  msg::job_cancel_reply found;
  found.lrms_id = old_id;
  found.found = observed_state::queued;
  withdraw.done(grid_cluster_reply(found));
  auto shown = manager->query({"alice", answers[0].job.id});
  EXPECT_EQ(shown.job.migrations, 1);
  EXPECT_EQ(shown.job.state, grid_job_state::queued);
}

// A round moves at most migration_share of the jobs it evaluates, those that gain most first
// (whatever their order), so that one batch's guesses do not set off a migration storm.
TEST_F(grid_job_manager_test, ARoundMovesAtMostItsShareOfTheJobsLargestGainsFirst) {
  migration_share = 0.5;
  start({"a", "b"});
  // Four adaptive jobs, each placed on a (b would start them only in an hour).
  for (int k = 0; k < 4; ++k) {
    submit(job(grid_strategy::adaptive, 1));
    manager->flush();
    for (int c = 0; c < 2; ++c)
      answer_outlook_by([](const std::string& at) { return at == "a" ? 0 : 3600; });
    ASSERT_EQ(answer_submit(), "a");
  }
  ASSERT_EQ(answers.size(), 4u);
  EXPECT_EQ(manager->adapt_round(), 4);
  // Where they stand on a, job k starts after waits[k]; b could start any at once (then each
  // move there puts the next 100 s later). All four would gain: the two that gain most move.
  const std::map<std::string, duration> waits = {{answers[0].job.copies[0].lrms_id, 1000},
                                                 {answers[1].job.copies[0].lrms_id, 4000},
                                                 {answers[2].job.copies[0].lrms_id, 3000},
                                                 {answers[3].job.copies[0].lrms_id, 2000}};
  for (int c = 0; c < 2; ++c)
    answer_outlook_by([](const std::string& at) { return at == "b" ? 0 : 5000; },
                      [&](const std::string& id) { return waits.at(id); });
  ASSERT_EQ(port.waiting<msg::job_submit_request>(), 2u);
  EXPECT_EQ(answer_submit(), "b");
  EXPECT_EQ(answer_submit(), "b");
  ASSERT_EQ(port.waiting<msg::job_cancel_request>(), 2u);  // the old copies withdrawn
  for (int k = 0; k < 2; ++k) {
    auto withdraw = port.take<msg::job_cancel_request>();
    msg::job_cancel_reply found;
    found.lrms_id = std::get<msg::job_cancel_request>(withdraw.request).lrms_id;
    found.found = observed_state::queued;
    withdraw.done(grid_cluster_reply(found));
  }
  std::vector<int> moved;
  for (const auto& a : answers)
    moved.push_back(manager->query({"alice", a.job.id}).job.migrations);
  EXPECT_EQ(moved, (std::vector<int>{0, 1, 1, 0}));
}

// Ended jobs stay in memory for `list` among at most ended_in_memory_max (here 2), the
// oldest leaving first; the active ones always stay.
TEST_F(grid_job_manager_test, AtMostSoManyEndedJobsStayInMemory) {
  start({"a"});
  for (int k = 0; k < 4; ++k) {
    submit(job());
    manager->flush();
    answer_outlook(0);
    answer_submit();
  }
  ASSERT_EQ(answers.size(), 4u);
  for (int k = 0; k < 3; ++k) {  // the first three are cancelled, one after another
    now += 10;
    ASSERT_TRUE(manager->cancel({"alice", answers[k].job.id}).error.ok());
    auto p = port.take<msg::job_cancel_request>();
    msg::job_cancel_reply rep;
    rep.lrms_id = std::get<msg::job_cancel_request>(p.request).lrms_id;
    p.done(grid_cluster_reply(rep));
  }
  manager->poll_round();  // ended jobs leave memory in the rounds
  auto listed = manager->list({});
  std::vector<std::string> ids;
  for (const auto& j : listed.jobs)
    ids.push_back(j.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"arb/g4", "arb/g3", "arb/g2"}));  // newest first
  msg::grid_list_request only_cancelled;
  only_cancelled.state = "cancelled";
  auto cancelled = manager->list(only_cancelled);
  EXPECT_EQ(cancelled.jobs.size(), 2u);
  only_cancelled.state = "lost";
  EXPECT_EQ(manager->list(only_cancelled).error.err(), errc::invalid_parameter);
  EXPECT_EQ(manager->query({"alice", "arb/g1"}).error.err(), errc::not_found);
  EXPECT_EQ(manager->query({"bob", "arb/g4"}).error.err(), errc::not_found);  // not his
}

}  // namespace
}  // namespace arbroker

namespace arbroker {
namespace {

// A store whose writes can be made to fail (a node whose store broke, or that lost its
// lease and was cut off from it), over an SQLite one in memory.
class breakable_journal final : public grid_job_journal {
 public:
  breakable_journal() : real_(std::move(*sqlite_journal::open(":memory:"))) {}
  bool broken = false;
  status save_grid_job(const grid_job_row& row) override {
    if (broken) return fail(errc::storage_failure, "the store is gone");
    return real_->save_grid_job(row);
  }
  status save_grid_jobs(std::span<const grid_job_row> rows) override {
    if (broken) return fail(errc::storage_failure, "the store is gone");
    return real_->save_grid_jobs(rows);
  }
  result<std::vector<grid_job_row>> grid_jobs() override { return real_->grid_jobs(); }
  result<std::optional<grid_job_row>> find_grid_job(const std::string& id) override {
    return real_->find_grid_job(id);
  }
  result<std::vector<grid_job_row>> ended_grid_jobs(const history_query& q) override {
    return real_->ended_grid_jobs(q);
  }
  result<std::uint64_t> last_grid_job_serial() override { return real_->last_grid_job_serial(); }
  status purge_grid_jobs(timestamp before) override { return real_->purge_grid_jobs(before); }

 private:
  std::unique_ptr<sqlite_journal> real_;
};

// Nothing is acknowledged that the store did not take: a cancel whose row cannot be written
// is refused and changes nothing (found by the failover trials: a paused leader, continued,
// acknowledged a cancel its store never had), and a submission whose row cannot be written
// is refused before any LRMS sees it.
TEST_F(grid_job_manager_test, NothingTheStoreDidNotTakeIsAcknowledged) {
  auto store = std::make_shared<breakable_journal>();
  journal = store;
  start({"a"});
  submit(job());
  manager->flush();
  answer_outlook(0);
  answer_submit();
  ASSERT_EQ(answers.size(), 1u);
  ASSERT_TRUE(answers[0].error.ok()) << answers[0].error.message;
  const auto id = answers[0].job.id;

  store->broken = true;
  auto refused = manager->cancel({"alice", id});
  EXPECT_EQ(refused.error.err(), errc::storage_failure);
  EXPECT_EQ(manager->query({"alice", id}).job.state, grid_job_state::queued);  // nor here
  EXPECT_EQ(port.waiting<msg::job_cancel_request>(), 0u);                      // nor in its LRMS
  EXPECT_EQ((*store->find_grid_job(id))->active, true);

  submit(job());
  manager->flush();
  answer_outlook(0);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[1].error.err(), errc::storage_failure) << answers[1].error.message;
  EXPECT_EQ(port.waiting<msg::job_submit_request>(), 0u);  // no LRMS saw it

  store->broken = false;  // the store back: the cancel goes through
  EXPECT_TRUE(manager->cancel({"alice", id}).error.ok());
  EXPECT_EQ(manager->query({"alice", id}).job.state, grid_job_state::cancelled);
}

}  // namespace
}  // namespace arbroker
