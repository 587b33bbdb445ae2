#pragma once

// Grid jobs: best-effort jobs the broker places on clusters' batch queues (paper 003 Sec. 3,
// paper 004 Sec. III-A). This file is the rule book, without I/O: a grid job's copies and what
// to do when the broker learns something about one of them. The engine (actors/grid_jobs)
// performs the actions it returns and feeds back what the LRMSs answer; recovery replays the
// same rules on what it finds. See core/README.md "Grid jobs".
//
// Rules (the same for every strategy; `single` and `adaptive` have one live copy, `flood`
// several):
// - the first copy observed running wins; every other live copy is cancelled at once (a
//   copy first seen completed ran between two looks: it counts as having run);
// - a copy that is observed running after another won is a duplicate start: it is cancelled
//   and counted (the CPU time it used is wasted);
// - a copy the LRMS refuses or that fails before any copy won is dropped; when no copy is
//   left the grid job fails with every copy's reason;
// - the winner's end is the grid job's end (completed, failed or cancelled);
// - a client's cancel cancels every live copy;
// - a migration (adaptive) adds a copy, and only once it is queued withdraws the old one;
//   if the old one started meanwhile it wins by the first rule and the new one is cancelled;
// - a copy the infrastructure ended (its node failed, its cluster was unreachable past the
//   grace period, its LRMS forgot it) is *lost*: the job is placed again (a new round of
//   copies, among the clusters that did not fail it) up to max_resubmits times; a winner that
//   failed by itself (non-zero exit, walltime) is placed again only up to retry_on_failure.
//   The old copy is known dead first, or (its cluster unreachable) cancelled if it is ever
//   seen again, so that a job is never left running twice.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/core/enum_bounds.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/job_requirements.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// How the broker places a grid job.
enum class grid_strategy : std::uint8_t {
  single,    ///< one copy at the best cluster
  flood,     ///< one copy at each of the best `width` clusters; the first to run wins (RMSF)
  adaptive,  ///< one copy, moved while queued when another cluster promises an earlier TTD
  reserve,   ///< hold at the best k clusters, keep the earliest finish, run in its reservation
};
template <>
struct enum_bounds<grid_strategy> {
  static constexpr grid_strategy last = grid_strategy::reserve;
  static constexpr const char* name = "grid_strategy";
};
std::string_view to_string(grid_strategy s) noexcept;
std::optional<grid_strategy> grid_strategy_from(std::string_view name) noexcept;

/// How a grid job's clusters are ranked for its placement (docs/grid-jobs.md, "Placement").
enum class grid_ranking : std::uint8_t {
  start,  ///< by time to delivery from each cluster's planned earliest start (the default)
  sed,    ///< by paper 004's SED delay (eq. 6): busy CPUs x W_max, not the plan of the queue
};
template <>
struct enum_bounds<grid_ranking> {
  static constexpr grid_ranking last = grid_ranking::sed;
  static constexpr const char* name = "grid_ranking";
};
std::string_view to_string(grid_ranking r) noexcept;
std::optional<grid_ranking> grid_ranking_from(std::string_view name) noexcept;

enum class grid_job_state : std::uint8_t { pending, queued, running, completed, failed, cancelled };
template <>
struct enum_bounds<grid_job_state> {
  static constexpr grid_job_state last = grid_job_state::cancelled;
  static constexpr const char* name = "grid_job_state";
};
std::string_view to_string(grid_job_state s) noexcept;
std::optional<grid_job_state> grid_job_state_from(std::string_view name) noexcept;
bool is_terminal(grid_job_state s) noexcept;

/// One copy of a grid job in one cluster's queue. `submitting`: written down, LRMS call not
/// answered yet (after a crash: maybe in the LRMS without our knowing its id).
enum class copy_state : std::uint8_t { submitting, queued, running, completed, failed, cancelled };
template <>
struct enum_bounds<copy_state> {
  static constexpr copy_state last = copy_state::cancelled;
  static constexpr const char* name = "copy_state";
};
std::string_view to_string(copy_state s) noexcept;
/// queued or running, or submitting: it may hold a place in a queue.
bool is_live(copy_state s) noexcept;

/// What the LRMS says of a copy.
/// `lost`: ended by the infrastructure, not by the job (Slurm NODE_FAIL, BOOT_FAIL).
enum class observed_state : std::uint8_t { queued, running, completed, failed, cancelled, lost };
template <>
struct enum_bounds<observed_state> {
  static constexpr observed_state last = observed_state::lost;
  static constexpr const char* name = "observed_state";
};
std::string_view to_string(observed_state s) noexcept;

