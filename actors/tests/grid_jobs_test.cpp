// The grid-job manager on the deterministic engine: placement by TTD, flooding, migration,
// cancels, a cluster that dies, recovery from the store, owner checks and bad input.

#include "grid_jobs_fixture.hpp"

namespace arbroker::testing {
namespace {

TEST_F(grid_jobs_test, SingleGoesToTheClusterThatDeliversFirstAndRunsToTheEnd) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  busy("a", 8, 1000, 1000);
  start_manager();
  auto r = job(grid_strategy::single);
  r.ranking = grid_ranking::sed;
  auto j = submit(r);
  ASSERT_EQ(j.copies.size(), 1u);
  EXPECT_EQ(j.copies[0].cluster, "b");
  EXPECT_EQ(j.id, "n/g1");
  // Ranked by paper 004's SED, as asked (b: no wait, delay = run).
  EXPECT_NE(j.history[0].what.find("rank 1 by SED (100 s)"), std::string::npos)
      << j.history[0].what;
  poll();
  EXPECT_EQ(show(j.id).state, grid_job_state::running);
  advance(100);
  poll();
  auto done = show(j.id);
  EXPECT_EQ(done.state, grid_job_state::completed);
  EXPECT_EQ(done.ended, now);
  EXPECT_EQ(ours_in("b"), 0u);
}

// Issue 33: a half-busy cluster that can start the job at once, and a full one: by default the
// job goes where it starts first. SED (W_max x ceil(busy / CPUs)) takes both for busy and sends
// it to the full cluster, whose W_max is the shorter; it stays a named ranking.
TEST_F(grid_jobs_test, ByDefaultAJobGoesWhereItsPlannedStartIsEarliestNotWhereSedPointsIt) {
  add_cluster("a", 16, 1000);
  add_cluster("b", 16, 1000);
  busy("a", 16, 1000, 500);  // full for 500 s
  busy("b", 8, 3000, 3000);  // half busy: room for the job now
  start_manager();
  auto j = submit(job(grid_strategy::single, 4, 100));
  ASSERT_EQ(j.copies.size(), 1u);
  EXPECT_EQ(j.copies[0].cluster, "b");
  EXPECT_NE(j.history[0].what.find("by TTD (100 s)"), std::string::npos) << j.history[0].what;
  auto r = job(grid_strategy::single, 4, 100);
  r.ranking = grid_ranking::sed;
  auto k = submit(r);
  ASSERT_EQ(k.copies.size(), 1u);
  EXPECT_EQ(k.copies[0].cluster, "a");  // SED: 1000 x 1 + 100 against 3000 x 1 + 100
}

TEST_F(grid_jobs_test, FloodKeepsTheFirstCopyToRunAndLeavesNoOtherInAnyQueue) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  add_cluster("c", 8, 1000);
  busy("a", 8, 1000, 50);  // frees first (its walltime says otherwise)
  busy("b", 8, 1000, 500);
  busy("c", 8, 2000, 2000);  // ranked last: no copy
  start_manager();
  auto j = submit(job(grid_strategy::flood));
  ASSERT_EQ(j.copies.size(), 2u);
  EXPECT_EQ(ours_in("a") + ours_in("b"), 2u);
  EXPECT_EQ(ours_in("c"), 0u);
  advance(50);  // a's local job ends; the copy there starts
  poll();
  auto s = show(j.id);
  EXPECT_EQ(s.state, grid_job_state::running);
  ASSERT_GE(s.winner, 0);
  EXPECT_EQ(s.copies[static_cast<std::size_t>(s.winner)].cluster, "a");
  EXPECT_EQ(ours_in("a"), 1u);
  EXPECT_EQ(ours_in("b"), 0u);  // cancelled from b's queue
  EXPECT_EQ(s.duplicate_starts, 0);
  EXPECT_EQ(counters->copies_cancelled.load(), 1);
}

TEST_F(grid_jobs_test, FloodCopiesThatBothStartAreDetectedAndOneIsCancelled) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  start_manager();
  // Both clusters are idle: both copies start at once (before any cancel can land).
  auto j = submit(job(grid_strategy::flood));
  poll();
  auto s = show(j.id);
  EXPECT_EQ(s.state, grid_job_state::running);
  EXPECT_EQ(s.duplicate_starts, 1);
  EXPECT_EQ(ours_in("a") + ours_in("b"), 1u);  // the job runs exactly once from now on
  EXPECT_EQ(counters->duplicate_starts.load(), 1);
}

