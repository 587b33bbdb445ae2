#pragma once

// The broker's network front end: TCP, frames, handshake with token authentication,
// validation, and dispatch to a request_handler. Runs on a Boost.Asio io_context that the
// embedder owns (any number of threads may run it; each connection has its own strand), or
// on its own threads through threaded_server.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "arbroker/api/authenticator.hpp"
#include "arbroker/api/codec.hpp"
#include "arbroker/api/handler.hpp"
#include "arbroker/api/serving_role.hpp"
#include "arbroker/api/threaded.hpp"
#include "arbroker/api/tls.hpp"

namespace arbroker::api {

struct server_limits {
  std::size_t max_frame = default_max_frame;  ///< larger frames close the connection
  std::size_t max_in_flight = 64;             ///< more concurrent requests get errc::busy
  std::size_t max_write_queue = 8u << 20;     ///< unread reply bytes before closing the client
  std::size_t max_connections = 1024;         ///< further connections are refused (busy)
  std::chrono::milliseconds handshake_timeout{5000};
  std::chrono::milliseconds close_linger{2000};  ///< time to flush a final error frame
};

/// Hooks for metrics. They run on the server's threads, concurrently: keep them short and
/// thread-safe.
/// One answered request, as an audit log wants it.
struct request_record {
  std::string user;  ///< the authenticated caller
  std::string peer;  ///< the client's address:port
  std::uint64_t id = 0;
  operation op = operation::none;
  std::string subject;  ///< the reservation(s) or grid job it named or made; "" if none
  std::uint8_t code = 0;
  std::string message;  ///< the error's; empty on success
  std::chrono::steady_clock::duration latency{};
  front_end via = front_end::msgpack;
};

/// A connection refused at its hello (bad credentials, version, magic, deadline, limit).
struct login_refusal {
  std::string user;  ///< as the hello claimed it; empty when there was none
  std::string peer;
  errc code = errc::permission_denied;
  std::string reason;
  front_end via = front_end::msgpack;
};

struct server_events {
  /// Every answered request (refusals included): its operation, the code sent (0 = ok) and
  /// the time from its arrival to its response.
  std::function<void(operation, std::uint8_t code, std::chrono::steady_clock::duration)>
      on_response;
  /// The same, with who asked and about what (called on the connection's strand).
  std::function<void(const request_record&)> on_request_done;
  std::function<void(const login_refusal&)> on_login_refused;
};

struct server_config {
  std::string node_name = "arbroker";
  boost::asio::ip::tcp::endpoint endpoint{boost::asio::ip::make_address("127.0.0.1"), 0};
  /// TLS (make_server_tls); null: plain TCP. The TLS handshake counts against the
  /// handshake deadline; a failed one closes the connection and is a refused login.
  tls_context tls;
  /// With client certificates (tls_server_files::client_ca): the certificate's common name
  /// must be the user the hello names, on top of the token.
  bool client_cert_is_user = false;
  token_table tokens;  ///< the users, unless `auth` is given
  /// Shared with other front ends (the HTTP API) so that one reload reaches all; null: the
  /// server makes its own from `tokens`.
  std::shared_ptr<authenticator> auth;
  server_limits limits;
  server_events events;
  /// Several nodes on one store (serving_role.hpp): while this one does not serve, every
  /// hello is refused with where the leader is. Null: it always serves.
  std::shared_ptr<const serving_role> role;
};

/// Counters for tests and metrics (approximate while the server runs).
struct server_counters {
  std::size_t connections_accepted = 0;
  std::size_t connections_open = 0;
  std::size_t handshakes_refused = 0;
  std::size_t requests_dispatched = 0;
  std::size_t requests_refused = 0;     ///< validation, auth or busy errors
  std::size_t connections_dropped = 0;  ///< corrupt stream, slow reader or deadline
};

class server {
 public:
  /// Binds and listens at once (throws boost::system::system_error when it cannot);
  /// accepting starts with start(). The handler must outlive the server.
  server(boost::asio::io_context& io, server_config config, request_handler& handler);
  /// Cuts every connection and detaches from the handler; pending done() calls become
  /// no-ops. Destroy it after stop() has finished (or with the io_context stopped): a
  /// request being dispatched at that very moment may still reach the handler.
  ~server();
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  void start();

  /// The bound address (the real port when the config asked for port 0).
  boost::asio::ip::tcp::endpoint local_endpoint() const;

  /// Graceful stop: stop accepting, refuse new requests (errc::unreachable), let in-flight
  /// ones finish and their replies flush until `deadline`, then close every connection.
  /// `on_stopped` runs (on the io_context) once everything is closed. Thread-safe.
  void stop(std::chrono::milliseconds deadline, std::function<void()> on_stopped = {});

  server_counters counters() const;

  /// Replaces the users and tokens (a reload): new logins are checked against `tokens`;
  /// connections already logged in stay as they are. Thread-safe.
  void set_tokens(token_table tokens);

  class impl;

 private:
  std::shared_ptr<impl> impl_;
};

/// A server with its own io_context and threads, for embedders without an event loop.
class threaded_server : public threaded<server> {
 public:
  threaded_server(server_config config, request_handler& handler, std::size_t threads = 2)
      : threaded(std::move(config), handler, threads) {}
  server_counters counters() const { return server_.counters(); }
  void set_tokens(token_table tokens) { server_.set_tokens(std::move(tokens)); }
};

}  // namespace arbroker::api
