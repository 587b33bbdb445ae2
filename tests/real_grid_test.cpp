// End to end through the actor engine on real batch systems: two independent Slurm clusters
// (two slurmctld instances started by the Slurm fixture) and one Grid Engine cell (started
// by the Grid Engine fixture), each behind its own cluster reservation service, with the
// GIS and the broker on CAF's normal multi-threaded scheduler and the wall clock.

#include <gtest/gtest.h>
#include <caf/all.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "arbroker/actors/broker.hpp"
#include "arbroker/actors/cluster_service_actor.hpp"
#include "arbroker/actors/gis.hpp"
#include "arbroker/actors/grid_jobs.hpp"
#include "arbroker/adapters/gridengine_lrms.hpp"
#include "arbroker/adapters/slurm_lrms.hpp"
#include "arbroker/adapters/subprocess.hpp"
#include "arbroker/core/earliest_start.hpp"
#include "arbroker/core/reservation_state.hpp"
#include "arbroker/messages/checked_requests.hpp"

namespace arbroker {
namespace {

class start_signal;

const std::string slurm_run = ARB_SLURM_RUN_DIR;
const std::string conf1 = slurm_run + "/arbtest/slurm.conf";
const std::string conf2 = slurm_run + "/arbtest2/slurm.conf";

struct config : caf::actor_system_config {
  config() { configure_engine(*this); }
};

// Names unique to this run, so that leftovers of other runs can never collide with ours.
std::string run_prefix() {
  return "arb-e2e" + std::to_string(::getpid()) + "x" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 100000) + "-";
}

class real_grid : public ::testing::Test {
 protected:
  real_grid() : sys(cfg), self(sys) {}

  void SetUp() override {
    prefix = run_prefix();
    gis = spawn_gis(sys);
    add("slurm1", std::make_unique<slurm_lrms>(slurm_opts(conf1)), 0.5);
    add("slurm2", std::make_unique<slurm_lrms>(slurm_opts(conf2)), 1.0, slurm2_refresh);
    add("sge", std::make_unique<gridengine_lrms>(ge_conf()), 2.0);
    broker_config bc;
    bc.gis = gis;
    bc.clock = wall_clock();
    bc.request_timeout = 60;
    broker = spawn_broker(sys, bc);
  }

  void TearDown() override {
    // Remove whatever this run left in the real LRMSs (every test checks its own effects
    // before it gets here).
    // Jobs first: a batch system keeps a reservation that a job still names.
    slurm_lrms s1(slurm_opts(conf1)), s2(slurm_opts(conf2));
    gridengine_lrms ge(ge_conf());
    for (const auto& [job_conf, id] : jobs)
      (void)slurm_lrms(slurm_opts(job_conf)).cancel_job(id);
    for (const auto& id : ge_jobs)
      (void)ge.cancel_job(id);
    for (lrms* l : std::initializer_list<lrms*>{&s1, &s2, &ge})
      if (auto snap = l->snapshot())
        for (const auto& r : snap->reservations)
          if (r.name.rfind(prefix, 0) == 0) (void)l->delete_reservation(r.id);
    for (auto& [name, h] : crs)
      self->send_exit(h, caf::exit_reason::user_shutdown);
    self->send_exit(broker, caf::exit_reason::user_shutdown);
    self->send_exit(gis, caf::exit_reason::user_shutdown);
  }

  slurm_options slurm_opts(const std::string& conf) {
    slurm_options o;
    o.conf = conf;
    o.prefix = "arb-";
    return o;
  }
  static gridengine_config ge_conf() { return {}; }

  void add(const std::string& name, std::unique_ptr<lrms> backend, double unit_cost,
           duration refresh = 0) {
    auto snap = backend->snapshot();
    ASSERT_TRUE(snap) << name << ": " << to_string(snap.err());
    cluster_service_config c;
    c.info.name = name;
    c.info.cpus = snap->cpus;
    c.info.pp = 1000;
    c.refresh = refresh;
    c.name_prefix = prefix;
    c.cost = *cost_model::create(unit_cost, 3600, {}, 0);
    auto svc = cluster_service::create(c, std::move(backend));
    ASSERT_TRUE(svc) << to_string(svc.err());
    // Real adapters block for milliseconds: each service gets a thread of its own.
    auto h = spawn_cluster_service(sys, std::shared_ptr<cluster_service>(std::move(*svc)),
                                   wall_clock(), true);
    crs[name] = h;
    cpus[name] = snap->cpus;
    auto ack = ask<msg::ack_reply>(gis, register_atom::value, c.info, h);
    ASSERT_TRUE(ack.error.ok());
  }