struct grid_copy {
  std::string cluster;
  std::string lrms_id;  ///< empty while submitting
  copy_state state = copy_state::submitting;
  timestamp submitted = 0;
  std::optional<timestamp> started;
  std::optional<timestamp> ended;
  bool cancel_sent = false;  ///< we asked the LRMS to cancel it
  std::string reason;        ///< why it ended, or why it was refused
  /// Ended by the infrastructure (its node or cluster failed, the LRMS forgot it), not by
  /// the job: the job may be placed again, elsewhere.
  bool lost = false;
  /// Given up while its cluster could not be asked: it may still be in that LRMS, and is
  /// cancelled if it is ever seen there again (the job must not run twice).
  bool unconfirmed = false;
  /// Strategy reserve: the reservation the copy was bound into, and when that starts.
  std::string reservation = {};
  std::optional<timestamp> reserved_start = {};
  friend bool operator==(const grid_copy&, const grid_copy&) = default;
};

/// One line of a grid job's history: what happened to which copy and why.
struct placement_event {
  timestamp at = 0;
  std::int32_t copy = -1;  ///< index into copies, -1 for the grid job itself
  std::string what;
  friend bool operator==(const placement_event&, const placement_event&) = default;
};

/// What the user asked for.
struct grid_job_spec {
  std::string name;
  std::string command;
  std::int32_t np = 1;
  duration walltime = 0;  ///< limit sent to the LRMS (benchmarks may give a cluster's own)
  grid_strategy strategy = grid_strategy::single;
  std::int32_t width = 3;             ///< copies of a flood; holds of a reserve
  duration min_gain = 0;              ///< adaptive: migrate only for a TTD gain above this
  std::int32_t max_migrations = -1;   ///< adaptive: -1 = unbounded
  std::int32_t max_resubmits = 0;     ///< placements again after infrastructure failures
  std::int32_t retry_on_failure = 0;  ///< placements again after the job's own failures
  job_requirements needs = {};        ///< of the nodes it runs on: placed and sent with them
  friend bool operator==(const grid_job_spec&, const grid_job_spec&) = default;
};

/// invalid_* with the field named for a spec out of range (np < 1, walltime <= 0, width
/// outside 1..16, min_gain < 0, max_migrations < -1, max_resubmits or retry_on_failure
/// outside 0..max_grid_placements, needs refused by check(job_requirements)).
status check(const grid_job_spec& spec);

/// A job another waits for (`arb submit --after`): by id, and whether any end will do
/// (`:any`) or only its completion (`:ok`, the default).
struct grid_dependency {
  std::string id;
  bool any = false;
  friend bool operator==(const grid_dependency&, const grid_dependency&) = default;
};

/// "n/g3", "n/g3:ok", "n/g3:any" (the id's form is the API's to check); invalid_parameter for
/// an empty id or another suffix.
result<grid_dependency> parse_dependency(std::string_view text);

/// The most jobs one may wait for.
inline constexpr std::size_t max_grid_dependencies = 16;

inline constexpr std::int32_t max_grid_width = 16;
inline constexpr std::int32_t max_grid_placements = 100;

/// What the broker must do next for a grid job.
struct grid_action {
  enum class kind : std::uint8_t {
    cancel,    ///< cancel copy `copy` at its LRMS (it may be running: a loser or a duplicate)
    withdraw,  ///< cancel copy `copy` only if it is still queued (a migration's old copy)
  };
  kind what = kind::cancel;
  std::size_t copy = 0;
  friend bool operator==(const grid_action&, const grid_action&) = default;
};

/// A grid job and its rules. Plain data plus the transitions above; copies are never
/// removed, so a copy's index is its name for good.
struct grid_job {
  std::string id;  ///< "<node>/g<n>"
  std::string owner;
  grid_job_spec spec;
  grid_job_state state = grid_job_state::pending;
  timestamp submitted = 0;
  std::optional<timestamp> started;
  std::optional<timestamp> ended;
  std::vector<grid_copy> copies;
  std::optional<std::size_t> winner;
  std::optional<std::size_t> migrating_from;  ///< old copy of a migration not yet withdrawn
  duration pending_gain = 0;                  ///< the TTD gain the migration in flight promises
  std::int32_t migrations = 0;
  std::int32_t duplicate_starts = 0;
  std::int32_t resubmits = 0;  ///< placements again after infrastructure failures
  std::int32_t retries = 0;    ///< placements again after the job's own failures
  /// The job is to be placed again (a new round of copies); the engine places it, or calls
  /// placement_failed.
  bool to_place = false;
  std::size_t round_start = 0;  ///< the first copy of the current placement
  duration migration_gain = 0;  ///< sum of the TTD gains promised by the migrations
  std::string reservation;      ///< strategy reserve: the reservation it runs in
  /// Strategy reserve, ended without running its course (cancelled, or stopped before its
  /// job was in it): the reservation, made for it alone, is to be cancelled once no copy is
  /// live. Stored with the job, which stays active() until the reservation's cluster has
  /// said so, so that a restart sends the cancel again.
  bool reservation_to_release = false;
  /// Strategy reserve: other reservations let go (the old one after a move, a move's new one
  /// that the job did not move into), each to be cancelled once no live copy runs in it.
  /// Stored with the job, which stays active() until each one's cluster has said so.
  std::vector<std::string> releasing = {};
  std::vector<placement_event> history;
  friend bool operator==(const grid_job&, const grid_job&) = default;

