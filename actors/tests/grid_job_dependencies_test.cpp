// Grid jobs that wait for others (issue 35 item 5, actors/src/grid_job_dependencies.cpp) on
// the deterministic engine: --after, several jobs in one request, a failed parent's children,
// and the preference for the cluster that holds a parent's output.

#include "grid_jobs_fixture.hpp"

namespace arbroker::testing {
namespace {

// Issue 35 item 5: a job that waits for another (--after) is answered pending at once, placed
// when its parent completes and run; one that asks for completion fails when its parent fails,
// one with :any runs anyway; an unknown parent is refused.
TEST_F(grid_jobs_test, AJobAfterAnotherRunsOnceItsParentEndedAsAsked) {
  add_cluster("a", 8, 1000);
  start_manager();
  auto parent = submit(job(grid_strategy::single, 8, 100));
  poll();
  ASSERT_EQ(show(parent.id).state, grid_job_state::running);
  auto r = job(grid_strategy::single, 8, 100);
  r.after = {parent.id};
  auto child = submit(r);
  EXPECT_EQ(child.state, grid_job_state::pending);
  EXPECT_TRUE(child.copies.empty());
  EXPECT_EQ(child.history.at(0).what, "waits for " + parent.id + " to complete");
  auto unknown = r;
  unknown.after = {"n/g99"};
  auto refused = ask<msg::grid_job_reply>(jobs, unknown);
  EXPECT_EQ(refused.error.err(), errc::not_found);
  EXPECT_NE(refused.error.message.find("no grid job 'n/g99' of yours"), std::string::npos)
      << refused.error.message;
  advance(100);
  poll();  // the parent completed: the child is placed
  EXPECT_EQ(show(parent.id).state, grid_job_state::completed);
  auto placed = show(child.id);
  ASSERT_EQ(placed.copies.size(), 1u);
  EXPECT_EQ(placed.copies[0].cluster, "a");
  poll();
  EXPECT_EQ(show(child.id).state, grid_job_state::running);
  advance(100);
  poll();
  EXPECT_EQ(show(child.id).state, grid_job_state::completed);
  // A child of a completed parent is placed at once.
  auto late = submit(r);
  EXPECT_EQ(late.copies.size(), 1u);
}

TEST_F(grid_jobs_test, AJobAfterAFailedParentFailsUnlessAnyEndWillDo) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  busy("a", 8, 1000, 1000);
  busy("b", 8, 1000, 1000);
  start_manager();
  auto parent = submit(job(grid_strategy::single, 8, 100));
  auto ok = job(grid_strategy::single, 4, 100);
  ok.after = {parent.id + ":ok"};
  auto needs_ok = submit(ok);
  auto any = ok;
  any.after = {parent.id + ":any"};
  auto runs_anyway = submit(any);
  auto grandchild = ok;
  grandchild.after = {needs_ok.id};
  auto second = submit(grandchild);
  ASSERT_TRUE(
      ask<msg::grid_job_reply>(jobs, msg::grid_cancel_request{"alice", parent.id}).error.ok());
  auto failed = show(needs_ok.id);
  EXPECT_EQ(failed.state, grid_job_state::failed);
  EXPECT_NE(failed.history.back().what.find("not run: after: " + parent.id + " ended cancelled"),
            std::string::npos)
      << failed.history.back().what;
  EXPECT_EQ(show(second.id).state, grid_job_state::failed);  // its parent failed in turn
  auto placed = show(runs_anyway.id);
  EXPECT_EQ(placed.state, grid_job_state::queued);
  EXPECT_EQ(placed.copies.size(), 1u);
  auto bad = ok;
  bad.after = {parent.id + ":sometimes"};
  auto refused = ask<msg::grid_job_reply>(jobs, bad);
  EXPECT_EQ(refused.error.err(), errc::invalid_parameter);
}

// A job waiting for its parent outlives a restart of the node: the parent completes while the
// node is down, and the first round after the restart places the child, once.
TEST_F(grid_jobs_test, AWaitingJobIsPlacedAfterARestartIfItsParentEndedMeanwhile) {
  use_memory_store();
  add_cluster("a", 8, 1000);
  start_manager();
  auto parent = submit(job(grid_strategy::single, 8, 100));
  auto r = job(grid_strategy::single, 8, 100);
  r.after = {parent.id};
  auto child = submit(r);
  ASSERT_EQ(child.state, grid_job_state::pending);
  self->send_exit(jobs, caf::exit_reason::kill);
  sched.run();
  advance(150);  // the parent ran and completed meanwhile
  start_manager();
  poll();
  EXPECT_EQ(show(parent.id).state, grid_job_state::completed);
  auto placed = show(child.id);
  ASSERT_EQ(placed.copies.size(), 1u);
  poll();
  EXPECT_EQ(show(child.id).copies.size(), 1u);  // once
  EXPECT_EQ(ours_in("a"), 1u);
}

// Several jobs in one request (issue 35 item 5): siblings named by name, ids given in the
// request's order, the jobs whose parents are met placed at once, the others when they end.
TEST_F(grid_jobs_test, JobsSubmittedTogetherRunInTheOrderTheirDependenciesSay) {
  add_cluster("a", 8, 1000);
  start_manager();
  auto prep = job(grid_strategy::single, 8, 100);
  prep.name = "prep";
  auto left = prep, right = prep, join = prep;
  left.name = "left";
  left.after = {"prep"};
  right.name = "right";
  right.after = {"prep:any"};
  join.name = "join";
  join.after = {"left", "right"};
  // In any order: the request says who waits for whom.
  auto rep = ask<msg::grid_submit_many_reply>(
      jobs, msg::grid_submit_many_request{"alice", {join, left, prep, right}});
  ASSERT_TRUE(rep.error.ok()) << rep.error.message;
  ASSERT_EQ(rep.jobs.size(), 4u);
  EXPECT_EQ(rep.jobs[0].id, "n/g1");
  EXPECT_EQ(rep.jobs[2].id, "n/g3");
  EXPECT_EQ(rep.jobs[0].history.at(0).what,
            "waits for n/g2 to complete, n/g4 to complete (one of 4 submitted together)");
  EXPECT_EQ(rep.jobs[3].history.at(0).what, "waits for n/g3 to end (one of 4 submitted together)");
  sched.run();
  EXPECT_EQ(show("n/g3").copies.size(), 1u);  // prep, placed
  for (const auto* id : {"n/g1", "n/g2", "n/g4"})
    EXPECT_TRUE(show(id).copies.empty()) << id;
  poll();
  advance(100);
  poll();  // prep completed: left and right placed (4 CPUs each would share; 8 each queue)
  EXPECT_EQ(show("n/g3").state, grid_job_state::completed);
  EXPECT_EQ(show("n/g2").copies.size(), 1u);
  EXPECT_EQ(show("n/g4").copies.size(), 1u);
  EXPECT_TRUE(show("n/g1").copies.empty());
  for (int i = 0; i < 4; ++i) {
    advance(100);
    poll();
  }
  EXPECT_EQ(show("n/g2").state, grid_job_state::completed);
  EXPECT_EQ(show("n/g4").state, grid_job_state::completed);
  EXPECT_EQ(show("n/g1").state, grid_job_state::completed);  // join ran last
  EXPECT_GE(show("n/g1").started, show("n/g2").ended);
  EXPECT_GE(show("n/g1").started, show("n/g4").ended);
}

TEST_F(grid_jobs_test, ARequestOfSeveralJobsIsRefusedWholeAndChangesNothing) {
  add_cluster("a", 8, 1000);
  start_manager();
  auto a = job(grid_strategy::single, 8, 100);
  a.name = "a";
  auto b = a;
  b.name = "b";
  b.after = {"a"};
  auto refused = [&](std::vector<msg::grid_submit_request> js, errc code, const std::string& says) {
    auto rep = ask<msg::grid_submit_many_reply>(jobs, msg::grid_submit_many_request{"alice", js});
    EXPECT_EQ(rep.error.err(), code) << rep.error.message;
    EXPECT_NE(rep.error.message.find(says), std::string::npos) << rep.error.message;
    EXPECT_TRUE(rep.jobs.empty());
  };
  auto cycle = a;
  cycle.after = {"b"};
  refused({cycle, b}, errc::invalid_parameter, "in a cycle: a, b");
  refused({a, a}, errc::invalid_parameter, "jobs[1] (a): name: jobs[0] has this name too");
  auto unnamed = a;
  unnamed.name = "";
  refused({unnamed}, errc::invalid_parameter, "jobs[0].name");
  auto self_wait = a;
  self_wait.after = {"a"};
  refused({self_wait}, errc::invalid_parameter, "cannot wait for itself");
  auto huge = b;
  huge.np = 64;
  refused({a, huge}, errc::infeasible,
          "jobs[1] (b): a job of 64 CPUs is larger than every cluster");
  auto stranger = b;
  stranger.after = {"n/g42"};
  refused({a, stranger}, errc::not_found, "jobs[1] (b): after: no grid job 'n/g42' of yours");
  refused({}, errc::invalid_parameter, "the request has none");
  sched.run();
  EXPECT_EQ(ours_in("a"), 0u);  // nothing placed, and no id was used
  auto ok = ask<msg::grid_submit_many_reply>(jobs, msg::grid_submit_many_request{"alice", {a, b}});
  ASSERT_TRUE(ok.error.ok()) << ok.error.message;
  EXPECT_EQ(ok.jobs[0].id, "n/g1");
}

// A parent that fails: each child fails or is cancelled as its request says, and the
// cancel reaches the grandchildren.
TEST_F(grid_jobs_test, AFailedParentCancelsTheChildrenThatAskedSo) {
  add_cluster("a", 8, 1000);
  busy("a", 8, 1000, 1000);
  start_manager();
  auto parent = job(grid_strategy::single, 8, 100);
  parent.name = "parent";
  auto cancelled = job(grid_strategy::single, 8, 100);
  cancelled.name = "cancelled";
  cancelled.after = {"parent"};
  cancelled.cancel_if_parent_fails = true;
  auto grandchild = cancelled;
  grandchild.name = "grandchild";
  grandchild.after = {"cancelled"};
  grandchild.cancel_if_parent_fails = false;
  auto failed = cancelled;
  failed.name = "failed";
  failed.cancel_if_parent_fails = false;
  auto rep = ask<msg::grid_submit_many_reply>(
      jobs, msg::grid_submit_many_request{"alice", {parent, cancelled, grandchild, failed}});
  ASSERT_TRUE(rep.error.ok()) << rep.error.message;
  sched.run();
  ASSERT_TRUE(
      ask<msg::grid_job_reply>(jobs, msg::grid_cancel_request{"alice", rep.jobs[0].id}).error.ok());
  auto c = show(rep.jobs[1].id);
  EXPECT_EQ(c.state, grid_job_state::cancelled);
  EXPECT_NE(c.history.back().what.find("cancelled: after: " + rep.jobs[0].id + " ended cancelled"),
            std::string::npos)
      << c.history.back().what;
  EXPECT_EQ(show(rep.jobs[2].id).state, grid_job_state::failed);  // its parent was cancelled
  EXPECT_EQ(show(rep.jobs[3].id).state, grid_job_state::failed);
}

// Paper 003's staging with a workflow's data: a child prefers the cluster that holds its
// parent's output (it would take 1000 s to move at 1 MB/s) over an idle one, unless it asks to
// be placed as if the output were nowhere.
TEST_F(grid_jobs_test, AChildGoesWhereItsParentsOutputIsUnlessItIgnoresIt) {
  start_with_slow_links({"a", "b"});
  const auto parent = parent_on_b(4);
  const auto near = child_of_parent("near", grid_strategy::single, 8);
  auto anywhere = near;
  anywhere.name = "anywhere";
  anywhere.locality = false;
  auto rep = ask<msg::grid_submit_many_reply>(
      jobs, msg::grid_submit_many_request{"alice", {parent, near, anywhere}});
  ASSERT_TRUE(rep.error.ok()) << rep.error.message;
  sched.run();
  poll();
  busy("b", 4, 700, 700);  // b is half busy from now on: without the data, a is better
  advance(100);
  poll();
  ASSERT_EQ(show(rep.jobs[0].id).state, grid_job_state::completed);
  auto n = show(rep.jobs[1].id);
  ASSERT_EQ(n.copies.size(), 1u);
  EXPECT_EQ(n.copies[0].cluster, "b");
  EXPECT_TRUE(std::any_of(n.history.begin(), n.history.end(), [](const auto& e) {
    return e.what ==
           "the jobs it waited for ended as asked: placed, preferring where their outputs are "
           "(1000000000 B at b)";
  }));
  auto w = show(rep.jobs[2].id);
  ASSERT_EQ(w.copies.size(), 1u);
  EXPECT_EQ(w.copies[0].cluster, "a");
}

// hold_for_stage_in (the simulated grid's staging): a copy sent where its parent's output is
// not starts once the output arrived (1e9 B at 1e6 B/s: 1000 s), whether or not the ranking
// preferred where the output is; a copy where it is starts at once.
TEST_F(grid_jobs_test, ACopyWaitsForItsInputsWhenTheGridStagesThem) {
  hold_for_stage_in = true;
  start_with_slow_links({"a", "b"});
  const auto parent = parent_on_b(2);
  auto there = child_of_parent("there", grid_strategy::single, 2);
  there.clusters = {"a"};
  auto ignoring = there;
  ignoring.name = "ignoring";
  ignoring.locality = false;
  auto where = there;
  where.name = "where";
  where.clusters = {"b"};
  auto rep = ask<msg::grid_submit_many_reply>(
      jobs, msg::grid_submit_many_request{"alice", {parent, there, ignoring, where}});
  ASSERT_TRUE(rep.error.ok()) << rep.error.message;
  sched.run();
  poll();
  advance(100);
  poll();
  ASSERT_EQ(show(rep.jobs[0].id).state, grid_job_state::completed);
  const timestamp arrives = now + 1000;
  auto on_a = lrms.at("a")->snapshot();
  ASSERT_TRUE(on_a);
  ASSERT_EQ(on_a->queued.size(), 2u);  // both children sent to a wait, on idle CPUs
  for (const auto& j : on_a->queued)
    EXPECT_EQ(j.not_before, arrives) << j.name;
  poll();
  EXPECT_EQ(show(rep.jobs[3].id).state, grid_job_state::running);  // its input is on b
  advance(999);
  poll();
  EXPECT_EQ(show(rep.jobs[1].id).state, grid_job_state::queued);
  EXPECT_EQ(show(rep.jobs[2].id).state, grid_job_state::queued);
  advance(1);
  poll();
  EXPECT_EQ(show(rep.jobs[1].id).state, grid_job_state::running);
  EXPECT_EQ(show(rep.jobs[2].id).state, grid_job_state::running);
}

// An adaptive copy held for its inputs is not moved for a start that forgets them: a move
// elsewhere restarts the transfer, also when the ranking leaves the data out (locality off).
// Counting the ranking's terms alone, it went back and forth between a and c every round.
TEST_F(grid_jobs_test, AHeldCopyIsNotMovedToWhereItsInputsWouldStillHaveToGo) {
  hold_for_stage_in = true;
  start_with_slow_links({"a", "b", "c"});
  const auto parent = parent_on_b(2);  // its output: 1000 s to any other cluster
  auto child = child_of_parent("child", grid_strategy::adaptive, 4);
  child.locality = false;
  auto rep = ask<msg::grid_submit_many_reply>(
      jobs, msg::grid_submit_many_request{"alice", {parent, child}});
  ASSERT_TRUE(rep.error.ok()) << rep.error.message;
  sched.run();
  poll();
  busy("b", 6, 5000, 5000);  // where the data is, no room for the child for long
  advance(100);
  poll();
  auto placed = show(rep.jobs[1].id);
  ASSERT_EQ(placed.copies.size(), 1u);
  ASSERT_NE(placed.copies[0].cluster, "b");
  for (int round = 0; round < 5; ++round) {
    advance(60);
    adapt();
    poll();
  }
  auto after = show(rep.jobs[1].id);
  EXPECT_EQ(after.migrations, 0);
  EXPECT_EQ(after.copies.size(), 1u);
  advance(1000 - 5 * 60);
  poll();
  EXPECT_EQ(show(rep.jobs[1].id).state, grid_job_state::running);
}

}  // namespace
}  // namespace arbroker::testing
