#pragma once

// A blocking client of the broker's network API, for the CLI and tests. One request at a
// time; every call has a timeout. Not thread-safe.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "arbroker/api/codec.hpp"
#include "arbroker/api/tls.hpp"

namespace arbroker::api {

namespace detail {
class stream;
}

struct client_options {
  std::chrono::milliseconds timeout{30000};
  std::size_t max_frame = 64u << 20;  ///< replies (lists, status) may be large
  /// TLS (make_client_tls); null: plain TCP. The server's certificate must chain to the
  /// context's CA and name the host connected to (or tls_name, when set).
  tls_context tls = {};
  std::string tls_name = {};
};

class client {
 public:
  explicit client(client_options options = {});
  ~client();
  client(const client&) = delete;
  client& operator=(const client&) = delete;

  /// Connects and authenticates. Errors: unreachable (cannot connect), timeout, or the
  /// server's refusal (permission_denied for bad credentials, ...).
  result<welcome> connect(const std::string& host, std::uint16_t port, const std::string& user,
                          const std::string& token);

  /// Only the connection (and its TLS handshake), without the hello (tests send their own).
  status open(const std::string& host, std::uint16_t port);

  /// Sends one request and waits for its response. A response with a non-zero code is
  /// still a value; errors are transport failures (unreachable, timeout, invalid_parameter
  /// for an undecodable reply), after which the client is disconnected.
  result<response> call(request_body body);

  /// Starts a watch (docs/watch.md) and hands each page to `on_page`, in order, until it
  /// returns false (then the connection is closed, which ends the watch) or the node ends
  /// the watch (its error is returned). Waits for pages without a timeout (a watch may be
  /// quiet for hours); a lost connection is unreachable.
  status watch(msg::watch_request r, const std::function<bool(const msg::watch_reply&)>& on_page);
  /// Lower level, for tests: raw bytes out, one frame payload in.
  status send_bytes(std::string_view bytes);
  result<std::string> read_frame();

  bool connected() const noexcept;
  void close();

 private:
  status run_until(const bool& done);
  error not_a_welcome(const error& e) const;
  client_options options_;
  boost::asio::io_context io_;
  std::unique_ptr<detail::stream> stream_;  ///< null until open()
  frame_decoder decoder_;
  std::uint64_t next_id_ = 1;
  /// The first bytes the server sent on this connection: a welcome that cannot be read says
  /// what the server speaks instead (HTTP, TLS).
  std::string first_bytes_;
  std::string where_;  ///< host:port of the connection
};

/// "host:port" -> host and port; "[::1]:7400" for IPv6.
result<std::pair<std::string, std::uint16_t>> parse_host_port(std::string_view text);

}  // namespace arbroker::api
