#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "arbroker/store/journal.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace arbroker {

/// The journal (reservations, commit decisions, grid jobs) in one SQLite database file in WAL mode
/// with synchronous=NORMAL: a committed write survives a crash of the process (kill -9), which is
/// what a broker node must survive; after a power loss the last transactions may be lost. One
/// connection guarded by a mutex; every write is its own transaction (a few tens of microseconds).
class sqlite_journal final : public reservation_journal, public grid_job_journal {
 public:
  /// Opens or creates the database at `path` (":memory:" for tests). Errors name the file
  /// and what SQLite said, e.g. a directory that does not exist or a file that is not a
  /// database, or a schema newer than this build.
  static result<std::unique_ptr<sqlite_journal>> open(const std::string& path);

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

 private:
  struct statements;
  sqlite_journal(std::string path, sqlite3* db);
  status run(sqlite3_stmt* st, const char* what);

  std::string path_;
  sqlite3* db_;
  std::unique_ptr<statements> st_;
  std::mutex mu_;
};

}  // namespace arbroker
