// Issue 15's figures for clusters behind agents: elastic requests (mode reserve: probes,
// a prepare committed at once) through one broker to C simulated clusters of 512 CPUs served
// by A agents over loopback with mutual TLS (remote/), beside the same broker over the same
// clusters in its own process. Two actor systems in this process (the agents' and the
// broker node's, 2 threads each, as two daemons on this 2-core machine would be):
//  - rate: N clients (one actor keeping N requests in flight), requests answered per second
//    over each round;
//  - latency: one request in flight, the median of a round's requests.
//
//   arb_bench_remote [clients=1000] [round_seconds=3] [rounds=5] [agents=4] [clusters=16]
//
// Prints the calibration (CAF round trips/s) and, for "local" and "remote", the median of the
// rounds with their min and max.

#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../apps/arb-stress/calibration.hpp"
#include "arbroker/actors/broker.hpp"
#include "arbroker/actors/cluster_service_actor.hpp"
#include "arbroker/actors/gis.hpp"
#include "arbroker/messages/checked_requests.hpp"
#include "arbroker/messages/speedup_spec.hpp"
#include "arbroker/remote/agent_server.hpp"
#include "arbroker/remote/remote_agent.hpp"
#include "arbroker/sim/simulated_lrms.hpp"
#include "test_certificates.hpp"

using namespace arbroker;
using steady = std::chrono::steady_clock;

namespace {

struct config : caf::actor_system_config {
  config() { configure_engine(*this, 2); }
};

std::string cert(const std::string& name) {
  return api::testing::certificate_file(name);
}

msg::cluster_info info_of(int c) {
  msg::cluster_info i;
  i.name = "c" + std::to_string(c);
  i.cpus = 512;
  i.pp = 1000;
  return i;
}

cluster_service_actor spawn_cluster(caf::actor_system& sys, int c) {
  auto l = simulated_lrms::create({info_of(c).name, 512, {1, {}}, wall_clock()});
  cluster_service_config sc;
  sc.info = info_of(c);
  sc.refresh = 1;
  sc.ljp = ljp_policy::off;
  auto svc = cluster_service::create(sc, std::move(*l));
  return spawn_cluster_service(sys, std::shared_ptr<cluster_service>(std::move(*svc)),
                               wall_clock());
}

// 1 CPU for a minute within the hour after a random start in the next year: the clusters
// never fill, so every round costs about the same.
msg::checked_elastic_request request() {
  thread_local std::mt19937 rng(15);
  msg::elastic_request r;
  r.user = "alice";
  r.est = wall_clock()() + 60 + static_cast<std::int64_t>(rng() % (365 * 86400));
  r.let = r.est + 3600;
  r.np_min = 1;
  r.np_max = 1;
  r.dur_ref = 60;
  r.pp_ref = 1000;
  r.np_ref = 1;
  r.speedup = msg::to_spec(*speedup_model::amdahl(0));
  r.prefer = msg::default_preferences();
  r.tsn_max = 2;
  return *msg::check(r);
}

struct load_state {
  int done = 0, failed = 0;
  std::function<void()> next;  // one more request
};

// Keeps `n` requests in flight until told to stop; counts the answers.
caf::behavior load(caf::stateful_actor<load_state>* self, broker_actor broker, int n) {
  self->state.next = [self, broker] {
    self->request(broker, caf::infinite, request())
        .then(
            [self](const msg::elastic_reply& r) {
              (r.error.ok() ? self->state.done : self->state.failed)++;
              self->state.next();
            },
            [self](caf::error&) { ++self->state.failed; });
  };
  for (int i = 0; i < n; ++i)
    self->state.next();
  return {[self](caf::get_atom) { return std::make_pair(self->state.done, self->state.failed); }};
}

struct figures {
  std::vector<double> rate, latency_us;
};

figures measure(caf::actor_system& sys, const broker_actor& broker, int clients, double seconds,
                int rounds) {
  figures f;
  caf::scoped_actor self{sys};
  for (int round = 0; round < rounds; ++round) {
    // Latency, one in flight.
    std::vector<double> us;
    const auto until = steady::now() + std::chrono::duration<double>(seconds / 3);
    while (steady::now() < until) {
      const auto req = request();
      const auto t0 = steady::now();
      self->request(broker, caf::infinite, req)
          .receive([](const msg::elastic_reply&) {}, [](caf::error&) {});
      us.push_back(std::chrono::duration<double, std::micro>(steady::now() - t0).count());
    }
    std::sort(us.begin(), us.end());
    f.latency_us.push_back(us[us.size() / 2]);
    // Rate, `clients` in flight.
    auto l = sys.spawn(load, broker, clients);
    std::pair<int, int> at0, at1;
    const auto counts = [&] {
      std::pair<int, int> c;
      self->request(l, caf::infinite, caf::get_atom::value)
          .receive([&](std::pair<int, int> x) { c = x; }, [](caf::error&) {});
      return c;
    };
    at0 = counts();  // the ramp up is not counted
    const auto t0 = steady::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));  // the window measured
    at1 = counts();
    const double s = std::chrono::duration<double>(steady::now() - t0).count();
    f.rate.push_back((at1.first - at0.first) / s);
    if (at1.second > at0.second)
      std::fprintf(stderr, "round %d: %d failed requests\n", round, at1.second - at0.second);
    self->send_exit(l, caf::exit_reason::user_shutdown);
    // Let the requests in flight drain before the next round.
    self->request(broker, caf::infinite, request())
        .receive([](const msg::elastic_reply&) {}, [](caf::error&) {});
  }
  return f;
}

