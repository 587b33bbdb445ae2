// Throughput of the Grid Engine adapter against a live cell (scripts/gridengine/start.sh):
// create_reservation + delete_reservation cycles, one after the other, and snapshot calls.
//
//   build/adapters/arb_bench_gridengine [cycles (default 200)]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "arbroker/adapters/gridengine_lrms.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

void report(const char* what, std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  double sum = 0;
  for (double m : ms)
    sum += m;
  std::printf("%-10s n=%zu mean %.1f ms, median %.1f ms, p95 %.1f ms, max %.1f ms\n", what,
              ms.size(), sum / static_cast<double>(ms.size()), ms[ms.size() / 2],
              ms[ms.size() * 95 / 100], ms.back());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace arbroker;
  const int cycles = argc > 1 ? std::atoi(argv[1]) : 200;
  if (cycles < 1) {
    std::fprintf(stderr, "usage: %s [cycles >= 1]\n", argv[0]);
    return 2;
  }
  gridengine_config config;
  config.name_prefix = "arbbench-";
  gridengine_lrms ge(config);

  std::vector<double> create_ms, delete_ms, snapshot_ms;
  const auto t0 = clock_type::now();
  for (int i = 0; i < cycles; ++i) {
    const timestamp start = static_cast<timestamp>(std::time(nullptr)) + 3600;
    auto t = clock_type::now();
    auto id = ge.create_reservation({"b" + std::to_string(i), "root", start, 600, 1});
    create_ms.push_back(ms_since(t));
    if (!id) {
      std::fprintf(stderr, "create: %s\n", to_string(id.err()).c_str());
      return 1;
    }
    t = clock_type::now();
    if (auto s = ge.delete_reservation(*id); !s) {
      std::fprintf(stderr, "delete: %s\n", to_string(s.err()).c_str());
      return 1;
    }
    delete_ms.push_back(ms_since(t));
  }
  const double total_s = ms_since(t0) / 1000.0;
  for (int i = 0; i < std::max(10, cycles / 10); ++i) {
    const auto t = clock_type::now();
    if (auto s = ge.snapshot(); !s) {
      std::fprintf(stderr, "snapshot: %s\n", to_string(s.err()).c_str());
      return 1;
    }
    snapshot_ms.push_back(ms_since(t));
  }
  std::printf("%d create+delete cycles in %.2f s: %.1f cycles/s (%.1f adapter calls/s)\n", cycles,
              total_s, cycles / total_s, 2 * cycles / total_s);
  report("create", create_ms);
  report("delete", delete_ms);
  report("snapshot", snapshot_ms);
  return 0;
}
