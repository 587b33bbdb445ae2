#include "arbroker/api/http_server.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <nlohmann/json.hpp>

#include <array>
#include <atomic>
#include <charconv>
#include <deque>
#include <map>
#include <mutex>
#include <optional>

#include "arbroker/api/json_codec.hpp"
#include "arbroker/api/openapi.hpp"
#include "arbroker/api/protocol_versions.hpp"
#include "arbroker/api/validate.hpp"
#include "request_pipeline.hpp"
#include "server_sent_events.hpp"

namespace arbroker::api {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using clock = std::chrono::steady_clock;
using detail::request_pipeline;

unsigned http_status_of(errc code) noexcept {
  switch (code) {
    case errc::invalid_window:
    case errc::invalid_processor_range:
    case errc::invalid_duration:
    case errc::invalid_speedup_model:
    case errc::invalid_parameter:
      return 400;
    case errc::permission_denied:
      return 403;
    case errc::not_found:
      return 404;
    case errc::capacity_exceeded:
    case errc::not_allocated:
    case errc::infeasible:
    case errc::illegal_transition:
    case errc::in_use:
      return 409;
    case errc::busy:
    case errc::unreachable:
    case errc::not_leader:
      return 503;
    case errc::timeout:
      return 504;
    case errc::lrms_failure:
      return 502;
    case errc::storage_failure:
    case errc::internal:
      return 500;
    case errc::slow_consumer:  // a watch cut off: ended within its stream, never as a status
      return 500;
    case errc::gone:
      return 410;
  }
  return 500;
}

namespace {

constexpr std::string_view v1_prefix = "/v1/";
constexpr std::string_view openapi_path = "/v1/openapi.json";
constexpr std::string_view metrics_path = "/metrics";
constexpr std::string_view watch_path = "/v1/watch";
/// The request's protocol version, and the answer's (docs/http-api.md, "Versions").
constexpr const char* protocol_header = "X-Arb-Protocol";  // (Beast takes its own string_view)
/// A watch's stream: a comment this often keeps idle proxies and clients from closing it,
/// and finds a client gone; a write that takes longer than the timeout cuts the client.
constexpr std::chrono::seconds sse_heartbeat_every{15};
constexpr std::chrono::seconds sse_write_timeout{30};
constexpr std::size_t max_header_bytes = 16 * 1024;

/// The operation of a path's last segment ("elastic", "grid_submit", ...).
std::optional<operation> operation_named(std::string_view name) {
  static const auto* names = [] {
    auto* m = new std::map<std::string, operation, std::less<>>;
    for (std::uint8_t code = 1;; ++code) {
      auto op = to_operation(code);
      if (!op) break;
      m->emplace(std::string(to_string(*op)), *op);
    }
    return m;
  }();
  auto it = names->find(name);
  if (it == names->end()) return std::nullopt;
  return it->second;
}

/// {"code": 3, "error": "not_found", "message": "...", "detail": <body or null>}
/// `detail` is JSON text already (to_json of a reply body): spliced in, not parsed again.
std::string error_json(errc code, const std::string& message, const std::string& detail = "null") {
  nlohmann::json j;
  j["code"] = static_cast<int>(code);
  j["error"] = std::string(to_string(code));
  j["message"] = message;
  auto text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text.pop_back();  // the closing brace
  return text + ",\"detail\":" + detail + "}";
}

// Case-insensitive (ASCII), as Beast compares field names.
bool iequals(std::string_view a, std::string_view b) {
  return beast::iequals(beast::string_view(a.data(), a.size()),
                        beast::string_view(b.data(), b.size()));
}

// Spaces and tabs around a header value's part (RFC 9110's OWS).
std::string_view trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

/// The token of "Authorization: Bearer <token>"; the scheme is case-insensitive (RFC 9110,
/// Sec. 11.1), as "bearer" or "BEARER" from some clients. Empty: no bearer token.
std::string_view bearer_token(std::string_view authorization) {
  constexpr std::string_view scheme = "bearer";
  if (authorization.size() <= scheme.size() ||
      !iequals(authorization.substr(0, scheme.size()), scheme) ||
      authorization[scheme.size()] != ' ')
    return {};
  return trimmed(authorization.substr(scheme.size()));
}

/// A Content-Type that is JSON: "application/json" in any case, parameters (charset) after
/// a ';' aside (RFC 9110, Sec. 8.3.1).
bool is_json_media_type(std::string_view content_type) {
  return iequals(trimmed(content_type.substr(0, content_type.find(';'))), "application/json");
}

class session_base {
 public:
  virtual ~session_base() = default;
  /// No further requests: close when idle, or after the response in progress.
  virtual void drain() = 0;
  virtual void abort() = 0;
};

}  // namespace

class http_server::impl : public std::enable_shared_from_this<impl> {
 public:
  impl(asio::io_context& io, http_server_config config, request_handler& handler)
      : io_(io),
        config_(std::move(config)),
        handler_(handler),
        acceptor_(asio::make_strand(io), config_.endpoint),
        stop_timer_(io) {
    if (!config_.auth) config_.auth = std::make_shared<authenticator>();
    local_ = acceptor_.local_endpoint();
  }

