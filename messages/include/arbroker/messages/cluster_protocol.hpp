#pragma once

// Messages between a broker (or co-reservation agent) and a cluster reservation service.
// Every request is answered by exactly one reply carrying a wire_error (code 0 = success).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/core/grid_job.hpp"
#include "arbroker/core/reservation_state.hpp"
#include "arbroker/core/success_rate.hpp"
#include "arbroker/messages/core_types.hpp"
#include "arbroker/messages/fields.hpp"
#include "arbroker/messages/slot.hpp"
#include "arbroker/messages/wire_error.hpp"

namespace arbroker::msg {

/// Probe (paper 000, Sec. 3.2.2): the request already adapted to this cluster by the
/// broker (the window and the job's shapes here), and what to compute for its candidates.
struct probe_request {
  std::string user;
  site_request site;
  probe_limits slotting;  ///< start times per shape (tsn_max) and their spacing (tss_gap)
  bool want_cost = true;
  bool want_esr = true;
  esr_method esr = esr_method::load;
  double esr_threshold = -1;         ///< < 0: return every candidate; else only esr >= threshold
  bool check_availability = true;    ///< drop candidates the cluster's view says cannot fit
  bool want_windows = false;         ///< also return the feasible start windows per shape
  bool local_jobs_preferred = true;  ///< availability check under the site's LJP rule
  /// Sent for an admin (the API sets it from the caller): may waive LJP where the site
  /// enforces it (local_jobs_preferred.hpp).
  bool admin = false;
  /// Non-empty: the slots come ranked by these preferences, best first...
  preferences prefer;
  /// ... and only the best `keep` of them (0: all). The broker merges the clusters' best
  /// few instead of sorting and shipping every candidate.
  std::int32_t keep = 0;

  friend bool operator==(const probe_request&, const probe_request&) = default;
};

ARB_FIELDS(probe_request, x.user, x.site, x.slotting, x.want_cost, x.want_esr, x.esr,
           x.esr_threshold, x.check_availability, x.want_windows, x.local_jobs_preferred, x.admin,
           x.prefer, x.keep)

/// Every start time in [first, last] fits np CPUs for `length` seconds, as far as the
/// cluster's view knows (co-reservations intersect these across clusters).
struct start_window {
  std::int32_t np = 0;
  std::int64_t length = 0;
  std::int64_t first = 0;
  std::int64_t last = 0;
  double cost_per_second = 0;  ///< cost of this np for one second at `first` (for ranking)

  friend bool operator==(const start_window&, const start_window&) = default;
};

ARB_FIELDS(start_window, x.np, x.length, x.first, x.last, x.cost_per_second)

struct probe_reply {
  std::string cluster;
  std::vector<slot> slots;
  std::int32_t generated = 0;         ///< candidates before the threshold and availability filters
  std::int32_t above_threshold = 0;   ///< candidates left after the esr threshold
  std::int64_t t_wkl = 0;             ///< the admission bound (paper 000, Sec. 3.3.2)
  std::vector<start_window> windows;  ///< when asked for
  wire_error error;
  /// Slots that passed every filter (more than sent if kept); with `keep`, those checked that
  /// passed plus those left unchecked, so that it exceeds the slots sent whenever more may fit.
  std::int32_t available = 0;

