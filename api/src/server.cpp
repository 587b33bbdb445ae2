#include "arbroker/api/server.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <atomic>
#include <deque>
#include <mutex>

#include "arbroker/api/authenticator.hpp"
#include "arbroker/api/protocol_versions.hpp"
#include "arbroker/api/stream.hpp"
#include "arbroker/api/tls.hpp"
#include "arbroker/api/validate.hpp"
#include "request_pipeline.hpp"

namespace arbroker::api {

namespace asio = boost::asio;
using detail::request_pipeline;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using clock = std::chrono::steady_clock;

class connection;

class server::impl : public std::enable_shared_from_this<server::impl> {
 public:
  impl(asio::io_context& io, server_config config, request_handler& handler)
      : io_(io),
        config_(std::move(config)),
        handler_(handler),
        acceptor_(asio::make_strand(io)),
        stop_timer_(acceptor_.get_executor()),
        accept_retry_timer_(acceptor_.get_executor()) {
    acceptor_.open(config_.endpoint.protocol());
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    acceptor_.bind(config_.endpoint);
    acceptor_.listen();
    local_ = acceptor_.local_endpoint();
  }

  void start() {
    asio::post(acceptor_.get_executor(), [self = shared_from_this()] { self->accept(); });
  }

  void stop(std::chrono::milliseconds deadline, std::function<void()> on_stopped);
  void on_closed(connection* c, bool dropped);
  /// The server object is going away: no more calls into the handler, no more replies.
  void detach();
  bool detached() const noexcept { return detached_.load(); }
  void count(std::size_t server_counters::*field) {
    std::lock_guard lock(mu_);
    ++(counters_.*field);
  }

  const server_config& config() const noexcept { return config_; }
  request_handler& handler() noexcept { return handler_; }
  authenticator& auth() noexcept { return *auth_; }
  tcp::endpoint local_endpoint() const { return local_; }
  server_counters counters() const {
    std::lock_guard lock(mu_);
    return counters_;
  }

 private:
  void accept();
  void finish_stop_locked();

  asio::io_context& io_;
  server_config config_;
  std::shared_ptr<authenticator> auth_ =
      config_.auth ? config_.auth : std::make_shared<authenticator>(config_.tokens);
  request_handler& handler_;
  tcp::acceptor acceptor_;
  asio::steady_timer stop_timer_;
  asio::steady_timer accept_retry_timer_;  ///< after accept errors such as EMFILE
  tcp::endpoint local_;

  mutable std::mutex mu_;
  std::map<connection*, std::shared_ptr<connection>> connections_;
  server_counters counters_;
  bool stopping_ = false;
  std::atomic<bool> detached_{false};
  std::function<void()> on_stopped_;
};

/// One client. Everything it does runs on its own strand.
class connection : public std::enable_shared_from_this<connection> {
 public:
  connection(std::shared_ptr<server::impl> srv, tcp::socket socket)
      : srv_(std::move(srv)),
        limits_(srv_->config().limits),
        stream_(srv_->config().tls ? detail::stream(std::move(socket), *srv_->config().tls)
                                   : detail::stream(std::move(socket))),
        exec_(stream_.socket().get_executor()),
        handshake_timer_(exec_),
        linger_timer_(exec_),
        decoder_(std::min(limits_.max_frame, max_hello_frame)),
        stream_ready_(stream_.tls() == nullptr) {
    error_code ec;
    const auto remote = stream_.socket().remote_endpoint(ec);
    if (!ec) peer_ = remote.address().to_string() + ":" + std::to_string(remote.port());
    // Replies and TLS handshake records are small writes: Nagle would hold each one back
    // until the client's delayed ACK (40 ms per TLS login before this).
    stream_.socket().set_option(tcp::no_delay(true), ec);
  }

