// sqlite_journal's records: reservations and their history, LRMS claims, the node's
// settings, commit decisions and grid jobs. Each write goes through the write pipeline
// (sqlite_journal.cpp); reads run on the caller's thread under the journal's lock.
#include <algorithm>

#include "arbroker/store/sqlite_journal.hpp"
#include "sqlite_statements.hpp"
#include "write_pipeline.hpp"

namespace arbroker {

using namespace sqlite_detail;

namespace {

/// The first of the rows a lookup by primary key read, if any.
template <class Row>
result<std::optional<Row>> first_of(result<std::vector<Row>> rows) {
  if (!rows) return rows.err();
  if (rows->empty()) return std::optional<Row>();
  return std::optional<Row>(std::move(rows->front()));
}

}  // namespace

template <class F>
auto sqlite_journal::read(F f) -> decltype(f()) {
  if (auto ok = pipeline_->flush(); !ok) return ok.err();
  std::lock_guard lock{db_mu_};
  return f();
}

status sqlite_journal::save(const reservation_row& r) {
  auto t = save_pipelined(r);
  if (!t) return t.err();
  return pipeline_->wait_durable(*t);
}

result<write_ticket> sqlite_journal::save_pipelined(const reservation_row& row) {
  return pipeline_->enqueue([this, r = row]() -> status {
    // The row it replaces tells what changed (the writer holds the connection: a read by
    // primary key in the batch's transaction).
    bind_text(st_->find, 1, r.id);
    auto before = first_of(read_rows(st_->find));
    if (!before) return before.err();
    if (auto ok = write_events(reservation_events(*before, r, wall_clock_now())); !ok) return ok;
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
  return pipeline_->write_later([this, id] {
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
  return read([&]() -> result<std::vector<reservation_row>> {
    bind_text(st_->rows_of, 1, cluster);
    return read_rows(st_->rows_of);
  });
}

result<std::uint64_t> sqlite_journal::last_serial(const std::string& cluster) {
  return read([&]() -> result<std::uint64_t> {
    bind_text(st_->last_serial, 1, cluster);
    return read_serial(st_->last_serial, "cannot read the last reservation id");
  });
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
  return read([&]() -> result<std::optional<reservation_row>> {
    bind_text(st_->find, 1, id);
    return first_of(read_rows(st_->find));
  });
}

result<std::vector<reservation_row>> sqlite_journal::finished_rows(const history_query& q) {
  return read([&]() -> result<std::vector<reservation_row>> {
    auto* st = q.owner.empty() ? st_->history_all : st_->history_of;
    if (!q.owner.empty()) bind_text(st, 1, q.owner);
    sqlite3_bind_int64(st, 2, q.before);
    bind_text(st, 3, q.before_id);
    sqlite3_bind_int64(st, 4, static_cast<std::int64_t>(q.limit));
    bind_text(st, 5, q.cluster);
    return read_rows(st);
  });
}

status sqlite_journal::purge_finished(const std::string& cluster, timestamp before) {
  return pipeline_->write_later([this, cluster, before] {
    bind_text(st_->purge, 1, cluster);
    sqlite3_bind_int64(st_->purge, 2, before);
    return run(st_->purge, "cannot purge finished reservations of", cluster);
  });
}

result<std::optional<lrms_claim>> sqlite_journal::claim_of(const std::string& cluster) {
  return read([&]() -> result<std::optional<lrms_claim>> {
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
  });
}

status sqlite_journal::save_claim(const std::string& cluster, const lrms_claim& claim) {
  return pipeline_->write_and_wait([this, cluster, claim] {
    auto* st = st_->save_claim;
    bind_text(st, 1, cluster);
    bind_text(st, 2, claim.prefix);
    sqlite3_bind_int64(st, 3, static_cast<std::int64_t>(claim.lease));
    return run(st, "cannot save the claim of cluster", cluster);
  });
}

result<std::string> sqlite_journal::node_id() {
  return read([&]() -> result<std::string> {
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
  });
}

status sqlite_journal::save_node_id(const std::string& id) {
  return pipeline_->write_and_wait([this, id] {
    auto* st = st_->save_setting;
    bind_text(st, 1, "id");
    bind_text(st, 2, id);
    return run(st, "cannot save the node id", id);
  });
}

status sqlite_journal::log_commit(const std::string& txn) {
  auto t = log_commit_pipelined(txn);
  if (!t) return t.err();
  return pipeline_->wait_durable(*t);
}

result<write_ticket> sqlite_journal::log_commit_pipelined(const std::string& txn) {
  return pipeline_->enqueue([this, txn] {
    bind_text(st_->log_commit, 1, txn);
    return run(st_->log_commit, "cannot log a commit decision");
  });
}

status sqlite_journal::forget_commit(const std::string& txn) {
  return pipeline_->write_later([this, txn] {
    bind_text(st_->forget_commit, 1, txn);
    return run(st_->forget_commit, "cannot forget a commit decision");
  });
}

result<std::vector<std::string>> sqlite_journal::commits() {
  return read([&]() -> result<std::vector<std::string>> {
    auto* st = st_->commits;
    std::vector<std::string> out;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
      out.push_back(column_text(st, 0));
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) return sql_error(db_, path_, "cannot read commit decisions");
    return out;
  });
}

status sqlite_journal::save_grid_job(const grid_job_row& row) {
  return save_grid_jobs(std::span(&row, 1));
}

// One queued write, so one transaction: the writer commits a batch of writes at once, and a
// failed write breaks the store before anything after it is committed.
status sqlite_journal::save_grid_jobs(std::span<const grid_job_row> rows) {
  return pipeline_->write_and_wait([this,
                                    rs = std::vector<grid_job_row>(rows.begin(), rows.end())] {
    auto* st = st_->save_grid_job;
    for (const auto& r : rs) {
      bind_text(st, 1, r.id);
      sqlite3_bind_int64(st, 2, grid_job_seq_of(r.id));  // "<node>/g<n>"
      bind_text(st, 3, r.owner);
      sqlite3_bind_int(st, 4, r.active ? 1 : 0);
      sqlite3_bind_blob(st, 5, r.body.data(), static_cast<int>(r.body.size()), SQLITE_TRANSIENT);
      sqlite3_bind_int64(st, 6, r.ended);
      if (auto ok = run(st, "cannot save grid job", r.id); !ok) return ok;
      if (auto ok = write_events(r.events); !ok) return ok;
    }
    return status{};
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
  return read(
      [&]() -> result<std::vector<grid_job_row>> { return read_grid_jobs(st_->grid_jobs); });
}

result<std::optional<grid_job_row>> sqlite_journal::find_grid_job(const std::string& id) {
  return read([&]() -> result<std::optional<grid_job_row>> {
    bind_text(st_->find_grid_job, 1, id);
    return first_of(read_grid_jobs(st_->find_grid_job));
  });
}

result<std::vector<grid_job_row>> sqlite_journal::ended_grid_jobs(const history_query& q) {
  return read([&]() -> result<std::vector<grid_job_row>> {
    auto* st = st_->ended_grid_jobs;
    bind_text(st, 1, q.owner);
    sqlite3_bind_int64(st, 2, q.before);
    bind_text(st, 3, q.before_id);
    sqlite3_bind_int64(st, 4, static_cast<sqlite3_int64>(q.limit));
    return read_grid_jobs(st);
  });
}

result<std::uint64_t> sqlite_journal::last_grid_job_serial() {
  return read([&]() -> result<std::uint64_t> {
    return read_serial(st_->last_grid_job, "cannot read the last grid job id");
  });
}

status sqlite_journal::purge_grid_jobs(timestamp before) {
  return pipeline_->write_later([this, before] {
    sqlite3_bind_int64(st_->purge_grid_jobs, 1, before);
    return run(st_->purge_grid_jobs, "cannot purge ended grid jobs");
  });
}

}  // namespace arbroker

namespace arbroker {

status sqlite_journal::write_events(std::vector<event_row> events) {
  auto* st = st_->save_event;
  for (auto& e : events) {
    sqlite3_bind_int64(st, 1, e.at);
    bind_text(st, 2, e.kind);
    bind_text(st, 3, e.subject);
    bind_text(st, 4, e.owner);
    bind_text(st, 5, e.cluster);
    bind_text(st, 6, e.state);
    sqlite3_bind_int64(st, 7, e.start);
    sqlite3_bind_int64(st, 8, e.end);
    sqlite3_bind_int(st, 9, e.np);
    bind_text(st, 10, e.what);
    if (auto ok = run(st, "cannot save an event of", e.subject); !ok) return ok;
    e.id = static_cast<std::uint64_t>(sqlite3_last_insert_rowid(db_));
    batch_events_.push_back(std::move(e));
  }
  return {};
}

result<std::vector<event_row>> sqlite_journal::events_after(std::uint64_t after,
                                                            std::size_t limit) {
  return read([&]() -> result<std::vector<event_row>> {
    auto* st = st_->events_after;
    sqlite3_bind_int64(st, 1, static_cast<sqlite3_int64>(after));
    sqlite3_bind_int64(st, 2, static_cast<sqlite3_int64>(limit));
    std::vector<event_row> out;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      event_row e;
      e.id = static_cast<std::uint64_t>(sqlite3_column_int64(st, 0));
      e.at = sqlite3_column_int64(st, 1);
      e.kind = column_text(st, 2);
      e.subject = column_text(st, 3);
      e.owner = column_text(st, 4);
      e.cluster = column_text(st, 5);
      e.state = column_text(st, 6);
      e.start = sqlite3_column_int64(st, 7);
      e.end = sqlite3_column_int64(st, 8);
      e.np = sqlite3_column_int(st, 9);
      e.what = column_text(st, 10);
      out.push_back(std::move(e));
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) return sql_error(db_, path_, "cannot read events");
    return out;
  });
}

result<event_span> sqlite_journal::events_kept() {
  return read([&]() -> result<event_span> {
    auto* st = st_->events_kept;
    const int rc = sqlite3_step(st);
    event_span span;
    if (rc == SQLITE_ROW) {
      const auto first = static_cast<std::uint64_t>(sqlite3_column_int64(st, 0));
      span.last = static_cast<std::uint64_t>(sqlite3_column_int64(st, 1));
      span.first = first == 0 ? span.last + 1 : first;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_ROW) return sql_error(db_, path_, "cannot read the events kept");
    return span;
  });
}

status sqlite_journal::purge_events(timestamp before) {
  return pipeline_->write_later([this, before] {
    sqlite3_bind_int64(st_->purge_events, 1, before);
    return run(st_->purge_events, "cannot purge events");
  });
}

void sqlite_journal::set_event_listener(std::function<void(std::vector<event_row>)> listener) {
  pipeline_->set_listener(std::move(listener));
}

}  // namespace arbroker