  // Client requests enter the engine checked, as the node checks them.
  static msg::checked_elastic_request engine_form(const msg::elastic_request& r) {
    auto c = msg::check(r);
    EXPECT_TRUE(c) << c.err().message;
    return c ? std::move(*c) : msg::checked_elastic_request{};
  }
  static msg::checked_coreservation_request engine_form(const msg::coreservation_request& r) {
    auto c = msg::check(r);
    EXPECT_TRUE(c) << c.err().message;
    return c ? std::move(*c) : msg::checked_coreservation_request{};
  }
  template <class T>
  static const T& engine_form(const T& x) {
    return x;
  }

  template <class Reply, class Handle, class... Ts>
  Reply ask(const Handle& dest, const Ts&... xs) {
    Reply out{};
    self->request(dest, std::chrono::seconds(90), engine_form(xs)...)
        .receive([&](Reply& r) { out = std::move(r); },
                 [&](caf::error& e) { ADD_FAILURE() << "no reply: " << sys.render(e); });
    return out;
  }

  /// This run's reservations in one real LRMS.
  std::vector<lrms_reservation> ours(lrms& l) {
    std::vector<lrms_reservation> out;
    auto snap = l.snapshot();
    EXPECT_TRUE(snap);
    if (snap)
      for (const auto& r : snap->reservations)
        if (r.name.rfind(prefix, 0) == 0) out.push_back(r);
    return out;
  }

  msg::elastic_request elastic(int np_min, int np_max, duration offset, duration window,
                               duration dur) {
    msg::elastic_request r;
    r.user = "root";
    r.est = wall_clock()() + offset;
    r.let = r.est + window;
    r.np_min = np_min;
    r.np_max = np_max;
    r.dur_ref = dur;
    r.pp_ref = 1000;
    r.np_ref = np_min;
    r.speedup = msg::to_spec(*speedup_model::amdahl(0));
    r.prefer = *parse_preferences("end,cost");
    r.tsn_max = 4;
    r.tss_gap = 60;
    return r;
  }

  void expect_not_overtaken(const std::string& cluster, lrms& l, const std::string& running,
                            const start_signal& started);
  /// When running job `id` of `l` ends by its LRMS: its start plus its time limit.
  static timestamp running_job_end(lrms& l, const std::string& id) {
    auto snap = l.jobs_snapshot();
    EXPECT_TRUE(snap) << l.kind();
    if (snap)
      for (const auto& j : snap->running)
        if (j.id == id && j.started) return *j.started + j.walltime;
    ADD_FAILURE() << id << " is not running in " << l.kind();
    return 0;
  }
  // A local job of the whole cluster for `minutes`, straight to the batch system (sbatch,
  // qsub); remembered for clean-up. Its script signals `started` when it runs.
  std::string sbatch_whole(const std::string& conf, int minutes, const start_signal& started);
  std::string qsub_whole(int minutes, const start_signal& started);
  std::string sbatch(const std::string& conf, int np, int minutes, const start_signal& started);
  std::string qsub(int np, int minutes, const start_signal& started);
  // A local job straight to the batch system with these options, ending with what it runs
  // (a script, or sbatch's --wrap); remembered for clean-up. qsub runs in UTC (its -a).
  std::string sbatch_with(const std::string& conf, std::vector<std::string> options);
  std::string qsub_with(std::vector<std::string> options);
  void expect_vacancies_only(
      const std::string& cluster, lrms& l,
      const std::function<std::string(int, int, const start_signal&)>& submit);