TEST_F(grid_jobs_test, CancelDuringAFloodCancelsEveryCopy) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  busy("a", 8, 1000, 1000);
  busy("b", 8, 1000, 1000);
  start_manager();
  auto j = submit(job(grid_strategy::flood));
  EXPECT_EQ(ours_in("a") + ours_in("b"), 2u);
  auto rep = ask<msg::grid_job_reply>(jobs, msg::grid_cancel_request{"alice", j.id});
  ASSERT_TRUE(rep.error.ok()) << rep.error.message;
  EXPECT_EQ(rep.job.state, grid_job_state::cancelled);
  EXPECT_EQ(ours_in("a") + ours_in("b"), 0u);
  auto again = ask<msg::grid_job_reply>(jobs, msg::grid_cancel_request{"alice", j.id});
  EXPECT_EQ(again.error.err(), errc::illegal_transition);
}

TEST_F(grid_jobs_test, AdaptiveJobMigratesWhenAnotherQueueDrainsAndRunsOnce) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  busy("a", 8, 1000, 1000);
  busy("b", 8, 2000, 200);  // says 2000 s, ends after 200
  start_manager();
  auto j = submit(job(grid_strategy::adaptive));
  ASSERT_EQ(j.copies[0].cluster, "a");
  adapt();  // nothing better yet
  EXPECT_EQ(show(j.id).migrations, 0);
  advance(200);
  adapt();
  auto s = show(j.id);
  EXPECT_EQ(s.migrations, 1);
  EXPECT_EQ(s.migration_gain, 800);  // a: 800 s wait left; b: free now
  ASSERT_EQ(s.copies.size(), 2u);
  EXPECT_EQ(s.copies[1].cluster, "b");
  EXPECT_EQ(s.copies[0].state, copy_state::cancelled);
  EXPECT_EQ(ours_in("a"), 0u);
  EXPECT_EQ(ours_in("b"), 1u);
  poll();
  EXPECT_EQ(show(j.id).state, grid_job_state::running);
  adapt();  // running: no more adaptation
  EXPECT_EQ(show(j.id).copies.size(), 2u);
}

TEST_F(grid_jobs_test, MinGainDampsMigration) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  busy("a", 8, 1000, 1000);
  busy("b", 8, 2000, 200);
  start_manager();
  auto r = job(grid_strategy::adaptive);
  r.min_gain = 900;
  auto j = submit(r);
  advance(200);
  adapt();
  EXPECT_EQ(show(j.id).migrations, 0);
}

// A cluster that leaves the grid keeps its copies for lost_after (its agent may come back
// with them); past it they are lost, and the flood goes on with the others.
TEST_F(grid_jobs_test, ACopyOnAClusterThatDiesIsLostAfterTheGraceAndTheFloodGoesOn) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  busy("a", 8, 1000, 1000);
  busy("b", 8, 1000, 500);
  start_manager();
  auto j = submit(job(grid_strategy::flood));
  self->send_exit(services.at("a"), caf::exit_reason::kill);
  sched.run();
  auto at_a = [&](const msg::grid_job_info& s) {
    return s.copies[0].cluster == "a" ? s.copies[0] : s.copies[1];
  };
  EXPECT_EQ(at_a(show(j.id)).state, copy_state::queued);
  advance(299);
  poll();
  EXPECT_EQ(at_a(show(j.id)).state, copy_state::queued);
  advance(1);
  poll();
  auto s = show(j.id);
  EXPECT_EQ(s.state, grid_job_state::queued);
  EXPECT_EQ(at_a(s).state, copy_state::failed);
  EXPECT_TRUE(at_a(s).lost);
  EXPECT_EQ(s.resubmits, 0);  // b's copy is still in the running
  advance(200);
  poll();
  EXPECT_EQ(show(j.id).state, grid_job_state::running);
}

