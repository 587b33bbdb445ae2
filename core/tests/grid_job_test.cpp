#include "arbroker/core/grid_job.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace arbroker {
namespace {

using kind = grid_action::kind;

grid_job make_job(grid_strategy s, std::int32_t width = 3) {
  grid_job j;
  j.id = "n/g1";
  j.owner = "alice";
  j.spec.np = 2;
  j.spec.walltime = 600;
  j.spec.strategy = s;
  j.spec.width = width;
  return j;
}

// A flood of three copies, all queued.
grid_job queued_flood() {
  auto j = make_job(grid_strategy::flood);
  for (const char* c : {"a", "b", "c"}) {
    const auto i = j.add_copy(c, 0, "top three");
    EXPECT_TRUE(j.on_submitted(i, std::string("j") + c, 1).empty());
  }
  return j;
}

TEST(GridJob, SpecChecksName) {
  grid_job_spec s;
  s.walltime = 60;
  EXPECT_TRUE(check(s));
  s.np = 0;
  EXPECT_EQ(check(s).err().code, errc::invalid_processor_range);
  s.np = 1;
  s.width = 17;
  EXPECT_NE(check(s).err().message.find("width"), std::string::npos);
  s.width = 3;
  s.walltime = 0;
  EXPECT_EQ(check(s).err().code, errc::invalid_duration);
  s.walltime = 60;
  s.max_migrations = -2;
  EXPECT_EQ(check(s).err().code, errc::invalid_parameter);
}

TEST(GridJob, NamesRoundTrip) {
  for (auto s : {grid_strategy::single, grid_strategy::flood, grid_strategy::adaptive,
                 grid_strategy::reserve})
    EXPECT_EQ(grid_strategy_from(to_string(s)), s);
  EXPECT_FALSE(grid_strategy_from("rmsf"));
  EXPECT_EQ(grid_job_state_from("running"), grid_job_state::running);
}

TEST(GridJob, FirstRunningCopyWinsAndTheOthersAreCancelled) {
  auto j = queued_flood();
  EXPECT_EQ(j.state, grid_job_state::queued);
  const auto acts = j.on_observed(1, observed_state::running, 5, 6);
  ASSERT_EQ(acts.size(), 2u);
  EXPECT_EQ(acts[0], (grid_action{kind::cancel, 0}));
  EXPECT_EQ(acts[1], (grid_action{kind::cancel, 2}));
  EXPECT_EQ(j.state, grid_job_state::running);
  EXPECT_EQ(j.winner, 1u);
  EXPECT_EQ(j.started, 5);
  // Seeing the winner again asks nothing more.
  EXPECT_TRUE(j.on_observed(1, observed_state::running, 5, 7).empty());
  EXPECT_TRUE(j.on_cancel_answer(0, observed_state::queued, 8).empty());
  EXPECT_TRUE(j.on_cancel_answer(2, observed_state::queued, 8).empty());
  EXPECT_EQ(j.live_copies(), 1u);
  EXPECT_EQ(j.duplicate_starts, 0);
  j.on_observed(1, observed_state::completed, std::nullopt, 100);
  EXPECT_EQ(j.state, grid_job_state::completed);
  EXPECT_FALSE(j.active());
}

TEST(GridJob, ACopyThatStartedBeforeItsCancelLandedIsADuplicateStart) {
  auto j = queued_flood();
  (void)j.on_observed(0, observed_state::running, 5, 6);
  // Copy 2 had started too: the cancel kills it and it is counted.
  EXPECT_TRUE(j.on_cancel_answer(2, observed_state::running, 7).empty());
  EXPECT_EQ(j.duplicate_starts, 1);
  EXPECT_EQ(j.copies[2].state, copy_state::cancelled);
  EXPECT_EQ(j.state, grid_job_state::running);
}

TEST(GridJob, ADuplicateObservedRunningIsCancelledOnce) {
  auto j = queued_flood();
  (void)j.on_observed(0, observed_state::running, 5, 6);  // cancels 1 and 2
  // A poll that raced the cancel sees 1 running: counted, no second cancel.
  EXPECT_TRUE(j.on_observed(1, observed_state::running, 6, 7).empty());
  EXPECT_EQ(j.duplicate_starts, 1);
  // The cancel failed (LRMS unreachable): the next sighting sends it again.
  EXPECT_TRUE(j.on_cancel_answer(1, error{errc::unreachable, "down"}, 8).empty());
  EXPECT_EQ(j.on_observed(1, observed_state::running, 6, 9),
            (std::vector<grid_action>{{kind::cancel, 1}}));
  EXPECT_EQ(j.duplicate_starts, 1);
}

TEST(GridJob, AfterARestartCancelsOnTheirWayAreSentAgain) {
  auto j = queued_flood();
  EXPECT_TRUE(j.resend_pending().empty());  // nothing on its way
  (void)j.cancel(3);                        // cancels 0, 1, 2 sent ... and the node stops
  EXPECT_EQ(j.resend_pending(),
            (std::vector<grid_action>{{kind::cancel, 0}, {kind::cancel, 1}, {kind::cancel, 2}}));
  // Answered ones are settled and not sent again.
  (void)j.on_cancel_answer(1, observed_state::queued, 4);
  EXPECT_EQ(j.resend_pending(), (std::vector<grid_action>{{kind::cancel, 0}, {kind::cancel, 2}}));
}

TEST(GridJob, ACopyFirstSeenCompletedRanBetweenTwoLooksAndWins) {
  auto j = queued_flood();
  const auto acts = j.on_observed(2, observed_state::completed, std::nullopt, 50);
  EXPECT_EQ(acts, (std::vector<grid_action>{{kind::cancel, 0}, {kind::cancel, 1}}));
  EXPECT_EQ(j.winner, 2u);
  EXPECT_EQ(j.state, grid_job_state::completed);
  EXPECT_TRUE(j.active());  // until the other two are out of their queues
  // A single job's one copy likewise completes the job.
  auto s = make_job(grid_strategy::single);
  s.add_copy("a", 0, "");
  (void)s.on_submitted(0, std::string("ja"), 1);
  (void)s.on_observed(0, observed_state::completed, std::nullopt, 9);
  EXPECT_EQ(s.state, grid_job_state::completed);
  EXPECT_FALSE(s.active());
}

TEST(GridJob, AllCopiesRefusedFailsWithEveryReason) {
  auto j = make_job(grid_strategy::flood);
  for (const char* c : {"a", "b"})
    j.add_copy(c, 0, "top");
  EXPECT_EQ(j.state, grid_job_state::pending);
  (void)j.on_submitted(0, error{errc::busy, "queue full"}, 1);
  EXPECT_EQ(j.state, grid_job_state::pending);
  (void)j.on_submitted(1, error{errc::permission_denied, "no account"}, 1);
  EXPECT_EQ(j.state, grid_job_state::failed);
  const auto& why = j.history.back().what;
  EXPECT_NE(why.find("queue full"), std::string::npos);
  EXPECT_NE(why.find("no account"), std::string::npos);
}

TEST(GridJob, ACopyThatFailsLeavesTheOthers) {
  auto j = queued_flood();
  (void)j.on_observed(0, observed_state::failed, std::nullopt, 3);
  EXPECT_EQ(j.state, grid_job_state::queued);
  EXPECT_EQ(j.live_copies(), 2u);
}

TEST(GridJob, ClientCancelCancelsEveryCopyIncludingOneStillBeingSubmitted) {
  auto j = make_job(grid_strategy::flood);
  j.add_copy("a", 0, "");
  j.add_copy("b", 0, "");
  (void)j.on_submitted(0, std::string("ja"), 1);
  EXPECT_EQ(j.cancel(2), (std::vector<grid_action>{{kind::cancel, 0}}));
  EXPECT_EQ(j.state, grid_job_state::cancelled);
  EXPECT_TRUE(j.active());  // copies still in queues
  // The late submission is cancelled as soon as its id is known.
  EXPECT_EQ(j.on_submitted(1, std::string("jb"), 3), (std::vector<grid_action>{{kind::cancel, 1}}));
  (void)j.on_cancel_answer(0, observed_state::queued, 4);
  (void)j.on_cancel_answer(1, observed_state::queued, 4);
  EXPECT_FALSE(j.active());
  EXPECT_EQ(j.state, grid_job_state::cancelled);
  EXPECT_TRUE(j.cancel(5).empty());  // twice: nothing more
}

TEST(GridJob, CancellingARunningJobEndsIt) {
  auto j = queued_flood();
  (void)j.on_observed(2, observed_state::running, 5, 6);
  (void)j.on_cancel_answer(0, observed_state::queued, 7);
  (void)j.on_cancel_answer(1, observed_state::queued, 7);
  EXPECT_EQ(j.cancel(8), (std::vector<grid_action>{{kind::cancel, 2}}));
  (void)j.on_cancel_answer(2, observed_state::running, 9);
  EXPECT_EQ(j.duplicate_starts, 0);  // the winner is not a duplicate
  EXPECT_FALSE(j.active());
}

grid_job queued_adaptive() {
  auto j = make_job(grid_strategy::adaptive, 1);
  j.add_copy("a", 0, "best TTD");
  (void)j.on_submitted(0, std::string("ja"), 1);
  return j;
}

TEST(GridJob, MigrationSubmitsFirstThenWithdrawsTheOldCopy) {
  auto j = queued_adaptive();
  ASSERT_TRUE(j.can_migrate());
  const auto n = j.migrate("b", 400, 10);
  EXPECT_FALSE(j.can_migrate());  // one migration at a time
  EXPECT_EQ(j.on_submitted(n, std::string("jb"), 11),
            (std::vector<grid_action>{{kind::withdraw, 0}}));
  EXPECT_TRUE(j.on_cancel_answer(0, observed_state::queued, 12).empty());
  EXPECT_EQ(j.migrations, 1);
  EXPECT_EQ(j.migration_gain, 400);
  EXPECT_EQ(j.only_live_copy(), n);
  EXPECT_EQ(j.state, grid_job_state::queued);
  EXPECT_TRUE(j.can_migrate());
}

TEST(GridJob, OldCopyStartedDuringMigrationStaysAndTheNewOneIsCancelled) {
  auto j = queued_adaptive();
  const auto n = j.migrate("b", 400, 10);
  (void)j.on_submitted(n, std::string("jb"), 11);
  // The withdrawal found the old copy running: it wins, the new copy goes.
  EXPECT_EQ(j.on_cancel_answer(0, observed_state::running, 12),
            (std::vector<grid_action>{{kind::cancel, n}}));
  EXPECT_EQ(j.winner, 0u);
  EXPECT_EQ(j.migrations, 0);
  EXPECT_EQ(j.state, grid_job_state::running);
  (void)j.on_cancel_answer(n, observed_state::queued, 13);
  EXPECT_EQ(j.live_copies(), 1u);
  EXPECT_EQ(j.duplicate_starts, 0);
}

TEST(GridJob, RefusedMigrationKeepsTheOldCopy) {
  auto j = queued_adaptive();
  const auto n = j.migrate("b", 400, 10);
  EXPECT_TRUE(j.on_submitted(n, error{errc::busy, "full"}, 11).empty());
  EXPECT_EQ(j.only_live_copy(), 0u);
  EXPECT_TRUE(j.can_migrate());
  EXPECT_EQ(j.state, grid_job_state::queued);
}

TEST(GridJob, MaxMigrationsStopsAdapting) {
  auto j = queued_adaptive();
  j.spec.max_migrations = 1;
  const auto n = j.migrate("b", 100, 10);
  (void)j.on_submitted(n, std::string("jb"), 11);
  (void)j.on_cancel_answer(0, observed_state::queued, 12);
  EXPECT_FALSE(j.can_migrate());
}

TEST(GridJob, NoAdaptationOnceRunning) {
  auto j = queued_adaptive();
  (void)j.on_observed(0, observed_state::running, 5, 5);
  EXPECT_FALSE(j.can_migrate());
}

// A reserve job queued in its reservation (a/r1, starting at 500).
grid_job reserved_in_a() {
  auto j = make_job(grid_strategy::reserve, 1);
  j.reservation = "a/r1";
  const auto i = j.add_copy("a", 0, "runs in reservation a/r1");
  j.copies[i].reservation = "a/r1";
  j.copies[i].reserved_start = 500;
  (void)j.on_submitted(i, std::string("ja"), 1);
  return j;
}

TEST(GridJob, AReservedJobMovesOnlyFromAQueuedBoundCopyAtAKnownStart) {
  auto j = reserved_in_a();
  EXPECT_TRUE(j.can_migrate());
  auto unknown = j;
  unknown.copies[0].reserved_start.reset();  // a record written before moves
  EXPECT_FALSE(unknown.can_migrate());
  auto off = j;
  off.spec.max_migrations = 0;
  EXPECT_FALSE(off.can_migrate());
  (void)j.on_observed(0, observed_state::running, 500, 500);
  EXPECT_FALSE(j.can_migrate());
}

// Make-before-break: the old reservation is the job's until the old copy is gone; then it
// is let go (releasing) and the new one is the job's.
TEST(GridJob, AMoveTakesTheNewReservationOnlyOnceTheOldCopyIsWithdrawn) {
  auto j = reserved_in_a();
  j.releasing = {"b/r7"};  // the engine writes a move's commit down first
  const auto n = j.move_into("b", "b/r7", 100, 400, 10);
  EXPECT_EQ(j.copies[n].reservation, "b/r7");
  EXPECT_FALSE(j.can_migrate());
  EXPECT_EQ(j.on_submitted(n, std::string("jb"), 11),
            (std::vector<grid_action>{{kind::withdraw, 0}}));
  EXPECT_EQ(j.reservation, "a/r1");  // both held: the old copy may still start
  EXPECT_TRUE(j.on_cancel_answer(0, observed_state::queued, 12).empty());
  EXPECT_EQ(j.reservation, "b/r7");
  EXPECT_EQ(j.releasing, std::vector<std::string>{"a/r1"});
  EXPECT_EQ(j.migrations, 1);
  EXPECT_EQ(j.only_live_copy(), n);
  EXPECT_TRUE(j.active());
  EXPECT_TRUE(std::any_of(j.history.begin(), j.history.end(), [](const auto& e) {
    return e.what.find("moved to reservation b/r7") != std::string::npos;
  }));
}

TEST(GridJob, AMoveWhoseOldCopyStartedKeepsTheOldReservationAndLetsTheNewOneGo) {
  auto j = reserved_in_a();
  j.releasing = {"b/r7"};
  const auto n = j.move_into("b", "b/r7", 100, 400, 10);
  (void)j.on_submitted(n, std::string("jb"), 11);
  EXPECT_EQ(j.on_cancel_answer(0, observed_state::running, 12),
            (std::vector<grid_action>{{kind::cancel, n}}));
  EXPECT_EQ(j.reservation, "a/r1");
  EXPECT_EQ(j.releasing, std::vector<std::string>{"b/r7"});
  EXPECT_EQ(j.winner, 0u);
}

// The new reservation began first and its copy started before the withdrawal landed: the
// job runs there, in the new reservation, and the old one goes.
TEST(GridJob, AMoveWhoseNewCopyStartsFirstRunsInTheNewReservation) {
  auto j = reserved_in_a();
  j.releasing = {"b/r7"};
  const auto n = j.move_into("b", "b/r7", 100, 400, 10);
  (void)j.on_submitted(n, std::string("jb"), 11);
  (void)j.on_observed(n, observed_state::running, 100, 100);
  EXPECT_EQ(j.winner, n);
  EXPECT_EQ(j.reservation, "b/r7");
  EXPECT_EQ(j.releasing, std::vector<std::string>{"a/r1"});
  EXPECT_TRUE(j.on_cancel_answer(0, observed_state::queued, 101).empty());
  EXPECT_EQ(j.live_copies(), 1u);
  EXPECT_EQ(j.state, grid_job_state::running);
}

TEST(GridJob, ChooseMigrationNeedsMoreThanMinGain) {
  const std::vector<ttd_option> others{{"b", 700}, {"c", 500}, {"d", 500}};
  auto best = choose_migration(1000, others, 0);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->cluster, "c");
  EXPECT_TRUE(choose_migration(1000, others, 499));
  EXPECT_FALSE(choose_migration(1000, others, 500));
  EXPECT_FALSE(choose_migration(500, others, 0));  // equal is no gain
  EXPECT_FALSE(choose_migration(1000, {}, 0));
}

