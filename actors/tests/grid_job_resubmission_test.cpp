// Grid jobs that heal (issue 35, item 1): a copy the infrastructure ended is placed again
// among the clusters that did not fail it, up to the job's max_resubmits; the job's own
// failure only up to retry_on_failure; a copy given up unconfirmed is cancelled if it shows up
// again; a placement owed survives a restart. The manager without CAF, its calls answered by
// hand (grid_job_manager_fixture.hpp).
#include "grid_job_manager_fixture.hpp"

namespace arbroker {
namespace {

struct grid_job_resubmission_test : testing::grid_job_manager_test {
  // Submits `r` and places it: outlooks answered with `wait(cluster)`, its copies queued.
  msg::grid_job_info placed(msg::grid_submit_request r, const waits_fn& wait) {
    submit(std::move(r));
    manager->flush();
    while (port.waiting<msg::job_outlook_request>() > 0)
      answer_outlook_by(wait);
    while (port.waiting<msg::job_submit_request>() > 0)
      answer_submit();
    return answers.back().job;
  }

  msg::grid_job_info show(const std::string& id) { return manager->query({"alice", id}).job; }

  // Answers the oldest state request: every copy asked for is in state `s`.
  std::string answer_states(observed_state s) {
    auto p = port.take<msg::job_states_request>();
    msg::job_states_reply rep;
    rep.cluster = p.cluster;
    for (const auto& id : std::get<msg::job_states_request>(p.request).lrms_ids) {
      msg::job_state_report r;
      r.lrms_id = id;
      r.state = s;
      if (s == observed_state::running) r.started = now;
      rep.jobs.push_back(r);
    }
    p.done(grid_cluster_reply(rep));
    return p.cluster;
  }

  // Fails the oldest state request: the cluster's LRMS (or its agent) cannot be reached.
  std::string fail_states() {
    auto p = port.take<msg::job_states_request>();
    p.done(error{errc::unreachable, p.cluster + "'s controller does not answer"});
    return p.cluster;
  }

  // Fails the oldest look for given-up copies by name: their cluster is still silent.
  std::string fail_find() {
    auto p = port.take<msg::job_find_request>();
    p.done(error{errc::unreachable, p.cluster + " still does not answer"});
    return p.cluster;
  }

  // The job placed again: its outlooks answered as `wait` says, its new copies queued.
  void place_again(const waits_fn& wait) {
    manager->flush();
    while (port.waiting<msg::job_outlook_request>() > 0)
      answer_outlook_by(wait);
    while (port.waiting<msg::job_submit_request>() > 0)
      answer_submit();
  }

  static bool said(const msg::grid_job_info& j, const std::string& what) {
    for (const auto& e : j.history)
      if (e.what.find(what) != std::string::npos) return true;
    return false;
  }

