#pragma once

// How the broker's short-lived workers (elastic worker, co-reservation agent) answer their
// client: exactly once, then they end. Internal.

#include <utility>

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

}  // namespace arbroker