// -- resubmission (issue 35) --------------------------------------------------------------

TEST(GridJob, ResubmissionBudgetsAreChecked) {
  grid_job_spec s;
  s.walltime = 60;
  s.max_resubmits = max_grid_placements;
  EXPECT_TRUE(check(s));
  s.max_resubmits = max_grid_placements + 1;
  EXPECT_NE(check(s).err().message.find("max_resubmits"), std::string::npos);
  s.max_resubmits = 0;
  s.retry_on_failure = -1;
  EXPECT_NE(check(s).err().message.find("retry_on_failure"), std::string::npos);
}

// A flood goes on while a copy of it is still in a queue: one lost copy is not a reason to
// place the job again; the last one is.
TEST(GridJob, AFloodIsPlacedAgainOnlyWhenItsLastCopyIsLost) {
  auto j = queued_flood();
  j.spec.max_resubmits = 1;
  (void)j.on_lost(0, "a left", 10);
  (void)j.on_observed(1, observed_state::failed, std::nullopt, 11);  // refused to run
  EXPECT_EQ(j.state, grid_job_state::queued);
  EXPECT_FALSE(j.to_place);
  (void)j.on_observed(2, observed_state::lost, std::nullopt, 12);
  EXPECT_EQ(j.state, grid_job_state::pending);
  EXPECT_TRUE(j.to_place);
  EXPECT_EQ(j.round_start, 3u);
  EXPECT_EQ(j.failed_at(), (std::vector<std::string>{"a", "c"}));  // b failed by itself
  // The new round's copies are refused everywhere: no loss among them, so it fails.
  const auto i = j.add_copy("b", 13, "placed again");
  EXPECT_FALSE(j.to_place);
  (void)j.on_submitted(i, error{errc::busy, "full"}, 14);
  EXPECT_EQ(j.state, grid_job_state::failed);
}

