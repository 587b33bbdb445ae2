#include "arbroker/metrics/http_endpoint.hpp"

#include <boost/asio.hpp>

#include <array>
#include <atomic>
#include <set>
#include <thread>

#include "arbroker/metrics/registry.hpp"
#include "http_response.hpp"

namespace arbroker::metrics {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {
class session;
}

struct http_endpoint::impl {
  http_endpoint_config cfg;
  std::function<std::string()> body;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  asio::steady_timer accept_retry{io};
  std::set<std::shared_ptr<session>> sessions;  ///< touched only on the io thread
  std::uint16_t port = 0;
  std::thread thread;
  std::atomic<bool> stopped = false;

  void accept();
  void close_all();
};

namespace {

// One connection: read the request head, write one response, close. A deadline over the whole
// exchange bounds what a slow or silent client can hold.
class session : public std::enable_shared_from_this<session> {
 public:
  session(tcp::socket s, http_endpoint::impl& owner)
      : socket_(std::move(s)),
        deadline_(socket_.get_executor()),
        buffer_(owner.cfg.max_request_bytes),
        owner_(owner) {}

  void start() {
    deadline_.expires_after(owner_.cfg.client_timeout);
    deadline_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec) self->close();
    });
    asio::async_read_until(
        socket_, buffer_, "\r\n\r\n",
        [self = shared_from_this()](error_code ec, std::size_t n) { self->on_head(ec, n); });
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    deadline_.cancel();
    owner_.sessions.erase(shared_from_this());
  }

 private:
  void on_head(error_code ec, std::size_t n) {
    if (closed_) return;
    if (ec == asio::error::not_found) return reply(detail::too_large_response());
    if (ec) return close();  // the client went away or the deadline closed the socket
    const auto data = buffer_.data();
    const std::string head(asio::buffers_begin(data), asio::buffers_begin(data) + n);
    reply(detail::respond(head, owner_.body));
  }

  void reply(std::string response) {
    response_ = std::move(response);
    asio::async_write(socket_, asio::buffer(response_),
                      [self = shared_from_this()](error_code ec, std::size_t) {
                        if (ec) return self->close();
                        self->linger();
                      });
  }

  // Closing with unread input (the rest of an oversized request, a body) would reset the
  // connection and could destroy the response before the client reads it: send FIN, then
  // drain until the client closes too (or the deadline closes the socket).
  void linger() {
    if (closed_) return;
    error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    drain();
  }

  void drain() {
    socket_.async_read_some(asio::buffer(drain_),
                            [self = shared_from_this()](error_code ec, std::size_t) {
                              if (ec || self->closed_) return self->close();
                              self->drain();
                            });
  }

  tcp::socket socket_;
  asio::steady_timer deadline_;
  asio::streambuf buffer_;  ///< max_size = max_request_bytes: a longer head is not_found
  std::string response_;
  std::array<char, 1024> drain_;
  http_endpoint::impl& owner_;
  bool closed_ = false;
};

}  // namespace

void http_endpoint::impl::accept() {
  acceptor.async_accept([this](error_code ec, tcp::socket s) {
    if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
    if (ec) {
      // Out of descriptors or the like: try again a little later instead of spinning.
      accept_retry.expires_after(std::chrono::milliseconds(100));
      accept_retry.async_wait([this](error_code e) {
        if (!e) accept();
      });
      return;
    }
    if (sessions.size() >= cfg.max_connections) {
      error_code ignored;
      s.close(ignored);
    } else {
      auto c = std::make_shared<session>(std::move(s), *this);
      sessions.insert(c);
      c->start();
    }
    accept();
  });
}

void http_endpoint::impl::close_all() {
  error_code ignored;
  acceptor.close(ignored);
  accept_retry.cancel();
  // close() erases from the set: iterate over a copy.
  for (auto& s : std::vector<std::shared_ptr<session>>(sessions.begin(), sessions.end()))
    s->close();
}

http_endpoint::http_endpoint(std::unique_ptr<impl> p) : impl_(std::move(p)) {}

http_endpoint::~http_endpoint() {
  stop();
}

std::uint16_t http_endpoint::port() const noexcept {
  return impl_->port;
}

void http_endpoint::stop() {
  if (impl_->stopped.exchange(true)) return;
  asio::post(impl_->io, [p = impl_.get()] { p->close_all(); });
  // With the listener and every connection closed, run() returns once their handlers ran.
  if (impl_->thread.joinable()) impl_->thread.join();
}

result<std::unique_ptr<http_endpoint>> http_endpoint::start(const registry& reg,
                                                            http_endpoint_config cfg) {
  return start([&reg] { return reg.render(); }, std::move(cfg));
}

result<std::unique_ptr<http_endpoint>> http_endpoint::start(std::function<std::string()> body,
                                                            http_endpoint_config cfg) {
  if (cfg.max_request_bytes < 16)
    return fail(errc::invalid_parameter, "metrics endpoint: max_request_bytes " +
                                             std::to_string(cfg.max_request_bytes) +
                                             " is too small for any request (at least 16)");
  if (cfg.max_connections == 0 || cfg.client_timeout.count() <= 0)
    return fail(errc::invalid_parameter,
                "metrics endpoint: max_connections and client_timeout must be positive");
  error_code ec;
  const auto address = asio::ip::make_address(cfg.address, ec);
  if (ec)
    return fail(errc::invalid_parameter,
                "metrics endpoint: '" + cfg.address + "' is not an IP address");

  auto p = std::make_unique<impl>();
  p->cfg = std::move(cfg);
  p->body = std::move(body);
  const tcp::endpoint where{address, p->cfg.port};
  const auto where_text = p->cfg.address + ":" + std::to_string(p->cfg.port);
  p->acceptor.open(where.protocol(), ec);
  if (!ec) p->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) p->acceptor.bind(where, ec);
  if (!ec) p->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return fail(errc::busy,
                "metrics endpoint: cannot listen on " + where_text + ": " + ec.message());
  p->port = p->acceptor.local_endpoint().port();
  p->accept();
  p->thread = std::thread([io = &p->io] { io->run(); });
  return std::unique_ptr<http_endpoint>(new http_endpoint(std::move(p)));
}

}  // namespace arbroker::metrics
