#pragma once

// Whether a node's front ends serve (issue 36): a node of several on one store serves only
// while it holds the store's lease. Before, it listens all the same and tells each client
// where the leader is (errc::not_leader naming it), so that clients given several nodes find
// the one that serves; while it recovers after taking the lease it answers `unreachable`
// ("starting"), which clients retry. Set by the node's host (arbd), read by the servers on
// every hello and HTTP request; thread-safe. A node without a lease serves from the start
// (the servers' role pointer is null).

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "arbroker/core/error.hpp"

namespace arbroker::api {

/// The node that serves, as the store's lease names it.
struct leader_info {
  std::string node;
  std::string address;       ///< its msgpack API, host:port
  std::string http_address;  ///< its HTTP API, host:port ("": none)
  std::uint64_t epoch = 0;
  friend bool operator==(const leader_info&, const leader_info&) = default;
};

/// Why a request is not served here, and where it would be.
struct not_served {
  error why;                          ///< not_leader or unreachable
  std::optional<leader_info> leader;  ///< with not_leader, when known
};

class serving_role {
 public:
  /// `node`: this node's name, for the messages.
  explicit serving_role(std::string node) : node_(std::move(node)) {}

  /// Another node serves (`leader`), or nobody holds the lease (nothing).
  void standby(std::optional<leader_info> leader);
  /// This node holds the lease and recovers its store.
  void starting();
  /// This node serves.
  void serving();

  /// Nothing while this node serves; else the answer to give.
  std::optional<not_served> refusal() const;
  bool is_serving() const;

 private:
  enum class state { standby, starting, serving };
  const std::string node_;
  mutable std::mutex mu_;
  state state_ = state::standby;
  std::optional<leader_info> leader_;
};

}  // namespace arbroker::api