  void start(bool over_capacity) {
    asio::dispatch(exec_, [self = shared_from_this(), over_capacity] {
      // One deadline for the TLS handshake and the hello together.
      self->handshake_timer_.expires_after(self->limits_.handshake_timeout);
      self->handshake_timer_.async_wait([self](error_code ec) {
        if (ec || self->authenticated_ || self->closing_ || self->closed_) return;
        if (!self->stream_ready_) return self->refuse_tls("no TLS handshake within the deadline");
        self->refuse_handshake(errc::timeout, "no hello within the handshake deadline");
      });
      auto* tls = self->stream_.tls();
      if (!tls) return self->begin(over_capacity);
      tls->async_handshake(asio::ssl::stream_base::server, [self, over_capacity](error_code ec) {
        if (self->closing_ || self->closed_) return;
        if (ec) return self->refuse_tls("TLS handshake failed: " + ec.message());
        self->stream_ready_ = true;
        self->peer_name_ = peer_common_name(self->stream_.tls()->native_handle());
        self->begin(over_capacity);
      });
    });
  }

  /// Graceful stop: no new requests; close once in-flight ones are answered.
  void drain() {
    asio::dispatch(exec_, [self = shared_from_this()] {
      self->draining_ = true;
      self->end_watches(fail(errc::unreachable, "the server is shutting down"));
      if (!self->authenticated_ || self->in_flight_ == 0) self->close_after_flush();
    });
  }

  ~connection() { channel_->close(); }

  void close_channel() { channel_->close(); }

  void abort() {
    asio::dispatch(exec_, [self = shared_from_this()] { self->close_now(true); });
  }

 private:
  void begin(bool over_capacity) {
    if (over_capacity)
      return refuse_handshake(errc::busy, "too many connections (limit " +
                                              std::to_string(limits_.max_connections) + ")");
    read();
  }

  /// No TLS channel to answer on: a refused login, then closed.
  void refuse_tls(std::string reason) {
    srv_->count(&server_counters::handshakes_refused);
    if (const auto& f = srv_->config().events.on_login_refused)
      f(login_refusal{"", peer_, errc::permission_denied, std::move(reason)});
    close_now(true);
  }

  void read() {
    if (closing_ || closed_) return;
    stream_.async_read_some(
        asio::buffer(read_buffer_),
        [self = shared_from_this()](error_code ec, std::size_t n) { self->on_read(ec, n); });
  }

  void on_read(error_code ec, std::size_t n) {
    if (closed_ || closing_) return;
    if (ec) return close_now(false);
    decoder_.feed(std::string_view(read_buffer_.data(), n));
    process_frames();
  }

  /// The frames decoded so far; then reads on, unless a hashed token is being checked (the
  /// frames after a hello wait for its outcome, and so does reading).
  void process_frames() {
    while (!closing_ && !checking_token_) {
      auto frame = decoder_.next();
      if (!frame) {
        // The stream cannot be trusted past a bad length: answer if we can, then close.
        if (!authenticated_)
          refuse_handshake(frame.err().code, frame.err().message);
        else
          fail_stream(frame.err());
        return;
      }
      if (!*frame) break;
      if (!authenticated_)
        on_hello(**frame);
      else
        on_request(**frame);
    }
    if (!checking_token_) read();
  }

