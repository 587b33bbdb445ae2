#pragma once
// Independent runs of an experiment on several threads, results by index.

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "progress.hpp"

namespace arbroker::simapp {

// Runs fn(i) for i in [0, n) on `threads` threads; results go by index, so the output does
// not depend on the thread count.
template <class Fn>
void parallel_for(std::size_t n, unsigned threads, progress_bar& bar, Fn fn) {
  std::atomic<std::size_t> next{0}, done{0};
  auto worker = [&] {
    for (std::size_t i; (i = next++) < n;) {
      fn(i);
      bar.update(++done);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(1u, threads); ++t)
    pool.emplace_back(worker);
  worker();
  for (auto& t : pool)
    t.join();
}

}  // namespace arbroker::simapp
