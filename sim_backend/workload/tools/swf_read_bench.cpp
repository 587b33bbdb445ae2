// Times read_swf on each file given: arb_swf_read_bench FILE... [--repeat N]
// Prints the number of jobs and the best and mean wall time of N reads (default 5).

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "arbroker/sim/swf.hpp"

int main(int argc, char** argv) {
  int repeat = 5;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else {
      files.push_back(arg);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: arb_swf_read_bench FILE... [--repeat N]\n");
    return 2;
  }
  for (const auto& file : files) {
    double best = 1e100;
    double total = 0;
    std::size_t jobs = 0;
    for (int r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      auto trace = arbroker::sim::read_swf(file);
      const auto t1 = std::chrono::steady_clock::now();
      if (!trace) {
        std::fprintf(stderr, "%s\n", arbroker::to_string(trace.err()).c_str());
        return 1;
      }
      jobs = trace->jobs.size();
      const double s = std::chrono::duration<double>(t1 - t0).count();
      best = std::min(best, s);
      total += s;
    }
    std::printf("%s: %zu jobs, best %.3f s, mean %.3f s over %d reads\n", file.c_str(), jobs, best,
                total / repeat, repeat);
  }
  return 0;
}
