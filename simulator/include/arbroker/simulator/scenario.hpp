#pragma once
// What a simulation run is made of: clusters, local batch jobs and reservation requests,
// all on one virtual time axis (seconds).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arbroker/actors/cluster_policy.hpp"
#include "arbroker/core/time.hpp"
#include "arbroker/messages/broker_protocol.hpp"
#include "arbroker/messages/grid_job_protocol.hpp"

namespace arbroker::sim {

/// The policy of a simulated cluster's service (cluster_policy.hpp): a daemon's but for three
/// defaults: the view is read on every call (no staleness in the experiments), and Local Jobs
/// Preferred lets each request decide and checks paper 000's T_wkl, as the recorded
/// experiments did.
inline cluster_policy simulated_policy() {
  cluster_policy p;
  p.refresh = 0;
  p.ljp = ljp_policy::by_default;
  p.ljp_check = ljp_method::twkl;
  return p;
}

/// One simulated cluster: its CRS is registered at the GIS and owns a simulated_lrms.
struct cluster_spec {
  std::string name;
  int cpus = 0;
  double pp = 1.0;  ///< processor power (the requests' pp_ref scale)
  int bunch = 1;    ///< reservable CPU multiples
  double unit_cost = 1.0;
  /// Bytes/s that data moves to it (a grid job's inputs: its stage-in); 0: not said.
  double bandwidth = 0;
  /// The local scheduler policy: "fcfs", "easy" or "conservative" (simulated_lrms's
  /// scheduling_policy); anything else is refused by run_simulation.
  std::string scheduler = "fcfs";
  cluster_policy policy = simulated_policy();  ///< its service's: T_wkl accuracies, LJP, laxity
};

/// A batch job submitted straight to a cluster's LRMS (not through the broker).
struct local_job {
  std::int64_t id = 0;  ///< the trace's job number, for the output
  int cluster = 0;      ///< index into scenario::clusters
  timestamp submit = 0;
  int np = 1;
  duration walltime = 1;  ///< the limit the scheduler plans with
  duration runtime = 1;   ///< how long it really runs (killed at walltime)
  std::string owner = "local";
  /// Paused and queued again at its walltime instead of killed (paper 001).
  bool restartable = false;
  /// Ask the cluster's ESE (the CRS's estimate) when this job would start, just before it is
  /// submitted (paper 004 Sec. IV-D); the answer lands in job_record::estimated_start.
  bool estimate = false;
};

/// A job that runs inside the reservation a request obtains, bound to it from the moment
/// the broker grants it: np = the reservation's, walltime = the reservation's length.
struct bound_job {
  duration runtime = 1;  ///< how long it really runs
  /// At the reservation's end with work left: paused and queued again as a local job
  /// (restartable, paper 001) or killed.
  bool restartable = false;
};

/// An elastic reservation request sent to the broker at `submit`.
struct request_arrival {
  std::int64_t id = 0;  ///< the trace's job number it came from, for the output
  timestamp submit = 0;
  msg::elastic_request request;
  std::optional<bound_job> job = std::nullopt;  ///< run inside the granted reservation, if any
  /// An on-demand job (paper 002) rather than an advance reservation, for the metrics only.
  bool on_demand = false;
};

/// A grid job (docs/grid-jobs.md) sent to the node's grid-job manager at `submit`. Its copies
/// run their walltime in the simulated LRMSs (the manager sends no actual runtime).
struct grid_arrival {
  std::int64_t id = 0;  ///< the trace's job number it came from, for the output
  timestamp submit = 0;
  msg::grid_submit_request request;
  /// A workflow: the jobs submitted with `request` in one request (msg::grid_submit_many_
  /// request; their `after` may name `request` and each other by name).
  std::vector<msg::grid_submit_request> with = {};
};

/// A cluster whose nodes all fail at `at` (simulated_lrms::fail_all_nodes): its jobs, queued,
/// running and in reservations, end lost; it takes nothing from then on, and local jobs that arrive
/// for it later are not submitted (they never start).
struct cluster_failure {
  int cluster = 0;  ///< index into scenario::clusters
  timestamp at = 0;
  std::string why = "every node failed";
};

struct scenario {
  std::vector<cluster_spec> clusters;
  std::vector<cluster_failure> failures;
  std::vector<local_job> jobs;
  std::vector<request_arrival> requests;
  std::vector<grid_arrival> grid_jobs;
  /// The manager's job-state polls, virtual seconds; 0 (default): none, the simulated LRMSs'
  /// job events tell it when a copy starts or ends, at that instant.
  duration grid_poll_interval = 0;
  /// false: the manager learns only from its polls, as with a real LRMS (needs polls).
  bool grid_event_hooks = true;
  duration grid_adaptation_interval = 60;  ///< its adaptation rounds
  /// The simulated grid moves a copy's inputs while it is queued: it starts no earlier than
  /// their arrival (grid_jobs_config::hold_for_stage_in).
  bool grid_stages_inputs = true;
  /// The share of the evaluated jobs a round may move (grid_jobs_config::migration_share):
  /// 1, paper 003's rule (every job that gains moves), unlike a node's default.
  double grid_migration_share = 1;
};

}  // namespace arbroker::sim
