#include "simulated_lrms_fixture.hpp"

#include <cmath>
#include <tuple>

// Hand-built schedules where FCFS, EASY and conservative backfilling give different start
// times; every expected value is worked out in the comments.

namespace arbroker {
namespace {

using namespace testing_sim;

// Start times of every job, from the cluster's event hook (the last start wins).
struct recorder {
  std::map<std::string, timestamp> started;
  std::vector<std::string> log;  // "J1 started 0", "J1 paused 100", "J1 completed 250"
  std::function<void(const simulated_job_event&)> hook() {
    return [this](const simulated_job_event& e) {
      const std::string id = "J" + std::to_string(e.job);
      std::string what;
      switch (e.what) {
        case simulated_job_event::kind::started:
          started[id] = e.time;
          what = "started";
          break;
        case simulated_job_event::kind::paused:
          what = "paused";
          break;
        case simulated_job_event::kind::ended:
          what = std::string(to_string(e.outcome));
          break;
      }
      log.push_back(id + " " + what + " " + std::to_string(e.time));
    };
  }
};

// Drives the cluster from event to event until nothing is pending.
void run_to_end(cluster& c) {
  while (auto next = c->next_event_time()) {
    c.at(*next);
    c->advance_to(*next);
    ASSERT_TRUE(consistent(*c));
  }
}

// 10 CPUs; at t = 0, in this order (runtime = walltime):
//   J1 6 CPUs x 100, J2 8 x 50, J3 9 x 200, J4 2 x 50, J5 2 x 300.
//
// FCFS: J1 at 0 (4 left). J2 needs 8: waits for J1, runs [100, 150). J3 [150, 350).
//   J4 needs 2 while J3 holds 9: 350. J5: 350 too (J4 2 + J5 2 of 10).
// EASY: J1 at 0. Head J2 gets its shadow [100, 150) x 8. J3 (9) is larger than the 4 free.
//   J4 [0, 50) x 2 fits. J5 [0, 300) x 2: at [100, 150) J2 8 + J5 2 = 10, fits: 0.
//   At 100 J1 ends, J2 starts. J3 needs 9: J5 holds 2 until 300, so J3 starts at 300.
// Conservative: plans J1 0, J2 100, J3 [150, 350), J4 [0, 50) at 0. J5 over [0, 300) would
//   meet J3's plan (9 + 2 > 10) and nothing earlier is 300 long with 2 free before 350: 350.
TEST(BatchPolicy, ThreePoliciesThreeSchedules) {
  struct expected {
    scheduling_policy policy;
    std::map<std::string, timestamp> starts;
  };
  const std::vector<expected> cases{
      {scheduling_policy::fcfs, {{"J1", 0}, {"J2", 100}, {"J3", 150}, {"J4", 350}, {"J5", 350}}},
      {scheduling_policy::easy, {{"J1", 0}, {"J2", 100}, {"J3", 300}, {"J4", 0}, {"J5", 0}}},
      {scheduling_policy::conservative,
       {{"J1", 0}, {"J2", 100}, {"J3", 150}, {"J4", 0}, {"J5", 350}}},
  };
  for (const auto& want : cases) {
    SCOPED_TRACE(std::string(to_string(want.policy)));
    recorder rec;
    cluster c(10, {}, want.policy, rec.hook());
    for (auto [np, wall] :
         std::vector<std::pair<int, duration>>{{6, 100}, {8, 50}, {9, 200}, {2, 50}, {2, 300}})
      ASSERT_TRUE(c->submit_job(job(np, wall)));
    ASSERT_TRUE(consistent(*c));
    if (want.policy == scheduling_policy::conservative) {
      EXPECT_EQ(c->planned_start("J2"), 100);
      EXPECT_EQ(c->planned_start("J3"), 150);
      EXPECT_EQ(c->planned_start("J5"), 350);
      EXPECT_EQ(c->planned_start("J1"), std::nullopt);  // running, not queued
    } else {
      EXPECT_EQ(c->planned_start("J2"), std::nullopt);
    }
    run_to_end(c);
    EXPECT_EQ(rec.started, want.starts);
  }
}

// 10 CPUs. J1 10 x walltime 100 but really runs 30; reservation [150, 200) x 10;
// J2 10 x 80, J3 10 x 50, both queued at 0.
// Conservative at 0: J2 cannot run over [100, 180) (the reservation at 150): plan 200.
//   J3 fits [100, 150): plan 100. At 30 J1 ends early and plans are compressed in queue
//   order, each with the others in place: J2 from 30 would need [30, 110), which meets J3's
//   plan, so it stays at 200; J3 moves to 30. (Planning from scratch would give J2 30 and
//   push J3 to 200: a delay conservative backfilling must never cause.)
// FCFS and EASY: at 30 the head J2 fits [30, 110) before the reservation and starts; J3
//   then needs [110, 160), which meets the reservation, so it waits until 200.
TEST(BatchPolicy, CompressionNeverDelaysAPlan) {
  for (auto policy :
       {scheduling_policy::fcfs, scheduling_policy::easy, scheduling_policy::conservative}) {
    SCOPED_TRACE(std::string(to_string(policy)));
    recorder rec;
    cluster c(10, {}, policy, rec.hook());
    ASSERT_TRUE(c->submit_local_job(job(10, 100), 30));
    ASSERT_TRUE(c->create_reservation(rsv(150, 50, 10)));
    ASSERT_TRUE(c->submit_job(job(10, 80)));
    ASSERT_TRUE(c->submit_job(job(10, 50)));
    run_to_end(c);
    const bool conservative = policy == scheduling_policy::conservative;
    EXPECT_EQ(rec.started["J2"], conservative ? 200 : 30);
    EXPECT_EQ(rec.started["J3"], conservative ? 30 : 200);
  }
}

// 10 CPUs, reservation [100, 200) x 8, queued at 0 under EASY: J1 4 x 150, J2 2 x 100,
// J3 2 x 150, J4 3 x 100.
// J1 over [0, 150) would need 8 + 4 = 12 at 100: its earliest start is 200 (shadow
// [200, 350) x 4). J2 [0, 100) ends as the reservation starts: 0. J3 [0, 150) x 2: at
// [100, 150) 8 + 2 = 10, fits: 0. J4 [0, 100) x 3: 2 + 2 + 3 = 7 of 10, fits: 0.
// The reservation gets its 8 CPUs at 100, J1 starts at 200.
TEST(BatchPolicy, EasyBackfillsAroundAReservation) {
  recorder rec;
  cluster c(10, {}, scheduling_policy::easy, rec.hook());
  ASSERT_TRUE(c->create_reservation(rsv(100, 100, 8)));
  for (auto [np, wall] :
       std::vector<std::pair<int, duration>>{{4, 150}, {2, 100}, {2, 150}, {3, 100}})
    ASSERT_TRUE(c->submit_job(job(np, wall)));
  EXPECT_TRUE(consistent(*c));
  EXPECT_EQ(c->profile().free_at(120), 0);  // reservation 8 + J3 2
  run_to_end(c);
  const std::map<std::string, timestamp> want{{"J1", 200}, {"J2", 0}, {"J3", 0}, {"J4", 0}};
  EXPECT_EQ(rec.started, want);
}

// A job that reaches its walltime is killed; a restartable one is paused and queued again at
// the tail with the rest of its work. 10 CPUs, FCFS:
//   J1 4 CPUs, walltime 100, really 250, restartable; J2 at 50: 8 x 100.
//   J2 cannot start at 50 (4 + 8). At 100 J1 is paused (150 left) and queued behind J2;
//   J2 starts [100, 200), J1 needs 4 with 2 free: waits. At 200 J1 runs again and is paused
//   at 300 (50 left), runs [300, 350) and completes. J3, not restartable, walltime 100 but
//   really 120, submitted at 350: killed (failed) at 450.
TEST(BatchPolicy, WalltimeKillsAndRestartableRequeue) {
  recorder rec;
  cluster c(10, {}, scheduling_policy::fcfs, rec.hook());
  ASSERT_EQ(*c->submit_local_job(job(4, 100), 250, {.restartable = true}), "J1");
  c.at(50);
  ASSERT_EQ(*c->submit_job(job(8, 100)), "J2");
  EXPECT_EQ(state(*c, "J2"), lrms_job_state::queued);
  c.at(100);
  EXPECT_EQ(state(*c, "J1"), lrms_job_state::queued);  // paused, behind J2
  EXPECT_EQ(ids(c->snapshot()->queued), std::vector<std::string>{"J1"});
  EXPECT_TRUE(consistent(*c));
  c.at(350);
  EXPECT_EQ(state(*c, "J1"), lrms_job_state::completed);
  ASSERT_EQ(*c->submit_local_job(job(1, 100), 120), "J3");
  c.at(450);
  EXPECT_EQ(state(*c, "J3"), lrms_job_state::failed);
  const std::vector<std::string> want{
      "J1 started 0",  "J1 paused 100",  "J2 started 100",   "J2 completed 200", "J1 started 200",
      "J1 paused 300", "J1 started 300", "J1 completed 350", "J3 started 350",   "J3 failed 450"};
  EXPECT_EQ(rec.log, want);
}

// A restartable bound job cut by its reservation's end is paused and requeued unbound.
// Reservation [0, 100) x 4 on 10 CPUs: J1 4 x 60 runs [0, 60); J2 4 CPUs, walltime 100,
// really 100, restartable, starts at 60 in the reservation and is cut at 100 with 60 left;
// it then runs unbound [100, 160) and completes. In a second reservation [0, 100) x 4, J3
// (walltime 100, really 60) runs [0, 60); J4 (4 x 100, not restartable) starts at 60 and the
// same cut kills it.
TEST(BatchPolicy, ReservationEndPausesRestartableBoundJobs) {
  recorder rec;
  cluster c(10, {}, scheduling_policy::easy, rec.hook());
  const auto r1 = *c->create_reservation(rsv(0, 100, 4));
  const auto r2 = *c->create_reservation(rsv(0, 100, 4));
  ASSERT_EQ(*c->submit_job(job(4, 60, r1)), "J1");
  ASSERT_EQ(*c->submit_local_job(job(4, 100, r1), 100, {.restartable = true}), "J2");
  ASSERT_EQ(*c->submit_local_job(job(4, 100, r2), 60), "J3");
  ASSERT_EQ(*c->submit_job(job(4, 100, r2)), "J4");
  c.at(99);
  EXPECT_EQ(state(*c, "J2"), lrms_job_state::running);
  c.at(100);
  EXPECT_EQ(state(*c, "J2"), lrms_job_state::running);  // requeued and started at once
  EXPECT_EQ(started(*c, "J2"), 100);
  EXPECT_EQ(state(*c, "J4"), lrms_job_state::failed);
  EXPECT_TRUE(consistent(*c));
  c.at(160);
  EXPECT_EQ(state(*c, "J2"), lrms_job_state::completed);
  EXPECT_EQ(rec.started["J2"], 100);
}

// cpu_speed 2: a job measured at 100 s runs 50 s; speed 0.4: 100 s becomes 250 s, past a
// walltime of 200, so it is killed at 200. Speed 3: 100 / 3 rounds up to 34.
TEST(BatchPolicy, CpuSpeedScalesActualRuntimes) {
  for (auto [speed, wall, ends, outcome] :
       std::vector<std::tuple<double, duration, timestamp, lrms_job_state>>{
           {2.0, 200, 50, lrms_job_state::completed},
           {0.4, 200, 200, lrms_job_state::failed},
           {3.0, 200, 34, lrms_job_state::completed}}) {
    SCOPED_TRACE(speed);
    timestamp now = 0;
    recorder rec;
    auto l = simulated_lrms::create(
        {"fast", 4, {}, [&now] { return now; }, scheduling_policy::easy, rec.hook(), speed});
    ASSERT_TRUE(l);
    ASSERT_TRUE((*l)->submit_local_job(job(1, wall), 100));
    EXPECT_EQ((*l)->next_event_time(), ends);
    now = ends;
    EXPECT_EQ(*(*l)->job_status("J1"), outcome);
  }
  for (double bad : {0.0, -1.0, std::nan(""), HUGE_VAL})
    EXPECT_EQ(simulated_lrms::create(
                  {"x", 4, {}, [] { return timestamp{0}; }, scheduling_policy::fcfs, {}, bad})
                  .err()
                  .code,
              errc::invalid_parameter);
}

TEST(BatchPolicy, PolicyNames) {
  for (auto p : {scheduling_policy::fcfs, scheduling_policy::easy, scheduling_policy::conservative})
    EXPECT_EQ(parse_scheduling_policy(to_string(p)), p);
  EXPECT_EQ(parse_scheduling_policy("EASY"), std::nullopt);
  EXPECT_EQ(parse_scheduling_policy(""), std::nullopt);
}

}  // namespace
}  // namespace arbroker