// Issue 35: a job whose cluster dies under it is placed again elsewhere past the grace, and
// runs to its end there.
TEST_F(grid_jobs_test, AJobWhoseClusterDiesIsPlacedAgainElsewhereAndRunsToItsEnd) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  busy("b", 8, 1000, 400);
  start_manager();
  auto j = submit(job(grid_strategy::single));
  ASSERT_EQ(j.copies.at(0).cluster, "a");
  poll();
  ASSERT_EQ(show(j.id).state, grid_job_state::running);
  self->send_exit(services.at("a"), caf::exit_reason::kill);
  sched.run();
  advance(300);
  poll();  // lost at a, placed at b
  auto again = show(j.id);
  ASSERT_EQ(again.copies.size(), 2u);
  EXPECT_EQ(again.copies[1].cluster, "b");
  EXPECT_EQ(again.state, grid_job_state::queued);
  EXPECT_EQ(again.resubmits, 1);
  EXPECT_EQ(counters->resubmits, 1);
  advance(100);  // b's local job ends at 400
  poll();
  EXPECT_EQ(show(j.id).state, grid_job_state::running);
  advance(100);
  poll();
  auto done = show(j.id);
  EXPECT_EQ(done.state, grid_job_state::completed);
  EXPECT_EQ(done.winner, 1);
  EXPECT_EQ(ours_in("b"), 0u);
}

TEST_F(grid_jobs_test, RecoveryWatchesJobsAgainAndSettlesAFloodDecidedWhileDown) {
  use_memory_store();
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  busy("a", 8, 1000, 50);
  busy("b", 8, 1000, 500);
  start_manager();
  auto j = submit(job(grid_strategy::flood));
  // The node stops; a's copy starts while nobody watches.
  self->send_exit(jobs, caf::exit_reason::kill);
  sched.run();
  advance(50);
  start_manager();  // the first round runs at start
  auto s = show(j.id);
  EXPECT_EQ(s.state, grid_job_state::running);
  EXPECT_EQ(ours_in("b"), 0u);  // no orphan copy left behind
  EXPECT_EQ(ours_in("a"), 1u);
  // New ids continue after the recovered ones.
  EXPECT_EQ(submit(job(grid_strategy::single, 1)).id, "n/g2");
}

// An ended job leaves the manager's memory (and its list) after ended_in_memory and stays
// in the store, where the node finds it for `show`; ids go on after it across a restart.
TEST_F(grid_jobs_test, EndedJobsLeaveMemoryAndStayInTheStore) {
  use_memory_store();
  ended_in_memory = 600;
  add_cluster("a", 8, 1000);
  start_manager();
  auto j = submit(job(grid_strategy::single, 8, 100));
  poll();
  advance(100);
  poll();
  ASSERT_EQ(show(j.id).state, grid_job_state::completed);
  const timestamp ended = now;
  auto listed = ask<msg::grid_list_reply>(jobs, msg::grid_list_request{"alice", "", ""});
  EXPECT_EQ(listed.jobs.size(), 1u);  // recently ended: still listed
  advance(599);
  poll();
  EXPECT_TRUE(ask<msg::grid_job_reply>(jobs, msg::grid_query_request{"alice", j.id}).error.ok());
  const auto single = static_cast<std::size_t>(grid_strategy::single);
  const auto completed = static_cast<std::size_t>(grid_job_state::completed);
  EXPECT_EQ(counters->jobs[single][completed].load(), 1);
  advance(1);
  poll();
  EXPECT_EQ(ask<msg::grid_job_reply>(jobs, msg::grid_query_request{"alice", j.id}).error.err(),
            errc::not_found);
  EXPECT_EQ(counters->jobs[single][completed].load(), 0);  // the gauge: jobs held
  EXPECT_TRUE(
      ask<msg::grid_list_reply>(jobs, msg::grid_list_request{"alice", "", ""}).jobs.empty());
  auto row = journal->find_grid_job(j.id);
  ASSERT_TRUE(row && *row);
  EXPECT_FALSE((*row)->active);
  EXPECT_EQ((*row)->ended, ended);
  EXPECT_TRUE(journal->grid_jobs()->empty());  // a restart recovers nothing
  self->send_exit(jobs, caf::exit_reason::kill);
  sched.run();
  start_manager();
  EXPECT_EQ(submit(job(grid_strategy::single, 1)).id, "n/g2");  // not n/g1 again
}

