#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "arbroker/store/store.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace arbroker {
namespace store_detail {
class write_pipeline;
}

/// The journal (reservations, commit decisions, grid jobs) in one SQLite database file in WAL
/// mode, on one connection, written by one writer thread: writes are queued (each with a
/// ticket), and the writer commits everything queued at once as one transaction
/// (`synchronous=NORMAL`: crash-consistent, in the OS), then under durability::full syncs the
/// WAL. The blocking writes (`save`, `log_commit`, `save_grid_job`) wait until their ticket is
/// durable; `save_pipelined` and `log_commit_pipelined` return at once with the ticket for
/// `when_durable`. One sync covers every write committed before it, however many threads wrote
/// (group commit), and no caller thread runs SQLite for a write. A failed commit or sync is never
/// retried (after a failed fsync the OS may have dropped the pages): the journal is then broken and
/// every waiting and later write fails. Reads first wait for the writes queued before them.
class sqlite_journal final : public node_store {
 public:
  /// Opens or creates the database at `path` (":memory:" for tests). Errors name the file
  /// and what SQLite said, e.g. a directory that does not exist or a file that is not a
  /// database, or a schema newer than this build.
  static result<std::unique_ptr<sqlite_journal>> open(const std::string& path,
                                                      journal_options options = {});

  /// Syncs what is still waiting, then closes.
  ~sqlite_journal() override;
  sqlite_journal(const sqlite_journal&) = delete;
  sqlite_journal& operator=(const sqlite_journal&) = delete;

  status save(const reservation_row& row) override;
  result<write_ticket> save_pipelined(const reservation_row& row) override;
  void when_durable(write_ticket ticket, std::function<void(status)> done) override;
  status forget(const std::string& id) override;
  result<std::vector<reservation_row>> rows_of(const std::string& cluster) override;
  result<std::uint64_t> last_serial(const std::string& cluster) override;
  result<std::optional<reservation_row>> find(const std::string& id) override;
  result<std::vector<reservation_row>> finished_rows(const history_query& q) override;
  status purge_finished(const std::string& cluster, timestamp before) override;
  result<std::optional<lrms_claim>> claim_of(const std::string& cluster) override;
  status save_claim(const std::string& cluster, const lrms_claim& claim) override;
  result<std::string> node_id() override;
  status save_node_id(const std::string& id) override;
  status log_commit(const std::string& txn) override;
  result<write_ticket> log_commit_pipelined(const std::string& txn) override;
  status forget_commit(const std::string& txn) override;
  result<std::vector<std::string>> commits() override;
  status save_grid_job(const grid_job_row& row) override;
  status save_grid_jobs(std::span<const grid_job_row> rows) override;
  result<std::vector<grid_job_row>> grid_jobs() override;
  result<std::optional<grid_job_row>> find_grid_job(const std::string& id) override;
  result<std::vector<grid_job_row>> ended_grid_jobs(const history_query& q) override;
  result<std::uint64_t> last_grid_job_serial() override;
  status purge_grid_jobs(timestamp before) override;
  result<std::vector<event_row>> events_after(std::uint64_t after, std::size_t limit) override;
  result<event_span> events_kept() override;
  status purge_events(timestamp before) override;
  void set_event_listener(std::function<void(std::vector<event_row>)> listener) override;
  std::string where() const override { return path_; }

  /// Writers and callbacks waiting for a sync (for tests of the group commit).
  std::size_t waiting_for_sync() const;
  /// Syncs of the WAL made so far.
  std::uint64_t syncs() const;

 private:
  struct statements;

  sqlite_journal(std::string path, sqlite3* db, durability sync);
  /// Runs one statement of a write (on the writer thread); an error says `what` and, when
  /// given, `subject` (composed only then: this runs for every row).
  status run(sqlite3_stmt* st, const char* what, const std::string& subject = {});
  /// A read that sees every write queued before it: the pipeline flushed, then `f` under
  /// db_mu_.
  template <class F>
  auto read(F f) -> decltype(f());
  /// One batch of the pipeline (writer thread): one transaction, then under full one sync of
  /// the WAL; the events it wrote.
  result<std::vector<event_row>> commit_batch(std::vector<std::function<status()>>& batch);
  /// Writes events with the batch being written (writer thread): each gets its id, and
  /// the listener has them once the batch is durable.
  status write_events(std::vector<event_row> events);
  status sync_wal();
  /// The rows a prepared SELECT of reservation columns yields (bindings done by the caller),
  /// under db_mu_; the statement is reset afterwards.
  result<std::vector<reservation_row>> read_rows(sqlite3_stmt* st);
  result<std::vector<grid_job_row>> read_grid_jobs(sqlite3_stmt* st);
  /// The one number a prepared `SELECT COALESCE(MAX(seq), 0) ...` yields, under db_mu_.
  result<std::uint64_t> read_serial(sqlite3_stmt* st, const char* what);

  std::string path_;
  sqlite3* db_;
  std::unique_ptr<statements> st_;
  const durability sync_;
  std::mutex db_mu_;                      ///< the connection: the writer's batches, or a read
  std::vector<event_row> batch_events_;   ///< the writer's: of the batch being written
  std::atomic<std::uint64_t> syncs_ = 0;  ///< the writer's
  /// Last: the writer thread, started once everything above exists, stopped first.
  std::unique_ptr<store_detail::write_pipeline> pipeline_;
};

}  // namespace arbroker
