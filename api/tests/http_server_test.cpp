// The HTTP/JSON front end over loopback, with fake handlers and a Beast client.

#include "arbroker/api/http_server.hpp"

#include <gtest/gtest.h>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

#include "arbroker/api/client.hpp"
#include "arbroker/api/json_codec.hpp"
#include "arbroker/api/openapi.hpp"
#include "arbroker/api/protocol_versions.hpp"
#include "arbroker/api/token_hash.hpp"
#include "sample_requests.hpp"
#include "test_certificates.hpp"
#include "test_handlers.hpp"

namespace arbroker::api {
namespace {

using namespace std::chrono_literals;
using namespace testing;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using json = nlohmann::json;
using tcp = asio::ip::tcp;

std::shared_ptr<authenticator> test_users() {
  return std::make_shared<authenticator>(token_table{{"alice", {"alice-token", false}},
                                                     {"bob", {"bob-token", false}},
                                                     {"root", {"root-token", true}}});
}

struct reply {
  unsigned status = 0;
  json body;
  http::response<http::string_body> raw;
};

/// One keep-alive connection (plain or TLS) to the server.
template <class Stream>
class basic_connection {
 public:
  template <class... Args>
  basic_connection(std::uint16_t port, Args&&... args) : stream_(io_, std::forward<Args>(args)...) {
    beast::get_lowest_layer(stream_).expires_after(10s);
    beast::get_lowest_layer(stream_).connect(
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  }
  Stream& stream() { return stream_; }

  reply send(http::verb method, const std::string& target, const std::string& body,
             const std::string& user = "alice", const std::string& token = "",
             const std::string& type = "application/json", const std::string& scheme = "Bearer",
             const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    http::request<http::string_body> req{method, target, 11};
    req.set(http::field::host, "localhost");
    for (const auto& [name, value] : headers)
      req.set(name, value);
    if (!user.empty()) req.set("X-Arb-User", user);
    req.set(http::field::authorization, scheme + " " + (token.empty() ? user + "-token" : token));
    if (!type.empty()) req.set(http::field::content_type, type);
    req.body() = body;
    req.prepare_payload();
    beast::get_lowest_layer(stream_).expires_after(10s);
    http::write(stream_, req);
    return receive();
  }

  reply post(const std::string& op, const std::string& body, const std::string& user = "alice",
             const std::string& token = "") {
    return send(http::verb::post, "/v1/" + op, body, user, token);
  }

  reply receive() {
    reply r;
    beast::get_lowest_layer(stream_).expires_after(10s);
    http::read(stream_, buffer_, r.raw);
    r.status = r.raw.result_int();
    r.body = json::parse(r.raw.body(), nullptr, false);
    return r;
  }

  /// Whether the server has closed the connection (reads until it does).
  bool closed_by_server() {
    beast::get_lowest_layer(stream_).expires_after(10s);
    char c;
    beast::error_code ec;
    beast::get_lowest_layer(stream_).socket().read_some(asio::buffer(&c, 1), ec);
    return ec == asio::error::eof || ec == asio::error::connection_reset;
  }

 private:
  asio::io_context io_;
  Stream stream_;
  beast::flat_buffer buffer_;
};

using connection = basic_connection<beast::tcp_stream>;

struct fixture {
  explicit fixture(request_handler& h, http_server_config c = {})
      : srv(configure(std::move(c)), h, 2), port(srv.local_endpoint().port()) {}
  static http_server_config configure(http_server_config c) {
    if (!c.auth) c.auth = test_users();
    return c;
  }
  threaded_http_server srv;
  std::uint16_t port;
};

TEST(http_server, answers_an_operation_as_the_caller_on_a_kept_connection) {
  echo_handler h;
  fixture f(h);
  connection c(f.port);
  auto r = c.post("query", R"({"reservation_id": "c/7"})");
  ASSERT_EQ(r.status, 200u) << r.raw;
  EXPECT_EQ(r.body["info"]["id"], "c/7");
  EXPECT_EQ(r.body["info"]["owner"], "alice");  // the server filled in the caller
  EXPECT_EQ(r.raw[http::field::content_type], "application/json");
  auto list = c.post("list", "");  // an empty body is {}
  ASSERT_EQ(list.status, 200u) << list.raw;
  EXPECT_EQ(list.body["reservations"][0]["owner"], "alice");
  EXPECT_EQ(list.body["reservations"][0]["state"], "committed");  // enums by name
}

TEST(http_server, refuses_missing_and_wrong_tokens_alike_and_reports_them) {
  echo_handler h;
  std::mutex mu;
  std::vector<login_refusal> refused;
  http_server_config config;
  config.events.on_login_refused = [&](const login_refusal& r) {
    std::lock_guard lock(mu);
    refused.push_back(r);
  };
  fixture f(h, config);
  connection c(f.port);
  auto wrong = c.post("list", "{}", "alice", "bob-token");
  EXPECT_EQ(wrong.status, 401u);
  EXPECT_EQ(wrong.raw[http::field::www_authenticate], "Bearer realm=\"arbroker\"");
  EXPECT_EQ(wrong.body["error"], "permission_denied");
  auto unknown = c.post("list", "{}", "mallory", "x");
  EXPECT_EQ(unknown.status, 401u);
  EXPECT_EQ(unknown.body["message"], wrong.body["message"]);  // no hint which was wrong
  auto anonymous = c.send(http::verb::post, "/v1/list", "{}", "");
  EXPECT_EQ(anonymous.status, 401u);
  EXPECT_NE(anonymous.body["message"].get<std::string>().find("X-Arb-User"), std::string::npos);
  EXPECT_EQ(c.post("list", "{}").status, 200u);  // the connection still serves
  std::lock_guard lock(mu);
  ASSERT_EQ(refused.size(), 3u);
  EXPECT_EQ(refused[0].user, "alice");
  EXPECT_EQ(refused[1].user, "mallory");
}

TEST(http_server, checks_hashed_tokens) {
  echo_handler h;
  auto hash = hash_token("s3cret");
  ASSERT_TRUE(hash);
  http_server_config config;
  config.auth = std::make_shared<authenticator>(token_table{{"carol", {"", false, *hash}}});
  fixture f(h, config);
  connection c(f.port);
  EXPECT_EQ(c.post("list", "{}", "carol", "s3cret").status, 200u);
  EXPECT_EQ(c.post("list", "{}", "carol", "s3cret").status, 200u);  // known: no argon2id
  EXPECT_EQ(c.post("list", "{}", "carol", "wrong").status, 401u);
  // A reload through the shared authenticator reaches this front end.
  config.auth->set_tokens({{"carol", {"new", false}}});
  EXPECT_EQ(c.post("list", "{}", "carol", "s3cret").status, 401u);
  EXPECT_EQ(c.post("list", "{}", "carol", "new").status, 200u);
}

// A standby (issue 36) answers every operation and watch 503 naming the leader, before any
// login, and keeps serving /metrics and the OpenAPI document; once it serves, it serves.
TEST(http_server, a_standby_answers_503_naming_the_leader) {
  echo_handler h;
  http_server_config config;
  auto role = std::make_shared<serving_role>("b");
  role->standby(leader_info{"a", "10.0.0.1:7400", "10.0.0.1:7480", 2});
  config.role = role;
  config.metrics = [] { return std::string("arb_lease_serving 0\n"); };
  fixture f(h, config);
  auto r = connection(f.port).post("list", "{}", "alice", "no-token-needed-to-be-told");
  EXPECT_EQ(r.status, 503u) << r.raw;
  EXPECT_EQ(r.body["error"], "not_leader");
  EXPECT_EQ(r.body["code"], static_cast<int>(errc::not_leader));
  EXPECT_EQ(r.body["detail"]["leader"]["node"], "a");
  EXPECT_EQ(r.body["detail"]["leader"]["address"], "10.0.0.1:7400");
  EXPECT_EQ(r.body["detail"]["leader"]["http_address"], "10.0.0.1:7480");
  EXPECT_EQ(r.body["detail"]["leader"]["epoch"], 2);
  EXPECT_EQ(r.raw[http::field::retry_after], "1");
  auto watch = connection(f.port).send(http::verb::get, "/v1/watch", "");
  EXPECT_EQ(watch.status, 503u);
  EXPECT_EQ(connection(f.port).send(http::verb::get, "/metrics", "").status, 200u);
  EXPECT_EQ(connection(f.port).send(http::verb::get, "/v1/openapi.json", "").status, 200u);
  role->starting();
  auto starting = connection(f.port).post("list", "{}");
  EXPECT_EQ(starting.status, 503u);
  EXPECT_EQ(starting.body["error"], "unreachable");
  EXPECT_TRUE(starting.body["detail"].is_null());
  role->serving();
  EXPECT_EQ(connection(f.port).post("list", "{}").status, 200u);
}

TEST(http_server, unknown_paths_operations_and_methods_get_404_and_405) {
  echo_handler h;
  fixture f(h);
  connection c(f.port);
  auto no_op = c.post("reserve_everything", "{}");
  EXPECT_EQ(no_op.status, 404u);
  EXPECT_NE(no_op.body["message"].get<std::string>().find("reserve_everything"), std::string::npos);
  EXPECT_EQ(c.send(http::verb::post, "/elsewhere", "{}").status, 404u);
  auto get = c.send(http::verb::get, "/v1/list", "");
  EXPECT_EQ(get.status, 405u);
  EXPECT_EQ(get.raw[http::field::allow], "POST");
  EXPECT_EQ(c.send(http::verb::delete_, "/v1/openapi.json", "").raw[http::field::allow], "GET");
}

TEST(http_server, a_bad_body_gets_400_naming_the_field_and_the_connection_stays) {
  echo_handler h;
  fixture f(h);
  connection c(f.port);
  auto not_json = c.post("query", "{\"reservation_id\": ");
  EXPECT_EQ(not_json.status, 400u);
  EXPECT_EQ(not_json.body["error"], "invalid_parameter");
  auto wrong_type = c.post("elastic", R"({"np_min": "eight"})");
  EXPECT_EQ(wrong_type.status, 400u);
  EXPECT_NE(wrong_type.body["message"].get<std::string>().find("np_min"), std::string::npos)
      << wrong_type.body;
  auto unknown_key = c.post("list", R"({"colour": "blue"})");
  EXPECT_EQ(unknown_key.status, 400u);
  EXPECT_NE(unknown_key.body["message"].get<std::string>().find("colour"), std::string::npos);
  auto invalid = c.post("query", R"({"reservation_id": ""})");  // validate.hpp's rules
  EXPECT_EQ(invalid.status, 400u) << invalid.body;
  auto text = c.send(http::verb::post, "/v1/list", "{}", "alice", "", "text/plain");
  EXPECT_EQ(text.status, 400u);
  auto longer = c.send(http::verb::post, "/v1/list", "{}", "alice", "", "application/jsonx");
  EXPECT_EQ(longer.status, 400u);
  EXPECT_EQ(c.post("list", "{}").status, 200u);
}

// Media types and auth schemes are case-insensitive (RFC 9110); both were refused.
TEST(http_server, content_type_and_the_bearer_scheme_in_any_case) {
  echo_handler h;
  fixture f(h);
  connection c(f.port);
  for (const char* type :
       {"Application/JSON", "application/json; charset=utf-8", "APPLICATION/JSON ;charset=UTF-8"}) {
    auto r = c.send(http::verb::post, "/v1/list", "{}", "alice", "", type);
    EXPECT_EQ(r.status, 200u) << type << ": " << r.raw;
  }
  for (const char* scheme : {"bearer", "BEARER", "Bearer "}) {
    auto r = c.send(http::verb::post, "/v1/list", "{}", "alice", "", "application/json", scheme);
    EXPECT_EQ(r.status, 200u) << "'" << scheme << "': " << r.raw;
  }
  // Another media type is refused saying what to send: curl -d sends a form's type.
  auto form =
      c.send(http::verb::post, "/v1/list", "{}", "alice", "", "application/x-www-form-urlencoded");
  EXPECT_EQ(form.status, 400u);
  EXPECT_NE(form.raw.body().find("not application/x-www-form-urlencoded: send the header "
                                 "Content-Type: application/json"),
            std::string::npos)
      << form.raw;
  // Another scheme, or a scheme without a token, is no login.
  EXPECT_EQ(
      c.send(http::verb::post, "/v1/list", "{}", "alice", "", "application/json", "Basic").status,
      401u);
  EXPECT_EQ(
      c.send(http::verb::post, "/v1/list", "{}", "alice", " ", "application/json", "Bearer").status,
      401u);
}

TEST(http_server, only_admins_act_for_other_users) {
  echo_handler h;
  fixture f(h);
  connection c(f.port);
  auto denied = c.post("query", R"({"user": "bob", "reservation_id": "c/1"})");
  EXPECT_EQ(denied.status, 403u);
  auto admin = c.post("query", R"({"user": "bob", "reservation_id": "c/1"})", "root");
  ASSERT_EQ(admin.status, 200u) << admin.body;
  EXPECT_EQ(admin.body["info"]["owner"], "bob/admin");
}

TEST(http_server, error_replies_carry_detail_only_when_it_says_more) {
  refusing_handler h;
  fixture f(h);
  connection c(f.port);
  auto cancel = c.post("cancel", R"({"reservation_id": "a/1"})");
  EXPECT_EQ(cancel.status, http_status_of(errc::illegal_transition));
  EXPECT_EQ(cancel.body["code"], static_cast<int>(errc::illegal_transition));
  EXPECT_EQ(cancel.body["error"], "illegal_transition");
  EXPECT_EQ(cancel.body["message"], "no");
  EXPECT_TRUE(cancel.body["detail"].is_null());
  auto query = c.post("query", R"({"reservation_id": "a/1"})");
  EXPECT_EQ(query.body["detail"]["info"]["id"], "a/1");  // the reservation as it stands
}

TEST(http_server, a_throwing_or_confused_handler_yields_500) {
  faulty_handler h;
  fixture f(h);
  connection c(f.port);
  auto thrown = c.post("cancel", R"({"reservation_id": "a/1"})");
  EXPECT_EQ(thrown.status, 500u);
  EXPECT_NE(thrown.body["message"].get<std::string>().find("engine exploded"), std::string::npos);
  auto wrong = c.post("list", "{}");
  EXPECT_EQ(wrong.status, 500u);
  EXPECT_NE(wrong.body["message"].get<std::string>().find("wrong body type"), std::string::npos);
}

TEST(http_server, an_oversized_body_gets_413_and_the_connection_closes) {
  echo_handler h;
  http_server_config config;
  config.limits.max_body = 1024;
  fixture f(h, config);
  connection c(f.port);
  auto big = c.post("query", R"({"reservation_id": ")" + std::string(2000, 'x') + "\"}");
  EXPECT_EQ(big.status, 413u);
  EXPECT_TRUE(c.closed_by_server());
}

TEST(http_server, serves_the_openapi_document_without_a_login) {
  echo_handler h;
  fixture f(h);
  connection c(f.port);
  auto r = c.send(http::verb::get, "/v1/openapi.json", "", "", "x", "");
  ASSERT_EQ(r.status, 200u);
  EXPECT_EQ(r.raw.body(), openapi_document());
  EXPECT_EQ(r.body["openapi"], "3.0.3");
}

// The msgpack client (arb) pointed at the HTTP port says so, instead of "frame of 1213486160
// bytes exceeds the limit" (the length it read was "HTTP").
TEST(http_server, the_msgpack_client_at_the_http_port_is_told_which_port_it_needs) {
  echo_handler h;
  fixture f(h);
  api::client c(api::client_options{std::chrono::seconds(5)});
  auto w = c.connect("127.0.0.1", f.port, "alice", "alice-token");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.err().code, errc::unreachable);
  EXPECT_NE(w.err().message.find("answers in HTTP: it is a node's HTTP API port"),
            std::string::npos)
      << w.err().message;
  EXPECT_NE(w.err().message.find("[node] listen port"), std::string::npos) << w.err().message;
}

TEST(http_server, a_silent_client_is_cut_at_the_request_deadline) {
  echo_handler h;
  http_server_config config;
  config.limits.request_timeout = 200ms;
  fixture f(h, config);
  connection c(f.port);
  EXPECT_TRUE(c.closed_by_server());
  connection idle(f.port);  // and between requests of a kept connection
  EXPECT_EQ(idle.post("list", "{}").status, 200u);
  EXPECT_TRUE(idle.closed_by_server());
}

TEST(http_server, reports_every_answered_operation_to_the_audit_hook) {
  echo_handler h;
  std::mutex mu;
  std::vector<request_record> records;
  http_server_config config;
  config.events.on_request_done = [&](const request_record& r) {
    std::lock_guard lock(mu);
    records.push_back(r);
  };
  fixture f(h, config);
  connection c(f.port);
  c.post("query", R"({"reservation_id": "c/9"})");
  c.post("elastic", R"({"np_min": "x"})");
  std::lock_guard lock(mu);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].user, "alice");
  EXPECT_EQ(records[0].op, operation::query);
  EXPECT_EQ(records[0].subject, "c/9");
  EXPECT_EQ(records[0].code, 0);
  EXPECT_EQ(records[1].op, operation::elastic);
  EXPECT_EQ(records[1].code, static_cast<std::uint8_t>(errc::invalid_parameter));
  EXPECT_EQ(records[1].id, 2u);
}

