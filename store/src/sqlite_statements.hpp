#pragma once

// What the two halves of sqlite_journal share (private to store/): the prepared statements
// and the helpers that bind and read them. sqlite_journal.cpp opens the database and runs the
// write pipeline; sqlite_records.cpp reads and writes the records.

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "arbroker/store/sqlite_journal.hpp"
#include "row_ids.hpp"

namespace arbroker {
namespace sqlite_detail {

using store_detail::grid_job_seq_of;
using store_detail::seq_of;
using store_detail::wall_clock_now;

inline error sql_error(sqlite3* db, const std::string& path, const std::string& what) {
  return {errc::storage_failure,
          "store " + path + ": " + what + ": " + (db ? sqlite3_errmsg(db) : "out of memory")};
}

inline void bind_text(sqlite3_stmt* st, int i, const std::string& s) {
  sqlite3_bind_text(st, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
}

inline std::string column_text(sqlite3_stmt* st, int i) {
  const auto* p = sqlite3_column_text(st, i);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         static_cast<std::size_t>(sqlite3_column_bytes(st, i)))
           : std::string();
}

}  // namespace sqlite_detail

struct sqlite_journal::statements {
  sqlite3_stmt* save = nullptr;
  sqlite3_stmt* forget = nullptr;
  sqlite3_stmt* rows_of = nullptr;
  sqlite3_stmt* last_serial = nullptr;
  sqlite3_stmt* find = nullptr;
  sqlite3_stmt* history_of = nullptr;
  sqlite3_stmt* history_all = nullptr;
  sqlite3_stmt* purge = nullptr;
  sqlite3_stmt* claim_of = nullptr;
  sqlite3_stmt* save_claim = nullptr;
  sqlite3_stmt* setting = nullptr;
  sqlite3_stmt* save_setting = nullptr;
  sqlite3_stmt* log_commit = nullptr;
  sqlite3_stmt* forget_commit = nullptr;
  sqlite3_stmt* commits = nullptr;
  sqlite3_stmt* save_grid_job = nullptr;
  sqlite3_stmt* grid_jobs = nullptr;
  sqlite3_stmt* find_grid_job = nullptr;
  sqlite3_stmt* last_grid_job = nullptr;
  sqlite3_stmt* purge_grid_jobs = nullptr;
  sqlite3_stmt* ended_grid_jobs = nullptr;
  sqlite3_stmt* save_event = nullptr;
  sqlite3_stmt* events_after = nullptr;
  sqlite3_stmt* events_kept = nullptr;
  sqlite3_stmt* purge_events = nullptr;
  sqlite3_stmt* begin = nullptr;  // the writer's batches
  sqlite3_stmt* commit = nullptr;
  sqlite3_stmt* rollback = nullptr;

  ~statements() {
    for (auto* s : {save,
                    forget,
                    rows_of,
                    last_serial,
                    find,
                    history_of,
                    history_all,
                    purge,
                    claim_of,
                    save_claim,
                    setting,
                    save_setting,
                    log_commit,
                    forget_commit,
                    commits,
                    save_grid_job,
                    grid_jobs,
                    find_grid_job,
                    last_grid_job,
                    purge_grid_jobs,
                    ended_grid_jobs,
                    save_event,
                    events_after,
                    events_kept,
                    purge_events,
                    begin,
                    commit,
                    rollback})
      sqlite3_finalize(s);
  }
};

}  // namespace arbroker
