#include "arbroker/store/postgresql_journal.hpp"

#include <string_view>
#include <utility>

#include "postgresql_connection.hpp"
#include "postgresql_statements.hpp"
#include "write_pipeline.hpp"

namespace arbroker {
namespace {

using store_detail::pg_connection;
using store_detail::pg_params;
using store_detail::pg_result;

// Bumped whenever the tables change; open() refuses a database from a newer build. 1: the
// rows of the SQLite store's schema 9 (reservations with their history and windows, commit
// decisions, grid jobs, LRMS claims, the node's settings, events).
constexpr int schema_version = 1;

// Ids and transaction names order as bytes (COLLATE "C"), as in the SQLite store, whatever
// the database's locale; an event id is given by the single writer (event_ids.last), so ids
// are increasing in commit order and never given twice, also after a purge.
constexpr const char* schema_v1 = R"sql(
CREATE TABLE reservations (
  id TEXT COLLATE "C" PRIMARY KEY,
  cluster TEXT NOT NULL,
  seq BIGINT NOT NULL,
  owner TEXT NOT NULL,
  txn TEXT NOT NULL,
  lrms_id TEXT NOT NULL,
  start BIGINT NOT NULL,
  "end" BIGINT NOT NULL,
  np INTEGER NOT NULL,
  state INTEGER NOT NULL,
  expiry BIGINT NOT NULL,
  admitted_after BIGINT NOT NULL,
  cost DOUBLE PRECISION NOT NULL,
  account TEXT NOT NULL,
  earliest BIGINT NOT NULL,
  deadline BIGINT NOT NULL,
  finished BIGINT NOT NULL,
  created BIGINT NOT NULL,
  window_start BIGINT NOT NULL,
  window_end BIGINT NOT NULL
);
CREATE INDEX reservations_by_cluster ON reservations (cluster, seq);
CREATE INDEX reservations_live ON reservations (cluster, finished, seq);
CREATE INDEX reservations_history ON reservations (owner, finished);
CREATE INDEX reservations_finished ON reservations (finished);
CREATE TABLE commit_decisions (txn TEXT COLLATE "C" PRIMARY KEY);
CREATE TABLE grid_jobs (
  id TEXT COLLATE "C" PRIMARY KEY,
  seq BIGINT NOT NULL,
  owner TEXT NOT NULL,
  active BOOLEAN NOT NULL,
  body BYTEA NOT NULL,
  ended BIGINT NOT NULL
);
CREATE INDEX grid_jobs_active ON grid_jobs (active, seq);
CREATE INDEX grid_jobs_ended ON grid_jobs (ended);
CREATE TABLE lrms_claims (cluster TEXT PRIMARY KEY, prefix TEXT NOT NULL, lease BIGINT NOT NULL);
CREATE TABLE node_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE events (
  id BIGINT PRIMARY KEY,
  at BIGINT NOT NULL,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  owner TEXT NOT NULL,
  cluster TEXT NOT NULL,
  state TEXT NOT NULL,
  start BIGINT NOT NULL,
  "end" BIGINT NOT NULL,
  np INTEGER NOT NULL,
  what TEXT NOT NULL
);
CREATE INDEX events_at ON events (at);
CREATE TABLE event_ids (last BIGINT NOT NULL);
INSERT INTO event_ids VALUES (0);
)sql";

// Creates the tables in a new database, upgrades an older one (none yet: version 1 is the
// first), refuses a newer one. The caller holds the store's advisory lock: no other node
// creates them meanwhile.
status settle_schema(pg_connection& c) {
  if (auto ok = c.exec("CREATE TABLE IF NOT EXISTS arb_schema (version INTEGER NOT NULL)",
                       "cannot create the schema table");
      !ok)
    return ok;
  if (auto ok = c.prepare("schema_version", "SELECT version FROM arb_schema LIMIT 1"); !ok)
    return ok;
  auto v = c.run("schema_version", pg_params{}, "cannot read the schema version");
  if (!v) return v.err();
  const int version =
      PQntuples(v->get()) > 0 ? static_cast<int>(store_detail::pg_number(v->get(), 0, 0)) : 0;
  if (version > schema_version)
    return fail(errc::storage_failure, "store " + c.where() + ": schema version " +
                                           std::to_string(version) + " is newer than this build (" +
                                           std::to_string(schema_version) + ")");
  if (version == schema_version) return {};
  // version 0: a new database.
  const std::string create = std::string("BEGIN;") + schema_v1 + "INSERT INTO arb_schema VALUES (" +
                             std::to_string(schema_version) + "); COMMIT;";
  if (auto ok = c.exec(create.c_str(), "cannot create tables"); !ok) {
    (void)c.exec("ROLLBACK", "cannot roll back");
    return ok;
  }
  return {};
}

// Connects and makes the connection the store's: its notices dropped (CREATE ... IF NOT
// EXISTS says "already exists"), its commits as durable as asked.
result<std::unique_ptr<pg_connection>> connect(const std::string& uri, const std::string& where,
                                               durability sync, const char* role) {
  auto c = pg_connection::connect(uri, where, role);
  if (!c) return c.err();
  auto conn = std::make_unique<pg_connection>(std::move(*c));
  PQsetNoticeProcessor(
      conn->raw(), [](void*, const char*) {}, nullptr);
  const char* commit_mode =
      sync == durability::full ? "SET synchronous_commit = on" : "SET synchronous_commit = off";
  if (auto ok = conn->exec(commit_mode, "cannot set synchronous_commit"); !ok) return ok.err();
  return conn;
}

// One node writes a store at a time: a session advisory lock, held as long as the writer's
// session lives. A node restarted after a crash may find its old session not yet ended by
// the server: it waits for the lock a few seconds before it says the store is in use.
status lock_store(pg_connection& c) {
  if (auto ok = c.exec("SET lock_timeout = '5s'", "cannot set lock_timeout"); !ok) return ok;
  pg_result r(PQexec(c.raw(), "SELECT pg_advisory_lock(hashtext('arbroker:' || current_schema()))"),
              &PQclear);
  if (!r || PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
    const char* state = r ? PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) : nullptr;
    if (state && std::string_view(state) == "55P03")  // lock_not_available
      return fail(errc::storage_failure,
                  "store " + c.where() +
                      ": in use by another node (it holds the store's advisory lock); one node "
                      "writes a store at a time");
    return c.failure("cannot take the store's lock", r.get());
  }
  return c.exec("RESET lock_timeout", "cannot reset lock_timeout");
}

}  // namespace