  /// stop() has begun: set before any session is told to drain, so that a response a session
  /// writes before its own drain arrives already says the connection closes.
  bool stopping() const noexcept { return stopping_flag_.load(std::memory_order_acquire); }

  void start() {
    asio::post(acceptor_.get_executor(), [self = shared_from_this()] { self->accept(); });
  }
  void stop(std::chrono::milliseconds deadline, std::function<void()> on_stopped);
  void detach();
  void on_closed(session_base* s);

  const http_server_config& config() const noexcept { return config_; }
  request_handler& handler() noexcept { return handler_; }
  const std::shared_ptr<detail::reply_channel>& replies() const noexcept { return replies_; }
  tcp::endpoint local_endpoint() const { return local_; }
  std::size_t connections_open() const {
    std::lock_guard lock(mu_);
    return sessions_.size();
  }

 private:
  void accept();
  template <class Stream>
  void launch(Stream stream, bool over_capacity);

  asio::io_context& io_;
  http_server_config config_;
  request_handler& handler_;
  tcp::acceptor acceptor_;
  asio::steady_timer stop_timer_;
  tcp::endpoint local_;
  /// Closed when the server goes: late answers of the handler then go nowhere.
  std::shared_ptr<detail::reply_channel> replies_ = std::make_shared<detail::reply_channel>();

  mutable std::mutex mu_;
  std::map<session_base*, std::shared_ptr<session_base>> sessions_;
  bool stopping_ = false;
  std::atomic<bool> stopping_flag_{false};  // stopping_, read without mu_ by the sessions
  std::function<void()> on_stopped_;
};

namespace {

using plain_stream = beast::tcp_stream;
using tls_stream = beast::ssl_stream<beast::tcp_stream>;

/// One client connection; everything it does runs on its strand.
template <class Stream>
class session final : public session_base, public std::enable_shared_from_this<session<Stream>> {
 public:
  session(std::shared_ptr<http_server::impl> srv, Stream stream, std::string peer)
      : srv_(std::move(srv)),
        limits_(srv_->config().limits),
        stream_(std::move(stream)),
        peer_(std::move(peer)) {}

  void start(bool over_capacity) {
    asio::dispatch(stream_.get_executor(), [self = this->shared_from_this(), over_capacity] {
      self->lowest().expires_after(self->limits_.request_timeout);
      if constexpr (std::is_same_v<Stream, tls_stream>) {
        self->stream_.async_handshake(
            asio::ssl::stream_base::server, [self, over_capacity](error_code ec) {
              if (ec) return self->refuse_tls(ec);
              self->peer_name_ = peer_common_name(self->stream_.native_handle());
              self->begin(over_capacity);
            });
      } else {
        self->begin(over_capacity);
      }
    });
  }

  void drain() override {
    asio::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
      self->draining_ = true;
      if (self->watch_)
        return self->end_watch(fail(errc::unreachable, "the server is shutting down"));
      if (!self->busy_) self->close();
    });
  }

  void abort() override {
    asio::dispatch(stream_.get_executor(), [self = this->shared_from_this()] { self->close(); });
  }

 private:
  beast::tcp_stream& lowest() { return beast::get_lowest_layer(stream_); }

  void begin(bool over_capacity) {
    if (!over_capacity) return read();
    keep_alive_ = false;
    busy_ = true;
    respond(503, error_json(errc::busy, "too many connections (limit " +
                                            std::to_string(limits_.max_connections) + ")"));
  }

