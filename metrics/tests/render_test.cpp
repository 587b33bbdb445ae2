#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "arbroker/metrics/registry.hpp"
#include "arbroker/metrics/text_format.hpp"

namespace arbroker::metrics {
namespace {

TEST(Render, CountersGaugesAndHistogramsInTheTextFormat) {
  registry reg;
  auto requests = *reg.add_counter("arb_requests_total", "Requests by operation and outcome.",
                                   {"operation", "outcome"});
  auto holds = *reg.add_gauge("arb_holds", "Holds in place.");
  auto latency =
      *reg.add_histogram("arb_request_seconds", "Request latency.", {0.1, 1, 2.5}, {"operation"});
  requests.with({"reserve", "ok"}).inc(3);
  requests.with({"cancel", "not_found"}).inc();
  holds.get().set(2);
  holds.get().dec();
  auto& reserve = latency.with({"reserve"});
  reserve.observe(0.05);
  reserve.observe(0.1);  // on a bound: counted in that bucket (le = less or equal)
  reserve.observe(2);
  reserve.observe(7.5);

  EXPECT_EQ(reg.render(),
            "# HELP arb_requests_total Requests by operation and outcome.\n"
            "# TYPE arb_requests_total counter\n"
            "arb_requests_total{operation=\"cancel\",outcome=\"not_found\"} 1\n"
            "arb_requests_total{operation=\"reserve\",outcome=\"ok\"} 3\n"
            "# HELP arb_holds Holds in place.\n"
            "# TYPE arb_holds gauge\n"
            "arb_holds 1\n"
            "# HELP arb_request_seconds Request latency.\n"
            "# TYPE arb_request_seconds histogram\n"
            "arb_request_seconds_bucket{operation=\"reserve\",le=\"0.1\"} 2\n"
            "arb_request_seconds_bucket{operation=\"reserve\",le=\"1\"} 2\n"
            "arb_request_seconds_bucket{operation=\"reserve\",le=\"2.5\"} 3\n"
            "arb_request_seconds_bucket{operation=\"reserve\",le=\"+Inf\"} 4\n"
            "arb_request_seconds_sum{operation=\"reserve\"} 9.65\n"
            "arb_request_seconds_count{operation=\"reserve\"} 4\n");
}

TEST(Render, UnlabeledMetricsShowBeforeTheirFirstUpdateLabeledOnesOnlyOnceUsed) {
  registry reg;
  (void)*reg.add_counter("a_total", "A.");
  (void)*reg.add_counter("b_total", "B.", {"x"});
  (void)*reg.add_histogram("c_seconds", "C.", {1});
  EXPECT_EQ(reg.render(),
            "# HELP a_total A.\n# TYPE a_total counter\na_total 0\n"
            "# HELP b_total B.\n# TYPE b_total counter\n"
            "# HELP c_seconds C.\n# TYPE c_seconds histogram\n"
            "c_seconds_bucket{le=\"1\"} 0\nc_seconds_bucket{le=\"+Inf\"} 0\n"
            "c_seconds_sum 0\nc_seconds_count 0\n");
}

TEST(Render, EscapesHelpAndLabelValues) {
  registry reg;
  auto f = *reg.add_gauge("arb_reserved_cpus", "CPUs \\ reserved\nper \"cluster\".", {"cluster"});
  f.with({"a\"b\\c\nd"}).set(4);
  EXPECT_EQ(reg.render(),
            "# HELP arb_reserved_cpus CPUs \\\\ reserved\\nper \"cluster\".\n"
            "# TYPE arb_reserved_cpus gauge\n"
            "arb_reserved_cpus{cluster=\"a\\\"b\\\\c\\nd\"} 4\n");
}

TEST(Render, SpecialAndFractionalValues) {
  EXPECT_EQ(format_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_value(std::nan("")), "NaN");
  EXPECT_EQ(format_value(0.005), "0.005");
  EXPECT_EQ(format_value(-3), "-3");
  EXPECT_EQ(format_value(1e21), "1e+21");
}

TEST(Render, NanObservationsGoToTheInfBucket) {
  registry reg;
  auto h = *reg.add_histogram("h", "H.", {1, 2});
  h.get().observe(std::nan(""));
  const auto s = h.get().read();
  EXPECT_EQ(s.cumulative, (std::vector<std::uint64_t>{0, 0, 1}));
  EXPECT_TRUE(std::isnan(s.sum));
}

}  // namespace
}  // namespace arbroker::metrics
