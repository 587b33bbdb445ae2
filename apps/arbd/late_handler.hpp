#pragma once

// The front ends listen before the node they serve exists (a standby listens to say where
// the leader is; a starting node to say it is starting): they are given this handler, which
// passes requests to the node's once it is set, and answers `unreachable` before. The
// serving_role refuses such requests first; this is the guard behind it.

#include <atomic>

#include "arbroker/api/handler.hpp"

namespace arbroker {

class late_handler final : public api::request_handler {
 public:
  /// From now on, requests go to `h` (which must outlive this handler's servers).
  void set(api::request_handler& h) { target_.store(&h, std::memory_order_release); }

  void handle(const api::caller& who, api::request req,
              std::function<void(api::response)> done) override {
    if (auto* t = target_.load(std::memory_order_acquire))
      return t->handle(who, std::move(req), std::move(done));
    done(api::error_response(req.id, req.op(), starting()));
  }

  result<std::shared_ptr<watch_handle>> watch(const api::caller& who, const msg::watch_request& r,
                                              watch_sink sink) override {
    if (auto* t = target_.load(std::memory_order_acquire)) return t->watch(who, r, std::move(sink));
    return starting();
  }

 private:
  static error starting() { return fail(errc::unreachable, "the node is starting"); }
  std::atomic<api::request_handler*> target_{nullptr};
};

}  // namespace arbroker
