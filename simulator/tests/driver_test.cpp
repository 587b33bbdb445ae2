#include "arbroker/simulator/driver.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "arbroker/sim/elastic.hpp"
#include "arbroker/sim/lublin.hpp"
#include "arbroker/simulator/metrics.hpp"
#include "arbroker/simulator/output.hpp"

namespace arbroker::sim {
namespace {

local_job job(std::int64_t id, timestamp submit, int np, duration wall, duration run) {
  local_job j;
  j.id = id;
  j.submit = submit;
  j.np = np;
  j.walltime = wall;
  j.runtime = run;
  return j;
}

msg::elastic_request rigid(timestamp est, timestamp let, int np, duration dur) {
  msg::elastic_request r;
  r.user = "alice";
  r.est = est;
  r.let = let;
  r.np_min = r.np_max = np;
  r.dur_ref = dur;
  r.np_ref = np;
  r.pp_ref = 1;
  r.speedup = msg::to_spec(*speedup_model::amdahl(0));
  r.prefer = *parse_preferences("end,cost");
  r.esr = esr_method::load;
  return r;
}

scenario ten_cpus() {
  scenario s;
  s.clusters.push_back({.name = "c", .cpus = 10});
  return s;
}

// Start times worked out by hand (10 CPUs, FCFS honouring reservations):
//  J1 6 CPUs at 0 for 100 s: starts at once.
//  J2 6 CPUs at 10: 4 free until J1 ends at 100.
//  J3 2 CPUs at 20: would fit at 20, but FCFS keeps it behind J2; both start at 100.
//  R  10 CPUs over [200, 250), asked at 30 (after T_wkl, so local-jobs-preferred allows it).
//  J4 4 CPUs for 100 s at 140: 4 CPUs are free, but [140, 240) would cut into R: waits to 250.
//  J5 2 CPUs for 10 s at 145: would fit before R, but FCFS keeps it behind J4: 250.
//  J6 3 CPUs for 20 s with a 40 s walltime at 150: starts at 250 (J4 + J5 + J6 = 9 CPUs),
//     ends after its run time, 270.
TEST(driver, HandBuiltScheduleHasTheExpectedStartTimes) {
  auto s = ten_cpus();
  s.jobs = {job(1, 0, 6, 100, 100),   job(2, 10, 6, 50, 50),  job(3, 20, 2, 10, 10),
            job(4, 140, 4, 100, 100), job(5, 145, 2, 10, 10), job(6, 150, 3, 40, 20)};
  s.requests.push_back({7, 30, rigid(200, 250, 10, 50)});
  auto out = run_simulation(s);
  ASSERT_TRUE(out) << out.err().message;
  std::vector<timestamp> starts, ends;
  for (const auto& j : out->jobs) {
    starts.push_back(j.start);
    ends.push_back(j.end);
  }
  EXPECT_EQ(starts, (std::vector<timestamp>{0, 100, 100, 250, 250, 250}));
  EXPECT_EQ(ends, (std::vector<timestamp>{100, 150, 110, 350, 260, 270}));
  ASSERT_EQ(out->requests.size(), 1u);
  const auto& r = out->requests[0];
  ASSERT_TRUE(r.ok()) << r.reply.error.message;
  EXPECT_EQ(r.cluster, 0);
  EXPECT_EQ(r.reply.reservation.start, 200);
  EXPECT_EQ(r.reply.reservation.end, 250);
  EXPECT_EQ(r.reply.reservation.np, 10);
  EXPECT_EQ(out->end_time, 350);

  auto sum = summarize(*out);
  EXPECT_EQ(sum.successes, 1u);
  EXPECT_EQ(sum.jobs_started, 6u);
  EXPECT_DOUBLE_EQ(sum.mean_wait, (0 + 90 + 80 + 110 + 105 + 100) / 6.0);
}

// Without the reservation, J4 starts on arrival at 140 (J2's 6 + 4 CPUs); J5 then finds no
// CPU free until J2 ends at 150, and J6 starts with it.
TEST(driver, TheReservationIsWhatDelaysTheLaterJobs) {
  auto s = ten_cpus();
  s.jobs = {job(1, 0, 6, 100, 100),   job(2, 10, 6, 50, 50),  job(3, 20, 2, 10, 10),
            job(4, 140, 4, 100, 100), job(5, 145, 2, 10, 10), job(6, 150, 3, 40, 20)};
  auto out = run_simulation(s);
  ASSERT_TRUE(out) << out.err().message;
  std::vector<timestamp> starts;
  for (const auto& j : out->jobs)
    starts.push_back(j.start);
  EXPECT_EQ(starts, (std::vector<timestamp>{0, 100, 100, 140, 150, 150}));
}

// A request whose window is all before T_wkl (the queue) is refused, and the jobs run as if
// it had never been made.
TEST(driver, ARequestThatWouldBypassTheQueueFails) {
  auto s = ten_cpus();
  s.jobs = {job(1, 0, 10, 1000, 1000), job(2, 1, 10, 1000, 1000)};
  s.requests.push_back({3, 2, rigid(100, 200, 10, 100)});
  auto out = run_simulation(s);
  ASSERT_TRUE(out) << out.err().message;
  EXPECT_FALSE(out->requests[0].ok());
  EXPECT_EQ(out->requests[0].cluster, -1);
  EXPECT_EQ(out->jobs[1].start, 1000);
}

// CAF's timers run on the virtual clock: a hold (mode_hold, 60 s) made at 0 for all 10 CPUs
// over [100, 200) keeps a 10-CPU job of 150 s submitted at 5 waiting until the CRS's expiry
// timer deletes the hold at exactly 60; then the job starts.
TEST(driver, AnExpiringHoldReleasesItsCpusAtTheVirtualExpiryTime) {
  auto s = ten_cpus();
  s.jobs = {job(1, 5, 10, 150, 150)};
  auto hold = rigid(100, 200, 10, 100);
  hold.mode = msg::request_mode::hold;
  hold.hold_seconds = 60;
  s.requests.push_back({2, 0, hold});
  auto out = run_simulation(s);
  ASSERT_TRUE(out) << out.err().message;
  ASSERT_TRUE(out->requests[0].ok()) << out->requests[0].reply.error.message;
  EXPECT_EQ(out->requests[0].reply.reservation.expiry, 60);
  EXPECT_EQ(out->jobs[0].start, 60);
  EXPECT_EQ(out->jobs[0].end, 210);
}

// EASY backfilling in the driver, worked out by hand (10 CPUs):
//  J1 6 CPUs at 0 for 100 s: starts at once.
//  J2 6 CPUs at 10 for 50 s: waits for J1; its shadow time is 100, with 4 CPUs spare then.
//  J3 2 CPUs at 20 for 10 s: ends (30) before the shadow time: backfilled at 20.
//  J4 4 CPUs at 30 for 200 s: runs past 100 but fits the 4 spare CPUs: backfilled at 30.
//  J5 1 CPU at 40 for 10 s: no CPU free until J2 ends at 150.
// Under FCFS the same jobs start at 0, 100, 100, 110, 150.
std::vector<local_job> backfill_jobs() {
  return {job(1, 0, 6, 100, 100), job(2, 10, 6, 50, 50), job(3, 20, 2, 10, 10),
          job(4, 30, 4, 200, 200), job(5, 40, 1, 10, 10)};
}

std::vector<timestamp> starts_of(const sim_output& out) {
  std::vector<timestamp> starts;
  for (const auto& j : out.jobs)
    starts.push_back(j.start);
  return starts;
}

TEST(driver, EasyBackfillingStartsJobsAheadOfAWaitingHead) {
  auto s = ten_cpus();
  s.clusters[0].scheduler = "easy";
  s.jobs = backfill_jobs();
  auto out = run_simulation(s);
  ASSERT_TRUE(out) << out.err().message;
  EXPECT_EQ(starts_of(*out), (std::vector<timestamp>{0, 100, 20, 30, 150}));
  std::vector<timestamp> ends;
  for (const auto& j : out->jobs)
    ends.push_back(j.end);
  EXPECT_EQ(ends, (std::vector<timestamp>{100, 150, 30, 230, 160}));
  // The busy spans are what U is computed from: one per run of a job.
  EXPECT_EQ(out->busy.size(), 5u);
  auto sum = summarize(*out);
  const double busy = 6 * 100 + 6 * 50 + 2 * 10 + 4 * 200 + 1 * 10;
  ASSERT_TRUE(sum.metrics.utilization);
  EXPECT_DOUBLE_EQ(*sum.metrics.utilization, busy / (230.0 * 10));

  s.clusters[0].scheduler = "fcfs";
  auto fcfs = run_simulation(s);
  ASSERT_TRUE(fcfs) << fcfs.err().message;
  EXPECT_EQ(starts_of(*fcfs), (std::vector<timestamp>{0, 100, 100, 110, 150}));
}

// A restartable job that reaches its walltime (50 s of 80 s done) is paused and requeued;
// alone on the cluster it starts again at once and ends 30 s later.
TEST(driver, ARestartableJobIsPausedAndRunsAgain) {
  auto s = ten_cpus();
  auto j = job(1, 0, 4, 50, 80);
  j.restartable = true;
  s.jobs = {j, job(2, 0, 4, 50, 80)};
  auto out = run_simulation(s);
  ASSERT_TRUE(out) << out.err().message;
  EXPECT_EQ(out->jobs[0].start, 0);
  EXPECT_EQ(out->jobs[0].pauses, 1);
  EXPECT_EQ(out->jobs[0].end, 80);
  EXPECT_EQ(out->jobs[1].pauses, 0);
  EXPECT_EQ(out->jobs[1].end, 50);  // killed at its walltime
  EXPECT_EQ(out->busy.size(), 3u);
}

// A granted request's job runs inside its reservation: 10 CPUs over [200, 250), the job
// needs 30 s of it.
TEST(driver, TheJobOfAGrantedRequestRunsInItsReservation) {
  auto s = ten_cpus();
  s.requests.push_back({7, 30, rigid(200, 250, 10, 50), bound_job{30, false}});
  auto out = run_simulation(s);
  ASSERT_TRUE(out) << out.err().message;
  ASSERT_TRUE(out->requests[0].ok()) << out->requests[0].reply.error.message;
  EXPECT_EQ(out->requests[0].job_start, 200);
  EXPECT_EQ(out->requests[0].job_end, 230);
  // R_AR counts from the requested start (200) to the job's completion.
  auto sum = summarize(*out);
  ASSERT_TRUE(sum.metrics.mean_response_advance_reservation);
  EXPECT_DOUBLE_EQ(*sum.metrics.mean_response_advance_reservation, 30);
  EXPECT_FALSE(sum.metrics.mean_response_on_demand);
  // The same request as an on-demand job: R_OD counts from its submit (30).
  s.requests[0].on_demand = true;
  out = run_simulation(s);
  ASSERT_TRUE(out) << out.err().message;
  sum = summarize(*out);
  ASSERT_TRUE(sum.metrics.mean_response_on_demand);
  EXPECT_DOUBLE_EQ(*sum.metrics.mean_response_on_demand, 200);
}

// Per-cluster collection: each cluster's jobs and the requests meant for it.
TEST(metrics, CollectCanKeepOneClustersRecords) {
  scenario s;
  s.clusters.push_back({.name = "a", .cpus = 4});
  s.clusters.push_back({.name = "b", .cpus = 4});
  auto on = [](local_job j, int cluster) {
    j.cluster = cluster;
    return j;
  };
  // a: J1 waits 0, J2 waits 10 (J1 holds all 4 CPUs until 10); b: J3 waits 0.
  s.jobs = {on(job(1, 0, 4, 10, 10), 0), on(job(2, 0, 4, 10, 10), 0), on(job(3, 0, 2, 5, 5), 1)};
  auto out = run_simulation(s);
  ASSERT_TRUE(out) << out.err().message;
  auto a = collect(*out, {0, nullptr});
  auto b = collect(*out, {1, nullptr});
  ASSERT_TRUE(a && b);
  auto sa = a->summary(0, 20);
  auto sb = b->summary(0, 20);
  ASSERT_TRUE(sa && sb);
  EXPECT_EQ(sa->batch_jobs, 2u);
  EXPECT_DOUBLE_EQ(*sa->mean_wait, 5);
  EXPECT_DOUBLE_EQ(*sa->utilization, 4.0 * 20 / (4 * 20));
  EXPECT_EQ(sb->batch_jobs, 1u);
  EXPECT_DOUBLE_EQ(*sb->mean_wait, 0);
  EXPECT_DOUBLE_EQ(*sb->utilization, 2.0 * 5 / (4 * 20));
}

// The ESE plans with walltimes: J1 (all 10 CPUs, walltime 100) really ends at 50, so a job
// submitted at 10 is estimated to start at 100 but starts at 50.
TEST(driver, TheEstimateIsAskedJustBeforeTheSubmit) {
  auto s = ten_cpus();
  auto probe = job(2, 10, 5, 20, 20);
  probe.estimate = true;
  s.jobs = {job(1, 0, 10, 100, 50), probe};
  auto out = run_simulation(s);
  ASSERT_TRUE(out) << out.err().message;
  EXPECT_EQ(out->jobs[0].estimated_start, -1);
  EXPECT_EQ(out->jobs[1].estimated_start, 100);
  EXPECT_EQ(out->jobs[1].start, 50);
}

TEST(driver, UnknownSchedulerPolicyIsAClearError) {
  auto s = ten_cpus();
  s.clusters[0].scheduler = "lottery";
  auto out = run_simulation(s);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.err().code, errc::invalid_parameter);
  EXPECT_NE(out.err().message.find("lottery"), std::string::npos);
}

TEST(driver, JobOnAnUnknownClusterIsAClearError) {
  auto s = ten_cpus();
  auto j = job(1, 0, 1, 10, 10);
  j.cluster = 3;
  s.jobs.push_back(j);
  auto out = run_simulation(s);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.err().code, errc::invalid_parameter);
}