  void on_hello(const std::string& payload) {
    auto h = decode_hello(payload);
    if (!h) return refuse_handshake(errc::invalid_parameter, h.err().message);
    hello_user_ = h->user;
    if (h->magic != protocol_magic)
      return refuse_handshake(errc::invalid_parameter, "not an arbroker client (bad magic)");
    if (!serves_protocol_version(h->version))
      return refuse_handshake(errc::invalid_parameter,
                              "unsupported protocol version " + std::to_string(h->version) +
                                  " (this server serves " + served_protocol_versions() + ")");
    version_ = h->version;  // the session speaks the client's version from here on
    // A standby says where the leader is, to anyone: clients given several nodes go there.
    if (const auto& role = srv_->config().role)
      if (auto no = role->refusal())
        return refuse_handshake(no->why.code, no->why.message,
                                no->leader ? no->leader->address : std::string());
    if (srv_->config().client_cert_is_user && stream_.tls() && peer_name_ != h->user)
      return refuse_handshake(errc::permission_denied,
                              "the client certificate is not " + h->user + "'s");
    // The frames after the hello wait for the verdict (process_frames), and so does reading:
    // a pipelined request is never read as a second hello.
    checking_token_ = true;
    srv_->auth().check(h->user, std::move(h->token), [self = shared_from_this()](auto who) {
      asio::post(self->exec_, [self, who = std::move(who)] {
        self->checking_token_ = false;
        if (self->closing_ || self->closed_) return;
        if (!who) return self->refuse_login();
        self->log_in(who->user, who->admin);
        self->process_frames();
      });
    });
  }

  /// Same answer for an unknown user and a wrong token.
  void refuse_login() { refuse_handshake(errc::permission_denied, "unknown user or wrong token"); }

  void log_in(const std::string& user, bool admin) {
    handshake_timer_.cancel();
    authenticated_ = true;
    decoder_.set_max_frame(limits_.max_frame);
    who_ = caller{user, admin};
    send(encode_welcome_for(version_, welcome{version_, srv_->config().node_name, {}, {}}));
    if (draining_) close_after_flush();
  }

  void on_request(const std::string& payload) {
    auto decoded = decode_request(payload, version_);
    if (!decoded.value) {
      // The frame was whole, so the stream is still in step: answer (by the request's id
      // when its envelope has one, else with id 0) and read on.
      srv_->count(&server_counters::requests_refused);
      auto op = decoded.op_code ? to_operation(*decoded.op_code) : std::nullopt;
      if (op && introduced_in(*op) > version_) op = std::nullopt;  // unknown to this client
      return send_response(error_response(decoded.id.value_or(0), op.value_or(operation::none),
                                          decoded.value.err()));
    }
    request req = std::move(*decoded.value);
    request_pipeline p(srv_->config().events, who_, peer_, req.id, req.op());
    p.about(req.body);
    auto refuse = [&](const error& e) {
      srv_->count(&server_counters::requests_refused);
      p.report(e);
      send_response(error_response(p.id(), p.op(), e));
    };
    if (p.id() == 0)  // its answer would read as one about an unreadable frame
      return refuse(fail(errc::invalid_parameter,
                         "request id 0 is reserved for answers about unreadable frames; "
                         "number requests from 1"));
    if (draining_ || srv_->detached())
      return refuse(fail(errc::unreachable, "the server is shutting down"));
    if (in_flight_ >= limits_.max_in_flight)
      return refuse(fail(errc::busy, "too many requests in flight on this connection (limit " +
                                         std::to_string(limits_.max_in_flight) + ")"));
    if (auto s = p.admit(req.body); !s) return refuse(s.err());
    if (auto* w = std::get_if<msg::watch_request>(&req.body)) return start_watch(p, *w);

    ++in_flight_;
    srv_->count(&server_counters::requests_dispatched);
    p.run(srv_->handler(), std::move(req), weak_from_this(), channel_,
          [](const std::shared_ptr<connection>& self, request_pipeline pipeline, response r) {
            asio::post(self->exec_,
                       [self, pipeline = std::move(pipeline), r = std::move(r)]() mutable {
                         self->finish(std::move(pipeline), std::move(r));
                       });
          });
  }

