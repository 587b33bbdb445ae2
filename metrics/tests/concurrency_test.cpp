#include <gtest/gtest.h>

#include <barrier>
#include <thread>
#include <vector>

#include "arbroker/metrics/registry.hpp"

namespace arbroker::metrics {
namespace {

constexpr int threads = 8;
constexpr int per_thread = 100'000;

// Starts `threads` threads together on `work(i)` and waits for all of them.
template <class F>
void run_together(F work) {
  std::barrier start(threads);
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i)
    pool.emplace_back([&, i] {
      start.arrive_and_wait();
      work(i);
    });
  for (auto& t : pool)
    t.join();
}

TEST(Concurrency, IncrementsFromManyThreadsSumExactly) {
  registry reg;
  auto requests = *reg.add_counter("r_total", "R.", {"op"});
  auto cpus = *reg.add_gauge("cpus", "CPUs.");
  auto latency = *reg.add_histogram("lat", "L.", {0.5, 1.5});
  run_together([&](int i) {
    // Every thread creates the same label set concurrently: all must get one object.
    auto& c = requests.with({"reserve"});
    auto& own = requests.with({"t" + std::to_string(i)});
    for (int k = 0; k < per_thread; ++k) {
      c.inc();
      own.inc(2);
      cpus.get().add(k % 2 == 0 ? 3 : -1);  // integers: exact in a double
      latency.get().observe(k % 2);         // 0 -> le 0.5, 1 -> le 1.5
    }
  });
  const std::uint64_t total = std::uint64_t{threads} * per_thread;
  EXPECT_EQ(requests.with({"reserve"}).value(), total);
  for (int i = 0; i < threads; ++i)
    EXPECT_EQ(requests.with({"t" + std::to_string(i)}).value(), 2u * per_thread);
  EXPECT_EQ(cpus.get().value(), static_cast<double>(total));  // (3 - 1) per pair
  const auto s = latency.get().read();
  EXPECT_EQ(s.count, total);
  EXPECT_EQ(s.cumulative, (std::vector<std::uint64_t>{total / 2, total, total}));
  EXPECT_EQ(s.sum, static_cast<double>(total / 2));
}

TEST(Concurrency, RenderingWhileUpdatingIsConsistent) {
  registry reg;
  auto latency = *reg.add_histogram("lat", "L.", {1}, {"op"});
  std::atomic<bool> done = false;
  std::thread scraper([&] {
    while (!done.load()) {
      const auto text = reg.render();
      // Whatever the moment, a histogram's count is its +Inf bucket.
      for (std::size_t at = text.find("le=\"+Inf\"} "); at != std::string::npos;
           at = text.find("le=\"+Inf\"} ", at + 1)) {
        const auto inf = text.substr(at + 11, text.find('\n', at) - at - 11);
        const auto line_end = text.find('\n', text.find("_count", at));
        const auto count_at = text.rfind(' ', line_end) + 1;
        EXPECT_EQ(inf, text.substr(count_at, line_end - count_at));
      }
    }
  });
  run_together([&](int i) {
    for (int k = 0; k < per_thread / 10; ++k)
      latency.with({"op" + std::to_string((i + k) % 5)}).observe(k % 3);
  });
  done = true;
  scraper.join();
  std::uint64_t count = 0;
  for (int op = 0; op < 5; ++op)
    count += latency.with({"op" + std::to_string(op)}).read().count;
  EXPECT_EQ(count, std::uint64_t{threads} * (per_thread / 10));
}

}  // namespace
}  // namespace arbroker::metrics
