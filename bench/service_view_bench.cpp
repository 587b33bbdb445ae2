// What a cluster service's view of its LRMS costs a prepare once a second, with N live
// reservations on a 512-CPU simulated cluster (the co-reservation bench leaves about 100,000
// per cluster): each iteration moves the clock by one second, so the view is due for a
// refresh (refresh = 1 s), then holds one CPU and aborts the hold. full_refresh 0 reads the
// whole LRMS at every refresh (how every refresh worked before the capacity view);
// full_refresh 30 (the default) reads only the jobs, and everything every 30 s.
//   build/bench/arb_bench_service_view --benchmark_repetitions=5

#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/sim/simulated_lrms.hpp"

namespace arbroker {
namespace {

struct service_with_reservations {
  timestamp now = 1'000'000;
  std::unique_ptr<cluster_service> svc;
  std::mt19937 rng{15};
  int txn = 0;

  service_with_reservations(int live, duration full_refresh) {
    simulated_lrms_config sc{"c1", 512, {1, {}}, [this] { return now; }};
    sc.reports_reservation_changes = false;  // read as a real LRMS is, at every full read
    auto l = simulated_lrms::create(std::move(sc));
    cluster_service_config c;
    c.info.name = "c1";
    c.info.cpus = 512;
    c.refresh = 1;
    c.full_refresh = full_refresh;
    svc = std::move(*cluster_service::create(std::move(c), std::move(*l)));
    for (int i = 0; i < live; ++i)
      (void)prepare(true);
  }

  // One CPU for ten minutes at a random start within the next year.
  msg::prepare_reply prepare(bool commit) {
    msg::prepare_request p;
    p.txn = "t" + std::to_string(++txn);
    p.owner = "alice";
    p.start = now + 3600 + static_cast<timestamp>(rng() % (365 * 86400));
    p.end = p.start + 600;
    p.np = 1;
    p.expiry = now + 60;
    p.commit_at_once = commit;
    return svc->prepare(p, now);
  }
};

void BM_prepare_each_second(benchmark::State& state) {
  static std::map<std::pair<int, int>, std::unique_ptr<service_with_reservations>> made;
  const auto key =
      std::make_pair(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  auto& f = made[key];
  if (!f) f = std::make_unique<service_with_reservations>(key.first, key.second);
  int refused = 0;
  for (auto _ : state) {
    f->now += 1;
    auto r = f->prepare(false);
    refused += !r.error.ok();
    benchmark::DoNotOptimize(f->svc->abort_txn({r.txn}, f->now));
  }
  state.counters["refused"] = refused;
}
BENCHMARK(BM_prepare_each_second)
    ->ArgNames({"reservations", "full_refresh"})
    ->ArgsProduct({{1'000, 10'000, 100'000}, {0, 30}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace arbroker

BENCHMARK_MAIN();
