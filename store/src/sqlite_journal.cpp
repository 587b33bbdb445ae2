#include "arbroker/store/sqlite_journal.hpp"
#include "sqlite_statements.hpp"
#include "write_pipeline.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <utility>

namespace arbroker {
namespace {

// Bumped whenever the tables change; open() refuses a database from a newer build.
// 2: grid_jobs; 3: reservations.account; 4: laxity window; 5: reservations.finished (history);
// 6: reservations.created and the requested window (window_start, window_end);
// 7: grid_jobs.ended (grid-job history); 8: lrms_claims and node_settings (the node's names
// in each LRMS and its identity); 9: events (what watchers are told)
constexpr int schema_version = 9;

constexpr const char* schema = R"sql(
CREATE TABLE IF NOT EXISTS reservations (
  id TEXT PRIMARY KEY,
  cluster TEXT NOT NULL,
  seq INTEGER NOT NULL,
  owner TEXT NOT NULL,
  txn TEXT NOT NULL,
  lrms_id TEXT NOT NULL,
  start INTEGER NOT NULL,
  "end" INTEGER NOT NULL,
  np INTEGER NOT NULL,
  state INTEGER NOT NULL,
  expiry INTEGER NOT NULL,
  admitted_after INTEGER NOT NULL,
  cost REAL NOT NULL,
  account TEXT NOT NULL DEFAULT '',
  earliest INTEGER NOT NULL DEFAULT 0,
  deadline INTEGER NOT NULL DEFAULT 0,
  finished INTEGER NOT NULL DEFAULT 0,
  created INTEGER NOT NULL DEFAULT 0,
  window_start INTEGER NOT NULL DEFAULT 0,
  window_end INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS reservations_by_cluster ON reservations(cluster, seq);
CREATE TABLE IF NOT EXISTS commit_decisions (txn TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS grid_jobs (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  owner TEXT NOT NULL,
  active INTEGER NOT NULL,
  body BLOB NOT NULL,
  ended INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS lrms_claims (
  cluster TEXT PRIMARY KEY,
  prefix TEXT NOT NULL,
  lease INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS node_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  owner TEXT NOT NULL,
  cluster TEXT NOT NULL,
  state TEXT NOT NULL,
  start INTEGER NOT NULL,
  "end" INTEGER NOT NULL,
  np INTEGER NOT NULL,
  what TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_at ON events(at);
)sql";

}  // namespace

using namespace sqlite_detail;

result<std::unique_ptr<sqlite_journal>> sqlite_journal::open(const std::string& path,
                                                             journal_options options) {
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags,
                      options.vfs.empty() ? nullptr : options.vfs.c_str()) != SQLITE_OK) {
    auto e = sql_error(db, path, "cannot open");
    sqlite3_close(db);
    return e;
  }
  std::unique_ptr<sqlite_journal> j{new sqlite_journal(path, db, options.sync)};
  sqlite3_busy_timeout(db, 5000);
  auto exec = [&](const char* sql, const char* what) -> status {
    char* msg = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
      std::string m = msg ? msg : "unknown error";
      sqlite3_free(msg);
      return error{errc::storage_failure, "store " + path + ": " + what + ": " + m};
    }
    return {};
  };
  // Reading the version first also tells a file that is not a database.
  sqlite3_stmt* v = nullptr;
  if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &v, nullptr) != SQLITE_OK)
    return sql_error(db, path, "not a database");
  int version = 0;
  if (sqlite3_step(v) == SQLITE_ROW) version = sqlite3_column_int(v, 0);
  const int rc = sqlite3_finalize(v);
  if (rc != SQLITE_OK) return sql_error(db, path, "not a database");
  if (version > schema_version)
    return error{errc::storage_failure,
                 "store " + path + ": schema version " + std::to_string(version) +
                     " is newer than this build (" + std::to_string(schema_version) + ")"};
  if (path != ":memory:") {
    if (auto ok = exec("PRAGMA journal_mode=WAL", "cannot enable WAL"); !ok) return ok.err();
  }
  // Commits reach the OS only (crash-consistent); under durability::full the syncer makes
  // them durable before anyone answers for them, one sync for many commits.
  if (auto ok = exec("PRAGMA synchronous=NORMAL", "cannot set synchronous"); !ok) return ok.err();
  if (auto ok = exec(schema, "cannot create tables"); !ok) return ok.err();
  // A store of schema 1 or 2 has its reservations without an account: add the column.
  if (version > 0 && version < 3) {
    if (auto ok = exec("ALTER TABLE reservations ADD COLUMN account TEXT NOT NULL DEFAULT ''",
                       "cannot add reservations.account");
        !ok)
      return ok.err();
  }
  // Before schema 4 no reservation had a window it may move within (paper 002): 0, rigid.
  if (version > 0 && version < 4) {
    if (auto ok = exec("ALTER TABLE reservations ADD COLUMN earliest INTEGER NOT NULL DEFAULT 0",
                       "cannot add reservations.earliest");
        !ok)
      return ok.err();
    if (auto ok = exec("ALTER TABLE reservations ADD COLUMN deadline INTEGER NOT NULL DEFAULT 0",
                       "cannot add reservations.deadline");
        !ok)
      return ok.err();
  }
  // Before schema 5 a finished reservation had no end time of its own and stayed in memory:
  // those that ended are history from their end on.
  if (version > 0 && version < 5) {
    if (auto ok = exec("ALTER TABLE reservations ADD COLUMN finished INTEGER NOT NULL DEFAULT 0",
                       "cannot add reservations.finished");
        !ok)
      return ok.err();
    std::string terminal;
    for (int n = 0; n <= static_cast<int>(reservation_state::expired); ++n)
      if (is_terminal(static_cast<reservation_state>(n)))
        terminal += (terminal.empty() ? "" : ", ") + std::to_string(n);
    const std::string mark =
        "UPDATE reservations SET finished = MAX(\"end\", 1) WHERE state IN (" + terminal + ")";
    if (auto ok = exec(mark.c_str(), "cannot mark finished reservations"); !ok) return ok.err();
  }
  // Before schema 6 no row said when it was created or what window its client asked for:
  // 0, unknown.
  if (version > 0 && version < 6) {
    for (const char* column : {"created", "window_start", "window_end"}) {
      const std::string add = std::string("ALTER TABLE reservations ADD COLUMN ") + column +
                              " INTEGER NOT NULL DEFAULT 0";
      if (auto ok = exec(add.c_str(), "cannot add a column to reservations"); !ok) return ok.err();
    }
  }
  // Before schema 7 a grid job's row did not say when it ended: those no longer active count
  // as ended at the upgrade, so that they are kept for the retention from then on.
  // (A store of schema 1 had no grid_jobs table: the schema above made it, with the column.)
  if (version > 0 && version < 7) {
    sqlite3_stmt* has = nullptr;
    if (sqlite3_prepare_v2(db,
                           "SELECT COUNT(*) FROM pragma_table_info('grid_jobs') WHERE name = "
                           "'ended'",
                           -1, &has, nullptr) != SQLITE_OK)
      return sql_error(db, path, "cannot read the grid_jobs columns");
    const bool there = sqlite3_step(has) == SQLITE_ROW && sqlite3_column_int(has, 0) > 0;
    sqlite3_finalize(has);
    if (!there) {
      if (auto ok = exec("ALTER TABLE grid_jobs ADD COLUMN ended INTEGER NOT NULL DEFAULT 0",
                         "cannot add grid_jobs.ended");
          !ok)
        return ok.err();
    }
    if (auto ok = exec("UPDATE grid_jobs SET ended = CAST(strftime('%s', 'now') AS INTEGER) "
                       "WHERE active = 0",
                       "cannot mark ended grid jobs");
        !ok)
      return ok.err();
  }
  // Live rows of a cluster (recovery), a user's and everyone's history by end time.
  if (auto ok = exec("CREATE INDEX IF NOT EXISTS reservations_live ON reservations(cluster, "
                     "finished, seq); CREATE INDEX IF NOT EXISTS reservations_history ON "
                     "reservations(owner, finished); CREATE INDEX IF NOT EXISTS "
                     "reservations_finished ON reservations(finished); CREATE INDEX IF NOT "
                     "EXISTS grid_jobs_active ON grid_jobs(active, seq); CREATE INDEX IF NOT "
                     "EXISTS grid_jobs_ended ON grid_jobs(ended)",
                     "cannot create indexes");
      !ok)
    return ok.err();
  if (auto ok = exec(("PRAGMA user_version=" + std::to_string(schema_version)).c_str(),
                     "cannot set schema version");
      !ok)
    return ok.err();

  auto& s = *j->st_;
  // The columns of a reservation_row, in read_rows' order.
  const std::string row_columns =
      "SELECT id, cluster, owner, txn, lrms_id, start, \"end\", np, state, expiry, "
      "admitted_after, cost, account, earliest, deadline, finished, created, window_start, "
      "window_end FROM reservations ";
  const std::pair<sqlite3_stmt**, std::string> stmts[] = {
      {&s.save,
       "INSERT OR REPLACE INTO reservations (id, cluster, seq, owner, txn, lrms_id, start, "
       "\"end\", np, state, expiry, admitted_after, cost, account, earliest, deadline, "
       "finished, created, window_start, window_end) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
       "?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)"},
      {&s.forget, "DELETE FROM reservations WHERE id = ?1"},
      {&s.rows_of, row_columns + "WHERE cluster = ?1 AND finished = 0 ORDER BY seq"},
      {&s.last_serial, "SELECT COALESCE(MAX(seq), 0) FROM reservations WHERE cluster = ?1"},
      {&s.find, row_columns + "WHERE id = ?1"},
      // Keyset pages, newest end first: (finished, id) below the cursor ?2, ?3 (0: none).
      {&s.history_of, row_columns +
                          "WHERE owner = ?1 AND finished > 0 AND (?5 = '' OR cluster = ?5) AND "
                          "(?2 = 0 OR finished < ?2 OR (finished = ?2 AND id < ?3)) "
                          "ORDER BY finished DESC, id DESC LIMIT ?4"},
      {&s.history_all, row_columns +
                           "WHERE finished > 0 AND (?5 = '' OR cluster = ?5) AND (?2 = 0 OR "
                           "finished < ?2 OR (finished = ?2 AND id < ?3)) "
                           "ORDER BY finished DESC, id DESC LIMIT ?4"},
      {&s.purge,
       "DELETE FROM reservations WHERE cluster = ?1 AND finished > 0 AND finished < ?2 AND "
       "seq < (SELECT MAX(seq) FROM reservations WHERE cluster = ?1)"},
      {&s.claim_of, "SELECT prefix, lease FROM lrms_claims WHERE cluster = ?1"},
      {&s.save_claim,
       "INSERT OR REPLACE INTO lrms_claims (cluster, prefix, lease) VALUES (?1, ?2, ?3)"},
      {&s.setting, "SELECT value FROM node_settings WHERE key = ?1"},
      {&s.save_setting, "INSERT OR REPLACE INTO node_settings (key, value) VALUES (?1, ?2)"},
      {&s.log_commit, "INSERT OR IGNORE INTO commit_decisions (txn) VALUES (?1)"},
      {&s.forget_commit, "DELETE FROM commit_decisions WHERE txn = ?1"},
      {&s.commits, "SELECT txn FROM commit_decisions ORDER BY txn"},
      {&s.save_grid_job,
       "INSERT OR REPLACE INTO grid_jobs (id, seq, owner, active, body, ended) VALUES "
       "(?1, ?2, ?3, ?4, ?5, ?6)"},
      {&s.grid_jobs,
       "SELECT id, owner, active, body, ended FROM grid_jobs WHERE active = 1 ORDER BY seq"},
      {&s.find_grid_job, "SELECT id, owner, active, body, ended FROM grid_jobs WHERE id = ?1"},
      {&s.last_grid_job, "SELECT COALESCE(MAX(seq), 0) FROM grid_jobs"},
      // Keyset pages of ended jobs, most recently ended first: (ended, id) below ?2, ?3.
      {&s.ended_grid_jobs,
       "SELECT id, owner, active, body, ended FROM grid_jobs WHERE active = 0 AND ended > 0 "
       "AND (?1 = '' OR owner = ?1) AND (?2 = 0 OR ended < ?2 OR (ended = ?2 AND id < ?3)) "
       "ORDER BY ended DESC, id DESC LIMIT ?4"},
      {&s.purge_grid_jobs,
       "DELETE FROM grid_jobs WHERE active = 0 AND ended > 0 AND ended < ?1 AND seq < (SELECT "
       "MAX(seq) FROM grid_jobs)"},
      // AUTOINCREMENT: an id is never given again, also after the newest were purged.
      {&s.save_event,
       "INSERT INTO events (at, kind, subject, owner, cluster, state, start, \"end\", np, what) "
       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"},
      {&s.events_after,
       "SELECT id, at, kind, subject, owner, cluster, state, start, \"end\", np, what FROM events "
       "WHERE id > ?1 ORDER BY id LIMIT ?2"},
      {&s.events_kept,
       "SELECT COALESCE((SELECT MIN(id) FROM events), 0), COALESCE((SELECT seq FROM "
       "sqlite_sequence WHERE name = 'events'), 0)"},
      {&s.purge_events, "DELETE FROM events WHERE at < ?1"},
      // IMMEDIATE: the write lock at once, so a commit never fails for a reader's upgrade.
      {&s.begin, "BEGIN IMMEDIATE"},
      {&s.commit, "COMMIT"},
      {&s.rollback, "ROLLBACK"},
  };
  for (const auto& [slot, sql] : stmts) {
    if (sqlite3_prepare_v3(db, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, slot, nullptr) !=
        SQLITE_OK)
      return sql_error(db, path, "cannot prepare statement");
  }
  return j;
}