  void refuse_tls(error_code ec) {
    if (const auto& f = srv_->config().events.on_login_refused)
      f(login_refusal{"", peer_, errc::permission_denied, "TLS handshake failed: " + ec.message(),
                      front_end::http});
    close();
  }

  void read() {
    if (closed_ || draining_) return close();
    busy_ = false;
    parser_.emplace();
    parser_->body_limit(limits_.max_body);
    parser_->header_limit(max_header_bytes);
    lowest().expires_after(limits_.request_timeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(error_code ec) {
    if (closed_) return;
    busy_ = true;
    keep_alive_ = false;  // an error answer closes the connection
    if (ec == http::error::body_limit)
      return respond(413, error_json(errc::invalid_parameter,
                                     "the body is larger than this node's limit of " +
                                         std::to_string(limits_.max_body) + " bytes"));
    if (ec == http::error::header_limit)
      return respond(431, error_json(errc::invalid_parameter, "the request's header is too large"));
    if (ec && ec.category() == http::make_error_code(http::error::bad_target).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message)
      return respond(400, error_json(errc::invalid_parameter, "not HTTP: " + ec.message()));
    if (ec) return close();  // closed, cut, or too slow
    req_ = parser_->release();
    keep_alive_ = req_.keep_alive() && !draining_;
    route();
  }

  void route() {
    std::string_view target(req_.target().data(), req_.target().size());
    target = target.substr(0, target.find('?'));
    if (!read_protocol_version()) return;
    if (target == openapi_path) {
      if (req_.method() != http::verb::get) return method_not_allowed("GET");
      return respond(200, openapi_document());
    }
    if (auto f = srv_->config().files.find(target); f != srv_->config().files.end()) {
      if (req_.method() != http::verb::get && req_.method() != http::verb::head)
        return method_not_allowed("GET");
      return serve_file(f->second);
    }
    if (target == "/" && !srv_->config().files.empty()) {
      if (req_.method() != http::verb::get && req_.method() != http::verb::head)
        return method_not_allowed("GET");
      return respond(302, "", [&](auto& res) {
        res.set(http::field::location, srv_->config().home);
        res.set(http::field::content_type, "text/plain");
      });
    }
    if (target == metrics_path && srv_->config().metrics) {
      if (req_.method() != http::verb::get) return method_not_allowed("GET");
      return respond(200, srv_->config().metrics(), [](auto& res) {
        res.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
      });
    }
    if (target == watch_path) {
      if (req_.method() != http::verb::get)
        return method_not_allowed("GET");  // a stream of server-sent events
      if (not_serving() || !known_to_client(operation::watch)) return;
      return authenticate(operation::watch);
    }
    if (target.substr(0, v1_prefix.size()) != v1_prefix)
      return respond(404, error_json(errc::not_found, "no such path; operations are POST " +
                                                          std::string(v1_prefix) + "<operation>"));
    const auto name = target.substr(v1_prefix.size());
    const auto op = operation_named(name);
    if (!op)
      return respond(404,
                     error_json(errc::not_found, "no operation '" + std::string(name) + "' (see " +
                                                     std::string(openapi_path) + ")"));
    if (req_.method() != http::verb::post) return method_not_allowed("POST");
    if (not_serving() || !known_to_client(*op)) return;
    authenticate(*op);
  }

  /// The version the request's X-Arb-Protocol header names (docs/http-api.md, "Versions"):
  /// without one, this node's; one newer than this node's is a client of a later release,
  /// whose appended fields are skipped. False when it answered a header it cannot serve.
  bool read_protocol_version() {
    client_version_ = protocol_version;
    client_is_newer_ = false;
    const auto h = req_[protocol_header];
    if (h.empty()) return true;
    const std::string text(h.data(), h.size());
    unsigned v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || v > 0xffff) {
      respond(400, error_json(errc::invalid_parameter,
                              std::string(protocol_header) + ": '" + text +
                                  "' is not a protocol version (a number, such as " +
                                  std::to_string(protocol_version) + ")"));
      return false;
    }
    if (v > protocol_version) {
      client_is_newer_ = true;
      return true;
    }
    if (!serves_protocol_version(static_cast<std::uint16_t>(v))) {
      respond(400, error_json(errc::invalid_parameter, "unsupported protocol version " + text +
                                                           " (this server serves " +
                                                           served_protocol_versions() + ")"));
      return false;
    }
    client_version_ = static_cast<std::uint16_t>(v);
    return true;
  }

  /// An operation newer than the client's version does not exist for it: false when it
  /// answered so.
  bool known_to_client(operation op) {
    if (introduced_in(op) <= client_version_) return true;
    respond(404, error_json(errc::not_found, "no operation '" + std::string(to_string(op)) +
                                                 "' in protocol version " +
                                                 std::to_string(client_version_)));
    return false;
  }

  /// A standby (or a node still starting) answers 503 and says where the leader is: true
  /// when it did.
  bool not_serving() {
    const auto& role = srv_->config().role;
    if (!role) return false;
    auto no = role->refusal();
    if (!no) return false;
    std::string detail = "null";
    if (no->leader) {
      nlohmann::json l;
      l["leader"] = {{"node", no->leader->node},
                     {"address", no->leader->address},
                     {"http_address", no->leader->http_address},
                     {"epoch", no->leader->epoch}};
      detail = l.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    respond(http_status_of(no->why.code), error_json(no->why.code, no->why.message, detail),
            [](auto& res) { res.set(http::field::retry_after, "1"); });
    return true;
  }

  // The console's files: no login (the page signs in with the user's token), no caching of a
  // stale version, and scripts only from this origin.
  void serve_file(const static_file& f) {
    const bool head = req_.method() == http::verb::head;
    respond(200, head ? std::string() : std::string(f.body), [&](auto& res) {
      res.set(http::field::content_type,
              beast::string_view(f.content_type.data(), f.content_type.size()));
      res.set(http::field::cache_control, "no-cache");
      res.set("X-Content-Type-Options", "nosniff");
      res.set("Content-Security-Policy",
              "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'");
    });
  }

  void method_not_allowed(const char* allowed) {
    respond(405, error_json(errc::invalid_parameter, std::string("use ") + allowed),
            [&](auto& res) { res.set(http::field::allow, allowed); });
  }

  void authenticate(operation op) {
    const auto user = std::string(req_["X-Arb-User"]);
    const auto auth = std::string_view(req_[http::field::authorization].data(),
                                       req_[http::field::authorization].size());
    const auto token = bearer_token(auth);
    if (user.empty() || token.empty())
      return unauthorized(user, "a request needs X-Arb-User and Authorization: Bearer <token>");
    if (srv_->config().client_cert_is_user && peer_name_ != user) {
      report_refusal(user, "the client certificate is not " + user + "'s");
      return respond(
          403, error_json(errc::permission_denied, "the client certificate is not " + user + "'s"));
    }
    srv_->config().auth->check(
        user, std::string(token),
        [self = this->shared_from_this(), user, op](std::optional<caller> who) {
          asio::post(self->stream_.get_executor(), [self, user, op, who = std::move(who)] {
            if (self->closed_) return;
            if (!who) return self->unauthorized(user, "unknown user or wrong token");
            self->dispatch(*who, op);
          });
        });
  }

  void report_refusal(const std::string& user, const std::string& reason) {
    if (const auto& f = srv_->config().events.on_login_refused)
      f(login_refusal{user, peer_, errc::permission_denied, reason, front_end::http});
  }

  void unauthorized(const std::string& user, const std::string& reason) {
    report_refusal(user, reason);
    respond(401, error_json(errc::permission_denied, reason),
            [](auto& res) { res.set(http::field::www_authenticate, "Bearer realm=\"arbroker\""); });
  }

  void dispatch(const caller& authenticated, operation op) {
    who_ = authenticated;
    who_.via = front_end::http;
    request_pipeline p(srv_->config().events, who_, peer_, ++requests_, op);
    auto refuse = [&](const error& e) {
      p.report(e);
      respond(http_status_of(e.code), error_json(e.code, e.message));
    };
    if (op == operation::watch) {
      const std::string_view target(req_.target().data(), req_.target().size());
      const auto q = target.find('?');
      const auto last = req_["Last-Event-ID"];
      auto r = detail::watch_request_from_query(
          q == std::string_view::npos ? std::string_view() : target.substr(q + 1),
          std::string_view(last.data(), last.size()));
      if (!r) return refuse(r.err());
      request_body body = std::move(*r);
      if (auto s = p.admit(body); !s) return refuse(s.err());
      if (draining_) return refuse(fail(errc::unreachable, "the server is shutting down"));
      return start_watch(p, std::get<msg::watch_request>(body));
    }
    const auto type = req_[http::field::content_type];
    if (!type.empty() && !is_json_media_type(std::string_view(type.data(), type.size())))
      // (curl -d sends application/x-www-form-urlencoded unless told otherwise)
      return refuse(fail(errc::invalid_parameter,
                         "the body must be application/json, not " + std::string(type) +
                             ": send the header Content-Type: application/json (curl: -H "
                             "'Content-Type: application/json'), or none"));
    const std::string_view text = req_.body().empty() ? "{}" : std::string_view(req_.body());
    auto body = request_body_from_json(
        op, text, client_is_newer_ ? unknown_keys::ignore : unknown_keys::refuse);
    if (!body) return refuse(body.err());
    p.about(*body);
    if (auto s = p.admit(*body); !s) return refuse(s.err());
    if (draining_) return refuse(fail(errc::unreachable, "the server is shutting down"));
    p.run(srv_->handler(), request{p.id(), std::move(*body)}, this->weak_from_this(),
          srv_->replies(),
          [](const std::shared_ptr<session>& self, request_pipeline pipeline, response r) {
            asio::post(self->stream_.get_executor(),
                       [self, pipeline = std::move(pipeline), r = std::move(r)]() mutable {
                         self->finish(std::move(pipeline), std::move(r));
                       });
          });
  }

  void finish(request_pipeline p, response r) {
    if (closed_) return;
    p.check(r);
    p.made(r.body);
    p.report(r.code, r.message);
    if (r.ok()) return respond(200, to_json(r.body));
    const auto code = static_cast<errc>(r.code);
    respond(http_status_of(code),
            error_json(code, r.message, carries_detail(r.body) ? to_json(r.body) : "null"));
  }

  // GET /v1/watch: a chunked text/event-stream response that lasts as long as the watch. A
  // page of events is written as one chunk, and the next is asked for once it is written (the
  // node holds the rest, or cuts a watch that falls too far behind).
  void start_watch(request_pipeline& p, const msg::watch_request& r) {
    watch_sink sink;
    sink.events = [weak = this->weak_from_this()](msg::watch_reply page,
                                                  std::function<void()> more) {
      if (auto self = weak.lock())
        asio::post(self->stream_.get_executor(),
                   [self, page = std::move(page), more = std::move(more)]() mutable {
                     self->watch_page(std::move(page), std::move(more));
                   });
    };
    sink.ended = [weak = this->weak_from_this()](error why) {
      if (auto self = weak.lock())
        asio::post(self->stream_.get_executor(),
                   [self, why = std::move(why)] { self->end_watch(why); });
    };
    auto h = srv_->handler().watch(who_, r, std::move(sink));
    if (!h) {
      p.report(h.err());
      return respond(http_status_of(h.err().code), error_json(h.err().code, h.err().message));
    }
    p.report(0, "");  // the audit log has the watch's start
    watch_ = std::move(*h);
    keep_alive_ = false;
    auto res = std::make_shared<http::response<http::empty_body>>(
        http::status::ok, req_.version() ? req_.version() : 11);
    res->set(http::field::server, "arbroker");
    res->set(http::field::content_type, "text/event-stream");
    res->set(protocol_header, std::to_string(client_version_));
    res->set(http::field::cache_control, "no-cache");
    res->set("X-Accel-Buffering", "no");  // nginx in front: pass each event at once
    res->keep_alive(false);
    res->chunked(true);
    auto sr = std::make_shared<http::response_serializer<http::empty_body>>(*res);
    lowest().expires_after(sse_write_timeout);
    http::async_write_header(
        stream_, *sr, [self = this->shared_from_this(), res, sr](error_code ec, std::size_t) {
          if (ec) return self->close();
          self->lowest().expires_never();
          self->sse_open_ = true;
          self->sse_flush();
          self->heartbeat();
          self->notice_client_leaving();
        });
  }

  // A watching client sends nothing more: a read that completes means it closed (or broke
  // the protocol), and its watch ends at once rather than at the next write.
  void notice_client_leaving() {
    lowest().async_read_some(asio::buffer(probe_), [self = this->shared_from_this()](
                                                       error_code, std::size_t) { self->close(); });
  }

  void watch_page(msg::watch_reply page, std::function<void()> more) {
    if (closed_ || !watch_) return;
    std::string text;
    if (page.events.empty()) text = detail::sse_start(page.last);
    for (const auto& e : page.events)
      text += detail::sse_message(e);
    sse_queue_.push_back(std::move(text));
    sse_more_ = std::move(more);
    sse_flush();
  }

  void end_watch(const error& why) {
    if (closed_ || !watch_) return;
    watch_->cancel();
    watch_.reset();
    sse_more_ = nullptr;
    sse_queue_.push_back(detail::sse_end(why));
    sse_ending_ = true;
    sse_flush();
  }

  void heartbeat() {
    heartbeat_.expires_after(sse_heartbeat_every);
    heartbeat_.async_wait([self = this->shared_from_this()](error_code ec) {
      if (ec || self->closed_ || self->sse_ending_) return;
      if (!self->sse_writing_ && self->sse_queue_.empty()) {
        self->sse_queue_.emplace_back(detail::sse_heartbeat);
        self->sse_flush();
      }
      self->heartbeat();
    });
  }

  // Writes the queued messages, one chunk each; then asks the watch for more, or ends the
  // response (the last chunk) and the connection.
  void sse_flush() {
    if (closed_ || !sse_open_ || sse_writing_) return;
    if (sse_queue_.empty()) {
      if (sse_ending_) {
        sse_writing_ = true;
        lowest().expires_after(sse_write_timeout);
        return asio::async_write(
            stream_, http::make_chunk_last(),
            [self = this->shared_from_this()](error_code, std::size_t) { self->close(); });
      }
      if (auto more = std::exchange(sse_more_, nullptr)) more();
      return;
    }
    sse_writing_ = true;
    lowest().expires_after(sse_write_timeout);
    asio::async_write(stream_, http::make_chunk(asio::buffer(sse_queue_.front())),
                      [self = this->shared_from_this()](error_code ec, std::size_t) {
                        self->sse_writing_ = false;
                        if (ec) return self->close();  // gone, or too slow to read
                        self->lowest().expires_never();
                        self->sse_queue_.pop_front();
                        self->sse_flush();
                      });
  }

  template <class Decorate = void (*)(http::response<http::string_body>&)>
  void respond(
      unsigned status, std::string body,
      Decorate decorate = [](http::response<http::string_body>&) {}) {
    if (closed_) return;
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(status), req_.version() ? req_.version() : 11);
    res->set(http::field::server, "arbroker");
    res->set(http::field::content_type, "application/json");
    res->set(protocol_header, std::to_string(client_version_));  // what this answer speaks
    decorate(*res);
    res->keep_alive(keep_alive_ && !draining_ && !srv_->stopping());
    res->body() = std::move(body);
    res->prepare_payload();
    lowest().expires_after(limits_.request_timeout);
    http::async_write(stream_, *res,
                      [self = this->shared_from_this(), res](error_code ec, std::size_t) {
                        if (ec || !res->keep_alive()) return self->close();
                        self->read();
                      });
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    if (watch_) watch_->cancel();
    watch_.reset();
    sse_more_ = nullptr;
    heartbeat_.cancel();
    error_code ignored;
    // No TLS close_notify: Content-Length says where a response ends.
    lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
    lowest().close();
    srv_->on_closed(this);
  }

  std::shared_ptr<http_server::impl> srv_;
  const http_limits limits_;
  Stream stream_;
  std::string peer_;
  std::string peer_name_;  ///< the client certificate's common name
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::request<http::string_body> req_;
  caller who_;
  std::uint64_t requests_ = 0;
  std::uint16_t client_version_ = protocol_version;  ///< the request's X-Arb-Protocol, or ours
  bool client_is_newer_ = false;  ///< it named a version after ours: its new fields are skipped
  bool keep_alive_ = false;
  bool busy_ = false;  ///< between a request read and its response written
  bool draining_ = false;
  bool closed_ = false;
  // A watch (GET /v1/watch) the connection streams, until it ends or the connection does.
  std::shared_ptr<watch_handle> watch_;
  std::deque<std::string> sse_queue_;  ///< messages to write, a chunk each
  std::function<void()> sse_more_;     ///< the watch's next page, once these are written
  asio::steady_timer heartbeat_{stream_.get_executor()};
  bool sse_open_ = false;  ///< the response's header is written
  bool sse_writing_ = false;
  bool sse_ending_ = false;      ///< its end is queued: then the last chunk, and close
  std::array<char, 1> probe_{};  ///< notice_client_leaving's read
};

}  // namespace

