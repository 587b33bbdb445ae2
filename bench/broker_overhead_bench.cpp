// What the broker adds to a reservation on a real batch system: the same reservation made
// N times directly through the Slurm adapter (create + delete) and N times through the
// actor engine (elastic request -> adaptation, probe, prepare-and-commit; then cancel), and
// the same split per phase (create vs. elastic request, delete vs. cancel). The two run in
// alternating rounds of N/10.
//
//   scripts/slurm/start.sh bench --cpus 64 --nodes 1 --port 18017 --clean
//   build/bench/arb_bench_broker_overhead /tmp/arb-slurm/bench/slurm.conf 300 [CLIENTS]
//   scripts/slurm/stop.sh bench

#include <fmt/format.h>
#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "arbroker/actors/broker.hpp"
#include "arbroker/actors/cluster_service_actor.hpp"
#include "arbroker/actors/gis.hpp"
#include "arbroker/adapters/slurm_lrms.hpp"
#include "arbroker/messages/checked_requests.hpp"

using namespace arbroker;
using clk = std::chrono::steady_clock;

namespace {

struct config : caf::actor_system_config {
  config() { configure_engine(*this); }
};

double ms(clk::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

void report(const char* what, std::vector<double>& v, double total_s) {
  std::sort(v.begin(), v.end());
  fmt::print(
      "{:>8}: {:4} reservations in {:.2f} s = {:6.1f}/s; per reservation p50 {:.2f} ms, "
      "p90 {:.2f} ms, max {:.2f} ms\n",
      what, v.size(), total_s, static_cast<double>(v.size()) / total_s, v[v.size() / 2],
      v[v.size() * 9 / 10], v.back());
}

std::string percentiles(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return fmt::format("{:.2f} / {:.2f} ms", v[v.size() / 2], v[v.size() * 9 / 10]);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: {} SLURM_CONF [N]\n", argv[0]);
    return 2;
  }
  const std::string conf = argv[1];
  const int n = argc > 2 ? std::max(1, std::atoi(argv[2])) : 200;
  const int k = argc > 3 ? std::max(1, std::atoi(argv[3])) : 1;  // broker clients in flight
  slurm_options opts;
  opts.conf = conf;
  slurm_lrms raw(opts);
  auto snap = raw.snapshot();
  if (!snap) {
    fmt::print(stderr, "slurm: {}\n", to_string(snap.err()));
    return 2;
  }
  const int np = std::min(4, snap->cpus);

  // Through the engine: one cluster service (detached: the adapter blocks), GIS, broker.
  config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto gis = spawn_gis(sys);
  cluster_service_config c;
  c.info.name = "slurm";
  c.info.cpus = snap->cpus;
  c.refresh = 1;
  c.name_prefix = "arb-bench-";
  auto svc = cluster_service::create(c, std::make_unique<slurm_lrms>(opts));
  if (!svc) return 1;
  auto crs = spawn_cluster_service(sys, std::shared_ptr<cluster_service>(std::move(*svc)),
                                   wall_clock(), {.detached = true});
  self->request(gis, caf::infinite, register_atom::value, c.info, crs)
      .receive([](msg::ack_reply&) {}, [](caf::error&) {});
  broker_config bc;
  bc.gis = gis;
  bc.clock = wall_clock();
  auto broker = spawn_broker(sys, bc);
  std::vector<double> brokered, reserve_ms, cancel_ms;
  std::mutex lock;
  bool failed = false;
  auto client = [&](int count) {
    caf::scoped_actor me{sys};
    for (int i = 0; i < count; ++i) {
      msg::elastic_request r;
      r.user = "root";
      r.est = wall_clock()() + 600;
      r.let = r.est + 3600;
      r.np_min = r.np_max = r.np_ref = np;
      r.dur_ref = 3600;
      r.speedup = msg::to_spec(*speedup_model::amdahl(0));
      r.local_jobs_preferred = false;
      r.admin = true;  // the cluster enforces LJP: only an admin may waive it
      const auto t = clk::now();
      bool ok = false;
      std::string id;
      // Checked where it enters the engine, as the node does: part of the broker's cost.
      me->request(broker, std::chrono::seconds(30), *msg::check(r))
          .receive(
              [&](msg::elastic_reply& rep) {
                ok = rep.error.ok();
                id = rep.reservation.id;
                if (!ok) fmt::print(stderr, "broker: {}\n", rep.error.message);
              },
              [&](caf::error& e) { fmt::print(stderr, "broker: {}\n", sys.render(e)); });
      const auto reserved = clk::now();
      if (ok)
        me->request(broker, std::chrono::seconds(30), msg::cancel_request{"root", id})
            .receive([&](msg::ack_reply& a) { ok = a.error.ok(); },
                     [&](caf::error&) { ok = false; });
      std::lock_guard<std::mutex> g(lock);
      if (!ok) failed = true;
      brokered.push_back(ms(clk::now() - t));
      reserve_ms.push_back(ms(reserved - t));
      cancel_ms.push_back(ms(clk::now() - reserved));
    }
  };
  double broker_s = 0;
  auto broker_round = [&](int count) {
    const auto b0 = clk::now();
    std::vector<std::thread> clients;
    for (int i = 0; i < k; ++i)
      clients.emplace_back(client, count / k + (i < count % k ? 1 : 0));
    for (auto& t : clients)
      t.join();
    broker_s += std::chrono::duration<double>(clk::now() - b0).count();
    return !failed;
  };
  // Direct: create and delete through the adapter.
  std::vector<double> direct, create_ms, delete_ms;
  double direct_s = 0;
  int made = 0;
  auto direct_round = [&](int count) {
    const auto d0 = clk::now();
    for (int i = 0; i < count; ++i) {
      const auto t = clk::now();
      auto id = raw.create_reservation(
          {"bench-raw-" + std::to_string(made++), "root", wall_clock()() + 600, 3600, np});
      const auto created = clk::now();
      create_ms.push_back(ms(created - t));
      if (!id || !raw.delete_reservation(*id)) {
        fmt::print(stderr, "direct: {}\n", id ? "delete failed" : to_string(id.err()));
        return false;
      }
      direct.push_back(ms(clk::now() - t));
      delete_ms.push_back(ms(clk::now() - created));
    }
    direct_s += std::chrono::duration<double>(clk::now() - d0).count();
    return true;
  };

  // Rounds of each in turn, so that a drift of the machine or of slurmctld (other load,
  // its state growing) weighs on both alike.
  constexpr int rounds = 10;
  for (int r = 0; r < rounds; ++r) {
    const int count = n / rounds + (r < n % rounds ? 1 : 0);
    if (!direct_round(count) || !broker_round(count)) return 1;
  }
  report("direct", direct, direct_s);
  report("broker", brokered, broker_s);
  fmt::print("per phase, p50 / p90: create {}, elastic request {}; delete {}, cancel {}\n",
             percentiles(create_ms), percentiles(reserve_ms), percentiles(delete_ms),
             percentiles(cancel_ms));
  fmt::print("broker clients in flight: {}\n", k);
  fmt::print("overhead of the broker: {:+.1f} % time per reservation\n",
             100.0 * (broker_s - direct_s) / direct_s);
  self->send_exit(crs, caf::exit_reason::user_shutdown);
  self->send_exit(broker, caf::exit_reason::user_shutdown);
  self->send_exit(gis, caf::exit_reason::user_shutdown);
  return 0;
}
