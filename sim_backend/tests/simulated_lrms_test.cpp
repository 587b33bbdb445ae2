#include "simulated_lrms_fixture.hpp"

namespace arbroker {
namespace {

using namespace testing_sim;

TEST(SimulatedLrms, CreateValidatesConfig) {
  auto clock = [] { return timestamp{0}; };
  auto code = [](const result<std::unique_ptr<simulated_lrms>>& r) {
    return r ? std::optional<errc>{} : std::optional<errc>{r.err().code};
  };
  EXPECT_EQ(code(simulated_lrms::create({"c", 0, {}, clock})), errc::invalid_processor_range);
  EXPECT_EQ(code(simulated_lrms::create({"c", -4, {}, clock})), errc::invalid_processor_range);
  EXPECT_EQ(code(simulated_lrms::create({"c", 8, {0, {}}, clock})), errc::invalid_processor_range);
  EXPECT_EQ(code(simulated_lrms::create({"c", 8, {1, {4, 0}}, clock})),
            errc::invalid_processor_range);
  EXPECT_EQ(code(simulated_lrms::create({"c", 8, {}, {}})), errc::invalid_parameter);
  auto ok = simulated_lrms::create({"c", 8, {2, {}}, [] { return timestamp{500}; }});
  ASSERT_TRUE(ok);
  EXPECT_EQ((*ok)->kind(), "simulated");
  EXPECT_EQ((*ok)->name(), "c");
  EXPECT_EQ((*ok)->cpus(), 8);
  EXPECT_EQ((*ok)->now(), 500);
  EXPECT_EQ((*ok)->next_event_time(), std::nullopt);
  auto s = (*ok)->snapshot();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->now, 500);
  EXPECT_EQ(s->cpus, 8);
  EXPECT_EQ(s->sizes.bunch, 2);
}

TEST(SimulatedLrms, FreshIds) {
  cluster c(8);
  EXPECT_EQ(*c->create_reservation(rsv(100, 10, 1)), "R1");
  EXPECT_EQ(*c->create_reservation(rsv(100, 10, 1)), "R2");
  EXPECT_EQ(*c->submit_job(job(1, 10)), "J1");
  EXPECT_EQ(*c->submit_job(job(1, 10)), "J2");
  ASSERT_TRUE(c->delete_reservation("R2"));
  EXPECT_EQ(*c->create_reservation(rsv(100, 10, 1)), "R3");  // ids are never reused
}

// A node gives each of its starts its own range: a job of an earlier run is never mistaken
// for one of this run (the earlier one is unknown here, not another job's state).
TEST(SimulatedLrms, IdsStartAfterFirstSerial) {
  timestamp t = 0;
  simulated_lrms_config cfg{"test", 8, {}, [&t] { return t; }};
  cfg.first_serial = 5'000'000'000'000'000'000ULL;
  auto c = simulated_lrms::create(cfg);
  ASSERT_TRUE(c);
  const auto j = *(*c)->submit_job(job(1, 10));
  EXPECT_EQ(j, "J5000000000000000001");
  EXPECT_EQ(*(*c)->create_reservation(rsv(100, 10, 1)), "R5000000000000000001");
  t = 10;
  EXPECT_EQ(*(*c)->job_status(j), lrms_job_state::completed);     // ended: still known
  EXPECT_EQ((*c)->job_status("J1").err().code, errc::not_found);  // an earlier run's
  EXPECT_EQ((*c)->cancel_job("J4999999999999999999").err().code, errc::not_found);
}

// Issue 35 item 4: a simulated cluster with named nodes publishes them and refuses a job no
// node can take, as Slurm does; without nodes, needs are not checked.
TEST(SimulatedLrms, RefusesAJobItsNodesCannotTake) {
  timestamp t = 0;
  simulated_lrms_config cfg{"test", 8, {}, [&t] { return t; }};
  cfg.nodes = {{1, 4, 4096, {}}, {1, 4, 16384, {"ib"}}};
  auto c = simulated_lrms::create(cfg);
  ASSERT_TRUE(c);
  EXPECT_EQ(*(*c)->node_groups(), cfg.nodes);
  auto needing = [](int np, job_requirements needs) {
    auto j = job(np, 10);
    j.needs = std::move(needs);
    return j;
  };
  EXPECT_TRUE((*c)->submit_job(needing(4, {0, 0, {"ib"}, ""})));
  EXPECT_TRUE((*c)->submit_job(needing(8, {1024, 0, {}, ""})));
  auto refused = (*c)->submit_job(needing(5, {0, 0, {"ib"}, ""}));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.err().code, errc::infeasible);
  EXPECT_NE(refused.err().message.find("has 4 CPUs with ib, the job needs 5"), std::string::npos)
      << refused.err().message;
  EXPECT_FALSE((*c)->submit_job(needing(1, {0, 20000, {}, ""})));
  auto plain = simulated_lrms::create({"plain", 8, {}, [&t] { return t; }});
  EXPECT_TRUE((*plain)->node_groups()->empty());
  EXPECT_TRUE((*plain)->submit_job(needing(8, {0, 0, {"ib"}, ""})));
}