template <class Stream>
void http_server::impl::launch(Stream stream, bool over_capacity) {
  error_code ec;
  const auto remote = beast::get_lowest_layer(stream).socket().remote_endpoint(ec);
  std::string peer = ec ? "" : remote.address().to_string() + ":" + std::to_string(remote.port());
  beast::get_lowest_layer(stream).socket().set_option(tcp::no_delay(true), ec);
  auto s =
      std::make_shared<session<Stream>>(shared_from_this(), std::move(stream), std::move(peer));
  {
    std::lock_guard lock(mu_);
    sessions_.emplace(s.get(), s);
  }
  s->start(over_capacity);
}

void http_server::impl::accept() {
  acceptor_.async_accept(
      asio::make_strand(io_), [self = shared_from_this()](error_code ec, tcp::socket socket) {
        bool over_capacity = false;
        {
          std::lock_guard lock(self->mu_);
          if (self->stopping_) return;
          over_capacity = self->sessions_.size() >= self->config_.limits.max_connections;
        }
        if (!ec) {
          if (self->config_.tls)
            self->launch(tls_stream(std::move(socket), *self->config_.tls), over_capacity);
          else
            self->launch(plain_stream(std::move(socket)), over_capacity);
        }
        self->accept();
      });
}

void http_server::impl::on_closed(session_base* s) {
  std::shared_ptr<session_base> last;  // destroyed outside the lock
  std::function<void()> stopped;
  {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(s);
    if (it == sessions_.end()) return;
    last = std::move(it->second);
    sessions_.erase(it);
    if (stopping_ && sessions_.empty()) stopped = std::exchange(on_stopped_, {});
  }
  if (stopped) {
    stop_timer_.cancel();
    asio::post(io_, std::move(stopped));
  }
}

