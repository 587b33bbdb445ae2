#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "arbroker/core/error.hpp"

namespace arbroker::metrics {

class registry;

struct http_endpoint_config {
  std::string address = "127.0.0.1";     ///< IPv4 or IPv6 literal; "0.0.0.0" for every interface
  std::uint16_t port = 9464;             ///< 0: any free port (see http_endpoint::port())
  std::size_t max_request_bytes = 8192;  ///< request line + headers; more gets 431
  std::chrono::milliseconds client_timeout{5000};  ///< whole exchange; then the socket closes
  std::size_t max_connections = 64;                ///< beyond that, new connections are closed
};

/// Serves GET (and HEAD) /metrics over HTTP/1.1 on its own thread, one response per
/// connection: 404 for any other path, 405 for any other method, 400 for a malformed request,
/// 431 for one larger than max_request_bytes. Everything is asynchronous, so a slow or silent
/// client only holds its own connection, until client_timeout.
class http_endpoint {
 public:
  /// Binds and starts serving `reg`, which must outlive the endpoint. Errors:
  /// invalid_parameter (bad address or limits), busy (cannot listen there).
  static result<std::unique_ptr<http_endpoint>> start(const registry& reg,
                                                      http_endpoint_config cfg);
  /// The same for any body (rendered on the endpoint's thread for each scrape).
  static result<std::unique_ptr<http_endpoint>> start(std::function<std::string()> body,
                                                      http_endpoint_config cfg);

  ~http_endpoint();  ///< stop()
  http_endpoint(const http_endpoint&) = delete;
  http_endpoint& operator=(const http_endpoint&) = delete;

  /// The port it listens on (the chosen one when configured with 0).
  std::uint16_t port() const noexcept;

  /// Closes the listener and every open connection and joins the thread. Idempotent.
  void stop();

  struct impl;

 private:
  explicit http_endpoint(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

}  // namespace arbroker::metrics
