#include "event_feed.hpp"

#include <algorithm>
#include <chrono>

namespace arbroker::node_detail {
namespace {

timestamp wall_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

msg::watch_event wire_of(const event_row& e) {
  return {e.id, e.at, e.kind, e.subject, e.owner, e.cluster, e.state, e.start, e.end, e.np, e.what};
}

}  // namespace

bool watch_filter::matches(const event_row& e) const {
  if (!owner.empty() && e.owner != owner) return false;
  if (kinds.empty()) return true;
  return std::any_of(kinds.begin(), kinds.end(), [&](const std::string& k) {
    return e.kind == k ||
           (e.kind.size() > k.size() && e.kind.starts_with(k) && e.kind[k.size()] == '.');
  });
}

struct event_feed::watcher final : watch_handle, std::enable_shared_from_this<watcher> {
  std::weak_ptr<event_feed> feed;
  watch_filter filter;
  watch_sink sink;
  std::uint64_t cursor = 0;  ///< the last event examined for it
  /// It read from the ring when it was handed its page: the ring passing an unseen event of
  /// its before it asks again means its consumer was too slow (cut off then). A watcher that
  /// waited for events meanwhile, or reads from the store anyway, reads on from the store.
  bool in_ring_at_delivery = false;
  bool overrun = false;  ///< the ring passed it while it held a page: cut off when served
  bool wants = true;     ///< asked for a page: in ready_ or parked
  bool done = false;     ///< ended or cancelled
  bool greeted = false;  ///< has had its first page (which says where it starts)
  void cancel() override {
    if (auto f = feed.lock()) f->drop(shared_from_this());
  }
};

std::shared_ptr<event_feed> event_feed::start(event_journal* journal, settings s) {
  std::shared_ptr<event_feed> f(new event_feed(journal, s));
  f->thread_ = std::thread([raw = f.get()] { raw->run(); });
  return f;
}

event_feed::event_feed(event_journal* journal, settings s) : journal_(journal), cfg_(s) {
  if (journal_)
    if (auto span = journal_->events_kept()) head_ = span->last;
  before_ = trimmed_ = head_;  // the store's events from before: never in the ring
}

event_feed::~event_feed() {
  if (thread_.joinable()) {  // stop() was not called: at least no thread outlives us
    {
      std::lock_guard lock{mu_};
      stopping_ = true;
    }
    work_.notify_all();
    thread_.join();
  }
}

void event_feed::stop() {
  close(error{errc::unreachable, "the node is shutting down"});
  {
    std::lock_guard lock{mu_};
    stopping_ = true;
  }
  work_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

std::size_t event_feed::watchers() const {
  std::lock_guard lock{mu_};
  return open_.size();
}

void event_feed::publish(std::vector<event_row> batch) {
  if (batch.empty()) return;
  std::lock_guard lock{mu_};
  for (auto& e : batch) {
    head_ = std::max(head_, e.id);
    by_owner_[e.owner].push_back(e.id);
    // Those waiting for this owner's events, and every every-owner watcher, want a page now.
    if (auto p = parked_of_.find(e.owner); p != parked_of_.end()) {
      for (auto& w : p->second)
        ready_.push_back(std::move(w));
      parked_of_.erase(p);
    }
    ring_.push_back(std::move(e));
  }
  for (auto& w : parked_any_)
    ready_.push_back(std::move(w));
  parked_any_.clear();
  while (ring_.size() > cfg_.buffer) {
    const auto& old = ring_.front();
    trimmed_ = old.id;
    trimmed_of_[old.owner] = old.id;
    auto list = by_owner_.find(old.owner);
    list->second.pop_front();
    if (list->second.empty()) by_owner_.erase(list);
    ring_.pop_front();
  }
  work_.notify_one();
}

std::uint64_t event_feed::trimmed_for(const watcher& w) const {
  if (w.filter.owner.empty()) return trimmed_;
  auto t = trimmed_of_.find(w.filter.owner);
  return std::max(before_, t == trimmed_of_.end() ? 0 : t->second);
}

void event_feed::park(const std::shared_ptr<watcher>& w) {
  if (w->filter.owner.empty())
    parked_any_.push_back(w);
  else
    parked_of_[w->filter.owner].push_back(w);
}

const event_row* event_feed::in_ring(std::uint64_t id) const {
  if (ring_.empty() || id < ring_.front().id || id > ring_.back().id) return nullptr;
  // Ids are consecutive (the store's AUTOINCREMENT); looked up when they are not.
  const auto at = static_cast<std::size_t>(id - ring_.front().id);
  if (at < ring_.size() && ring_[at].id == id) return &ring_[at];
  auto it = std::lower_bound(ring_.begin(), ring_.end(), id,
                             [](const event_row& e, std::uint64_t x) { return e.id < x; });
  return it != ring_.end() && it->id == id ? &*it : nullptr;
}

result<std::shared_ptr<watch_handle>> event_feed::open(watch_filter filter, std::int64_t since,
                                                       watch_sink sink) {
  // What the store keeps, read before taking mu_ (the store's writer publishes under it).
  std::optional<event_span> kept;
  if (journal_ && since >= 0) {
    auto span = journal_->events_kept();
    if (!span) return span.err();
    kept = *span;
  }
  std::lock_guard lock{mu_};
  if (closed_) return *closed_;
  if (open_.size() >= cfg_.max_watchers)
    return fail(errc::busy, "this node serves " + std::to_string(cfg_.max_watchers) +
                                " watches already ([watch] max_watchers)");
  auto w = std::make_shared<watcher>();
  w->feed = weak_from_this();
  w->filter = std::move(filter);
  w->sink = std::move(sink);
  if (since < 0) {
    w->cursor = head_;
  } else {
    const auto s = static_cast<std::uint64_t>(since);
    const std::uint64_t last = std::max(head_, kept ? kept->last : 0);
    const std::uint64_t first = kept ? kept->first : (ring_.empty() ? head_ + 1 : ring_.front().id);
    if (s > last)
      return fail(errc::invalid_parameter, "since: there is no event " + std::to_string(s) +
                                               " yet (the last is " + std::to_string(last) + ")");
    if (s + 1 < first)
      return fail(errc::gone, "the events after " + std::to_string(s) +
                                  " are no longer kept (the oldest kept is " +
                                  std::to_string(first) +
                                  "; [watch] keep): list what you watch again, then watch from "
                                  "now (since -1) or from " +
                                  std::to_string(first - 1));
    w->cursor = s;
  }
  open_.push_back(w);
  ready_.push_back(w);
  work_.notify_one();
  return std::shared_ptr<watch_handle>(w);
}

void event_feed::close(const error& why) {
  std::vector<std::shared_ptr<watcher>> ended;
  {
    std::lock_guard lock{mu_};
    if (!closed_) closed_ = why;
    ended.swap(open_);
    ready_.clear();
    parked_of_.clear();
    parked_any_.clear();
    for (auto& w : ended)
      w->done = true;
  }
  for (auto& w : ended)
    if (w->sink.ended) w->sink.ended(why);
}

bool event_feed::forget(const std::shared_ptr<watcher>& w) {
  if (w->done) return false;
  w->done = true;
  std::erase(open_, w);
  if (w->filter.owner.empty()) {
    std::erase(parked_any_, w);
  } else if (auto p = parked_of_.find(w->filter.owner); p != parked_of_.end()) {
    std::erase(p->second, w);
    if (p->second.empty()) parked_of_.erase(p);
  }
  return true;
}

void event_feed::drop(const std::shared_ptr<watcher>& w) {
  std::lock_guard lock{mu_};
  (void)forget(w);
}

void event_feed::wake(const std::shared_ptr<watcher>& w) {
  std::lock_guard lock{mu_};
  if (w->done || w->wants) return;
  w->wants = true;
  if (w->in_ring_at_delivery && w->cursor < trimmed_for(*w)) w->overrun = true;
  ready_.push_back(w);
  work_.notify_one();
}

void event_feed::end(std::unique_lock<std::mutex>& lock, const std::shared_ptr<watcher>& w,
                     error why) {
  if (!forget(w)) return;
  auto ended = w->sink.ended;
  lock.unlock();
  if (ended) ended(std::move(why));
  lock.lock();
}

void event_feed::serve(std::unique_lock<std::mutex>& lock, const std::shared_ptr<watcher>& w) {
  if (!w->greeted) return deliver(lock, w, {});  // the first page: where it starts, no event
  std::vector<msg::watch_event> page;
  if (w->cursor >= head_) return park(w);
  const auto trimmed = trimmed_for(*w);
  if (w->cursor >= trimmed) {  // every event it may see after its cursor is in the ring
    if (!w->filter.owner.empty()) {
      // One user's watcher: that user's events, from the owner's index.
      auto list = by_owner_.find(w->filter.owner);
      if (list != by_owner_.end()) {
        auto it = std::upper_bound(list->second.begin(), list->second.end(), w->cursor);
        for (; it != list->second.end() && page.size() < cfg_.page; ++it) {
          w->cursor = *it;
          if (const auto* e = in_ring(*it); e && w->filter.matches(*e)) page.push_back(wire_of(*e));
        }
        if (it == list->second.end()) w->cursor = head_;  // none of its after these
      } else {
        w->cursor = head_;
      }
    } else {
      auto it = std::lower_bound(ring_.begin(), ring_.end(), w->cursor + 1,
                                 [](const event_row& e, std::uint64_t id) { return e.id < id; });
      for (; it != ring_.end() && page.size() < cfg_.page; ++it) {
        w->cursor = it->id;
        if (w->filter.matches(*it)) page.push_back(wire_of(*it));
      }
    }
    if (page.empty()) return park(w);  // examined up to head_: nothing for it yet
  } else if (w->overrun || !journal_) {
    // The ring let go of an event of its while its consumer held a page.
    return end(lock, w,
               error{errc::slow_consumer,
                     "this watch fell more than " + std::to_string(cfg_.buffer) +
                         " events behind ([watch] buffer) and was cut off: watch again with "
                         "since " +
                         std::to_string(w->cursor) + " to read on from the store"});
  } else {  // catching up from the store, a page at a time
    const auto after = w->cursor;
    lock.unlock();
    auto rows = journal_->events_after(after, cfg_.page);
    lock.lock();
    if (w->done) return;
    if (!rows) return end(lock, w, rows.err());
    if (rows->empty() || rows->front().id != after + 1)
      return end(lock, w,
                 error{errc::gone, "the events after " + std::to_string(after) +
                                       " were purged ([watch] keep) while this watch read them"});
    for (const auto& e : *rows)
      if (w->filter.matches(e)) page.push_back(wire_of(e));
    w->cursor = rows->back().id;
    if (page.empty()) {  // none was for it: on with the next, after the others
      ready_.push_back(w);
      return;
    }
  }
  deliver(lock, w, std::move(page));
}

void event_feed::deliver(std::unique_lock<std::mutex>& lock, const std::shared_ptr<watcher>& w,
                         std::vector<msg::watch_event> page) {
  w->wants = false;
  w->greeted = true;
  w->in_ring_at_delivery = w->cursor >= trimmed_for(*w);
  auto events = w->sink.events;
  msg::watch_reply reply{std::move(page), w->cursor, {}};
  lock.unlock();
  events(std::move(reply), [weak = std::weak_ptr<watcher>(w)] {
    auto self = weak.lock();
    if (!self) return;
    if (auto f = self->feed.lock()) f->wake(self);
  });
  lock.lock();
}

void event_feed::run() {
  using clock = std::chrono::steady_clock;
  std::unique_lock lock{mu_};
  auto next_purge = clock::now();
  while (!stopping_) {
    if (journal_ && clock::now() >= next_purge) {
      lock.unlock();
      (void)journal_->purge_events(wall_now() - cfg_.keep);
      lock.lock();
      next_purge = clock::now() + std::chrono::minutes(1);
      continue;
    }
    if (ready_.empty()) {
      work_.wait_until(lock, next_purge);
      continue;
    }
    auto w = std::move(ready_.front());
    ready_.pop_front();
    if (!w->done) serve(lock, w);
  }
}

}  // namespace arbroker::node_detail