void http_server::impl::stop(std::chrono::milliseconds deadline, std::function<void()> on_stopped) {
  asio::post(acceptor_.get_executor(),
             [self = shared_from_this(), deadline, on_stopped = std::move(on_stopped)]() mutable {
               std::vector<std::shared_ptr<session_base>> open;
               {
                 std::lock_guard lock(self->mu_);
                 if (self->stopping_) {
                   if (on_stopped) asio::post(self->io_, std::move(on_stopped));
                   return;
                 }
                 self->stopping_ = true;
                 self->stopping_flag_.store(true, std::memory_order_release);
                 error_code ignored;
                 self->acceptor_.close(ignored);
                 for (auto& [_, s] : self->sessions_)
                   open.push_back(s);
                 if (open.empty()) {
                   if (on_stopped) asio::post(self->io_, std::move(on_stopped));
                   return;
                 }
                 self->on_stopped_ = std::move(on_stopped);
               }
               for (auto& s : open)
                 s->drain();
               self->stop_timer_.expires_after(deadline);
               self->stop_timer_.async_wait([self](error_code ec) {
                 if (ec) return;
                 std::vector<std::shared_ptr<session_base>> left;
                 {
                   std::lock_guard lock(self->mu_);
                   for (auto& [_, s] : self->sessions_)
                     left.push_back(s);
                 }
                 for (auto& s : left)
                   s->abort();
               });
             });
}

void http_server::impl::detach() {
  replies_->close();
  std::vector<std::shared_ptr<session_base>> open;
  {
    std::lock_guard lock(mu_);
    for (auto& [_, s] : sessions_)
      open.push_back(s);
    sessions_.clear();  // breaks the session <-> server cycle even if the io_context stops
  }
  for (auto& s : open)
    s->abort();
}

http_server::http_server(asio::io_context& io, http_server_config config, request_handler& handler)
    : impl_(std::make_shared<impl>(io, std::move(config), handler)) {}

http_server::~http_server() {
  impl_->stop(std::chrono::milliseconds(0), {});
  impl_->detach();
}

void http_server::start() {
  impl_->start();
}

tcp::endpoint http_server::local_endpoint() const {
  return impl_->local_endpoint();
}

void http_server::stop(std::chrono::milliseconds deadline, std::function<void()> on_stopped) {
  impl_->stop(deadline, std::move(on_stopped));
}

std::size_t http_server::connections_open() const {
  return impl_->connections_open();
}

}  // namespace arbroker::api