result<std::unique_ptr<postgresql_journal>> postgresql_journal::open(const std::string& uri,
                                                                     durability sync,
                                                                     std::uint64_t lease_epoch) {
  const std::string where = redact_uri(uri);
  auto writer = connect(uri, where, sync, "arbroker writer");
  if (!writer) return writer.err();
  auto& w = **writer;
  if (auto ok = lock_store(w); !ok) return ok.err();
  if (auto ok = settle_schema(w); !ok) return ok.err();
  auto reader = connect(uri, where, sync, "arbroker reader");
  if (!reader) return reader.err();
  if (auto ok = store_detail::prepare_statements(w); !ok) return ok.err();
  if (lease_epoch != 0) {
    // The writer under the lease: named in its row (a node taking the lease over ends this
    // session), every batch fenced by the epoch.
    if (auto ok = w.prepare("fence", "SELECT arb_fence($1::bigint)"); !ok) return ok.err();
    if (auto ok = w.prepare("register_writer",
                            "UPDATE arb_lease SET writer = pg_backend_pid() WHERE epoch = "
                            "$1::bigint RETURNING epoch");
        !ok)
      return ok.err();
    auto mine = w.run("register_writer", pg_params{}.number(static_cast<std::int64_t>(lease_epoch)),
                      "cannot register with the lease");
    if (!mine) return mine.err();
    if (PQntuples(mine->get()) == 0)
      return fail(errc::storage_failure, "store " + where + ": epoch " +
                                             std::to_string(lease_epoch) +
                                             " is not the lease's (another node took it over)");
  }
  if (auto ok = store_detail::prepare_reader(**reader); !ok) return ok.err();
  auto last = w.run("last_event", pg_params{}, "cannot read the last event id");
  if (!last) return last.err();
  const auto last_event =
      PQntuples(last->get()) > 0
          ? static_cast<std::uint64_t>(store_detail::pg_number(last->get(), 0, 0))
          : 0;
  return std::unique_ptr<postgresql_journal>(new postgresql_journal(
      where, std::move(*writer), std::move(*reader), last_event, lease_epoch));
}