  duration slurm2_refresh = 0;
  config cfg;
  caf::actor_system sys;
  caf::scoped_actor self;
  std::string prefix;
  gis_actor gis;
  broker_actor broker;
  std::map<std::string, cluster_service_actor> crs;
  std::map<std::string, int> cpus;
  std::vector<std::pair<std::string, std::string>> jobs;  ///< (slurm.conf, job id) to cancel
  std::vector<std::string> ge_jobs;                       ///< Grid Engine job ids to cancel
};

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
  c.np_min = c.np_max = c.np_ref = np;
  c.dur_ref = 1800;
  c.pp_ref = 1000;
  c.speedup = msg::to_spec(*speedup_model::amdahl(0));
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

// The id a submission command printed (sbatch --parsable, qsub -terse).
std::string submitted_id(const result<process_output>& out) {
  EXPECT_TRUE(out && out->ok()) << (out ? out->err : to_string(out.err()));
  std::string id = out ? out->out : "";
  while (!id.empty() && (id.back() == '\n' || id.back() == ' '))
    id.pop_back();
  return id;
}

// A job script that says when it starts: it writes to a FIFO this test reads, so the test
// waits on that event (poll with a deadline) instead of asking the LRMS over and over.
// The reader is opened before the job is submitted, so the job's write never blocks.
class start_signal {
 public:
  start_signal() {
    char tmpl[] = "/tmp/arb-grid-start-XXXXXX";
    if (!::mkdtemp(tmpl)) return;
    dir_ = tmpl;
    fifo_ = dir_ + "/started";
    script_ = dir_ + "/job.sh";
    if (::mkfifo(fifo_.c_str(), 0600) != 0) return;
    fd_ = ::open(fifo_.c_str(), O_RDONLY | O_NONBLOCK);
    std::ofstream(script_) << "#!/bin/sh\necho up > " << fifo_ << "\nexec sleep 3600\n";
    ::chmod(script_.c_str(), 0700);
  }
  ~start_signal() {
    if (fd_ >= 0) ::close(fd_);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  start_signal(const start_signal&) = delete;
  start_signal& operator=(const start_signal&) = delete;

  const std::string& script() const { return script_; }

  /// True once the job has started, false after `seconds` without it.
  bool wait(int seconds) const {
    if (fd_ < 0) return false;
    pollfd p{fd_, POLLIN, 0};
    // Linux reports no hang-up on a FIFO that never had a writer, so this waits for data.
    return ::poll(&p, 1, seconds * 1000) == 1 && (p.revents & POLLIN);
  }

 private:
  std::string dir_, fifo_, script_;
  int fd_ = -1;
};

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

// -- grid jobs on the real batch systems --------------------------------------------------

struct real_grid_jobs : real_grid {
  void SetUp() override {
    real_grid::SetUp();
    grid_jobs_config c;
    c.node = "e2e";
    c.gis = gis;
    c.clock = wall_clock();
    c.poll_interval = 0;  // rounds when the test asks
    c.adaptation_interval = 0;
    manager = spawn_grid_jobs(sys, c);
  }
  void TearDown() override {
    self->send_exit(manager, caf::exit_reason::user_shutdown);
    real_grid::TearDown();
  }

  msg::grid_submit_request grid_job(grid_strategy s, int width) {
    msg::grid_submit_request r;
    r.user = "root";
    r.name = "e2e";
    r.command = "sleep 600";
    r.np = 2;
    r.walltime = 900;
    r.strategy = s;
    r.width = width;
    return r;
  }

  msg::grid_job_info show(const std::string& id) {
    return ask<msg::grid_job_reply>(manager, msg::grid_query_request{"root", id}).job;
  }

