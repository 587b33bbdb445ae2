// Issue 15's figures for clusters behind agents: requests through broker nodes to C simulated
// clusters of 512 CPUs served by A agents over loopback with mutual TLS (remote/), beside the
// same clusters in the broker's own process. Actor systems in this process stand for the
// daemons (the agents' one and each broker node's, 2 threads each, as on this 2-core machine):
//  - elastic: requests (mode reserve: probes, a prepare committed at once) answered per
//    second with N clients in flight, and the median latency with one in flight;
//  - coreserve: co-reservations of 3 parts (of the C clusters, on different agents: two-phase
//    commit) with N clients in flight: per second, and the 50th and 99th percentile latency.
// With B broker nodes, the clients are split evenly among them, all sharing the agents.
//
//   arb_bench_remote [elastic|coreserve] [clients=1000] [round_seconds=3] [rounds=5]
//                    [agents=4] [clusters=16] [brokers=1]
//
// Environment: ARB_BENCH_AGENT_PROCESSES=1 runs each agent in a process of its own (forked
// before any actor system starts, as arb-agent runs it) instead of one actor system in this
// process standing for them all; ARB_BENCH_REFRESH (the services' view refresh, s),
// ARB_BENCH_POLICY (CAF's scheduler policy: stealing, sharing), both to find where latency
// tails come from.
//
// Prints the calibration (CAF round trips/s) and, for "local" (one broker only) and
// "remote", the median of the rounds with their min and max.

#include <sys/wait.h>
#include <unistd.h>
#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
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
  config() {
    configure_engine(*this, 2);
    // ARB_BENCH_POLICY=sharing: CAF's work-sharing scheduler (one FIFO queue) instead of
    // work stealing (LIFO for messages sent from a worker), to compare tails.
    if (const char* p = std::getenv("ARB_BENCH_POLICY"))
      set("scheduler.policy", caf::atom_from_string(p));
  }
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
  // ARB_BENCH_REFRESH=s: how old the service's view of its LRMS may get (default 1 s). A
  // refresh reads the jobs; every full_refresh (30 s) the whole LRMS is read, every
  // reservation the rounds left there included.
  const char* refresh = std::getenv("ARB_BENCH_REFRESH");
  sc.refresh = refresh ? std::max(1, std::atoi(refresh)) : 1;
  sc.ljp = ljp_policy::off;
  auto svc = cluster_service::create(sc, std::move(*l));
  return spawn_cluster_service(sys, std::shared_ptr<cluster_service>(std::move(*svc)),
                               wall_clock());
}

// 1 CPU for a minute within the hour after a random start in the next year: the clusters
// never fill, so every round costs about the same.
msg::checked_elastic_request make_elastic() {
  thread_local std::mt19937 rng(15);
  msg::elastic_request r;
  r.user = "alice";
  r.est = wall_clock()() + 60 + static_cast<std::int64_t>(rng() % (365 * 86400));
  r.let = r.est + 3600;
  msg::set_linear_work(r, 1, 1, 60, 1);
  r.prefer = msg::default_preferences();
  r.tsn_max = 2;
  return *msg::check(r);
}

// Three parts of 2 CPUs for ten minutes, at a common start within the hour after a random
// start in the next year.
msg::checked_coreservation_request make_coreservation() {
  thread_local std::mt19937 rng(16);
  msg::coreservation_request r;
  r.user = "alice";
  r.est = wall_clock()() + 60 + static_cast<std::int64_t>(rng() % (365 * 86400));
  r.let = r.est + 3600;
  for (int i = 0; i < 3; ++i) {
    msg::coreservation_component c;
    c.np_min = c.np_max = 2;
    c.dur_ref = 600;
    c.speedup = msg::to_spec(*speedup_model::amdahl(0));
    r.components.push_back(c);
  }
  r.tsn_max = 2;
  return *msg::check(r);
}

struct load_state {
  int done = 0, failed = 0;
  std::vector<double> us;      // latency of each answered request
  std::function<void()> next;  // one more request
};

