// Slurm adapter throughput against a live cluster: create+delete pairs of one-CPU
// reservations per second, snapshots per second, and (with a second cluster) pairs per
// second when calls alternate between two clusters in one process (libslurm re-initialised
// at each switch). Not run by ctest; see docs/performance.md.
//
//   scripts/slurm/start.sh bench --cpus 64 --port 17937
//   build/bench/arb_bench_slurm --conf /tmp/arb-slurm/bench/slurm.conf [--pairs 500]
//       [--conf2 /tmp/arb-slurm/bench2/slurm.conf]
//
// Reservations start an hour ahead and are named arbbench-*; the run deletes what it made.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>

#include "arbroker/adapters/slurm_lrms.hpp"

namespace {

using arbroker::slurm_lrms;
using arbroker::slurm_options;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

slurm_options options_for(const std::string& conf) {
  slurm_options o;
  o.conf = conf;
  o.prefix = "arbbench-";
  return o;
}

/// Creates and deletes `pairs` reservations, cycling over the adapters; false on an error.
bool pairs_per_second(slurm_lrms* const* adapters, int count, int pairs, const char* label) {
  const arbroker::timestamp start = std::time(nullptr) + 3600;
  const auto t0 = clock_type::now();
  for (int i = 0; i < pairs; ++i) {
    slurm_lrms& s = *adapters[i % count];
    auto id = s.create_reservation({"p" + std::to_string(i), "root", start, 600, 1});
    if (!id) {
      std::fprintf(stderr, "create %d: %s\n", i, to_string(id.err()).c_str());
      return false;
    }
    if (auto st = s.delete_reservation(*id); !st) {
      std::fprintf(stderr, "delete %s: %s\n", id->c_str(), to_string(st.err()).c_str());
      return false;
    }
  }
  const double elapsed = seconds_since(t0);
  std::printf("%-34s %6d pairs in %7.3f s: %8.1f pairs/s (%.2f ms per pair)\n", label, pairs,
              elapsed, pairs / elapsed, 1000.0 * elapsed / pairs);
  return true;
}

bool snapshots_per_second(slurm_lrms& s, int n) {
  const auto t0 = clock_type::now();
  for (int i = 0; i < n; ++i) {
    if (auto snap = s.snapshot(); !snap) {
      std::fprintf(stderr, "snapshot: %s\n", to_string(snap.err()).c_str());
      return false;
    }
  }
  const double elapsed = seconds_since(t0);
  std::printf("%-34s %6d in %7.3f s: %8.1f snapshots/s\n", "snapshot", n, elapsed, n / elapsed);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string conf, conf2;
  int pairs = 500;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--conf" && i + 1 < argc) {
      conf = argv[++i];
    } else if (arg == "--conf2" && i + 1 < argc) {
      conf2 = argv[++i];
    } else if (arg == "--pairs" && i + 1 < argc) {
      pairs = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--conf FILE] [--conf2 FILE] [--pairs N]\n", argv[0]);
      return 2;
    }
  }
  if (pairs < 1) pairs = 1;
  slurm_lrms one(options_for(conf));
  slurm_lrms* single[] = {&one};
  // Warm up: libslurm initialisation and the first connection are not measured.
  if (!pairs_per_second(single, 1, 5, "warm-up")) return 1;
  if (!pairs_per_second(single, 1, pairs, "create+delete, one cluster")) return 1;
  if (!snapshots_per_second(one, pairs / 5 + 1)) return 1;
  if (!conf2.empty()) {
    slurm_lrms two(options_for(conf2));
    slurm_lrms* both[] = {&one, &two};
    if (!pairs_per_second(both, 2, pairs / 5 + 2, "create+delete, two clusters alt.")) return 1;
  }
  return 0;
}