// The simulator's cluster failure: every job ends lost (told by an event), the controller
// still answers about them, and nothing new is taken.
TEST(SimulatedLrms, AFailedClusterLosesEveryJobAndTakesNothingMore) {
  timestamp t = 0;
  std::vector<simulated_job_event> events;
  simulated_lrms_config cfg{"test", 8, {}, [&t] { return t; }};
  cfg.on_job_event = [&](const simulated_job_event& e) { events.push_back(e); };
  auto c = simulated_lrms::create(cfg);
  ASSERT_TRUE(c);
  auto& l = **c;
  const auto running = *l.submit_job(job(6, 100));
  const auto queued = *l.submit_job(job(4, 100));
  const auto res = *l.create_reservation({"r", "alice", 200, 100, 2});
  auto bound = job(2, 50);
  bound.reservation = res;
  const auto in_res = *l.submit_job(bound);
  t = 10;
  events.clear();
  l.fail_all_nodes("power cut");
  EXPECT_TRUE(l.failed());
  for (const auto& id : {running, queued, in_res})
    EXPECT_EQ(*l.job_status(id), lrms_job_state::lost) << id;
  EXPECT_EQ(events.size(), 3u);
  for (const auto& e : events) {
    EXPECT_EQ(e.what, simulated_job_event::kind::ended);
    EXPECT_EQ(e.outcome, lrms_job_state::lost);
    EXPECT_EQ(e.time, 10);
  }
  auto jobs = l.jobs_snapshot();
  ASSERT_TRUE(jobs);
  EXPECT_TRUE(jobs->running.empty() && jobs->queued.empty());
  EXPECT_TRUE(l.cancel_job(running));  // ended already: left as it is
  for (const auto& refused : {l.snapshot().err(), l.submit_job(job(1, 10)).err(),
                              l.create_reservation({"r2", "alice", 300, 100, 1}).err(),
                              l.delete_reservation(res).err()}) {
    EXPECT_EQ(refused.code, errc::unreachable);
    EXPECT_EQ(refused.message, "test is down: power cut");
  }
  EXPECT_FALSE(l.next_event_time());
}

TEST(SimulatedLrms, ReservationCapacityConflicts) {
  cluster c(8);
  ASSERT_TRUE(c->create_reservation(rsv(100, 100, 6)));  // [100, 200) x 6
  auto busy = c->create_reservation(rsv(150, 100, 4));   // [150, 250) x 4: 10 at 150
  ASSERT_FALSE(busy);
  EXPECT_EQ(busy.err().code, errc::busy);
  EXPECT_NE(busy.err().message.find("only 2 free"), std::string::npos) << busy.err().message;
  EXPECT_EQ(c->create_reservation(rsv(50, 51, 3)).err().code, errc::busy);  // touches 100
  EXPECT_TRUE(c->create_reservation(rsv(50, 50, 8)));    // [50, 100) ends as it starts
  EXPECT_TRUE(c->create_reservation(rsv(200, 100, 8)));  // [200, 300) starts as it ends
  EXPECT_TRUE(c->create_reservation(rsv(150, 50, 2)));   // the last 2 CPUs of [150, 200)
  EXPECT_EQ(c->create_reservation(rsv(199, 1, 1)).err().code, errc::busy);
  EXPECT_EQ(c->profile().free_at(120), 2);
  EXPECT_EQ(c->profile().free_at(170), 0);
  EXPECT_TRUE(consistent(*c));
}

