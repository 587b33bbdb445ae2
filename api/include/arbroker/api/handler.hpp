#pragma once

// What the server calls for each authenticated, validated request. The engine implements
// it; tests use fakes.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "arbroker/api/protocol.hpp"

namespace arbroker::api {

/// The front end a request came through: metrics and the audit log tell them apart.
enum class front_end : std::uint8_t { msgpack, http };

constexpr std::string_view to_string(front_end f) noexcept {
  return f == front_end::http ? "http" : "msgpack";
}

/// Who sent a request, as the handshake established it.
struct caller {
  std::string user;
  bool admin = false;
  front_end via = front_end::msgpack;
};

class request_handler {
 public:
  virtual ~request_handler() = default;

  /// Answers `req` by calling `done` exactly once, from any thread, now or later. The
  /// body is validated and its `user` field is the caller's (see validate.hpp). The
  /// response's id and op are filled in by the server.
  virtual void handle(const caller& who, request req, std::function<void(response)> done) = 0;

  /// Starts a watch (operation watch; docs/watch.md) whose pages go to `sink`, or refuses it
  /// at once with why. `r` is validated and its `user` the caller's. The server cancels the
  /// handle when its connection ends. Default: this handler serves no watches.
  virtual result<std::shared_ptr<watch_handle>> watch(const caller& who,
                                                      const msg::watch_request& r,
                                                      watch_sink sink) {
    (void)who;
    (void)r;
    (void)sink;
    return fail(errc::not_found, "this server serves no watches");
  }
};

}  // namespace arbroker::api