TEST(GridJob, AWinnerLostWhileRunningIsPlacedAgainAndForgetsItsStart) {
  auto j = make_job(grid_strategy::single);
  j.spec.max_resubmits = 2;
  (void)j.on_submitted(j.add_copy("a", 0, "best"), std::string("ja"), 1);
  (void)j.on_observed(0, observed_state::running, 5, 6);
  ASSERT_EQ(j.winner, std::optional<std::size_t>(0));
  (void)j.on_observed(0, observed_state::lost, std::nullopt, 20);
  EXPECT_EQ(j.state, grid_job_state::pending);
  EXPECT_FALSE(j.winner);
  EXPECT_FALSE(j.started);
  EXPECT_EQ(j.resubmits, 1);
  EXPECT_TRUE(j.copies[0].lost);
  EXPECT_FALSE(j.copies[0].unconfirmed);  // its LRMS said so: known dead
  EXPECT_TRUE(j.active());
  // Placed again, it runs and completes: the job completes, with the second copy as winner.
  (void)j.on_submitted(j.add_copy("b", 21, "placed again"), std::string("jb"), 22);
  (void)j.on_observed(1, observed_state::running, 30, 30);
  (void)j.on_observed(1, observed_state::completed, std::nullopt, 90);
  EXPECT_EQ(j.state, grid_job_state::completed);
  EXPECT_EQ(j.winner, std::optional<std::size_t>(1));
  EXPECT_EQ(j.started, std::optional<timestamp>(30));
}

