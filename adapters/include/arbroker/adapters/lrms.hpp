#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/core/earliest_start.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/job_requirements.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// A job as a local resource manager reports it.
struct lrms_job {
  std::string id;
  std::string owner;
  int np = 0;
  duration walltime = 0;  ///< the job's wall time limit
  timestamp submitted = 0;
  std::optional<timestamp> started;        ///< set for running jobs
  std::optional<std::string> reservation;  ///< id of the reservation it is bound to
  std::string name;  ///< as submitted (grid-job copies are found again by it after a crash)
  /// A queued job that may not start before this (Slurm --begin, Grid Engine -a); 0: none.
  timestamp not_before = 0;
  /// The jobs it waits for (Slurm --dependency, Grid Engine -hold_jid), by LRMS id.
  std::vector<std::string> after = {};
  /// Why the plan of the queue only approximates this queued job ("" when it models all it
  /// waits for): held, bound to nodes or a queue, in another partition, an error state. Such
  /// a job is planned as if it could start on any CPU as soon as its begin time and its
  /// predecessors allow, so it blocks reservations rather than being overtaken by them.
  std::string approximation = {};
  friend bool operator==(const lrms_job&, const lrms_job&) = default;
};

/// A reservation as the LRMS holds it.
struct lrms_reservation {
  std::string id;
  std::string name;  ///< arbroker names its own with a prefix, to find them again
  std::string owner;
  timestamp start = 0;
  timestamp end = 0;
  int np = 0;
  std::string account = {};  ///< charged for it, where the LRMS says ("" otherwise)
  friend bool operator==(const lrms_reservation&, const lrms_reservation&) = default;
};

/// Everything the LRMS knows that bears on future capacity, at time `now`.
struct lrms_snapshot {
  timestamp now = 0;
  int cpus = 0;
  /// The longest walltime the LRMS lets a job have (Slurm: the partition's MaxTime; Grid
  /// Engine: the queues' h_rt); 0 when it sets none or does not say.
  duration max_walltime = 0;
  reservable_sizes sizes;
  /// How long past a running job's walltime the LRMS still counts its CPUs as taken when it
  /// checks a new reservation: the batch system's own rule at the boundary (Slurm 1 s: it
  /// refuses a reservation starting at a job's EndTime, `_pick_node_cnt` keeps a job whose
  /// end_time >= the start; Grid Engine its scheduler's DURATION_OFFSET, 60 s by default).
  /// Every start arbroker proposes or suggests after a running job leaves this much.
  duration job_end_margin = 0;
  std::vector<lrms_job> running;  ///< `started` set
  std::vector<lrms_job> queued;   ///< in queue (FIFO) order
  std::vector<lrms_reservation> reservations;
};

/// What to reserve: np CPUs over [start, start + length).
struct reservation_spec {
  std::string name;
  std::string owner;
  timestamp start = 0;
  duration length = 0;
  int np = 0;
  /// Paper 003, Sec. 3.1: the account to charge ("" = the owner's default). Jobs bound to
  /// the reservation run under it too (Slurm lets only jobs of its accounts in).
  std::string account = {};
  friend bool operator==(const reservation_spec&, const reservation_spec&) = default;
};

/// What to run; always with a walltime. A job bound to a reservation runs inside it.
struct job_spec {
  std::string name;
  std::string owner;
  int np = 0;
  duration walltime = 0;
  std::optional<std::string> reservation;
  std::string command;       ///< for real LRMS; the simulated one ignores it
  std::string account = {};  ///< to charge ("" = the owner's default)
  /// What its nodes need (the OS is the cluster's: not passed). An LRMS runs it only on nodes
  /// that meet them, and refuses it (infeasible) when none can.
  job_requirements needs = {};
  /// Not to start before this (Slurm --begin, Grid Engine -a); 0 or a time already past:
  /// at once. A grid job's copy waits so for its inputs (grid_jobs_config::hold_for_stage_in).
  timestamp not_before = 0;
};

/// `lost`: ended by the infrastructure, not by the job (Slurm NODE_FAIL or BOOT_FAIL): a
/// grid job may be placed again elsewhere (docs/grid-jobs.md, "Resubmission").
enum class lrms_job_state { queued, running, completed, cancelled, failed, lost };
std::string_view to_string(lrms_job_state s) noexcept;