sqlite_journal::sqlite_journal(std::string path, sqlite3* db, durability sync)
    : path_(std::move(path)), db_(db), st_(std::make_unique<statements>()), sync_(sync) {
  pipeline_ = std::make_unique<store_detail::write_pipeline>(
      path_, [this](std::vector<std::function<status()>>& batch) { return commit_batch(batch); });
}

sqlite_journal::~sqlite_journal() {
  pipeline_->stop();  // after the queue is written (and synced)
  st_.reset();        // statements before the connection
  sqlite3_close(db_);
}

status sqlite_journal::run(sqlite3_stmt* st, const char* what, const std::string& subject) {
  const int rc = sqlite3_step(st);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if (rc != SQLITE_DONE)
    return sql_error(db_, path_, subject.empty() ? what : std::string(what) + " " + subject);
  return {};
}

void sqlite_journal::when_durable(write_ticket ticket, std::function<void(status)> done) {
  pipeline_->when_durable(ticket, std::move(done));
}

result<std::vector<event_row>> sqlite_journal::commit_batch(
    std::vector<std::function<status()>>& batch) {
  // Commits reach the OS (synchronous=NORMAL); under full one sync of the WAL then covers
  // every write of the batch.
  std::lock_guard db{db_mu_};
  batch_events_.clear();
  if (auto ok = run(st_->begin, "cannot begin a transaction"); !ok) return ok.err();
  for (auto& w : batch) {
    if (auto ok = w(); !ok) {
      (void)run(st_->rollback, "cannot roll back");
      return ok.err();
    }
  }
  if (auto ok = run(st_->commit, "cannot commit"); !ok) {
    (void)run(st_->rollback, "cannot roll back");
    return ok.err();
  }
  if (sync_ == durability::full) {
    if (auto ok = sync_wal(); !ok) return ok.err();
    ++syncs_;
  }
  return std::exchange(batch_events_, {});
}

status sqlite_journal::sync_wal() {
  // The WAL (SQLite's journal file of this connection); not open yet: nothing was written.
  sqlite3_file* wal = nullptr;
  if (sqlite3_file_control(db_, "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal) != SQLITE_OK || !wal ||
      !wal->pMethods)
    return {};
  if (wal->pMethods->xSync(wal, SQLITE_SYNC_NORMAL) != SQLITE_OK)
    return error{errc::storage_failure, "store " + path_ + ": cannot sync the write-ahead log"};
  return {};
}

std::size_t sqlite_journal::waiting_for_sync() const {
  return pipeline_->waiting();
}

std::uint64_t sqlite_journal::syncs() const {
  return syncs_;
}

}  // namespace arbroker
