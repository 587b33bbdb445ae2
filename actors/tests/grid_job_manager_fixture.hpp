#pragma once

// The grid-job manager's state without CAF: a port whose calls the test answers by hand, in
// the order it chooses, as reservation_attempt's tests drive the coordinator core.
#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <map>
#include <set>

#include "arbroker/store/sqlite_journal.hpp"
#include "grid_job_manager.hpp"
#include "grid_job_samples.hpp"

namespace arbroker::testing {

// Every call the manager made, waiting for the test to answer it.
struct recording_port : grid_job_port {
  struct pending {
    std::string cluster;
    grid_cluster_request request;
    std::function<void(result<grid_cluster_reply>)> done;
  };
  std::deque<pending> calls;
  int flushes = 0;

  void call(const std::string& cluster, grid_cluster_request q,
            std::function<void(result<grid_cluster_reply>)> done) override {
    calls.push_back({cluster, std::move(q), std::move(done)});
  }
  void flush_soon() override { ++flushes; }

  // Takes the oldest call of request type R (fails the test if there is none).
  template <class R>
  pending take() {
    for (auto it = calls.begin(); it != calls.end(); ++it)
      if (std::holds_alternative<R>(it->request)) {
        auto p = std::move(*it);
        calls.erase(it);
        return p;
      }
    ADD_FAILURE() << "no call of that kind is waiting";
    return {};
  }
  template <class R>
  std::size_t waiting() const {
    std::size_t n = 0;
    for (const auto& c : calls)
      n += std::holds_alternative<R>(c.request);
    return n;
  }
};

struct grid_job_manager_test : ::testing::Test {
  timestamp now = 1'000'000;
  recording_port port;
  std::unique_ptr<grid_job_manager> manager;
  std::vector<msg::grid_job_reply> answers;   // to submissions, in the order given
  double migration_share = 0.1;               // of the jobs a round evaluates (a node's default)
  duration lost_after = 300;                  // a node's default
  std::shared_ptr<grid_job_journal> journal;  // none unless a test sets one

  // Clusters of 8 CPUs each, named as given.
  void start(const std::vector<std::string>& clusters,
             std::vector<msg::grid_job_record> recovered = {}) {
    grid_jobs_config cfg;
    cfg.node = "arb";
    cfg.clock = [this] { return now; };
    cfg.recovered = std::move(recovered);
    cfg.ended_in_memory = 3600;
    cfg.ended_in_memory_max = 2;
    cfg.migration_share = migration_share;
    cfg.lost_after = lost_after;
    cfg.journal = journal;
    manager = std::make_unique<grid_job_manager>(std::move(cfg), port);
    std::vector<msg::cluster_info> infos;
    std::vector<cluster_service_actor> services;
    for (const auto& name : clusters) {
      msg::cluster_info c;
      c.name = name;
      c.cpus = 8;
      infos.push_back(c);
      services.emplace_back();
    }
    manager->directory().clusters = make_directory(infos, services);
  }

  static msg::grid_submit_request job(grid_strategy s = grid_strategy::single, int width = 1) {
    return testing::sample_grid_job(s, width);
  }

  void submit(msg::grid_submit_request r) {
    manager->submit(std::move(r), [this](msg::grid_job_reply rep) { answers.push_back(rep); });
  }

  // Answers the oldest outlook call: the cluster could start each shape `in` seconds from now.
  std::string answer_outlook(duration in) {
    auto p = port.take<msg::job_outlook_request>();
    msg::job_outlook_reply rep;
    rep.cluster = p.cluster;
    rep.now = now;
    rep.starts.assign(std::get<msg::job_outlook_request>(p.request).shapes.size(), now + in);
    p.done(grid_cluster_reply(rep));
    return p.cluster;
  }

  // Answers the oldest outlook call: a new job starts on that cluster after wait(cluster), a
  // copy queued there (by LRMS id) after queued(id). Returns the cluster and what it was asked.
  using waits_fn = std::function<duration(const std::string&)>;
  std::pair<std::string, msg::job_outlook_request> answer_outlook_by(const waits_fn& wait,
                                                                     const waits_fn& queued = {}) {
    auto p = port.take<msg::job_outlook_request>();
    auto q = std::get<msg::job_outlook_request>(p.request);
    msg::job_outlook_reply rep;
    rep.cluster = p.cluster;
    rep.now = now;
    rep.starts.assign(q.shapes.size(), now + wait(p.cluster));
    for (const auto& id : q.queued_ids)
      rep.queued_starts.push_back(now + queued(id));
    p.done(grid_cluster_reply(rep));
    return {p.cluster, std::move(q)};
  }

  // Answers the oldest submit call with LRMS id `<cluster>.<n>`; returns the cluster.
  std::string answer_submit() {
    auto p = port.take<msg::job_submit_request>();
    msg::job_submit_reply rep;
    rep.cluster = p.cluster;
    rep.lrms_id = p.cluster + "." + std::to_string(++lrms_serial);
    p.done(grid_cluster_reply(rep));
    return p.cluster;
  }
  int lrms_serial = 0;

  // Clusters `clusters` (8 CPUs each) and a job of strategy `s` submitted, ranked with every
  // cluster able to start it at once: its copies (or holds) are asked for.
  void ranked_at_once(const std::vector<std::string>& clusters, grid_strategy s, int width) {
    start(clusters);
    submit(job(s, width));
    manager->flush();
    for (std::size_t k = 0; k < clusters.size(); ++k)
      answer_outlook(0);
  }
};

}  // namespace arbroker::testing
