#pragma once

// What a broker node must remember across a crash, and the interface to the store that
// remembers it. Cluster services write a reservation's row before they answer for it; the
// co-reservation coordinator logs its commit decision before it sends a commit. Everything
// else (views, candidates, workers) is rebuilt from these and from the LRMS on restart.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/reservation_state.hpp"
#include "arbroker/core/time.hpp"
#include "arbroker/store/events.hpp"

namespace arbroker {

/// One reservation as the store keeps it: the latest terms and state the service answered
/// for. committed -> active is not written (it follows from start); the end of a reservation
/// (completed, cancelled, expired, ...) is, with the time it ended: from then on the row is
/// history, which lives only in the store (the services forget finished reservations).
struct reservation_row {
  std::string id;       ///< "<cluster>/<n>"
  std::string cluster;  ///< owning cluster service
  std::string owner;
  std::string txn;      ///< transaction that created it (co-reservation attempt or worker)
  std::string lrms_id;  ///< the LRMS's id of the reservation holding the terms
  timestamp start = 0;
  timestamp end = 0;
  int np = 0;
  reservation_state state = reservation_state::requested;
  timestamp expiry = 0;  ///< of a hold (state accepted)
  timestamp admitted_after = 0;
  double cost = 0;
  std::string account = {};  ///< charged in the LRMS (schema 3)
  /// Paper 002: the window a laxity cluster may move it within (schema 4); deadline 0: rigid.
  timestamp earliest = 0;
  timestamp deadline = 0;
  /// When it reached its terminal state (schema 5); 0: live (a hold or a reservation to run).
  timestamp finished = 0;
  /// When its hold was granted, and the window its client asked for (the request's
  /// earliest start and latest end; 0: not known) (schema 6).
  timestamp created = 0;
  timestamp window_start = 0;
  timestamp window_end = 0;

  friend bool operator==(const reservation_row&, const reservation_row&) = default;
};

/// A page of history: finished reservations, the most recently finished first.
struct history_query {
  std::string owner;  ///< empty: every owner's
  /// Keyset cursor: only rows that finished before (before, before_id) in the page order;
  /// before = 0: from the newest.
  timestamp before = 0;
  std::string before_id = {};
  std::size_t limit = 100;
  std::string cluster = {};  ///< empty: every cluster's
};

/// What a node claims in one cluster's LRMS (schema 8): the prefix of the names its
/// reservations have there, and the lease: every id number it may have given a reservation
/// in the LRMS is below it. Recovery deletes what it finds there under the prefix with a
/// number below the lease and no row (a hold made just before a crash); a name at or above
/// it was made by someone else (another node with the same prefix), which a node neither
/// deletes nor silently takes over.
struct lrms_claim {
  std::string prefix;
  std::uint64_t lease = 0;

  friend bool operator==(const lrms_claim&, const lrms_claim&) = default;
};

/// Names a write of a journal: it is durable once the journal says so (0: durable already).
using write_ticket = std::uint64_t;

/// The durable store of a broker node. Implementations are safe to call from several
/// threads at once (one cluster service per actor). `save` and `log_commit` are durable when
/// they return (their pipelined forms once when_durable says so); `forget` and `forget_commit` need
/// not be (a row that comes back after a crash is one recovery settles again).
class reservation_journal {
 public:
  virtual ~reservation_journal() = default;

  /// Inserts or replaces the row with this id.
  virtual status save(const reservation_row& row) = 0;

  /// The pipelined form of save(): returns once the row is written, possibly before it is
  /// durable, with the ticket to wait for. Whoever answers for the row answers only after
  /// `when_durable(ticket)` called back, so a thread is not held for the disk. Default:
  /// save(), durable at once.
  virtual result<write_ticket> save_pipelined(const reservation_row& row) {
    if (auto ok = save(row); !ok) return ok.err();
    return write_ticket{0};
  }

  /// Calls `done` once every write up to `ticket` is durable (ok) or can never be (why), at
  /// once or later on another thread; `done` must not call back into the journal. Default:
  /// at once.
  virtual void when_durable(write_ticket ticket, std::function<void(status)> done) {
    (void)ticket;
    done({});
  }

  /// Forgets a row. Unknown ids are fine.
  virtual status forget(const std::string& id) = 0;

