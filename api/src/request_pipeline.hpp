#pragma once

// One request's way through a front end between its decoding and its encoded answer, the
// same for both (the msgpack server, the HTTP server), which only read and write their format
// and keep their own limits:
//
//   about()    what the request names, for the audit hook (nothing is copied without one)
//   admit()    validated (validate.hpp) and acting for its caller (apply_caller)
//   run()      to the handler, with a done() that brings the answer back once, to a live
//              connection only (reply_once); a handler that throws answers `internal`
//   check()    the answer has the operation's body type, else it is an `internal` error
//   made()     the subject extended by what the answer made (granted ids, bound jobs)
//   report()   the metrics and audit hooks hear of every outcome, refusals included
//
// A pipeline is a small value that travels with its request; it points to its connection's
// caller and peer, which outlive it (the connection's finish runs while it holds the
// connection).

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include "arbroker/api/handler.hpp"
#include "arbroker/api/server.hpp"
#include "arbroker/api/validate.hpp"
#include "reply_channel.hpp"

namespace arbroker::api::detail {

class request_pipeline {
 public:
  using clock = std::chrono::steady_clock;

  request_pipeline(const server_events& events, const caller& who, const std::string& peer,
                   std::uint64_t id, operation op)
      : events_(&events), who_(&who), peer_(&peer), id_(id), op_(op), arrived_(clock::now()) {}

  std::uint64_t id() const noexcept { return id_; }
  operation op() const noexcept { return op_; }

  void about(const request_body& body) {
    if (events_->on_request_done) subject_ = subject_of(body);
  }

  status admit(request_body& body) const {
    fill_defaults(body, std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count());
    if (auto s = validate(body); !s) return s;
    return apply_caller(*who_, body);
  }

  /// Hands `req` to `handler`. The answer goes to `deliver(connection, pipeline, response)`
  /// (which posts to the connection's executor), once, while `channel` is open and the
  /// connection lives.
  template <class Connection, class Deliver>
  void run(request_handler& handler, request req, std::weak_ptr<Connection> connection,
           std::shared_ptr<reply_channel> channel, Deliver deliver) const {
    auto done = reply_once(std::move(connection), std::move(channel),
                           [pipeline = *this, deliver = std::move(deliver)](
                               const std::shared_ptr<Connection>& self, response r) {
                             deliver(self, pipeline, std::move(r));
                           });
    try {
      handler.handle(*who_, std::move(req), done);
    } catch (const std::exception& e) {
      done(error_response(id_, op_, fail(errc::internal, std::string("handler: ") + e.what())));
    }
  }

  void check(response& r) const {
    if (!reply_matches(op_, r.body))
      r = error_response(id_, op_,
                         fail(errc::internal, "the handler answered with the wrong body type"));
  }

  void made(const response_body& body) {
    if (!events_->on_request_done) return;
    auto m = subject_of(body);
    if (!m.empty() && m != subject_) subject_ += (subject_.empty() ? "" : "->") + m;
  }

  void report(std::uint8_t code, const std::string& message) const {
    const auto latency = clock::now() - arrived_;
    if (events_->on_response) events_->on_response(op_, code, latency);
    if (events_->on_request_done)
      events_->on_request_done(request_record{who_->user, *peer_, id_, op_, subject_, code,
                                              code == 0 ? std::string() : message, latency,
                                              who_->via});
  }
  void report(const error& e) const { report(static_cast<std::uint8_t>(e.code), e.message); }

 private:
  const server_events* events_;
  const caller* who_;
  const std::string* peer_;
  std::uint64_t id_;
  operation op_;
  clock::time_point arrived_;
  std::string subject_;
};

}  // namespace arbroker::api::detail