  friend bool operator==(const probe_reply&, const probe_reply&) = default;
};

ARB_FIELDS(probe_reply, x.cluster, x.slots, x.generated, x.above_threshold, x.t_wkl, x.windows,
           x.error, x.available)

/// Several probes of one cluster in one message (the components of a co-reservation that
/// may go there), answered by one reply per probe, in the same order.
struct probe_batch_request {
  std::vector<probe_request> probes;
  friend bool operator==(const probe_batch_request&, const probe_batch_request&) = default;
};

ARB_FIELDS(probe_batch_request, x.probes)

struct probe_batch_reply {
  std::vector<probe_reply> replies;
  wire_error error;  ///< set when the batch as a whole failed (then no replies)
  friend bool operator==(const probe_batch_reply&, const probe_batch_reply&) = default;
};

ARB_FIELDS(probe_batch_reply, x.replies, x.error)

/// Paper 001's busy-time hint, for a client about to be refused: where the request's
/// smallest shape would first fit on this cluster, from the window's start on and beyond
/// its end (under the site's LJP rule). Asked only when a request fails: on a well-filled
/// cluster the search walks every busy stretch, which costs more than a probe.
struct busy_hint_request {
  site_request site;
  bool local_jobs_preferred = true;
  /// Sent for an admin (the API sets it from the caller): may waive LJP where the site
  /// enforces it (local_jobs_preferred.hpp).
  bool admin = false;
  friend bool operator==(const busy_hint_request&, const busy_hint_request&) = default;
};
ARB_FIELDS(busy_hint_request, x.site, x.local_jobs_preferred, x.admin)

struct busy_hint_reply {
  std::string cluster;
  std::int64_t earliest_fit = -1;  ///< -1: never, as far as the cluster's view knows
  wire_error error;
  friend bool operator==(const busy_hint_reply&, const busy_hint_reply&) = default;
};
ARB_FIELDS(busy_hint_reply, x.cluster, x.earliest_fit, x.error)

/// Match advice (paper 002, Sec. 3: the Match Advisor of each cluster's reservation
/// service): how well a job fits this cluster now. The request is already adapted to this
/// cluster like a probe; the advisor places it at the earliest completion over its shapes
/// within [est, let].
struct advice_request {
  std::string user;
  site_request site;                 ///< let is the job's deadline
  bool local_jobs_preferred = true;  ///< place under the site's LJP rule, as prepare admits
  /// Sent for an admin (the API sets it from the caller): may waive LJP where the site
  /// enforces it (local_jobs_preferred.hpp).
  bool admin = false;

  friend bool operator==(const advice_request&, const advice_request&) = default;
};

ARB_FIELDS(advice_request, x.user, x.site, x.local_jobs_preferred, x.admin)

struct advice_reply {
  std::string cluster;
  bool meets_qos = false;  ///< a placement ending by let exists
  std::int32_t np = 0;     ///< the placement (when meets_qos)
  std::int64_t start = 0;
  std::int64_t end = 0;               ///< completion time
  std::int64_t zeta = 0;              ///< laxity impact of the placement (MLI)
  double utilization = 0;             ///< booked share of [est, let) before placing (MinU/MaxU)
  double utilization_after = 0;       ///< the same after placing
  std::int32_t busy_cores = 0;        ///< CPUs of running and queued local jobs (SED)
  std::int64_t longest_walltime = 0;  ///< longest walltime among those jobs (SED)
  std::int64_t now = 0;               ///< the cluster's clock when advising
  wire_error error;

  friend bool operator==(const advice_reply&, const advice_reply&) = default;
};

ARB_FIELDS(advice_reply, x.cluster, x.meets_qos, x.np, x.start, x.end, x.zeta, x.utilization,
           x.utilization_after, x.busy_cores, x.longest_walltime, x.now, x.error)

/// Phase one of reserving: hold np CPUs over [start, end) until `expiry` (absolute time).
/// The hold counts against capacity and disappears by itself unless committed in time.
struct prepare_request {
  std::string txn;  ///< unique per coordinator decision; prepare is idempotent per txn
  std::string owner;
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int32_t np = 0;
  std::int64_t expiry = 0;
  bool local_jobs_preferred = true;  ///< admit under the site's LJP rule
  /// Sent for an admin (the API sets it from the caller): may waive LJP where the site
  /// enforces it (local_jobs_preferred.hpp).
  bool admin = false;
  /// One participant needs no second phase: commit at once when the hold is granted.
  bool commit_at_once = false;
  std::string account = {};  ///< to charge in the LRMS ("" = the owner's default)
  /// Paper 002: with deadline > 0 a cluster with laxity may move the reservation later
  /// within [earliest, deadline] (earliest <= start, end <= deadline); 0: rigid terms.
  std::int64_t earliest = 0;
  std::int64_t deadline = 0;
  /// The window the client's request asked for (its earliest start and latest end), kept
  /// with the reservation for `show` (0: not known).
  std::int64_t window_start = 0;
  std::int64_t window_end = 0;

