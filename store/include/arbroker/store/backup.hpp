#pragma once

// An online copy of a node's store, taken with SQLite's backup API while the node runs: a
// consistent snapshot (one read transaction in WAL mode, so the node's writes go on), with
// whatever is still in the WAL, into a new file that a node can start from.

#include <cstdint>
#include <string>

#include "arbroker/core/error.hpp"

namespace arbroker {

struct backup_report {
  std::int64_t pages = 0;         ///< database pages copied
  std::int64_t reservations = 0;  ///< rows in the copy
  std::int64_t commit_decisions = 0;
  std::int64_t grid_jobs = 0;
};

/// Copies the database at `source` (an existing store, in use or not) to `destination`, which
/// must not exist yet, and checks the copy (`PRAGMA integrity_check`). Errors name the file
/// and what failed; a failed copy leaves no destination behind.
result<backup_report> backup_store(const std::string& source, const std::string& destination);

}  // namespace arbroker