  // A watch: pages go out as responses to its request's id, each after the one before left
  // the write queue's low water (the node holds the rest, or cuts a watch that falls too far
  // behind); its end is an error response to that id. It ends with the connection.
  void start_watch(request_pipeline& p, const msg::watch_request& r) {
    auto refuse = [&](const error& e) {
      srv_->count(&server_counters::requests_refused);
      p.report(e);
      send_response(error_response(p.id(), p.op(), e));
    };
    if (watches_.size() >= max_watches)
      return refuse(fail(errc::busy, "too many watches on this connection (limit " +
                                         std::to_string(max_watches) + ")"));
    if (watches_.count(p.id()))
      return refuse(fail(errc::invalid_parameter,
                         "request id " + std::to_string(p.id()) + " is watching already"));
    const auto id = p.id();
    watch_sink sink;
    sink.events = [weak = weak_from_this(), id](msg::watch_reply page, std::function<void()> more) {
      if (auto self = weak.lock())
        asio::post(self->exec_,
                   [self, id, page = std::move(page), more = std::move(more)]() mutable {
                     self->watch_page(id, std::move(page), std::move(more));
                   });
    };
    sink.ended = [weak = weak_from_this(), id](error why) {
      if (auto self = weak.lock())
        asio::post(self->exec_, [self, id, why = std::move(why)] { self->watch_ended(id, why); });
    };
    auto h = srv_->handler().watch(who_, r, std::move(sink));
    if (!h) return refuse(h.err());
    srv_->count(&server_counters::requests_dispatched);
    p.report(0, "");  // the audit log has the watch's start
    watches_.emplace(id, std::move(*h));
  }

  void watch_page(std::uint64_t id, msg::watch_reply page, std::function<void()> more) {
    if (closed_ || !watches_.count(id)) return;
    send_response(response{id, operation::watch, 0, "", std::move(page)});
    if (write_queue_bytes_ <= watch_low_water)
      more();
    else
      after_writes_.push_back(std::move(more));
  }

  void watch_ended(std::uint64_t id, const error& why) {
    if (closed_ || watches_.erase(id) == 0) return;
    send_response(error_response(id, operation::watch, why));
  }

  /// Ends the connection's watches, telling the client why.
  void end_watches(const error& why) {
    for (auto& [id, h] : watches_) {
      h->cancel();
      send_response(error_response(id, operation::watch, why));
    }
    watches_.clear();
  }

  void finish(request_pipeline p, response r) {
    --in_flight_;
    if (closed_) return;
    r.id = p.id();
    r.op = p.op();
    p.check(r);
    if (r.code != 0 && !carries_detail(r.body)) r.body = std::monostate{};  // nil: nothing more
    p.made(r.body);
    p.report(r.code, r.message);
    send_response(r);
    if (draining_ && in_flight_ == 0) close_after_flush();
  }

  void refuse_handshake(errc code, std::string message, std::string leader = {}) {
    srv_->count(&server_counters::handshakes_refused);
    if (const auto& f = srv_->config().events.on_login_refused)
      f(login_refusal{hello_user_, peer_, code, message});
    send(encode_welcome_for(
        version_, welcome{version_, srv_->config().node_name, msg::wire(code, std::move(message)),
                          std::move(leader)}));
    close_after_flush();
  }

  void fail_stream(const error& e) {
    srv_->count(&server_counters::connections_dropped);
    send_response(error_response(0, operation::none, e));
    close_after_flush();
  }

  void send_response(const response& r) {
    if (r.code == 0 || version_ == protocol_version) return send(encode_response(r));
    response shown = r;  // an older client is shown codes of its version only
    shown.code = static_cast<std::uint8_t>(
        as_known_to(version_, error{static_cast<errc>(r.code), r.message}).code);
    send(encode_response(shown));
  }

  void send(const std::string& payload) {
    if (closed_) return;
    std::string frame = make_frame(payload);
    if (write_queue_bytes_ + frame.size() > limits_.max_write_queue) {
      // The client does not read its replies; it must not hold memory or others up.
      return close_now(true);
    }
    write_queue_bytes_ += frame.size();
    write_queue_.push_back(std::move(frame));
    if (!writing_) write_next();
  }

