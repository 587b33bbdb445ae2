#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "arbroker/adapters/lrms.hpp"
#include "arbroker/core/availability_profile.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/core/time.hpp"
#include "arbroker/sim/batch_queue.hpp"
#include "arbroker/sim/reservation_listing.hpp"
#include "arbroker/sim/scheduling_policy.hpp"

namespace arbroker {

/// Something that happened to a job, for the simulator's metrics and traces. `job` is the n of
/// "J<n>". A paused job (restartable, stopped at its walltime or its reservation's end) is
/// queued again, unbound, with the rest of its runtime.
struct simulated_job_event {
  enum class kind : std::uint8_t { started, paused, ended };
  kind what = kind::started;
  timestamp time = 0;
  std::uint64_t job = 0;
  int np = 0;
  bool bound = false;                                ///< runs inside a reservation
  lrms_job_state outcome = lrms_job_state::running;  ///< for `ended`: completed/failed/cancelled
};

/// What a simulated cluster is made of. The clock is injected: wall-clock time for the live
/// broker, virtual time for the discrete-event simulator.
struct simulated_lrms_config {
  std::string name;
  int cpus = 0;
  reservable_sizes sizes;
  std::function<timestamp()> clock;
  /// How unbound batch jobs are started (see batch_queue.hpp).
  scheduling_policy policy = scheduling_policy::fcfs;
  /// Called at every job start, pause and end, in time order; may be empty. It must not call
  /// back into the cluster.
  std::function<void(const simulated_job_event&)> on_job_event = {};
  /// Processor power relative to the machine the actual runtimes were measured on (a
  /// SPEC-like rating divided by the reference rating): submit_local_job's actual runtime r
  /// runs ceil(r / cpu_speed) s here (at least 1). Walltimes are the users' limits on this
  /// cluster and are not scaled. Must be positive and finite.
  double cpu_speed = 1.0;
  /// Ids are "J<n>" and "R<n>" with n from first_serial + 1. A node gives each start of its
  /// simulated clusters its own range, so that a job of an earlier run (which a grid job may
  /// still name) is never confused with a new one of the same number.
  std::uint64_t first_serial = 0;
  /// Its nodes, for node_groups(); a job whose needs (core/job_requirements.hpp) they cannot
  /// meet is refused as a real LRMS refuses it. Empty: none named (needs are not checked).
  /// The queue still plans every job on any CPU: the nodes do not split its capacity.
  std::vector<node_group> nodes = {};
  /// false: reservations_version() says nothing, as of a real LRMS, which its site shares, so
  /// that a cluster service reads its reservations at every full read (for benchmarks of
  /// those reads, and tests against a view that reads whole).
  bool reports_reservation_changes = true;
};

/// Simulation-only properties of a local job.
struct local_job_options {
  /// Paper 001: a restartable job that reaches its walltime (or its reservation's end) with
  /// work left is paused and queued again at the tail, unbound, with the rest of its runtime
  /// and the same walltime; a non-restartable one is killed (failed).
  bool restartable = false;
};

/// An in-memory local resource manager: reservations, a queue of local jobs started by the
/// cluster's policy (FCFS, EASY or conservative backfilling, see batch_queue.hpp) and jobs
/// bound to reservations, on `cpus` identical CPUs. See sim_backend/README.md.
///
/// Committed capacity lives in an availability_profile: every live reservation over
/// [start, end) and every running unbound job over [started, started + walltime). Nothing is
/// ever added to it beyond `cpus` at any instant (the key invariant). Queued jobs hold no
/// capacity, so they never block a reservation (as in Slurm). Jobs bound to a reservation
/// run on the reservation's CPUs and are not in the profile.
///
/// Time moves lazily: each public call first processes every event up to clock() (jobs
/// ending or killed, reservations starting and ending, queued jobs starting). The clock may
/// stand still or lag behind advance_to(); time never goes back.
///
/// Not thread-safe: one owner (a cluster reservation service or the simulator) calls it.
class simulated_lrms final : public lrms {
 public:
  /// invalid_processor_range unless cpus >= 1, sizes.bunch >= 1 and every size count >= 1;
  /// invalid_parameter without a clock or with a cpu_speed that is not positive and finite. The
  /// clock is read once here to start the time.
  static result<std::unique_ptr<simulated_lrms>> create(simulated_lrms_config config);

  std::string_view kind() const noexcept override { return "simulated"; }

  /// Running jobs (bound ones included) and queued jobs in submission (FIFO) order, and the
  /// reservations that have not ended, by start time then id. O(n log n).
  result<lrms_snapshot> snapshot() override;
  result<lrms_snapshot> jobs_snapshot() override;  ///< without listing the reservations
  /// Counts every change to a job (submitted, started, ended, requeued, bound to another id,
  /// walltime raised), after processing the events up to now.
  std::optional<std::uint64_t> jobs_version() override;
  /// Counts every change to the reservations (made, deleted, modified, extended, all gone
  /// in fail_all_nodes) but their ends at their ends.
  std::optional<std::uint64_t> reservations_version() override;
  /// Copies the jobs now and takes the reservations' listing without copying it (O(n / 1024),
  /// reservation_listing.hpp); the rest sorts and names them (O(n log n)).
  snapshot_rest begin_snapshot() override;

