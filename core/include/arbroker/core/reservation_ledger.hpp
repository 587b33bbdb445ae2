#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/reservation_state.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// One reservation of a cluster service, as the service keeps it.
struct reservation_record {
  std::string id;  ///< "<cluster>/<serial>"
  std::string txn;
  std::string owner;
  std::string lrms_id;
  reservation_lifecycle life;
  int np = 0;
  double cost = 0;
  timestamp admitted_after = 0;        ///< T_wkl it was checked against (0: LJP off)
  timestamp finished = time_infinity;  ///< when it reached a terminal state
  std::uint64_t serial = 0;            ///< n of the id "<cluster>/n": its key in the ledger
  std::vector<std::string> jobs = {};  ///< LRMS ids of the jobs bound to it
  std::string account = {};            ///< charged in the LRMS; its jobs run under it
  /// Paper 002: a committed reservation with deadline > 0 may be moved within [earliest,
  /// deadline] until it starts (laxity clusters only); 0: rigid.
  timestamp earliest = 0;
  timestamp deadline = 0;
  int overruns = 0;       ///< overrun quanta granted to it
  timestamp created = 0;  ///< when the hold was granted
  /// The window the client asked for, for show; 0: not known.
  timestamp window_start = 0;
  timestamp window_end = 0;
};

/// The book of one cluster service's reservations: it owns the records and every index over
/// them, and is the only code that changes either (README.md, "Reservation ledger"). Callers
/// read records as const and change them through the operations below, which keep the
/// indexes true to the records; check() says whether they are.
///
/// Indexes, each kept so that a call touches only what it answers about however long the
/// history kept in memory: by transaction, by owner, the live (not terminal) records, the
/// pending holds by expiry, the live records by end (the timeline), the movable ones (a
/// window given, paper 002) and the finished ones by when they finished. A record is keyed by
/// its serial; references to records stay valid until the record is forgotten (purge).
///
/// Complexity: lookups O(1) on average; changes O(log n) in the number of records.
class reservation_ledger {
 public:
  using serial_t = std::uint64_t;

  /// What became of a transaction whose record has left memory (or that never held: id "").
  struct ended_txn {
    std::string id;
    reservation_state state;
  };

  /// How many ended transactions are remembered (the latest ones).
  explicit reservation_ledger(std::size_t remembered_txns = 4096)
      : remembered_txns_(remembered_txns) {}

  // -- reading -----------------------------------------------------------------------------

  const reservation_record* find(serial_t n) const;
  const reservation_record* of_txn(const std::string& txn) const;
  /// A transaction that ended here and whose record is gone, if remembered (else null).
  const ended_txn* ended(const std::string& txn) const;
  /// The serials of `owner`'s records (finished ones included while in memory).
  const std::set<serial_t>& of_owner(const std::string& owner) const;
  /// The serials of records not in a terminal state.
  const std::set<serial_t>& live() const noexcept { return live_; }
  /// The serials of live records with a window (deadline != 0).
  const std::set<serial_t>& movable() const noexcept { return movable_; }
  /// Every record, in no order.
  void for_each(const std::function<void(const reservation_record&)>& f) const;
  std::size_t size() const noexcept { return records_.size(); }
  /// How many ended transactions it remembers at most.
  std::size_t remembered_txns() const noexcept { return remembered_txns_; }
  /// The earliest expiry of a pending hold.
  std::optional<timestamp> next_expiry() const;

  // -- changing ----------------------------------------------------------------------------

  /// Files a new record (serial, id, owner and txn unique; serial > 0): under its owner and
  /// transaction, as live, pending (a hold), on the timeline and movable by its state; one in
  /// a terminal state as finished at `now`. invalid_parameter when the serial or transaction
  /// is taken or the serial is 0.
  result<const reservation_record*> add(reservation_record r, timestamp now);
  /// A user or resource event (reservation_lifecycle::apply) at `now`; the indexes follow the
  /// state it leaves, error or not (apply first advances by time, which may end it).
  status apply(serial_t n, reservation_event e, timestamp now);
  /// The time-driven events due at `now` (reservation_lifecycle::advance).
  void advance(serial_t n, timestamp now);
  /// New terms for a live record: `changed` keeps its serial, id, owner and transaction; the
  /// timeline and movable set follow its end and window. invalid_parameter otherwise.
  status replace(serial_t n, reservation_record changed);
  /// Paper 002, Sec. 5.3: a later end in place (reservation_lifecycle::extend), `cost` more
  /// and one overrun more.
  status extend(serial_t n, timestamp now, timestamp new_end, double cost);
  /// Jobs bound to it; a job taken off it again (false: not its job).
  void add_jobs(serial_t n, const std::vector<std::string>& ids);
  bool remove_job(serial_t n, const std::string& id);
  /// Its reservation in the LRMS is now `lrms_id` (a failed modify put the old terms back).
  void set_lrms_id(serial_t n, std::string lrms_id);

  /// The live records whose end is due at `now`, taken off the timeline and advanced; those
  /// now terminal (finished at `now`) are returned. A hold past its end but not its expiry
  /// leaves the timeline: it ends by its expiry, or comes back on it when committed.
  std::vector<serial_t> take_ended(timestamp now);
  /// The hold with the earliest expiry <= now, if any (still a hold: its expiry is the
  /// caller's to apply, who must delete it from the LRMS).
  std::optional<serial_t> due_hold(timestamp now) const;
  /// Forgets the finished records that finished at or before `upto`, remembering what became
  /// of their transactions.
  void purge(timestamp upto);
  /// Remembers that `txn` is over here (id "": it never held anything); the first word stays.
  void remember_ended(const std::string& txn, const std::string& id, reservation_state state);

  /// Whether every index agrees with the records: "" if so, else what does not.
  std::string check() const;

 private:
  reservation_record& at(serial_t n);
  /// Follows a change of `r`'s state: off the pending holds unless still one, finished if it
  /// became terminal.
  void settle(reservation_record& r, timestamp expiry_before, timestamp now);
  void finish(reservation_record& r, timestamp now);

  std::unordered_map<serial_t, reservation_record> records_;
  std::unordered_map<std::string, serial_t> by_txn_;
  std::unordered_map<std::string, std::set<serial_t>> by_owner_;
  std::set<serial_t> live_;
  std::set<std::pair<timestamp, serial_t>> expiries_;  // holds: (expiry, serial)
  std::set<std::pair<timestamp, serial_t>> timeline_;  // live: (end, serial)
  std::set<serial_t> movable_;
  std::set<std::pair<timestamp, serial_t>> finished_;  // terminal: (finished, serial)
  /// Records whose end came up to here have left the timeline (take_ended).
  timestamp ended_upto_ = -time_infinity;
  std::unordered_map<std::string, ended_txn> ended_txns_;
  std::deque<std::string> ended_order_;
  std::size_t remembered_txns_;
};

}  // namespace arbroker