TEST(SimulatedLrms, RunningJobsBlockReservationsUntilTheirWalltime) {
  cluster c(8);
  const auto j1 = *c->submit_job(job(6, 100));  // runs over [0, 100)
  EXPECT_EQ(state(*c, j1), lrms_job_state::running);
  EXPECT_EQ(c->create_reservation(rsv(50, 100, 4)).err().code, errc::busy);
  EXPECT_TRUE(c->create_reservation(rsv(50, 100, 2)));  // [50, 150) x 2
  EXPECT_TRUE(c->create_reservation(rsv(100, 50, 6)));  // [100, 150) x 6, after J1
  EXPECT_EQ(c->create_reservation(rsv(99, 1, 1)).err().code, errc::busy);
  // Queued jobs hold nothing: a reservation may take the CPUs a queued job waits for.
  const auto j2 = *c->submit_job(job(8, 10));
  EXPECT_EQ(state(*c, j2), lrms_job_state::queued);
  EXPECT_TRUE(c->create_reservation(rsv(150, 10, 8)));  // [150, 160) x 8
  EXPECT_TRUE(consistent(*c));
  c.at(150);
  EXPECT_EQ(state(*c, j1), lrms_job_state::completed);
  EXPECT_EQ(state(*c, j2), lrms_job_state::queued);
  c.at(160);
  EXPECT_EQ(state(*c, j2), lrms_job_state::running);
  EXPECT_EQ(started(*c, j2), 160);
  EXPECT_TRUE(consistent(*c));
}

TEST(SimulatedLrms, FcfsQueueWaitsForAFutureReservation) {
  cluster c(8);
  ASSERT_EQ(*c->create_reservation(rsv(100, 100, 8)), "R1");  // the whole cluster, [100, 200)
  const auto a = *c->submit_job(job(8, 100));                 // [0, 100): ends as R1 starts
  const auto b = *c->submit_job(job(4, 150));  // would overlap R1 wherever it started before 200
  const auto d = *c->submit_job(job(4, 50));   // would fit nowhere either, and waits behind b
  EXPECT_EQ(started(*c, a), 0);
  EXPECT_EQ(ids(c->snapshot()->queued), (std::vector<std::string>{b, d}));
  EXPECT_EQ(c->next_event_time(), 100);
  c.at(100);
  EXPECT_EQ(state(*c, a), lrms_job_state::completed);
  EXPECT_EQ(state(*c, b), lrms_job_state::queued);
  c.at(199);
  EXPECT_EQ(state(*c, b), lrms_job_state::queued);
  EXPECT_TRUE(consistent(*c));
  c.at(200);
  EXPECT_EQ(started(*c, b), 200);
  EXPECT_EQ(started(*c, d), 200);
  EXPECT_TRUE(c->snapshot()->reservations.empty());
  EXPECT_TRUE(consistent(*c));
}

TEST(SimulatedLrms, StrictFcfsHeadBlocksSmallerJobs) {
  cluster c(8);
  const auto big = *c->submit_job(job(6, 100));
  const auto wide = *c->submit_job(job(4, 10));   // needs 4, only 2 free
  const auto small = *c->submit_job(job(1, 10));  // would fit, but waits behind `wide`
  EXPECT_EQ(state(*c, small), lrms_job_state::queued);
  EXPECT_TRUE(consistent(*c));
  ASSERT_TRUE(c->cancel_job(wide));
  EXPECT_EQ(state(*c, small), lrms_job_state::running);  // the new head starts at once
  EXPECT_EQ(state(*c, big), lrms_job_state::running);
}

TEST(SimulatedLrms, EarlyFinishReleasesTheRestOfTheWalltime) {
  cluster c(8);
  const auto j1 = *c->submit_local_job(job(8, 100), 40);  // guaranteed to 100, done at 40
  EXPECT_EQ(c->create_reservation(rsv(50, 10, 4)).err().code, errc::busy);
  const auto j2 = *c->submit_job(job(8, 10));
  EXPECT_EQ(c->next_event_time(), 40);
  c.at(39);
  EXPECT_EQ(state(*c, j1), lrms_job_state::running);
  c.at(40);
  EXPECT_EQ(state(*c, j1), lrms_job_state::completed);
  EXPECT_EQ(started(*c, j2), 40);  // [40, 50)
  EXPECT_EQ(c->profile().free_at(45), 0);
  EXPECT_EQ(c->profile().free_at(50), 8);
  c.at(45);
  EXPECT_TRUE(c->create_reservation(rsv(50, 10, 8)));
  EXPECT_TRUE(consistent(*c));
}