TEST(GridJob, OwnFailuresAndLossesHaveTheirOwnBudgets) {
  auto j = make_job(grid_strategy::single);
  j.spec.max_resubmits = 1;
  j.spec.retry_on_failure = 0;
  (void)j.on_submitted(j.add_copy("a", 0, "best"), std::string("ja"), 1);
  (void)j.on_observed(0, observed_state::running, 2, 2);
  (void)j.on_observed(0, observed_state::failed, std::nullopt, 50);  // exit 1: no retry asked
  EXPECT_EQ(j.state, grid_job_state::failed);
  EXPECT_EQ(j.resubmits, 0);
  EXPECT_FALSE(j.active());
}

// A copy given up unconfirmed (its cluster silent) keeps the job active until its cluster
// says where it is; found running it is cancelled and counted, found ended it is settled.
TEST(GridJob, AnUnconfirmedCopyIsCancelledIfFoundAndSettledIfEnded) {
  auto j = make_job(grid_strategy::single);
  j.spec.max_resubmits = 1;
  (void)j.on_submitted(j.add_copy("a", 0, "best"), std::string("ja"), 1);
  (void)j.on_lost(0, "a could not be asked for 300 s", 400, true);
  EXPECT_TRUE(j.copies[0].unconfirmed);
  (void)j.on_submitted(j.add_copy("b", 401, "placed again"), std::string("jb"), 402);
  (void)j.on_observed(1, observed_state::running, 410, 410);
  (void)j.on_observed(1, observed_state::completed, std::nullopt, 500);
  EXPECT_EQ(j.state, grid_job_state::completed);
  EXPECT_TRUE(j.active());  // a has not said where its copy is
  auto acts = j.on_found_again(0, "ja", 600);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0], (grid_action{kind::cancel, 0}));
  EXPECT_TRUE(j.on_found_again(0, "ja", 610).empty());  // once
  (void)j.on_cancel_answer(0, observed_state::running, 620);
  EXPECT_EQ(j.duplicate_starts, 1);  // it ran while the job ran elsewhere
  EXPECT_FALSE(j.copies[0].unconfirmed);
  EXPECT_FALSE(j.active());
  // Found ended instead: settled without a cancel.
  auto k = make_job(grid_strategy::single);
  (void)k.on_submitted(k.add_copy("a", 0, "best"), std::string("ka"), 1);
  (void)k.on_lost(0, "a silent", 400, true);
  EXPECT_TRUE(k.on_found_again(0, "", 500).empty());
  EXPECT_FALSE(k.copies[0].unconfirmed);
  EXPECT_EQ(k.state, grid_job_state::failed);  // no budget: max_resubmits 0
}

TEST(GridJob, ACancelledJobIsNeverPlacedAgain) {
  auto j = make_job(grid_strategy::single);
  j.spec.max_resubmits = 3;
  (void)j.on_submitted(j.add_copy("a", 0, "best"), std::string("ja"), 1);
  (void)j.cancel(5);
  (void)j.on_observed(0, observed_state::lost, std::nullopt, 6);
  EXPECT_EQ(j.state, grid_job_state::cancelled);
  EXPECT_FALSE(j.to_place);
}

}  // namespace
}  // namespace arbroker