TEST(http_server, graceful_stop_answers_the_request_in_flight_then_closes) {
  deferred_handler h;
  fixture f(h);
  connection c(f.port);
  connection idle(f.port);  // connected, no request yet
  std::thread caller([&] {
    auto r = c.post("cancel", R"({"reservation_id": "a/1"})");
    EXPECT_EQ(r.status, 200u);
    EXPECT_FALSE(r.raw.keep_alive());
  });
  h.wait_for(1);
  std::thread stopper([&] { f.srv.stop(10s); });
  EXPECT_TRUE(idle.closed_by_server());  // idle: closed at once
  h.release_all();
  caller.join();
  stopper.join();
  EXPECT_EQ(f.srv.connections_open(), 0u);
}

TEST(http_server, refuses_connections_beyond_the_limit_with_503) {
  echo_handler h;
  http_server_config config;
  config.limits.max_connections = 1;
  fixture f(h, config);
  connection first(f.port);
  ASSERT_EQ(first.post("list", "{}").status, 200u);
  connection second(f.port);
  auto r = second.receive();  // answered before it asks
  EXPECT_EQ(r.status, 503u);
  EXPECT_EQ(r.body["error"], "busy");
  EXPECT_EQ(first.post("list", "{}").status, 200u);
}

using tls_connection = basic_connection<beast::ssl_stream<beast::tcp_stream>>;

