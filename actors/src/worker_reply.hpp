#pragma once

// How the broker's short-lived workers (elastic worker, co-reservation agent) answer their
// client: exactly once, then they end. Internal.

#include <exception>
#include <string>
#include <utility>

#include <caf/all.hpp>

#include "arbroker/core/error.hpp"

namespace arbroker {

/// Delivers `reply` unless the worker already answered, with the earliest alternative start
/// the worker saw when the reply has none, and ends the worker. Needs a state with `done`,
/// `rp` (the client's response promise) and `earliest_alternative`.
template <class Self, class Reply>
void answer_once(Self* self, Reply reply) {
  auto& st = self->state;
  if (st.done) return;
  st.done = true;
  if (reply.earliest_alternative < 0) reply.earliest_alternative = st.earliest_alternative;
  st.rp.deliver(std::move(reply));
  self->quit();
}

/// Takes the worker's one request: keeps the client's promise and runs `start`; an
/// exception (which would kill the actor and leave the client waiting) becomes an error
/// reply through `fail`.
template <class Self, class Request, class Start, class Fail>
caf::response_promise take_request(Self* self, Request& req, Start start, Fail fail) {
  self->state.rp = self->make_response_promise();
  try {
    start(self, std::move(req));
  } catch (const std::exception& e) {
    fail(self, errc::lrms_failure, std::string("internal error: ") + e.what());
  }
  return self->state.rp;
}

}  // namespace arbroker
