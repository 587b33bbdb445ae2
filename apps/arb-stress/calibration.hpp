#pragma once

// The machine's speed as CAF sees it, measured before a run so that engine figures can be
// compared across machines: request/response round trips per second between two actors on
// the engine's own scheduler settings, with 16 requests in flight (a figure that depends
// only on the machine, its load and CAF, not on arbroker).

#include <caf/all.hpp>

namespace arbroker::stress {

struct calibration {
  double round_trips_per_second = 0;
  double seconds = 0;  ///< how long it was measured
};

/// Runs the ping-pong for about `seconds` on `sys` and reports the rate.
calibration measure_round_trips(caf::actor_system& sys, double seconds = 1.0);

}  // namespace arbroker::stress
