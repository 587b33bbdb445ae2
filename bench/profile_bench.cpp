// Availability profile: the augmented AVL tree (availability_profile) against the linear
// reference (linear_profile). See docs/performance.md for how to run it and the results.
//
// Workload (n, load, q): a 1024-CPU cluster and n jobs (np uniform in 1..64, duration
// log-uniform from one minute to one day) released uniformly over a horizon sized for an
// offered load of `load` percent, each placed at its earliest start (as a backfilling
// scheduler would). Queries ask for np uniform in 1..q CPUs during 10 minutes to a day from
// a random instant of the horizon; some fit at once, the others have to step over busy
// stretches. The headline scenario is load 70, q 256; the others show how the query cost
// of the tree grows with the number of busy stretches a query steps over.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <tuple>
#include <vector>

#include "arbroker/core/availability_profile.hpp"
#include "arbroker/core/linear_profile.hpp"

namespace {

using arbroker::availability_profile;
using arbroker::duration;
using arbroker::linear_profile;
using arbroker::timestamp;

constexpr int total_cpus = 1024;
constexpr std::size_t query_count = 1024;

struct allocation {
  timestamp start;
  timestamp end;
  int np;
};

struct query {
  timestamp t0;
  duration dur;
  int np;
};

struct workload {
  availability_profile tree;
  linear_profile linear;
  std::vector<query> queries;
  std::vector<allocation> inserts;  // each fits into the profile as built
  double immediate = 0;             // share of queries that fit at t0
  double mean_wait_h = 0;           // mean (start - t0) of the queries, hours
};

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "profile_bench: %s\n", what);
  std::exit(1);
}

duration log_uniform(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
  return static_cast<duration>(std::exp(u(rng)));
}

std::unique_ptr<workload> build(int n, int load_percent, int query_np_max) {
  std::mt19937_64 rng(0x5eed0000u + static_cast<unsigned>(n));
  auto tree = availability_profile::create(total_cpus);
  auto linear = linear_profile::create(total_cpus);
  if (!tree || !linear) die("create failed");
  // Mean work of a job: E[np] * E[dur] = 32.5 * (86400 - 60) / ln(1440) CPU-seconds.
  const double mean_work = 32.5 * (86400.0 - 60.0) / std::log(1440.0);
  const auto horizon = static_cast<timestamp>(n * mean_work / (load_percent / 100.0 * total_cpus));
  std::uniform_int_distribution<timestamp> release(0, horizon);
  std::uniform_int_distribution<int> job_np(1, 64);
  std::vector<allocation> jobs;
  jobs.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const duration dur = log_uniform(rng, 60, 86400);
    const int np = job_np(rng);
    const auto s = tree->earliest_start(release(rng), dur, np);
    if (!s || !tree->add(*s, *s + dur, np)) die("placing a job failed");
    jobs.push_back({*s, *s + dur, np});
  }
  // The linear reference scans from its first change point on every call; adding in
  // descending start order keeps its build cost near-linear (nothing precedes the new
  // allocation's start).
  std::sort(jobs.begin(), jobs.end(),
            [](const allocation& a, const allocation& b) { return a.start > b.start; });
  for (const auto& j : jobs) {
    if (!linear->add(j.start, j.end, j.np)) die("linear add failed");
  }
  if (tree->change_points() != linear->change_points()) die("profiles differ");

  auto w = std::make_unique<workload>(workload{std::move(*tree), std::move(*linear), {}, {}});
  std::uniform_int_distribution<int> query_np(1, query_np_max);
  double waited = 0;
  int at_once = 0;
  for (std::size_t i = 0; i < query_count; ++i) {
    const query q{release(rng), log_uniform(rng, 600, 86400), query_np(rng)};
    const auto s = w->tree.earliest_start(q.t0, q.dur, q.np);
    const auto s_lin = w->linear.earliest_start(q.t0, q.dur, q.np);
    if (!s || !s_lin || *s != *s_lin) die("query answers differ");
    at_once += *s == q.t0;
    waited += static_cast<double>(*s - q.t0);
    w->queries.push_back(q);
    // An allocation that fits into the profile as built, for the insert benchmarks.
    const int np = job_np(rng);
    const duration dur = log_uniform(rng, 60, 86400);
    const auto fit = w->tree.earliest_start(q.t0, dur, np);
    if (!fit) die("no fit for an insert");
    w->inserts.push_back({*fit, *fit + dur, np});
  }
  w->immediate = static_cast<double>(at_once) / query_count;
  w->mean_wait_h = waited / query_count / 3600.0;
  return w;
}

// Workloads are built once per (n, load, q) and shared by both implementations.
workload& get(const benchmark::State& state) {
  static std::map<std::tuple<int, int, int>, std::unique_ptr<workload>> cache;
  const auto n = static_cast<int>(state.range(0));
  const auto load = static_cast<int>(state.range(1));
  const auto q = static_cast<int>(state.range(2));
  auto& slot = cache[{n, load, q}];
  if (!slot) slot = build(n, load, q);
  return *slot;
}

template <class P>
P& profile_of(workload& w);
template <>
availability_profile& profile_of<availability_profile>(workload& w) {
  return w.tree;
}
template <>
linear_profile& profile_of<linear_profile>(workload& w) {
  return w.linear;
}

template <class P>
void BM_earliest_start(benchmark::State& state) {
  auto& w = get(state);
  const P& p = profile_of<P>(w);
  std::size_t i = 0;
  for (auto _ : state) {
    const query& q = w.queries[i];
    i = (i + 1) % w.queries.size();
    auto s = p.earliest_start(q.t0, q.dur, q.np);
    benchmark::DoNotOptimize(s);
  }
  state.counters["change_points"] = static_cast<double>(p.change_points());
  state.counters["fit_at_t0"] = w.immediate;
  state.counters["mean_wait_h"] = w.mean_wait_h;
}

// One add and the matching remove, so that the profile keeps its size.
template <class P>
void BM_add_remove(benchmark::State& state) {
  auto& w = get(state);
  P& p = profile_of<P>(w);
  std::size_t i = 0;
  for (auto _ : state) {
    const allocation& a = w.inserts[i];
    i = (i + 1) % w.inserts.size();
    if (!p.add(a.start, a.end, a.np) || !p.remove(a.start, a.end, a.np)) {
      state.SkipWithError("add/remove failed");
      break;
    }
  }
  state.counters["change_points"] = static_cast<double>(p.change_points());
}

// Arguments: n, load percent, q. The headline scenario at every size...
void headline(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "load", "q"})->Unit(benchmark::kMicrosecond);
  for (int n : {1000, 10000, 100000})
    b->Args({n, 70, 256});
}
// ...and, for queries at n = 100k, lighter and heavier ones.
void sensitivity(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "load", "q"})->Unit(benchmark::kMicrosecond);
  for (int load : {60, 70, 85}) {
    for (int q : {256, 512}) {
      if (load != 70 || q != 256) b->Args({100000, load, q});
    }
  }
}

BENCHMARK_TEMPLATE(BM_earliest_start, availability_profile)->Apply(headline);
BENCHMARK_TEMPLATE(BM_earliest_start, linear_profile)->Apply(headline);
BENCHMARK_TEMPLATE(BM_add_remove, availability_profile)->Apply(headline);
BENCHMARK_TEMPLATE(BM_add_remove, linear_profile)->Apply(headline);
BENCHMARK_TEMPLATE(BM_earliest_start, availability_profile)->Apply(sensitivity);
BENCHMARK_TEMPLATE(BM_earliest_start, linear_profile)->Apply(sensitivity);

}  // namespace

BENCHMARK_MAIN();
