#include "arbroker/store/sqlite_journal.hpp"

#include <sqlite3.h>

#include <algorithm>

namespace arbroker {
namespace {

// Bumped whenever the tables change; open() refuses a database from a newer build.
// 2: grid_jobs; 3: reservations.account; 4: laxity window; 5: reservations.finished (history);
// 6: reservations.created and the requested window (window_start, window_end);
// 7: grid_jobs.ended (grid-job history); 8: lrms_claims and node_settings (the node's names
// in each LRMS and its identity)
constexpr int schema_version = 8;

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
)sql";

error sql_error(sqlite3* db, const std::string& path, const std::string& what) {
  return {errc::storage_failure,
          "store " + path + ": " + what + ": " + (db ? sqlite3_errmsg(db) : "out of memory")};
}

// The number after the last '/' of an id, for ordering ("berlin/10" after "berlin/9").
std::int64_t seq_of(const std::string& id) {
  const auto slash = id.rfind('/');
  std::int64_t n = 0;
  for (std::size_t i = slash == std::string::npos ? 0 : slash + 1; i < id.size(); ++i) {
    if (id[i] < '0' || id[i] > '9') return 0;
    n = n * 10 + (id[i] - '0');
  }
  return n;
}

void bind_text(sqlite3_stmt* st, int i, const std::string& s) {
  sqlite3_bind_text(st, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
}

std::string column_text(sqlite3_stmt* st, int i) {
  const auto* p = sqlite3_column_text(st, i);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         static_cast<std::size_t>(sqlite3_column_bytes(st, i)))
           : std::string();
}

}  // namespace

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
  sqlite3_stmt* begin = nullptr;  // the writer's batches
  sqlite3_stmt* commit = nullptr;
  sqlite3_stmt* rollback = nullptr;

  ~statements() {
    for (auto* s :
         {save,          forget,          rows_of,         last_serial,   find,      history_of,
          history_all,   purge,           claim_of,        save_claim,    setting,   save_setting,
          log_commit,    forget_commit,   commits,         save_grid_job, grid_jobs, find_grid_job,
          last_grid_job, purge_grid_jobs, ended_grid_jobs, begin,         commit,    rollback})
      sqlite3_finalize(s);
  }
};

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
  writer_ = std::thread([this] { write_loop(); });
}

