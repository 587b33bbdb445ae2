// What watchers cost a node (docs/watch.md): the elastic throughput of a node in-process on
// the demo's three simulated clusters (empty), with no watcher and with N watchers, side by
// side in one window (runs alternate: none, N, none, N, ...). Each cycle is a reservation made
// (a hold granted and committed: two events) and cancelled (one event), 64 cycles in flight;
// every watcher is an admin's (it sees every event: the most a watcher can cost) whose sink
// takes each page and asks for the next at once. At the end every watcher must have seen every
// event, or the run does not count.
//
//   arb_bench_watch [watchers=1000] [seconds=5] [runs=5]
//
// Prints the calibration (CAF round trips/s) before and after, each run, and the medians with
// their ranges. The store runs with durability "normal" (no fsync: the shared disk's syncs
// would drown what is measured).

#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include <unistd.h>

#include "../apps/arb-stress/calibration.hpp"
#include "arbroker/actors/engine.hpp"
#include "arbroker/node/node.hpp"

using namespace arbroker;
namespace fs = std::filesystem;

namespace {

struct calibration_config : caf::actor_system_config {
  calibration_config() { configure_engine(*this, 2); }
};

double calibrate() {
  calibration_config cfg;
  caf::actor_system sys{cfg};
  return stress::measure_round_trips(sys, 1.0).round_trips_per_second;
}

// Reservation cycles (reserve, then cancel) with `in_flight` of them under way, for `seconds`.
class load {
 public:
  load(node& n, int in_flight) : n_(n), in_flight_(in_flight) {}

  double run(double seconds) {
    std::unique_lock lock{mu_};
    stop_ = false;
    done_ = 0;
    started_ = 0;
    finished_ = 0;
    lock.unlock();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < in_flight_; ++i)
      next();
    lock.lock();
    const auto until = t0 + std::chrono::duration<double>(seconds);
    cv_.wait_until(lock, until, [] { return false; });
    stop_ = true;
    cv_.wait(lock, [&] { return finished_ == started_; });
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return static_cast<double>(done_) / elapsed;
  }
  std::int64_t failures() const { return failures_; }

 private:
  void next() {
    {
      std::lock_guard lock{mu_};
      if (stop_) return;
      ++started_;
    }
    const timestamp now = wall_clock()();
    msg::elastic_request r;
    r.user = "alice";
    r.est = now + 3600;
    r.let = now + 7 * 3600;
    r.np_min = r.np_max = r.np_ref = 4;
    r.dur_ref = 3600;
    r.pp_ref = 1500;
    r.prefer = *parse_preferences("start");
    n_.elastic(std::move(r), [this](msg::elastic_reply rep) {
      if (!rep.error.ok()) return finish(false);
      n_.cancel({"alice", rep.reservation.id}, [this](msg::ack_reply a) { finish(a.error.ok()); });
    });
  }
  void finish(bool ok) {
    {
      std::lock_guard lock{mu_};
      ++finished_;
      if (ok)
        ++done_;
      else
        ++failures_;
      cv_.notify_all();
    }
    next();
  }

  node& n_;
  const int in_flight_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::int64_t started_ = 0, finished_ = 0, done_ = 0, failures_ = 0;
};

struct watcher_counts {
  std::atomic<std::uint64_t> events{0};
  std::atomic<std::uint64_t> last{0};
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int watchers = argc > 1 ? std::atoi(argv[1]) : 1000;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 5;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 5;
  if (watchers < 1 || !(seconds > 0) || runs < 1) {
    std::fprintf(stderr, "usage: %s [watchers>=1] [seconds>0] [runs>=1]\n", argv[0]);
    return 2;
  }
  std::printf("calibration: %.0f CAF round trips/s\n", calibrate());
  const auto dir = fs::temp_directory_path() / ("arb-watch-bench-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto cfg = default_node_config();
  cfg.data_dir = dir.string();
  cfg.durability = "normal";
  cfg.max_watchers = static_cast<std::size_t>(watchers) + 10;
  for (auto& c : cfg.clusters)
    c.local_jobs.clear();
  auto started = node::start(std::move(cfg));
  if (!started) {
    std::fprintf(stderr, "node: %s\n", to_string(started.err()).c_str());
    return 1;
  }
  auto& n = **started;
  load l(n, 64);
  (void)l.run(1.0);  // warm up

  std::vector<double> none, with;
  bool all_seen = true;
  for (int i = 0; i < 2 * runs; ++i) {
    const bool watched = i % 2 == 1;
    std::vector<std::unique_ptr<watcher_counts>> counts;
    std::vector<std::shared_ptr<watch_handle>> handles;
    if (watched) {
      for (int w = 0; w < watchers; ++w) {
        counts.push_back(std::make_unique<watcher_counts>());
        auto* c = counts.back().get();
        watch_sink sink;
        sink.events = [c](msg::watch_reply page, std::function<void()> more) {
          c->events += page.events.size();
          c->last = page.last;
          more();
        };
        auto h = n.watch({"", -1, {}}, std::move(sink));
        if (!h) {
          std::fprintf(stderr, "watch: %s\n", to_string(h.err()).c_str());
          return 1;
        }
        handles.push_back(std::move(*h));
      }
    }
    const double rate = l.run(seconds);
    (watched ? with : none).push_back(rate);
    std::printf("run %d: %4d watchers  %8.0f reservations/s\n", i / 2 + 1, watched ? watchers : 0,
                rate);
    if (watched) {
      // Every watcher reaches the same last id: each saw every event once the load stopped.
      std::uint64_t target = 0;
      for (auto& c : counts)
        target = std::max(target, c->last.load());
      const auto t0 = std::chrono::steady_clock::now();
      for (auto& c : counts)
        while (c->last.load() < target &&
               std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30))
          std::this_thread::yield();
      const auto first = counts.front()->events.load();
      for (auto& c : counts)
        if (c->last.load() < target || c->events.load() != first) all_seen = false;
      std::printf("        each watcher saw %llu events\n", static_cast<unsigned long long>(first));
      for (auto& h : handles)
        h->cancel();
    }
  }
  std::printf("calibration: %.0f CAF round trips/s\n", calibrate());
  const auto range = [](const std::vector<double>& v) {
    return std::pair{*std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end())};
  };
  const auto [a0, a1] = range(none);
  const auto [b0, b1] = range(with);
  std::printf("no watcher:    median %8.0f reservations/s (%.0f-%.0f), %d runs\n", median(none), a0,
              a1, runs);
  std::printf("%4d watchers: median %8.0f reservations/s (%.0f-%.0f), %d runs\n", watchers,
              median(with), b0, b1, runs);
  std::printf(
      "cost: %.1f %% of the throughput; failed cycles: %lld; every watcher saw every "
      "event: %s\n",
      100.0 * (1.0 - median(with) / median(none)), static_cast<long long>(l.failures()),
      all_seen ? "yes" : "NO");
  n.shutdown(5);
  started->reset();
  fs::remove_all(dir);
  return all_seen ? 0 : 1;
}
