#pragma once

// A connection's byte stream, TCP or TLS over TCP, behind one interface (server and client).

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>

#include <variant>

namespace arbroker::api::detail {

using tls_stream = boost::asio::ssl::stream<boost::asio::ip::tcp::socket>;

class stream {
 public:
  explicit stream(boost::asio::ip::tcp::socket s) : v_(std::move(s)) {}
  stream(boost::asio::ip::tcp::socket s, boost::asio::ssl::context& tls)
      : v_(std::in_place_type<tls_stream>, std::move(s), tls) {}

  /// The TLS layer, or nullptr on plain TCP.
  tls_stream* tls() noexcept { return std::get_if<tls_stream>(&v_); }

  boost::asio::ip::tcp::socket& socket() noexcept {
    if (auto* t = tls()) return t->next_layer();
    return std::get<boost::asio::ip::tcp::socket>(v_);
  }
  const boost::asio::ip::tcp::socket& socket() const noexcept {
    if (auto* t = std::get_if<tls_stream>(&v_)) return t->next_layer();
    return std::get<boost::asio::ip::tcp::socket>(v_);
  }

  /// Shuts the TCP connection down and closes it, errors ignored. No TLS close_notify:
  /// frames say where a message ends.
  void close() noexcept {
    boost::system::error_code ignored;
    socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
    socket().close(ignored);
  }

  template <class Buffers, class Handler>
  void async_read_some(const Buffers& b, Handler&& h) {
    std::visit([&](auto& s) { s.async_read_some(b, std::forward<Handler>(h)); }, v_);
  }
  template <class Buffers, class Handler>
  void async_write(const Buffers& b, Handler&& h) {
    std::visit([&](auto& s) { boost::asio::async_write(s, b, std::forward<Handler>(h)); }, v_);
  }

 private:
  std::variant<boost::asio::ip::tcp::socket, tls_stream> v_;
};

}  // namespace arbroker::api::detail