sqlite_journal::~sqlite_journal() {
  {
    std::lock_guard lock{mu_};
    stopping_ = true;
  }
  work_.notify_one();
  writer_.join();  // after the queue is written (and synced)
  st_.reset();     // statements before the connection
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

result<write_ticket> sqlite_journal::enqueue(std::function<status()> op) {
  std::unique_lock lock{mu_};
  // Backpressure: a disk slower than the writers makes them wait here, not memory grow.
  room_.wait(lock, [&] { return queue_.size() < max_queued || broken_ || stopping_; });
  if (broken_) return *broken_;
  if (stopping_) return error{errc::storage_failure, "store " + path_ + ": closing"};
  const write_ticket t = ++enqueued_;
  queue_.push_back({t, std::move(op)});
  work_.notify_one();
  return t;
}

write_ticket sqlite_journal::durable_locked() const {
  return sync_ == durability::full ? synced_ : committed_;
}

status sqlite_journal::wait_durable(write_ticket ticket) {
  std::unique_lock lock{mu_};
  ++blocked_;
  done_.wait(lock, [&] { return durable_locked() >= ticket || broken_; });
  --blocked_;
  if (durable_locked() >= ticket) return {};
  return *broken_;
}

void sqlite_journal::when_durable(write_ticket ticket, std::function<void(status)> done) {
  status now_known;
  {
    std::lock_guard lock{mu_};
    if (durable_locked() < ticket && !broken_) {
      callbacks_.emplace(ticket, std::move(done));
      return;
    }
    if (durable_locked() < ticket) now_known = *broken_;
  }
  done(now_known);
}

status sqlite_journal::flush() {
  std::unique_lock lock{mu_};
  const write_ticket last = enqueued_;
  done_.wait(lock, [&] { return committed_ >= last || broken_; });
  if (committed_ >= last) return {};
  return *broken_;
}

status sqlite_journal::commit_batch(std::vector<queued_write>& batch) {
  if (auto ok = run(st_->begin, "cannot begin a transaction"); !ok) return ok;
  for (auto& w : batch) {
    if (auto ok = w.op(); !ok) {
      (void)run(st_->rollback, "cannot roll back");
      return ok;
    }
  }
  if (auto ok = run(st_->commit, "cannot commit"); !ok) {
    (void)run(st_->rollback, "cannot roll back");
    return ok;
  }
  return {};
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

void sqlite_journal::write_loop() {
  std::unique_lock lock{mu_};
  for (;;) {
    work_.wait(lock, [&] { return stopping_ || broken_ || !queue_.empty(); });
    if (broken_ || (stopping_ && queue_.empty())) break;
    // Everything queued by now is one transaction and, under full, one sync; writes that
    // arrive meanwhile, the next.
    std::vector<queued_write> batch;
    batch.swap(queue_);
    room_.notify_all();
    const write_ticket last = batch.back().ticket;
    const bool sync = sync_ == durability::full;
    lock.unlock();
    status ok;
    {
      std::lock_guard db{db_mu_};
      ok = commit_batch(batch);
      if (ok && sync) ok = sync_wal();
    }
    batch.clear();
    lock.lock();
    if (!ok) {
      // Never retried: after a failed sync the OS may have dropped pages, and a failed
      // commit leaves the engine ahead of the store. A restart recovers from the disk.
      broken_ = ok.err();
    } else {
      committed_ = last;
      if (sync) {
        synced_ = last;
        ++syncs_;
      }
    }
    // Callbacks run outside the lock (they may send messages); none may call the journal.
    std::vector<std::pair<std::function<void(status)>, status>> ready;
    const write_ticket durable = durable_locked();
    for (auto it = callbacks_.begin(); it != callbacks_.end();) {
      if (it->first <= durable)
        ready.emplace_back(std::move(it->second), status{});
      else if (broken_)
        ready.emplace_back(std::move(it->second), status{*broken_});
      else
        break;
      it = callbacks_.erase(it);
    }
    done_.notify_all();
    room_.notify_all();
    lock.unlock();
    for (auto& [cb, result] : ready)
      cb(result);
    lock.lock();
  }
  // Broken: nothing more is written; whoever still waits learns why.
  std::vector<std::function<void(status)>> left;
  for (auto& [t, cb] : callbacks_)
    left.push_back(std::move(cb));
  callbacks_.clear();
  const status why = broken_ ? status{*broken_} : status{};
  done_.notify_all();
  room_.notify_all();
  lock.unlock();
  for (auto& cb : left)
    cb(why);
}

std::size_t sqlite_journal::waiting_for_sync() const {
  std::lock_guard lock{mu_};
  return blocked_ + callbacks_.size();
}

std::uint64_t sqlite_journal::syncs() const {
  std::lock_guard lock{mu_};
  return syncs_;
}

status sqlite_journal::write_and_wait(std::function<status()> op) {
  auto t = enqueue(std::move(op));
  if (!t) return t.err();
  return wait_durable(*t);
}

status sqlite_journal::write_later(std::function<status()> op) {
  auto t = enqueue(std::move(op));
  return t ? status{} : status{t.err()};
}

status sqlite_journal::save(const reservation_row& r) {
  auto t = save_pipelined(r);
  if (!t) return t.err();
  return wait_durable(*t);
}

result<write_ticket> sqlite_journal::save_pipelined(const reservation_row& row) {
  return enqueue([this, r = row] {
    auto* st = st_->save;
    bind_text(st, 1, r.id);
    bind_text(st, 2, r.cluster);
    sqlite3_bind_int64(st, 3, seq_of(r.id));
    bind_text(st, 4, r.owner);
    bind_text(st, 5, r.txn);
    bind_text(st, 6, r.lrms_id);
    sqlite3_bind_int64(st, 7, r.start);
    sqlite3_bind_int64(st, 8, r.end);
    sqlite3_bind_int(st, 9, r.np);
    sqlite3_bind_int(st, 10, static_cast<int>(r.state));
    sqlite3_bind_int64(st, 11, r.expiry);
    sqlite3_bind_int64(st, 12, r.admitted_after);
    sqlite3_bind_double(st, 13, r.cost);
    bind_text(st, 14, r.account);
    sqlite3_bind_int64(st, 15, r.earliest);
    sqlite3_bind_int64(st, 16, r.deadline);
    sqlite3_bind_int64(st, 17, r.finished);
    sqlite3_bind_int64(st, 18, r.created);
    sqlite3_bind_int64(st, 19, r.window_start);
    sqlite3_bind_int64(st, 20, r.window_end);
    return run(st, "cannot save reservation", r.id);
  });
}

status sqlite_journal::forget(const std::string& id) {
  return write_later([this, id] {
    bind_text(st_->forget, 1, id);
    return run(st_->forget, "cannot forget a reservation");
  });
}

result<std::vector<reservation_row>> sqlite_journal::read_rows(sqlite3_stmt* st) {
  std::vector<reservation_row> out;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    reservation_row r;
    r.id = column_text(st, 0);
    r.cluster = column_text(st, 1);
    r.owner = column_text(st, 2);
    r.txn = column_text(st, 3);
    r.lrms_id = column_text(st, 4);
    r.start = sqlite3_column_int64(st, 5);
    r.end = sqlite3_column_int64(st, 6);
    r.np = sqlite3_column_int(st, 7);
    const int state = sqlite3_column_int(st, 8);
    r.expiry = sqlite3_column_int64(st, 9);
    r.admitted_after = sqlite3_column_int64(st, 10);
    r.cost = sqlite3_column_double(st, 11);
    r.account = column_text(st, 12);
    r.earliest = sqlite3_column_int64(st, 13);
    r.deadline = sqlite3_column_int64(st, 14);
    r.finished = sqlite3_column_int64(st, 15);
    r.created = sqlite3_column_int64(st, 16);
    r.window_start = sqlite3_column_int64(st, 17);
    r.window_end = sqlite3_column_int64(st, 18);
    if (state < 0 || state > static_cast<int>(reservation_state::expired)) {
      sqlite3_reset(st);
      sqlite3_clear_bindings(st);
      return error{errc::storage_failure, "store " + path_ + ": reservation " + r.id +
                                              " has unknown state " + std::to_string(state)};
    }
    r.state = static_cast<reservation_state>(state);
    out.push_back(std::move(r));
  }
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if (rc != SQLITE_DONE) return sql_error(db_, path_, "cannot read reservations");
  return out;
}

result<std::vector<reservation_row>> sqlite_journal::rows_of(const std::string& cluster) {
  if (auto ok = flush(); !ok) return ok.err();  // what was written before is read
  std::lock_guard lock{db_mu_};
  bind_text(st_->rows_of, 1, cluster);
  return read_rows(st_->rows_of);
}

result<std::uint64_t> sqlite_journal::last_serial(const std::string& cluster) {
  if (auto ok = flush(); !ok) return ok.err();
  std::lock_guard lock{db_mu_};
  bind_text(st_->last_serial, 1, cluster);
  return read_serial(st_->last_serial, "cannot read the last reservation id");
}

result<std::uint64_t> sqlite_journal::read_serial(sqlite3_stmt* st, const char* what) {
  const int rc = sqlite3_step(st);
  const auto n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if (rc != SQLITE_ROW) return sql_error(db_, path_, what);
  return static_cast<std::uint64_t>(std::max<std::int64_t>(n, 0));
}

result<std::optional<reservation_row>> sqlite_journal::find(const std::string& id) {
  if (auto ok = flush(); !ok) return ok.err();
  std::lock_guard lock{db_mu_};
  bind_text(st_->find, 1, id);
  auto rows = read_rows(st_->find);
  if (!rows) return rows.err();
  if (rows->empty()) return std::optional<reservation_row>();
  return std::optional<reservation_row>(std::move(rows->front()));
}

result<std::vector<reservation_row>> sqlite_journal::finished_rows(const history_query& q) {
  if (auto ok = flush(); !ok) return ok.err();
  std::lock_guard lock{db_mu_};
  auto* st = q.owner.empty() ? st_->history_all : st_->history_of;
  if (!q.owner.empty()) bind_text(st, 1, q.owner);
  sqlite3_bind_int64(st, 2, q.before);
  bind_text(st, 3, q.before_id);
  sqlite3_bind_int64(st, 4, static_cast<std::int64_t>(q.limit));
  bind_text(st, 5, q.cluster);
  return read_rows(st);
}

status sqlite_journal::purge_finished(const std::string& cluster, timestamp before) {
  return write_later([this, cluster, before] {
    bind_text(st_->purge, 1, cluster);
    sqlite3_bind_int64(st_->purge, 2, before);
    return run(st_->purge, "cannot purge finished reservations of", cluster);
  });
}

result<std::optional<lrms_claim>> sqlite_journal::claim_of(const std::string& cluster) {
  if (auto ok = flush(); !ok) return ok.err();
  std::lock_guard lock{db_mu_};
  auto* st = st_->claim_of;
  bind_text(st, 1, cluster);
  std::optional<lrms_claim> out;
  const int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW)
    out = lrms_claim{column_text(st, 0), static_cast<std::uint64_t>(std::max<std::int64_t>(
                                             sqlite3_column_int64(st, 1), 0))};
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return sql_error(db_, path_, "cannot read the claim of cluster " + cluster);
  return out;
}

