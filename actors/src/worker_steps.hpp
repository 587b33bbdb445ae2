#pragma once

// The steps of a short-lived worker of the broker, an actor per request (the co-reservation
// agent; elastic requests run on the pooled workers of elastic_worker.hpp): take its one
// request, pick its clusters, answer its client exactly once and end. Internal.

#include <exception>
#include <string>
#include <utility>

#include <caf/all.hpp>

#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/gis.hpp"
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

/// Picks the clusters fit for `q` from the directory the broker handed over (state
/// `directory`): `found(self, fit)` gets them; without a directory the worker ends through
/// `fail`. (The worker's deadline is kept by the broker, which sends it a timeout_atom.)
template <class Self, class Found, class Fail>
void start_with_directory(Self* self, const msg::gis_query& q, Found found, Fail fail) {
  auto& st = self->state;
  if (!st.directory.error.empty()) return fail(self, errc::unreachable, st.directory.error);
  found(self, fit(*st.directory.clusters, q));
}

}  // namespace arbroker
