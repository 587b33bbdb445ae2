#include "node_metrics.hpp"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include "node_handler.hpp"

namespace arbroker {
namespace {

std::string render(const prometheus::Registry& reg) {
  return "\n" + prometheus::TextSerializer{}.Serialize(reg.Collect());
}

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
  prometheus::Registry reg;
  node_metrics m{reg, "1.2.3"};
  m.update({status("berlin", 5, 1, 3), status("potsdam", 2, 0, 0)});
  m.update({status("berlin", 9, 1, 1), status("potsdam", 2, 4, 0)});
  const auto text = render(reg);
  EXPECT_TRUE(has_line(text, R"(arb_commits_total{cluster="berlin"} 9)")) << text;
  EXPECT_TRUE(has_line(text, R"(arb_commits_total{cluster="potsdam"} 2)")) << text;
  EXPECT_TRUE(has_line(text, R"(arb_hold_expiries_total{cluster="potsdam"} 4)")) << text;
  EXPECT_TRUE(has_line(text, R"(arb_holds{cluster="berlin"} 1)")) << text;
  EXPECT_TRUE(has_line(text, R"(arb_reserved_cpus{cluster="berlin"} 16)")) << text;
  EXPECT_TRUE(has_line(text, R"(arb_cluster_cpus{cluster="potsdam"} 64)")) << text;
  EXPECT_TRUE(has_line(text, R"(arb_undeleted_lrms_reservations{cluster="berlin"} 0)")) << text;
  m.update({status("berlin", 9, 1, 3)});
  EXPECT_TRUE(has_line(render(reg), R"(arb_undeleted_lrms_reservations{cluster="berlin"} 1)"));
}

TEST(node_metrics, RequestsAreCountedByFrontEndOperationAndOutcome) {
  prometheus::Registry reg;
  node_metrics m{reg, "1.2.3"};
  m.answered(api::front_end::msgpack, "reserve", "ok", 0.002);
  m.answered(api::front_end::msgpack, "reserve", "ok", 0.004);
  m.answered(api::front_end::msgpack, "reserve", "busy", 0.001);
  m.answered(api::front_end::http, "reserve", "ok", 0.003);
  m.server_counts(3, 2);
  m.server_counts(1, 2);  // the same refusals again: counted once
  const auto text = render(reg);
  EXPECT_TRUE(
      has_line(text, R"(arb_requests_total{api="msgpack",operation="reserve",outcome="ok"} 2)"))
      << text;
  EXPECT_TRUE(
      has_line(text, R"(arb_requests_total{api="msgpack",operation="reserve",outcome="busy"} 1)"))
      << text;
  EXPECT_TRUE(
      has_line(text, R"(arb_requests_total{api="http",operation="reserve",outcome="ok"} 1)"))
      << text;
  EXPECT_TRUE(
      has_line(text, R"(arb_request_duration_seconds_count{api="msgpack",operation="reserve"} 3)"))
      << text;
  EXPECT_TRUE(
      has_line(text, R"(arb_request_duration_seconds_count{api="http",operation="reserve"} 1)"))
      << text;
  EXPECT_TRUE(has_line(text, "arb_handshakes_refused_total 2")) << text;
  EXPECT_TRUE(has_line(text, "arb_connections 1")) << text;
}

TEST(node_metrics, RequestsForNewReservationsAreCountedByBrokerInstance) {
  prometheus::Registry reg;
  node_metrics m{reg, "1.2.3"};
  m.routed("atlas", "reserve");
  m.routed("atlas", "reserve");
  m.routed("everyone", "coreserve");
  m.routed("", "reserve");  // no instance serves the user
  const auto text = render(reg);
  EXPECT_TRUE(has_line(
      text, R"(arb_broker_instance_requests_total{instance="atlas",operation="reserve"} 2)"))
      << text;
  EXPECT_TRUE(has_line(
      text, R"(arb_broker_instance_requests_total{instance="everyone",operation="coreserve"} 1)"))
      << text;
  EXPECT_TRUE(has_line(
      text, R"(arb_broker_instance_requests_total{instance="none",operation="reserve"} 1)"))
      << text;
}

TEST(node_metrics, LrmsCallsAreTimedPerClusterAndCallAndFailuresCounted) {
  prometheus::Registry reg;
  node_metrics m{reg, "1.2.3"};
  auto berlin = m.lrms_observer("berlin");
  berlin(lrms_call::create_reservation, std::chrono::milliseconds(3), true);
  berlin(lrms_call::create_reservation, std::chrono::milliseconds(7), false);
  berlin(lrms_call::snapshot, std::chrono::microseconds(40), true);
  m.lrms_observer("potsdam")(lrms_call::cancel_job, std::chrono::seconds(2), false);
  const auto text = render(reg);
  EXPECT_TRUE(has_line(
      text,
      R"(arb_lrms_call_duration_seconds_count{call="create_reservation",cluster="berlin"} 2)"))
      << text;
  EXPECT_TRUE(has_line(
      text,
      R"(arb_lrms_call_duration_seconds_sum{call="create_reservation",cluster="berlin"} 0.01)"))
      << text;
  // 3 ms and 7 ms both fall in the 10 ms bucket, only 3 ms in the 5 ms one.
  EXPECT_TRUE(has_line(
      text,
      R"(arb_lrms_call_duration_seconds_bucket{call="create_reservation",cluster="berlin",le="0.005"} 1)"))
      << text;
  EXPECT_TRUE(has_line(
      text, R"(arb_lrms_call_failures_total{call="create_reservation",cluster="berlin"} 1)"))
      << text;
  EXPECT_TRUE(has_line(text, R"(arb_lrms_call_failures_total{call="snapshot",cluster="berlin"} 0)"))
      << text;
  EXPECT_TRUE(
      has_line(text, R"(arb_lrms_call_failures_total{call="cancel_job",cluster="potsdam"} 1)"))
      << text;
  EXPECT_TRUE(has_line(text, R"(arb_build_info{version="1.2.3"} 1)")) << text;
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