/// The client side of the API's TLS (tls.hpp), with the certificate of `user` if given.
tls_context client_tls(const std::string& user = "") {
  auto ctx = make_client_tls({certificate_file("ca.pem"),
                              user.empty() ? "" : certificate_file(user + ".pem"),
                              user.empty() ? "" : certificate_file(user + ".key")});
  EXPECT_TRUE(ctx) << (ctx ? "" : ctx.err().message);
  return ctx ? *ctx : nullptr;
}

http_server_config tls_config(bool client_certificates) {
  http_server_config config;
  auto tls = make_server_tls({certificate_file("server.pem"), certificate_file("server.key"),
                              client_certificates ? certificate_file("ca.pem") : ""});
  EXPECT_TRUE(tls) << (tls ? "" : tls.err().message);
  if (tls) config.tls = *tls;
  config.client_cert_is_user = client_certificates;
  return config;
}

/// GET /v1/watch over a connection of its own: the response's header, then the stream's
/// text as its chunks arrive.
class sse_client {
 public:
  sse_client(std::uint16_t port, const std::string& target, const std::string& user = "alice",
             const std::string& last_event_id = "")
      : stream_(io_) {
    stream_.expires_after(10s);
    stream_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    http::request<http::empty_body> req{http::verb::get, target, 11};
    req.set(http::field::host, "localhost");
    req.set("X-Arb-User", user);
    req.set(http::field::authorization, "Bearer " + user + "-token");
    if (!last_event_id.empty()) req.set("Last-Event-ID", last_event_id);
    http::write(stream_, req);
    parser_.body_limit(std::numeric_limits<std::uint64_t>::max());  // (none: Beast 1.74 refuses)
    parser_.on_chunk_body(chunk_);
    http::read_header(stream_, buffer_, parser_);
  }
  unsigned status() { return parser_.get().result_int(); }
  const http::response<http::string_body>& header() { return parser_.get(); }
  /// A refusal's body (not a stream).
  json refusal() {
    http::read(stream_, buffer_, parser_);
    return json::parse(parser_.get().body(), nullptr, false);
  }
  /// Reads until the text so far has `needle` (10 s at most); the text up to its end.
  std::string until(std::string_view needle) {
    for (;;) {
      if (auto at = text_.find(needle); at != std::string::npos) {
        auto out = text_.substr(0, at + needle.size());
        text_.erase(0, at + needle.size());
        return out;
      }
      stream_.expires_after(10s);
      beast::error_code ec;
      http::read_some(stream_, buffer_, parser_, ec);
      if (ec == http::error::end_of_stream || parser_.is_done()) ended_ = true;
      if (ec && ec != http::error::end_of_stream) throw beast::system_error(ec);
      if (ended_ && text_.find(needle) == std::string::npos) return "<ended> " + text_;
    }
  }
  /// Whether the response ended (its last chunk) and the server closed the connection.
  bool ended_and_closed() {
    while (!parser_.is_done()) {
      stream_.expires_after(10s);
      beast::error_code ec;
      http::read_some(stream_, buffer_, parser_, ec);
      if (ec) return false;
    }
    stream_.expires_after(10s);
    char c;
    beast::error_code ec;
    stream_.socket().read_some(asio::buffer(&c, 1), ec);
    return ec == asio::error::eof || ec == asio::error::connection_reset;
  }
  void disconnect() { stream_.close(); }

