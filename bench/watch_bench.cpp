// What watchers cost a node (docs/watch.md): the elastic throughput of a node in-process on
// the demo's three simulated clusters (empty), with no watcher and with N watchers, side by
// side in one window (runs alternate: none, N, none, N, ...). Each cycle is a reservation made
// (created and committed: two events) and cancelled (one event) by one of N users in turn, 64
// cycles in flight; each user watches their own (as `arb watch` and the console do), and
// `admins` more watchers see every event (an admin's `arb watch --all`: the most one costs).
// Every sink takes each page and asks for the next at once. At the end every watcher must
// have seen every event it may see, or the run does not count.
//
//   arb_bench_watch [watchers=1000] [seconds=5] [runs=5] [admins=0]
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
  load(node& n, int in_flight, int users) : n_(n), in_flight_(in_flight), users_(users) {}

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
  std::int64_t failures() const { return failures_; }  ///< (the first is printed)
  std::int64_t done() const { return done_; }          ///< cycles of the last run

 private:
  void next() {
    std::string user;
    {
      std::lock_guard lock{mu_};
      if (stop_) return;
      user = "u" + std::to_string(started_++ % users_);
    }
    const timestamp now = wall_clock()();
    msg::elastic_request r;
    r.user = user;
    r.est = now + 3600;
    r.let = now + 7 * 3600;
    r.np_min = r.np_max = r.np_ref = 4;
    r.dur_ref = 3600;
    r.pp_ref = 1500;
    r.prefer = *parse_preferences("start");
    n_.elastic(std::move(r), [this, user](msg::elastic_reply rep) {
      if (!rep.error.ok()) return finish(false, rep.error.message);
      n_.cancel({user, rep.reservation.id},
                [this](msg::ack_reply a) { finish(a.error.ok(), "cancel: " + a.error.message); });
    });
  }
  void finish(bool ok, const std::string& why = "cancel refused") {
    {
      std::lock_guard lock{mu_};
      ++finished_;
      if (ok)
        ++done_;
      else if (++failures_ == 1)
        std::fprintf(stderr, "the first failed cycle: %s\n", why.c_str());
      cv_.notify_all();
    }
    next();
  }

  node& n_;
  const int in_flight_;
  const int users_;
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
  const int admins = argc > 4 ? std::atoi(argv[4]) : 0;
  if (watchers < 1 || !(seconds > 0) || runs < 1 || admins < 0) {
    std::fprintf(stderr, "usage: %s [watchers>=1] [seconds>0] [runs>=1] [admins>=0]\n", argv[0]);
    return 2;
  }
  std::printf("calibration: %.0f CAF round trips/s\n", calibrate());
  const auto dir = fs::temp_directory_path() / ("arb-watch-bench-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto cfg = default_node_config();
  cfg.data_dir = dir.string();
  cfg.durability = "normal";
  cfg.max_watchers = static_cast<std::size_t>(watchers + admins) + 10;
  for (auto& c : cfg.clusters)
    c.local_jobs.clear();
  for (int u = 0; u < watchers; ++u)  // the users who reserve and watch
    cfg.users.push_back({"u" + std::to_string(u), "token-of-u" + std::to_string(u)});
  auto started = node::start(std::move(cfg));
  if (!started) {
    std::fprintf(stderr, "node: %s\n", to_string(started.err()).c_str());
    return 1;
  }
  auto& n = **started;
  load l(n, 64, watchers);
  (void)l.run(2 * seconds);  // warm up: the throughput settles as the store and histories grow

  std::vector<double> none, with;
  bool all_seen = true;
  for (int i = 0; i < 2 * runs; ++i) {
    const bool watched = i % 4 == 1 || i % 4 == 2;  // none, N, N, none, ...: drift cancels
    std::vector<std::unique_ptr<watcher_counts>> counts;
    std::vector<std::shared_ptr<watch_handle>> handles;
    if (watched) {
      for (int w = 0; w < watchers + admins; ++w) {
        counts.push_back(std::make_unique<watcher_counts>());
        auto* c = counts.back().get();
        watch_sink sink;
        sink.events = [c](msg::watch_reply page, std::function<void()> more) {
          c->events += page.events.size();
          c->last = page.last;
          more();
        };
        const std::string user = w < watchers ? "u" + std::to_string(w) : "";
        auto h = n.watch({user, -1, {}}, std::move(sink));
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
      // Every cycle made three events (created, committed, ended): the users' watchers saw
      // each once between them, and every admin's all of them.
      const auto expected = static_cast<std::uint64_t>(3 * l.done());
      auto users_saw = [&] {
        std::uint64_t sum = 0;
        for (int w = 0; w < watchers; ++w)
          sum += counts[static_cast<std::size_t>(w)]->events.load();
        return sum;
      };
      const auto t0 = std::chrono::steady_clock::now();
      auto all_in = [&] {
        if (users_saw() < expected) return false;
        for (int w = watchers; w < watchers + admins; ++w)
          if (counts[static_cast<std::size_t>(w)]->events.load() < expected) return false;
        return true;
      };
      while (!all_in() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30))
        std::this_thread::yield();
      bool exact = users_saw() == expected;
      for (int w = watchers; w < watchers + admins; ++w)
        exact = exact && counts[static_cast<std::size_t>(w)]->events.load() == expected;
      if (!exact) all_seen = false;
      std::printf("        %llu events, each told to its user's watcher%s: %s\n",
                  static_cast<unsigned long long>(expected), admins > 0 ? " and every admin's" : "",
                  exact ? "yes" : "NO");
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