status sqlite_journal::save_claim(const std::string& cluster, const lrms_claim& claim) {
  return write_and_wait([this, cluster, claim] {
    auto* st = st_->save_claim;
    bind_text(st, 1, cluster);
    bind_text(st, 2, claim.prefix);
    sqlite3_bind_int64(st, 3, static_cast<std::int64_t>(claim.lease));
    return run(st, "cannot save the claim of cluster", cluster);
  });
}

result<std::string> sqlite_journal::node_id() {
  if (auto ok = flush(); !ok) return ok.err();
  std::lock_guard lock{db_mu_};
  auto* st = st_->setting;
  bind_text(st, 1, "id");
  std::string out;
  const int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) out = column_text(st, 0);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return sql_error(db_, path_, "cannot read the node id");
  return out;
}

status sqlite_journal::save_node_id(const std::string& id) {
  return write_and_wait([this, id] {
    auto* st = st_->save_setting;
    bind_text(st, 1, "id");
    bind_text(st, 2, id);
    return run(st, "cannot save the node id", id);
  });
}

status sqlite_journal::log_commit(const std::string& txn) {
  auto t = log_commit_pipelined(txn);
  if (!t) return t.err();
  return wait_durable(*t);
}

result<write_ticket> sqlite_journal::log_commit_pipelined(const std::string& txn) {
  return enqueue([this, txn] {
    bind_text(st_->log_commit, 1, txn);
    return run(st_->log_commit, "cannot log a commit decision");
  });
}