 private:
  asio::io_context io_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  http::response_parser<http::string_body> parser_;
  std::string text_;
  bool ended_ = false;
  std::function<std::size_t(std::uint64_t, beast::string_view, beast::error_code&)> chunk_ =
      [this](std::uint64_t, beast::string_view body, beast::error_code&) {
        text_.append(body.data(), body.size());
        return body.size();
      };
};

TEST(http_watch, streams_pages_as_server_sent_events_one_page_in_flight) {
  watch_handler h;
  fixture f(h);
  sse_client c(f.port, "/v1/watch?since=5&kinds=reservation,grid_job.migrated");
  ASSERT_EQ(c.status(), 200u);
  EXPECT_EQ(c.header()[http::field::content_type], "text/event-stream");
  EXPECT_EQ(c.header()[http::field::cache_control], "no-cache");
  auto w = h.wait_started(0);
  EXPECT_EQ(w.request.user, "alice");  // the server filled in the caller
  EXPECT_EQ(w.request.since, 5);
  EXPECT_EQ(w.request.kinds, (std::vector<std::string>{"reservation", "grid_job.migrated"}));

  h.page(0, {}, 5);  // where it starts
  EXPECT_EQ(c.until("\n\n"), "id: 5\nevent: watching\ndata: {\"last\":5}\n\n");
  h.wait_more(0, 1);  // asked for the next page once the first was written
  h.page(0, {6, 7}, 7);
  const auto first = c.until("\n\n");
  EXPECT_TRUE(first.starts_with("id: 6\nevent: reservation.moved\ndata: {")) << first;
  const auto data = json::parse(first.substr(first.find("data: ") + 6));
  EXPECT_EQ(data["id"], 6);
  EXPECT_EQ(data["subject"], "berlin/6");
  EXPECT_EQ(data["what"], "line one\nline two");  // a line break stays inside its message
  EXPECT_TRUE(c.until("\n\n").starts_with("id: 7\n"));
  h.wait_more(0, 2);
  EXPECT_EQ(h.more_of(0), 2);  // no page is asked for before the one before was written
}