void print(const char* what, std::vector<double> v, const char* unit) {
  std::sort(v.begin(), v.end());
  std::printf("  %-28s median %10.1f %s  (min %.1f, max %.1f, %zu rounds)\n", what, v[v.size() / 2],
              unit, v.front(), v.back(), v.size());
}

}  // namespace

int main(int argc, char** argv) {
  const int clients = argc > 1 ? std::atoi(argv[1]) : 1000;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 3;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  const int agents = argc > 4 ? std::atoi(argv[4]) : 4;
  const int clusters = argc > 5 ? std::atoi(argv[5]) : 16;
  if (clients < 1 || seconds <= 0 || rounds < 1 || agents < 1 || clusters < agents) {
    std::fprintf(stderr,
                 "usage: %s [clients] [round_seconds] [rounds] [agents] [clusters>=agents]\n",
                 argv[0]);
    return 2;
  }
  config agent_cfg, broker_cfg;
  caf::actor_system agent_sys{agent_cfg}, broker_sys{broker_cfg};
  const auto cal = stress::measure_round_trips(broker_sys, 1.0);
  std::printf("calibration: %.0f CAF round trips/s\n", cal.round_trips_per_second);
  std::printf("%d clusters of 512 CPUs, %d agents, %d clients, rounds of %.1f s\n", clusters,
              agents, clients, seconds);

  auto make_broker = [](caf::actor_system& sys, gis_actor gis) {
    broker_config bc;
    bc.gis = gis;
    bc.clock = wall_clock();
    bc.request_timeout = 60;
    return spawn_broker(sys, bc);
  };
  caf::scoped_actor self{broker_sys};
  auto reg = [&](const gis_actor& gis, const msg::cluster_info& i, const cluster_service_actor& h) {
    self->request(gis, caf::infinite, register_atom::value, i, h)
        .receive([](const msg::ack_reply&) {}, [](caf::error&) {});
  };

  {  // The same clusters in the broker's own process.
    auto gis = spawn_gis(broker_sys);
    std::vector<cluster_service_actor> local;
    for (int c = 0; c < clusters; ++c) {
      local.push_back(spawn_cluster(broker_sys, c));
      reg(gis, info_of(c), local.back());
    }
    auto broker = make_broker(broker_sys, gis);
    auto f = measure(broker_sys, broker, clients, seconds, rounds);
    std::printf("local clusters:\n");
    print("elastic requests/s", f.rate, "/s");
    print("latency, 1 in flight", f.latency_us, "us");
    self->send_exit(broker, caf::exit_reason::user_shutdown);
    for (auto& h : local)
      self->send_exit(h, caf::exit_reason::user_shutdown);
    self->send_exit(gis, caf::exit_reason::user_shutdown);
  }

  // Behind agents, over mutual TLS.
  std::vector<cluster_service_actor> served;
  std::vector<std::unique_ptr<remote::agent_server>> servers;
  for (int a = 0; a < agents; ++a) {
    std::vector<remote::agent_served_cluster> mine;
    for (int c = a; c < clusters; c += agents) {
      served.push_back(spawn_cluster(agent_sys, c));
      mine.push_back({info_of(c), served.back()});
    }
    remote::agent_server_config ac;
    ac.name = "agent1";
    ac.tls = api::make_server_tls({cert("agent1.pem"), cert("agent1.key"), cert("ca.pem")}).value();
    ac.brokers = {"broker1"};
    servers.push_back(std::move(remote::agent_server::start(agent_sys, ac, mine).value()));
  }
  auto gis = spawn_gis(broker_sys);
  std::vector<std::unique_ptr<remote::remote_agent>> links;
  for (int a = 0; a < agents; ++a) {
    remote::remote_agent_config rc;
    rc.address = "127.0.0.1:" + std::to_string(servers[a]->local_endpoint().port());
    rc.agent_name = "agent1";
    rc.broker_name = "broker1";
    rc.tls =
        api::make_client_tls({cert("ca.pem"), cert("broker1.pem"), cert("broker1.key")}).value();
    rc.call_timeout = std::chrono::seconds(60);
    for (int c = a; c < clusters; c += agents)
      rc.clusters.push_back(info_of(c).name);
    links.push_back(std::move(remote::remote_agent::start(broker_sys, rc).value()));
    if (!links.back()->wait_connected(std::chrono::seconds(10))) {
      std::fprintf(stderr, "agent %d: %s\n", a, links.back()->last_error().c_str());
      return 1;
    }
    for (int c = a; c < clusters; c += agents)
      reg(gis, info_of(c), links.back()->cluster(info_of(c).name));
  }
  auto broker = make_broker(broker_sys, gis);
  auto f = measure(broker_sys, broker, clients, seconds, rounds);
  std::printf("clusters behind agents (TLS):\n");
  print("elastic requests/s", f.rate, "/s");
  print("latency, 1 in flight", f.latency_us, "us");
  self->send_exit(broker, caf::exit_reason::user_shutdown);
  self->send_exit(gis, caf::exit_reason::user_shutdown);
  links.clear();
  servers.clear();
  for (auto& h : served)
    caf::anon_send_exit(h, caf::exit_reason::user_shutdown);
  return 0;
}
