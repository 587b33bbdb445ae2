// How long one adaptation round of the grid-job manager takes (paper 003 Sec. 3.3 at scale):
// N queued adaptive grid jobs spread over C simulated clusters, each queue behind local
// work; the manager re-evaluates every job against every cluster. The round costs one
// outlook per cluster (one plan of its queue, one earliest-start estimate per distinct job
// shape, the planned start of each of its queued copies) and O(N x C) arithmetic in the
// manager, not one plan per job. The clusters are equally loaded, so no job moves: the
// figure is the evaluation alone.
//
// Then the resubmission round (issue 35): a cluster's service ends (the cluster leaves the
// grid) with its share of the jobs queued there; as the manager hears of it (lost_after 0
// here) their copies are lost and the jobs placed again among the clusters left: one outlook
// per cluster for the whole batch, one new copy each. Timed from the cluster's end until every
// job it held has its new copy submitted; one cluster more leaves in each of `rounds` rounds.
//
//   arb_bench_grid_adaptation [jobs=100000] [clusters=16] [rounds=7]
//
// Prints the calibration (CAF round trips/s) and the median with min and max of the rounds.

#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "../apps/arb-stress/calibration.hpp"
#include "arbroker/actors/cluster_service_actor.hpp"
#include "arbroker/actors/gis.hpp"
#include "arbroker/actors/grid_jobs.hpp"
#include "arbroker/sim/simulated_lrms.hpp"

using namespace arbroker;

namespace {

struct config : caf::actor_system_config {
  config() { configure_engine(*this, 2); }
};

}  // namespace

