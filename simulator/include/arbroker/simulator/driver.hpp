#pragma once
// The discrete-event driver: runs the engine's real actors (GIS, one CRS per cluster,
// broker; actors/) on CAF's deterministic test coordinator, single-threaded, with one
// virtual clock for the actors, the simulated LRMSs and CAF's timers. Time jumps from event
// to event: local job arrivals, reservation request arrivals, the LRMSs' job ends and
// reservation starts/ends (simulated_lrms::next_event_time), and CAF's pending timers.

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/simulator/scenario.hpp"

namespace arbroker::sim {

/// What happened to one local job.
struct job_record {
  std::int64_t id = 0;
  int cluster = 0;
  timestamp submit = 0;
  timestamp start = -1;  ///< -1: never started before the run ended
  timestamp end = -1;    ///< when it ended (completed, killed or cancelled); -1: never
  int np = 0;
  timestamp estimated_start = -1;  ///< local_job::estimate: the ESE's answer (-1: none)
  int pauses = 0;                  ///< restartable: times it was paused and requeued
  duration wait() const noexcept { return start < 0 ? -1 : start - submit; }
};

/// np CPUs busy over [from, to) on a cluster: one uninterrupted run of a job (a paused job
/// has several).
struct busy_span {
  int cluster = 0;
  timestamp from = 0;
  timestamp to = 0;
  int np = 0;
};

/// What the broker answered to one request (a copy of its reply).
struct request_record {
  std::int64_t id = 0;
  timestamp submit = 0;
  msg::elastic_reply reply;
  int cluster = -1;  ///< index of the cluster that holds the reservation, -1 on failure
  timestamp requested_start = 0;  ///< the request's earliest start (est)
  bool on_demand = false;         ///< as in the scenario
  int np = 0;                     ///< the request's reference size and length (its work)
  duration runtime = 0;
  /// request_arrival::job: when it first started and when it ended (-1: never).
  timestamp job_start = -1;
  timestamp job_end = -1;
  bool ok() const noexcept { return reply.error.ok(); }
};

/// Everything a run produced, in input order (jobs and requests as in the scenario).
struct sim_output {
  std::vector<job_record> jobs;
  std::vector<request_record> requests;
  std::vector<busy_span> busy;    ///< every run of every job, in the order they ended
  std::vector<int> cluster_cpus;  ///< per cluster, as in the scenario
  /// Per grid job (input order; a workflow's `request`, then its `with`): the grid job as the
  /// manager last knew it, after a last poll at the end (its end times are when the manager
  /// saw them, at poll granularity).
  std::vector<msg::grid_job_info> grid_jobs;
  std::int64_t grid_service_calls = 0;  ///< the manager's requests to the cluster services
  timestamp end_time = 0;               ///< virtual time of the last event
  std::uint64_t steps = 0;              ///< distinct event instants processed
};

struct driver_options {
  /// Called after each event instant with (virtual now, jobs done, jobs total) for
  /// progress displays; may be empty.
  std::function<void(timestamp, std::size_t, std::size_t)> progress;
};

/// Runs the scenario to its end (every arrival made, every job finished). Deterministic:
/// same scenario, same output. invalid_parameter for an unknown scheduler policy or a job
/// naming an unknown cluster; the first LRMS or actor setup error otherwise.
result<sim_output> run_simulation(const scenario& s, const driver_options& opt = {});

}  // namespace arbroker::sim
