#pragma once

// The node's watches (docs/watch.md): the store's events handed to every watcher that may see
// them, each at its own pace.
//
// Pull, not push: a watcher asks for its next page (watch_sink's `more`) and gets the events
// after its cursor that pass its filter, read from the newest `buffer` events in memory (a
// ring) or, for a watcher resuming from further back, from the store, a page at a time. So
// the node holds one page per watcher at most, whatever their number and pace; a watcher that
// the ring leaves behind while its consumer still holds a page is cut off (slow_consumer) and
// may resume from the store with its last id (one that was waiting for events when a burst
// larger than the ring came reads it from the store). One thread serves every watcher; a store
// read delays the others by one page.
//
// The ring is indexed by owner: a watcher of one user's events (every user's watch) is woken
// only by a batch with events of that user, and reads them from the owner's index without
// looking at anyone else's; an admin's (every owner's) watcher looks at every event.
//
// Complexity: publishing a batch of b events costs O(b) plus a wake-up per watcher that may
// see one of them; a page O(log buffer + its events) for one user's watcher, O(log buffer +
// examined) for an every-owner watcher.

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "arbroker/messages/watch_protocol.hpp"
#include "arbroker/store/events.hpp"

namespace arbroker::node_detail {

/// Which events a watcher may see and wants.
struct watch_filter {
  std::string owner;               ///< "" : every owner's (an admin's)
  std::vector<std::string> kinds;  ///< kinds or families ("reservation"); empty: every kind
  bool matches(const event_row& e) const;
};

class event_feed : public std::enable_shared_from_this<event_feed> {
 public:
  struct settings {
    std::size_t buffer = 10000;  ///< events kept in memory (the ring)
    std::size_t page = 256;      ///< events per page at most
    std::size_t max_watchers = 2000;
    duration keep = 86400;  ///< the store's events older than this are purged (once a minute)
  };

  /// `journal` may be null (a node without a store): then only the ring's events are kept.
  /// The feed does not own the journal, which must outlive it. Watchers hold the feed weakly
  /// (a handle cancelled after the node is gone does nothing).
  static std::shared_ptr<event_feed> start(event_journal* journal, settings s);
  /// stop() must have been called.
  ~event_feed();
  event_feed(const event_feed&) = delete;
  event_feed& operator=(const event_feed&) = delete;

  /// The journal's listener: a batch of durable events, in id order.
  void publish(std::vector<event_row> batch);

  /// Starts a watch after event `since` (-1: from now on; 0: every event kept). Refused:
  /// invalid_parameter (`since` after the last event), gone (events after `since` were
  /// purged), busy (max_watchers), unreachable (closed).
  result<std::shared_ptr<watch_handle>> open(watch_filter filter, std::int64_t since,
                                             watch_sink sink);

  /// Ends every watch with `why` and refuses new ones (the node shuts down).
  void close(const error& why);
  /// close(), then stops the thread (not from a sink). Idempotent.
  void stop();

  std::size_t watchers() const;

 private:
  struct watcher;
  event_feed(event_journal* journal, settings s);
  /// The thread: serves watchers that want a page, purges the store once a minute.
  void run();
  /// Reads w's next page (under mu_ from the ring; from the store with mu_ released) and
  /// hands it over, or parks w until the next publish, or ends it.
  void serve(std::unique_lock<std::mutex>& lock, const std::shared_ptr<watcher>& w);
  /// Hands w a page (mu_ released meanwhile); w asks for the next with `more`.
  void deliver(std::unique_lock<std::mutex>& lock, const std::shared_ptr<watcher>& w,
               std::vector<msg::watch_event> page);
  void end(std::unique_lock<std::mutex>& lock, const std::shared_ptr<watcher>& w, error why);
  void wake(const std::shared_ptr<watcher>& w);
  void drop(const std::shared_ptr<watcher>& w);
  /// Takes w out of the open ones (under mu_); false if it was not open.
  bool forget(const std::shared_ptr<watcher>& w);
  /// Whether every event w may see after its cursor is still in the ring, and the highest id
  /// of such an event the ring let go (0: none).
  std::uint64_t trimmed_for(const watcher& w) const;
  /// Parks w until a batch brings an event it may see.
  void park(const std::shared_ptr<watcher>& w);
  /// The event of `id` in the ring (null: not there).
  const event_row* in_ring(std::uint64_t id) const;

  event_journal* journal_;
  const settings cfg_;
  mutable std::mutex mu_;
  std::condition_variable work_;
  std::deque<event_row> ring_;  ///< the newest events, in id order
  /// The ring's events by owner (their ids, in order), and the highest id of each owner's the
  /// ring let go.
  std::unordered_map<std::string, std::deque<std::uint64_t>> by_owner_;
  std::unordered_map<std::string, std::uint64_t> trimmed_of_;
  std::uint64_t trimmed_ = 0;  ///< the highest id the ring let go
  std::uint64_t before_ = 0;   ///< the last id of the store when the feed started
  std::uint64_t head_ = 0;     ///< the last id published (or found in the store at start)
  std::deque<std::shared_ptr<watcher>> ready_;  ///< want a page
  /// Want one, none there yet: one user's watchers by that user, every owner's apart.
  std::unordered_map<std::string, std::vector<std::shared_ptr<watcher>>> parked_of_;
  std::vector<std::shared_ptr<watcher>> parked_any_;
  std::vector<std::shared_ptr<watcher>> open_;  ///< every watch not ended
  std::optional<error> closed_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace arbroker::node_detail
