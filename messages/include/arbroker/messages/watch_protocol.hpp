#pragma once

// Watching a node (docs/watch.md): a stream of the changes a caller may see, over HTTP as
// server-sent events, over msgpack as a subscription, in-process as a callback. These types
// never travel between actors (no CAF type id): only the network API and the node carry them.
// The sink and the handle at the end are how a watcher and a node (or a server) meet.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/core/error.hpp"

#include "arbroker/messages/fields.hpp"
#include "arbroker/messages/wire_error.hpp"

namespace arbroker::msg {

/// The kinds of event, each "<family>.<change>" (docs/watch.md says when each happens).
inline constexpr std::array<std::string_view, 14> watch_event_kinds = {
    "reservation.created",  "reservation.committed", "reservation.moved",    "reservation.extended",
    "reservation.modified", "reservation.ended",     "grid_job.submitted",   "grid_job.placed",
    "grid_job.copied",      "grid_job.migrated",     "grid_job.resubmitted", "grid_job.started",
    "grid_job.ended",       "grid_job.updated"};

/// Start a watch: the events of `user` (an admin's empty user: every owner's), of the given
/// kinds, from after event `since`.
struct watch_request {
  std::string user;
  /// Resume after this event id (the last one seen); -1: from now on (only new events);
  /// 0: every event the node still keeps.
  std::int64_t since = -1;
  /// Kinds or their families ("reservation", "grid_job.ended"); empty: every kind.
  std::vector<std::string> kinds = {};
  friend bool operator==(const watch_request&, const watch_request&) = default;
};
ARB_FIELDS(watch_request, x.user, x.since, x.kinds)

/// invalid_parameter naming the field: since below -1, more than 16 kinds, a kind that is
/// neither a kind nor a family ("reservation", "grid_job").
status check(const watch_request& r);

/// One change (store/events.hpp says which kinds there are and what each field means).
struct watch_event {
  std::uint64_t id = 0;  ///< increasing; resume after the last one seen
  std::int64_t at = 0;   ///< when it was written (UTC seconds)
  std::string kind;      ///< "reservation.moved", "grid_job.migrated", ...
  std::string subject;   ///< the reservation's or grid job's id
  std::string owner;
  std::string cluster;
  std::string state;  ///< the subject's state after the change
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int32_t np = 0;
  std::string what;  ///< what changed, in words
  friend bool operator==(const watch_event&, const watch_event&) = default;
};
ARB_FIELDS(watch_event, x.id, x.at, x.kind, x.subject, x.owner, x.cluster, x.state, x.start, x.end,
           x.np, x.what)

/// A page of a watch: the events since the previous page, in id order. The first page comes
/// at once, without events: its `last` says where the watch starts. A watch's last
/// reply carries the error that ended it (and no events).
struct watch_reply {
  std::vector<watch_event> events;
  /// Every event up to this id was looked at for this watch (those not shown are not the
  /// watcher's): resume with since = last to miss nothing and repeat nothing.
  std::uint64_t last = 0;
  wire_error error;
  friend bool operator==(const watch_reply&, const watch_reply&) = default;
};
ARB_FIELDS(watch_reply, x.events, x.last, x.error)

}  // namespace arbroker::msg

namespace arbroker {

/// Where a watch's events go. Both are called on the node's feed thread, one call at a time
/// per watch: keep them short (hand the events to your own thread or connection).
struct watch_sink {
  /// A page of events, in id order (the first, at once and without events, says where the
  /// watch starts). The next page comes only after `more()` was called (from any thread, once): a
  /// watcher reads at its own pace, and the node holds no more for it than the page it was
  /// given (one that falls behind the node's buffer is cut off).
  std::function<void(msg::watch_reply page, std::function<void()> more)> events;
  /// The watch ended, and why: slow_consumer (more than the node's buffer of events came while
  /// it held a page: watch again from its last id), gone (its events were purged while it read
  /// them), unreachable (the node stops), storage_failure. Called at most once, last; not after
  /// cancel().
  std::function<void(error why)> ended;
};

/// A watch under way. Dropping the handle does not end it: cancel() does.
class watch_handle {
 public:
  virtual ~watch_handle() = default;
  /// Ends the watch: its sink is called no more once this returns (except a call already
  /// under way on the feed thread). Idempotent.
  virtual void cancel() = 0;
};

}  // namespace arbroker
