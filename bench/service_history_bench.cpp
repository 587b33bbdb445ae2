// What a cluster service's history costs the calls that should not see it: status_report
// (the /metrics poller and `arb status`, every live reservation) and list for one user, with
// 100 live reservations of that user and N finished ones of others still within retention
// (a busy node keeps an hour of them by default). Flat in N is the goal.
//   build/bench/arb_bench_service_history --benchmark_repetitions=5

#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/sim/simulated_lrms.hpp"

namespace arbroker {
namespace {

struct service_with_history {
  timestamp now = 1'000'000;
  std::unique_ptr<cluster_service> svc;

  explicit service_with_history(int finished) {
    auto l = simulated_lrms::create({"c1", 1024, {1, {}}, [this] { return now; }});
    cluster_service_config c;
    c.info.name = "c1";
    c.info.cpus = 1024;
    c.refresh = 0;
    c.ljp = ljp_policy::off;
    c.retention = 365 * 86400;  // everything stays: the history under test
    svc = std::move(*cluster_service::create(std::move(c), std::move(*l)));
    int txn = 0;
    auto reserve = [&](const std::string& owner, timestamp start) {
      msg::prepare_request p;
      p.txn = "t" + std::to_string(++txn);
      p.owner = owner;
      p.start = start;
      p.end = start + 600;
      p.np = 1;
      p.expiry = now + 60;
      p.commit_at_once = true;
      return svc->prepare(p, now);
    };
    for (int i = 0; i < finished; ++i) {
      auto r = reserve("user" + std::to_string(i % 50), now + 3600 + i);
      (void)svc->cancel({"user" + std::to_string(i % 50), r.reservation_id}, now);
    }
    for (int i = 0; i < 100; ++i)
      (void)reserve("alice", now + 7200 + 60 * i);
  }
};

service_with_history& fixture(int finished) {
  static std::map<int, std::unique_ptr<service_with_history>> made;
  auto& f = made[finished];
  if (!f) f = std::make_unique<service_with_history>(finished);
  return *f;
}

void BM_status_report(benchmark::State& state) {
  auto& f = fixture(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto s = f.svc->status_report({}, f.now);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_status_report)->Arg(0)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMicrosecond);

void BM_list_one_user(benchmark::State& state) {
  auto& f = fixture(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto l = f.svc->list({"alice"}, f.now);
    benchmark::DoNotOptimize(l);
  }
}
BENCHMARK(BM_list_one_user)->Arg(0)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace arbroker

BENCHMARK_MAIN();