TEST(http_watch, resumes_from_last_event_id_and_refuses_before_the_stream_with_statuses) {
  watch_handler h;
  fixture f(h);
  {
    sse_client c(f.port, "/v1/watch?since=3", "alice", "41");  // the header wins
    ASSERT_EQ(c.status(), 200u);
    EXPECT_EQ(h.wait_started(0).request.since, 41);
  }
  sse_client gone(f.port, "/v1/watch?since=999");
  EXPECT_EQ(gone.status(), 410u);
  EXPECT_EQ(gone.refusal()["error"], "gone");
  sse_client other(f.port, "/v1/watch?user=bob");
  EXPECT_EQ(other.status(), 403u);
  EXPECT_EQ(other.refusal()["error"], "permission_denied");
  sse_client bad(f.port, "/v1/watch?since=soon");
  EXPECT_EQ(bad.status(), 400u);
  EXPECT_NE(bad.refusal()["message"].get<std::string>().find("since"), std::string::npos);
  sse_client kind(f.port, "/v1/watch?kinds=reservation.teleported");
  EXPECT_EQ(kind.status(), 400u);
  EXPECT_NE(kind.refusal()["message"].get<std::string>().find("kinds[0]"), std::string::npos);
  sse_client unknown(f.port, "/v1/watch?color=red");
  EXPECT_EQ(unknown.status(), 400u);
  connection post(f.port);
  auto r = post.send(http::verb::post, "/v1/watch", "{}");
  EXPECT_EQ(r.status, 405u);
  EXPECT_EQ(r.raw[http::field::allow], "GET");
  // An admin may watch everyone's (an empty user) or another user's.
  sse_client root(f.port, "/v1/watch?user=bob", "root");
  EXPECT_EQ(root.status(), 200u);
  EXPECT_EQ(h.wait_started(1).request.user, "bob");
}

