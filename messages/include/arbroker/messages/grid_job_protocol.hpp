#pragma once

// Clients' grid jobs (core/grid_job.hpp): submit one, look at it, list, cancel. The same
// bodies travel on the network API (docs/protocol.md, operations grid_submit..grid_cancel).

#include <cstdint>
#include <string>
#include <vector>

#include "arbroker/core/grid_job.hpp"
#include "arbroker/messages/fields.hpp"
#include "arbroker/messages/runtime_hints.hpp"
#include "arbroker/messages/wire_error.hpp"

namespace arbroker::msg {

struct grid_submit_request {
  std::string user;
  std::string name;
  std::string command;
  std::int32_t np = 1;
  std::int64_t walltime = 0;  ///< 0 with benchmarks: from the benchmarks (their maximum)
  grid_strategy strategy = grid_strategy::single;
  std::int32_t width = 3;
  std::int64_t min_gain = -1;        ///< -1: the node's default
  std::int32_t max_migrations = -2;  ///< -2: the node's default; -1: unbounded
  std::vector<benchmark_triple> benchmarks;
  double penalty = 1.25;  ///< c, for a benchmark a cluster does not publish
  std::vector<input_file> inputs;
  std::int64_t output_bytes = -1;     ///< -1: unknown (stage-out left out of the TTD)
  std::vector<std::string> clusters;  ///< only these (empty: any)
  /// reserve: pick the hold with the earliest finish by paper 004's eq. 7 as printed
  /// (start + the site's TTD, which counts the wait twice) instead of start + run time.
  bool finish_by_eq7 = false;
  /// start: by the time to delivery from each cluster's planned earliest start (the
  /// outlook's); sed: by paper 004's SED delay, as its experiments rank.
  grid_ranking ranking = grid_ranking::start;
  /// Placements again after an infrastructure failure (node failure, cluster unreachable past
  /// the node's grace, copy lost); -1: the node's default.
  std::int32_t max_resubmits = -1;
  /// Placements again after the job's own failure (non-zero exit, walltime).
  std::int32_t retry_on_failure = 0;
  /// reserve: when no cluster grants a hold (the best `width`, then the next ones, in turn),
  /// place the job as a flood of `width` copies instead of failing.
  bool fallback_flood = false;
  /// Paper 004 eq. 1-3: the CPU power (as clusters publish `pp`) the walltime holds for; on a
  /// cluster of power pp the job runs walltime x pp_ref / pp. 0: the walltime holds everywhere.
  /// Benchmarks, when given, take precedence.
  double pp_ref = 0;
  /// Needs of the nodes it runs on (core/job_requirements.hpp): placed only where enough
  /// CPUs meet them, and passed to the LRMS (Slurm --mem-per-cpu/--mem/--constraint, Grid
  /// Engine -l). Memory in MiB, 0: none; one of the two at most.
  std::int64_t mem_per_cpu = 0;
  std::int64_t mem_per_node = 0;
  std::vector<std::string> features = {};  ///< all of them on every node it uses
  std::string os = {};                     ///< the cluster's OS ("" = any)
  /// Jobs of the same user it waits for: "ID" or "ID:ok" (it runs once they completed),
  /// "ID:any" (once they ended, however). Placed then; when one ends otherwise, it fails.
  std::vector<std::string> after = {};
  /// A parent that ended otherwise than asked cancels this job (and so its own children)
  /// instead of failing it.
  bool cancel_if_parent_fails = false;
  /// Its parents' declared outputs (output_bytes) are its input, held where they ran
  /// (input_file `cluster:NAME`): it prefers those clusters by the time the data would take
  /// to move. False: placed as if the outputs were nowhere.
  bool locality = true;
  friend bool operator==(const grid_submit_request&, const grid_submit_request&) = default;
};
ARB_FIELDS(grid_submit_request, x.user, x.name, x.command, x.np, x.walltime, x.strategy, x.width,
           x.min_gain, x.max_migrations, x.benchmarks, x.penalty, x.inputs, x.output_bytes,
           x.clusters, x.finish_by_eq7, x.ranking, x.max_resubmits, x.retry_on_failure,
           x.fallback_flood, x.pp_ref, x.mem_per_cpu, x.mem_per_node, x.features, x.os, x.after,
           x.cancel_if_parent_fails, x.locality)

/// Several jobs in one request (a small workflow): each job's `after` may name another of
/// the request by its `name` (`prep`, `prep:any`) as well as an existing job by id. Every
/// name is unique in the request, and the jobs with their dependencies form no cycle. All are
/// taken or none: the jobs whose parents are met are placed, the others wait.
struct grid_submit_many_request {
  std::string user;
  std::vector<grid_submit_request> jobs;  ///< their own `user` is the request's
  friend bool operator==(const grid_submit_many_request&,
                         const grid_submit_many_request&) = default;
};
ARB_FIELDS(grid_submit_many_request, x.user, x.jobs)

/// The needs the request names.
inline job_requirements needs_of(const grid_submit_request& r) {
  return {r.mem_per_cpu, r.mem_per_node, r.features, r.os};
}

struct grid_copy_info {
  std::string cluster;
  std::string lrms_id;
  copy_state state = copy_state::submitting;
  std::int64_t submitted = 0;
  std::int64_t started = -1;
  std::int64_t ended = -1;
  std::string reason;
  bool lost = false;  ///< ended by the infrastructure, not by the job
  friend bool operator==(const grid_copy_info&, const grid_copy_info&) = default;
};
ARB_FIELDS(grid_copy_info, x.cluster, x.lrms_id, x.state, x.submitted, x.started, x.ended, x.reason,
           x.lost)

struct grid_event_info {
  std::int64_t at = 0;
  std::int32_t copy = -1;
  std::string what;
  friend bool operator==(const grid_event_info&, const grid_event_info&) = default;
};
ARB_FIELDS(grid_event_info, x.at, x.copy, x.what)

struct grid_job_info {
  std::string id;
  std::string owner;
  std::string name;
  grid_strategy strategy = grid_strategy::single;
  grid_job_state state = grid_job_state::pending;
  std::int32_t np = 0;
  std::int64_t walltime = 0;
  std::int64_t submitted = 0;
  std::int64_t started = -1;
  std::int64_t ended = -1;
  std::int32_t winner = -1;  ///< the copy that ran
  std::int32_t migrations = 0;
  std::int32_t duplicate_starts = 0;
  std::int64_t migration_gain = 0;
  std::vector<grid_copy_info> copies;
  std::vector<grid_event_info> history;
  std::string reservation;            ///< strategy reserve: the reservation it runs in
  std::int32_t resubmits = 0;         ///< placed again after infrastructure failures ...
  std::int32_t max_resubmits = 0;     ///< ... of at most this many
  std::int32_t retries = 0;           ///< placed again after its own failures ...
  std::int32_t retry_on_failure = 0;  ///< ... of at most this many
  std::int64_t mem_per_cpu = 0;       ///< its needs, as submitted (MiB; 0: none)
  std::int64_t mem_per_node = 0;
  std::vector<std::string> features = {};
  std::string os = {};
  friend bool operator==(const grid_job_info&, const grid_job_info&) = default;
};
ARB_FIELDS(grid_job_info, x.id, x.owner, x.name, x.strategy, x.state, x.np, x.walltime, x.submitted,
           x.started, x.ended, x.winner, x.migrations, x.duplicate_starts, x.migration_gain,
           x.copies, x.history, x.reservation, x.resubmits, x.max_resubmits, x.retries,
           x.retry_on_failure, x.mem_per_cpu, x.mem_per_node, x.features, x.os)

/// The wire form of a grid job.
grid_job_info info_of(const grid_job& j);

struct grid_job_reply {
  grid_job_info job;
  wire_error error;
  friend bool operator==(const grid_job_reply&, const grid_job_reply&) = default;
};
ARB_FIELDS(grid_job_reply, x.job, x.error)

/// The jobs of a grid_submit_many_request, in its order (none with an error).
struct grid_submit_many_reply {
  std::vector<grid_job_info> jobs;
  wire_error error;
  friend bool operator==(const grid_submit_many_reply&, const grid_submit_many_reply&) = default;
};
ARB_FIELDS(grid_submit_many_reply, x.jobs, x.error)

/// One grid job by id. An admin's empty user reaches any owner's job.
struct grid_query_request {
  std::string user;
  std::string id;
  friend bool operator==(const grid_query_request&, const grid_query_request&) = default;
};
ARB_FIELDS(grid_query_request, x.user, x.id)

struct grid_cancel_request {
  std::string user;
  std::string id;
  friend bool operator==(const grid_cancel_request&, const grid_cancel_request&) = default;
};
ARB_FIELDS(grid_cancel_request, x.user, x.id)

/// A user's grid jobs (an admin's empty user: everyone's), newest first, optionally only in
/// one state ("" = any) or with a copy on one cluster ("" = any): those the node holds (the
/// active ones and those ended within the last `ended_in_memory`). With `history`, the
/// active ones and then the ended ones from the store, most recently ended first, by pages
/// (the store keeps them for the retention).
struct grid_list_request {
  std::string user;
  std::string state;
  std::string cluster;
  bool history = false;
  std::int32_t limit = 0;   ///< ended ones per page (0: 100; at most 1000)
  std::string before = {};  ///< the `next` of the previous page ("" : the most recent)
  friend bool operator==(const grid_list_request&, const grid_list_request&) = default;
};
ARB_FIELDS(grid_list_request, x.user, x.state, x.cluster, x.history, x.limit, x.before)

struct grid_list_reply {
  std::vector<grid_job_info> jobs;
  wire_error error;
  std::string next = {};  ///< with history: where the next page starts ("" : no more)
  friend bool operator==(const grid_list_reply&, const grid_list_reply&) = default;
};
ARB_FIELDS(grid_list_reply, x.jobs, x.error, x.next)

}  // namespace arbroker::msg