// Lublin jobs on two clusters with elastic requests through the broker.
scenario random_grid(std::uint64_t seed) {
  scenario s;
  s.clusters.push_back({.name = "a", .cpus = 64});
  s.clusters.push_back({.name = "b", .cpus = 32, .pp = 2});
  auto gen = lublin_generator::create(lublin_params::batch(), 32, seed);
  auto jobs = gen->generate(300);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& sj = jobs[i];
    auto j = job(sj.job_id, sj.submit_time / 8, static_cast<int>(sj.requested_procs),
                 sj.run_time + 600, sj.run_time);
    j.cluster = static_cast<int>(i % 2);
    if (i % 10 == 3) {
      auto e = make_elastic(sj, {3600, 5 * 3600, 0.5, 2}, 32);
      auto r = to_request(*e, "u");
      msg::elastic_request m = rigid(e->est / 8, e->let / 8, e->np_min, e->run_time);
      m.np_max = e->np_max;
      m.np_ref = e->procs;
      m.prefer = *parse_preferences("end,cost,-esr");
      m.esr_threshold = 0.5;
      s.requests.push_back({sj.job_id, sj.submit_time / 8, m});
      continue;
    }
    s.jobs.push_back(j);
  }
  return s;
}

std::string text_of(const sim_output& out) {
  std::ostringstream os;
  write_jobs_csv(os, out);
  write_requests_csv(os, out);
  return os.str();
}

