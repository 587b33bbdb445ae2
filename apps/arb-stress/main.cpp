// arb-stress: a grid of simulated clusters and thousands of concurrent clients firing a
// deterministic mix of elastic reservations, holds, co-reservations, cancels, modifies and
// what-ifs at the broker, with heavy contention. Invariants are checked while it runs and
// once everything has settled; any violation makes it exit 1.

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <sys/resource.h>

#include "agents.hpp"
#include "arbroker/actors/broker.hpp"
#include "arbroker/actors/cluster_service_actor.hpp"
#include "arbroker/actors/gis.hpp"
#include "arbroker/actors/grid_jobs.hpp"
#include "arbroker/core/matchmaking.hpp"
#include "arbroker/messages/caf_types.hpp"
#include "arbroker/sim/simulated_lrms.hpp"
#include "arbroker/store/store.hpp"
#include "audit.hpp"
#include "auditor.hpp"
#include "calibration.hpp"
#include "client.hpp"

namespace arbroker::stress {
namespace {

struct config : caf::actor_system_config {
  explicit config(std::size_t threads) {
    configure_engine(*this, threads);
    add_message_type<client_report>("arb.stress.client_report");
  }
};

struct cluster {
  std::string name;
  cluster_service_actor service;
};

// Builds cluster i: sizes and speeds vary, some local work is running and queued.
result<cluster> make_cluster(caf::actor_system& sys, const gis_actor& gis, int i,
                             const stress_options& o, timestamp now,
                             std::shared_ptr<reservation_journal> journal) {
  static constexpr int cpus[] = {64, 128, 256, 96};
  static constexpr double pp[] = {1000, 1500, 2000, 1200};
  const std::string name = "c" + std::to_string(i);
  const int n = cpus[i % 4];
  auto l = simulated_lrms::create({name, n, {o.bunch, {}}, wall_clock()});
  if (!l) return l.err();
  if (o.local_jobs) {
    // A quarter of the cluster busy for up to an hour, and a queue behind it.
    (void)(*l)->submit_local_job({"bg-run", "local", n / 4, 3600, {}, ""}, 3000);
    (void)(*l)->submit_local_job({"bg-wait", "local", n / 2, 1800, {}, ""}, 1800);
    (void)(*l)->submit_local_job({"bg-big", "local", n, 1800, {}, ""}, 1200);
  }
  cluster_service_config c;
  c.info.name = name;
  c.info.cpus = n;
  c.info.pp = pp[i % 4];
  c.info.bunch = o.bunch;
  c.refresh = 1;
  c.max_hold = 600;
  c.retention = 3600;
  c.journal = std::move(journal);
  c.cost = *cost_model::create(1.0 + 0.25 * (i % 5), 3600, {{0, 6 * 3600, 0.5}}, 0);
  auto svc = cluster_service::create(std::move(c), std::move(*l));
  if (!svc) return svc.err();
  msg::cluster_info info = (*svc)->info();
  auto service =
      spawn_cluster_service(sys, std::shared_ptr<cluster_service>(std::move(*svc)), wall_clock());
  caf::anon_send(gis, register_atom::value, info, service);
  (void)now;
  return cluster{name, service};
}

double percentile(std::vector<std::int64_t>& v, double p) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return static_cast<double>(v[k]) / 1000.0;
}

std::vector<msg::cluster_status> statuses(caf::scoped_actor& self,
                                          const std::vector<cluster>& clusters) {
  std::vector<msg::cluster_status> out;
  for (const auto& c : clusters)
    self->request(c.service, std::chrono::seconds(10), msg::cluster_status_request{})
        .receive([&](msg::cluster_status& s) { out.push_back(std::move(s)); }, [&](caf::error&) {});
  return out;
}

/// The clusters' statuses once abandoned holds have expired (at most hold_seconds + 10 s).
std::vector<msg::cluster_status> settled_statuses(caf::scoped_actor& self,
                                                  const std::vector<cluster>& clusters,
                                                  duration hold_seconds) {
  std::vector<msg::cluster_status> out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(hold_seconds + 10);
  for (;;) {
    out = statuses(self, clusters);
    bool holds = false;
    for (const auto& s : out)
      holds = holds || s.holds > 0;
    if (!holds || std::chrono::steady_clock::now() > deadline) return out;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // waiting for expiries
  }
}

/// Every cluster's capacity, holds and LJP in its settled status (audit.hpp), into `out`.
void add_status_violations(const std::vector<msg::cluster_status>& all,
                           std::vector<std::string>& out) {
  const auto add = [&out](std::vector<std::string> v) {
    for (auto& x : v)
      out.push_back(std::move(x));
  };
  for (const auto& s : all) {
    add(capacity_violations(s));
    add(hold_violations(s, 2));
    add(ljp_violations(s));
  }
}

/// The audit process across processes: every broker process is done; the agents' ledgers
/// (settled) against what each told its clients (their --report files).
int audit_agents(caf::scoped_actor& self, const std::vector<cluster>& clusters,
                 const stress_options& o) {
  std::set<std::string> expected;
  std::vector<std::string> bad;
  for (const auto& file : o.expect) {
    std::ifstream in(file);
    if (!in) {
      fmt::print(stderr, "arb-stress: --expect {}: cannot read it\n", file);
      return 2;
    }
    for (std::string id; std::getline(in, id);)
      if (!id.empty() && !expected.insert(id).second)
        bad.push_back(id + " was told to two broker processes' clients");
  }
  const auto all = settled_statuses(self, clusters, o.hold_seconds);
  add_status_violations(all, bad);
  for (auto& x : accounting_violations(all, expected))
    bad.push_back(std::move(x));
  long long committed = 0, lrms = 0;
  for (const auto& s : all) {
    committed += s.committed;
    lrms += static_cast<long long>(s.lrms_reservations.size());
  }
  if (all.size() != clusters.size()) bad.push_back("a cluster did not report");
  fmt::print(
      "audit of {} clusters: {} reservations acknowledged by {} broker processes, {} "
      "committed at the agents, {} in their LRMSs\n",
      all.size(), expected.size(), o.expect.size(), committed, lrms);
  for (std::size_t i = 0; i < bad.size() && i < 20; ++i)
    fmt::print("violation (settled): {}\n", bad[i]);
  fmt::print("invariant violations: {}\n", bad.size());
  return bad.empty() ? 0 : 1;
}

int run(const stress_options& o) {
  config cfg{o.threads};
  caf::actor_system sys{cfg};
  // The machine first, on the engine's scheduler settings and nothing else running.
  calibration cal;
  if (o.calibrate_seconds > 0) {
    cal = measure_round_trips(sys, o.calibrate_seconds);
    fmt::print("calibration: {:.0f} CAF round trips/s ({} threads, 16 in flight, {:.1f} s)\n",
               cal.round_trips_per_second, o.threads, cal.seconds);
  }
  if (o.calibrate_only) return 0;
  caf::scoped_actor self{sys};
  const timestamp now = wall_clock()();

  std::shared_ptr<node_store> journal;
  if (!o.store.empty()) {
    auto j = open_store(o.store, {o.store_sync_full ? durability::full : durability::normal, ""});
    if (!j) {
      fmt::print(stderr, "arb-stress: --store: {}\n", j.err().message);
      return 2;
    }
    journal = std::move(*j);
    fmt::print("store: {} (durability {})\n", journal->where(),
               o.store_sync_full ? "full" : "normal");
  }
  auto gis = spawn_gis(sys);
  std::vector<cluster> clusters;
  std::vector<std::string> names;
  reached_agents agents;  // across processes: the links to them (they end with the run)
  if (o.agents.empty()) {
    for (int i = 0; i < o.clusters; ++i) {
      auto c = make_cluster(sys, gis, i, o, now, journal);
      if (!c) {
        fmt::print(stderr, "arb-stress: cluster {}: {}\n", i, to_string(c.err()));
        return 2;
      }
      names.push_back(c->name);
      clusters.push_back(std::move(*c));
    }
  } else {
    std::vector<agent_spec> specs;
    for (const auto& a : o.agents) {
      auto s = parse_agent_spec(a);
      if (!s) {
        fmt::print(stderr, "arb-stress: {}\n", s.err().message);
        return 2;
      }
      specs.push_back(std::move(*s));
    }
    auto r = reach_agents(sys, specs, o.name, std::chrono::seconds(30));
    if (!r) {
      fmt::print(stderr, "arb-stress: {}\n", r.err().message);
      return 2;
    }
    agents = std::move(*r);
    for (auto& [info, proxy] : agents.clusters) {
      bool registered = false;
      self->request(gis, std::chrono::seconds(10), register_atom::value, info, proxy)
          .receive([&](const msg::ack_reply& a) { registered = a.error.ok(); }, [](caf::error&) {});
      if (!registered) {
        fmt::print(stderr, "arb-stress: the GIS did not take {}\n", info.name);
        return 2;
      }
      names.push_back(info.name);
      clusters.push_back({info.name, proxy});
    }
    fmt::print("{}: {} clusters behind {} agents\n", o.name, clusters.size(), specs.size());
    if (o.audit) return audit_agents(self, clusters, o);
  }
  broker_config bc;
  bc.gis = gis;
  bc.clock = wall_clock();
  bc.prepare_expiry = 30;
  bc.request_timeout = 60;
  bc.elastic_workers = o.elastic_workers;
  bc.coreservation_workers = o.coreservation_workers;
  bc.probe_keep = o.probe_keep;
  bc.journal = journal;
  auto broker = spawn_broker(sys, bc);
  // The grid-job manager: copies are polled every second, adaptive jobs every two.
  grid_jobs_config gc;
  gc.node = "stress";
  gc.gis = gis;
  gc.clock = wall_clock();
  gc.poll_interval = 1;
  gc.adaptation_interval = 2;
  gc.migration_share = o.migration_share;
  gc.keep_ended_jobs();  // the audit lists every job at the end
  auto grid_counters = std::make_shared<grid_job_counters>();
  gc.counters = grid_counters;
  auto grid = spawn_grid_jobs(sys, gc);

  std::vector<std::vector<planned_op>> plans;
  plans.reserve(static_cast<std::size_t>(o.clients));
  for (int c = 0; c < o.clients; ++c)
    plans.push_back(plan_client(o, c, now, names));
  const std::size_t total = static_cast<std::size_t>(o.clients) * o.requests_per_client;

  std::vector<cluster_service_actor> services;
  for (const auto& c : clusters)
    services.push_back(c.service);
  std::set<std::string> grid_users;  // the clients' users: their LRMS jobs are grid copies
  for (int c = 0; c < o.clients; ++c)
    grid_users.insert("user" + std::to_string(c % 997));
  auto auditor = sys.spawn(auditor_actor, services, o.audit_interval_ms, grid, grid_users);
  self->send(auditor, audit_atom::value);

  fmt::print(
      "arb-stress: {} clusters, {} clients x {} requests = {} requests, seed {}, {} threads\n",
      o.clusters, o.clients, o.requests_per_client, total, o.seed, o.threads);
  const auto t0 = std::chrono::steady_clock::now();
  auto launcher = sys.spawn(launcher_actor, broker, grid, caf::actor{self}, std::move(plans),
                            static_cast<std::size_t>(o.clients_per_actor));
  self->send(launcher, start_atom::value);

  std::vector<client_report> reports;
  reports.reserve(static_cast<std::size_t>(o.clients));
  bool stalled = false;
  for (int i = 0; i < o.clients && !stalled; ++i)
    self->receive([&](client_report& r) { reports.push_back(std::move(r)); },
                  caf::after(std::chrono::seconds(o.stall_seconds)) >> [&] { stalled = true; });
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  long long audits = 0, grid_looks = 0, violations = 0;
  std::vector<std::string> examples;
  self->request(auditor, std::chrono::seconds(10), stop_atom::value)
      .receive(
          [&](long long a, long long g, long long v, std::vector<std::string>& ex) {
            audits = a;
            grid_looks = g;
            violations = v;
            examples = std::move(ex);
          },
          [&](caf::error&) {
            examples.push_back("the auditor did not answer");
            ++violations;
          });

  // Let abandoned holds expire (bounded), then audit the settled state once more. Across
  // processes the other brokers may still be at work: the audit process settles and counts.
  const bool alone = o.agents.empty();
  std::vector<msg::cluster_status> final_status =
      alone ? settled_statuses(self, clusters, o.hold_seconds) : statuses(self, clusters);
  std::set<std::string> expected;
  std::vector<std::string> problems;
  std::vector<std::int64_t> lat[op_kinds], all_lat;
  long long ok[op_kinds] = {}, failed[op_kinds] = {};
  std::map<int, long long> reasons;  // failure outcome -> count
  for (auto& r : reports) {
    for (auto& id : r.live)
      if (!expected.insert(id).second) problems.push_back(id + " claimed twice");
    for (auto& p : r.problems)
      problems.push_back("client " + std::to_string(r.client) + ": " + p);
    for (std::size_t i = 0; i < r.kinds.size(); ++i) {
      lat[r.kinds[i]].push_back(r.latency_us[i]);
      all_lat.push_back(r.latency_us[i]);
      (r.outcomes[i] == 0 ? ok : failed)[r.kinds[i]]++;
      if (r.outcomes[i] != 0) ++reasons[r.outcomes[i]];
    }
  }
  std::vector<std::string> final_violations;
  auto add = [&](std::vector<std::string> v) {
    for (auto& x : v)
      final_violations.push_back(std::move(x));
  };
  add_status_violations(final_status, final_violations);
  if (alone) {
    // The reservations of reserve grid jobs are theirs, not a client's: the one each job
    // holds now. Any other (one a move let go, or a move's that the job did not take) must
    // have been released.
    std::set<std::string> grid_held;
    self->request(grid, std::chrono::seconds(60), msg::grid_list_request{"", "", ""})
        .receive(
            [&](msg::grid_list_reply& l) {
              for (const auto& j : l.jobs)
                if (!j.reservation.empty()) grid_held.insert(j.reservation);
            },
            [](caf::error&) {});
    add(accounting_violations(final_status, expected, grid_held));
  }
  if (!o.report.empty()) {
    std::ofstream out(o.report);
    for (const auto& id : expected)
      out << id << "\n";
    if (!out.flush()) final_violations.push_back("could not write the report " + o.report);
  }
  // Grid jobs: once a poll round has settled what the last changes led to, the promises hold
  // (a duplicate start lives until its cancel lands; bounded wait).
  std::set<std::string> grid_acked;
  for (const auto& r : reports)
    grid_acked.insert(r.grid_jobs.begin(), r.grid_jobs.end());
  std::vector<std::string> grid_bad;
  std::size_t grid_listed = 0;
  for (int round = 0; round < 20; ++round) {
    self->request(grid, std::chrono::seconds(60), poll_atom::value)
        .receive([](std::int32_t) {}, [](caf::error&) {});
    std::vector<msg::grid_job_info> jobs;
    self->request(grid, std::chrono::seconds(60), msg::grid_list_request{"", "", ""})
        .receive([&](msg::grid_list_reply& l) { jobs = std::move(l.jobs); }, [](caf::error&) {});
    grid_listed = jobs.size();
    grid_bad = grid_violations(jobs, statuses(self, clusters), grid_acked, grid_users);
    if (grid_bad.empty()) break;
  }
  add(std::move(grid_bad));
  if (final_status.size() != clusters.size())
    final_violations.push_back("a cluster did not report");
  if (stalled)
    final_violations.push_back("clients stalled: " + std::to_string(reports.size()) + " of " +
                               std::to_string(o.clients) + " reported");

  const std::size_t done = all_lat.size();
  fmt::print("\n{:>10} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9}\n", "operation", "ok", "failed",
             "p50 ms", "p90 ms", "p99 ms", "max ms");
  for (int k = 0; k < op_kinds; ++k) {
    auto& v = lat[k];
    if (v.empty()) continue;
    const double mx = static_cast<double>(*std::max_element(v.begin(), v.end())) / 1000.0;
    fmt::print("{:>10} {:>8} {:>8} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f}\n",
               to_string(static_cast<op_kind>(k)), ok[k], failed[k], percentile(v, 0.5),
               percentile(v, 0.9), percentile(v, 0.99), mx);
  }
  const double mx =
      all_lat.empty()
          ? 0
          : static_cast<double>(*std::max_element(all_lat.begin(), all_lat.end())) / 1000.0;
  fmt::print("{:>10} {:>8} {:>8} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f}\n", "all", done, "",
             percentile(all_lat, 0.5), percentile(all_lat, 0.9), percentile(all_lat, 0.99), mx);
  std::string why;
  for (const auto& [code, n] : reasons)
    why += fmt::format("{}{} {}", why.empty() ? "" : ", ", n, to_string(static_cast<errc>(code)));
  fmt::print("failures by reason: {}\n", why.empty() ? "none" : why);
  const double rate = static_cast<double>(done) / elapsed;
  fmt::print("\nthroughput: {} requests in {:.3f} s = {:.0f} requests/s\n", done, elapsed, rate);
  if (cal.round_trips_per_second > 0)
    fmt::print("relative to the machine: {:.1f} requests per 1000 calibration round trips\n",
               1000 * rate / cal.round_trips_per_second);
  fmt::print(
      "committed at the end: {} reservations; audits during the run: {} ({} of the grid jobs)\n",
      expected.size(), audits, grid_looks);
  if (!grid_acked.empty()) {
    const auto submitted = std::max<long long>(grid_counters->submitted.load(), 1);
    fmt::print(
        "grid jobs: {} accepted, {} listed; {} copies, {} cancelled, {} duplicate starts, {} "
        "migrations; {:.1f} LRMS calls per job (outlooks {:.2f}, state requests {:.2f})\n",
        grid_acked.size(), grid_listed, grid_counters->copies_submitted.load(),
        grid_counters->copies_cancelled.load(), grid_counters->duplicate_starts.load(),
        grid_counters->migrations.load(),
        static_cast<double>(grid_counters->lrms_calls.load()) / static_cast<double>(submitted),
        static_cast<double>(grid_counters->outlook_calls.load()) / static_cast<double>(submitted),
        static_cast<double>(grid_counters->state_calls.load()) / static_cast<double>(submitted));
  }

  const long long total_violations = violations + static_cast<long long>(final_violations.size()) +
                                     static_cast<long long>(problems.size());
  for (const auto& e : examples)
    fmt::print("violation (during run): {}\n", e);
  for (std::size_t i = 0; i < final_violations.size() && i < 20; ++i)
    fmt::print("violation (settled): {}\n", final_violations[i]);
  for (std::size_t i = 0; i < problems.size() && i < 20; ++i)
    fmt::print("violation (reply): {}\n", problems[i]);
  fmt::print("invariant violations: {}\n", total_violations);

  if (o.idle_seconds > 0) {
    // The engine (GIS, services with their timers, broker) stays up with nothing to do.
    auto cpu = [] {
      rusage ru{};
      getrusage(RUSAGE_SELF, &ru);
      return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
             static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    };
    const double before = cpu();
    std::this_thread::sleep_for(std::chrono::seconds(o.idle_seconds));  // measuring idleness
    const double used = cpu() - before;
    fmt::print("idle engine: {:.3f} s CPU in {} s = {:.2f}% of a core\n", used, o.idle_seconds,
               100.0 * used / o.idle_seconds);
  }
  for (const auto& c : clusters)
    self->send_exit(c.service, caf::exit_reason::user_shutdown);
  self->send_exit(broker, caf::exit_reason::user_shutdown);
  self->send_exit(grid, caf::exit_reason::user_shutdown);
  self->send_exit(gis, caf::exit_reason::user_shutdown);
  return total_violations == 0 ? 0 : 1;
}

}  // namespace
}  // namespace arbroker::stress

