#pragma once

// The HTTP/JSON front end of the node (Boost.Beast), beside the msgpack server: the same
// operations, bodies in their JSON form (json_codec.hpp), the same users, validation and
// handler, and the OpenAPI 3 document that describes it (openapi.hpp). docs/http-api.md.
//
//   POST /v1/<operation>     a request body as JSON -> 200 and the reply body, or an error
//   GET  /v1/openapi.json    the OpenAPI document (no login needed)
//   GET  /metrics            the node's metrics in Prometheus' text format, when the config
//                            gives them (no login needed, as on the metrics port)
//
// A request names its user in `X-Arb-User` and proves it with `Authorization: Bearer <token>`
// (the user's token of the node's config); with client certificates, the certificate's
// common name must be that user too. HTTP/1.1 with keep-alive, one request at a time per
// connection; plain TCP or TLS.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/api/authenticator.hpp"
#include "arbroker/api/codec.hpp"
#include "arbroker/api/handler.hpp"
#include "arbroker/api/server.hpp"
#include "arbroker/api/threaded.hpp"
#include "arbroker/api/tls.hpp"

namespace arbroker::api {

struct http_limits {
  std::size_t max_body = default_max_frame;  ///< larger bodies get 413 and the connection closes
  std::size_t max_connections = 1024;        ///< further connections get 503 and are closed
  /// From a connection's start (TLS handshake included) or the end of its last response to
  /// the end of the next request's body: a client that sends nothing, or too slowly, is cut.
  std::chrono::milliseconds request_timeout{10000};
};

/// A file the server serves as it is.
struct static_file {
  std::string_view content_type;  ///< "text/html; charset=utf-8"
  std::string_view body;
};

struct http_server_config {
  std::string node_name = "arbroker";
  boost::asio::ip::tcp::endpoint endpoint{boost::asio::ip::make_address("127.0.0.1"), 0};
  tls_context tls;                      ///< null: plain TCP
  bool client_cert_is_user = false;     ///< the client certificate's CN must be X-Arb-User
  std::shared_ptr<authenticator> auth;  ///< required; shared with the msgpack server
  http_limits limits;
  /// The same hooks as the msgpack server's: on_response and on_request_done for every
  /// answered operation (the record's id counts the connection's requests), on_login_refused
  /// for a request with a wrong token or a failed TLS handshake.
  server_events events;
  /// GET /metrics answers this text (Prometheus' text format, version 0.0.4), made at each
  /// request on the server's thread; null: /metrics is 404.
  std::function<std::string()> metrics;
  /// Static files served by GET without a login (the web console, web/console/), by path
  /// ("/console/app.js"); with any, GET / redirects to `home`. The texts must outlive the
  /// server (the console's are compiled into arbd).
  std::map<std::string, static_file, std::less<>> files = {};
  std::string home = "/console/";
  /// Several nodes on one store (serving_role.hpp): while this one does not serve, every
  /// operation and watch is answered 503 with where the leader is (its detail's `leader`).
  /// Null: it always serves.
  std::shared_ptr<const serving_role> role;
};

/// The HTTP status of an error code (400 for the caller's mistakes, 401/403, 404, 409 for a
/// conflict with the state, 503 for busy or unreachable, 504 timeout, 500 otherwise).
unsigned http_status_of(errc code) noexcept;

class http_server {
 public:
  /// Binds and listens at once (throws boost::system::system_error when it cannot);
  /// accepting starts with start(). The handler must outlive the server.
  http_server(boost::asio::io_context& io, http_server_config config, request_handler& handler);
  /// Cuts every connection; pending done() calls become no-ops.
  ~http_server();
  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  void start();
  boost::asio::ip::tcp::endpoint local_endpoint() const;

  /// Graceful stop: stop accepting, close idle connections, answer the requests in flight
  /// (with `Connection: close`) until `deadline`, then close everything. `on_stopped` runs on
  /// the io_context once all are closed. Thread-safe.
  void stop(std::chrono::milliseconds deadline, std::function<void()> on_stopped = {});

  std::size_t connections_open() const;

  class impl;

 private:
  std::shared_ptr<impl> impl_;
};

/// An http_server with its own io_context and threads.
class threaded_http_server : public threaded<http_server> {
 public:
  threaded_http_server(http_server_config config, request_handler& handler, std::size_t threads = 1)
      : threaded(std::move(config), handler, threads) {}
  std::size_t connections_open() const { return server_.connections_open(); }
};

}  // namespace arbroker::api