postgresql_journal::postgresql_journal(std::string where, std::unique_ptr<connection> writer,
                                       std::unique_ptr<connection> reader, std::uint64_t last_event,
                                       std::uint64_t lease_epoch)
    : where_(std::move(where)),
      writer_(std::move(writer)),
      reader_(std::move(reader)),
      last_event_(last_event),
      lease_epoch_(lease_epoch) {
  pipeline_ = std::make_unique<store_detail::write_pipeline>(
      where_, [this](std::vector<std::function<status()>>& batch) { return commit_batch(batch); });
}

postgresql_journal::~postgresql_journal() {
  pipeline_->stop();  // after the queue is committed; the connections close after
}

void postgresql_journal::when_durable(write_ticket ticket, std::function<void(status)> done) {
  pipeline_->when_durable(ticket, std::move(done));
}

std::uint64_t postgresql_journal::commits_made() const {
  return commits_made_;
}

result<std::vector<event_row>> postgresql_journal::commit_batch(
    std::vector<std::function<status()>>& batch) {
  // The whole batch pipelined, one transaction: BEGIN, every write, COMMIT, sent without
  // waiting for each result (a round trip per chunk of statements, not per statement).
  batch_events_.clear();
  pending_saves_.clear();
  settled_.clear();
  const auto last_event = last_event_;
  if (auto ok = learn_rows_before(); !ok) return ok.err();
  if (auto ok = writer_->begin_pipeline(); !ok) return ok.err();
  status written = writer_->send("BEGIN", "cannot begin a transaction");
  if (written && lease_epoch_ != 0)  // holds off a new epoch until this batch committed
    written = writer_->send("fence", pg_params{}.number(static_cast<std::int64_t>(lease_epoch_)),
                            "cannot write under epoch " + std::to_string(lease_epoch_));
  for (auto& w : batch) {
    if (!written) break;
    written = w();
  }
  if (written) written = save_pending();
  if (written && !batch_events_.empty()) written = save_events();
  if (written && last_event_ != last_event)
    written =
        writer_->send("save_last_event", pg_params{}.number(static_cast<std::int64_t>(last_event_)),
                      "cannot save the last event id");
  // Returns once the commit is durable (synchronous_commit=on) or with the server (off).
  if (written) written = writer_->send("COMMIT", "cannot commit");
  const auto sent = writer_->end_pipeline();
  if (!written || !sent) {
    (void)writer_->exec("ROLLBACK", "cannot roll back");
    last_event_ = last_event;
    known_.clear();  // what the batch wrote is not there: read again (the store is broken anyway)
    return !written ? written.err() : sent.err();
  }
  for (const auto& id : settled_)
    known_.erase(id);
  ++commits_made_;
  return std::exchange(batch_events_, {});
}

status postgresql_journal::write_events(std::vector<event_row> events) {
  for (auto& e : events) {
    e.id = ++last_event_;
    batch_events_.push_back(std::move(e));
  }
  return {};
}

status postgresql_journal::save_events() {
  store_detail::pg_array id, at, kind, subject, owner, cluster, state, start, end, np, what;
  for (const auto& e : batch_events_) {
    id.number(static_cast<std::int64_t>(e.id));
    at.number(e.at);
    kind.text(e.kind);
    subject.text(e.subject);
    owner.text(e.owner);
    cluster.text(e.cluster);
    state.text(e.state);
    start.number(e.start);
    end.number(e.end);
    np.number(e.np);
    what.text(e.what);
  }
  return writer_->send(
      "save_events",
      store_detail::pg_params{}
          .text(id.literal())
          .text(at.literal())
          .text(kind.literal())
          .text(subject.literal())
          .text(owner.literal())
          .text(cluster.literal())
          .text(state.literal())
          .text(start.literal())
          .text(end.literal())
          .text(np.literal())
          .text(what.literal()),
      "cannot save the batch's " + std::to_string(batch_events_.size()) + " events");
}

}  // namespace arbroker
