#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arbroker/core/error.hpp"

namespace prometheus {
class Collectable;
class Exposer;
}  // namespace prometheus

namespace arbroker::metrics {

struct scrape_options {
  std::string address = "127.0.0.1";  ///< IPv4 or IPv6 literal; "0.0.0.0" for every interface
  std::uint16_t port = 9464;          ///< 0: any free port (see scrape_endpoint::port())
  /// Worker threads: a client that connects and sends nothing holds one of them until
  /// client_timeout, so this many silent clients at once delay a scrape (never block it).
  int threads = 4;
  std::chrono::milliseconds client_timeout{5000};
};

/// GET /metrics over HTTP (prometheus-cpp's pull endpoint, on civetweb), rendering every
/// registered collectable in the Prometheus text format at each scrape, on the endpoint's own
/// threads. Any other path is 404.
class scrape_endpoint {
 public:
  /// Binds and starts serving. The endpoint shares ownership of the collectables (prometheus-cpp
  /// holds them weakly, and would skip one whose last owner let go). Errors: invalid_parameter
  /// (address or limits), busy (cannot listen).
  static result<std::unique_ptr<scrape_endpoint>> start(
      const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables,
      const scrape_options& opts);

  ~scrape_endpoint();  ///< Stops listening, closes connections and joins the threads.
  scrape_endpoint(const scrape_endpoint&) = delete;
  scrape_endpoint& operator=(const scrape_endpoint&) = delete;

  /// The port it listens on (the chosen one when configured with 0).
  std::uint16_t port() const noexcept { return port_; }

 private:
  scrape_endpoint(std::unique_ptr<prometheus::Exposer> e, std::uint16_t port,
                  std::vector<std::shared_ptr<prometheus::Collectable>> collectables);
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;  // outlive the exposer
  std::unique_ptr<prometheus::Exposer> exposer_;
  std::uint16_t port_;
};

/// The collectables' metrics in Prometheus' text format (version 0.0.4), as a scrape of the
/// endpoint gives them: for serving them elsewhere (the node's HTTP port).
std::string text_exposition(
    const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables);

}  // namespace arbroker::metrics