  /// Adds a copy at `cluster` in state submitting; returns its index.
  std::size_t add_copy(const std::string& cluster, timestamp now, std::string why);
  /// The LRMS took copy i under `lrms_id`, or refused it.
  std::vector<grid_action> on_submitted(std::size_t i, const result<std::string>& lrms_id,
                                        timestamp now);
  /// The LRMS says copy i is in state `s` (started: when it started, if it did).
  std::vector<grid_action> on_observed(std::size_t i, observed_state s,
                                       std::optional<timestamp> started, timestamp now);
  /// A cancel or withdraw of copy i was answered with the state the LRMS found it in
  /// before acting: queued (now cancelled), running (a cancel killed it; a withdraw left it
  /// running), or already ended. An error leaves the copy as it was, to be retried when it is
  /// next observed.
  std::vector<grid_action> on_cancel_answer(std::size_t i, const result<observed_state>& found,
                                            timestamp now);
  /// Copy i was ended by the infrastructure, or can no longer be reached (`unconfirmed`: its
  /// cluster is unreachable, so it may still be there): it failed, lost.
  std::vector<grid_action> on_lost(std::size_t i, std::string reason, timestamp now,
                                   bool unconfirmed = false);
  /// The LRMS of an unconfirmed copy was asked for it by name (an LRMS may give its id to
  /// another job after a restart): `lrms_id` is the job of that name still queued or running
  /// there (cancelled now; a duplicate start if the cancel finds it running), or "" when none
  /// is (the copy is confirmed gone).
  std::vector<grid_action> on_found_again(std::size_t i, const std::string& lrms_id, timestamp now);
  /// Clusters the job is not to be placed on again: those where a copy was lost.
  std::vector<std::string> failed_at() const;
  /// to_place, but no cluster can take the job: it fails with `why`.
  void placement_failed(const std::string& why, timestamp now);
  /// The client (or, `why` says, a rule) cancels the grid job: every live copy is cancelled.
  std::vector<grid_action> cancel(timestamp now, std::string why = "cancelled by the client");
  /// After a restart of the broker: a cancel or withdrawal that was on its way may never have
  /// reached its LRMS (or its answer was lost). Returns them again for every live copy that
  /// was being cancelled or withdrawn; the LRMS answers a repeated one with what it found.
  std::vector<grid_action> resend_pending() const;
  /// Starts a migration of the live queued copy to `cluster`: adds the new copy (submit it,
  /// then call on_submitted; once it is queued the old copy is withdrawn). Precondition:
  /// can_migrate().
  std::size_t migrate(const std::string& cluster, duration gain, timestamp now);
  /// Strategy reserve (make-before-break): starts a move of the job's queued bound copy into
  /// `reservation` at `cluster`, which starts at `start` and was committed for it (the engine
  /// keeps it in `releasing` until the move is done): adds the copy bound into it (submit it
  /// into the reservation, then call on_submitted; once it is queued the old copy is
  /// withdrawn, and once that is gone the job's reservation is the new one and the old one
  /// is released; if the old copy started first, the new copy is cancelled and the new
  /// reservation released). Precondition: can_migrate() for a reserve job.
  std::size_t move_into(const std::string& cluster, const std::string& reservation, timestamp start,
                        duration gain, timestamp now);
  /// Queued, one live copy (queued), no migration in flight, below max_migrations, and either
  /// adaptive, or reserve with that copy bound into the job's reservation at a known start.
  bool can_migrate() const;
  /// The one live copy, if there is exactly one.
  std::optional<std::size_t> only_live_copy() const;
  std::size_t live_copies() const;
  /// Copy i should not be (or stay) in any queue: the job was cancelled or another copy won.
  bool doomed(std::size_t i) const;
  /// The broker still has work with it: not ended, a copy may still be in a queue, or its
  /// reservation is to be released.
  bool active() const;

 private:
  void note(timestamp at, std::int32_t copy, std::string what);
  /// Copy i is bound into another reservation than the job's (a move's): that one becomes
  /// the job's and the old one is released. True if it did.
  bool take_reservation_of(std::size_t i);
  std::vector<grid_action> copy_ended(std::size_t i, copy_state s, std::string reason,
                                      timestamp now);
  std::vector<grid_action> started_running(std::size_t i, std::optional<timestamp> at,
                                           timestamp now);
  /// Cancels for every doomed live copy that has an LRMS id and no cancel on the way.
  std::vector<grid_action> cancel_doomed();
  void settle_state(timestamp now);
  /// The current placement's copies all ended without the job ending (lost, or the winner
  /// failed): places it again if its budget allows. True if it will be.
  bool place_again(bool own_failure, const std::string& why, timestamp now);
};

/// Adaptation (paper 003 Sec. 3.3): where to move a queued job, if anywhere.
struct ttd_option {
  std::string cluster;
  duration ttd = 0;
};
/// The cluster with the least TTD among `others` if it beats `current_ttd` by more than
/// `min_gain` (ties by name order of `others`), else nothing.
std::optional<ttd_option> choose_migration(duration current_ttd, std::span<const ttd_option> others,
                                           duration min_gain);

}  // namespace arbroker
