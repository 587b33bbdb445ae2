#pragma once

// The tagged calls of one actor to cluster services (internal), one way for every caller:
// the coordinators' probes, advice and transactions, the grid-job manager's reserve flow and
// the decision settler's commits and releases. A call is sent `(call_tag, request)` as an
// ordinary message and its answer `(call_tag, reply)` comes back as one (protocols.hpp,
// cluster_service_actor), matched here by tag, one table per reply type (tagged_calls.hpp).
// The services called are monitored, so that the calls open to one that goes away are
// answered at once, with nullptr, instead of never (CAF requests are not used: their
// timeouts are never cancelled and their awaited responses are a linear map).
//
// The owner routes to complete() the `(call_tag, Reply)` messages of its behavior and to
// lost() its down messages.

#include <tuple>
#include <unordered_set>
#include <utility>

#include <caf/actor_addr.hpp>

#include "arbroker/actors/protocols.hpp"
#include "arbroker/actors/tagged_calls.hpp"

namespace arbroker {

template <class... Replies>
class service_calls {
 public:
  /// Sends `req` to `service` from `self`, tagged; `on_answer(Reply*)` gets the reply, or
  /// nullptr when the service went away first.
  template <class Reply, class Self, class Request, class F>
  void call(Self* self, const cluster_service_actor& service, Request req, F on_answer) {
    auto addr = service.address();
    if (watched_.insert(addr).second) self->monitor(service);
    auto tag = table<Reply>().add(addr, std::move(on_answer));
    self->send(service, tag, std::move(req));
  }

  /// The answer tagged `tag` (dropped when that call was answered already).
  template <class Reply>
  void complete(msg::call_tag tag, Reply& reply) {
    table<Reply>().complete(tag, reply);
  }

  /// `source` is down: if it is a service called, its open calls are answered with nullptr
  /// (a later call to it monitors it again and learns at once).
  void lost(const caf::actor_addr& source) {
    if (watched_.erase(source) == 0) return;
    (std::get<tagged_calls<Replies>>(tables_).lost(source), ...);
  }

  /// Calls not yet answered.
  std::size_t open() const { return (std::get<tagged_calls<Replies>>(tables_).open() + ...); }

 private:
  template <class Reply>
  tagged_calls<Reply>& table() {
    return std::get<tagged_calls<Reply>>(tables_);
  }

  std::tuple<tagged_calls<Replies>...> tables_;
  std::unordered_set<caf::actor_addr> watched_;  ///< services monitored
};

}  // namespace arbroker