TEST(SimulatedLrms, AJobWithABeginTimeJoinsTheQueueThenAndNotBefore) {
  cluster c(8);
  const auto held = *c->submit_job(begins_at(job(4, 50), 100));
  const auto filler = *c->submit_job(job(8, 60));  // the whole cluster over [0, 60)
  EXPECT_EQ(c->next_event_time(), 60);             // the filler's end comes first
  auto snap = *c->snapshot();
  ASSERT_EQ(snap.queued.size(), 1u);
  EXPECT_EQ(snap.queued[0].id, held);
  EXPECT_EQ(snap.queued[0].not_before, 100);  // reported as Slurm's --begin is
  c.at(60);
  EXPECT_EQ(state(*c, filler), lrms_job_state::completed);
  EXPECT_EQ(state(*c, held), lrms_job_state::queued);  // idle CPUs, but not yet its time
  EXPECT_EQ(c->next_event_time(), 100);
  const auto early = *c->submit_job(job(4, 100));  // submitted later, began first: ahead
  EXPECT_EQ(started(*c, early), 60);
  c.at(100);
  EXPECT_EQ(started(*c, held), 100);
  const auto now_running = c->snapshot();
  ASSERT_TRUE(now_running);
  for (const auto& j : now_running->running)
    EXPECT_EQ(j.not_before, 0) << j.id;  // none waits for its begin time any more
  EXPECT_TRUE(consistent(*c));
}

TEST(SimulatedLrms, AJobCancelledBeforeItsBeginTimeNeverStarts) {
  cluster c(4);
  const auto held = *c->submit_job(begins_at(job(4, 50), 100));
  c.at(10);
  ASSERT_TRUE(c->cancel_job(held));
  EXPECT_EQ(state(*c, held), lrms_job_state::cancelled);
  EXPECT_EQ(c->next_event_time(), std::nullopt);  // its begin is no event any more
  c.at(100);
  EXPECT_EQ(state(*c, held), lrms_job_state::cancelled);
  EXPECT_EQ(c->profile().free_at(100), 4);
  // A begin time already past is none; with a reservation it is refused.
  EXPECT_EQ(started(*c, *c->submit_job(begins_at(job(4, 10), 50))), 100);
  const auto r = *c->create_reservation(rsv(200, 100, 4));
  EXPECT_EQ(c->submit_job(begins_at(job(4, 10, r), 250)).err().code, errc::invalid_parameter);
}

TEST(SimulatedLrms, JobsAreKilledAtTheirWalltime) {
  cluster c(4);
  const auto j = *c->submit_local_job(job(4, 100), 150);
  const auto next = *c->submit_job(job(4, 10));
  c.at(99);
  EXPECT_EQ(state(*c, j), lrms_job_state::running);
  c.at(100);
  EXPECT_EQ(state(*c, j), lrms_job_state::failed);
  EXPECT_EQ(started(*c, next), 100);
  c.at(110);
  EXPECT_EQ(state(*c, next), lrms_job_state::completed);
  EXPECT_EQ(c->profile().change_points(), 0u);
}

TEST(SimulatedLrms, BoundJobsRunInsideTheirReservationAndDieAtItsEnd) {
  cluster c(8);
  const auto r = *c->create_reservation(rsv(100, 100, 4));  // [100, 200) x 4
  EXPECT_EQ(c->submit_job(job(4, 101, r)).err().code, errc::invalid_window);
  EXPECT_EQ(c->submit_job(job(5, 10, r)).err().code, errc::invalid_processor_range);
  const auto j1 = *c->submit_local_job(job(4, 90, r), 80);  // [100, 180)
  const auto j2 = *c->submit_job(job(2, 50, r));            // waits for j1: [180, 200) only
  const auto local = *c->submit_job(job(4, 1000));          // beside the reservation
  EXPECT_EQ(state(*c, j1), lrms_job_state::queued);
  EXPECT_EQ(started(*c, local), 0);
  EXPECT_EQ(c->next_event_time(), 100);
  c.at(150);
  EXPECT_EQ(started(*c, j1), 100);
  EXPECT_EQ(state(*c, j2), lrms_job_state::queued);
  EXPECT_EQ(c->profile().free_at(150), 0);  // 4 reserved + 4 local; j1 is not counted again
  EXPECT_TRUE(consistent(*c));
  c.at(180);
  EXPECT_EQ(state(*c, j1), lrms_job_state::completed);
  EXPECT_EQ(started(*c, j2), 180);
  c.at(195);
  const auto j3 = *c->submit_job(job(4, 5, r));  // needs 4, j2 holds 2 of them
  EXPECT_EQ(state(*c, j3), lrms_job_state::queued);
  c.at(200);
  EXPECT_EQ(state(*c, j2), lrms_job_state::failed);  // killed with the reservation
  EXPECT_EQ(state(*c, j3), lrms_job_state::failed);  // never ran
  EXPECT_EQ(c->submit_job(job(1, 1, r)).err().code, errc::not_found);
  EXPECT_EQ(c->profile().free_at(200), 4);
  EXPECT_TRUE(consistent(*c));
}