int main(int argc, char** argv) {
  arbroker::stress::stress_options o;
  CLI::App app{
      "arb-stress: concurrent reservation load on simulated clusters, with invariant checks"};
  app.add_option("--clusters", o.clusters, "simulated clusters")->check(CLI::Range(1, 4096));
  app.add_option("--clients", o.clients, "concurrent clients")->check(CLI::Range(1, 1000000));
  app.add_option("--requests", o.requests_per_client, "requests per client")
      ->check(CLI::Range(1, 100000));
  app.add_option("--seed", o.seed, "seed of the request mix");
  app.add_option("--threads", o.threads, "scheduler threads")->check(CLI::Range(1, 64));
  app.add_option("--clients-per-actor", o.clients_per_actor,
                 "logical clients one actor runs, each with one request in flight (as the "
                 "node's gateway serves all its network clients from one actor)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--coreservation-workers", o.coreservation_workers,
                 "the broker's co-reservation workers")
      ->check(CLI::Range(1, 64));
  app.add_option("--probe-keep", o.probe_keep, "candidates each cluster sends per probe (0: all)")
      ->check(CLI::Range(0, 64));
  app.add_option("--elastic-workers", o.elastic_workers, "the broker's elastic workers")
      ->check(CLI::Range(1, 4096));
  app.add_option("--np-min", o.np_min, "smallest CPU count asked for")->check(CLI::Range(1, 4096));
  app.add_option("--np-max", o.np_max, "largest CPU count asked for")->check(CLI::Range(1, 4096));
  app.add_option("--bunch", o.bunch, "clusters reserve CPUs in bunches of this")
      ->check(CLI::Range(1, 1024));
  app.add_option("--tsn-max", o.tsn_max, "start times per CPU count in a probe")
      ->check(CLI::Range(1, 1000));
  app.add_option("--hot-clusters", o.hot_clusters, "clusters that take the contended share")
      ->check(CLI::Range(0, 4096));
  app.add_option("--hot-share", o.hot_share, "share of requests restricted to the hot clusters")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--coreservation-parts", o.coreservation_parts, "components per co-reservation")
      ->check(CLI::Range(1, 16));
  app.add_option("--coreservation-clusters", o.coreservation_clusters,
                 "co-reservations choose among the first N clusters")
      ->check(CLI::Range(1, 4096));
  app.add_option("--hold-seconds", o.hold_seconds, "holds that clients abandon expire after this")
      ->check(CLI::Range(1, 600));
  app.add_option("--migration-share", o.migration_share,
                 "an adaptation round moves at most this share of the adaptive jobs it evaluates")
      ->check(CLI::Range(0.001, 1.0));
  app.add_flag("!--no-local-jobs", o.local_jobs, "no background local jobs");
  app.add_option("--spread-hours", o.spread_hours, "earliest starts fall within this many hours")
      ->check(CLI::Range(1, 100000));
  app.add_option("--idle-seconds", o.idle_seconds, "then measure the idle engine's CPU use")
      ->check(CLI::Range(0, 3600));
  app.add_option("--calibrate-seconds", o.calibrate_seconds,
                 "first measure the machine (CAF round trips/s) this long; 0: skip")
      ->check(CLI::Range(0.0, 60.0));
  app.add_option("--store", o.store,
                 "journal to this store, as a node does: an SQLite file or a PostgreSQL URI "
                 "(postgresql://...; an empty database or schema); a fresh one: remove it first");
  std::string store_sync = "full";
  app.add_option("--store-sync", store_sync, "durability of the journal's writes")
      ->check(CLI::IsMember({"full", "normal"}));
  app.add_flag("--calibrate-only", o.calibrate_only, "measure the machine, then stop");
  app.add_option("--policy", o.policy,
                 "elastic requests use this matchmaking policy instead of preferences: "
                 "ran, ff, nf, imct, minu, maxu, mli, sed, ttd");
  app.add_option("--stall-seconds", o.stall_seconds,
                 "wait this long for the next client report before declaring a stall (clients "
                 "report when done: raise it for long runs)")
      ->check(CLI::Range(1, 86400));
  app.add_option("--agent", o.agents,
                 "across processes: the clusters are behind the agent at host:port (plain "
                 "text, loopback), these of it: host:port=c0,c1 (repeat for each agent)");
  app.add_option("--name", o.name, "this process's broker name at the agents");
  app.add_option("--report", o.report,
                 "write the reservations the clients were told are theirs to this file");
  app.add_flag("--audit", o.audit,
               "with --agent: run no clients, audit the agents' settled ledgers against the "
               "--expect files (the process's --name must be an admin broker there)");
  app.add_option("--expect", o.expect, "with --audit: the broker processes' --report files");
  std::string mix;
  app.add_option("--mix", mix,
                 "weights reserve,hold,coreserve,cancel,modify,whatif[,gridflood,gridadapt[,"
                 "gridreserve]] (default 50,10,15,10,5,10,0,0,0)");
  CLI11_PARSE(app, argc, argv);
  o.store_sync_full = store_sync == "full";
  if (o.audit && o.agents.empty()) {
    fmt::print(stderr, "arb-stress: --audit audits agents: name them with --agent\n");
    return 2;
  }
  if (o.np_min > o.np_max) {
    fmt::print(stderr, "arb-stress: --np-min {} exceeds --np-max {}\n", o.np_min, o.np_max);
    return 2;
  }
  if (!o.policy.empty()) {
    if (auto p = arbroker::parse_match_policy(o.policy); !p) {
      fmt::print(stderr, "arb-stress: --policy: {}\n", p.err().message);
      return 2;
    }
  }
  if (!mix.empty()) {
    int w[9] = {};
    const int n = std::sscanf(mix.c_str(), "%d,%d,%d,%d,%d,%d,%d,%d,%d", &w[0], &w[1], &w[2], &w[3],
                              &w[4], &w[5], &w[6], &w[7], &w[8]);
    if ((n != 6 && n != 8 && n != 9) ||
        std::any_of(std::begin(w), std::end(w), [](int x) { return x < 0; }) ||
        std::all_of(std::begin(w), std::end(w), [](int x) { return x == 0; })) {
      fmt::print(stderr,
                 "arb-stress: --mix wants six (or eight or nine, with grid jobs) non-negative "
                 "weights, "
                 "not all 0: '{}'\n",
                 mix);
      return 2;
    }
    o.mix = {w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8]};
  }
  if (!o.agents.empty() &&
      (o.mix.grid_flood > 0 || o.mix.grid_adaptive > 0 || o.mix.grid_reserve > 0)) {
    fmt::print(stderr, "arb-stress: grid jobs are not in the mix across processes (--agent)\n");
    return 2;
  }
  return arbroker::stress::run(o);
}