TEST(http_watch, a_watch_the_node_ends_ends_its_stream_with_an_error_event) {
  watch_handler h;
  fixture f(h);
  sse_client c(f.port, "/v1/watch");
  ASSERT_EQ(c.status(), 200u);
  h.wait_started(0);
  h.page(0, {}, 0);
  c.until("\n\n");
  h.end(0, fail(errc::slow_consumer, "fell behind; watch again with since 0"));
  const auto last = c.until("\n\n");
  EXPECT_TRUE(last.starts_with("event: error\ndata: {")) << last;
  const auto why = json::parse(last.substr(last.find("data: ") + 6));
  EXPECT_EQ(why["error"], "slow_consumer");
  EXPECT_EQ(why["code"], static_cast<int>(errc::slow_consumer));
  EXPECT_TRUE(c.ended_and_closed());
}

TEST(http_watch, a_client_that_leaves_cancels_its_watch_and_a_stop_ends_the_others) {
  watch_handler h;
  fixture f(h);
  sse_client leaving(f.port, "/v1/watch");
  sse_client staying(f.port, "/v1/watch");
  h.wait_started(1);
  leaving.disconnect();
  // A write finds the client gone (the heartbeat would, within 15 s): the watch is cancelled.
  h.page(0, {1}, 1);
  h.page(1, {}, 0);
  staying.until("\n\n");
  h.wait_cancelled(0);
  std::thread stopper([&] { f.srv.stop(10s); });
  const auto last = staying.until("event: error\n");
  EXPECT_NE(last.find("event: error"), std::string::npos);
  EXPECT_NE(staying.until("\n\n").find("unreachable"), std::string::npos);
  EXPECT_TRUE(staying.ended_and_closed());
  stopper.join();
  h.wait_cancelled(1);
  EXPECT_EQ(f.srv.connections_open(), 0u);
}

TEST(http_server, serves_https_and_refuses_plain_text_on_a_tls_port) {
  echo_handler h;
  fixture f(h, tls_config(false));
  auto ctx = client_tls();
  ASSERT_TRUE(ctx);
  tls_connection c(f.port, *ctx);
  c.stream().handshake(asio::ssl::stream_base::client);
  EXPECT_EQ(c.post("list", "{}").status, 200u);
  connection plain(f.port);
  http::request<http::string_body> req{http::verb::post, "/v1/list", 11};
  beast::error_code ec;
  http::write(plain.stream(), req, ec);
  EXPECT_TRUE(plain.closed_by_server());
}

TEST(http_server, with_client_certificates_the_certificate_must_be_the_users) {
  echo_handler h;
  fixture f(h, tls_config(true));
  auto alice_ctx = client_tls("alice");
  ASSERT_TRUE(alice_ctx);
  tls_connection c(f.port, *alice_ctx);
  c.stream().handshake(asio::ssl::stream_base::client);
  EXPECT_EQ(c.post("list", "{}").status, 200u);
  EXPECT_EQ(c.post("list", "{}", "bob").status, 403u);  // bob's token, alice's certificate
}

// The committed document is what the code generates (a field added to a body changes both).
TEST(openapi, the_committed_document_is_what_the_code_generates) {
  std::ifstream in(ARB_SOURCE_DIR "/docs/openapi.json");
  ASSERT_TRUE(in) << "docs/openapi.json is missing";
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_TRUE(committed.str() == openapi_document())
      << "docs/openapi.json is out of date: regenerate it with\n"
         "  build/apps/arb-protocol-reference --openapi > docs/openapi.json";
}

