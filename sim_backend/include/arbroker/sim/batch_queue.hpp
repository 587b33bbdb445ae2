#pragma once

// The batch queue of one simulated cluster and the policy that starts its jobs: FCFS, EASY
// backfilling or conservative backfilling, all honouring reservations. See
// sim_backend/README.md, "Batch scheduling".

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "arbroker/core/availability_profile.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"
#include "arbroker/sim/scheduling_policy.hpp"

namespace arbroker {

/// Queued unbound jobs in queue order, and the decision which of them start.
///
/// The owner keeps the committed capacity (reservations and running jobs, each over
/// [start, start + walltime)) in an availability_profile and passes it to start_jobs(). A job
/// starts at t only if np CPUs are free there over [t, t + walltime), so it never runs into
/// reserved capacity. start_jobs() adds the started job to that profile itself; every other
/// change of the committed capacity must be told with committed_added / committed_released.
///
/// - fcfs: the head starts when it fits; while it waits, all wait.
/// - easy: when the head does not fit, it gets a shadow reservation at its earliest start;
///   later jobs start now if they fit beside the running jobs, the reservations and that
///   shadow, so they never delay the head.
/// - conservative: every queued job holds a plan, the earliest start where it fits beside the
///   committed capacity and the plans of the jobs queued before it (a second profile holds
///   committed + plans). Jobs start at their planned time. When capacity is released early,
///   plans are compressed in queue order, each job moving to its earliest start with all the
///   other plans in place, so no plan ever moves later. Only a reservation that collides
///   with plans makes them be made again from scratch, in queue order.
///
/// Cost with q queued jobs and n change points in the profiles: push O(log n) (+ O(log n)
/// planning for conservative); erase O(log q); start_jobs after only pushes O((p + 1) log n)
/// for the p pushed jobs; after capacity was released, fcfs O((s + 1) log n) for s jobs
/// started, easy O(q log r + (b + 1) log n) for b jobs that fit by their size and are not
/// at least as long and wide as one of the r shapes already refused in the pass, conservative
/// O(q log n) for the compression (not needed when the capacity released ends now: a job
/// killed at its walltime, a reservation ending).
class batch_queue {
 public:
  using job_number = std::uint64_t;

  /// invalid_processor_range unless cpus >= 1.
  static result<batch_queue> create(scheduling_policy policy, int cpus);

  scheduling_policy policy() const noexcept { return policy_; }
  bool empty() const noexcept { return order_.empty(); }
  std::size_t size() const noexcept { return order_.size(); }
  bool contains(job_number id) const { return where_.contains(id); }

  /// The queued jobs, head first.
  std::vector<job_number> order() const;

  /// Appends a job at the tail (np in [1, cpus], walltime > 0: the owner checks). With
  /// conservative, plans it at its earliest start from `now`.
  void push(job_number id, int np, duration walltime, timestamp now);

  /// Removes a queued job (cancelled or dropped); false if it is not queued.
  bool erase(job_number id);

  /// Conservative only: the planned start of a queued job (nothing if it has none: not
  /// queued, another policy, or no start exists while a reservation holds the CPUs forever).
  std::optional<timestamp> planned_start(job_number id) const;

  /// Conservative only: the earliest planned start, a time at which start_jobs must run.
  std::optional<timestamp> next_planned_start() const {
    if (by_plan_.empty()) return std::nullopt;
    return by_plan_.begin()->first;
  }

  /// The owner added [start, end) x np to the committed capacity (a reservation).
  void committed_added(timestamp start, timestamp end, int np);

  /// The owner removed [start, end) x np from the committed capacity (a job that ended, a
  /// reservation deleted or ended). `now` tells whether anything at or after now came free.
  void committed_released(timestamp start, timestamp end, int np, timestamp now);

  /// Starts at t every job the policy lets start: adds [t, t + walltime) x np to `committed`,
  /// removes the job from the queue, then calls start(id). Must run at every time an event
  /// changed the state, including next_planned_start(); between such times no job can
  /// become startable (capacity only comes free at events).
  void start_jobs(timestamp t, availability_profile& committed,
                  const std::function<void(job_number)>& start);

 private:
  using sequence = std::uint64_t;  // queue position; grows with every push
  struct entry {
    job_number id = 0;
    int np = 0;
    duration walltime = 0;
    std::optional<timestamp> plan;  // conservative only
  };

  batch_queue(scheduling_policy policy, availability_profile schedule)
      : policy_(policy), schedule_(std::move(schedule)) {}

  bool start_fcfs(timestamp t, availability_profile& committed,
                  const std::function<void(job_number)>& start, int& free_now);
  void start_easy(timestamp t, availability_profile& committed,
                  const std::function<void(job_number)>& start);
  void start_conservative(timestamp t, availability_profile& committed,
                          const std::function<void(job_number)>& start);
  void plan(sequence seq, entry& e, timestamp now);
  void unplan(sequence seq, entry& e);
  void compress(timestamp now);
  void replan(timestamp now);

  scheduling_policy policy_;
  std::map<sequence, entry> order_;                 // head first
  std::unordered_map<job_number, sequence> where_;  // job -> its place in order_
  sequence next_sequence_ = 0;
  std::vector<job_number> pushed_;  // pushed since the last start_jobs
  bool released_ = false;           // capacity at or after now came free, or a job left
  bool replan_ = false;             // conservative: plans were dropped for a reservation
  availability_profile schedule_;   // conservative: committed capacity + plans
  std::set<std::pair<timestamp, sequence>> by_plan_;  // conservative: plans by time
};

}  // namespace arbroker
