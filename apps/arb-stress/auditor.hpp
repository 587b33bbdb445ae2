#pragma once

// The auditor of arb-stress: while clients run, it asks every cluster service for its status
// and checks capacity, hold expiry and local-jobs-preferred on each, round after round.
// An audit's cost grows with the reservations the services keep, so the pause between two
// rounds grows with it (at least the interval, at least 3 times the last round's duration):
// the checks stay continuous and take at most about a quarter of the engine's time.

#include <chrono>
#include <string>
#include <vector>

#include "arbroker/actors/engine.hpp"

namespace arbroker::stress {

struct auditor_state {
  std::vector<cluster_service_actor> services;
  int interval_ms = 200;
  duration tick = 2;  ///< slack for hold expiry: one second of clock resolution + one audit
  long long audits = 0;
  int pending = 0;  ///< replies the current round still waits for
  std::chrono::steady_clock::time_point round_start;
  long long violations = 0;
  std::vector<std::string> examples;  ///< the first few violations
  static inline const char* name = "arb.stress.auditor";
};

/// audit_atom: one round (and the next is scheduled); stop_atom -> (audits, violations,
/// examples).
caf::behavior auditor_actor(caf::stateful_actor<auditor_state>* self,
                            std::vector<cluster_service_actor> services, int interval_ms);

}  // namespace arbroker::stress