TEST(driver, SameScenarioGivesByteIdenticalOutput) {
  auto s = random_grid(42);
  s.clusters[0].scheduler = "easy";
  s.clusters[1].scheduler = "conservative";
  auto a = run_simulation(s);
  auto b = run_simulation(s);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(text_of(*a), text_of(*b));
  // The run did something: jobs waited, some requests got through, some did not matter.
  auto sum = summarize(*a);
  EXPECT_EQ(sum.jobs_started, s.jobs.size());
  EXPECT_GT(sum.successes, 0u);
  EXPECT_GT(sum.mean_wait, 0.0);
  // A different workload gives a different output (the check can fail).
  auto c = run_simulation(random_grid(43));
  ASSERT_TRUE(c);
  EXPECT_NE(text_of(*a), text_of(*c));
}

TEST(metrics, AdditionalWaitsAreSortedDifferences) {
  sim_output base, run;
  base.jobs = {{1, 0, 0, 10, 20, 1}, {2, 0, 5, 5, 9, 1}, {3, 0, 0, 0, 1, 1}};
  run.jobs = {{1, 0, 0, 30, 40, 1}, {2, 0, 5, 5, 9, 1}, {3, 0, 0, -1, -1, 1}};
  EXPECT_EQ(additional_waits(run, base), (std::vector<duration>{0, 20}));
  run.jobs[0].id = 9;
  EXPECT_TRUE(additional_waits(run, base).empty());
}

