#pragma once

// The write pipeline every journal shares (private to store/): writes are queued, each with
// a ticket, for one writer thread, which commits everything queued at once as one batch
// (one transaction, made as durable as the store promises by the backend's commit) and then
// answers for every write of the batch: the blocking writers wake, the callbacks run, the
// listener hears of the batch's events first. A failed batch is never retried: the
// pipeline is broken from then on and every waiting and later write fails with its error.

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/store/events.hpp"
#include "arbroker/store/journal.hpp"

namespace arbroker::store_detail {

class write_pipeline {
 public:
  /// One write: binds and runs the backend's statements on the writer thread; owns its data.
  using write = std::function<status()>;
  /// Commits a batch as one transaction, durable when it returns; the events the batch wrote,
  /// with their ids. Runs on the writer thread only.
  using commit_fn = std::function<result<std::vector<event_row>>(std::vector<write>& batch)>;

  /// `store` names the store in errors; the writer thread starts at once.
  write_pipeline(std::string store, commit_fn commit);
  /// stop().
  ~write_pipeline();
  write_pipeline(const write_pipeline&) = delete;
  write_pipeline& operator=(const write_pipeline&) = delete;

  /// Commits what is queued, then ends the writer thread. Later writes fail. Idempotent; the
  /// owner calls it before it closes what the writes use.
  void stop();

  /// Queues a write (waits while the queue is full); its ticket.
  result<write_ticket> enqueue(write w);
  /// Blocks until every write up to `ticket` is durable.
  status wait_durable(write_ticket ticket);
  /// Calls `done` once `ticket` is durable (or can never be): at once, or on the writer.
  void when_durable(write_ticket ticket, std::function<void(status)> done);
  /// Queues a write and returns once it is durable (or cannot be).
  status write_and_wait(write w);
  /// Queues a write that needs no durability of its own (it goes with the next batch).
  status write_later(write w);
  /// Blocks until everything queued so far is durable (before a read).
  status flush();

  void set_listener(std::function<void(std::vector<event_row>)> listener);
  /// Writers and callbacks waiting for their batch.
  std::size_t waiting() const;

 private:
  struct queued {
    write_ticket ticket;
    write op;
  };
  static constexpr std::size_t max_queued = 16384;
  void write_loop();

  const std::string store_;
  const commit_fn commit_;
  mutable std::mutex mu_;         ///< everything below
  std::condition_variable work_;  ///< to the writer: queued writes, or stop
  std::condition_variable done_;  ///< to the waiters: durable_ moved, or broken
  std::condition_variable room_;  ///< to the writers: the queue has room
  std::vector<queued> queue_;
  write_ticket enqueued_ = 0;  ///< the last ticket handed out
  write_ticket durable_ = 0;   ///< every write up to this one is durable
  std::size_t blocked_ = 0;    ///< writers blocked in wait_durable
  std::optional<error> broken_;
  std::multimap<write_ticket, std::function<void(status)>> callbacks_;
  std::function<void(std::vector<event_row>)> listener_;
  bool stopping_ = false;
  std::thread writer_;  ///< last: started once everything above exists
};

}  // namespace arbroker::store_detail
