#pragma once

// What the server calls for each authenticated, validated request. The engine implements
// it; tests use fakes.

#include <functional>
#include <string>

#include "arbroker/api/protocol.hpp"

namespace arbroker::api {

/// Who sent a request, as the handshake established it.
struct caller {
  std::string user;
  bool admin = false;
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