TEST(SimulatedLrms, BoundJobEndingWithItsReservationCompletes) {
  cluster c(4);
  const auto r = *c->create_reservation(rsv(0, 100, 4));
  const auto j = *c->submit_job(job(4, 100, r));
  c.at(100);
  EXPECT_EQ(state(*c, j), lrms_job_state::completed);
}

// Paper 002, Sec. 5.3: an overrunning job gets a quantum when its reservation is extended
// in place; the CPUs after the old end must be free.
TEST(SimulatedLrms, ExtendingAReservationLetsItsRunningJobsRunOn) {
  cluster c(8);
  const auto r = *c->create_reservation(rsv(100, 100, 4));         // [100, 200) x 4
  const auto other = *c->create_reservation(rsv(250, 50, 6));      // [250, 300) x 6
  const auto overrun = *c->submit_local_job(job(3, 100, r), 130);  // needs until 230
  const auto short_one = *c->submit_local_job(job(1, 10, r), 5);   // [100, 105)
  c.at(150);
  EXPECT_EQ(started(*c, overrun), 100);
  EXPECT_EQ(c->extend_reservation(r, 200).err().code, errc::invalid_window);  // not later
  EXPECT_EQ(c->extend_reservation("R99", 300).err().code, errc::not_found);
  // [200, 300) would overlap `other` (4 + 6 > 8): busy, and nothing changed.
  const auto busy = c->extend_reservation(r, 300);
  ASSERT_FALSE(busy);
  EXPECT_EQ(busy.err().code, errc::busy);
  EXPECT_EQ(c->snapshot()->reservations.front().end, 200);
  EXPECT_TRUE(consistent(*c));
  // [200, 250) is free: the reservation keeps its id and ends at 250; the job runs on.
  ASSERT_TRUE(c->extend_reservation(r, 250));
  auto snap = *c->snapshot();
  ASSERT_EQ(snap.reservations.size(), 2u);
  EXPECT_EQ(snap.reservations.front().id, r);
  EXPECT_EQ(snap.reservations.front().end, 250);
  EXPECT_EQ(snap.running.front().walltime, 150);  // raised to run until 250
  EXPECT_EQ(state(*c, short_one), lrms_job_state::completed);
  EXPECT_EQ(c->profile().free_at(220), 4);  // the quantum holds the reservation's CPUs
  EXPECT_TRUE(consistent(*c));
  c.at(229);
  EXPECT_EQ(state(*c, overrun), lrms_job_state::running);
  c.at(230);
  EXPECT_EQ(state(*c, overrun), lrms_job_state::completed);  // not killed at 200
  EXPECT_EQ(c->snapshot()->reservations.size(), 2u);         // r lasts until 250
  c.at(250);
  EXPECT_EQ(c->snapshot()->reservations.size(), 1u);
  EXPECT_EQ(c->snapshot()->reservations.front().id, other);
  EXPECT_TRUE(consistent(*c));
}

TEST(SimulatedLrms, AJobPastItsQuantumIsStillKilledAtTheNewEnd) {
  cluster c(4);
  const auto r = *c->create_reservation(rsv(0, 100, 4));
  const auto j = *c->submit_local_job(job(4, 100, r), 500);
  c.at(90);
  ASSERT_TRUE(c->extend_reservation(r, 150));
  c.at(150);
  EXPECT_EQ(state(*c, j), lrms_job_state::failed);
  EXPECT_TRUE(c->snapshot()->reservations.empty());
}

TEST(SimulatedLrms, DeleteCancelsBoundJobsAndFreesCapacity) {
  cluster c(8);
  const auto r = *c->create_reservation(rsv(0, 100, 6));
  const auto run = *c->submit_job(job(2, 50, r));
  const auto wait = *c->submit_job(job(6, 50, r));
  const auto local = *c->submit_job(job(4, 10));  // only 2 CPUs outside the reservation
  EXPECT_EQ(state(*c, run), lrms_job_state::running);
  EXPECT_EQ(state(*c, wait), lrms_job_state::queued);
  EXPECT_EQ(state(*c, local), lrms_job_state::queued);
  c.at(5);
  ASSERT_TRUE(c->delete_reservation(r));
  EXPECT_EQ(state(*c, run), lrms_job_state::cancelled);
  EXPECT_EQ(state(*c, wait), lrms_job_state::cancelled);
  EXPECT_EQ(started(*c, local), 5);
  EXPECT_EQ(c->delete_reservation(r).err().code, errc::not_found);
  EXPECT_EQ(c->next_event_time(), 15);  // only the local job's end is left
  EXPECT_TRUE(consistent(*c));
}