  void write_next() {
    writing_ = true;
    stream_.async_write(asio::buffer(write_queue_.front()), [self = shared_from_this()](
                                                                error_code ec, std::size_t) {
      self->writing_ = false;
      if (self->closed_) return;
      if (ec) return self->close_now(false);
      self->write_queue_bytes_ -= self->write_queue_.front().size();
      self->write_queue_.pop_front();
      if (self->write_queue_bytes_ <= watch_low_water && !self->after_writes_.empty()) {
        auto ready = std::move(self->after_writes_);
        self->after_writes_.clear();
        for (auto& more : ready)
          more();  // the node posts the next page to our strand
      }
      if (!self->write_queue_.empty())
        self->write_next();
      else if (self->closing_)
        self->close_now(false);
    });
  }

  /// Stop reading, flush what is queued (bounded by the linger time), then close.
  void close_after_flush() {
    if (closing_ || closed_) return;
    closing_ = true;
    handshake_timer_.cancel();
    if (!writing_ && write_queue_.empty()) return close_now(false);
    linger_timer_.expires_after(limits_.close_linger);
    linger_timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec) self->close_now(true);
    });
  }

  void close_now(bool dropped) {
    if (closed_) return;
    closed_ = closing_ = true;
    for (auto& [id, h] : watches_)
      h->cancel();
    watches_.clear();
    after_writes_.clear();
    channel_->close();
    handshake_timer_.cancel();
    linger_timer_.cancel();
    // Counted before the peer can see the close, so that what it observes is already counted.
    srv_->on_closed(this, dropped);
    stream_.close();
    write_queue_.clear();
    write_queue_bytes_ = 0;
  }

  std::shared_ptr<server::impl> srv_;
  server_limits limits_;
  detail::stream stream_;
  tcp::socket::executor_type exec_;
  asio::steady_timer handshake_timer_;
  asio::steady_timer linger_timer_;
  frame_decoder decoder_;
  std::array<char, 16384> read_buffer_{};
  std::deque<std::string> write_queue_;
  std::size_t write_queue_bytes_ = 0;
  bool writing_ = false;
  bool authenticated_ = false;
  bool checking_token_ = false;  ///< a hashed token is being checked off the strand
  bool stream_ready_;            ///< plain TCP, or TLS after its handshake
  std::string peer_name_;        ///< the common name of the client's certificate, if any
  bool closing_ = false;
  bool closed_ = false;
  bool draining_ = false;
  caller who_;
  std::string peer_;        ///< address:port, for the audit hooks
  std::string hello_user_;  ///< who the hello claimed to be, for refusals
  /// The protocol version the session speaks: the hello's, once it is one the server serves
  /// (until then, and for a hello of a version it does not serve, its own).
  std::uint16_t version_ = protocol_version;
  std::size_t in_flight_ = 0;
  static constexpr std::size_t max_watches = 8;  ///< per connection
  /// A watch's next page is asked for once the unwritten bytes are down to this.
  static constexpr std::size_t watch_low_water = 256 * 1024;
  std::map<std::uint64_t, std::shared_ptr<watch_handle>> watches_;  ///< by request id
  std::vector<std::function<void()>> after_writes_;  ///< watches' `more`, after the low water
  std::shared_ptr<detail::reply_channel> channel_ = std::make_shared<detail::reply_channel>();
};

void server::impl::accept() {
  acceptor_.async_accept(
      asio::make_strand(io_), [self = shared_from_this()](error_code ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted || !self->acceptor_.is_open()) return;
        if (!ec) {
          auto c = std::make_shared<connection>(self, std::move(socket));
          bool over_capacity = false;
          {
            std::lock_guard lock(self->mu_);
            over_capacity = self->connections_.size() >= self->config_.limits.max_connections;
            self->connections_.emplace(c.get(), c);
            ++self->counters_.connections_accepted;
            self->counters_.connections_open = self->connections_.size();
          }
          c->start(over_capacity);
          self->accept();
          return;
        }
        // Out of descriptors or similar: retrying at once would spin.
        self->accept_retry_timer_.expires_after(std::chrono::milliseconds(100));
        self->accept_retry_timer_.async_wait([self](error_code wait_ec) {
          if (!wait_ec && self->acceptor_.is_open()) self->accept();
        });
      });
}