// Grid jobs of every strategy under virtual time. Cluster a is busy for 1000 s, b for 300 s
// (local jobs of 8 CPUs each); c for 2000 s. Every grid job wants 8 CPUs for 100 s.
scenario grid_scenario() {
  scenario s;
  s.clusters = {{.name = "a", .cpus = 8}, {.name = "b", .cpus = 8}, {.name = "c", .cpus = 8}};
  auto busy = [](std::int64_t id, int cluster, duration d) {
    auto j = job(id, 0, 8, d, d);
    j.cluster = cluster;
    return j;
  };
  s.jobs = {busy(1, 0, 1000), busy(2, 1, 300), busy(3, 2, 2000)};
  std::int64_t id = 10;
  for (auto strategy : {grid_strategy::single, grid_strategy::flood, grid_strategy::adaptive,
                        grid_strategy::reserve}) {
    msg::grid_submit_request r;
    r.user = "alice";
    r.np = 8;
    r.walltime = 100;
    r.strategy = strategy;
    r.width = 2;
    s.grid_jobs.push_back({id, 10 * (id - 9), r});
    ++id;
  }
  s.grid_adaptation_interval = 60;  // no polls: the LRMSs' job events drive the manager
  return s;
}

TEST(driver, GridJobsOfEveryStrategyRunOnceUnderVirtualTime) {
  auto out = run_simulation(grid_scenario());
  ASSERT_TRUE(out) << out.err().message;
  ASSERT_EQ(out->grid_jobs.size(), 4u);
  for (const auto& j : out->grid_jobs) {
    SCOPED_TRACE(std::string(to_string(j.strategy)));
    EXPECT_EQ(j.state, grid_job_state::completed);
    ASSERT_GE(j.winner, 0);
    // Every job ran exactly once, on b (the first to free up), never before b was free.
    EXPECT_EQ(j.copies[static_cast<std::size_t>(j.winner)].cluster, "b");
    EXPECT_GE(j.started, 300);
    // The end is the LRMS's, to the second (a poll would see it up to an interval late).
    EXPECT_EQ(j.ended - j.started, 100);
    int ran = 0;
    for (const auto& c : j.copies)
      ran += c.started >= 0 ? 1 : 0;
    EXPECT_EQ(ran, 1);
  }
  // The flood had a copy on a as well; it was cancelled from a's queue.
  const auto& flood = out->grid_jobs[1];
  ASSERT_EQ(flood.copies.size(), 2u);
  EXPECT_EQ(flood.copies[1].state, copy_state::cancelled);
  EXPECT_FALSE(out->grid_jobs[3].reservation.empty());
}

