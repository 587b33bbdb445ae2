// Elastic requests with paper 003's hints (Sec. 3.2): benchmarks give each cluster's run time
// (the largest estimate is reserved, the mean ranks), a reservation waits for its input, and
// the `ttd` policy ranks by the time to delivery, which is no longer IMCT under another name.

#include "engine_fixture.hpp"

namespace arbroker {
namespace {

using testing::engine_fixture;

constexpr duration T = 3600;

// Three idle clusters of 8 CPUs, power 1000. The request: 4 CPUs (linear speedup), benchmarks
// b1 = 10 -> T and b2 = 10 -> T.
//        publishes         b1 est.  b2 est.   mean    max (reserved)   bandwidth
//   x    b1 10, b2 40      T        T/4       5T/8    T                1 MB/s
//   y    b1 12, b2 12      5T/6     5T/6      5T/6    5T/6 (3000 s)    1 GB/s
//   z    other 1           -- publishes none of them: skipped with a reason --
// IMCT (completion = start + reserved): y, x. TTD (wait + mean + stage-out): x, y.
struct runtime_hints_test : engine_fixture {
  void SetUp() override {
    add_cluster("x", 8, 1000, 1, 1.0, [](msg::cluster_info& c) {
      c.benchmark_names = {"b1", "b2"};
      c.benchmark_results = {10, 40};
      c.bandwidth = 1e6;
    });
    add_cluster("y", 8, 1000, 1, 1.0, [](msg::cluster_info& c) {
      c.benchmark_names = {"b1", "b2"};
      c.benchmark_results = {12, 12};
      c.bandwidth = 1e9;
    });
    add_cluster("z", 8, 1000, 1, 1.0, [](msg::cluster_info& c) {
      c.benchmark_names = {"other"};
      c.benchmark_results = {1};
    });
  }

  msg::elastic_request job(const std::string& policy,
                           msg::request_mode mode = msg::request_mode::reserve) {
    auto r = elastic(0, 20 * T, 4, 4, T, 4);
    r.policy = policy;
    r.mode = mode;
    r.benchmarks = {{"b1", 10, T}, {"b2", 10, T}};
    return r;
  }
};

TEST_F(runtime_hints_test, TtdRanksByTheMeanEstimateImctByWhatIsReserved) {
  EXPECT_EQ(whatif_ranking(job("imct")), "yx");
  EXPECT_EQ(whatif_ranking(job("ttd")), "xy");
  // Without benchmarks both see the same run time everywhere and agree (by name on ties).
  auto plain = job("ttd", msg::request_mode::whatif);
  plain.benchmarks.clear();
  EXPECT_EQ(whatif_ranking(plain), "xyz");
}

TEST_F(runtime_hints_test, TheLargestEstimateIsReserved) {
  auto reply = ask<msg::elastic_reply>(broker, job("ttd"));
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  EXPECT_EQ(reply.reservation.cluster, "x");
  EXPECT_EQ(reply.reservation.end - reply.reservation.start, T);
  // By preferences (earliest end first), the same hints: y ends first, after 3000 s.
  auto r = job("");
  reply = ask<msg::elastic_reply>(broker, r);
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  EXPECT_EQ(reply.reservation.cluster, "y");
  EXPECT_EQ(reply.reservation.start, now);
  EXPECT_EQ(reply.reservation.end, now + 3000);
}

TEST_F(runtime_hints_test, StagingDelaysTheStartAndCountsInTheTtd) {
  auto r = job("ttd", msg::request_mode::whatif);
  r.benchmarks.clear();                              // the same run time T everywhere
  r.inputs = {{"gsiftp://data/in", 1'800'000'000}};  // x: 1800 s at 1 MB/s; y: 2 s
  auto reply = ask<msg::elastic_reply>(broker, r);
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  ASSERT_EQ(reply.ranked.size(), 3u);
  EXPECT_EQ(reply.ranked[0].cluster, "z");  // no bandwidth published: staging counts as free
  EXPECT_EQ(reply.ranked[1].cluster, "y");
  EXPECT_EQ(reply.ranked[1].start, now + 2);
  EXPECT_EQ(reply.ranked[2].cluster, "x");
  EXPECT_EQ(reply.ranked[2].start, now + 1800);  // not before the data are there
  // Data that cannot arrive before the latest end: x is out, with the reason.
  r.inputs = {{"gsiftp://data/in", 100'000'000'000}};  // x: 1e5 s > 20T
  r.mode = msg::request_mode::reserve;
  r.clusters = {"x"};
  reply = ask<msg::elastic_reply>(broker, r);
  EXPECT_EQ(reply.error.err(), errc::infeasible);
  EXPECT_NE(reply.error.message.find("stage in"), std::string::npos) << reply.error.message;
  EXPECT_EQ(lrms_reservations("x"), 0u);
}

TEST_F(runtime_hints_test, AClusterWithoutTheBenchmarksIsSkippedWithItsReason) {
  auto r = job("ttd");
  r.clusters = {"z"};
  auto reply = ask<msg::elastic_reply>(broker, r);
  EXPECT_EQ(reply.error.err(), errc::infeasible);
  EXPECT_NE(reply.error.message.find("z:"), std::string::npos) << reply.error.message;
  EXPECT_EQ(lrms_reservations("z"), 0u);
}

TEST_F(runtime_hints_test, BadHintsAreRefusedByTheCheck) {
  auto r = job("ttd");
  r.penalty = 0.5;
  EXPECT_EQ(msg::check(r).err().code, errc::invalid_parameter);
  r = job("ttd");
  r.benchmarks[1].seconds = 0;
  EXPECT_EQ(msg::check(r).err().code, errc::invalid_duration);
  r = job("ttd");
  r.inputs = {{"f", -1}};
  EXPECT_EQ(msg::check(r).err().code, errc::invalid_parameter);
  r = job("ttd");
  r.output_bytes = -2;
  EXPECT_EQ(msg::check(r).err().code, errc::invalid_parameter);
}

}  // namespace
}  // namespace arbroker