status sqlite_journal::forget_commit(const std::string& txn) {
  return write_later([this, txn] {
    bind_text(st_->forget_commit, 1, txn);
    return run(st_->forget_commit, "cannot forget a commit decision");
  });
}

result<std::vector<std::string>> sqlite_journal::commits() {
  if (auto ok = flush(); !ok) return ok.err();
  std::lock_guard lock{db_mu_};
  auto* st = st_->commits;
  std::vector<std::string> out;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    out.push_back(column_text(st, 0));
  sqlite3_reset(st);
  if (rc != SQLITE_DONE) return sql_error(db_, path_, "cannot read commit decisions");
  return out;
}

status sqlite_journal::save_grid_job(const grid_job_row& row) {
  return write_and_wait([this, r = row] {
    auto* st = st_->save_grid_job;
    bind_text(st, 1, r.id);
    sqlite3_bind_int64(st, 2, seq_of(r.id.substr(r.id.rfind('/') + 2)));  // "<node>/g<n>"
    bind_text(st, 3, r.owner);
    sqlite3_bind_int(st, 4, r.active ? 1 : 0);
    sqlite3_bind_blob(st, 5, r.body.data(), static_cast<int>(r.body.size()), SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 6, r.ended);
    return run(st, "cannot save grid job", r.id);
  });
}

result<std::vector<grid_job_row>> sqlite_journal::read_grid_jobs(sqlite3_stmt* st) {
  std::vector<grid_job_row> out;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    grid_job_row r;
    r.id = column_text(st, 0);
    r.owner = column_text(st, 1);
    r.active = sqlite3_column_int(st, 2) != 0;
    const auto* p = static_cast<const char*>(sqlite3_column_blob(st, 3));
    r.body.assign(p ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(st, 3)));
    r.ended = sqlite3_column_int64(st, 4);
    out.push_back(std::move(r));
  }
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if (rc != SQLITE_DONE) return sql_error(db_, path_, "cannot read grid jobs");
  return out;
}

result<std::vector<grid_job_row>> sqlite_journal::grid_jobs() {
  if (auto ok = flush(); !ok) return ok.err();
  std::lock_guard lock{db_mu_};
  return read_grid_jobs(st_->grid_jobs);
}

result<std::optional<grid_job_row>> sqlite_journal::find_grid_job(const std::string& id) {
  if (auto ok = flush(); !ok) return ok.err();
  std::lock_guard lock{db_mu_};
  bind_text(st_->find_grid_job, 1, id);
  auto rows = read_grid_jobs(st_->find_grid_job);
  if (!rows) return rows.err();
  if (rows->empty()) return std::optional<grid_job_row>();
  return std::optional<grid_job_row>(std::move(rows->front()));
}

result<std::vector<grid_job_row>> sqlite_journal::ended_grid_jobs(const history_query& q) {
  if (auto ok = flush(); !ok) return ok.err();
  std::lock_guard lock{db_mu_};
  auto* st = st_->ended_grid_jobs;
  bind_text(st, 1, q.owner);
  sqlite3_bind_int64(st, 2, q.before);
  bind_text(st, 3, q.before_id);
  sqlite3_bind_int64(st, 4, static_cast<sqlite3_int64>(q.limit));
  return read_grid_jobs(st);
}

result<std::uint64_t> sqlite_journal::last_grid_job_serial() {
  if (auto ok = flush(); !ok) return ok.err();
  std::lock_guard lock{db_mu_};
  return read_serial(st_->last_grid_job, "cannot read the last grid job id");
}

status sqlite_journal::purge_grid_jobs(timestamp before) {
  return write_later([this, before] {
    sqlite3_bind_int64(st_->purge_grid_jobs, 1, before);
    return run(st_->purge_grid_jobs, "cannot purge ended grid jobs");
  });
}

}  // namespace arbroker