// A workflow arrives as one request: its jobs run in their dependencies' order, and a child
// placed where its parent's output is not starts once the output arrived (the simulated grid
// stages it: 1e9 B at 1e7 B/s, 100 s).
TEST(driver, AWorkflowsJobsRunInOrderAndWaitForTheirInputs) {
  scenario s;
  s.clusters = {{.name = "a", .cpus = 8, .bandwidth = 1e7},
                {.name = "b", .cpus = 8, .bandwidth = 1e7}};
  msg::grid_submit_request first;
  first.user = "alice";
  first.name = "first";
  first.np = 8;
  first.walltime = 300;
  first.clusters = {"a"};
  first.output_bytes = 1'000'000'000;
  auto near = first;
  near.name = "near";
  near.after = {"first"};
  near.np = 4;
  auto far = near;
  far.name = "far";
  far.clusters = {"b"};
  sim::grid_arrival w{1, 50, first};
  w.with = {near, far};
  s.grid_jobs = {w};
  auto out = run_simulation(s);
  ASSERT_TRUE(out) << out.err().message;
  ASSERT_EQ(out->grid_jobs.size(), 3u);
  for (const auto& j : out->grid_jobs)
    EXPECT_EQ(j.state, grid_job_state::completed) << j.name;
  EXPECT_EQ(out->grid_jobs[0].started, 50);
  EXPECT_EQ(out->grid_jobs[1].started, 350);        // on a, where the output is
  EXPECT_EQ(out->grid_jobs[2].started, 350 + 100);  // on b, once it arrived
  // Without staging the same child starts at once.
  s.grid_stages_inputs = false;
  out = run_simulation(s);
  ASSERT_TRUE(out) << out.err().message;
  EXPECT_EQ(out->grid_jobs[2].started, 350);
}