TEST(SimulatedLrms, ModifyReplacesTermsUnderANewId) {
  cluster c(8);
  const auto r1 = *c->create_reservation(rsv(100, 100, 4));       // [100, 200) x 4
  ASSERT_TRUE(c->create_reservation(rsv(200, 100, 4, "carol")));  // [200, 300) x 4
  auto r2 = c->modify_reservation(r1, rsv(100, 150, 4));          // [100, 250) x 4
  ASSERT_TRUE(r2) << to_string(r2.err());
  EXPECT_NE(*r2, r1);
  EXPECT_EQ(c->delete_reservation(r1).err().code, errc::not_found);
  EXPECT_EQ(c->modify_reservation(r1, rsv(100, 10, 1)).err().code, errc::not_found);
  const auto listed = c->snapshot()->reservations;
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0], (lrms_reservation{*r2, "arb-100", "alice", 100, 250, 4}));

  // Failure leaves the old terms as they were.
  const auto before = c->snapshot()->reservations;
  auto busy = c->modify_reservation(*r2, rsv(100, 150, 6));  // 10 CPUs over [200, 250)
  ASSERT_FALSE(busy);
  EXPECT_EQ(busy.err().code, errc::busy);
  EXPECT_EQ(c->snapshot()->reservations, before);
  EXPECT_EQ(c->profile().free_at(150), 4);
  EXPECT_EQ(c->profile().free_at(220), 0);
  EXPECT_TRUE(consistent(*c));

  // The old span is released first, so the new terms may overlap it.
  auto r3 = c->modify_reservation(*r2, rsv(50, 150, 8));  // [50, 200) x 8
  ASSERT_TRUE(r3) << to_string(r3.err());
  EXPECT_EQ(c->profile().free_at(150), 0);
  EXPECT_EQ(c->profile().free_at(220), 4);
  EXPECT_TRUE(consistent(*c));
}

TEST(SimulatedLrms, ModifyCarriesBoundJobsAlong) {
  cluster c(8);
  const auto r1 = *c->create_reservation(rsv(100, 100, 4));
  const auto j = *c->submit_job(job(4, 100, r1));
  auto r2 = c->modify_reservation(r1, rsv(300, 100, 4));
  ASSERT_TRUE(r2);
  EXPECT_EQ(c->snapshot()->queued.at(0).reservation, *r2);
  EXPECT_EQ(c->next_event_time(), 300);  // r1's start and end events are gone
  EXPECT_EQ(c->modify_reservation(*r2, rsv(300, 99, 4)).err().code, errc::in_use);
  EXPECT_EQ(c->modify_reservation(*r2, rsv(300, 100, 2)).err().code, errc::in_use);
  c.at(300);
  EXPECT_EQ(started(*c, j), 300);
  EXPECT_TRUE(consistent(*c));
}

TEST(SimulatedLrms, ModifyOfAStartedReservationMustNotCutRunningJobs) {
  cluster c(8);
  const auto r1 = *c->create_reservation(rsv(0, 100, 4));  // [0, 100) x 4
  const auto j = *c->submit_job(job(2, 60, r1));           // [0, 60)
  c.at(30);
  // The start may stay in the past; any other past start is refused.
  EXPECT_EQ(c->modify_reservation(r1, rsv(10, 90, 4)).err().code, errc::invalid_window);
  EXPECT_EQ(c->modify_reservation(r1, rsv(0, 30, 4)).err().code, errc::invalid_window);
  EXPECT_EQ(c->modify_reservation(r1, rsv(0, 59, 4)).err().code, errc::in_use);
  EXPECT_EQ(c->modify_reservation(r1, rsv(0, 100, 1)).err().code, errc::in_use);
  EXPECT_EQ(c->modify_reservation(r1, rsv(30, 70, 4)).err().code, errc::in_use);
  auto r2 = c->modify_reservation(r1, rsv(0, 200, 6));  // grow: [0, 200) x 6
  ASSERT_TRUE(r2) << to_string(r2.err());
  EXPECT_EQ(state(*c, j), lrms_job_state::running);
  EXPECT_EQ(c->snapshot()->running.at(0).reservation, *r2);
  auto r3 = c->modify_reservation(*r2, rsv(0, 60, 2));  // shrink to exactly what j needs
  ASSERT_TRUE(r3) << to_string(r3.err());
  EXPECT_EQ(c->profile().free_at(30), 6);
  c.at(60);
  EXPECT_EQ(state(*c, j), lrms_job_state::completed);
  EXPECT_TRUE(c->snapshot()->reservations.empty());
  EXPECT_TRUE(consistent(*c));
}

