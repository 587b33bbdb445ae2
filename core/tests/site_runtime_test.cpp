#include "arbroker/core/site_runtime.hpp"

#include <gtest/gtest.h>

#include "arbroker/core/site_adaptation.hpp"

namespace arbroker {
namespace {

elastic_request request() {
  elastic_request r;
  r.user = "alice";
  r.est = 1000;
  r.let = 100000;
  r.np_min = r.np_max = r.np_ref = 8;
  r.dur_ref = 3600;
  r.pp_ref = 1000;
  return r;
}

const site_description fast{"fast", 64, 2000, {1, {}}};

TEST(SiteRuntime, WithoutHintsTheRequestIsUnchanged) {
  auto r = runtime_on_site(request(), fast, {"fast", {}}, 1e6, 500);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->req.dur_ref, 3600);
  EXPECT_EQ(r->req.pp_ref, 1000);
  EXPECT_EQ(r->req.est, 1000);
  EXPECT_EQ(r->delivery.execution_share, 1);
  EXPECT_EQ(r->delivery.stage_in, 0);
  EXPECT_FALSE(r->delivery.stage_out);
  // pp scaling: twice the power, half the time.
  auto adapted = adapt_to_site(r->req, fast);
  ASSERT_TRUE(adapted);
  EXPECT_EQ(adapted->shapes.front().dur, 1800);
}

TEST(SiteRuntime, BenchmarksReplaceProcessorPowerScaling) {
  auto req = request();
  // The processor power says 1800 s here; the benchmarks say 3000 s (b1) and 1000 s (b2).
  req.hints.benchmarks = {{"b1", 10, 3000}, {"b2", 10, 2000}};
  auto r = runtime_on_site(req, fast, {"fast", {{"b1", 10}, {"b2", 20}}}, 0, 500);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->req.dur_ref, 3000);  // the largest estimate is reserved
  auto adapted = adapt_to_site(r->req, fast);
  ASSERT_TRUE(adapted);
  EXPECT_EQ(adapted->shapes.front().dur, 3000);
  EXPECT_DOUBLE_EQ(r->delivery.execution_share, 2000.0 / 3000.0);  // the mean ranks
  const auto t = ttd_terms(r->delivery, 500, 1000, 4000);
  EXPECT_EQ(t.queue_wait, 500);
  EXPECT_EQ(t.execution, 2000);
  EXPECT_FALSE(t.stage_out);
}

TEST(SiteRuntime, AClusterWithoutAnyOfTheBenchmarksIsNotFound) {
  auto req = request();
  req.hints.benchmarks = {{"b1", 10, 3000}};
  EXPECT_EQ(runtime_on_site(req, fast, {"fast", {{"other", 1}}}, 0, 0).err().code, errc::not_found);
}

TEST(SiteRuntime, TheStartWaitsForTheInput) {
  auto req = request();
  req.hints.input_bytes = 10'000'000;  // 1000 s at 10 kB/s
  req.hints.output_bytes = 200'000;    // 20 s
  auto r = runtime_on_site(req, fast, {"fast", {}}, 10'000, 500);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->delivery.stage_in, 1000);
  EXPECT_EQ(r->req.est, 1500);  // now + stage-in, after est
  EXPECT_EQ(r->delivery.stage_out, 20);
  const auto t = ttd_terms(r->delivery, 500, 1500, 3300);
  EXPECT_EQ(*total_time_to_delivery(t), 1000 + 1800 + 20);
  // An unknown bandwidth stages for free; data that cannot arrive before let is refused.
  EXPECT_EQ(runtime_on_site(req, fast, {"fast", {}}, 0, 500)->req.est, 1000);
  req.hints.input_bytes = 2'000'000'000;
  EXPECT_EQ(runtime_on_site(req, fast, {"fast", {}}, 10'000, 500).err().code, errc::infeasible);
}

}  // namespace
}  // namespace arbroker
