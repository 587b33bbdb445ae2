#include "arbroker/core/runtime_prediction.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace arbroker {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr duration minute = 60;

// Paper 003, Fig. 2: (benchmarks = (nas-lu-c 250:65)(nas-bt-c 200:65)(nas-cg-c 90:50)),
// times in minutes.
std::vector<benchmark_spec> fig2() {
  return {{"nas-lu-c", 250, 65 * minute},
          {"nas-bt-c", 200, 65 * minute},
          {"nas-cg-c", 90, 50 * minute}};
}

// Twice the reference on every benchmark, plus a result nobody asked for.
cluster_benchmarks fast() {
  return {"fast", {{"nas-cg-c", 180}, {"nas-lu-c", 500}, {"nas-bt-c", 400}, {"hpl", 0}}};
}
// Exactly the reference systems.
cluster_benchmarks reference() {
  return {"reference", {{"nas-lu-c", 250}, {"nas-bt-c", 200}, {"nas-cg-c", 90}}};
}
// Slow on BT and publishes no CG result.
cluster_benchmarks no_cg() {
  return {"no-cg", {{"nas-lu-c", 250}, {"nas-bt-c", 100}}};
}

TEST(PredictRuntime, LinearScalingOnFasterCluster) {
  auto p = predict_runtime(fig2(), fast());
  ASSERT_TRUE(p) << to_string(p.err());
  ASSERT_EQ(p->estimates.size(), 3u);
  // 3900 * 250/500 = 1950, 3900 * 200/400 = 1950, 3000 * 90/180 = 1500
  EXPECT_EQ(p->estimates[0], (benchmark_estimate{"nas-lu-c", 1950, false}));
  EXPECT_EQ(p->estimates[1], (benchmark_estimate{"nas-bt-c", 1950, false}));
  EXPECT_EQ(p->estimates[2], (benchmark_estimate{"nas-cg-c", 1500, false}));
  EXPECT_DOUBLE_EQ(p->mean_seconds, 1800);  // (1950 + 1950 + 1500) / 3
  EXPECT_DOUBLE_EQ(p->max_seconds, 1950);
  EXPECT_EQ(p->execution, 1800);
  EXPECT_EQ(p->walltime, 1950);
}

TEST(PredictRuntime, ReferenceClusterReproducesUserTimes) {
  auto p = predict_runtime(fig2(), reference());
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->estimates[0].seconds, 65 * minute);
  EXPECT_DOUBLE_EQ(p->estimates[2].seconds, 50 * minute);
  EXPECT_EQ(p->execution, 60 * minute);  // (65 + 65 + 50) / 3 min
  EXPECT_EQ(p->walltime, 65 * minute);
}

TEST(PredictRuntime, MissingBenchmarkIsPenalized) {
  auto p = predict_runtime(fig2(), no_cg());
  ASSERT_TRUE(p);
  // LU: 3900 * 250/250 = 3900; BT: 3900 * 200/100 = 7800; CG missing: 1.25 * 7800 = 9750.
  EXPECT_EQ(p->estimates[0], (benchmark_estimate{"nas-lu-c", 3900, false}));
  EXPECT_EQ(p->estimates[1], (benchmark_estimate{"nas-bt-c", 7800, false}));
  EXPECT_EQ(p->estimates[2], (benchmark_estimate{"nas-cg-c", 9750, true}));
  EXPECT_DOUBLE_EQ(p->mean_seconds, 7150);  // 21450 / 3
  EXPECT_EQ(p->execution, 7150);
  EXPECT_EQ(p->walltime, 9750);
}

TEST(PredictRuntime, PenaltyIsConfigurable) {
  auto p = predict_runtime(fig2(), no_cg(), 2.0);
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->estimates[2].seconds, 15600);  // 2 * 7800
  EXPECT_EQ(p->execution, 9100);                     // (3900 + 7800 + 15600) / 3
  EXPECT_EQ(p->walltime, 15600);
  auto same = predict_runtime(fig2(), no_cg(), 1.0);  // c = 1: the longest estimate itself
  ASSERT_TRUE(same);
  EXPECT_DOUBLE_EQ(same->estimates[2].seconds, 7800);
}