  /// Reserves np CPUs over [start, start + length); ids are "R1", "R2", ...
  /// invalid_window: length <= 0, start < now, or end beyond time_infinity;
  /// invalid_processor_range: np outside [1, cpus] or not a reservable size;
  /// permission_denied: empty owner; busy: running jobs (to their walltime) and other
  /// reservations leave fewer than np CPUs somewhere in the span. O(log n).
  result<std::string> create_reservation(const reservation_spec& spec) override;

  /// not_found for an unknown (or already ended) id. Releases the CPUs and cancels the jobs
  /// bound to it, running or queued (Grid Engine semantics, not in_use). O((k + 1) log n)
  /// for k bound jobs and the queued jobs that can start afterwards.
  status delete_reservation(const std::string& id) override;

  /// Replaces the terms of a reservation; on success the old id is gone and a NEW id holds
  /// the terms (as a create-then-delete LRMS would do). The old span is released first and
  /// the new one tried, so the new terms may overlap the old ones; if they do not fit, the
  /// old span is restored and busy returned. Bound jobs follow the reservation. A reservation
  /// that has started may keep its start in the past (new start == old start); any other
  /// start before now is invalid_window, as is an end not after now. in_use when the new
  /// terms would cut a running bound job (start after its start, fewer CPUs than the running
  /// bound jobs use, or an end before the job's guaranteed end under the old terms) or no
  /// longer hold a queued bound job (its np, or its walltime from max(now, start)).
  /// Other errors as create_reservation. On any error nothing changes.
  result<std::string> modify_reservation(const std::string& id,
                                         const reservation_spec& new_terms) override;

  /// Moves the end of a reservation later, in place, and raises the walltimes of the jobs
  /// running in it to run until then (paper 002's overrun quantum; a job whose own walltime
  /// ends before the old end keeps it). busy when running jobs and other reservations leave
  /// fewer than its CPUs somewhere in [end, new_end); not_found
  /// for an unknown (or ended) id; invalid_window unless end < new_end <= time_infinity.
  /// O(k log n) for k running bound jobs.
  status extend_reservation(const std::string& id, timestamp new_end) override;

  /// Submits a job that runs for its whole walltime; ids are "J1", "J2", ...
  /// A job with a begin time (not_before) after now waits outside the batch queue and joins
  /// its tail then (as data staged before the job reaches the LRMS); a bound job may not
  /// have one (invalid_parameter).
  /// invalid_processor_range: np outside [1, cpus], or above the reservation's np;
  /// invalid_duration: walltime <= 0 or above time_infinity; permission_denied: empty owner;
  /// not_found: unknown reservation; invalid_window: a bound job whose walltime, counted
  /// from max(now, reservation start), passes the reservation end.
  result<std::string> submit_job(const job_spec& spec) override;
  result<std::vector<node_group>> node_groups() override;

  /// As submit_job, but the job really runs for `actual_runtime` (> 0, else
  /// invalid_duration), scaled by cpu_speed: it finishes early (completed) or is killed at its
  /// walltime (failed), or, if restartable, is paused and queued again (see local_job_options).
  result<std::string> submit_local_job(const job_spec& spec, duration actual_runtime,
                                       local_job_options options = {});

  /// As submit_local_job, but returns the job's number n (its id is "J<n>", and events name
  /// it by n): for an engine that keeps its jobs by number and submits many.
  result<std::uint64_t> submit_local_job_serial(const job_spec& spec, duration actual_runtime,
                                                local_job_options options = {});

  /// Cancels a queued or running job. not_found for an unknown id; a job that has already
  /// finished is left as it is and the call succeeds (as scancel does).
  status cancel_job(const std::string& id) override;

  /// queued, running, completed (ran to its end), failed (killed at its walltime or at its
  /// reservation's end, or queued in a reservation that ended), cancelled. not_found for an
  /// unknown id.
  result<lrms_job_state> job_status(const std::string& id) override;

  /// The cluster's nodes all fail now (`why` says how): every job, queued, running or in a
  /// reservation, ends `lost` (as Slurm's NODE_FAIL), every reservation goes. Its controller
  /// still answers about jobs (jobs_snapshot, job_status: lost; cancel_job), but it can
  /// neither plan nor take anything: snapshot, reservations and submissions answer
  /// unreachable, for good. For the simulator's failure scenarios. O(n log n).
  void fail_all_nodes(std::string why);
  bool failed() const noexcept { return failed_.has_value(); }

  /// Processes every event up to t and moves the time to t, without reading the clock (for
  /// a discrete-event engine). A t before now() does nothing.
  void advance_to(timestamp t);

  /// Time of the earliest pending event (a job end, a reservation start or end, a planned
  /// start under conservative backfilling), if any.
  /// Nothing else changes the state on its own, so an engine can jump from event to event.
  /// Does not read the clock; the time may already be due.
  std::optional<timestamp> next_event_time() const;

