#pragma once

// The way back from a handler's done() to the connection that asked, for both front ends.
// done() may run on any thread at any time, even after the connection or the whole server is
// gone: it holds the channel and a weak reference, never the connection, and delivers only
// while the channel is open.

#include <atomic>
#include <memory>
#include <mutex>

#include "arbroker/api/protocol.hpp"

namespace arbroker::api::detail {

struct reply_channel {
  std::mutex mu;
  bool open = true;
  void close() {
    std::lock_guard lock(mu);
    open = false;
  }
};

/// A done() for request_handler::handle that calls `deliver(connection, response)` (which
/// posts to the connection's strand) for the first response only, while `channel` is open
/// and the connection lives.
template <class Connection, class Deliver>
auto reply_once(std::weak_ptr<Connection> weak, std::shared_ptr<reply_channel> channel,
                Deliver deliver) {
  return [weak = std::move(weak), channel = std::move(channel), deliver = std::move(deliver),
          answered = std::make_shared<std::atomic<bool>>(false)](response r) {
    if (answered->exchange(true)) return;  // exactly once, whatever the handler does
    std::shared_ptr<Connection> self;      // released after the lock: it may be the last
    std::lock_guard lock(channel->mu);
    if (!channel->open) return;
    self = weak.lock();
    if (self) deliver(self, std::move(r));
  };
}

}  // namespace arbroker::api::detail
