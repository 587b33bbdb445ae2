#include "arbroker/metrics/process_collector.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace arbroker::metrics {
namespace {

double boot_time() {
  std::ifstream in("/proc/stat");
  std::string key;
  double value = 0;
  while (in >> key) {
    if (key == "btime") {
      in >> value;
      return value;
    }
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

double open_fds() {
  std::error_code ec;
  double n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec))
    ++n;
  return n - 1;  // the iterator's own descriptor
}

prometheus::MetricFamily one(const char* name, const char* help, prometheus::MetricType type,
                             double value) {
  prometheus::ClientMetric m;
  if (type == prometheus::MetricType::Counter)
    m.counter.value = value;
  else
    m.gauge.value = value;
  return {name, help, type, {m}};
}

}  // namespace

std::optional<process_sample> parse_proc_stat(std::string_view line, long ticks_per_second,
                                              long page_bytes, double boot_time) {
  const auto close = line.rfind(')');
  if (close == std::string_view::npos || ticks_per_second <= 0) return std::nullopt;
  // Fields 3.. of proc(5) follow the name; we want 14 utime, 15 stime, 20 num_threads,
  // 22 starttime, 23 vsize, 24 rss: indexes 11, 12, 17, 19, 20, 21 of what follows.
  std::istringstream in{std::string(line.substr(close + 1))};
  std::vector<std::string> f;
  for (std::string s; f.size() < 22 && in >> s;)
    f.push_back(std::move(s));
  if (f.size() < 22) return std::nullopt;
  auto num = [&](std::size_t i, double& out) {
    long long v = 0;
    const auto* b = f[i].data();
    const auto r = std::from_chars(b, b + f[i].size(), v);
    out = static_cast<double>(v);
    return r.ec == std::errc{} && r.ptr == b + f[i].size();
  };
  double utime, stime, threads, start, vsize, rss;
  if (!num(11, utime) || !num(12, stime) || !num(17, threads) || !num(19, start) ||
      !num(20, vsize) || !num(21, rss))
    return std::nullopt;
  const double tick = static_cast<double>(ticks_per_second);
  return process_sample{(utime + stime) / tick, vsize, rss * static_cast<double>(page_bytes),
                        boot_time + start / tick, threads};
}

std::vector<prometheus::MetricFamily> process_collector::Collect() const {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  std::ifstream in("/proc/self/stat");
  std::string line;
  std::getline(in, line);
  static const double btime = boot_time();  // fixed while the machine runs
  if (auto s = parse_proc_stat(line, ::sysconf(_SC_CLK_TCK), ::sysconf(_SC_PAGESIZE), btime)) {
    out.push_back(one("process_cpu_seconds_total", "User and system CPU time spent, seconds.",
                      MetricType::Counter, s->cpu_seconds));
    out.push_back(one("process_resident_memory_bytes", "Resident memory size, bytes.",
                      MetricType::Gauge, s->resident_bytes));
    out.push_back(one("process_virtual_memory_bytes", "Virtual memory size, bytes.",
                      MetricType::Gauge, s->virtual_bytes));
    out.push_back(one("process_start_time_seconds",
                      "Start time of the process since the epoch, seconds.", MetricType::Gauge,
                      s->start_time));
    out.push_back(one("process_threads", "Threads of the process.", MetricType::Gauge, s->threads));
  }
  out.push_back(one("process_open_fds", "Open file descriptors.", MetricType::Gauge, open_fds()));
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0)
    out.push_back(one("process_max_fds", "Maximum number of open file descriptors.",
                      MetricType::Gauge, static_cast<double>(lim.rlim_cur)));
  return out;
}

}  // namespace arbroker::metrics