TEST(SimulatedLrms, ModifyStartsWaitingJobsWhenItGrows) {
  cluster c(8);
  const auto r1 = *c->create_reservation(rsv(0, 100, 2));
  const auto a = *c->submit_job(job(2, 50, r1));
  const auto b = *c->submit_job(job(2, 50, r1));
  const auto local = *c->submit_job(job(8, 10));  // waits for the whole cluster
  EXPECT_EQ(state(*c, b), lrms_job_state::queued);
  auto r2 = c->modify_reservation(r1, rsv(0, 100, 4));
  ASSERT_TRUE(r2);
  EXPECT_EQ(state(*c, a), lrms_job_state::running);
  EXPECT_EQ(state(*c, b), lrms_job_state::running);
  EXPECT_EQ(state(*c, local), lrms_job_state::queued);
  EXPECT_TRUE(consistent(*c));
}

TEST(SimulatedLrms, ErrorsNameTheirCauseAndChangeNothing) {
  cluster c(8, {2, {}});
  c.at(1000);
  const auto r = *c->create_reservation(rsv(2000, 100, 4));
  const auto running = *c->submit_job(job(4, 500));
  const auto before = *c->snapshot();
  auto code = [](const auto& res) { return res ? std::optional<errc>{} : res.err().code; };

  auto past = c->create_reservation(rsv(999, 100, 2));
  EXPECT_EQ(code(past), errc::invalid_window);
  EXPECT_NE(past.err().message.find("Invalid time specified"), std::string::npos);
  EXPECT_NE(past.err().message.find("999"), std::string::npos);
  EXPECT_EQ(code(c->create_reservation(rsv(1000, 0, 2))), errc::invalid_window);
  EXPECT_EQ(code(c->create_reservation(rsv(1000, -5, 2))), errc::invalid_window);
  EXPECT_EQ(code(c->create_reservation(rsv(time_infinity, 1, 2))), errc::invalid_window);
  EXPECT_EQ(code(c->create_reservation(rsv(1000, 10, 0))), errc::invalid_processor_range);
  EXPECT_EQ(code(c->create_reservation(rsv(1000, 10, 10))), errc::invalid_processor_range);
  auto odd = c->create_reservation(rsv(1000, 10, 3));  // not a multiple of the bunch
  EXPECT_EQ(code(odd), errc::invalid_processor_range);
  EXPECT_NE(odd.err().message.find("multiples of 2"), std::string::npos) << odd.err().message;
  EXPECT_EQ(code(c->create_reservation(rsv(1000, 10, 2, ""))), errc::permission_denied);
  EXPECT_EQ(code(c->create_reservation(rsv(1000, 10, 6))), errc::busy);

  for (std::string bad : {"R9", "R0", "R01", "Rx", "R", "", "J1", "R1 "})
    EXPECT_EQ(code(c->delete_reservation(bad)), errc::not_found) << bad;
  EXPECT_EQ(code(c->modify_reservation("R9", rsv(1000, 10, 2))), errc::not_found);
  EXPECT_EQ(code(c->modify_reservation(r, rsv(999, 10, 2))), errc::invalid_window);
  EXPECT_EQ(code(c->modify_reservation(r, rsv(2000, 0, 2))), errc::invalid_window);
  EXPECT_EQ(code(c->modify_reservation(r, rsv(2000, 10, 5))), errc::invalid_processor_range);
  EXPECT_EQ(code(c->modify_reservation(r, rsv(2000, 10, 2, ""))), errc::permission_denied);
  EXPECT_EQ(code(c->modify_reservation(r, rsv(1000, 2000, 6))), errc::busy);

  EXPECT_EQ(code(c->submit_job(job(0, 10))), errc::invalid_processor_range);
  EXPECT_EQ(code(c->submit_job(job(9, 10))), errc::invalid_processor_range);
  EXPECT_EQ(code(c->submit_job(job(1, 0))), errc::invalid_duration);
  EXPECT_EQ(code(c->submit_job(job(1, -1))), errc::invalid_duration);
  EXPECT_EQ(code(c->submit_job(job(1, 10, {}, ""))), errc::permission_denied);
  EXPECT_EQ(code(c->submit_job(job(1, 10, "R9"))), errc::not_found);
  EXPECT_EQ(code(c->submit_job(job(5, 10, r))), errc::invalid_processor_range);
  EXPECT_EQ(code(c->submit_job(job(1, 101, r))), errc::invalid_window);
  EXPECT_EQ(code(c->submit_local_job(job(1, 10), 0)), errc::invalid_duration);

  EXPECT_EQ(code(c->cancel_job("J9")), errc::not_found);
  EXPECT_EQ(code(c->cancel_job(r)), errc::not_found);
  EXPECT_EQ(code(c->job_status("J9")), errc::not_found);
  EXPECT_EQ(code(c->job_status("")), errc::not_found);

  const auto after = *c->snapshot();
  EXPECT_EQ(after.running, before.running);
  EXPECT_EQ(after.queued, before.queued);
  EXPECT_EQ(after.reservations, before.reservations);
  EXPECT_EQ(*c->submit_job(job(1, 10)), "J2");  // no id was spent on a refusal
  EXPECT_EQ(state(*c, running), lrms_job_state::running);
}

