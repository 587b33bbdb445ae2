#pragma once

// The fixture of the tests end to end through the actor engine on real batch systems: two
// independent Slurm clusters (two slurmctld instances started by the Slurm fixture) and one
// Grid Engine cell (started by the Grid Engine fixture), each behind its own cluster
// reservation service, with the GIS and the broker on CAF's normal multi-threaded scheduler
// and the wall clock; local jobs submitted straight to the batch systems.

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
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

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

namespace arbroker::testing {

// The id a submission command printed (sbatch --parsable, qsub -terse).
inline std::string submitted_id(const result<process_output>& out) {
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

inline const std::string slurm_run = ARB_SLURM_RUN_DIR;
inline const std::string conf1 = slurm_run + "/arbtest/slurm.conf";
inline const std::string conf2 = slurm_run + "/arbtest2/slurm.conf";

struct config : caf::actor_system_config {
  config() { configure_engine(*this); }
};

// Names unique to this run, so that leftovers of other runs can never collide with ours.
inline std::string run_prefix() {
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
    auto nodes = backend->node_groups();  // what a node publishes of a real cluster's nodes
    ASSERT_TRUE(nodes) << name << ": " << to_string(nodes.err());
    c.info.nodes = std::move(*nodes);
    msg::add_node_features(c.info);
    c.refresh = refresh;
    c.name_prefix = prefix;
    c.cost = *cost_model::create(unit_cost, 3600, {}, 0);
    auto svc = cluster_service::create(c, std::move(backend));
    ASSERT_TRUE(svc) << to_string(svc.err());
    // Real adapters block for milliseconds: each service gets a thread of its own.
    auto h = spawn_cluster_service(sys, std::shared_ptr<cluster_service>(std::move(*svc)),
                                   wall_clock(), {.detached = true});
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
    msg::set_linear_work(r, np_min, np_max, dur, np_min);
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

}  // namespace arbroker::testing
