#pragma once

#include <vector>

#include "arbroker/core/availability_profile.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"
#include "arbroker/core/workload.hpp"

namespace arbroker {

/// What a cluster's LRMS reports: its CPUs, running jobs with their remaining walltime,
/// queued jobs in FIFO order with their walltime, and committed reservations.
struct cluster_workload {
  int cpus = 0;
  std::vector<running_job> running;
  std::vector<waiting_job> queued;
  std::vector<reservation_span> reservations;
};

/// How a new reservation ranks against queued local jobs (paper 004, Sec. III-C).
enum class ese_policy {
  /// Local Jobs Preferred: the queued jobs are planned first and the reservation goes into
  /// the vacancies they leave (Listing 1, Fig. 3a), so it postpones none of them.
  local_jobs_preferred,
  /// Queued jobs yield: only running jobs and reservations block it (Fig. 3b).
  reservations_first,
};

/// The planned schedule of a cluster's known workload: the vacancy list of the paper as an
/// availability profile, and where each queued job was placed.
struct workload_plan {
  availability_profile profile;
  std::vector<timestamp> queued_starts;  ///< per queued job; time_infinity if it never fits
  timestamp queue_tail = 0;              ///< latest planned start of a queued job (or now)
};

/// Builds the plan at time `now` with worst-case durations (remaining walltime for running
/// jobs, walltime for queued ones). Running jobs past their walltime are assumed to end
/// within a second. Queued jobs are placed in FIFO order, each at the earliest time it fits
/// (Listing 1, ADD_QJOB); a job larger than the cluster never fits and blocks nothing.
/// With reservations_first the queued jobs are left out of the plan (queued_starts empty).
/// Errors: invalid_processor_range (cpus < 1, a job or reservation with np < 1),
/// invalid_duration (walltime <= 0), invalid_window (reservation start >= end),
/// capacity_exceeded (running jobs and reservations alone overbook the cluster).
result<workload_plan> plan_workload(const cluster_workload& w, timestamp now, ese_policy policy);

/// The queue part of plan_workload (parents first, each from its begin time and its parents'
/// ends, else FIFO) on a profile the caller built (running jobs and reservations): the
/// planned starts (time_infinity for a job larger than the profile).
/// invalid_processor_range / invalid_duration for a job with np < 1 or walltime <= 0.
result<std::vector<timestamp>> plan_queued_jobs(availability_profile& profile,
                                                const std::vector<waiting_job>& queued,
                                                timestamp now);

/// ESE: the earliest start >= ready (and >= now) of a reservation of np CPUs for dur seconds
/// that ends by `deadline`, under `policy` (under LJP: the first vacancy of the plan it
/// fits, which may lie before a queued job's start). infeasible when there is none.
result<timestamp> estimate_earliest_start(const cluster_workload& w, timestamp now, timestamp ready,
                                          duration dur, int np, ese_policy policy,
                                          timestamp deadline = time_infinity);

/// The same on a plan made by plan_workload(w, now, policy), for asking about several
/// shapes of one job without planning the workload again for each: the plan already holds
/// what blocks the job under its policy.
result<timestamp> estimate_earliest_start(const workload_plan& plan, timestamp now, timestamp ready,
                                          duration dur, int np, timestamp deadline = time_infinity);

}  // namespace arbroker