TEST(PredictRuntime, TwoMissingUseTheOnlyPublishedEstimate) {
  const cluster_benchmarks only_cg{"only-cg", {{"nas-cg-c", 45}}};
  auto p = predict_runtime(fig2(), only_cg);
  ASSERT_TRUE(p);
  // CG: 3000 * 90/45 = 6000; LU, BT: 1.25 * 6000 = 7500 each; mean 21000 / 3 = 7000.
  EXPECT_DOUBLE_EQ(p->estimates[0].seconds, 7500);
  EXPECT_TRUE(p->estimates[0].penalized);
  EXPECT_DOUBLE_EQ(p->estimates[1].seconds, 7500);
  EXPECT_FALSE(p->estimates[2].penalized);
  EXPECT_EQ(p->execution, 7000);
  EXPECT_EQ(p->walltime, 7500);
}

TEST(PredictRuntime, FractionalEstimatesRoundUp) {
  const cluster_benchmarks odd{"odd", {{"nas-lu-c", 300}, {"nas-bt-c", 160}, {"nas-cg-c", 70}}};
  auto p = predict_runtime(fig2(), odd);
  ASSERT_TRUE(p);
  // 3900*250/300 = 3250, 3900*200/160 = 4875, 3000*90/70 = 3857.142857...
  EXPECT_DOUBLE_EQ(p->estimates[2].seconds, 3000.0 * 90 / 70);
  // mean = 11982.142857 / 3 = 3994.047619 -> 3995
  EXPECT_NEAR(p->mean_seconds, 3994.047619, 1e-6);
  EXPECT_EQ(p->execution, 3995);
  EXPECT_EQ(p->walltime, 4875);
}

TEST(PredictRuntime, ClusterWithoutAnyBenchmarkIsNotFound) {
  const cluster_benchmarks none{"bare", {{"hpl", 1000}}};
  auto p = predict_runtime(fig2(), none);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.err().code, errc::not_found);
  EXPECT_NE(p.err().message.find("bare"), std::string::npos);
  EXPECT_NE(p.err().message.find("nas-cg-c"), std::string::npos);
  EXPECT_EQ(predict_runtime(fig2(), cluster_benchmarks{"empty", {}}).err().code, errc::not_found);
}

TEST(PredictRuntime, RejectsBadSpecs) {
  EXPECT_EQ(predict_runtime({}, fast()).err().code, errc::invalid_parameter);
  auto with = [](benchmark_spec s) { return std::vector<benchmark_spec>{s}; };
  EXPECT_EQ(predict_runtime(with({"", 1, 60}), fast()).err().code, errc::invalid_parameter);
  for (double r : {0.0, -1.0, nan, inf}) {
    EXPECT_EQ(predict_runtime(with({"nas-lu-c", r, 60}), fast()).err().code,
              errc::invalid_parameter)
        << r;
  }
  for (duration t : {duration{0}, duration{-60}, time_infinity}) {
    EXPECT_EQ(predict_runtime(with({"nas-lu-c", 250, t}), fast()).err().code,
              errc::invalid_duration)
        << t;
  }
  std::vector<benchmark_spec> dup = fig2();
  dup.push_back({"nas-bt-c", 100, 60});
  EXPECT_EQ(predict_runtime(dup, fast()).err().code, errc::invalid_parameter);
}

TEST(PredictRuntime, RejectsBadPenalty) {
  for (double c : {0.99, 0.0, -1.25, nan, inf}) {
    auto p = predict_runtime(fig2(), fast(), c);
    ASSERT_FALSE(p) << c;
    EXPECT_EQ(p.err().code, errc::invalid_parameter);
  }
}

TEST(PredictRuntime, RejectsBadClusterResults) {
  for (double v : {0.0, -200.0, nan, inf}) {
    cluster_benchmarks c = reference();
    c.results[1].value = v;
    auto p = predict_runtime(fig2(), c);
    ASSERT_FALSE(p) << v;
    EXPECT_EQ(p.err().code, errc::invalid_parameter);
    EXPECT_NE(p.err().message.find("nas-bt-c"), std::string::npos);
  }
  cluster_benchmarks twice = reference();
  twice.results.push_back({"nas-lu-c", 260});
  EXPECT_EQ(predict_runtime(fig2(), twice).err().code, errc::invalid_parameter);
  // Published twice but not requested: ignored like any other unrequested result.
  cluster_benchmarks extra = reference();
  extra.results.push_back({"hpl", 1});
  extra.results.push_back({"hpl", -1});
  EXPECT_TRUE(predict_runtime(fig2(), extra));
}

TEST(PredictRuntime, RejectsEstimatesBeyondInfinity) {
  const cluster_benchmarks crawl{"crawl", {{"nas-lu-c", 1e-300}}};
  EXPECT_EQ(predict_runtime(fig2(), crawl).err().code, errc::invalid_parameter);
}