  friend bool operator==(const prepare_request&, const prepare_request&) = default;
};

ARB_FIELDS(prepare_request, x.txn, x.owner, x.start, x.end, x.np, x.expiry, x.local_jobs_preferred,
           x.admin, x.commit_at_once, x.account, x.earliest, x.deadline, x.window_start,
           x.window_end)

/// Who refused a prepare: the cluster service's admission check or the LRMS itself.
enum class refusal : std::uint8_t { none, service, lrms };

std::string_view to_string(refusal r) noexcept;

struct prepare_reply {
  std::string txn;
  std::string reservation_id;    ///< "<cluster>/<n>"
  std::int64_t busy_until = -1;  ///< when refused: earliest start the view allows, -1 unknown
  refusal refused_by = refusal::none;
  wire_error error;
  double cost = 0;  ///< of the held terms, under the cluster's cost model
  /// The cluster (one with laxity) may move it within the prepare's [earliest, deadline].
  bool movable = false;
  std::int64_t created = 0;         ///< when granted, by the cluster's clock
  std::int64_t admitted_after = 0;  ///< the LJP bound it was admitted against (0: none)

  friend bool operator==(const prepare_reply&, const prepare_reply&) = default;
};

ARB_FIELDS(prepare_reply, x.txn, x.reservation_id, x.busy_until, x.refused_by, x.error, x.cost,
           x.movable, x.created, x.admitted_after)

/// Phase two of a coordinator's transaction: confirms every hold `txn` made. Refused for a
/// txn that is unknown or expired; idempotent.
struct commit_txn_request {
  std::string txn;
  friend bool operator==(const commit_txn_request&, const commit_txn_request&) = default;
};
ARB_FIELDS(commit_txn_request, x.txn)

/// Phase two, the other way: releases the holds of `txn`. An unknown txn succeeds (presumed
/// abort); a committed one is refused (illegal_transition). Idempotent.
struct abort_txn_request {
  std::string txn;
  friend bool operator==(const abort_txn_request&, const abort_txn_request&) = default;
};
ARB_FIELDS(abort_txn_request, x.txn)

/// Undoes whatever `txn` made, in any state: a hold is released, a committed reservation
/// cancelled. For a coordinator compensating a decision it cannot complete (a part expired
/// before its commit arrived) and for a grant that arrives after its client was told
/// "timeout". An unknown or finished txn succeeds. Idempotent.
struct release_txn_request {
  std::string txn;
  friend bool operator==(const release_txn_request&, const release_txn_request&) = default;
};
ARB_FIELDS(release_txn_request, x.txn)

/// A client commits the hold it asked for (mode hold) by its reservation id.
/// A job to start inside a reservation: bind_job_request's terms without the reservation.
struct job_terms {
  std::string name;
  std::int32_t np = 0;
  std::int64_t walltime = 0;
  std::string command;
  /// What its nodes need (core/job_requirements.hpp; MiB, 0: none), passed to the LRMS.
  std::int64_t mem_per_cpu = 0;
  std::int64_t mem_per_node = 0;
  std::vector<std::string> features = {};
  friend bool operator==(const job_terms&, const job_terms&) = default;
};
ARB_FIELDS(job_terms, x.name, x.np, x.walltime, x.command, x.mem_per_cpu, x.mem_per_node,
           x.features)

/// A client's commit of its hold, optionally with the jobs to run in it (paper 001, Sec.
/// 2.3: "commit with job(s)"), all or nothing: if one job cannot be submitted, those
/// already submitted are cancelled and the hold stays as it was. Answered with the
/// reservation (query_reply) and the jobs' LRMS ids.
struct commit_request {
  std::string user;
  std::string reservation_id;
  std::vector<job_terms> jobs;
  friend bool operator==(const commit_request&, const commit_request&) = default;
};
ARB_FIELDS(commit_request, x.user, x.reservation_id, x.jobs)

struct ack_reply {
  wire_error error;
  friend bool operator==(const ack_reply&, const ack_reply&) = default;
};
ARB_FIELDS(ack_reply, x.error)

/// A reservation as clients see it.
struct reservation_info {
  std::string id;
  std::string cluster;
  std::string owner;
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int32_t np = 0;
  reservation_state state = reservation_state::requested;
  std::int64_t expiry = 0;
  std::int64_t admitted_after = 0;  ///< the LJP bound it was admitted against (0: none)
  double cost = 0;
  std::string account = {};  ///< charged for it (paper 003, Sec. 3.1); "" = the owner's default
  /// A reservation the cluster may still move (paper 002): it runs within [earliest,
  /// deadline], [start, end) being where it is planned now. deadline 0: its terms are fixed.
  std::int64_t earliest = 0;
  std::int64_t deadline = 0;
  std::int64_t finished = 0;  ///< when it reached its terminal state (0: not finished)
  std::int64_t created = 0;   ///< when its hold was granted (0: not known)
  /// The window its client's request asked for: earliest start, latest end (0: not known).
  std::int64_t window_start = 0;
  std::int64_t window_end = 0;

