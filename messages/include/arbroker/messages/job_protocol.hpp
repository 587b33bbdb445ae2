#pragma once

// Messages between the broker's grid-job manager and a cluster service about best-effort
// jobs in the cluster's batch queue (the copies of grid jobs). Only the manager sends them:
// it has checked the owner of the grid job; the LRMS job ids it names are its own copies.
// Every reply carries a wire_error (code 0 = success).

#include <cstdint>
#include <string>
#include <vector>

#include "arbroker/core/grid_job.hpp"
#include "arbroker/messages/fields.hpp"
#include "arbroker/messages/wire_error.hpp"

namespace arbroker::msg {

/// Queue one copy of a grid job (no reservation): np CPUs for at most walltime seconds.
struct job_submit_request {
  std::string user;
  std::string name;  ///< the LRMS job name: the service prefixes it with its name prefix
  std::string command;
  std::int32_t np = 1;
  std::int64_t walltime = 0;
  /// What its nodes need (core/job_requirements.hpp), passed to the LRMS.
  std::int64_t mem_per_cpu = 0;
  std::int64_t mem_per_node = 0;
  std::vector<std::string> features = {};
  /// Not to start before this (UNIX seconds; 0: at once): a grid job's copy waiting for its
  /// inputs to arrive (grid_jobs_config::hold_for_stage_in).
  std::int64_t not_before = 0;
  friend bool operator==(const job_submit_request&, const job_submit_request&) = default;
};
ARB_FIELDS(job_submit_request, x.user, x.name, x.command, x.np, x.walltime, x.mem_per_cpu,
           x.mem_per_node, x.features, x.not_before)

struct job_submit_reply {
  std::string cluster;
  std::string lrms_id;
  wire_error error;
  friend bool operator==(const job_submit_reply&, const job_submit_reply&) = default;
};
ARB_FIELDS(job_submit_reply, x.cluster, x.lrms_id, x.error)

/// The states of some jobs, from one look at the LRMS (plus one status call per job that
/// has left the queue).
struct job_states_request {
  std::vector<std::string> lrms_ids;
  friend bool operator==(const job_states_request&, const job_states_request&) = default;
};
ARB_FIELDS(job_states_request, x.lrms_ids)

/// An LRMS's event hook: these of its jobs changed state (started, paused, ended). The
/// simulator sends it so that the grid-job manager looks at them at that instant instead of
/// at its next poll; a real LRMS is polled.
struct lrms_job_events {
  std::string cluster;
  std::vector<std::string> lrms_ids;
  friend bool operator==(const lrms_job_events&, const lrms_job_events&) = default;
};
ARB_FIELDS(lrms_job_events, x.cluster, x.lrms_ids)

struct job_state_report {
  std::string lrms_id;
  observed_state state = observed_state::queued;
  std::int64_t started = -1;  ///< when it started, if running and known
  wire_error error;           ///< this job's: its state is unknown
  friend bool operator==(const job_state_report&, const job_state_report&) = default;
};
ARB_FIELDS(job_state_report, x.lrms_id, x.state, x.started, x.error)

struct job_states_reply {
  std::string cluster;
  std::vector<job_state_report> jobs;  ///< in the order asked
  wire_error error;                    ///< the LRMS could not be read at all
  friend bool operator==(const job_states_reply&, const job_states_reply&) = default;
};
ARB_FIELDS(job_states_reply, x.cluster, x.jobs, x.error)

/// Cancel a job; with only_if_queued (a migration's withdrawal) a running job is left running.
struct job_cancel_request {
  std::string lrms_id;
  bool only_if_queued = false;
  friend bool operator==(const job_cancel_request&, const job_cancel_request&) = default;
};
ARB_FIELDS(job_cancel_request, x.lrms_id, x.only_if_queued)

struct job_cancel_reply {
  std::string lrms_id;
  observed_state found = observed_state::queued;  ///< its state when the cancel arrived
  wire_error error;
  friend bool operator==(const job_cancel_reply&, const job_cancel_reply&) = default;
};
ARB_FIELDS(job_cancel_reply, x.lrms_id, x.found, x.error)

/// The LRMS ids of jobs by their names (the service adds its name prefix), from one look
/// at the LRMS: how recovery finds a copy whose submission was never answered.
struct job_find_request {
  std::vector<std::string> names;
  friend bool operator==(const job_find_request&, const job_find_request&) = default;
};
ARB_FIELDS(job_find_request, x.names)

struct job_find_reply {
  std::vector<std::string> lrms_ids;  ///< per name; "" when no queued or running job has it
  wire_error error;
  friend bool operator==(const job_find_reply&, const job_find_reply&) = default;
};
ARB_FIELDS(job_find_reply, x.lrms_ids, x.error)

struct queue_shape {
  std::int32_t np = 1;
  std::int64_t walltime = 0;
  friend auto operator<=>(const queue_shape&, const queue_shape&) = default;
};
ARB_FIELDS(queue_shape, x.np, x.walltime)

/// The cluster's outlook from one plan of its queue (paper 004's ESE, local jobs first):
/// when each shape would start if submitted now, and when each of the named queued jobs is
/// planned to start where it stands. One request per cluster per adaptation round, whatever
/// the number of jobs.
struct job_outlook_request {
  std::vector<queue_shape> shapes;
  std::vector<std::string> queued_ids;
  friend bool operator==(const job_outlook_request&, const job_outlook_request&) = default;
};
ARB_FIELDS(job_outlook_request, x.shapes, x.queued_ids)

struct job_outlook_reply {
  std::string cluster;
  std::int64_t now = 0;
  std::vector<std::int64_t> starts;         ///< per shape; -1: never (larger than the cluster)
  std::vector<std::int64_t> queued_starts;  ///< per id; -1: not in the queue
  wire_error error;
  /// Paper 004's SED inputs (eq. 4): CPUs of the running and queued jobs, and the longest
  /// walltime among them (the LRMS's per-job limit is not known; as the match advisor).
  std::int32_t busy_cores = 0;
  std::int64_t longest_walltime = 0;
  friend bool operator==(const job_outlook_reply&, const job_outlook_reply&) = default;
};
ARB_FIELDS(job_outlook_reply, x.cluster, x.now, x.starts, x.queued_starts, x.error, x.busy_cores,
           x.longest_walltime)

}  // namespace arbroker::msg
