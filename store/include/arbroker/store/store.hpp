#pragma once

// A node's whole store behind one interface, and where it lives: an SQLite file (the
// embedded default) or a PostgreSQL database shared by the nodes of one VO.

#include <cstdint>
#include <memory>
#include <string>

#include "arbroker/core/error.hpp"
#include "arbroker/store/events.hpp"
#include "arbroker/store/journal.hpp"

namespace arbroker {

/// How far a write has gone when the store answers for it.
enum class durability {
  /// On disk (SQLite: the WAL synced; PostgreSQL: synchronous_commit=on, the server's WAL
  /// flushed, and its synchronous standbys' when it has them): an acknowledged reservation
  /// and a logged commit decision survive an OS crash or a power cut. One sync covers every
  /// write made before it (group commit).
  full,
  /// Past the process (SQLite: in the OS; PostgreSQL: synchronous_commit=off, with the
  /// server): survives a crash of the node (kill -9); after a crash of the machine that
  /// holds the data the last transactions may be lost, and recovery then deletes their LRMS
  /// reservations.
  normal,
};

struct journal_options {
  durability sync = durability::full;
  /// SQLite VFS to open the file with ("" = the system's); tests pass a recording one.
  std::string vfs;
  /// PostgreSQL shared by several nodes: write only under this epoch of the store's lease
  /// (postgresql_lease.hpp), taken before; 0: no lease.
  std::uint64_t lease_epoch = 0;
};

/// Everything a node keeps: reservations and commit decisions, grid jobs, events. Safe to
/// call from several threads at once.
class node_store : public reservation_journal, public grid_job_journal, public event_journal {
 public:
  /// Where it lives, for messages (a file's path, a database URI without its password).
  virtual std::string where() const = 0;
};

/// Whether `where` names a PostgreSQL database ("postgresql://..." or "postgres://...", a
/// libpq connection URI) rather than an SQLite file.
bool is_postgresql_uri(const std::string& where) noexcept;

/// Whether this build has the PostgreSQL store (it was built with libpq), and what to say
/// when it has not.
bool postgresql_store_built() noexcept;
extern const char* const no_postgresql;

/// `where` without a password ("postgresql://arb:***@db/arb"), for messages and logs; a
/// file's path as it is.
std::string redact_uri(const std::string& where);

/// Opens (creating what is missing) the store `where` names: a PostgreSQL database by its
/// URI, anything else an SQLite file (":memory:" for tests). A PostgreSQL URI in a build
/// without libpq is refused, saying so.
result<std::unique_ptr<node_store>> open_store(const std::string& where,
                                               journal_options options = {});

}  // namespace arbroker