TEST(openapi, has_a_path_per_operation_and_every_reference_resolves) {
  const auto doc = json::parse(openapi_document());
  for (std::uint8_t code = 1;; ++code) {
    auto op = to_operation(code);
    if (!op) break;
    const auto path = "/v1/" + std::string(to_string(*op));
    ASSERT_TRUE(doc["paths"].contains(path)) << path;
    if (*op == operation::watch) {  // a stream of server-sent events, by GET
      EXPECT_TRUE(
          doc["paths"][path]["get"]["responses"]["200"]["content"].contains("text/event-stream"));
      continue;
    }
    EXPECT_TRUE(doc["paths"][path]["post"].contains("requestBody"));
  }
  std::vector<std::string> refs;
  std::function<void(const json&)> walk = [&](const json& j) {
    if (j.is_object()) {
      for (auto& [k, v] : j.items()) {
        if (k == "$ref") refs.push_back(v);
        walk(v);
      }
    } else if (j.is_array()) {
      for (auto& v : j)
        walk(v);
    }
  };
  walk(doc);
  ASSERT_GT(refs.size(), 50u);
  for (const auto& r : refs) {  // a schema, or an error response shared by the operations
    const std::string schemas = "#/components/schemas/", responses = "#/components/responses/";
    if (r.rfind(responses, 0) == 0) {
      EXPECT_TRUE(doc["components"]["responses"].contains(r.substr(responses.size()))) << r;
      continue;
    }
    ASSERT_EQ(r.substr(0, schemas.size()), schemas);
    EXPECT_TRUE(doc["components"]["schemas"].contains(r.substr(schemas.size()))) << r;
  }
  // Field names and enum values as the JSON codec reads them.
  const auto& e = doc["components"]["schemas"]["elastic_request"]["properties"];
  EXPECT_EQ(e["np_min"]["type"], "integer");
  EXPECT_EQ(e["np_min"]["format"], "int32");
  const auto& state = doc["components"]["schemas"]["reservation_state"]["enum"];
  EXPECT_NE(std::find(state.begin(), state.end(), "committed"), state.end());
}

/// Where `value` breaks `schema` (of the document's subset: $ref, object with properties and
/// additionalProperties false, array, string, enum, integer with bounds, number, boolean),
/// or "" when it fits.
std::string schema_mismatch(const json& doc, const json& schema, const json& value,
                            const std::string& at) {
  if (schema.contains("$ref")) {
    const std::string name = schema["$ref"].get<std::string>().substr(21);
    return schema_mismatch(doc, doc["components"]["schemas"][name], value, at);
  }
  if (schema.contains("allOf")) {  // a described $ref: OpenAPI 3.0 allows it no siblings
    for (const auto& part : schema["allOf"])
      if (auto m = schema_mismatch(doc, part, value, at); !m.empty()) return m;
    return "";
  }
  const std::string type = schema.value("type", "");
  if (value.is_null() && schema.value("nullable", false)) return "";
  if (schema.contains("enum")) {
    const auto& values = schema["enum"];
    return std::find(values.begin(), values.end(), value) != values.end()
               ? ""
               : at + ": " + value.dump() + " is not in the enum";
  }
  if (type == "object") {
    if (!value.is_object()) return at + ": not an object";
    for (const auto& [key, v] : value.items()) {
      if (!schema.contains("properties") || !schema["properties"].contains(key))
        return at + "." + key + ": not in the schema";
      if (auto m = schema_mismatch(doc, schema["properties"][key], v, at + "." + key); !m.empty())
        return m;
    }
    return "";
  }
  if (type == "array") {
    if (!value.is_array()) return at + ": not an array";
    for (std::size_t i = 0; i < value.size(); ++i)
      if (auto m =
              schema_mismatch(doc, schema["items"], value[i], at + "[" + std::to_string(i) + "]");
          !m.empty())
        return m;
    return "";
  }
  if (type == "integer") {
    if (!value.is_number_integer()) return at + ": not an integer";
    if (schema.contains("minimum") && value.get<double>() < schema["minimum"].get<double>())
      return at + ": below the minimum";
    if (schema.contains("maximum") && value.get<double>() > schema["maximum"].get<double>())
      return at + ": above the maximum";
    return "";
  }
  if (type == "number") return value.is_number() ? "" : at + ": not a number";
  if (type == "string") return value.is_string() ? "" : at + ": not a string";
  if (type == "boolean") return value.is_boolean() ? "" : at + ": not a boolean";
  return at + ": schema of unknown type " + type;
}