void server::impl::on_closed(connection* c, bool dropped) {
  std::lock_guard lock(mu_);
  connections_.erase(c);
  counters_.connections_open = connections_.size();
  if (dropped) ++counters_.connections_dropped;
  if (stopping_ && connections_.empty()) finish_stop_locked();
}

void server::impl::finish_stop_locked() {
  if (!on_stopped_) return;
  asio::post(acceptor_.get_executor(), [self = shared_from_this(), f = std::move(on_stopped_)] {
    self->stop_timer_.cancel();
    f();
  });
  on_stopped_ = nullptr;
}

void server::impl::stop(std::chrono::milliseconds deadline, std::function<void()> on_stopped) {
  asio::dispatch(acceptor_.get_executor(),
                 [self = shared_from_this(), deadline, f = std::move(on_stopped)]() mutable {
                   std::vector<std::shared_ptr<connection>> open;
                   {
                     std::lock_guard lock(self->mu_);
                     if (self->stopping_) {
                       // A second stop only adds its callback (or runs it when already stopped).
                       if (f && self->connections_.empty()) {
                         asio::post(self->acceptor_.get_executor(), std::move(f));
                       } else if (f) {
                         auto first = std::move(self->on_stopped_);
                         self->on_stopped_ = [first = std::move(first), f = std::move(f)] {
                           if (first) first();
                           f();
                         };
                       }
                       return;
                     }
                     self->stopping_ = true;
                     self->on_stopped_ = f ? std::move(f) : [] {};
                     for (auto& [_, c] : self->connections_)
                       open.push_back(c);
                     if (open.empty()) self->finish_stop_locked();
                   }
                   // Drains are queued on the connections' strands before the acceptor
                   // closes: a client that sees new connections refused knows that its
                   // next request is refused too.
                   for (auto& c : open)
                     c->drain();
                   error_code ignored;
                   self->acceptor_.close(ignored);
                   self->accept_retry_timer_.cancel();
                   if (open.empty()) return;
                   self->stop_timer_.expires_after(deadline);
                   self->stop_timer_.async_wait([self](error_code ec) {
                     if (ec) return;
                     std::vector<std::shared_ptr<connection>> left;
                     {
                       std::lock_guard lock(self->mu_);
                       for (auto& [_, c] : self->connections_)
                         left.push_back(c);
                     }
                     for (auto& c : left)
                       c->abort();
                   });
                 });
}

server::server(asio::io_context& io, server_config config, request_handler& handler)
    : impl_(std::make_shared<impl>(io, std::move(config), handler)) {}

void server::impl::detach() {
  std::vector<std::shared_ptr<connection>> open;
  {
    std::lock_guard lock(mu_);
    detached_ = true;
    for (auto& [_, c] : connections_) {
      c->close_channel();
      open.push_back(c);
    }
    // Breaks the connection <-> server cycle even if the io_context never runs again.
    connections_.clear();
    counters_.connections_open = 0;
  }
  for (auto& c : open)
    c->abort();
}

server::~server() {
  // Without a graceful stop, at least stop accepting and cut the connections.
  impl_->stop(std::chrono::milliseconds(0), {});
  impl_->detach();
}

void server::start() {
  impl_->start();
}

tcp::endpoint server::local_endpoint() const {
  return impl_->local_endpoint();
}

void server::stop(std::chrono::milliseconds deadline, std::function<void()> on_stopped) {
  impl_->stop(deadline, std::move(on_stopped));
}

server_counters server::counters() const {
  return impl_->counters();
}

void server::set_tokens(token_table tokens) {
  impl_->auth().set_tokens(std::move(tokens));
}

}  // namespace arbroker::api