TEST(driver, GridJobsWithPollsInsteadOfEventsSeeEndsLate) {
  auto s = grid_scenario();
  s.grid_event_hooks = false;
  EXPECT_EQ(run_simulation(s).err().code, errc::invalid_parameter);  // nothing would watch
  s.grid_poll_interval = 30;
  auto out = run_simulation(s);
  ASSERT_TRUE(out) << out.err().message;
  int late = 0;
  for (const auto& j : out->grid_jobs) {
    EXPECT_EQ(j.state, grid_job_state::completed);
    EXPECT_GE(j.ended - j.started, 100);
    EXPECT_LT(j.ended - j.started, 100 + 30);
    late += j.ended - j.started > 100 ? 1 : 0;
  }
  EXPECT_GT(late, 0);
}

// A cluster whose nodes all fail under a running grid job (experiment 5's failure rows): the
// copy is lost, the job placed again on another cluster and run to its end there, or, with no
// resubmission asked for, failed; a local job that arrives for the failed cluster later never
// starts, and the one running there ends lost.
TEST(driver, AClusterThatFailsLosesItsJobsAndGridJobsArePlacedAgain) {
  for (int resubmits : {2, 0}) {
    SCOPED_TRACE(resubmits);
    scenario s;
    s.clusters = {{.name = "a", .cpus = 8}, {.name = "b", .cpus = 8}};
    auto on = [](std::int64_t id, int cluster, timestamp at, int np, duration d) {
      auto j = job(id, at, np, d, d);
      j.cluster = cluster;
      return j;
    };
    s.jobs = {on(1, 1, 0, 8, 500), on(2, 0, 0, 4, 1000), on(3, 0, 300, 4, 100)};
    msg::grid_submit_request r;
    r.user = "alice";
    r.np = 4;
    r.walltime = 1000;
    r.max_resubmits = resubmits;
    s.grid_jobs.push_back({10, 10, r});  // a has room, b is full
    s.failures.push_back({0, 200});
    auto out = run_simulation(s);
    ASSERT_TRUE(out) << out.err().message;
    const auto& j = out->grid_jobs.at(0);
    ASSERT_GE(j.copies.size(), 1u);
    EXPECT_EQ(j.copies[0].cluster, "a");
    EXPECT_EQ(j.copies[0].started, 10);
    EXPECT_TRUE(j.copies[0].lost);
    EXPECT_EQ(j.copies[0].ended, 200);
    if (resubmits > 0) {
      ASSERT_EQ(j.copies.size(), 2u);
      EXPECT_EQ(j.copies[1].cluster, "b");
      EXPECT_EQ(j.copies[1].started, 500);  // once b's local job ended
      EXPECT_EQ(j.state, grid_job_state::completed);
      EXPECT_EQ(j.resubmits, 1);
    } else {
      EXPECT_EQ(j.copies.size(), 1u);
      EXPECT_EQ(j.state, grid_job_state::failed);
    }
    EXPECT_EQ(out->jobs[1].end, 200);   // lost with its cluster
    EXPECT_EQ(out->jobs[2].start, -1);  // arrived for a failed cluster
  }
  scenario bad;
  bad.clusters = {{.name = "a", .cpus = 8}};
  bad.jobs = {job(1, 0, 1, 10, 10)};
  bad.failures.push_back({3, 5});
  EXPECT_EQ(run_simulation(bad).err().code, errc::invalid_parameter);
}

TEST(driver, GridJobsAreDeterministic) {
  auto one = run_simulation(grid_scenario());
  auto two = run_simulation(grid_scenario());
  ASSERT_TRUE(one && two);
  EXPECT_EQ(one->grid_jobs, two->grid_jobs);
  EXPECT_EQ(one->end_time, two->end_time);
}

}  // namespace
}  // namespace arbroker::sim
