#pragma once

// The grid-job manager's actor on the deterministic engine (engine_fixture.hpp), for the
// tests of grid_jobs_test.cpp and grid_job_dependencies_test.cpp: clusters with simulated
// LRMSs, the manager started over them (with a store if the test sets one), and its requests.

#include "arbroker/actors/grid_jobs.hpp"
#include "arbroker/store/sqlite_journal.hpp"
#include "engine_fixture.hpp"
#include "grid_job_samples.hpp"

namespace arbroker::testing {

class grid_jobs_test : public engine_fixture {
 public:
  ~grid_jobs_test() override {
    if (jobs) self->send_exit(jobs, caf::exit_reason::user_shutdown);
    sched.run();
  }

  void start_manager() {
    grid_jobs_config c;
    c.node = "n";
    c.gis = gis;
    c.clock = clock();
    c.poll_interval = 0;  // rounds only when the test asks
    c.adaptation_interval = 0;
    c.journal = journal;
    c.counters = counters;
    c.ended_in_memory = ended_in_memory;
    c.ended_in_memory_max = ended_in_memory_max;
    c.hold_for_stage_in = hold_for_stage_in;
    if (journal) {
      c.last_serial = *journal->last_grid_job_serial();
      auto recs = load_grid_jobs(*journal);
      EXPECT_TRUE(recs);
      if (recs) c.recovered = std::move(*recs);
    }
    jobs = spawn_grid_jobs(sys, c);
    sched.run();
  }

  // The manager writes to a store in memory (set before start_manager; kept across restarts).
  void use_memory_store() {
    auto opened = sqlite_journal::open(":memory:");
    ASSERT_TRUE(opened) << opened.err().message;
    journal = std::shared_ptr<sqlite_journal>(std::move(*opened));
  }

  // Fills a cluster with a local job of `cpus` CPUs that really runs `runtime` seconds.
  void busy(const std::string& cluster, int cpus, duration walltime, duration runtime) {
    ASSERT_TRUE(
        lrms.at(cluster)->submit_local_job({"local", "local", cpus, walltime, {}, ""}, runtime));
  }

  msg::grid_submit_request job(grid_strategy s, int np = 8, duration walltime = 100) {
    return testing::sample_grid_job(s, 2, np, walltime);
  }

  // Clusters whose data arrives at 1 MB/s (a GB takes 1000 s), then the manager.
  void start_with_slow_links(std::initializer_list<const char*> names) {
    for (const char* name : names)
      add_cluster(name, 8, 1000, 1, 1.0, [](msg::cluster_info& c) { c.bandwidth = 1e6; });
    start_manager();
  }

  // "parent" on cluster b, writing 1 GB; and a job `name` that waits for it.
  msg::grid_submit_request parent_on_b(int np) {
    auto r = job(grid_strategy::single, np, 100);
    r.name = "parent";
    r.clusters = {"b"};
    r.output_bytes = 1'000'000'000;
    return r;
  }
  msg::grid_submit_request child_of_parent(const std::string& name, grid_strategy s, int np) {
    auto r = job(s, np, 100);
    r.name = name;
    r.after = {"parent"};
    return r;
  }

  // A reserve job holding at the best `width` clusters, submitted and answered.
  msg::grid_job_info submit_reserve(int width) {
    auto r = job(grid_strategy::reserve);
    r.width = width;
    return submit(r);
  }

  msg::grid_job_info submit(msg::grid_submit_request r) {
    auto rep = ask<msg::grid_job_reply>(jobs, std::move(r));
    EXPECT_TRUE(rep.error.ok()) << rep.error.message;
    return rep.job;
  }

  msg::grid_job_info show(const std::string& id, const std::string& user = "alice") {
    auto rep = ask<msg::grid_job_reply>(jobs, msg::grid_query_request{user, id});
    EXPECT_TRUE(rep.error.ok()) << rep.error.message;
    return rep.job;
  }

  void poll() { (void)ask<std::int32_t>(jobs, poll_atom::value); }
  void adapt() { (void)ask<std::int32_t>(jobs, adapt_atom::value); }

  // Jobs of ours (not local ones) queued or running in a cluster's LRMS.
  std::size_t ours_in(const std::string& cluster) {
    auto s = lrms.at(cluster)->snapshot();
    std::size_t n = 0;
    for (const auto* list : {&s->running, &s->queued})
      for (const auto& j : *list)
        n += j.owner == "alice";
    return n;
  }

  grid_jobs_actor jobs;
  std::shared_ptr<sqlite_journal> journal;
  duration ended_in_memory = 3600;
  std::size_t ended_in_memory_max = 10000;
  bool hold_for_stage_in = false;
  std::shared_ptr<grid_job_counters> counters = std::make_shared<grid_job_counters>();
};

}  // namespace arbroker::testing