// Keeps `n` requests in flight until told to stop; counts the answers and times them.
template <class Reply, class Make>
caf::behavior load(caf::stateful_actor<load_state>* self, broker_actor broker, int n, Make make) {
  self->state.next = [self, broker, make] {
    const auto t0 = steady::now();
    self->request(broker, caf::infinite, make())
        .then(
            [self, t0](const Reply& r) {
              (r.error.ok() ? self->state.done : self->state.failed)++;
              self->state.us.push_back(
                  std::chrono::duration<double, std::micro>(steady::now() - t0).count());
              self->state.next();
            },
            [self](caf::error&) { ++self->state.failed; });
  };
  for (int i = 0; i < n; ++i)
    self->state.next();
  return {[self](caf::get_atom) {
    // Since the last ask: answered, failed, their latencies.
    auto out = std::make_tuple(self->state.done, self->state.failed, std::move(self->state.us));
    self->state.done = self->state.failed = 0;
    self->state.us.clear();
    return out;
  }};
}

struct node_side {  // one broker node
  std::unique_ptr<config> cfg = std::make_unique<config>();
  std::unique_ptr<caf::actor_system> sys = std::make_unique<caf::actor_system>(*cfg);
  gis_actor gis;
  broker_actor broker;
  std::vector<std::unique_ptr<remote::remote_agent>> links;
};

struct figures {
  std::vector<double> rate, p50_us, p99_us, latency_us;
};

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

// `clients` in flight, split among the nodes, for rounds of `seconds`; with one node, the
// latency with one in flight as well.
template <class Reply, class Make>
figures measure(std::vector<node_side*> nodes, int clients, double seconds, int rounds, Make make) {
  figures f;
  caf::scoped_actor self{*nodes.front()->sys};
  for (int round = 0; round < rounds; ++round) {
    if (nodes.size() == 1) {
      std::vector<double> us;
      const auto until = steady::now() + std::chrono::duration<double>(seconds / 3);
      while (steady::now() < until) {
        const auto req = make();
        const auto t0 = steady::now();
        self->request(nodes.front()->broker, caf::infinite, req)
            .receive([](const Reply&) {}, [](caf::error&) {});
        us.push_back(std::chrono::duration<double, std::micro>(steady::now() - t0).count());
      }
      f.latency_us.push_back(percentile(us, 0.5));
    }
    std::vector<caf::actor> loads;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const int n = clients / static_cast<int>(nodes.size()) +
                    (static_cast<int>(i) < clients % static_cast<int>(nodes.size()) ? 1 : 0);
      loads.push_back(nodes[i]->sys->spawn(load<Reply, Make>, nodes[i]->broker, n, make));
    }
    int done = 0, failed = 0;
    std::vector<double> us;
    const auto collect = [&](bool keep) {
      for (auto& l : loads)
        self->request(l, caf::infinite, caf::get_atom::value)
            .receive(
                [&](int d, int x, std::vector<double>& lat) {
                  if (!keep) return;
                  done += d;
                  failed += x;
                  us.insert(us.end(), lat.begin(), lat.end());
                },
                [](caf::error&) {});
    };
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds / 5));  // ramp up
    collect(false);
    const auto t0 = steady::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));  // the window measured
    done = failed = 0;
    us.clear();
    collect(true);
    const double s = std::chrono::duration<double>(steady::now() - t0).count();
    f.rate.push_back(done / s);
    f.p50_us.push_back(percentile(us, 0.5));
    f.p99_us.push_back(percentile(us, 0.99));
    if (failed > 0) std::fprintf(stderr, "round %d: %d failed requests\n", round, failed);
    for (auto& l : loads)
      self->send_exit(l, caf::exit_reason::user_shutdown);
    // Let the requests in flight drain before the next round.
    for (auto* n : nodes)
      self->request(n->broker, caf::infinite, make())
          .receive([](const Reply&) {}, [](caf::error&) {});
  }
  return f;
}

void print(const char* what, std::vector<double> v, const char* unit) {
  if (v.empty()) return;
  std::sort(v.begin(), v.end());
  std::printf("  %-30s median %10.1f %s  (min %.1f, max %.1f, %zu rounds)\n", what, v[v.size() / 2],
              unit, v.front(), v.back(), v.size());
}

void report(const char* title, const figures& f) {
  std::printf("%s:\n", title);
  print("requests/s", f.rate, "/s");
  print("latency p50 under load", f.p50_us, "us");
  print("latency p99 under load", f.p99_us, "us");
  print("latency, 1 in flight", f.latency_us, "us");
}

