#pragma once

// The node's way into the engine from threads that are not actors (network threads, an
// embedding application): one long-lived actor runs small tasks that issue requests to the
// engine's actors and hand the replies to callbacks. Spawning an actor per call from a
// foreign thread would stall CAF's work-stealing (see docs/caf notes); a blocking
// scoped_actor per call would cost a thread each.

#include <caf/all.hpp>

#include <functional>

namespace arbroker {

/// Runs inside the gateway actor; may issue requests with self->request(...).then(...).
struct gateway_task {
  std::function<void(caf::event_based_actor*)> run;
};

caf::behavior gateway_actor(caf::event_based_actor* self);

}  // namespace arbroker

// Local only (a task is never serialized): lets CAF carry it in a message.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(arbroker::gateway_task)