/// The one interface every cluster backend implements: the simulated clusters of
/// sim_backend/ and the real Slurm and Grid Engine adapters. A cluster reservation service
/// owns exactly one. Calls are synchronous and bounded in time: a slow or dead LRMS gives
/// errc::timeout or errc::unreachable, never a hang. Errors use errc: busy (CPUs taken or
/// overlap), invalid_window (start in the past, empty interval), invalid_processor_range,
/// permission_denied (unknown user), not_found, in_use, unreachable, timeout, lrms_failure.
class lrms {
 public:
  virtual ~lrms() = default;

  /// "simulated", "slurm", "gridengine".
  virtual std::string_view kind() const noexcept = 0;

  virtual result<lrms_snapshot> snapshot() = 0;

  /// A snapshot of the jobs alone (`reservations` empty), for a caller that needs no
  /// reservations (a job's state, name or owner) or keeps track of them itself between full
  /// snapshots (a cluster service's capacity view). The default takes a full snapshot; an
  /// LRMS that can read its jobs alone more cheaply overrides it.
  virtual result<lrms_snapshot> jobs_snapshot();

  /// A number that changes whenever what jobs_snapshot() reports changes other than by time
  /// passing (a job submitted, started, ended, requeued, rebound, its walltime raised), so
  /// that a caller who read the jobs at this instant need not read them again while it is
  /// the same; nothing when the LRMS cannot say (the default: a real LRMS is read).
  virtual std::optional<std::uint64_t> jobs_version() { return std::nullopt; }

  /// A number that changes whenever the reservations change other than through this
  /// object's own reservation calls (create, delete, modify, extend) or by ending at their
  /// end: a failure that drops them, someone else's reservation. So the one caller of those
  /// calls, who keeps what they did (a cluster service's capacity view), knows that its
  /// reservations are still the LRMS's while it is the same, and need not list them again.
  /// Nothing when the LRMS cannot say (the default: a real LRMS is shared with its site, an
  /// LRMS with several callers is read).
  virtual std::optional<std::uint64_t> reservations_version() { return std::nullopt; }

  /// The rest of a snapshot() begun by begin_snapshot(): run it once, on any thread.
  using snapshot_rest = std::function<result<lrms_snapshot>()>;
  /// A snapshot() in two steps, for a caller that must not wait for the whole listing (a
  /// cluster service's periodic full read, lrms_view.hpp): what must be read on the caller's
  /// thread is read now, and the function returned reads the rest on another thread while
  /// this LRMS goes on being called. It does not use this object (it may outlive it). The
  /// default reads snapshot() now and the function returns it; an LRMS that can list beside
  /// its own calls overrides it (Slurm: on its libslurm thread; the simulated LRMS takes its
  /// listing now without copying it, and sorts and names it later).
  virtual snapshot_rest begin_snapshot();

  /// Creates a reservation; returns its LRMS id. Must check capacity against running jobs
  /// and other reservations (busy), never overbook.
  virtual result<std::string> create_reservation(const reservation_spec& spec) = 0;

  virtual status delete_reservation(const std::string& id) = 0;

  /// Replaces a reservation by new terms without a moment of overbooking or loss: the new
  /// one is created first, then the old deleted (make-before-break). Returns the id of the
  /// reservation now holding the terms (which may differ from `id`). On error the old
  /// reservation is unchanged.
  virtual result<std::string> modify_reservation(const std::string& id,
                                                 const reservation_spec& new_terms) = 0;

  /// Paper 002, Sec. 5.3 (overruns): lets reservation `id` end at `new_end` instead, in place
  /// (same id, started or not), and lets the jobs running in it run until then (their time
  /// limits raised to new_end - their start). The caller has checked that the CPUs are free
  /// over [end, new_end); an LRMS that checks too says busy. infeasible where the LRMS cannot
  /// (the default: Grid Engine changes neither an advance reservation nor a running job's
  /// h_rt), not_found for an unknown or ended reservation, invalid_window unless new_end is
  /// after its end.
  virtual status extend_reservation(const std::string& id, timestamp new_end);
  virtual result<std::string> submit_job(const job_spec& spec) = 0;
  /// Its nodes grouped alike (CPUs, memory, features), for the cluster to publish; empty
  /// when the LRMS does not say (the default).
  virtual result<std::vector<node_group>> node_groups();
  virtual status cancel_job(const std::string& id) = 0;
  virtual result<lrms_job_state> job_status(const std::string& id) = 0;
};

/// The ESE/T_wkl view of a snapshot: remaining walltimes of running jobs (never below one
/// second), walltimes of queued jobs in order, and the reservations' spans. Jobs bound to a
/// reservation run inside it and are not counted again.
cluster_workload to_workload(const lrms_snapshot& s);

}  // namespace arbroker
