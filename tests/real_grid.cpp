// The real-grid fixture's helpers that submit local jobs and check what the engine makes of
// them (real_grid.hpp).

#include "real_grid.hpp"

namespace arbroker::testing {

// One full-size local job runs for up to 20 min and a second one waits behind it, both
// submitted directly to the batch system. The LRMS would accept a reservation right after
// the first (queued jobs hold no CPUs), but under LJP (the default `ese` check) the whole
// cluster is vacant only after the queued job's planned run, at now + 20 + 20 min. Start
// times every ~4 min make sure an earlier one was on offer.
void real_grid::expect_not_overtaken(const std::string& cluster, lrms& l,
                                     const std::string& running, const start_signal& started) {
  ASSERT_TRUE(started.wait(20)) << "the local job did not start";
  // Its process runs, so the LRMS has dispatched it.
  ASSERT_EQ(l.job_status(running).value_or(lrms_job_state::queued), lrms_job_state::running);
  const timestamp now = wall_clock()();
  auto req = elastic(cpus[cluster], cpus[cluster], 60, 4 * 3600, 600);
  req.clusters = {cluster};
  req.tsn_max = 64;
  auto reply = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  EXPECT_GE(reply.reservation.start, now + 40 * 60 - 120);
  auto q = ask<msg::query_reply>(broker, msg::query_request{"root", reply.reservation.id});
  EXPECT_GE(q.info.start, now + 40 * 60 - 120);  // the plan counted the queued job
}

std::string real_grid::sbatch_whole(const std::string& conf, int minutes,
                                    const start_signal& started) {
  return sbatch(conf, cpus[conf == conf1 ? "slurm1" : "slurm2"], minutes, started);
}

std::string real_grid::sbatch(const std::string& conf, int np, int minutes,
                              const start_signal& started) {
  return sbatch_with(conf,
                     {"-n", std::to_string(np), "-t", std::to_string(minutes), started.script()});
}

std::string real_grid::qsub_whole(int minutes, const start_signal& started) {
  return qsub(cpus["sge"], minutes, started);
}

std::string real_grid::qsub(int np, int minutes, const start_signal& started) {
  return qsub_with({"-l", "h_rt=" + std::to_string(minutes * 60), "-pe", "arb", std::to_string(np),
                    started.script()});
}

std::string real_grid::sbatch_with(const std::string& conf, std::vector<std::string> options) {
  process_spec p;
  p.argv = {"sbatch", "--parsable", "-o", "/dev/null"};
  p.argv.insert(p.argv.end(), options.begin(), options.end());
  p.env = {{"SLURM_CONF", conf}};
  auto id = submitted_id(run_process(p));
  jobs.emplace_back(conf, id);
  return id;
}

std::string real_grid::qsub_with(std::vector<std::string> options) {
  process_spec p;
  p.argv = {"/usr/lib/gridengine/qsub", "-terse", "-b", "y", "-o", "/dev/null", "-e", "/dev/null"};
  p.argv.insert(p.argv.end(), options.begin(), options.end());
  p.env = {{"SGE_ROOT", ge_conf().sge_root}, {"SGE_CELL", ge_conf().sge_cell}, {"TZ", "UTC"}};
  auto id = submitted_id(run_process(p));
  ge_jobs.push_back(id);
  return id;
}

// Paper 004's Local Jobs Preferred, checked by the default `ese` method, on a real batch
// system: N - 1 CPUs run for 5 min and 1 CPU for 60 min (local jobs, straight to the batch
// system), and an N-CPU job of 10 min waits for them, planned at +60 min. T_wkl is about
// +22 min, so paper 000's rule would admit N - 1 CPUs over [+30, +70) min and push the
// queued job to +70; the service refuses it as postponing a local job, and admits the
// vacancy [+30, +58) min, which the LRMS then holds and which leaves the plan as it was.
void real_grid::expect_vacancies_only(
    const std::string& cluster, lrms& l,
    const std::function<std::string(int, int, const start_signal&)>& submit) {
  const int n = cpus[cluster];
  ASSERT_GE(n, 2);
  start_signal wide_started, narrow_started, queued_started;
  (void)submit(n - 1, 5, wide_started);
  (void)submit(1, 60, narrow_started);
  ASSERT_TRUE(wide_started.wait(20)) << "the local job of " << n - 1 << " CPUs did not start";
  ASSERT_TRUE(narrow_started.wait(20)) << "the local job of 1 CPU did not start";
  (void)submit(n, 10, queued_started);
  auto planned = [&] {
    auto snap = l.snapshot();
    EXPECT_TRUE(snap);
    auto plan = plan_workload(to_workload(*snap), snap->now, ese_policy::local_jobs_preferred);
    EXPECT_TRUE(plan);
    return plan && plan->queued_starts.size() == 1 ? plan->queued_starts[0] - snap->now : -1;
  };
  const duration queued_at = planned();
  ASSERT_GE(queued_at, 59 * 60);
  ASSERT_LE(queued_at, 61 * 60);
  const timestamp now = wall_clock()();
  auto prepare = [&](const std::string& txn, duration from, duration to) {
    msg::prepare_request p{.txn = prefix + txn,
                           .owner = "root",
                           .start = now + from,
                           .end = now + to,
                           .np = n - 1,
                           .expiry = now + 300,
                           .commit_at_once = true};
    msg::prepare_reply out;
    self->request(crs[cluster], std::chrono::seconds(90), msg::call_tag{1}, p)
        .receive([&](msg::call_tag, msg::prepare_reply& r) { out = std::move(r); },
                 [&](caf::error& e) { ADD_FAILURE() << "no reply: " << sys.render(e); });
    return out;
  };
  auto pushed = prepare("ljp-push", 30 * 60, 70 * 60);
  EXPECT_EQ(pushed.error.code, static_cast<std::uint8_t>(errc::busy)) << pushed.error.message;
  EXPECT_NE(pushed.error.message.find("postpone queued local jobs"), std::string::npos)
      << pushed.error.message;
  EXPECT_TRUE(ours(l).empty());
  auto vacancy = prepare("ljp-vacancy", 30 * 60, 58 * 60);
  ASSERT_TRUE(vacancy.error.ok()) << vacancy.error.message;
  ASSERT_EQ(ours(l).size(), 1u);  // the batch system holds it
  const duration after = planned();
  EXPECT_GE(after, 59 * 60);
  EXPECT_LE(after, queued_at + 60);  // the queued job did not move (a minute of clock)
}

}  // namespace arbroker::testing