  friend bool operator==(const reservation_info&, const reservation_info&) = default;
};

ARB_FIELDS(reservation_info, x.id, x.cluster, x.owner, x.start, x.end, x.np, x.state, x.expiry,
           x.admitted_after, x.cost, x.account, x.earliest, x.deadline, x.finished, x.created,
           x.window_start, x.window_end)

/// Owner-checked operations on one reservation. A reservation of another user answers
/// not_found, exactly like a missing one.
struct cancel_request {
  std::string user;
  std::string reservation_id;
  friend bool operator==(const cancel_request&, const cancel_request&) = default;
};
ARB_FIELDS(cancel_request, x.user, x.reservation_id)

/// Make-before-break change of a committed reservation's terms.
struct modify_request {
  std::string user;
  std::string reservation_id;
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int32_t np = 0;
  bool local_jobs_preferred = true;
  /// Sent for an admin (the API sets it from the caller): may waive LJP where the site
  /// enforces it (local_jobs_preferred.hpp).
  bool admin = false;
  friend bool operator==(const modify_request&, const modify_request&) = default;
};
ARB_FIELDS(modify_request, x.user, x.reservation_id, x.start, x.end, x.np, x.local_jobs_preferred,
           x.admin)

struct query_request {
  std::string user;
  std::string reservation_id;
  friend bool operator==(const query_request&, const query_request&) = default;
};
ARB_FIELDS(query_request, x.user, x.reservation_id)

struct query_reply {
  reservation_info info;
  wire_error error;
  /// A commit's jobs (their LRMS ids, in request order); a query's: every job bound to it.
  std::vector<std::string> jobs = {};
  friend bool operator==(const query_reply&, const query_reply&) = default;
};
ARB_FIELDS(query_reply, x.info, x.error, x.jobs)

/// The live reservations (holds, and reservations still to run or running) of a user, every
/// user's for an empty `user` when asked by an admin; with `history`, also a page of their
/// finished ones (completed, cancelled, expired, ...), the most recently finished first.
struct list_request {
  std::string user;
  bool history = false;
  std::int32_t limit = 0;   ///< finished ones per page (0: 100; at most 1000)
  std::string before = {};  ///< the `next` of the previous page ("" : the newest)
  friend bool operator==(const list_request&, const list_request&) = default;
};
ARB_FIELDS(list_request, x.user, x.history, x.limit, x.before)

struct list_reply {
  std::vector<reservation_info> reservations;
  wire_error error;
  std::string next = {};  ///< with history: where the next page starts ("" : no more)
  friend bool operator==(const list_reply&, const list_reply&) = default;
};
ARB_FIELDS(list_reply, x.reservations, x.error, x.next)

/// Submit a job into a reservation; only its owner may (paper 003, Sec. 3.1).
struct bind_job_request {
  std::string user;
  std::string reservation_id;
  std::string name;
  std::int32_t np = 0;
  std::int64_t walltime = 0;
  std::string command;
  std::int64_t mem_per_cpu = 0;  ///< as job_terms
  std::int64_t mem_per_node = 0;
  std::vector<std::string> features = {};
  friend bool operator==(const bind_job_request&, const bind_job_request&) = default;
};
ARB_FIELDS(bind_job_request, x.user, x.reservation_id, x.name, x.np, x.walltime, x.command,
           x.mem_per_cpu, x.mem_per_node, x.features)

struct bind_job_reply {
  std::string job_id;
  wire_error error;
  friend bool operator==(const bind_job_reply&, const bind_job_reply&) = default;
};
ARB_FIELDS(bind_job_reply, x.job_id, x.error)

/// One job bound to a reservation, by the LRMS id commit and bind_job answered (paper 004,
/// Sec. III-B: the jobs in a reservation are the user's to look at and to cancel one by one).
/// Only the reservation's owner (or an admin's empty user) reaches it; a job not bound to it
/// answers not_found.
struct bound_job_query_request {
  std::string user;
  std::string reservation_id;
  std::string job_id;
  friend bool operator==(const bound_job_query_request&, const bound_job_query_request&) = default;
};
ARB_FIELDS(bound_job_query_request, x.user, x.reservation_id, x.job_id)

/// Cancels that one job in the LRMS; the reservation and its other jobs stay. Cancelling a job
/// that has ended changes nothing and answers its state.
struct bound_job_cancel_request {
  std::string user;
  std::string reservation_id;
  std::string job_id;
  friend bool operator==(const bound_job_cancel_request&,
                         const bound_job_cancel_request&) = default;
};
ARB_FIELDS(bound_job_cancel_request, x.user, x.reservation_id, x.job_id)

/// A job in a reservation, as its LRMS has it.
struct bound_job_info {
  std::string id;  ///< the LRMS id
  std::string reservation_id;
  std::string name;  ///< as the LRMS has it ("" once it has left the LRMS's lists)
  std::int32_t np = 0;
  std::int64_t walltime = 0;
  observed_state state = observed_state::queued;
  std::int64_t started = -1;  ///< when it started, if running
  friend bool operator==(const bound_job_info&, const bound_job_info&) = default;
};
ARB_FIELDS(bound_job_info, x.id, x.reservation_id, x.name, x.np, x.walltime, x.state, x.started)

struct bound_job_reply {
  bound_job_info job;
  wire_error error;
  friend bool operator==(const bound_job_reply&, const bound_job_reply&) = default;
};
ARB_FIELDS(bound_job_reply, x.job, x.error)

/// Undoes a co-allocation's part (the broker's, coallocation_protocol.hpp): cancels jobs
/// bound to the caller's reservation and forgets them; the reservation stays as it was. An
/// id that is not one of its jobs is ignored. Answered with ack_reply.
struct unbind_jobs_request {
  std::string user;
  std::string reservation_id;
  std::vector<std::string> jobs;
  friend bool operator==(const unbind_jobs_request&, const unbind_jobs_request&) = default;
};
ARB_FIELDS(unbind_jobs_request, x.user, x.reservation_id, x.jobs)

/// When a batch job of np CPUs and this walltime, submitted now, would start: arbroker's
/// own ESE over the LRMS's snapshot (local jobs queued before it go first; reservations are
/// honoured). The LRMS's own estimates cannot be trusted for this (Slurm's --test-only
/// ignores future reservations).
struct estimate_request {
  std::int32_t np = 1;
  std::int64_t walltime = 0;
  /// Paper 004 Sec. III-C: not before `ready` (e.g. when the input is there; 0: now) and
  /// ending by `deadline` (0: none).
  std::int64_t ready = 0;
  std::int64_t deadline = 0;
  friend bool operator==(const estimate_request&, const estimate_request&) = default;
};
ARB_FIELDS(estimate_request, x.np, x.walltime, x.ready, x.deadline)

struct estimate_reply {
  std::string cluster;
  std::int64_t start = -1;  ///< -1: never (larger than the cluster, or not by the deadline)
  wire_error error;
  friend bool operator==(const estimate_reply&, const estimate_reply&) = default;
};
ARB_FIELDS(estimate_reply, x.cluster, x.start, x.error)

/// A cluster's current state, for operators and the stress tool's invariant checks.
struct cluster_status_request {
  friend bool operator==(const cluster_status_request&, const cluster_status_request&) = default;
};
ARB_NO_FIELDS(cluster_status_request)

/// A queued LRMS job that the plan of the queue only approximates, and why (for admins:
/// what LJP protects less exactly than it could).
struct queued_job_note {
  std::string job;  ///< LRMS id
  std::string owner;
  std::string reason;
  friend bool operator==(const queued_job_note&, const queued_job_note&) = default;
};
ARB_FIELDS(queued_job_note, x.job, x.owner, x.reason)

struct cluster_status {
  std::string cluster;
  std::int64_t now = 0;
  std::int32_t cpus = 0;
  std::int32_t holds = 0;      ///< accepted, not yet committed
  std::int32_t committed = 0;  ///< committed or active
  std::int32_t running_jobs = 0;
  std::int32_t queued_jobs = 0;
  std::vector<reservation_info> reservations;  ///< every live reservation (holds included)
  /// The LRMS's own view, for audits: its reservations (id = LRMS name) and its running jobs
  /// (start = started, end = started + walltime).
  std::vector<reservation_info> lrms_reservations;
  std::vector<reservation_info> lrms_running;
  /// Events since the service started (cumulative, for metrics).
  std::int64_t holds_created = 0;  ///< prepares granted (a direct reservation counts too)
  std::int64_t commits = 0;        ///< holds committed (commit_at_once included)
  std::int64_t aborts = 0;         ///< holds released by abort
  std::int64_t expiries = 0;       ///< holds released because they expired
  std::int64_t cancels = 0;        ///< reservations cancelled or terminated by their owner
  std::int32_t reserved_cpus = 0;  ///< CPUs of reservations active right now
  wire_error error;
  /// The LRMS's queued jobs, and its running jobs inside reservations (lrms_running has the
  /// others): with lrms_running, every job in the LRMS, for audits of grid jobs.
  std::vector<reservation_info> lrms_queued;
  std::vector<reservation_info> lrms_running_bound;
  /// Reservations the service let go of that the LRMS has not deleted yet (it retries).
  std::int32_t undeleted = 0;
  std::int64_t moves = 0;  ///< reservations moved within their windows (laxity clusters)
  /// Paper 002, Sec. 5.3: quanta granted to reservations whose jobs overran their end, and
  /// overruns that could not be granted (the jobs ended at the reservation's end).
  std::int64_t overruns = 0;
  std::int64_t overruns_refused = 0;
  /// The names of this node's reservations in the LRMS: this prefix, then the id number
  /// (lrms_reservations lists every name under it; another node's prefix is not this one).
  std::string name_prefix = {};
  /// Queued LRMS jobs the plan approximates (held, bound to nodes, ...): lrms_job::approximation.
  std::vector<queued_job_note> approximated = {};
  friend bool operator==(const cluster_status&, const cluster_status&) = default;
};
ARB_FIELDS(cluster_status, x.cluster, x.now, x.cpus, x.holds, x.committed, x.running_jobs,
           x.queued_jobs, x.reservations, x.lrms_reservations, x.lrms_running, x.holds_created,
           x.commits, x.aborts, x.expiries, x.cancels, x.reserved_cpus, x.error, x.lrms_queued,
           x.lrms_running_bound, x.undeleted, x.moves, x.overruns, x.overruns_refused,
           x.name_prefix, x.approximated)

}  // namespace arbroker::msg

template <>
struct arbroker::enum_bounds<arbroker::msg::refusal> {
  static constexpr auto last = arbroker::msg::refusal::lrms;
  static constexpr const char* name = "refusal";
};
