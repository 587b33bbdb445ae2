#pragma once

// The auditor of arb-stress: while clients run, it asks every cluster service for its status
// and checks capacity, hold expiry and local-jobs-preferred on each, round after round; with
// a grid-job manager, each round first lets a job-state round of the manager settle, then
// checks the grid invariants on the statuses and the manager's list (grid_watch).
// An audit's cost grows with the reservations the services keep, so the pause between two
// rounds grows with it (at least the interval, at least 3 times the last round's duration):
// the checks stay continuous and take at most about a quarter of the engine's time.

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/grid_jobs.hpp"
#include "arbroker/messages/cluster_protocol.hpp"
#include "audit.hpp"

namespace arbroker::stress {

struct auditor_state {
  std::vector<cluster_service_actor> services;
  grid_jobs_actor grid;         ///< may be null: no grid checks
  std::set<std::string> users;  ///< the clients' users (whose LRMS jobs are grid copies)
  grid_watch watch;
  int interval_ms = 200;
  duration tick = 2;  ///< slack for hold expiry: one second of clock resolution + one audit
  long long audits = 0;
  long long grid_looks = 0;
  int pending = 0;                            ///< replies the current round still waits for
  std::vector<msg::cluster_status> statuses;  ///< of the current round
  std::chrono::steady_clock::time_point round_start;
  long long violations = 0;
  std::vector<std::string> examples;  ///< the first few violations
  static inline const char* name = "arb.stress.auditor";
};

/// audit_atom: one round (and the next is scheduled); stop_atom -> (audits, grid looks,
/// violations, examples).
caf::behavior auditor_actor(caf::stateful_actor<auditor_state>* self,
                            std::vector<cluster_service_actor> services, int interval_ms,
                            grid_jobs_actor grid, std::set<std::string> users);

}  // namespace arbroker::stress