TEST_F(grid_jobs_test, AtMostSoManyEndedJobsStayInMemoryTheOldestLeaveFirst) {
  ended_in_memory_max = 1;
  add_cluster("a", 8, 1000);
  start_manager();
  auto first = submit(job(grid_strategy::single, 8, 100));
  poll();
  advance(100);
  poll();
  auto second = submit(job(grid_strategy::single, 8, 100));
  poll();
  advance(100);
  poll();
  EXPECT_EQ(show(second.id).state, grid_job_state::completed);
  poll();  // ended jobs leave at the start of a round
  EXPECT_EQ(show(second.id).state, grid_job_state::completed);
  EXPECT_EQ(ask<msg::grid_job_reply>(jobs, msg::grid_query_request{"alice", first.id}).error.err(),
            errc::not_found);  // without a store: gone
  auto running = submit(job(grid_strategy::single, 8, 100));
  poll();
  EXPECT_EQ(show(running.id).state, grid_job_state::running);  // active ones always stay
}

TEST_F(grid_jobs_test, OwnersOnlyAndAdminsSeeEverything) {
  add_cluster("a", 8, 1000);
  start_manager();
  auto j = submit(job(grid_strategy::single, 1));
  auto other = ask<msg::grid_job_reply>(jobs, msg::grid_query_request{"bob", j.id});
  EXPECT_EQ(other.error.err(), errc::not_found);
  auto cancel = ask<msg::grid_job_reply>(jobs, msg::grid_cancel_request{"bob", j.id});
  EXPECT_EQ(cancel.error.err(), errc::not_found);
  EXPECT_EQ(show(j.id, "").id, j.id);  // an admin's empty user
  auto bobs = ask<msg::grid_list_reply>(jobs, msg::grid_list_request{"bob", "", ""});
  EXPECT_TRUE(bobs.jobs.empty());
  auto all = ask<msg::grid_list_reply>(jobs, msg::grid_list_request{"", "", "a"});
  EXPECT_EQ(all.jobs.size(), 1u);
  auto bad = ask<msg::grid_list_reply>(jobs, msg::grid_list_request{"", "runing", ""});
  EXPECT_EQ(bad.error.err(), errc::invalid_parameter);
}

TEST_F(grid_jobs_test, BadRequestsAreRefusedAndChangeNothing) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 4, 1000);
  start_manager();
  auto r = job(grid_strategy::flood);
  r.width = 17;
  EXPECT_EQ(ask<msg::grid_job_reply>(jobs, r).error.err(), errc::invalid_parameter);
  r = job(grid_strategy::single, 9);
  auto big = ask<msg::grid_job_reply>(jobs, r);
  EXPECT_EQ(big.error.err(), errc::infeasible);
  EXPECT_NE(big.error.message.find("larger than every cluster"), std::string::npos);
  r = job(grid_strategy::single);
  r.clusters = {"nowhere"};
  EXPECT_EQ(ask<msg::grid_job_reply>(jobs, r).error.err(), errc::not_found);
  r = job(grid_strategy::single);
  r.benchmarks = {{"linpack", -1, 10}};
  EXPECT_EQ(ask<msg::grid_job_reply>(jobs, r).error.err(), errc::invalid_parameter);
  r.benchmarks = {{"linpack", 10, 10}};  // no cluster publishes it
  EXPECT_EQ(ask<msg::grid_job_reply>(jobs, r).error.err(), errc::infeasible);
  auto all = ask<msg::grid_list_reply>(jobs, msg::grid_list_request{"", "", ""});
  EXPECT_TRUE(all.jobs.empty());
  EXPECT_EQ(ours_in("a") + ours_in("b"), 0u);
}

TEST_F(grid_jobs_test, ReserveHoldsAtTheBestClustersKeepsTheEarliestFinishAndRunsInIt) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  add_cluster("c", 8, 1000);
  busy("a", 8, 1000, 1000);
  busy("b", 8, 500, 500);
  busy("c", 8, 3000, 3000);  // third: no hold there
  start_manager();
  auto j = submit_reserve(2);
  ASSERT_EQ(j.copies.size(), 1u);
  EXPECT_EQ(j.copies[0].cluster, "b");
  EXPECT_FALSE(j.reservation.empty());
  EXPECT_EQ(lrms_reservations("a"), 0u);  // the other hold was released
  EXPECT_EQ(lrms_reservations("b"), 1u);
  EXPECT_EQ(lrms_reservations("c"), 0u);
  auto held = ask<msg::query_reply>(services.at("b"), msg::query_request{"alice", j.reservation});
  ASSERT_TRUE(held.error.ok()) << held.error.message;
  EXPECT_EQ(held.info.state, reservation_state::committed);
  EXPECT_EQ(held.info.start, now + 500);
  advance(500);
  poll();
  auto s = show(j.id);
  EXPECT_EQ(s.state, grid_job_state::running);
  EXPECT_EQ(s.started, now);
  // Cancelling the job releases its reservation too.
  ASSERT_TRUE(ask<msg::grid_job_reply>(jobs, msg::grid_cancel_request{"alice", j.id}).error.ok());
  EXPECT_EQ(ours_in("b"), 0u);
  EXPECT_EQ(lrms_reservations("b"), 0u);
}

