#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "arbroker/core/error.hpp"

namespace arbroker {
namespace store_detail {
class pg_connection;
}

/// Who holds a shared PostgreSQL store (issue 36): a lease, one row in the store's schema,
/// taken by one node for a term and renewed by it, each taking with a new epoch. The server's
/// clock decides when a term ran out, so the nodes' clocks do not matter.
///
/// A node that takes the lease of a holder whose term ran out first ends that holder's
/// sessions on the server (its lease session and the writer of its journal, which a paused or
/// cut-off holder cannot end itself): a holder that comes back finds its connections gone,
/// and a journal never reconnects its writer (postgresql_journal.hpp), so it cannot write
/// again. Every batch of a journal opened under the lease is fenced besides: it begins by
/// checking, with a key-share lock on the lease's row until it commits, that its epoch is
/// still the lease's, so no batch of an old epoch commits after a new epoch was taken (taking
/// locks the row FOR UPDATE, which waits for the batches under way; a renewal does not).
class postgresql_lease {
 public:
  /// Where a node's clients reach it: its API and its HTTP API ("": none), host:port.
  struct addresses {
    std::string api;
    std::string http;
  };
  /// The lease as the store has it.
  struct holder {
    std::string node;
    std::string address;       ///< where its clients reach it
    std::string http_address;  ///< its HTTP API ("": none)
    std::uint64_t epoch = 0;
    bool live = false;  ///< its term has not run out (by the server's clock)
  };

  /// Connects as `node` (clients reach it at `where`), with terms of `term`; makes the
  /// lease's table when the store has none.
  static result<std::unique_ptr<postgresql_lease>> connect(const std::string& uri, std::string node,
                                                           addresses where,
                                                           std::chrono::seconds term);
  ~postgresql_lease();
  postgresql_lease(const postgresql_lease&) = delete;
  postgresql_lease& operator=(const postgresql_lease&) = delete;

  /// Takes the lease when nobody holds it or its holder's term ran out, ending the old
  /// holder's sessions: the new epoch. Nothing while another holds it (or another node took
  /// it at the same moment).
  result<std::optional<std::uint64_t>> try_take();
  /// Extends this node's term from now: false when the lease is no longer its own (its term
  /// ran out, or another node took it).
  result<bool> renew();
  /// Gives the lease up (a node stopping on purpose, after its last write): its term ends
  /// now, so that a standby takes over at once instead of after the term. Nothing when it is
  /// not this node's.
  status release();
  /// Who holds it; nothing before anyone took it.
  result<std::optional<holder>> current();

 private:
  postgresql_lease(std::unique_ptr<store_detail::pg_connection> c, std::string node,
                   addresses where, std::chrono::seconds term);
  std::unique_ptr<store_detail::pg_connection> conn_;
  std::string node_;
  addresses where_;
  std::chrono::seconds term_;
  std::uint64_t epoch_ = 0;  ///< the one this node took (0: none)
};

}  // namespace arbroker