  /// The live rows (finished == 0) of one cluster, ordered by id number: what a service
  /// recovers.
  virtual result<std::vector<reservation_row>> rows_of(const std::string& cluster) = 0;

  /// The highest id number the cluster ever gave that the store still knows (0: none), so
  /// that a restarted service never gives an id again.
  virtual result<std::uint64_t> last_serial(const std::string& cluster) = 0;

  /// One row by id, live or history; nothing when the store does not have it.
  virtual result<std::optional<reservation_row>> find(const std::string& id) = 0;

  /// A page of finished rows (history_query); reads what was written before the call.
  virtual result<std::vector<reservation_row>> finished_rows(const history_query& q) = 0;

  /// Forgets the cluster's rows that finished before `before` (the retention), except the
  /// one with its highest id number (last_serial stays). Need not be durable.
  virtual status purge_finished(const std::string& cluster, timestamp before) = 0;

  /// The node's claim in a cluster's LRMS; nothing before the node first recovered it.
  virtual result<std::optional<lrms_claim>> claim_of(const std::string& cluster) = 0;
  /// Records the claim (inserts or replaces); durable when it returns.
  virtual status save_claim(const std::string& cluster, const lrms_claim& claim) = 0;
  /// The node's identity, given once and kept ("" before that; schema 8).
  virtual result<std::string> node_id() = 0;
  /// Records the node's identity; durable when it returns.
  virtual status save_node_id(const std::string& id) = 0;

  /// The coordinator's log: `txn` was decided commit (presumed abort: an abort is never
  /// logged, and a transaction without a record is aborted on recovery).
  virtual status log_commit(const std::string& txn) = 0;
  /// The pipelined form of log_commit(), as save_pipelined() is of save(): the decision may
  /// be acted on (commits sent) only after `when_durable(ticket)` called back. Default:
  /// log_commit(), durable at once.
  virtual result<write_ticket> log_commit_pipelined(const std::string& txn) {
    if (auto ok = log_commit(txn); !ok) return ok.err();
    return write_ticket{0};
  }
  virtual status forget_commit(const std::string& txn) = 0;
  virtual result<std::vector<std::string>> commits() = 0;
};

/// One grid job as the store keeps it (actors/grid_jobs.hpp): the engine's encoding of the
/// whole job (request, copies, decisions), written before every LRMS call the job makes and
/// after every decision, so that recovery finds every copy that may be in a queue.
struct grid_job_row {
  std::string id;  ///< "<node>/g<n>"
  std::string owner;
  bool active = true;  ///< not ended, or a copy may still be in a queue
  std::string body;    ///< opaque to the store
  /// When it stopped being active (schema 7; 0 while active): history from then on, kept
  /// for the retention.
  timestamp ended = 0;
  /// What this write changed, for watchers (events.hpp): written with the row, in the same
  /// transaction, where the journal keeps events; never read back with it.
  std::vector<event_row> events = {};

  friend bool operator==(const grid_job_row&, const grid_job_row&) = default;
};

/// The grid jobs' part of the store. Safe to call from several threads at once; a write is
/// durable when it returns.
class grid_job_journal {
 public:
  virtual ~grid_job_journal() = default;
  /// Inserts or replaces the row with this id.
  virtual status save_grid_job(const grid_job_row& row) = 0;
  /// Inserts or replaces these rows, all or none (one transaction).
  virtual status save_grid_jobs(std::span<const grid_job_row> rows) = 0;
  /// The active rows (what recovery watches again), ordered by id number.
  virtual result<std::vector<grid_job_row>> grid_jobs() = 0;
  /// One row by id, active or history; nothing when the store does not have it.
  virtual result<std::optional<grid_job_row>> find_grid_job(const std::string& id) = 0;
  /// A page of history: the ended rows (not active) of q.owner (every owner's for ""), most
  /// recently ended first, (ended, id) below q's cursor, at most q.limit (q.cluster does not
  /// apply: a grid job's clusters are in its body).
  virtual result<std::vector<grid_job_row>> ended_grid_jobs(const history_query& q) = 0;
  /// The highest id number of a grid job the store still knows (0: none), so that a
  /// restarted node never gives an id again.
  virtual result<std::uint64_t> last_grid_job_serial() = 0;
  /// Forgets the rows that ended before `before` (the retention), except the one with the
  /// highest id number. Need not be durable.
  virtual status purge_grid_jobs(timestamp before) = 0;
};

}  // namespace arbroker
