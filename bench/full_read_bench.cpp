// What the periodic full read of the LRMS costs the prepares a cluster service answers
// meanwhile (issue 38: p99 under 10 ms at 100,000 reservations). One service actor on a
// 512-CPU simulated cluster holds N live reservations (one CPU for ten minutes at random
// starts within a year); its full read is due every second (full_refresh 1 s, refresh 1 s),
// so that a read is under way much of the time. Prepares (one CPU, then aborted) arrive at a
// steady rate, whatever the answers (open loop: a stalled service shows as every prepare that
// waited, from its planned send time). Each run is made twice, side by side: with the full
// read aside (the daemon's way, lrms_view.hpp) and inline (the way before, and the
// simulator's). Prints the calibration (CAF round trips/s), each run's p50/p99/max and how many
// full reads it made, and the median p99 of the runs with its spread.
//   build/bench/arb_bench_full_read --reservations 100000 --seconds 20 --rate 500 --runs 5

#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../apps/arb-stress/calibration.hpp"
#include "arbroker/actors/cluster_service_actor.hpp"
#include "arbroker/adapters/timed_lrms.hpp"
#include "arbroker/sim/simulated_lrms.hpp"

namespace arbroker {
namespace {

using steady = std::chrono::steady_clock;

struct engine_config : caf::actor_system_config {
  engine_config() { configure_engine(*this); }
};

struct options {
  int reservations = 100'000;
  double seconds = 20;
  double rate = 500;  // prepares per second
  int runs = 5;
  int modes = 3;  // 1 aside, 2 inline, 3 both
};

struct run_result {
  std::vector<double> ms;  // each prepare's latency from its planned send time
  int refused = 0;
  int full_reads = 0;
  double percentile(double p) const {
    auto v = ms;
    std::sort(v.begin(), v.end());
    if (v.empty()) return 0;
    return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
  }
};

// One CPU for ten minutes at a random start within the next year.
msg::prepare_request one_cpu(std::string txn, std::string owner, timestamp now, std::mt19937& rng,
                             bool commit) {
  msg::prepare_request p;
  p.txn = std::move(txn);
  p.owner = std::move(owner);
  p.start = now + 3600 + static_cast<timestamp>(rng() % (365 * 86400));
  p.end = p.start + 600;
  p.np = 1;
  p.expiry = now + 60;
  p.commit_at_once = commit;
  return p;
}

// The service, filled with its reservations before its actor starts.
std::shared_ptr<cluster_service> filled_service(const options& o, std::atomic<int>& full_reads) {
  simulated_lrms_config sc{"c1", 512, {1, {}}, wall_clock()};
  sc.reports_reservation_changes = false;  // read as a real LRMS is, at every full read
  auto l = simulated_lrms::create(std::move(sc));
  auto timed = std::make_unique<timed_lrms>(std::move(*l), [&full_reads](lrms_call c, auto, bool) {
    if (c == lrms_call::snapshot) ++full_reads;
  });
  cluster_service_config c;
  c.info.name = "c1";
  c.info.cpus = 512;
  c.refresh = 1;
  c.full_refresh = 1;
  auto svc = cluster_service::create(std::move(c), std::move(timed));
  if (!svc) {
    std::fprintf(stderr, "%s\n", to_string(svc.err()).c_str());
    std::exit(1);
  }
  std::mt19937 rng(15);
  const timestamp now = wall_clock()();
  for (int i = 0; i < o.reservations; ++i)
    (void)(*svc)->prepare(one_cpu("fill" + std::to_string(i), "alice", now, rng, true), now);
  return std::shared_ptr<cluster_service>(std::move(*svc));
}

// Takes the answers: each prepare's latency, then its hold aborted.
struct receiver_state {
  static inline const char* name = "full_read_bench.receiver";
  std::vector<steady::time_point>* planned = nullptr;
  run_result* out = nullptr;
  std::promise<void>* done = nullptr;
  std::size_t expected = 0;
  std::size_t answered = 0;
};

caf::behavior receiver(caf::stateful_actor<receiver_state>* self, cluster_service_actor service,
                       std::vector<steady::time_point>* planned, run_result* out,
                       std::promise<void>* done, std::size_t expected) {
  self->state.planned = planned;
  self->state.out = out;
  self->state.done = done;
  self->state.expected = expected;
  return {
      [self, service](msg::call_tag tag, const msg::prepare_reply& r) {
        auto& s = self->state;
        const auto took = steady::now() - (*s.planned)[tag.value];
        s.out->ms.push_back(std::chrono::duration<double, std::milli>(took).count());
        if (r.error.ok())
          self->send(service, tag, msg::abort_txn_request{r.txn});
        else if (s.out->refused++ == 0)  // the first says why
          std::fprintf(stderr, "refused: %s\n", r.error.message.c_str());
        if (++s.answered == s.expected) s.done->set_value();
      },
      [](msg::call_tag, const msg::ack_reply&) {},
  };
}

run_result run_once(const options& o, bool aside) {
  engine_config cfg;
  caf::actor_system sys{cfg};
  std::atomic<int> full_reads{0};
  auto svc = filled_service(o, full_reads);
  auto service = spawn_cluster_service(sys, svc, wall_clock(), {.reads_aside = aside});
  svc.reset();
  const auto n = static_cast<std::size_t>(o.seconds * o.rate);
  std::vector<steady::time_point> planned(n);
  run_result out;
  out.ms.reserve(n);
  std::promise<void> done;
  auto rx = sys.spawn(receiver, service, &planned, &out, &done, n);
  full_reads = 0;
  std::mt19937 rng(16);
  const auto t0 = steady::now();
  const timestamp now = wall_clock()();
  for (std::size_t i = 0; i < n; ++i) {
    planned[i] = t0 + std::chrono::duration_cast<steady::duration>(
                          std::chrono::duration<double>(static_cast<double>(i) / o.rate));
    std::this_thread::sleep_until(planned[i]);  // pacing the load, not synchronizing
    caf::send_as(rx, service, msg::call_tag{static_cast<std::uint64_t>(i)},
                 one_cpu("p" + std::to_string(i), "bob", now, rng, false));
  }
  done.get_future().wait();
  out.full_reads = full_reads;
  caf::anon_send_exit(rx, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(service, caf::exit_reason::user_shutdown);
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace
}  // namespace arbroker

int main(int argc, char** argv) {
  using namespace arbroker;
  options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const double v = std::atof(argv[i + 1]);
    if (k == "--reservations")
      o.reservations = static_cast<int>(v);
    else if (k == "--seconds")
      o.seconds = v;
    else if (k == "--rate")
      o.rate = v;
    else if (k == "--runs")
      o.runs = static_cast<int>(v);
    else if (k == "--mode")
      o.modes = std::string(argv[i + 1]) == "aside"    ? 1
                : std::string(argv[i + 1]) == "inline" ? 2
                                                       : 3;
    else {
      std::fprintf(stderr,
                   "usage: %s [--reservations N] [--seconds S] [--rate R] [--runs K] [--mode "
                   "aside|inline|both]\n",
                   argv[0]);
      return 2;
    }
  }
  {
    engine_config cfg;
    caf::actor_system sys{cfg};
    const auto cal = stress::measure_round_trips(sys, 1.0);
    std::printf("calibration: %.0f CAF round trips/s\n", cal.round_trips_per_second);
  }
  std::printf("%d reservations, prepares at %.0f/s for %.0f s, full read due every second\n",
              o.reservations, o.rate, o.seconds);
  std::vector<double> p99[2];
  for (int r = 0; r < o.runs; ++r) {
    for (int aside = 1; aside >= 0; --aside) {
      if (!(o.modes & (aside ? 1 : 2))) continue;
      const auto res = run_once(o, aside == 1);
      p99[aside].push_back(res.percentile(0.99));
      std::printf(
          "run %d %-6s  p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms  full reads %3d  refused %d\n",
          r + 1, aside ? "aside" : "inline", res.percentile(0.5), res.percentile(0.99),
          res.percentile(1.0), res.full_reads, res.refused);
      std::fflush(stdout);
    }
  }
  for (int aside = 1; aside >= 0; --aside) {
    const auto& v = p99[aside];
    if (v.empty()) continue;
    std::printf("%-6s p99: median %.2f ms (%.2f-%.2f) over %d runs\n", aside ? "aside" : "inline",
                median(v), *std::min_element(v.begin(), v.end()),
                *std::max_element(v.begin(), v.end()), o.runs);
  }
  return 0;
}