  /// The time up to which events have been processed.
  timestamp now() const noexcept { return now_; }
  const std::string& name() const noexcept { return name_; }
  int cpus() const noexcept { return profile_.total(); }
  /// Committed capacity (live reservations and running unbound jobs), for checks and views.
  const availability_profile& profile() const noexcept { return profile_; }
  scheduling_policy policy() const noexcept { return queue_.policy(); }
  /// Conservative backfilling: the planned start of a queued unbound job; nothing otherwise
  /// (and for an unknown id). Does not read the clock.
  std::optional<timestamp> planned_start(const std::string& id) const;

 private:
  using serial = std::uint64_t;  // the number in "J<n>" and "R<n>"

  // At one instant: jobs end first (a job ending with its reservation completes), then
  // reservations end (their CPUs come back), then reservations start, then jobs reach their
  // begin time and join the queue.
  enum class event_kind : std::uint8_t { job_end, reservation_end, reservation_start, job_begin };
  struct event {
    timestamp time = 0;
    event_kind kind = event_kind::job_end;
    serial id = 0;
    friend auto operator<=>(const event&, const event&) = default;
  };

  struct job {
    std::string owner;
    int np = 0;
    duration walltime = 0;
    duration runtime = 0;  // how long it still really runs if nothing stops it
    timestamp submitted = 0;
    std::uint64_t queued_order = 0;  // place in the queue listing; a requeued job goes last
    bool restartable = false;
    std::optional<timestamp> started;
    std::optional<serial> reservation;
    std::string name;
    timestamp not_before = 0;  // not in the batch queue before then
  };

  // Its name, owner and account are in its row of listing_ (they never change).
  struct reservation {
    timestamp start = 0;
    timestamp end = 0;
    int np = 0;
    int used = 0;              // CPUs of its running bound jobs
    std::set<serial> running;  // bound jobs
    std::set<serial> queued;   // bound jobs; serials grow with submission, so FIFO order
    reservation_listing::slot listed = 0;  // its row in listing_
  };

  simulated_lrms(simulated_lrms_config config, availability_profile profile, batch_queue queue,
                 timestamp now);

  void advance(timestamp t);
  void schedule(const event& e);
  void forget(const event& e);
  bool is_live(const event& e) const;
  void drop_stale_top() const;
  void handle(const event& e);
  void start_queued_jobs(timestamp t);
  void start_bound_jobs(serial rid, timestamp t);
  void start(serial jid, job& j, timestamp t);
  void end_running(serial jid, lrms_job_state outcome);
  void drop_queued(serial jid, lrms_job_state outcome);
  void drop_reservation(serial rid, lrms_job_state outcome);
  void retire(serial jid, lrms_job_state outcome);
  void pause(serial jid, job& j);
  void release(timestamp start, timestamp end, int np);
  void emit(simulated_job_event::kind what, serial jid, const job& j,
            lrms_job_state outcome = lrms_job_state::running) const;

  status check_terms(const reservation_spec& s, timestamp earliest_start) const;
  result<serial> submit(const job_spec& spec, duration actual_runtime, local_job_options options);
  duration scaled_runtime(duration actual_runtime) const;
  error refusal(const error& e, timestamp start, timestamp end, int np) const;
  lrms_job report(serial jid, const job& j) const;

  std::string name_;
  reservable_sizes sizes_;
  std::vector<int> sorted_counts_;  // sizes_.counts sorted, for binary search
  std::function<timestamp()> clock_;
  double cpu_speed_;
  std::vector<node_group> nodes_;
  availability_profile profile_;
  timestamp now_;

  std::unordered_map<serial, job> jobs_;  // queued and running (snapshot sorts them)
  std::optional<std::string> failed_;     // fail(): why it is down for good
  error out_of_service() const;
  // How each finished job ended, by serial - first_serial_ (serials are dense: a vector).
  std::vector<std::optional<lrms_job_state>> finished_;
  batch_queue queue_;  // queued unbound jobs and the policy that starts them
  std::function<void(const simulated_job_event&)> on_job_event_;
  std::uint64_t last_queued_order_ = 0;
  std::unordered_map<serial, reservation> reservations_;
  // The same reservations' terms as snapshots list them, taken without a copy.
  reservation_listing listing_;
  void list(serial rid, reservation& r, const reservation_spec& spec);
  void unlist(const reservation& r);
  // Pending events in a binary heap, earliest first. An event that no longer applies (its
  // job was cancelled or paused, its reservation deleted or moved) stays in the heap and is
  // skipped when it comes up; once such stale events outnumber the live ones the heap is
  // rebuilt without them, so it holds at most about twice the live events. Mutable:
  // next_event_time() drops stale events from the top.
  mutable std::vector<event> events_;
  mutable std::size_t stale_events_ = 0;
  serial first_serial_ = 0;
  serial last_job_ = 0;                     // set to first_serial_ at construction
  serial last_reservation_ = 0;             // likewise
  std::uint64_t jobs_version_ = 0;          // jobs_version()
  std::uint64_t reservations_version_ = 0;  // reservations_version()
  bool reports_reservation_changes_ = true;
  // How finished job `jid` ended, if it is one of this run's.
  std::optional<lrms_job_state> finished(serial jid) const;
};

}  // namespace arbroker
