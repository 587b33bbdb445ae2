#pragma once

// Fake request handlers for the front ends' tests (msgpack server, HTTP API).

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "arbroker/api/handler.hpp"

namespace arbroker::api::testing {

/// Answers at once, on the calling thread: list echoes the (server-filled) user as owner;
/// `big` reservations make large replies.
class echo_handler : public request_handler {
 public:
  std::size_t big = 1;
  void handle(const caller& who, request req, std::function<void(response)> done) override {
    response r;
    if (auto* l = std::get_if<msg::list_request>(&req.body)) {
      r.body = list_for(l->user);
    } else if (auto* q = std::get_if<msg::query_request>(&req.body)) {
      msg::query_reply reply;
      reply.info.id = q->reservation_id;
      reply.info.owner = q->user + (who.admin ? "/admin" : "");
      r.body = reply;
    } else {
      r.body = empty_response_body(req.op());
    }
    done(std::move(r));
  }

 private:
  /// Built once per user: large replies must cost the server little to make.
  msg::list_reply list_for(const std::string& user) {
    std::lock_guard lock(mu_);
    auto& reply = lists_[user];
    if (reply.reservations.size() != big) {
      reply.reservations.clear();
      for (std::size_t i = 0; i < big; ++i)
        reply.reservations.push_back(msg::reservation_info{
            "c/" + std::to_string(i), "c", user, 0, 1, 1, reservation_state::committed, 0, 0, 0});
    }
    return reply;
  }
  std::mutex mu_;
  std::map<std::string, msg::list_reply> lists_;
};

/// Keeps every done() until the test releases it, from a thread of its own.
class deferred_handler : public request_handler {
 public:
  void handle(const caller&, request req, std::function<void(response)> done) override {
    std::lock_guard lock(mu_);
    pending_.emplace_back(req.id, std::move(done));
    cv_.notify_all();
  }
  void wait_for(std::size_t n) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return pending_.size() >= n; });
  }
  /// Answers all held requests from a new thread (as the engine's threads would).
  void release_all() {
    std::vector<std::pair<std::uint64_t, std::function<void(response)>>> held;
    {
      std::lock_guard lock(mu_);
      held.swap(pending_);
    }
    std::thread([held = std::move(held)] {
      for (auto& [id, done] : held) {
        response r;
        r.body = msg::ack_reply{};
        r.message = "answered " + std::to_string(id);
        done(r);
        done(r);  // a second call must be ignored
      }
    }).join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::pair<std::uint64_t, std::function<void(response)>>> pending_;
};

class faulty_handler : public request_handler {
 public:
  void handle(const caller&, request req, std::function<void(response)> done) override {
    if (std::holds_alternative<msg::cancel_request>(req.body))
      throw std::runtime_error("engine exploded");
    response r;
    r.body = msg::ack_reply{};  // wrong for everything but cancel
    done(r);
  }
};

/// Refuses every request the way the engine does: its reply type with the error inside, and
/// for a query the reservation as it stands.
class refusing_handler : public request_handler {
 public:
  void handle(const caller&, request req, std::function<void(response)> done) override {
    response r;
    r.code = static_cast<std::uint8_t>(errc::illegal_transition);
    r.message = "no";
    r.body = empty_response_body(req.op());
    if (auto* q = std::get_if<msg::query_reply>(&r.body)) q->info.id = "a/1";
    done(r);
  }
};

/// Serves watches the test drives: it keeps each one's sink, hands it pages and ends when told,
/// and records the server's `more` and cancel calls. A since of 999 is refused as gone.
class watch_handler : public echo_handler {
 public:
  struct started {
    caller who;
    msg::watch_request request;
    watch_sink sink;
    int more = 0;  ///< the server asked for the next page so many times
    bool cancelled = false;
  };

  result<std::shared_ptr<watch_handle>> watch(const caller& who, const msg::watch_request& r,
                                              watch_sink sink) override {
    if (r.since == 999) return fail(errc::gone, "the events after 999 are no longer kept");
    std::lock_guard lock(mu_);
    watches_.push_back(std::make_shared<started>(started{who, r, std::move(sink)}));
    cv_.notify_all();
    return std::shared_ptr<watch_handle>(std::make_shared<handle>(this, watches_.size() - 1));
  }

  /// Waits until watch i began; a copy of what it asked.
  started wait_started(std::size_t i) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return watches_.size() > i; });
    return *watches_[i];
  }
  /// Hands watch i a page of events with ids `ids`, from a thread of the handler's own.
  void page(std::size_t i, std::vector<std::uint64_t> ids, std::uint64_t last) {
    msg::watch_reply p;
    for (auto id : ids) {
      msg::watch_event e;
      e.id = id;
      e.kind = "reservation.moved";
      e.subject = "berlin/" + std::to_string(id);
      e.owner = "alice";
      e.what = "line one\nline two";  // a line break in the data: escaped in JSON
      p.events.push_back(e);
    }
    p.last = last;
    auto w = at(i);
    std::thread([this, w, p = std::move(p)] {
      w->sink.events(p, [this, w] {
        std::lock_guard lock(mu_);
        ++w->more;
        cv_.notify_all();
      });
    }).join();
  }
  void end(std::size_t i, error why) {
    auto w = at(i);
    std::thread([w, why] { w->sink.ended(why); }).join();
  }
  void wait_more(std::size_t i, int n) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return watches_[i]->more >= n; });
  }
  void wait_cancelled(std::size_t i) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return watches_[i]->cancelled; });
  }
  int more_of(std::size_t i) {
    std::lock_guard lock(mu_);
    return watches_[i]->more;
  }

 private:
  struct handle : watch_handle {
    handle(watch_handler* owner, std::size_t index) : h(owner), i(index) {}
    void cancel() override {
      std::lock_guard lock(h->mu_);
      h->watches_[i]->cancelled = true;
      h->cv_.notify_all();
    }
    watch_handler* h;
    std::size_t i;
  };
  std::shared_ptr<started> at(std::size_t i) {
    std::lock_guard lock(mu_);
    return watches_.at(i);
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::shared_ptr<started>> watches_;
};

}  // namespace arbroker::api::testing