// Issue 33: a reserve job cancelled just before the node was killed: the cancel of its
// reservation had not reached the cluster. The obligation is in the store with the job, so
// the restarted manager cancels the reservation (it stayed committed and charged before).
TEST_F(grid_jobs_test, AReserveJobsReservationIsReleasedAfterARestartIfItsCancelWasLost) {
  use_memory_store();
  add_cluster("a", 8, 1000);
  auto made = ask<msg::elastic_reply>(broker, elastic(600, 3600, 8, 8, 600, 8));
  ASSERT_TRUE(made.error.ok()) << made.error.message;
  ASSERT_EQ(lrms_reservations("a"), 1u);
  msg::grid_job_record rec;
  rec.request = job(grid_strategy::reserve);
  rec.job.id = "n/g1";
  rec.job.owner = "alice";
  rec.job.spec = {"sim", "./run", 8, 100, grid_strategy::reserve, 2, 0, -1};
  rec.job.submitted = now;
  rec.job.reservation = made.reservation.id;
  (void)rec.job.cancel(now);  // no copy yet: cancelled at once
  ASSERT_EQ(rec.job.state, grid_job_state::cancelled);
  rec.job.reservation_to_release = true;
  ASSERT_TRUE(rec.job.active());  // kept among the active rows until the release is done
  ASSERT_TRUE(journal->save_grid_job({"n/g1", "alice", true, msg::encode_record(rec)}));
  start_manager();
  poll();
  EXPECT_EQ(lrms_reservations("a"), 0u);
  auto q =
      ask<msg::query_reply>(services.at("a"), msg::query_request{"alice", made.reservation.id});
  EXPECT_EQ(q.info.state, reservation_state::cancelled) << q.error.message;
  // Done: the job is stored as ended, and a later restart has nothing to release.
  auto rows = journal->grid_jobs();
  ASSERT_TRUE(rows);
  EXPECT_TRUE(rows->empty());
  auto stored = journal->find_grid_job("n/g1");
  ASSERT_TRUE(stored && *stored);
  EXPECT_FALSE(msg::decode_record((*stored)->body)->job.reservation_to_release);
}

// Issue 33: a reserve job's history names each cluster that granted no hold, and why (it
// did only when none granted one).
TEST_F(grid_jobs_test, AReserveJobsHistoryNamesEveryRefusedHold) {
  add_cluster("a", 8, 1000, 1, 1.0, [](msg::cluster_info& c) { c.max_hold = 30; });
  add_cluster("b", 8, 1000);
  start_manager();
  auto j = submit_reserve(2);
  ASSERT_EQ(j.copies.size(), 1u);
  EXPECT_EQ(j.copies[0].cluster, "b");
  bool named = false;
  for (const auto& e : j.history)
    named = named || e.what.rfind("no hold at a: ", 0) == 0;
  EXPECT_TRUE(named) << "history: " << [&] {
    std::string all;
    for (const auto& e : j.history)
      all += e.what + " | ";
    return all;
  }();
}

// Issue 33: both copies of a flood started between two polls. The winner is the copy that
// started first in its LRMS, whichever cluster answers the poll first (a answers first here,
// and its copy started 30 s after b's: a's copy won before).
TEST_F(grid_jobs_test, AFloodsWinnerIsTheCopyThatStartedFirst) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  busy("a", 8, 1000, 50);
  busy("b", 8, 1000, 20);
  start_manager();
  auto j = submit(job(grid_strategy::flood));
  ASSERT_EQ(j.copies.size(), 2u);
  const timestamp submitted = now;
  advance(60);
  poll();
  auto s = show(j.id);
  ASSERT_TRUE(s.winner >= 0) << s.history.back().what;
  const auto& w = s.copies[static_cast<std::size_t>(s.winner)];
  EXPECT_EQ(w.cluster, "b");
  EXPECT_EQ(w.started, submitted + 20);
  EXPECT_EQ(s.started, submitted + 20);
  EXPECT_EQ(ours_in("a"), 0u);  // the later start is the duplicate, cancelled
  EXPECT_EQ(ours_in("b"), 1u);
}