  static duration a_first(const std::string& c) { return c == "a" ? 0 : 100; }
};

TEST_F(grid_job_resubmission_test,
       ACopyWhoseClusterCannotBeAskedPastTheGraceIsPlacedAgainElsewhere) {
  lost_after = 60;
  start({"a", "b", "c"});
  auto j = placed(job(), a_first);
  ASSERT_EQ(j.copies.at(0).cluster, "a");
  manager->poll_round();
  EXPECT_EQ(fail_states(), "a");
  now += 59;  // within the grace: the copy is still the job's
  manager->poll_round();
  fail_states();
  EXPECT_EQ(show(j.id).state, grid_job_state::queued);
  EXPECT_EQ(port.flushes, 1);
  now += 1;
  manager->poll_round();        // a has not answered for 60 s: its copy is lost ...
  EXPECT_EQ(fail_find(), "a");  // ... and looked for by name, in case a comes back with it
  auto lost = show(j.id);
  EXPECT_EQ(lost.state, grid_job_state::pending);
  EXPECT_EQ(lost.copies[0].state, copy_state::failed);
  EXPECT_TRUE(lost.copies[0].lost);
  EXPECT_EQ(lost.resubmits, 1);
  EXPECT_EQ(lost.max_resubmits, 2);  // the node's default
  EXPECT_TRUE(said(lost, "resubmission 1 of 2: lost at a (a could not be asked for 60 s)"));
  // Placed again among the clusters that did not fail it: a is not even asked.
  manager->flush();
  std::set<std::string> asked;
  while (port.waiting<msg::job_outlook_request>() > 0)
    asked.insert(answer_outlook_by([](const std::string& c) { return c == "b" ? 0 : 50; }).first);
  EXPECT_EQ(asked, (std::set<std::string>{"b", "c"}));
  EXPECT_EQ(answer_submit(), "b");
  auto again = show(j.id);
  EXPECT_EQ(again.state, grid_job_state::queued);
  ASSERT_EQ(again.copies.size(), 2u);
  EXPECT_EQ(again.copies[1].cluster, "b");
  manager->poll_round();
  EXPECT_EQ(answer_states(observed_state::running), "b");  // it runs there
  EXPECT_EQ(show(j.id).state, grid_job_state::running);
  EXPECT_EQ(show(j.id).winner, 1);
}

// The job must not run twice: the given-up copy is watched for, and when its cluster answers
// again with it still there it is cancelled (counted as a duplicate start if it ran).
TEST_F(grid_job_resubmission_test, AGivenUpCopyThatShowsUpAgainIsCancelled) {
  lost_after = 0;  // lost at the first failed poll
  start({"a", "b"});
  auto j = placed(job(), a_first);
  manager->poll_round();
  fail_states();
  manager->poll_round();  // lost now
  fail_find();
  place_again([](const std::string&) { return 0; });
  ASSERT_EQ(show(j.id).copies.at(1).cluster, "b");
  // a answers again: asked by name (its ids may have gone to other jobs since), it still has
  // the copy.
  manager->poll_round();
  EXPECT_EQ(answer_states(observed_state::queued), "b");
  auto look = port.take<msg::job_find_request>();
  EXPECT_EQ(look.cluster, "a");
  EXPECT_EQ(std::get<msg::job_find_request>(look.request).names,
            (std::vector<std::string>{"g1.0"}));
  msg::job_find_reply there;
  there.lrms_ids = {"a.7"};
  look.done(grid_cluster_reply(there));
  auto cancel = port.take<msg::job_cancel_request>();
  EXPECT_EQ(cancel.cluster, "a");
  EXPECT_EQ(std::get<msg::job_cancel_request>(cancel.request).lrms_id, "a.7");
  EXPECT_FALSE(std::get<msg::job_cancel_request>(cancel.request).only_if_queued);
  msg::job_cancel_reply found;
  found.lrms_id = "a.7";
  found.found = observed_state::running;
  cancel.done(grid_cluster_reply(found));
  auto after = show(j.id);
  EXPECT_EQ(after.duplicate_starts, 1);
  EXPECT_TRUE(
      said(after, "cancelled at a after it was given up (it was running: duplicate start)"));
  EXPECT_EQ(after.copies[1].state, copy_state::queued);  // the job goes on at b
  manager->poll_round();
  for (const auto& c : port.calls)  // a's copy is settled: not asked about any more
    EXPECT_EQ(c.cluster, "b");
}

// Asked by name, a silent cluster that comes back without the copy confirms it gone: nothing
// is cancelled there (another job may carry its old id now).
TEST_F(grid_job_resubmission_test, AGivenUpCopyGoneFromItsClusterIsConfirmedWithoutACancel) {
  lost_after = 0;
  start({"a", "b"});
  auto j = placed(job(), a_first);
  manager->poll_round();
  fail_states();
  manager->poll_round();
  auto look = port.take<msg::job_find_request>();
  look.done(grid_cluster_reply(msg::job_find_reply{{""}, {}}));
  EXPECT_EQ(port.waiting<msg::job_cancel_request>(), 0u);
  EXPECT_TRUE(said(show(j.id), "gone from a: confirmed"));
  place_again([](const std::string&) { return 0; });
  manager->poll_round();
  EXPECT_EQ(port.waiting<msg::job_find_request>(), 0u);
}

TEST_F(grid_job_resubmission_test, ACopyLostToANodeFailureIsPlacedAgainAtOnce) {
  start({"a", "b"});
  auto j = placed(job(), a_first);
  manager->poll_round();
  answer_states(observed_state::running);
  manager->poll_round();
  answer_states(observed_state::lost);  // Slurm: NODE_FAIL
  auto lost = show(j.id);
  EXPECT_EQ(lost.state, grid_job_state::pending);
  EXPECT_EQ(lost.winner, -1);
  EXPECT_EQ(lost.started, -1);
  EXPECT_TRUE(said(lost, "lost at a (ended by the infrastructure (node failure))"));
  place_again([](const std::string&) { return 0; });
  EXPECT_EQ(show(j.id).copies.at(1).cluster, "b");  // a failed it
}

// A job that failed by itself (non-zero exit, walltime) fails, unless its user asked for
// retries; a retry may go back to the same cluster (it did not fail the job).
TEST_F(grid_job_resubmission_test, AJobsOwnFailureIsRetriedOnlyWhenAsked) {
  start({"a", "b"});
  auto plain = placed(job(), a_first);
  auto r = job();
  r.retry_on_failure = 1;
  auto retried = placed(r, a_first);
  manager->poll_round();
  answer_states(observed_state::running);
  manager->poll_round();
  answer_states(observed_state::failed);
  EXPECT_EQ(show(plain.id).state, grid_job_state::failed);
  auto again = show(retried.id);
  EXPECT_EQ(again.state, grid_job_state::pending);
  EXPECT_EQ(again.retries, 1);
  EXPECT_EQ(again.resubmits, 0);
  EXPECT_TRUE(said(again, "retry 1 of 1: failed at a"));
  place_again(a_first);
  EXPECT_EQ(show(retried.id).copies.at(1).cluster, "a");
  manager->poll_round();
  answer_states(observed_state::failed);  // the budget is spent: it fails now
  EXPECT_EQ(show(retried.id).state, grid_job_state::failed);
}

TEST_F(grid_job_resubmission_test, WithNoOtherClusterOrNoBudgetLeftTheJobFailsSayingWhy) {
  lost_after = 0;
  start({"a", "b"});
  auto r = job();
  r.clusters = {"a"};  // only a may take it
  auto only_a = placed(r, a_first);
  r = job();
  r.max_resubmits = 1;
  auto once = placed(r, a_first);
  manager->poll_round();
  fail_states();
  manager->poll_round();
  fail_find();
  auto nowhere = show(only_a.id);
  EXPECT_EQ(nowhere.state, grid_job_state::failed);
  EXPECT_TRUE(said(nowhere, "not placed again: no other cluster can take it"))
      << [&] { return nowhere.history.back().what; }();
  place_again([](const std::string&) { return 0; });
  ASSERT_EQ(show(once.id).copies.at(1).cluster, "b");
  manager->poll_round();
  EXPECT_EQ(answer_states(observed_state::lost), "b");
  auto spent = show(once.id);
  EXPECT_EQ(spent.state, grid_job_state::failed);
  EXPECT_EQ(spent.resubmits, 1);
}

TEST_F(grid_job_resubmission_test, ACancelledJobIsNotPlacedAgain) {
  start({"a", "b"});
  auto j = placed(job(), a_first);
  manager->poll_round();
  answer_states(observed_state::lost);
  ASSERT_EQ(show(j.id).state, grid_job_state::pending);
  ASSERT_TRUE(manager->cancel({"alice", j.id}).error.ok());
  manager->flush();
  EXPECT_EQ(port.waiting<msg::job_outlook_request>(), 0u);
  EXPECT_EQ(show(j.id).state, grid_job_state::cancelled);
}

// The placement owed is in the store with the job: a node killed before it placed the job
// again places it after the restart, once.
TEST_F(grid_job_resubmission_test, APlacementOwedIsMadeAfterARestart) {
  auto opened = sqlite_journal::open(":memory:");
  ASSERT_TRUE(opened);
  auto store = std::shared_ptr<sqlite_journal>(std::move(*opened));
  journal = store;
  start({"a", "b"});
  auto j = placed(job(), a_first);
  manager->poll_round();
  answer_states(observed_state::lost);
  ASSERT_EQ(show(j.id).state, grid_job_state::pending);
  // The node dies before the batch is flushed.
  manager.reset();
  port.calls.clear();
  auto recovered = load_grid_jobs(*store);
  ASSERT_TRUE(recovered);
  ASSERT_EQ(recovered->size(), 1u);
  start({"a", "b"}, std::move(*recovered));
  manager->poll_round();  // the first round places it
  place_again([](const std::string&) { return 0; });
  auto back = show(j.id);
  ASSERT_EQ(back.copies.size(), 2u);
  EXPECT_EQ(back.copies[1].cluster, "b");
  EXPECT_EQ(back.state, grid_job_state::queued);
  EXPECT_EQ(back.resubmits, 1);
  manager->poll_round();
  EXPECT_EQ(port.waiting<msg::job_outlook_request>(), 0u);  // placed once
}

}  // namespace
}  // namespace arbroker
