#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "arbroker/store/store.hpp"

namespace arbroker {
namespace store_detail {
class write_pipeline;
class pg_connection;
class pg_params;
}  // namespace store_detail

/// The node's store in a PostgreSQL database (libpq), with the rows, the promises and the
/// write pipeline of the SQLite one (sqlite_journal.hpp): writes are queued, each with a
/// ticket, and one writer thread commits everything queued at once as one transaction on
/// its own connection; a write counts as done once its COMMIT returned, which under
/// durability::full (synchronous_commit=on) is once the server's WAL is flushed (and its
/// synchronous standbys', if it has them). A failed batch is never retried: the journal is
/// broken and every waiting and later write fails (a restart recovers from what the database
/// has). Reads run on a second connection, after the writes queued before them.
///
/// One node writes a database at a time: the writer's connection holds a session advisory
/// lock, and a second node opening the same database is refused. The tables live in the
/// connection's schema (search_path); open() creates them or upgrades them, and refuses a
/// schema newer than this build.
class postgresql_journal final : public node_store {
 public:
  /// Opens the database `uri` names (a libpq connection URI, "postgresql://user@host:port/db").
  /// Errors name the URI without its password and say what PostgreSQL said. With a
  /// `lease_epoch` (postgresql_lease.hpp: taken before), the writer registers with the
  /// lease, so that a node taking it over can end its session, and every batch is fenced
  /// by that epoch: once the lease moved on, writes fail (the journal is broken).
  static result<std::unique_ptr<postgresql_journal>> open(const std::string& uri,
                                                          durability sync = durability::full,
                                                          std::uint64_t lease_epoch = 0);

  /// Commits what is still queued, then closes both connections.
  ~postgresql_journal() override;
  postgresql_journal(const postgresql_journal&) = delete;
  postgresql_journal& operator=(const postgresql_journal&) = delete;

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
  std::string where() const override { return where_; }

  /// Batches committed so far (for tests of the group commit).
  std::uint64_t commits_made() const;

 private:
  using connection = store_detail::pg_connection;
  postgresql_journal(std::string where, std::unique_ptr<connection> writer,
                     std::unique_ptr<connection> reader, std::uint64_t last_event,
                     std::uint64_t lease_epoch);
  /// One batch of the pipeline (writer thread): one transaction; the events it wrote.
  result<std::vector<event_row>> commit_batch(std::vector<std::function<status()>>& batch);
  /// Adds events to the batch being written (writer thread), each with the next id; they are
  /// saved together at its end (save_events).
  status write_events(std::vector<event_row> events);
  /// Sends the insert of every event of the batch, one statement (writer thread).
  status save_events();
  /// Sends the reservations saved since the last call, one statement (writer thread): before
  /// any other write to the reservations and at the end of the batch.
  status save_pending();
  /// The row a reservation's save replaces, for its events (writer thread): known from the
  /// writes of this session, else as committed.
  result<std::optional<reservation_row>> row_before(const std::string& id);
  /// Runs `f(reader)` on the reading connection, which sees what is committed (opened again
  /// first when its session ended).
  template <class F>
  auto read_committed(F f) -> decltype(f(std::declval<connection&>()));
  /// read_committed after the writes queued before it.
  template <class F>
  auto read(F f) -> decltype(f(std::declval<connection&>()));
  /// read() of one prepared statement's rows, made into a result by `convert`.
  template <class Convert>
  auto query(const char* name, const store_detail::pg_params& p, const std::string& what,
             Convert convert);

  std::string where_;
  std::unique_ptr<connection> writer_;  ///< the writer thread's (and open()'s)
  std::mutex read_mu_;
  std::unique_ptr<connection> reader_;   ///< under read_mu_
  std::uint64_t last_event_ = 0;         ///< the writer's: the last event id given
  const std::uint64_t lease_epoch_;      ///< the epoch every batch is fenced by (0: none)
  std::vector<event_row> batch_events_;  ///< the writer's: of the batch being written
  /// The writer's: rows of the batch's saves not sent yet (save_pending).
  std::vector<reservation_row> pending_saves_;
  /// The writer's: the latest row of each live reservation it wrote (nullopt: forgotten), so
  /// that a save's events need no read before it (the writes of a batch are pipelined); a
  /// row finished or forgotten is dropped once its batch is committed (`settled_`).
  std::unordered_map<std::string, std::optional<reservation_row>> known_;
  std::vector<std::string> settled_;
  /// The writer's: per cluster, an id number at least as high as any the store has.
  std::unordered_map<std::string, std::int64_t> highest_;
  /// The ids of the reservations queued for a save, for the writer to read the rows they
  /// replace in one query per batch (rather than one per new row) before it pipelines them.
  std::mutex wanted_mu_;
  std::vector<std::string> wanted_;  ///< under wanted_mu_
  /// The writer's: reads the rows the saves queued so far replace into known_.
  status learn_rows_before();
  std::atomic<std::uint64_t> commits_made_ = 0;
  /// Last: the writer thread, started once everything above exists, stopped first.
  std::unique_ptr<store_detail::write_pipeline> pipeline_;
};

}  // namespace arbroker
