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

}  // namespace arbroker::api::testing
