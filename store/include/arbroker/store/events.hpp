#pragma once

// What a node tells its watchers (`arb watch`, GET /v1/watch): one row per change of a
// reservation or a grid job, written in the same transaction as the change itself, so that
// an event exists exactly when its change is durable, and numbered in commit order, so that a
// watcher resumes after the last id it saw without losing or repeating one.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

struct reservation_row;

/// One change, as the store keeps it and watchers see it.
struct event_row {
  /// Given by the store when the change is written: increasing in commit order, never given
  /// twice (also after a purge or a restart). 0 before it is written.
  std::uint64_t id = 0;
  timestamp at = 0;
  /// One of msg::watch_event_kinds (messages/watch_protocol.hpp), "reservation.moved".
  std::string kind;
  std::string subject;  ///< the reservation's or the grid job's id
  std::string owner;
  std::string cluster;  ///< the reservation's; a grid job's copy concerned ("" for none)
  std::string state;    ///< the subject's state after the change
  /// The new terms: a reservation's start, end and CPUs; a grid job's start and end (0: not
  /// yet) and CPUs.
  timestamp start = 0;
  timestamp end = 0;
  std::int32_t np = 0;
  std::string what;  ///< one line for people: what changed

  friend bool operator==(const event_row&, const event_row&) = default;
};

/// The events a reservation's row written over `before` (none: a new row) records, at `at`:
/// created; committed (a hold confirmed, or a new row committed at once: created, then
/// committed); moved (new start, same length: a laxity cluster
/// moved it in its window), extended (same start, later end: an overrun quantum) or modified
/// (other new terms); ended (it reached a terminal state). A write that changes none of these
/// (a new expiry, an LRMS id) records none.
std::vector<event_row> reservation_events(const std::optional<reservation_row>& before,
                                          const reservation_row& after, timestamp at);

/// The ids a store still keeps: first..last (first = last + 1 when it keeps none; last = 0
/// when none was ever written).
struct event_span {
  std::uint64_t first = 1;
  std::uint64_t last = 0;
  friend bool operator==(const event_span&, const event_span&) = default;
};

/// The events' part of a store. Safe to call from several threads.
class event_journal {
 public:
  virtual ~event_journal() = default;
  /// Up to `limit` events with an id above `after`, in id order (durable ones only).
  virtual result<std::vector<event_row>> events_after(std::uint64_t after, std::size_t limit) = 0;
  virtual result<event_span> events_kept() = 0;
  /// Forgets the events from before `before` (the retention). Need not be durable.
  virtual status purge_events(timestamp before) = 0;
  /// Called with the events of every batch of writes once it is durable, in id order, on
  /// the store's writer thread, before any write of the batch counts as done (a write that
  /// returned has its events with the listener). No call back into the journal; keep it
  /// short. Set it before the first write; nothing is called for writes made before.
  virtual void set_event_listener(std::function<void(std::vector<event_row>)> listener) = 0;
};

}  // namespace arbroker