// The document describes the JSON the codec reads and writes: every sample request and
// every reply body (default ones, and a list with a reservation) fits its operation's schema.
TEST(openapi, the_json_codec_s_bodies_fit_the_schemas) {
  const auto doc = json::parse(openapi_document());
  auto schema_of = [&](operation op, const char* part) {
    const auto& post = doc["paths"]["/v1/" + std::string(to_string(op))]["post"];
    return std::string(part) == "request"
               ? post["requestBody"]["content"]["application/json"]["schema"]
               : post["responses"]["200"]["content"]["application/json"]["schema"];
  };
  for (const auto& body : valid_bodies()) {
    const auto op = operation_of(body);
    if (op == operation::watch) continue;  // GET with a query (below)
    EXPECT_EQ(schema_mismatch(doc, schema_of(op, "request"), json::parse(to_json(body)), "request"),
              "")
        << to_string(op);
  }
  for (std::uint8_t code = 1;; ++code) {
    auto op = to_operation(code);
    if (!op) break;
    if (*op == operation::watch) continue;
    auto reply = json::parse(to_json(empty_response_body(*op)));
    EXPECT_EQ(schema_mismatch(doc, schema_of(*op, "reply"), reply, "reply"), "") << to_string(*op);
  }
  // A watch's events: the data of each server-sent event.
  msg::watch_event e{7,           1'800'000'000, "reservation.moved", "a/1", "alice", "a",
                     "committed", 1'800'000'600, 1'800'004'200,       8,     "moved"};
  EXPECT_EQ(schema_mismatch(doc, {{"$ref", "#/components/schemas/watch_event"}},
                            json::parse(to_json(e)), "event"),
            "");
  msg::list_reply list;
  list.reservations.push_back(
      msg::reservation_info{"c/1", "c", "alice", 0, 1, 1, reservation_state::committed, 0, 0, 0});
  EXPECT_EQ(schema_mismatch(doc, schema_of(operation::list, "reply"),
                            json::parse(to_json(response_body(list))), "reply"),
            "");
  // And the checker catches what does not fit.
  auto wrong = json::parse(to_json(response_body(list)));
  wrong["reservations"][0]["state"] = "sleeping";
  EXPECT_NE(schema_mismatch(doc, schema_of(operation::list, "reply"), wrong, "reply"), "");
  wrong["reservations"][0]["state"] = "committed";
  wrong["reservations"][0]["np"] = "one";
  EXPECT_NE(schema_mismatch(doc, schema_of(operation::list, "reply"), wrong, "reply"), "");
}

// Versions (docs/http-api.md, "Versions"): a client says its protocol version in
// X-Arb-Protocol. A key that is no field is refused from a client of this version (or one that
// says none), and skipped from a client of a later release; every answer says its version.
TEST(http_server, a_client_of_a_later_release_may_send_fields_this_node_does_not_know) {
  echo_handler h;
  fixture f(h);
  connection c(f.port);
  const std::string body = R"({"history": false, "a_field_of_release_99": 1})";
  auto with = [&](const std::string& version) {
    return c.send(http::verb::post, "/v1/list", body, "alice", "", "application/json", "Bearer",
                  {{"X-Arb-Protocol", version}});
  };
  auto plain = c.post("list", body);
  EXPECT_EQ(plain.status, 400u);
  EXPECT_NE(plain.body["message"].get<std::string>().find("a_field_of_release_99: no such field"),
            std::string::npos)
      << plain.body.dump();
  EXPECT_EQ(plain.raw["X-Arb-Protocol"], std::to_string(protocol_version));
  EXPECT_EQ(with(std::to_string(protocol_version)).status, 400u);
  EXPECT_EQ(with(std::to_string(protocol_version - 1)).status, 400u);
  auto newer = with(std::to_string(protocol_version + 1));
  EXPECT_EQ(newer.status, 200u) << newer.body.dump();
  EXPECT_EQ(newer.raw["X-Arb-Protocol"], std::to_string(protocol_version));
  auto older = c.post("list", "{}");
  EXPECT_EQ(older.status, 200u);
}

TEST(http_server, a_protocol_version_it_does_not_serve_is_refused_naming_what_was_sent) {
  echo_handler h;
  fixture f(h);
  auto with = [&](const std::string& target, const std::string& version) {
    connection fresh(f.port);
    return fresh.send(target == "/v1/watch" ? http::verb::get : http::verb::post, target, "{}",
                      "alice", "", "application/json", "Bearer", {{"X-Arb-Protocol", version}});
  };
  auto words = with("/v1/list", "twenty");
  EXPECT_EQ(words.status, 400u);
  EXPECT_EQ(words.body["message"],
            "X-Arb-Protocol: 'twenty' is not a protocol version (a "
            "number, such as " +
                std::to_string(protocol_version) + ")");
  const auto too_old = std::to_string(oldest_served_protocol_version - 1);
  auto old = with("/v1/list", too_old);
  EXPECT_EQ(old.status, 400u);
  EXPECT_EQ(old.body["message"], "unsupported protocol version " + too_old +
                                     " (this server serves " + served_protocol_versions() + ")");
  auto served = with("/v1/list", std::to_string(oldest_served_protocol_version));
  EXPECT_EQ(served.status, 200u);
  EXPECT_EQ(served.raw["X-Arb-Protocol"], std::to_string(oldest_served_protocol_version));
  // The watch came with version 19: a client of 18 does not find it.
  if (serves_protocol_version(18)) {
    auto watch = with("/v1/watch", "18");
    EXPECT_EQ(watch.status, 404u);
    EXPECT_EQ(watch.body["message"], "no operation 'watch' in protocol version 18");
  }
}

}  // namespace
}  // namespace arbroker::api
