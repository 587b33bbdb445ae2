#pragma once

// The client actors of arb-stress: each runs its planned operations one after the other
// against the broker and reports to a collector.

#include <chrono>
#include <deque>
#include <map>

#include "arbroker/actors/engine.hpp"
#include "stress_types.hpp"

namespace arbroker::stress {

struct client_state {
  /// Reservations the client holds: one id for an elastic booking, k for a co-reservation.
  struct booking {
    std::vector<std::string> ids;
    msg::reservation_info terms;  ///< of an elastic booking (for modify)
    bool elastic = true;
  };
  caf::actor broker;
  caf::actor collector;
  std::vector<planned_op> ops;
  std::size_t next = 0;
  std::deque<booking> bookings;
  client_report report;
  std::chrono::steady_clock::time_point started;
  static inline const char* name = "arb.stress.client";
};

caf::behavior client_actor(caf::stateful_actor<client_state>* self, caf::actor broker,
                           caf::actor collector, std::int32_t id, std::vector<planned_op> ops);

/// Spawns `count` clients in batches from inside an actor (spawning thousands from a
/// non-actor thread stalls CAF 0.17's work-stealing scheduler).
caf::behavior launcher_actor(caf::event_based_actor* self, caf::actor broker, caf::actor collector,
                             std::vector<std::vector<planned_op>> plans);

}  // namespace arbroker::stress
