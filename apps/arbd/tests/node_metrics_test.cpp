#include "node_metrics.hpp"

#include <gtest/gtest.h>

#include "node_handler.hpp"

namespace arbroker {
namespace {

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

msg::cluster_status status(std::string name, std::int64_t commits, std::int64_t expiries,
                           int holds) {
  msg::cluster_status s;
  s.cluster = std::move(name);
  s.cpus = 64;
  s.holds = holds;
  s.commits = commits;
  s.expiries = expiries;
  s.reserved_cpus = 16;
  s.undeleted = holds > 1 ? 1 : 0;
  return s;
}

// Cluster services report cumulative counts; the exported counters must grow by exactly
// the difference between polls, and gauges follow the latest value.
TEST(node_metrics, PolledCountsBecomeIncrementsAndGaugesFollow) {
  metrics::registry reg;
  node_metrics m{reg};
  m.update({status("berlin", 5, 1, 3), status("potsdam", 2, 0, 0)});
  m.update({status("berlin", 9, 1, 1), status("potsdam", 2, 4, 0)});
  const auto text = "\n" + reg.render();
  EXPECT_TRUE(has_line(text, R"(arb_commits_total{cluster="berlin"} 9)")) << text;
  EXPECT_TRUE(has_line(text, R"(arb_commits_total{cluster="potsdam"} 2)")) << text;
  EXPECT_TRUE(has_line(text, R"(arb_hold_expiries_total{cluster="potsdam"} 4)")) << text;
  EXPECT_TRUE(has_line(text, R"(arb_holds{cluster="berlin"} 1)")) << text;
  EXPECT_TRUE(has_line(text, R"(arb_reserved_cpus{cluster="berlin"} 16)")) << text;
  EXPECT_TRUE(has_line(text, R"(arb_cluster_cpus{cluster="potsdam"} 64)")) << text;
  EXPECT_TRUE(has_line(text, R"(arb_undeleted_lrms_reservations{cluster="berlin"} 0)")) << text;
  m.update({status("berlin", 9, 1, 3)});
  EXPECT_TRUE(
      has_line("\n" + reg.render(), R"(arb_undeleted_lrms_reservations{cluster="berlin"} 1)"));
}

TEST(node_metrics, RequestsAreCountedByOperationAndOutcome) {
  metrics::registry reg;
  node_metrics m{reg};
  m.answered("reserve", "ok", 0.002);
  m.answered("reserve", "ok", 0.004);
  m.answered("reserve", "busy", 0.001);
  m.server_counts(3, 2);
  m.server_counts(1, 2);  // the same refusals again: counted once
  const auto text = "\n" + reg.render();
  EXPECT_TRUE(has_line(text, R"(arb_requests_total{operation="reserve",outcome="ok"} 2)")) << text;
  EXPECT_TRUE(has_line(text, R"(arb_requests_total{operation="reserve",outcome="busy"} 1)"))
      << text;
  EXPECT_TRUE(has_line(text, R"(arb_request_duration_seconds_count{operation="reserve"} 3)"))
      << text;
  EXPECT_TRUE(has_line(text, "arb_handshakes_refused_total 2")) << text;
  EXPECT_TRUE(has_line(text, "arb_connections 1")) << text;
}

TEST(node_handler, ElasticRequestsAreLabelledByMode) {
  msg::elastic_request r;
  r.mode = msg::request_mode::whatif;
  EXPECT_EQ(operation_label(r), "whatif");
  r.mode = msg::request_mode::hold;
  EXPECT_EQ(operation_label(r), "hold");
  r.mode = msg::request_mode::reserve;
  EXPECT_EQ(operation_label(r), "reserve");
  EXPECT_EQ(operation_label(msg::cancel_request{}), "cancel");
}

}  // namespace
}  // namespace arbroker
