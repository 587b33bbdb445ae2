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
#include <utility>
#include <vector>

#include "arbroker/api/codec.hpp"
#include "arbroker/api/tls.hpp"

namespace arbroker::api {

namespace detail {
class stream;
}

/// A node's API address: host and port.
using server_address = std::pair<std::string, std::uint16_t>;

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

  /// Several nodes on one store, one serving (docs/operations.md, "Two nodes, one store"):
  /// connects to the one that serves. Tries them in order; a standby's refusal (not_leader)
  /// names the leader, tried next; a node that cannot be reached, is starting or (of
  /// several) does not answer its hello within 2 s is passed over (and tried last in the
  /// next rounds: a paused node would cost 2 s each round). Rounds repeat, with
  /// pauses of 0.1 s growing to 1 s, until one serves or `wait` has passed (a failover under
  /// way), then the last refusal. Any other refusal (a wrong token) is final. One server and
  /// no wait: connect() that follows a standby to its leader.
  result<welcome> connect_any(const std::vector<server_address>& servers, const std::string& user,
                              const std::string& token, std::chrono::milliseconds wait);

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
  /// Connects and says hello: the server's welcome, a refusal too (then closed).
  result<welcome> greet(const std::string& host, std::uint16_t port, const std::string& user,
                        const std::string& token);
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
result<server_address> parse_host_port(std::string_view text);
/// "a:7400,b:7400" -> the addresses in order (one or more; no duplicates).
result<std::vector<server_address>> parse_server_list(std::string_view text);

}  // namespace arbroker::api