  // Polls the LRMSs through the manager until `done` holds (the real schedulers start jobs
  // within seconds), for at most 60 s.
  template <class Pred>
  msg::grid_job_info until(const std::string& id, Pred done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (;;) {
      (void)ask<std::int32_t>(manager, poll_atom::value);
      auto j = show(id);
      if (done(j) || std::chrono::steady_clock::now() > deadline) return j;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }

  // Whether the LRMS of `cluster` still has `lrms_id` in its queue or running.
  bool in_lrms(const std::string& cluster, const std::string& lrms_id) {
    std::unique_ptr<lrms> l;
    if (cluster == "sge")
      l = std::make_unique<gridengine_lrms>(ge_conf());
    else
      l = std::make_unique<slurm_lrms>(slurm_opts(cluster == "slurm1" ? conf1 : conf2));
    auto st = l->job_status(lrms_id);
    return st && (*st == lrms_job_state::queued || *st == lrms_job_state::running);
  }

  void remember(const msg::grid_job_info& j) {
    for (const auto& c : j.copies) {
      if (c.lrms_id.empty()) continue;
      if (c.cluster == "sge")
        ge_jobs.push_back(c.lrms_id);
      else
        jobs.emplace_back(c.cluster == "slurm1" ? conf1 : conf2, c.lrms_id);
    }
  }

  grid_jobs_actor manager;
};

TEST_F(real_grid_jobs, FloodRunsWhereItCanStartAndLeavesNoOtherCopyInAnyQueue) {
  start_signal s1, sg;
  sbatch_whole(conf1, 20, s1);
  qsub_whole(20, sg);
  ASSERT_TRUE(s1.wait(30) && sg.wait(30)) << "the local jobs did not start";
  auto sub = ask<msg::grid_job_reply>(manager, grid_job(grid_strategy::flood, 3));
  ASSERT_TRUE(sub.error.ok()) << sub.error.message;
  remember(sub.job);
  ASSERT_EQ(sub.job.copies.size(), 3u);
  auto j = until(sub.job.id, [](const auto& x) {
    return x.state == grid_job_state::running &&
           std::none_of(x.copies.begin(), x.copies.end(),
                        [](const auto& c) { return c.state == copy_state::queued; });
  });
  ASSERT_EQ(j.state, grid_job_state::running);
  ASSERT_GE(j.winner, 0);
  EXPECT_EQ(j.copies[static_cast<std::size_t>(j.winner)].cluster, "slurm2");
  for (std::size_t i = 0; i < j.copies.size(); ++i) {
    const auto& c = j.copies[i];
    EXPECT_EQ(in_lrms(c.cluster, c.lrms_id), static_cast<int>(i) == j.winner)
        << c.cluster << " " << c.lrms_id;  // squeue/qstat: only the winner is left
  }
  EXPECT_EQ(j.duplicate_starts, 0);
}

// Issue 33: slurm1 and the Grid Engine cell are full for 20 minutes, slurm2 is half busy for
// as long. A job of 2 CPUs runs where it can start at once (slurm2) whatever its strategy:
// placed by `single`, the first placement of `adaptive`, the flood's winner (its other copies
// withdrawn) and the reservation `reserve` keeps (the others released). Paper 004's SED,
// with its W_max x ceil(busy/CPUs) over a long W_max, cannot tell a full cluster from a
// partly busy one: `--rank sed` sends single and adaptive to the full Grid Engine cell.
TEST_F(real_grid_jobs, EveryStrategyStartsAtOnceOnThePartlyBusyCluster) {
  start_signal s1, s2, sg;
  sbatch_whole(conf1, 20, s1);
  sbatch(conf2, cpus["slurm2"] / 2, 20, s2);
  qsub_whole(20, sg);
  ASSERT_TRUE(s1.wait(30) && s2.wait(30) && sg.wait(30)) << "the local jobs did not start";
  for (const auto strategy : {grid_strategy::single, grid_strategy::adaptive, grid_strategy::flood,
                              grid_strategy::reserve}) {
    SCOPED_TRACE(std::string(to_string(strategy)));
    const bool wide = strategy == grid_strategy::flood || strategy == grid_strategy::reserve;
    auto sub = ask<msg::grid_job_reply>(manager, grid_job(strategy, wide ? 3 : 1));
    ASSERT_TRUE(sub.error.ok()) << sub.error.message;
    remember(sub.job);
    auto j = until(sub.job.id, [](const auto& x) {
      return x.state == grid_job_state::running &&
             std::none_of(x.copies.begin(), x.copies.end(),
                          [](const auto& c) { return c.state == copy_state::queued; });
    });
    ASSERT_EQ(j.state, grid_job_state::running);
    const auto runs = std::find_if(j.copies.begin(), j.copies.end(),
                                   [](const auto& c) { return c.state == copy_state::running; });
    ASSERT_NE(runs, j.copies.end());
    EXPECT_EQ(runs->cluster, "slurm2");
    for (const auto& c : j.copies)  // squeue/qstat: only the running copy is left
      EXPECT_EQ(in_lrms(c.cluster, c.lrms_id), &c == &*runs) << c.cluster << " " << c.lrms_id;
    if (strategy == grid_strategy::reserve) {
      EXPECT_EQ(j.reservation.rfind("slurm2/", 0), 0u) << j.reservation;
      slurm_lrms sl1(slurm_opts(conf1));
      gridengine_lrms ge(ge_conf());
      EXPECT_TRUE(ours(sl1).empty() && ours(ge).empty());  // the other holds were released
    }
    // Cancelled and gone from slurm2's queue, so that the next job finds its CPUs free.
    (void)ask<msg::grid_job_reply>(manager, msg::grid_cancel_request{"root", sub.job.id});
    auto gone = until(sub.job.id, [&](const auto& x) {
      return std::none_of(x.copies.begin(), x.copies.end(),
                          [&](const auto& c) { return in_lrms(c.cluster, c.lrms_id); });
    });
    ASSERT_EQ(gone.state, grid_job_state::cancelled);
  }
}

TEST_F(real_grid_jobs, AdaptiveJobMigratesWhenTheOtherQueueDrainsAndRunsOnce) {
  start_signal s1, s2;
  sbatch_whole(conf1, 20, s1);
  const auto blocker2 = sbatch_whole(conf2, 40, s2);
  ASSERT_TRUE(s1.wait(30) && s2.wait(30)) << "the local jobs did not start";
  auto r = grid_job(grid_strategy::adaptive, 1);
  r.clusters = {"slurm1", "slurm2"};
  auto sub = ask<msg::grid_job_reply>(manager, r);
  ASSERT_TRUE(sub.error.ok()) << sub.error.message;
  remember(sub.job);
  ASSERT_EQ(sub.job.copies.at(0).cluster, "slurm1");  // its queue ends first (20 < 40 min)
  (void)ask<std::int32_t>(manager, adapt_atom::value);
  EXPECT_EQ(show(sub.job.id).migrations, 0);
  // slurm2's queue drains: the job should move there.
  ASSERT_TRUE(slurm_lrms(slurm_opts(conf2)).cancel_job(blocker2));
  (void)ask<std::int32_t>(manager, adapt_atom::value);
  auto moved = show(sub.job.id);
  remember(moved);
  ASSERT_EQ(moved.migrations, 1);
  ASSERT_EQ(moved.copies.size(), 2u);
  EXPECT_EQ(moved.copies[1].cluster, "slurm2");
  EXPECT_FALSE(in_lrms("slurm1", moved.copies[0].lrms_id));
  auto j = until(sub.job.id, [](const auto& x) { return x.state == grid_job_state::running; });
  ASSERT_EQ(j.state, grid_job_state::running);
  EXPECT_EQ(j.winner, 1);
  EXPECT_FALSE(in_lrms("slurm1", j.copies[0].lrms_id));  // it runs exactly once
  EXPECT_TRUE(in_lrms("slurm2", j.copies[1].lrms_id));
}

// Issue 33: with every cluster full (a local job of all its CPUs for 20 minutes), the reserve
// strategy holds right after the running jobs where each batch system accepts it. Each hold
// used to start exactly at a job's end, which Slurm and Grid Engine refuse: "no cluster
// granted a hold".
TEST_F(real_grid_jobs, ReserveOnFullClustersHoldsWhereTheBatchSystemsAccept) {
  start_signal s1, s2, sg;
  const timestamp before = wall_clock()();  // the local jobs end 20 minutes after this, or later
  sbatch_whole(conf1, 20, s1);
  sbatch_whole(conf2, 20, s2);
  qsub_whole(20, sg);
  ASSERT_TRUE(s1.wait(30) && s2.wait(30) && sg.wait(30)) << "the local jobs did not start";
  auto sub = ask<msg::grid_job_reply>(manager, grid_job(grid_strategy::reserve, 3));
  ASSERT_TRUE(sub.error.ok()) << sub.error.message;
  remember(sub.job);
  ASSERT_FALSE(sub.job.reservation.empty()) << sub.job.history.back().what;
  std::string refused;
  for (const auto& e : sub.job.history)
    if (e.what.rfind("no hold at ", 0) == 0) refused += e.what + "; ";
  EXPECT_EQ(refused, "");  // every full cluster granted its hold
  const auto where = sub.job.reservation.substr(0, sub.job.reservation.find('/'));
  auto q = ask<msg::query_reply>(crs.at(where), msg::query_request{"root", sub.job.reservation});
  ASSERT_TRUE(q.error.ok()) << q.error.message;
  EXPECT_GE(q.info.start, before + 20 * 60);  // after the running job, not over it
  EXPECT_EQ(q.info.state, reservation_state::committed);
}

TEST_F(real_grid_jobs, ReserveKeepsOneReservationAndReleasesTheOthers) {
  auto sub = ask<msg::grid_job_reply>(manager, grid_job(grid_strategy::reserve, 3));
  ASSERT_TRUE(sub.error.ok()) << sub.error.message;
  remember(sub.job);
  ASSERT_FALSE(sub.job.reservation.empty());
  slurm_lrms s1(slurm_opts(conf1)), s2(slurm_opts(conf2));
  gridengine_lrms ge(ge_conf());
  std::size_t held = 0;
  for (lrms* l : std::initializer_list<lrms*>{&s1, &s2, &ge})
    held += ours(*l).size();
  EXPECT_EQ(held, 1u);  // the kept one; the other two holds were released in the LRMSs
  ASSERT_EQ(sub.job.copies.size(), 1u);
  EXPECT_TRUE(in_lrms(sub.job.copies[0].cluster, sub.job.copies[0].lrms_id));
  auto c = ask<msg::grid_job_reply>(manager, msg::grid_cancel_request{"root", sub.job.id});
  ASSERT_TRUE(c.error.ok()) << c.error.message;
  auto after =
      until(sub.job.id, [](const auto& x) { return x.copies[0].state == copy_state::cancelled; });
  EXPECT_FALSE(in_lrms(after.copies[0].cluster, after.copies[0].lrms_id));
  held = 0;
  for (lrms* l : std::initializer_list<lrms*>{&s1, &s2, &ge})
    held += ours(*l).size();
  EXPECT_EQ(held, 0u);
}

}  // namespace
}  // namespace arbroker
