#include "write_pipeline.hpp"

#include <utility>

namespace arbroker::store_detail {

write_pipeline::write_pipeline(std::string store, commit_fn commit)
    : store_(std::move(store)), commit_(std::move(commit)) {
  writer_ = std::thread([this] { write_loop(); });
}

write_pipeline::~write_pipeline() {
  stop();
}

void write_pipeline::stop() {
  {
    std::lock_guard lock{mu_};
    stopping_ = true;
  }
  work_.notify_one();
  room_.notify_all();
  if (writer_.joinable()) writer_.join();  // after the queue is written
}

result<write_ticket> write_pipeline::enqueue(write w) {
  std::unique_lock lock{mu_};
  // Backpressure: a store slower than the writers makes them wait here, not memory grow.
  room_.wait(lock, [&] { return queue_.size() < max_queued || broken_ || stopping_; });
  if (broken_) return *broken_;
  if (stopping_) return error{errc::storage_failure, "store " + store_ + ": closing"};
  const write_ticket t = ++enqueued_;
  queue_.push_back({t, std::move(w)});
  work_.notify_one();
  return t;
}

status write_pipeline::wait_durable(write_ticket ticket) {
  std::unique_lock lock{mu_};
  ++blocked_;
  done_.wait(lock, [&] { return durable_ >= ticket || broken_; });
  --blocked_;
  if (durable_ >= ticket) return {};
  return *broken_;
}

void write_pipeline::when_durable(write_ticket ticket, std::function<void(status)> done) {
  status now_known;
  {
    std::lock_guard lock{mu_};
    if (durable_ < ticket && !broken_) {
      callbacks_.emplace(ticket, std::move(done));
      return;
    }
    if (durable_ < ticket) now_known = *broken_;
  }
  done(now_known);
}

status write_pipeline::write_and_wait(write w) {
  auto t = enqueue(std::move(w));
  if (!t) return t.err();
  return wait_durable(*t);
}

status write_pipeline::write_later(write w) {
  auto t = enqueue(std::move(w));
  return t ? status{} : status{t.err()};
}

status write_pipeline::flush() {
  std::unique_lock lock{mu_};
  const write_ticket last = enqueued_;
  done_.wait(lock, [&] { return durable_ >= last || broken_; });
  if (durable_ >= last) return {};
  return *broken_;
}

void write_pipeline::set_listener(std::function<void(std::vector<event_row>)> listener) {
  std::lock_guard lock{mu_};
  listener_ = std::move(listener);
}

std::size_t write_pipeline::waiting() const {
  std::lock_guard lock{mu_};
  return blocked_ + callbacks_.size();
}

void write_pipeline::write_loop() {
  std::unique_lock lock{mu_};
  for (;;) {
    work_.wait(lock, [&] { return stopping_ || broken_ || !queue_.empty(); });
    if (broken_ || (stopping_ && queue_.empty())) break;
    // Everything queued by now is one batch; writes that arrive meanwhile, the next.
    std::vector<queued> batch;
    batch.swap(queue_);
    room_.notify_all();
    const write_ticket last = batch.back().ticket;
    lock.unlock();
    std::vector<write> ops;
    ops.reserve(batch.size());
    for (auto& q : batch)
      ops.push_back(std::move(q.op));
    batch.clear();
    auto events = commit_(ops);
    ops.clear();
    // Durable now (or never): the listener hears of the batch's events before any writer
    // is told its write is done, so a write that returned has its events with the listener.
    if (events && !events->empty()) {
      std::function<void(std::vector<event_row>)> listener;
      {
        std::lock_guard l{mu_};
        listener = listener_;
      }
      if (listener) listener(std::move(*events));
    }
    lock.lock();
    if (!events)
      broken_ = events.err();  // never retried: a restart recovers from what is durable
    else
      durable_ = last;
    // Callbacks run outside the lock (they may send messages); none may call the journal.
    std::vector<std::pair<std::function<void(status)>, status>> ready;
    for (auto it = callbacks_.begin(); it != callbacks_.end();) {
      if (it->first <= durable_)
        ready.emplace_back(std::move(it->second), status{});
      else if (broken_)
        ready.emplace_back(std::move(it->second), status{*broken_});
      else
        break;
      it = callbacks_.erase(it);
    }
    done_.notify_all();
    room_.notify_all();
    lock.unlock();
    for (auto& [cb, outcome] : ready)
      cb(outcome);
    lock.lock();
  }
  // Broken or stopped: nothing more is written; whoever still waits learns why.
  std::vector<std::function<void(status)>> left;
  for (auto& [t, cb] : callbacks_)
    left.push_back(std::move(cb));
  callbacks_.clear();
  const status why = broken_ ? status{*broken_} : status{};
  done_.notify_all();
  room_.notify_all();
  lock.unlock();
  for (auto& cb : left)
    cb(why);
}

}  // namespace arbroker::store_detail
