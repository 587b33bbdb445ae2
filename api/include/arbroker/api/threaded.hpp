#pragma once

// A front end (server.hpp, http_server.hpp) with its own io_context and threads, for
// embedders without an event loop: it accepts from construction until stop().

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <future>
#include <thread>
#include <vector>

#include "arbroker/api/handler.hpp"

namespace arbroker::api {

template <class Server>
class threaded {
 public:
  /// Binds at once (throws boost::system::system_error when it cannot) and starts serving
  /// on `threads` threads.
  template <class Config>
  threaded(Config config, request_handler& handler, std::size_t threads)
      : server_(io_, std::move(config), handler) {
    server_.start();
    for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i)
      threads_.emplace_back([this] { io_.run(); });
  }
  ~threaded() {
    if (!stopped_) stop(std::chrono::milliseconds(0));
  }
  threaded(const threaded&) = delete;
  threaded& operator=(const threaded&) = delete;

  boost::asio::ip::tcp::endpoint local_endpoint() const { return server_.local_endpoint(); }

  /// The server's graceful stop; blocks until every connection is closed and the threads
  /// have ended.
  void stop(std::chrono::milliseconds deadline) {
    if (stopped_) return;
    stopped_ = true;
    std::promise<void> closed;
    auto done = closed.get_future();
    server_.stop(deadline, [&closed] { closed.set_value(); });
    done.wait();
    io_.stop();
    for (auto& t : threads_)
      t.join();
  }

 protected:
  boost::asio::io_context io_;
  Server server_;

 private:
  std::vector<std::thread> threads_;
  bool stopped_ = false;
};

}  // namespace arbroker::api