TEST(SimulatedLrms, ReservableCountsList) {
  cluster c(16, {1, {8, 4, 16}});
  EXPECT_TRUE(c->create_reservation(rsv(0, 10, 4)));
  EXPECT_EQ(c->create_reservation(rsv(0, 10, 6)).err().code, errc::invalid_processor_range);
  EXPECT_TRUE(c->create_reservation(rsv(0, 10, 8)));
}

TEST(SimulatedLrms, CancelQueuedRunningAndFinishedJobs) {
  cluster c(4);
  const auto a = *c->submit_job(job(4, 100));
  const auto b = *c->submit_job(job(4, 100));
  const auto d = *c->submit_job(job(4, 10));
  ASSERT_TRUE(c->cancel_job(b));  // queued
  EXPECT_EQ(state(*c, b), lrms_job_state::cancelled);
  c.at(10);
  ASSERT_TRUE(c->cancel_job(a));  // running: its CPUs are free from now on
  EXPECT_EQ(state(*c, a), lrms_job_state::cancelled);
  EXPECT_EQ(started(*c, d), 10);
  c.at(20);
  EXPECT_EQ(state(*c, d), lrms_job_state::completed);
  EXPECT_TRUE(c->cancel_job(d));  // finished: a no-op that succeeds
  EXPECT_EQ(state(*c, d), lrms_job_state::completed);
  EXPECT_TRUE(c->cancel_job(a));
  EXPECT_EQ(state(*c, a), lrms_job_state::cancelled);
}

TEST(SimulatedLrms, AnEngineCanStepFromEventToEvent) {
  cluster c(4);
  ASSERT_TRUE(c->create_reservation(rsv(50, 50, 4)));  // [50, 100)
  ASSERT_TRUE(c->submit_local_job(job(2, 40), 30));    // [0, 30)
  ASSERT_TRUE(c->submit_local_job(job(2, 50), 20));    // [0, 20)
  ASSERT_TRUE(c->submit_local_job(job(4, 30), 30));    // waits for both: [30, 60)?
  std::vector<timestamp> seen;
  while (auto t = c->next_event_time()) {
    c->advance_to(*t);  // the clock stays at 0; time still moves
    seen.push_back(c->now());
  }
  // The 4-CPU job would overlap the reservation from 30, so it starts at 100.
  EXPECT_EQ(seen, (std::vector<timestamp>{20, 30, 50, 100, 130}));
  EXPECT_EQ(c->now(), 130);
  EXPECT_EQ(state(*c, "J3"), lrms_job_state::completed);
  c->advance_to(10);  // never back
  EXPECT_EQ(c->now(), 130);
}

TEST(SimulatedLrms, ToWorkloadSeesOnlyUnboundJobs) {
  cluster c(8);
  const auto r = *c->create_reservation(rsv(0, 100, 4));
  ASSERT_TRUE(c->submit_job(job(4, 50, r)));
  ASSERT_TRUE(c->submit_job(job(4, 60)));
  ASSERT_TRUE(c->submit_job(job(2, 10)));
  c.at(20);
  const auto w = to_workload(*c->snapshot());
  EXPECT_EQ(w.running, (std::vector<running_job>{{4, 40}}));
  EXPECT_EQ(w.queued, (std::vector<waiting_job>{{2, 10}}));
  EXPECT_EQ(w.reservations, (std::vector<reservation_span>{{0, 100, 4}}));
}

}  // namespace
}  // namespace arbroker