TEST_F(grid_jobs_test, BenchmarksChooseTheFasterClusterAndSetItsWalltime) {
  add_cluster("slow", 8, 1000);
  add_cluster("fast", 8, 1000);
  start_manager();
  // Benchmarks and bandwidth are what the GIS publishes: register them again with them.
  for (auto [name, result] : {std::pair{"slow", 10.0}, std::pair{"fast", 20.0}}) {
    msg::cluster_info c;
    c.name = name;
    c.cpus = 8;
    c.pp = 1000;
    c.benchmark_names = {"linpack"};
    c.benchmark_results = {result};
    c.bandwidth = 1000;
    ASSERT_TRUE(ask<msg::ack_reply>(gis, register_atom::value, c, services.at(name)).error.ok());
  }
  auto r = job(grid_strategy::single);
  r.walltime = 0;
  r.benchmarks = {{"linpack", 10, 1000}};
  r.inputs = {{"gsiftp://x/in", 50'000}};  // 50 s at 1000 B/s
  auto j = submit(r);
  ASSERT_EQ(j.copies.size(), 1u);
  EXPECT_EQ(j.copies[0].cluster, "fast");
  EXPECT_NE(j.history[0].what.find("TTD (550 s)"), std::string::npos) << j.history[0].what;
  auto snap = lrms.at("fast")->snapshot();
  ASSERT_EQ(snap->running.size() + snap->queued.size(), 1u);
  const auto& lj = snap->running.empty() ? snap->queued[0] : snap->running[0];
  EXPECT_EQ(lj.walltime, 500);  // the largest benchmark estimate on this cluster
}

TEST_F(grid_jobs_test, RecoveryFindsACopyWhoseSubmissionWasNeverAnsweredByItsName) {
  use_memory_store();
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  busy("a", 8, 1000, 1000);
  busy("b", 8, 1000, 1000);
  // The node wrote a flood of two copies, submitted the one to a, and died before it heard
  // back; the one to b never left.
  const auto rec = testing::unanswered_flood("n/g1", now);
  ASSERT_TRUE(journal->save_grid_job({"n/g1", "alice", true, msg::encode_record(rec)}));
  auto orphan = lrms.at("a")->submit_job({"arb-g1.0", "alice", 8, 100, {}, "./run"});
  ASSERT_TRUE(orphan);
  start_manager();
  auto s = show("n/g1");
  ASSERT_EQ(s.copies.size(), 2u);
  EXPECT_EQ(s.copies[0].lrms_id, *orphan);  // adopted, watched from now on
  EXPECT_EQ(s.copies[0].state, copy_state::queued);
  EXPECT_EQ(s.copies[1].state, copy_state::failed);
  EXPECT_EQ(s.state, grid_job_state::queued);
  // A cancel now reaches the adopted copy: nothing is left behind.
  ASSERT_TRUE(ask<msg::grid_job_reply>(jobs, msg::grid_cancel_request{"alice", "n/g1"}).error.ok());
  EXPECT_EQ(ours_in("a"), 0u);
}

// Issue 35: when none of the best k clusters grants a hold, the next k are asked; with
// fallback_flood, a job no cluster grants a hold runs as a flood of the best k instead.
TEST_F(grid_jobs_test, AReserveJobAsksTheNextClustersWhenTheBestRefuseEveryHold) {
  const auto short_holds = [](msg::cluster_info& c) { c.max_hold = 30; };
  add_cluster("a", 8, 1000, 1, 1.0, short_holds);
  add_cluster("b", 8, 1000, 1, 1.0, short_holds);
  add_cluster("c", 8, 1000);
  busy("c", 8, 200, 200);  // ranked third: it starts the job 200 s later
  start_manager();
  auto j = submit_reserve(2);
  ASSERT_EQ(j.copies.size(), 1u);
  EXPECT_EQ(j.copies[0].cluster, "c");
  EXPECT_EQ(j.reservation.rfind("c/", 0), 0u) << j.reservation;
  bool next = false;
  for (const auto& e : j.history)
    next = next || e.what.find("holds asked at the next: c") != std::string::npos;
  EXPECT_TRUE(next);
  EXPECT_EQ(lrms_reservations("a") + lrms_reservations("b"), 0u);
  EXPECT_EQ(lrms_reservations("c"), 1u);
}

TEST_F(grid_jobs_test, AReserveJobWithNoHoldAnywhereFailsOrRunsAsAFloodIfAsked) {
  const auto short_holds = [](msg::cluster_info& c) { c.max_hold = 30; };
  add_cluster("a", 8, 1000, 1, 1.0, short_holds);
  add_cluster("b", 8, 1000, 1, 1.0, short_holds);
  start_manager();
  auto r = job(grid_strategy::reserve);
  r.width = 2;
  auto refused = ask<msg::grid_job_reply>(jobs, r);
  EXPECT_EQ(refused.job.state, grid_job_state::failed);
  EXPECT_NE(refused.error.message.find("no cluster granted a hold"), std::string::npos)
      << refused.error.message;
  r.fallback_flood = true;
  auto j = submit(r);
  EXPECT_EQ(j.strategy, grid_strategy::flood);
  ASSERT_EQ(j.copies.size(), 2u);
  EXPECT_EQ(j.state, grid_job_state::queued);
  EXPECT_TRUE(j.reservation.empty());
  EXPECT_EQ(counters->jobs[static_cast<int>(grid_strategy::flood)]
                          [static_cast<int>(grid_job_state::queued)],
            1);
  EXPECT_EQ(counters->jobs[static_cast<int>(grid_strategy::reserve)]
                          [static_cast<int>(grid_job_state::pending)],
            0);
  poll();
  auto s = show(j.id);
  EXPECT_EQ(s.state, grid_job_state::running);  // the first copy to start won
  EXPECT_EQ(ours_in("a") + ours_in("b"), 1u);   // the other was cancelled
}

// Issue 35: a job that names the CPU power its walltime holds for (paper 004 eq. 1-3) runs
// where it finishes first: on the faster of two idle clusters, for the walltime scaled there.
TEST_F(grid_jobs_test, AReferencePowerSendsAJobToTheFasterClusterWithItsScaledWalltime) {
  add_cluster("a", 8, 1.0);
  add_cluster("b", 8, 4.0);
  start_manager();
  auto r = job(grid_strategy::single, 8, 400);
  auto plain = submit(r);  // no reference: 400 s everywhere, ties by name
  EXPECT_EQ(plain.copies.at(0).cluster, "a");
  r.pp_ref = 2.0;
  auto j = submit(r);
  ASSERT_EQ(j.copies.size(), 1u);
  EXPECT_EQ(j.copies[0].cluster, "b");  // 400 x 2 / 4 = 200 s there, 800 s on a
  EXPECT_NE(j.history[0].what.find("(200 s)"), std::string::npos) << j.history[0].what;
  auto s = lrms.at("b")->snapshot();
  ASSERT_TRUE(s);
  bool limited = false;
  for (const auto* list : {&s->running, &s->queued})
    for (const auto& x : *list)
      limited = limited || (x.owner == "alice" && x.walltime == 200);
  EXPECT_TRUE(limited) << "the LRMS got the scaled walltime";
}

// Issue 35 item 4: a job that needs a node feature and memory goes only where enough CPUs
// offer both, even when another cluster would start it sooner; the LRMS gets the needs; a job
// no cluster can host is refused naming each cluster's reason.
TEST_F(grid_jobs_test, AJobRunsOnlyWhereItsNodesHaveTheFeaturesAndTheMemory) {
  add_cluster("a", 8, 1000, 1, 1.0, [](msg::cluster_info& c) {
    c.nodes = {{2, 4, 4096, {}}};  // no feature: sooner, but not for this job
  });
  add_cluster("b", 8, 1000, 1, 1.0, [](msg::cluster_info& c) {
    c.nodes = {{1, 4, 4096, {}}, {1, 4, 16384, {"ib"}}};
  });
  busy("b", 4, 500, 500);  // b starts an 8-CPU job only in 500 s
  start_manager();
  auto r = job(grid_strategy::single, 4, 100);
  r.features = {"ib"};
  r.mem_per_cpu = 2048;
  auto j = submit(r);
  ASSERT_EQ(j.copies.size(), 1u);
  EXPECT_EQ(j.copies[0].cluster, "b");
  EXPECT_EQ(j.features, std::vector<std::string>{"ib"});
  EXPECT_EQ(j.mem_per_cpu, 2048);
  // The needs went to the LRMS: the simulated one refuses what its nodes cannot take, as a
  // real one does, so the copy exists only because they fit; a job asking more is refused.
  EXPECT_EQ(ours_in("b"), 1u);
  auto refused = [&](msg::grid_submit_request q) {
    auto rep = ask<msg::grid_job_reply>(jobs, std::move(q));
    EXPECT_FALSE(rep.error.ok());
    return rep.error.message;
  };
  auto too_much = r;
  too_much.mem_per_cpu = 8192;  // 16 GiB nodes hold 2 CPUs at 8 GiB
  const auto why = refused(too_much);
  EXPECT_NE(why.find("a: offers no feature ib"), std::string::npos) << why;
  EXPECT_NE(why.find("b: has 2 CPUs with ib with 8192 MiB each, the job needs 4"),
            std::string::npos)
      << why;
  auto reserve = r;
  reserve.strategy = grid_strategy::reserve;  // a reservation takes any node of b
  EXPECT_NE(refused(reserve).find("not every node has ib"), std::string::npos);
  auto os = r;
  os.features.clear();
  os.os = "linux";
  EXPECT_NE(refused(os).find("runs an unnamed OS, not linux"), std::string::npos);
  auto both = r;
  both.mem_per_node = 1024;
  EXPECT_NE(refused(both).find("name one of them"), std::string::npos);
  EXPECT_EQ(ours_in("a") + ours_in("b"), 1u);  // the refusals changed nothing
}

// Issue 35: a reserve job whose cluster dies with the job in its reservation is placed again
// by its strategy past the grace: a new hold elsewhere, the old reservation let go, the job
// bound into the new one and run to its end there, once.
TEST_F(grid_jobs_test, AReserveJobWhoseClusterDiesGetsANewReservationElsewhereAndRunsThere) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  busy("b", 8, 400, 400);  // a ranks first
  start_manager();
  auto j = submit_reserve(1);
  ASSERT_EQ(j.copies.size(), 1u);
  ASSERT_EQ(j.copies[0].cluster, "a");
  const auto first = j.reservation;
  ASSERT_EQ(first.rfind("a/", 0), 0u) << first;
  advance(10);
  poll();
  ASSERT_EQ(show(j.id).state, grid_job_state::running);
  self->send_exit(services.at("a"), caf::exit_reason::kill);
  sched.run();
  advance(300);
  poll();  // lost at a: new holds, at b
  auto again = show(j.id);
  EXPECT_EQ(again.resubmits, 1);
  EXPECT_EQ(again.reservation.rfind("b/", 0), 0u) << again.reservation;
  ASSERT_EQ(again.copies.size(), 2u);
  EXPECT_EQ(again.copies[1].cluster, "b");
  EXPECT_TRUE(again.copies[0].lost);
  bool let_go = false, said = false;
  for (const auto& e : again.history) {
    let_go = let_go || e.what == "reservation " + first + " let go";
    said = said || e.what.find("resubmission 1 of 2: lost at a") != std::string::npos;
  }
  EXPECT_TRUE(let_go);
  EXPECT_TRUE(said);
  EXPECT_EQ(lrms_reservations("b"), 1u);
  advance(100);  // b's local job ends at 410: its reservation starts then
  poll();
  EXPECT_EQ(show(j.id).state, grid_job_state::running);
  advance(200);
  poll();
  auto done = show(j.id);
  EXPECT_EQ(done.state, grid_job_state::completed);
  EXPECT_EQ(done.winner, 1);
  EXPECT_EQ(ours_in("b"), 0u);
}

// An agent's cluster publishing nodes that cannot be is not let into the grid (jobs would
// be placed by them): the GIS refuses it naming the group.
TEST_F(grid_jobs_test, AClusterPublishingImpossibleNodesIsNotRegistered) {
  add_cluster("a", 8, 1000);
  msg::cluster_info info;
  info.name = "odd";
  info.cpus = 8;
  info.nodes = {{2, 4, 1024, {}}, {1, 0, 1024, {}}};
  auto ack = ask<msg::ack_reply>(gis, register_atom::value, info, services.begin()->second);
  EXPECT_EQ(ack.error.err(), errc::invalid_parameter);
  EXPECT_EQ(ack.error.message,
            "cluster odd: nodes[1]: count 1 and cpus 0: both must be at least 1");
  info.nodes.pop_back();
  EXPECT_TRUE(
      ask<msg::ack_reply>(gis, register_atom::value, info, services.begin()->second).error.ok());
}

}  // namespace
}  // namespace arbroker::testing