remote::agent_server_config agent_config() {
  remote::agent_server_config ac;
  ac.name = "agent1";
  ac.tls = api::make_server_tls({cert("agent1.pem"), cert("agent1.key"), cert("ca.pem")}).value();
  ac.brokers = {"broker1"};
  return ac;
}

// Agent `a`'s clusters: c = a, a + agents, ...
std::vector<remote::agent_served_cluster> serve_clusters(caf::actor_system& sys, int a, int agents,
                                                         int clusters,
                                                         std::vector<cluster_service_actor>& out) {
  std::vector<remote::agent_served_cluster> mine;
  for (int c = a; c < clusters; c += agents) {
    out.push_back(spawn_cluster(sys, c));
    mine.push_back({info_of(c), out.back()});
  }
  return mine;
}

struct agent_process {
  pid_t pid = -1;
  int port = 0;
  int stop = -1;  // closed by the parent: the agent ends
};

// In a child process: agent `a` with its clusters; writes its port to `ready`, then serves
// until `stop` reads end of file (the parent closed it, or died). _exit: the parent's atexit
// work (the certificates' folder) is not the child's.
[[noreturn]] void agent_child(int a, int agents, int clusters, int ready, int stop) {
  {
    config cfg;
    caf::actor_system sys{cfg};
    std::vector<cluster_service_actor> served;
    auto mine = serve_clusters(sys, a, agents, clusters, served);
    auto server = remote::agent_server::start(sys, agent_config(), mine).value();
    const int port = server->local_endpoint().port();
    if (::write(ready, &port, sizeof port) != sizeof port) ::_exit(1);
    ::close(ready);
    char c;
    while (::read(stop, &c, 1) > 0) {
    }
    server.reset();
    for (auto& h : served)
      caf::anon_send_exit(h, caf::exit_reason::user_shutdown);
  }
  std::fflush(stdout);
  ::_exit(0);
}

// Forks one process per agent; their ports, once each listens.
std::vector<agent_process> fork_agents(int agents, int clusters) {
  (void)cert("ca.pem");  // the certificates made once, here, for the children too
  std::vector<agent_process> out;
  for (int a = 0; a < agents; ++a) {
    int ready[2], stop[2];
    if (::pipe(ready) != 0 || ::pipe(stop) != 0) std::abort();
    std::fflush(stdout);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(ready[0]);
      ::close(stop[1]);
      for (const auto& p : out)
        ::close(p.stop);
      agent_child(a, agents, clusters, ready[1], stop[0]);
    }
    ::close(ready[1]);
    ::close(stop[0]);
    agent_process p{pid, 0, stop[1]};
    if (::read(ready[0], &p.port, sizeof p.port) != sizeof p.port) {
      std::fprintf(stderr, "agent process %d did not start\n", a);
      std::exit(1);
    }
    ::close(ready[0]);
    out.push_back(p);
  }
  return out;
}

