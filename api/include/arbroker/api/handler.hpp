#pragma once

// What the server calls for each authenticated, validated request. The engine implements
// it; tests use fakes.

#include <cstdint>
#include <functional>
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
};

}  // namespace arbroker::api