int main(int argc, char** argv) {
  const int jobs = argc > 1 ? std::atoi(argv[1]) : 100000;
  const int clusters = argc > 2 ? std::atoi(argv[2]) : 16;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 7;
  if (jobs < 1 || clusters < 2 || rounds < 1 || rounds >= clusters) {
    std::fprintf(stderr, "usage: %s [jobs>=1] [clusters>=2] [1<=rounds<clusters]\n", argv[0]);
    return 2;
  }
  config cfg;
  caf::actor_system sys{cfg};
  const auto cal = stress::measure_round_trips(sys, 1.0);
  std::printf("calibration: %.0f CAF round trips/s\n", cal.round_trips_per_second);

  const timestamp now = 2'000'000'000;
  auto clock = [now] { return now; };
  auto gis = spawn_gis(sys);
  caf::scoped_actor self{sys};
  std::vector<simulated_lrms*> lrms;
  std::vector<std::string> names;
  std::vector<cluster_service_actor> services;
  for (int c = 0; c < clusters; ++c) {
    const std::string name = "c" + std::to_string(c);
    auto l = simulated_lrms::create({name, 512, {1, {}}, clock});
    if (!l) return 1;
    lrms.push_back(l->get());
    names.push_back(name);
    // Local work: the cluster is full for an hour.
    (void)(*l)->submit_local_job({"local", "local", 512, 3600, {}, ""}, 3600);
    cluster_service_config sc;
    sc.info.name = name;
    sc.info.cpus = 512;
    sc.refresh = 0;
    auto svc = cluster_service::create(sc, std::move(*l));
    if (!svc) return 1;
    auto h = spawn_cluster_service(sys, std::shared_ptr<cluster_service>(std::move(*svc)), clock);
    services.push_back(h);
    self->request(gis, caf::infinite, register_atom::value, sc.info, h)
        .receive([](msg::ack_reply&) {}, [](caf::error&) {});
  }
  // The queued adaptive jobs: shapes as in batch traces (powers of two, a few walltimes),
  // the same sequence of shapes in every queue, so that every queue is alike.
  std::mt19937 rng(7);
  const std::int32_t nps[] = {1, 2, 4, 8, 16, 32, 64};
  const duration walls[] = {600, 1800, 3600, 7200, 14400};
  std::int32_t np = 1;
  duration wall = 600;
  std::vector<msg::grid_job_record> recs;
  recs.reserve(static_cast<std::size_t>(jobs));
  for (int i = 0; i < jobs; ++i) {
    const auto c = static_cast<std::size_t>(i % clusters);
    msg::grid_job_record r;
    r.request.user = "u";
    if (c == 0) {
      np = nps[rng() % 7];
      wall = walls[rng() % 5];
    }
    r.request.np = np;
    r.request.walltime = wall;
    r.request.strategy = grid_strategy::adaptive;
    r.request.min_gain = 0;
    r.request.max_migrations = -1;
    r.request.max_resubmits = clusters;  // every round may lose it once more
    auto& j = r.job;
    j.id = "b/g" + std::to_string(i + 1);
    j.owner = "u";
    j.spec = {"", "", r.request.np, r.request.walltime, grid_strategy::adaptive,
              1,  0,  -1,           clusters,           0};
    j.submitted = now;
    j.add_copy(names[c], now, "bench");
    auto id = lrms[c]->submit_job(
        {"arb-g" + std::to_string(i + 1) + ".0", "u", r.request.np, r.request.walltime, {}, ""});
    if (!id) return 1;
    (void)j.on_submitted(0, *id, now);
    recs.push_back(std::move(r));
  }
  grid_jobs_config gc;
  gc.node = "b";
  gc.gis = gis;
  gc.clock = clock;
  gc.poll_interval = 0;
  gc.adaptation_interval = 0;
  gc.recovered = std::move(recs);
  gc.lost_after = 0;  // a cluster that left loses its copies at the next poll
  auto counters = std::make_shared<grid_job_counters>();
  gc.counters = counters;
  auto manager = spawn_grid_jobs(sys, gc);
  // The first poll round (sent at start) is done once a poll answers.
  self->request(manager, caf::infinite, poll_atom::value)
      .receive([](std::int32_t) {}, [](caf::error&) {});

  std::vector<double> ms;
  std::int32_t evaluated = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    self->request(manager, caf::infinite, adapt_atom::value)
        .receive([&](std::int32_t n) { evaluated = n; }, [](caf::error&) {});
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::int32_t migrations = 0;
  self->request(manager, caf::infinite, msg::grid_list_request{"", "", ""})
      .receive(
          [&](msg::grid_list_reply& l) {
            for (const auto& j : l.jobs)
              migrations += j.migrations;
          },
          [](caf::error&) {});
  std::sort(ms.begin(), ms.end());
  std::printf(
      "adaptation round: %d queued adaptive jobs x %d clusters (%d evaluated, %d migrated): "
      "median %.1f ms (min %.1f, max %.1f) over %d rounds\n",
      jobs, clusters, evaluated, migrations, ms[ms.size() / 2], ms.front(), ms.back(), rounds);

  std::vector<double> resubmit_ms;
  std::int64_t placed_again = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto& name = names[static_cast<std::size_t>(r)];
    // The jobs with a live copy there: those it will lose.
    std::int64_t there = 0;
    self->request(manager, caf::infinite, msg::grid_list_request{"", "", name})
        .receive(
            [&](msg::grid_list_reply& l) {
              for (const auto& j : l.jobs)
                there += std::any_of(j.copies.begin(), j.copies.end(), [&](const auto& c) {
                  return c.cluster == name &&
                         (c.state == copy_state::queued || c.state == copy_state::running);
                });
            },
            [](caf::error&) {});
    const auto copies_before = counters->copies_submitted.load();
    const auto t0 = std::chrono::steady_clock::now();
    // The cluster leaves: its service ends, the GIS drops it and tells the manager, which
    // (lost_after 0) loses its copies and places their jobs again.
    self->send_exit(services[static_cast<std::size_t>(r)], caf::exit_reason::user_shutdown);
    while (counters->copies_submitted.load() - copies_before < there)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    resubmit_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    placed_again += there;
  }
  std::sort(resubmit_ms.begin(), resubmit_ms.end());
  std::printf(
      "resubmission round: one cluster of %d leaves, its queued jobs placed again on the "
      "others (%lld in %d rounds): median %.1f ms (min %.1f, max %.1f)\n",
      clusters, static_cast<long long>(placed_again), rounds, resubmit_ms[resubmit_ms.size() / 2],
      resubmit_ms.front(), resubmit_ms.back());
  self->send_exit(manager, caf::exit_reason::user_shutdown);
  self->send_exit(gis, caf::exit_reason::user_shutdown);
  return 0;
}