template <class Reply, class Make>
int run(Make make, int clients, double seconds, int rounds, int agents, int clusters, int brokers) {
  // Before any actor system (and its threads) exists in this process.
  const bool processes = std::getenv("ARB_BENCH_AGENT_PROCESSES") != nullptr;
  std::vector<agent_process> children;
  if (processes) children = fork_agents(agents, clusters);
  config agent_cfg;
  caf::actor_system agent_sys{agent_cfg};
  const auto cal = stress::measure_round_trips(agent_sys, 1.0);
  std::printf("calibration: %.0f CAF round trips/s\n", cal.round_trips_per_second);
  std::printf(
      "%d clusters of 512 CPUs, %d agents (%s), %d broker node(s), %d clients, rounds of %.1f "
      "s\n",
      clusters, agents, processes ? "a process each" : "in this process", brokers, clients,
      seconds);
  const auto reg = [](caf::actor_system& sys, const gis_actor& gis, const msg::cluster_info& i,
                      const cluster_service_actor& h) {
    caf::scoped_actor self{sys};
    self->request(gis, caf::infinite, register_atom::value, i, h)
        .receive([](const msg::ack_reply&) {}, [](caf::error&) {});
  };
  const auto start_broker = [](node_side& n) {
    n.gis = spawn_gis(*n.sys);
    broker_config bc;
    bc.gis = n.gis;
    bc.clock = wall_clock();
    bc.request_timeout = 60;
    n.broker = spawn_broker(*n.sys, bc);
  };
  const auto stop_broker = [](node_side& n) {
    caf::anon_send_exit(n.broker, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(n.gis, caf::exit_reason::user_shutdown);
    n.links.clear();
  };

  if (brokers == 1) {  // the same clusters in the broker's own process
    node_side n;
    start_broker(n);
    std::vector<cluster_service_actor> local;
    for (int c = 0; c < clusters; ++c) {
      local.push_back(spawn_cluster(*n.sys, c));
      reg(*n.sys, n.gis, info_of(c), local.back());
    }
    report("local clusters", measure<Reply, Make>({&n}, clients, seconds, rounds, make));
    stop_broker(n);
    for (auto& h : local)
      caf::anon_send_exit(h, caf::exit_reason::user_shutdown);
  }

  // Behind agents, over mutual TLS.
  std::vector<cluster_service_actor> served;
  std::vector<std::unique_ptr<remote::agent_server>> servers;
  std::vector<int> ports;
  for (const auto& p : children)
    ports.push_back(p.port);
  for (int a = 0; !processes && a < agents; ++a) {
    auto mine = serve_clusters(agent_sys, a, agents, clusters, served);
    servers.push_back(
        std::move(remote::agent_server::start(agent_sys, agent_config(), mine).value()));
    ports.push_back(servers.back()->local_endpoint().port());
  }
  std::vector<std::unique_ptr<node_side>> nodes;
  std::vector<node_side*> ptrs;
  for (int b = 0; b < brokers; ++b) {
    auto n = std::make_unique<node_side>();
    start_broker(*n);
    for (int a = 0; a < agents; ++a) {
      remote::remote_agent_config rc;
      rc.address = "127.0.0.1:" + std::to_string(ports[a]);
      rc.agent_name = "agent1";
      rc.broker_name = "broker1";  // one certificate for all: their txns are random anyway
      rc.tls =
          api::make_client_tls({cert("ca.pem"), cert("broker1.pem"), cert("broker1.key")}).value();
      rc.call_timeout = std::chrono::seconds(60);
      for (int c = a; c < clusters; c += agents)
        rc.clusters.push_back(info_of(c).name);
      n->links.push_back(std::move(remote::remote_agent::start(*n->sys, rc).value()));
      if (!n->links.back()->wait_connected(std::chrono::seconds(10))) {
        std::fprintf(stderr, "agent %d: %s\n", a, n->links.back()->last_error().c_str());
        return 1;
      }
      for (int c = a; c < clusters; c += agents)
        reg(*n->sys, n->gis, info_of(c), n->links.back()->cluster(info_of(c).name));
    }
    ptrs.push_back(n.get());
    nodes.push_back(std::move(n));
  }
  report("clusters behind agents (TLS)",
         measure<Reply, Make>(ptrs, clients, seconds, rounds, make));
  for (auto& n : nodes)
    stop_broker(*n);
  servers.clear();
  for (auto& h : served)
    caf::anon_send_exit(h, caf::exit_reason::user_shutdown);
  for (auto& p : children) {
    ::close(p.stop);
    ::waitpid(p.pid, nullptr, 0);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "elastic";
  const int clients = argc > 2 ? std::atoi(argv[2]) : 1000;
  const double seconds = argc > 3 ? std::atof(argv[3]) : 3;
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 5;
  const int agents = argc > 5 ? std::atoi(argv[5]) : 4;
  const int clusters = argc > 6 ? std::atoi(argv[6]) : 16;
  const int brokers = argc > 7 ? std::atoi(argv[7]) : 1;
  if ((mode != "elastic" && mode != "coreserve") || clients < 1 || seconds <= 0 || rounds < 1 ||
      agents < 1 || clusters < agents || brokers < 1) {
    std::fprintf(stderr,
                 "usage: %s [elastic|coreserve] [clients] [round_seconds] [rounds] [agents] "
                 "[clusters>=agents] [brokers]\n",
                 argv[0]);
    return 2;
  }
  std::printf("mode: %s\n", mode.c_str());
  if (mode == "elastic")
    return run<msg::elastic_reply>(make_elastic, clients, seconds, rounds, agents, clusters,
                                   brokers);
  return run<msg::coreservation_reply>(make_coreservation, clients, seconds, rounds, agents,
                                       clusters, brokers);
}
