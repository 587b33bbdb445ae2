#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "arbroker/store/journal.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace arbroker {

/// How far a write has gone when the journal returns (SQLite's `synchronous`).
enum class durability {
  /// On disk: the WAL is synced before a write returns, so an acknowledged reservation and a
  /// logged commit decision survive an OS crash or a power cut. Concurrent writers share one
  /// sync (group commit).
  full,
  /// In the OS: survives a crash of the process (kill -9); after an OS crash or a power cut the
  /// last transactions may be lost, and recovery then deletes their LRMS reservations.
  normal,
};

struct journal_options {
  durability sync = durability::full;
  /// SQLite VFS to open the file with ("" = the system's); tests pass a recording one.
  std::string vfs;
};

/// The journal (reservations, commit decisions, grid jobs) in one SQLite database file in WAL
/// mode. One connection. Writes are queued and run in order by one writer at a time (the
/// leader), which takes every write queued behind it into the same transaction: one commit,
/// one sync, however many threads wrote (LevelDB's writer queue). A write returns when its
/// transaction has committed, i.e. when it is as durable as `journal_options::sync` says.
class sqlite_journal final : public reservation_journal, public grid_job_journal {
 public:
  /// Opens or creates the database at `path` (":memory:" for tests). Errors name the file
  /// and what SQLite said, e.g. a directory that does not exist or a file that is not a
  /// database, or a schema newer than this build.
  static result<std::unique_ptr<sqlite_journal>> open(const std::string& path,
                                                      journal_options options = {});

  ~sqlite_journal() override;
  sqlite_journal(const sqlite_journal&) = delete;
  sqlite_journal& operator=(const sqlite_journal&) = delete;

  status save(const reservation_row& row) override;
  status forget(const std::string& id) override;
  result<std::vector<reservation_row>> rows_of(const std::string& cluster) override;
  status log_commit(const std::string& txn) override;
  status forget_commit(const std::string& txn) override;
  result<std::vector<std::string>> commits() override;
  status save_grid_job(const grid_job_row& row) override;
  result<std::vector<grid_job_row>> grid_jobs() override;

  /// Writes queued behind the one being committed (for tests of the group commit).
  std::size_t waiting_writes() const;
  /// Transactions committed by writes so far (one per group).
  std::uint64_t write_transactions() const;

 private:
  struct statements;
  struct writer;
  sqlite_journal(std::string path, sqlite3* db);
  /// Runs one statement of a write inside the leader's transaction.
  status run(sqlite3_stmt* st, const char* what);
  /// Queues `op` (binds and runs statements on the connection) and returns its outcome once
  /// the transaction holding it has committed.
  status write(const std::function<status()>& op);
  /// The leader's part: one transaction over `group`, each write's outcome in its writer.
  void commit_group(const std::vector<writer*>& group);

  std::string path_;
  sqlite3* db_;
  std::unique_ptr<statements> st_;
  mutable std::mutex queue_mu_;  ///< guards queue_ and the writers' outcomes
  std::deque<writer*> queue_;    ///< front: the leader or the next one
  std::uint64_t transactions_ = 0;
  std::mutex db_mu_;  ///< the connection: the leader's transaction, or one read
};

}  // namespace arbroker
