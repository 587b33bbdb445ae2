#include "arbroker/metrics/process_collector.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <latch>
#include <map>
#include <thread>
#include <vector>

namespace arbroker::metrics {
namespace {

// One scrape of the collector, by metric name.
std::map<std::string, double> collect() {
  std::map<std::string, double> out;
  for (const auto& f : process_collector{}.Collect()) {
    EXPECT_EQ(f.metric.size(), 1u) << f.name;
    const auto& m = f.metric.front();
    out[f.name] = f.type == prometheus::MetricType::Counter ? m.counter.value : m.gauge.value;
  }
  return out;
}

TEST(parse_proc_stat, CountsFieldsAfterTheLastParenthesisOfTheName) {
  // proc(5) fields 1..24; the name holds a space and a ')'.
  const std::string line =
      "4242 (arb d) x) S 1 4242 4242 0 -1 4194560 500 0 0 0 250 150 0 0 20 0 7 0 12345 "
      "104857600 2560 18446744073709551615";
  const auto s = parse_proc_stat(line, 100, 4096, 1'700'000'000);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->cpu_seconds, 4.0);  // (250 + 150) ticks / 100
  EXPECT_DOUBLE_EQ(s->threads, 7);
  EXPECT_DOUBLE_EQ(s->start_time, 1'700'000'000 + 123.45);
  EXPECT_DOUBLE_EQ(s->virtual_bytes, 104857600);
  EXPECT_DOUBLE_EQ(s->resident_bytes, 2560.0 * 4096);
}

TEST(parse_proc_stat, ALineWithoutTheFieldsIsRefused) {
  EXPECT_FALSE(parse_proc_stat("", 100, 4096, 0));
  EXPECT_FALSE(parse_proc_stat("1 (x) S 1 2 3", 100, 4096, 0));
  EXPECT_FALSE(
      parse_proc_stat("1 x S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21", 100, 4096, 0));
  EXPECT_FALSE(parse_proc_stat("1 (x) S 1 2 3 4 5 6 7 8 9 10 ten 12 13 14 15 16 17 18 19 20 21 22",
                               100, 4096, 0));
}

TEST(process_collector, FollowsThisProcess) {
  const auto before = collect();
  for (const char* name : {"process_cpu_seconds_total", "process_resident_memory_bytes",
                           "process_virtual_memory_bytes", "process_start_time_seconds",
                           "process_threads", "process_open_fds", "process_max_fds"})
    EXPECT_EQ(before.count(name), 1u) << name;

  // 64 MiB touched, 3 more descriptors, 1 more thread (parked on a latch while we look).
  std::vector<char> block(64 << 20);
  std::memset(block.data(), 1, block.size());
  int fds[3];
  for (int& fd : fds)
    fd = ::open("/dev/null", O_RDONLY);
  std::latch looked{1};
  std::thread extra([&] { looked.wait(); });
  // Some CPU: the counter is in clock ticks, so spin for a few of them.
  const auto spin_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  volatile std::uint64_t x = 0;
  while (std::chrono::steady_clock::now() < spin_until)
    x = x + 1;
  const auto after = collect();
  looked.count_down();
  extra.join();
  for (int fd : fds)
    ::close(fd);

  EXPECT_GE(after.at("process_resident_memory_bytes") - before.at("process_resident_memory_bytes"),
            48 << 20);
  EXPECT_GE(after.at("process_virtual_memory_bytes"), after.at("process_resident_memory_bytes"));
  EXPECT_EQ(after.at("process_open_fds") - before.at("process_open_fds"), 3);
  EXPECT_GE(after.at("process_threads") - before.at("process_threads"), 1);
  EXPECT_GT(after.at("process_cpu_seconds_total"), before.at("process_cpu_seconds_total"));
  EXPECT_GE(after.at("process_max_fds"), after.at("process_open_fds"));
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_LE(after.at("process_start_time_seconds"), now + 1);
  EXPECT_GT(after.at("process_start_time_seconds"), now - 86400);
  EXPECT_EQ(after.at("process_start_time_seconds"), before.at("process_start_time_seconds"));
}

}  // namespace
}  // namespace arbroker::metrics
