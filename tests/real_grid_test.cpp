// End to end through the actor engine on real batch systems (real_grid.hpp): reservations,
// co-reservations and commits with jobs, and what local jobs (running, queued, held, waiting
// for a begin time or a dependency) leave to reservations. Grid jobs: real_grid_jobs_test.cpp.

#include "real_grid.hpp"

namespace arbroker {
namespace {

using namespace arbroker::testing;

TEST_F(real_grid, ElasticRequestLandsOnTheBestCluster) {
  // 2 to 8 CPUs, an hour of work on 2 CPUs: 8 CPUs end first; slurm1 (8 CPUs) and the
  // Grid Engine cell (8 slots) tie on end, slurm1 is cheaper.
  auto reply = ask<msg::elastic_reply>(broker, elastic(2, 8, 300, 3 * 3600, 3600));
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  EXPECT_EQ(reply.reservation.cluster, "slurm1");
  EXPECT_EQ(reply.reservation.np, 8);
  EXPECT_EQ(reply.reservation.state, reservation_state::committed);
  slurm_lrms s1(slurm_opts(conf1));
  auto real = ours(s1);
  ASSERT_EQ(real.size(), 1u);  // really in Slurm, as asked
  EXPECT_EQ(real[0].np, 8);
  EXPECT_EQ(real[0].start, reply.reservation.start);
  EXPECT_EQ(real[0].end, reply.reservation.end);
  auto cancel = ask<msg::ack_reply>(broker, msg::cancel_request{"root", reply.reservation.id});
  ASSERT_TRUE(cancel.error.ok()) << cancel.error.message;
  EXPECT_TRUE(ours(s1).empty());
}

msg::coreservation_component part(const std::string& cluster, int np) {
  msg::coreservation_component c;
  msg::set_linear_work(c, np, np, 1800, np);
  c.clusters = {cluster};
  return c;
}

TEST_F(real_grid, CoReservationAcrossAllThreeCommitsAtomically) {
  msg::coreservation_request r;
  r.user = "root";
  r.est = wall_clock()() + 600;
  r.let = r.est + 3 * 3600;
  r.components = {part("slurm1", 2), part("slurm2", 2), part("sge", 2)};
  auto reply = ask<msg::coreservation_reply>(broker, r);
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  ASSERT_EQ(reply.parts.size(), 3u);
  slurm_lrms s1(slurm_opts(conf1)), s2(slurm_opts(conf2));
  gridengine_lrms ge(ge_conf());
  for (lrms* l : std::initializer_list<lrms*>{&s1, &s2, &ge}) {
    auto real = ours(*l);
    ASSERT_EQ(real.size(), 1u) << l->kind();
    EXPECT_EQ(real[0].start, reply.parts[0].start) << l->kind();  // one common start
    EXPECT_EQ(real[0].np, 2) << l->kind();
  }
}

// Paper 001's "commit with job(s)" on real batch systems, charged to an account (paper 003):
// a hold committed together with a job bound to its reservation, in one call; a job the batch
// system cannot take (wider than the reservation) leaves the hold held and no job behind.
TEST_F(real_grid, CommitWithAJobBindsItInTheBatchSystem) {
  for (const std::string cluster : {"slurm1", "sge"}) {
    auto req = elastic(2, 2, 600, 2 * 3600, 600);
    req.clusters = {cluster};
    req.mode = msg::request_mode::hold;
    req.account = "physics";  // paper 003: charged to it; its jobs run under it
    auto held = ask<msg::elastic_reply>(broker, req);
    ASSERT_TRUE(held.error.ok()) << cluster << ": " << held.error.message;
    const auto& id = held.reservation.id;
    auto wide = ask<msg::query_reply>(
        broker, msg::commit_request{"root", id, {{prefix + "wide", 3, 60, "/bin/true"}}});
    EXPECT_FALSE(wide.error.ok()) << cluster;
    EXPECT_EQ(wide.info.state, reservation_state::accepted) << cluster;
    auto c = ask<msg::query_reply>(
        broker, msg::commit_request{"root", id, {{prefix + "bound", 2, 300, "/bin/true"}}});
    ASSERT_TRUE(c.error.ok()) << cluster << ": " << c.error.message;
    EXPECT_EQ(c.info.state, reservation_state::committed);
    ASSERT_EQ(c.jobs.size(), 1u);
    if (cluster == "sge")
      ge_jobs.push_back(c.jobs[0]);
    else
      jobs.emplace_back(conf1, c.jobs[0]);
    std::unique_ptr<lrms> l;
    if (cluster == "sge")
      l = std::make_unique<gridengine_lrms>(ge_conf());
    else
      l = std::make_unique<slurm_lrms>(slurm_opts(conf1));
    auto mine = ours(*l);
    ASSERT_EQ(mine.size(), 1u) << cluster;
    // Slurm lets only jobs of a reservation's accounts in: the bound job above carried it.
    if (cluster != "sge") {
      EXPECT_EQ(mine[0].account, "physics");
    }
    auto snap = l->snapshot();
    ASSERT_TRUE(snap);
    int bound = 0;
    for (const auto& j : snap->queued)
      if (j.id == c.jobs[0]) {
        EXPECT_EQ(j.reservation.value_or(""), mine[0].id) << cluster;
        ++bound;
      }
    EXPECT_EQ(bound, 1) << cluster << ": the job waits in the batch system for its reservation";
    // Issue 35 item 6: that job shown and cancelled alone; the reservation and a second job
    // bound to it stay.
    auto shown =
        ask<msg::bound_job_reply>(broker, msg::bound_job_query_request{"root", id, c.jobs[0]});
    ASSERT_TRUE(shown.error.ok()) << cluster << ": " << shown.error.message;
    EXPECT_EQ(shown.job.state, observed_state::queued) << cluster;
    EXPECT_EQ(shown.job.np, 2) << cluster;
    EXPECT_EQ(shown.job.name, prefix + "bound") << cluster;
    auto second = ask<msg::bind_job_reply>(
        broker, msg::bind_job_request{"root", id, prefix + "second", 2, 300, "/bin/true"});
    ASSERT_TRUE(second.error.ok()) << cluster << ": " << second.error.message;
    if (cluster == "sge")
      ge_jobs.push_back(second.job_id);
    else
      jobs.emplace_back(conf1, second.job_id);
    auto cancelled =
        ask<msg::bound_job_reply>(broker, msg::bound_job_cancel_request{"root", id, c.jobs[0]});
    ASSERT_TRUE(cancelled.error.ok()) << cluster << ": " << cancelled.error.message;
    EXPECT_EQ(cancelled.job.state, observed_state::cancelled) << cluster;
    auto gone = l->job_status(c.jobs[0]);
    EXPECT_TRUE(!gone || (*gone != lrms_job_state::queued && *gone != lrms_job_state::running))
        << cluster << ": the cancelled job is out of the queue";
    auto other = l->job_status(second.job_id);
    ASSERT_TRUE(other) << cluster;
    EXPECT_EQ(*other, lrms_job_state::queued) << cluster;
    auto still = ask<msg::query_reply>(broker, msg::query_request{"root", id});
    EXPECT_EQ(still.info.state, reservation_state::committed) << cluster;
    EXPECT_EQ(ours(*l).size(), 1u) << cluster;
  }
}

struct real_grid_stale_view : real_grid {
  real_grid_stale_view() { slurm2_refresh = 3600; }  // slurm2's service trusts an old view
};

TEST_F(real_grid_stale_view, RefusalOnOneClusterRemovesTheHoldsOnTheOthers) {
  // Prime slurm2's view, then fill slurm2 behind the service's back: its probe still offers
  // the window, its LRMS refuses the prepare, and the holds on slurm1 and sge must go.
  ask<msg::cluster_status>(crs["slurm2"], msg::cluster_status_request{});
  slurm_lrms s2(slurm_opts(conf2));
  const timestamp now = wall_clock()();
  auto blocker =
      s2.create_reservation({prefix + "blocker", "root", now + 300, 6 * 3600, cpus["slurm2"]});
  ASSERT_TRUE(blocker) << to_string(blocker.err());
  msg::coreservation_request r;
  r.user = "root";
  r.est = now + 600;
  r.let = r.est + 2 * 3600;
  r.max_attempts = 2;
  r.local_jobs_preferred = false;
  r.admin = true;  // the clusters enforce LJP
  r.components = {part("slurm1", 2), part("slurm2", 2), part("sge", 2)};
  auto reply = ask<msg::coreservation_reply>(broker, r);
  EXPECT_FALSE(reply.error.ok());
  slurm_lrms s1(slurm_opts(conf1));
  gridengine_lrms ge(ge_conf());
  EXPECT_TRUE(ours(s1).empty());  // the hold was aborted in Slurm ...
  EXPECT_TRUE(ours(ge).empty());  // ... and in Grid Engine
  auto left = ours(s2);
  ASSERT_EQ(left.size(), 1u);  // only the blocker
  EXPECT_EQ(left[0].id, *blocker);
}

// Issue 33: on full clusters (a local job of every CPU for 20 minutes on slurm1 and in the
// Grid Engine cell), a hold asked from the job's end, a refusal's suggested start and a
// co-reservation over both are granted where each batch system accepts them, at the first
// proposal: Slurm from the job's EndTime + 1 s, Grid Engine from its end + DURATION_OFFSET
// (60 s). Before, a proposal could start at the job's end, which Slurm refuses ("Requested
// nodes are busy"), and a refusal suggested that same instant.
TEST_F(real_grid, OnFullClustersEveryPathReservesWhereTheLrmsAccepts) {
  start_signal s1, sg;
  const auto job1 = sbatch_whole(conf1, 20, s1);
  const auto jobg = qsub_whole(20, sg);
  ASSERT_TRUE(s1.wait(30) && sg.wait(30)) << "the local jobs did not start";
  slurm_lrms sl(slurm_opts(conf1));
  gridengine_lrms ge(ge_conf());
  // Each job's end (StartTime + TimeLimit) and the LRMS's first free second after it.
  const std::map<std::string, timestamp> job_end{{"slurm1", running_job_end(sl, job1)},
                                                 {"sge", running_job_end(ge, jobg)}};
  const std::map<std::string, duration> margin{{"slurm1", 1}, {"sge", 60}};
  std::map<std::string, timestamp> free_from;
  for (const auto& [cluster, end] : job_end)
    free_from[cluster] = end + margin.at(cluster);
  for (const auto& [cluster, first_free] : free_from) {
    const int np = cpus[cluster];
    // A hold whose first candidate start is the job's end: not proposed (the LRMS refused it
    // before: rejected_by_lrms 1), the hold is granted at a start the LRMS takes.
    auto hold = elastic(np, np, 0, 0, 600);
    hold.clusters = {cluster};
    hold.est = job_end.at(cluster);
    hold.let = hold.est + 2 * 3600;
    hold.mode = msg::request_mode::hold;
    hold.hold_seconds = 60;
    auto held = ask<msg::elastic_reply>(broker, hold);
    ASSERT_TRUE(held.error.ok()) << cluster << ": " << held.error.message;
    EXPECT_GE(held.reservation.start, first_free) << cluster;
    EXPECT_EQ(held.stats.rejected_by_lrms, 0) << cluster;
    ASSERT_TRUE(
        ask<msg::ack_reply>(broker, msg::cancel_request{"root", held.reservation.id}).error.ok());
    // A window that closes before the job has ended: refused, suggesting when it could start.
    auto early = elastic(np, np, 0, 0, 600);
    early.clusters = {cluster};
    early.let = first_free - 30;
    early.est = early.let - 900;
    auto refused = ask<msg::elastic_reply>(broker, early);
    ASSERT_FALSE(refused.error.ok()) << cluster;
    EXPECT_EQ(refused.earliest_alternative, first_free) << cluster << ": " << refused.error.message;
    // That suggestion as the earliest start: granted there, at the first proposal.
    auto at = elastic(np, np, 0, 0, 600);
    at.clusters = {cluster};
    at.est = refused.earliest_alternative;
    at.let = at.est + 3600;
    auto got = ask<msg::elastic_reply>(broker, at);
    ASSERT_TRUE(got.error.ok()) << cluster << ": " << got.error.message;
    EXPECT_EQ(got.reservation.start, first_free) << cluster;
    EXPECT_EQ(got.stats.rejected_by_lrms, 0) << cluster;
    ASSERT_TRUE(
        ask<msg::ack_reply>(broker, msg::cancel_request{"root", got.reservation.id}).error.ok());
  }
  // Both full clusters at one common start: the later of the two first free seconds.
  msg::coreservation_request co;
  co.user = "root";
  co.est = wall_clock()();
  co.let = co.est + 3 * 3600;
  co.components = {part("slurm1", cpus["slurm1"]), part("sge", cpus["sge"])};
  auto both = ask<msg::coreservation_reply>(broker, co);
  ASSERT_TRUE(both.error.ok()) << both.error.message;
  ASSERT_EQ(both.parts.size(), 2u);
  EXPECT_EQ(both.parts[0].start, std::max(free_from.at("slurm1"), free_from.at("sge")));
  EXPECT_EQ(both.attempts, 1);  // no LRMS refused its first common start
}

// Issue 33: a partly busy cluster (a local job of half its CPUs for 20 minutes): a reservation
// of the free half starts when asked, one of all the CPUs from the LRMS's first free second
// after the job, each at the first proposal.
TEST_F(real_grid, OnPartlyBusyClustersTheFreeCpusNowAndAllOfThemAfterTheJob) {
  start_signal s1, sg;
  const auto job1 = sbatch(conf1, cpus["slurm1"] / 2, 20, s1);
  const auto jobg = qsub(cpus["sge"] / 2, 20, sg);
  ASSERT_TRUE(s1.wait(30) && sg.wait(30)) << "the local jobs did not start";
  slurm_lrms sl(slurm_opts(conf1));
  gridengine_lrms ge(ge_conf());
  // Each job's end and the LRMS's margin after it (adapters/README.md).
  const std::map<std::string, std::pair<timestamp, duration>> end_and_margin{
      {"slurm1", {running_job_end(sl, job1), 1}}, {"sge", {running_job_end(ge, jobg), 60}}};
  for (const auto& [cluster, em] : end_and_margin) {
    const auto [job_end, margin] = em;
    const int np = cpus[cluster];
    auto half = elastic(np / 2, np / 2, 120, 0, 600);
    half.clusters = {cluster};
    half.let = half.est + 600;  // one slot: from when it asks
    auto now_half = ask<msg::elastic_reply>(broker, half);
    ASSERT_TRUE(now_half.error.ok()) << cluster << ": " << now_half.error.message;
    EXPECT_EQ(now_half.reservation.start, half.est) << cluster;
    EXPECT_EQ(now_half.stats.rejected_by_lrms, 0) << cluster;
    auto all = elastic(np, np, 0, 0, 600);
    all.clusters = {cluster};
    all.est = job_end;  // the LRMS refuses a start there
    all.let = all.est + 2 * 3600;
    auto later = ask<msg::elastic_reply>(broker, all);
    ASSERT_TRUE(later.error.ok()) << cluster << ": " << later.error.message;
    EXPECT_GE(later.reservation.start, job_end + margin) << cluster;
    EXPECT_EQ(later.stats.rejected_by_lrms, 0) << cluster;
  }
}

// Issue 33: local jobs that wait for something besides CPUs are planned where they will run,
// so that no reservation postpones them (Local Jobs Preferred, `ese`):
//  - a job with a begin time (sbatch --begin=now+180 -n 8 -t 2): a 10-minute reservation of
//    all the CPUs from now + 150 s was admitted, and the job then ran 10 minutes late;
//  - a job that depends on a running one (-d afterany:<1 CPU, 5 min>): it was planned now,
//    and a reservation of all the CPUs at the parent's end took its place.
TEST_F(real_grid, LocalJobsWaitingForABeginTimeOrADependencyAreNotOvertaken) {
  const int np = cpus["slurm1"];
  const timestamp t0 = wall_clock()();
  const auto begun = sbatch_with(
      conf1, {"--begin=now+180", "-n", std::to_string(np), "-t", "2", "--wrap=sleep 600"});
  auto r = elastic(np, np, 0, 0, 600);
  r.clusters = {"slurm1"};
  r.est = t0 + 150;
  r.let = t0 + 13 * 60;
  auto before_it = ask<msg::elastic_reply>(broker, r);
  // Only after the job's two minutes from its begin time, which leaves no room in the window.
  EXPECT_FALSE(before_it.error.ok()) << "admitted at " << before_it.reservation.start;
  EXPECT_GE(before_it.earliest_alternative, t0 + 180 + 120);
  ASSERT_TRUE(slurm_lrms(slurm_opts(conf1)).cancel_job(begun));

  start_signal parent_started;
  const auto parent = sbatch(conf1, 1, 5, parent_started);
  ASSERT_TRUE(parent_started.wait(30)) << "the parent did not start";
  slurm_lrms sl(slurm_opts(conf1));
  const timestamp parent_end = running_job_end(sl, parent);
  (void)sbatch_with(conf1, {"-d", "afterany:" + parent, "-n", std::to_string(np / 2), "-t", "2",
                            "--wrap=sleep 600"});
  auto after = elastic(np, np, 0, 0, 600);
  after.clusters = {"slurm1"};
  after.est = wall_clock()() + 60;
  after.let = after.est + 2 * 3600;
  after.tsn_max = 128;  // candidate starts ~1 minute apart
  auto placed = ask<msg::elastic_reply>(broker, after);
  ASSERT_TRUE(placed.error.ok()) << placed.error.message;
  EXPECT_GE(placed.reservation.start, parent_end + 1 + 120);  // after the child's run
}

// The same on Grid Engine: a job of the whole cell with -a (its begin time) and one with
// -hold_jid (after a running job), both read from qstat and planned as Slurm's are.
TEST_F(real_grid, LocalJobsWaitingForAnExecutionTimeOrAHoldJidAreNotOvertaken) {
  const int np = cpus["sge"];
  const timestamp t0 = wall_clock()();
  char at[32];  // qsub -a [[CC]YY]MMDDhhmm[.SS], in UTC
  const std::time_t begin = t0 + 180;
  std::strftime(at, sizeof at, "%Y%m%d%H%M.%S", std::gmtime(&begin));
  const auto begun = qsub_with(
      {"-a", at, "-pe", "arb", std::to_string(np), "-l", "h_rt=120", "/bin/sleep", "600"});
  auto r = elastic(np, np, 0, 0, 600);
  r.clusters = {"sge"};
  r.est = t0 + 150;
  r.let = t0 + 13 * 60;
  auto before_it = ask<msg::elastic_reply>(broker, r);
  EXPECT_FALSE(before_it.error.ok()) << "admitted at " << before_it.reservation.start;
  EXPECT_GE(before_it.earliest_alternative, t0 + 180 + 120);
  gridengine_lrms ge(ge_conf());
  ASSERT_TRUE(ge.cancel_job(begun));

  start_signal parent_started;
  const auto parent = qsub(1, 5, parent_started);
  ASSERT_TRUE(parent_started.wait(30)) << "the parent did not start";
  const timestamp parent_end = running_job_end(ge, parent);
  // Ten minutes, so that a start after it cannot be a candidate's rounding past the
  // parent's end + DURATION_OFFSET (candidates are ~1 minute apart).
  (void)qsub_with({"-hold_jid", parent, "-pe", "arb", std::to_string(np / 2), "-l", "h_rt=600",
                   "/bin/sleep", "600"});
  auto after = elastic(np, np, 0, 0, 600);
  after.clusters = {"sge"};
  after.est = wall_clock()() + 60;
  after.let = after.est + 2 * 3600;
  after.tsn_max = 128;  // candidate starts ~1 minute apart
  auto placed = ask<msg::elastic_reply>(broker, after);
  ASSERT_TRUE(placed.error.ok()) << placed.error.message;
  // After the child's run, which starts when the parent's slot is free.
  EXPECT_GE(placed.reservation.start, parent_end + ge_conf().duration_offset + 600);
}

// Issue 33: a held local job (scontrol hold / sbatch -H, qhold / qsub -h) is planned as if
// released now, so it blocks a reservation over its CPUs, and the status names it and why.
TEST_F(real_grid, HeldLocalJobsBlockAndTheStatusSaysWhy) {
  const auto held_slurm = sbatch_with(
      conf1, {"-H", "-n", std::to_string(cpus["slurm1"]), "-t", "10", "--wrap=sleep 600"});
  const auto held_ge = qsub_with(
      {"-h", "-pe", "arb", std::to_string(cpus["sge"]), "-l", "h_rt=600", "/bin/sleep", "600"});
  for (const auto& [cluster, id] :
       std::vector<std::pair<std::string, std::string>>{{"slurm1", held_slurm}, {"sge", held_ge}}) {
    SCOPED_TRACE(cluster);
    auto r = elastic(cpus[cluster], cpus[cluster], 60, 5 * 60, 300);
    r.clusters = {cluster};
    auto reply = ask<msg::elastic_reply>(broker, r);
    EXPECT_FALSE(reply.error.ok()) << "admitted at " << reply.reservation.start;
    auto status = ask<msg::cluster_status>(crs[cluster], msg::cluster_status_request{});
    ASSERT_EQ(status.approximated.size(), 1u);
    EXPECT_EQ(status.approximated[0].job, id);
    EXPECT_EQ(status.approximated[0].owner, "root");
    EXPECT_NE(status.approximated[0].reason.find("held"), std::string::npos)
        << status.approximated[0].reason;
  }
}

TEST_F(real_grid, LocalJobsSubmittedWithSbatchAreNotOvertaken) {
  start_signal started;
  const std::string running = sbatch_whole(conf1, 20, started);
  (void)sbatch_whole(conf1, 20, started);  // queued behind it
  slurm_lrms s1(slurm_opts(conf1));
  expect_not_overtaken("slurm1", s1, running, started);
}

TEST_F(real_grid, LocalJobsSubmittedWithQsubAreNotOvertaken) {
  start_signal started;
  const std::string running = qsub_whole(20, started);
  (void)qsub_whole(20, started);  // queued behind it
  gridengine_lrms ge(ge_conf());
  expect_not_overtaken("sge", ge, running, started);
}

TEST_F(real_grid, EseAdmitsOnlyTheVacanciesOfSbatchJobsPlan) {
  slurm_lrms s1(slurm_opts(conf1));
  expect_vacancies_only("slurm1", s1, [this](int np, int minutes, const start_signal& s) {
    return sbatch(conf1, np, minutes, s);
  });
}

TEST_F(real_grid, EseAdmitsOnlyTheVacanciesOfQsubJobsPlan) {
  gridengine_lrms ge(ge_conf());
  expect_vacancies_only("sge", ge, [this](int np, int minutes, const start_signal& s) {
    return qsub(np, minutes, s);
  });
}

}  // namespace
}  // namespace arbroker