TEST(TotalTimeToDelivery, WaitIsMaxOfStageInAndQueue) {
  // max(600, 300) + 1800 + 120
  EXPECT_EQ(*total_time_to_delivery({600, 300, 1800, 120}), 2520);
  // stage-out unknown: omitted
  EXPECT_EQ(*total_time_to_delivery({600, 300, 1800, std::nullopt}), 2400);
  // the queue dominates: max(600, 900) + 1800
  EXPECT_EQ(*total_time_to_delivery({600, 900, 1800, std::nullopt}), 2700);
  EXPECT_EQ(*total_time_to_delivery({0, 0, 1, 0}), 1);
}

TEST(TotalTimeToDelivery, RejectsBadInput) {
  auto code = [](ttd_components c) { return total_time_to_delivery(c).err().code; };
  EXPECT_EQ(code({-1, 0, 10, std::nullopt}), errc::invalid_duration);
  EXPECT_EQ(code({0, -1, 10, std::nullopt}), errc::invalid_duration);
  EXPECT_EQ(code({0, 0, 0, std::nullopt}), errc::invalid_duration);
  EXPECT_EQ(code({0, 0, -5, std::nullopt}), errc::invalid_duration);
  EXPECT_EQ(code({0, 0, 10, -1}), errc::invalid_duration);
  EXPECT_EQ(code({time_infinity, 0, 10, std::nullopt}), errc::invalid_duration);
  EXPECT_EQ(code({0, 0, time_infinity, std::nullopt}), errc::invalid_duration);
  EXPECT_EQ(code({0, time_infinity - 5, 5, std::nullopt}), errc::invalid_duration);
}

TEST(RankByTimeToDelivery, FastestRuntimeNeedNotWin) {
  // Executions from the predictions above: fast 1800, reference 3600, no-cg 7150.
  const std::vector<ttd_candidate> clusters{
      {"fast", {600, 3000, 1800, 100}},      // max(600, 3000) + 1800 + 100 = 4900
      {"reference", {100, 0, 3600, 200}},    // 100 + 3600 + 200 = 3900
      {"no-cg", {50, 0, 7150, 50}},          // 50 + 7150 + 50 = 7250
      {"another", {3000, 900, 1800, 100}}};  // 3000 + 1800 + 100 = 4900, ties with fast
  auto r = rank_by_time_to_delivery(clusters);
  ASSERT_TRUE(r) << to_string(r.err());
  const std::vector<ttd_ranked> expected{
      {"reference", 3900}, {"another", 4900}, {"fast", 4900}, {"no-cg", 7250}};
  EXPECT_EQ(*r, expected);
}

TEST(RankByTimeToDelivery, AllWithoutStageOut) {
  const std::vector<ttd_candidate> clusters{{"b", {0, 0, 20, std::nullopt}},
                                            {"a", {0, 0, 30, std::nullopt}}};
  auto r = rank_by_time_to_delivery(clusters);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (std::vector<ttd_ranked>{{"b", 20}, {"a", 30}}));
}

TEST(RankByTimeToDelivery, RejectsBadInput) {
  EXPECT_EQ(rank_by_time_to_delivery({}).err().code, errc::invalid_parameter);
  const std::vector<ttd_candidate> dup{{"a", {0, 0, 10, 0}}, {"a", {0, 0, 20, 0}}};
  EXPECT_EQ(rank_by_time_to_delivery(dup).err().code, errc::invalid_parameter);
  const std::vector<ttd_candidate> mixed{{"a", {0, 0, 10, 5}}, {"b", {0, 0, 20, std::nullopt}}};
  auto m = rank_by_time_to_delivery(mixed);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.err().code, errc::invalid_parameter);
  EXPECT_NE(m.err().message.find("'a' but not for 'b'"), std::string::npos);
  const std::vector<ttd_candidate> mixed2{{"a", {0, 0, 10, std::nullopt}}, {"b", {0, 0, 20, 5}}};
  EXPECT_NE(rank_by_time_to_delivery(mixed2).err().message.find("'b' but not for 'a'"),
            std::string::npos);
  const std::vector<ttd_candidate> broken{{"a", {0, 0, 10, 0}}, {"b", {0, 0, 0, 0}}};
  auto b = rank_by_time_to_delivery(broken);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.err().code, errc::invalid_duration);
  EXPECT_NE(b.err().message.find("'b'"), std::string::npos);
}

}  // namespace
}  // namespace arbroker
