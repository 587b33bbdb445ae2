#pragma once

// The client actors of arb-stress: each runs its planned operations one after the other
// against the broker and reports to a collector.

#include <chrono>
#include <deque>
#include <map>

#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/grid_jobs.hpp"
#include "stress_types.hpp"

namespace arbroker::stress {

struct client_state {
  /// Reservations a client holds: one id for an elastic booking, k for a co-reservation.
  struct booking {
    std::vector<std::string> ids;
    msg::reservation_info terms;  ///< of an elastic booking (for modify)
    bool elastic = true;
  };
  /// One logical client: its planned operations, run one after the other.
  struct client {
    std::vector<planned_op> ops;
    std::size_t next = 0;
    std::deque<booking> bookings;
    client_report report;
    std::chrono::steady_clock::time_point started;
  };
  broker_actor broker;
  grid_jobs_actor grid;
  caf::actor collector;
  std::vector<client> clients;  ///< never resized once running (indices are handles)
  std::size_t running = 0;      ///< clients not yet done
  static inline const char* name = "arb.stress.client";
};

/// An actor running `plans.size()` logical clients, client `first_id + i` with plan i, each
/// with one operation in flight at a time (as the node's gateway serves many network
/// clients from one actor). Each reports to the collector when done.
caf::behavior client_actor(caf::stateful_actor<client_state>* self, broker_actor broker,
                           grid_jobs_actor grid, caf::actor collector, std::int32_t first_id,
                           std::vector<std::vector<planned_op>> plans);

/// Spawns the client actors, `per_actor` logical clients each, in batches from inside an
/// actor (spawning thousands from a non-actor thread stalls CAF 0.17's work-stealing
/// scheduler).
caf::behavior launcher_actor(caf::event_based_actor* self, broker_actor broker,
                             grid_jobs_actor grid, caf::actor collector,
                             std::vector<std::vector<planned_op>> plans, std::size_t per_actor);

}  // namespace arbroker::stress
