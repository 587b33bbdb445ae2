// The audit trail's lines, as an operator greps them.

#include "audit_log.hpp"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

namespace arbroker {
namespace {

TEST(audit_log, quotes_what_a_client_sent) {
  EXPECT_EQ(log_quoted("alice"), "\"alice\"");
  EXPECT_EQ(log_quoted(""), "\"\"");
  EXPECT_EQ(log_quoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
  // A forged line break or invalid UTF-8 cannot start a line of its own.
  EXPECT_EQ(log_quoted("x\nevent=request\xff"), "\"x\\x0aevent=request\\xff\"");
}

struct audit_fixture : testing::Test {
  void SetUp() override {
    previous = spdlog::default_logger();
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
    sink->set_pattern("%l %v");
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink));
    spdlog::set_level(spdlog::level::warn);  // the audit trail ignores the level ...
    install_audit_log(events);
  }
  void TearDown() override { spdlog::set_default_logger(previous); }

  std::ostringstream out;
  api::server_events events;
  std::shared_ptr<spdlog::logger> previous;
};

TEST_F(audit_fixture, one_line_per_request_and_refused_login) {
  ASSERT_TRUE(events.on_request_done);
  ASSERT_TRUE(events.on_login_refused);
  events.on_request_done(api::request_record{"alice", "127.0.0.1:5000", 7, api::operation::cancel,
                                             "berlin/2", 0, "", std::chrono::microseconds(1500)});
  events.on_request_done(api::request_record{"bob", "127.0.0.1:5001", 8, api::operation::query,
                                             "berlin/2", static_cast<std::uint8_t>(errc::not_found),
                                             "no reservation 'berlin/2'",
                                             std::chrono::microseconds(250), api::front_end::http});
  events.on_login_refused(api::login_refusal{"mallory", "127.0.0.1:5002", errc::permission_denied,
                                             "wrong token", api::front_end::http});
  std::istringstream lines(out.str());
  std::string ok, refused, login, extra;
  std::getline(lines, ok);
  std::getline(lines, refused);
  std::getline(lines, login);
  EXPECT_FALSE(std::getline(lines, extra)) << out.str();  // one line each
  EXPECT_EQ(ok,
            "info event=request api=msgpack user=\"alice\" peer=127.0.0.1:5000 op=cancel id=7 "
            "subject=\"berlin/2\" outcome=ok latency_ms=1.500");
  EXPECT_EQ(refused,
            "info event=request api=http user=\"bob\" peer=127.0.0.1:5001 op=query id=8 "
            "subject=\"berlin/2\" outcome=not_found latency_ms=0.250 "
            "message=\"no reservation 'berlin/2'\"");
  EXPECT_EQ(login,
            "warning event=login_refused api=http user=\"mallory\" peer=127.0.0.1:5002 "
            "code=permission_denied reason=\"wrong token\"");
}

// One client pipelining past the server's limits: 20 of its refusals are written, the rest
// become one summary line; another client's, successes and logins are written as ever.
TEST_F(audit_fixture, a_flood_of_refusals_is_summarized_per_client) {
  const auto busy = static_cast<std::uint8_t>(errc::busy);
  for (std::uint64_t i = 0; i < 1000; ++i)
    events.on_request_done(api::request_record{"alice", "127.0.0.1:5000", i, api::operation::status,
                                               "", busy, "too many requests in flight"});
  for (std::uint64_t i = 0; i < 3; ++i)
    events.on_request_done(api::request_record{"bob", "127.0.0.1:5001", i, api::operation::status,
                                               "", busy, "too many requests in flight"});
  for (std::uint64_t i = 0; i < 30; ++i)
    events.on_request_done(api::request_record{"alice", "127.0.0.1:5000", 2000 + i,
                                               api::operation::status, "", 0, ""});
  events.on_login_refused(
      api::login_refusal{"mallory", "127.0.0.1:5002", errc::permission_denied, "wrong token"});
  audit_refusal_summaries(true);
  std::istringstream lines(out.str());
  std::string line, summary;
  int alice_busy = 0, bob_busy = 0, ok = 0, logins = 0, summaries = 0;
  while (std::getline(lines, line)) {
    if (line.find("event=refusals_summarized") != std::string::npos) {
      ++summaries;
      summary = line;
    }
    if (line.find("event=login_refused") != std::string::npos) ++logins;
    if (line.find("event=request") == std::string::npos) continue;
    if (line.find("outcome=ok") != std::string::npos) ++ok;
    if (line.find("outcome=busy") == std::string::npos) continue;
    ++(line.find("\"alice\"") != std::string::npos ? alice_busy : bob_busy);
  }
  EXPECT_EQ(alice_busy, 20);
  EXPECT_EQ(bob_busy, 3);
  EXPECT_EQ(ok, 30);
  EXPECT_EQ(logins, 1);
  ASSERT_EQ(summaries, 1) << out.str();
  EXPECT_NE(summary.find("api=msgpack user=\"alice\" peer=127.0.0.1:5000 outcome=busy "
                         "suppressed=980 over_s="),
            std::string::npos)
      << summary;
}

TEST_F(audit_fixture, one_line_per_reservation_change) {
  reservation_row r;
  r.id = "berlin/7";
  r.cluster = "berlin";
  r.owner = "al\"ice";
  r.txn = "w3-12";
  r.lrms_id = "arb-7";
  r.start = 1795420800;  // 2026-11-23T08:00:00Z
  r.end = r.start + 7200;
  r.np = 8;
  r.state = reservation_state::committed;
  r.cost = 12.5;
  audit_reservation(r);
  r.state = reservation_state::cancelled;
  audit_reservation(r);
  std::istringstream lines(out.str());
  std::string committed, cancelled, extra;
  std::getline(lines, committed);
  std::getline(lines, cancelled);
  EXPECT_FALSE(std::getline(lines, extra)) << out.str();
  EXPECT_EQ(committed,
            "info event=reservation id=\"berlin/7\" cluster=\"berlin\" owner=\"al\\\"ice\" "
            "state=committed start=2026-11-23T08:00:00Z end=2026-11-23T10:00:00Z np=8 cost=12.50 "
            "txn=\"w3-12\" lrms_id=\"arb-7\"");
  EXPECT_NE(cancelled.find("state=cancelled"), std::string::npos) << cancelled;
}

TEST(audit_log, is_silent_when_logging_is_off) {
  auto previous = spdlog::default_logger();
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink));
  spdlog::set_level(spdlog::level::off);
  api::server_events events;
  install_audit_log(events);
  events.on_login_refused(api::login_refusal{"x", "", errc::timeout, "late"});
  EXPECT_EQ(out.str(), "");
  spdlog::set_default_logger(previous);
  spdlog::set_level(spdlog::level::info);
}

}  // namespace
}  // namespace arbroker
