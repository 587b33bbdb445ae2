#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "arbroker/actors/broker_scope.hpp"
#include "arbroker/actors/cluster_service_config.hpp"
#include "arbroker/actors/job_desk.hpp"
#include "arbroker/actors/job_end_watch.hpp"
#include "arbroker/actors/laxity_planner.hpp"
#include "arbroker/actors/lrms_names.hpp"
#include "arbroker/actors/lrms_view.hpp"
#include "arbroker/actors/overrun_watch.hpp"
#include "arbroker/adapters/lrms.hpp"
#include "arbroker/core/availability_profile.hpp"
#include "arbroker/core/capacity_view.hpp"
#include "arbroker/core/cost.hpp"
#include "arbroker/core/esr_history.hpp"
#include "arbroker/core/esr_load.hpp"
#include "arbroker/core/job_end_policy.hpp"
#include "arbroker/core/laxity_plan.hpp"
#include "arbroker/core/local_jobs_preferred.hpp"
#include "arbroker/core/reservation_ledger.hpp"
#include "arbroker/core/reservation_state.hpp"
#include "arbroker/messages/cluster_protocol.hpp"
#include "arbroker/messages/gis_protocol.hpp"
#include "arbroker/messages/job_protocol.hpp"
#include "arbroker/store/journal.hpp"
#include "arbroker/store/recovery_plan.hpp"

namespace arbroker {

/// The logic of a cluster reservation service (CRS, paper 000 Sec. 2.2 and 3), without
/// actors: its actor (cluster_service_actor.hpp) owns one and forwards every message to it,
/// adding timers. It is a facade over parts it owns, each with its own header and tests:
/// - the cluster's LRMS (adapters/lrms.hpp);
/// - its *view* of it (lrms_view.hpp: availability profile of running jobs and reservations,
///   T_wkl, the queued jobs and their plan, kept fresh by config.refresh and full_refresh,
///   and the admission rule below), in which the service keeps its own reservations at once;
/// - the reservation ledger (core/reservation_ledger.hpp): the records and every index over
///   them, which nothing else changes;
/// - parts with their own headers and tests: the laxity planner (laxity_planner.hpp; the
///   service carries out its moves, laxity_scheduler.cpp), the overrun and job-end watches
///   (overrun_watch.hpp, job_end_watch.hpp: when to look, and what a look finds), the job desk
///   for grid jobs (job_desk.hpp), recovery's rule per row (row_recovery.hpp) and our names in
///   the LRMS with their lease (lrms_names.hpp);
/// - policies that carry out what those parts decide, through the ledger and the view, one
///   file each: overruns (overruns.cpp), jobs bound to reservations (reservation_jobs.cpp),
///   probes and advice (cluster_probe.cpp, match_advisor.cpp), recovery
///   (cluster_recovery.cpp) and the reports (cluster_reports.cpp).
///
/// Local Jobs Preferred, by config.ljp and config.ljp_check: under `ese` a request with LJP
/// must fit the vacancies of the plan of the queued jobs (no queued job's planned start
/// moves), under `twkl` start at or after T_wkl; probes, busy hints, the match advisor,
/// prepare and modify all check the same rule (admission_for), so a probe never offers a
/// slot that prepare refuses for LJP.
///
/// Holds: prepare() creates a real LRMS reservation in state accepted with an expiry;
/// commit_txn() (or a client's commit()) confirms it; abort_txn() and expiry delete it from
/// the LRMS; release_txn() undoes a transaction whatever became of it. Every handler first
/// expires the holds that are due, so no hold outlives its expiry by more than the time to
/// the next message or timer. Owner checks: a reservation of another user is reported
/// not_found, exactly like a missing one.
class cluster_service {
 public:
  /// invalid_* when the config is inconsistent (e.g. no name, cpus < 1).
  static result<std::unique_ptr<cluster_service>> create(cluster_service_config cfg,
                                                         std::unique_ptr<lrms> backend);

  const std::string& name() const noexcept { return cfg_.info.name; }
  const msg::cluster_info& info() const noexcept { return cfg_.info; }

  // -- the coordinators' protocol ---------------------------------------------------------

  /// Candidates for a request adapted to this cluster (cluster_probe.cpp).
  msg::probe_reply probe(const msg::probe_request& req, timestamp now);
  /// The probes of one batch, answered in their order (each with its own error).
  msg::probe_batch_reply probe_batch(const msg::probe_batch_request& req, timestamp now);
  /// Paper 001's busy-time hint for a request about to be refused (cluster_probe.cpp).
  msg::busy_hint_reply busy_hint(const msg::busy_hint_request& req, timestamp now);
  /// The match advisor (paper 002): where the job would go and what it would cost the
  /// cluster's schedule; see match_advisor.cpp.
  msg::advice_reply advise(const msg::advice_request& req, timestamp now);
  /// Phase one: a hold (or, commit_at_once, a reservation). Idempotent per txn.
  msg::prepare_reply prepare(const msg::prepare_request& req, timestamp now);
  msg::ack_reply commit_txn(const msg::commit_txn_request& req, timestamp now);
  msg::ack_reply abort_txn(const msg::abort_txn_request& req, timestamp now);
  msg::ack_reply release_txn(const msg::release_txn_request& req, timestamp now);

  // -- clients' operations (owner-checked) --------------------------------------------------

  /// A client's commit of its own hold, with the jobs to run in it (all or nothing: the
  /// jobs go into the LRMS reservation first; if one fails, those submitted are cancelled
  /// and the hold is left as it was; a commit that cannot be made durable cancels them).
  msg::query_reply commit(const msg::commit_request& req, timestamp now);
  msg::ack_reply cancel(const msg::cancel_request& req, timestamp now);
  msg::query_reply modify(const msg::modify_request& req, timestamp now);
  msg::query_reply query(const msg::query_request& req, timestamp now);
  msg::list_reply list(const msg::list_request& req, timestamp now);
  msg::bind_job_reply bind_job(const msg::bind_job_request& req, timestamp now);
  /// Cancels jobs bound to a reservation and forgets them (a co-allocation undone).
  msg::ack_reply unbind_jobs(const msg::unbind_jobs_request& req, timestamp now);
  /// One job bound to a reservation, as the LRMS has it; or that job cancelled alone.
  msg::bound_job_reply bound_job(const msg::bound_job_query_request& req, timestamp now);
  msg::bound_job_reply cancel_bound_job(const msg::bound_job_cancel_request& req, timestamp now);
  msg::cluster_status status_report(const msg::cluster_status_request& req, timestamp now);
  msg::estimate_reply estimate(const msg::estimate_request& req, timestamp now);

  // -- the grid-job manager's operations on best-effort jobs: the job desk (job_desk.hpp) --

  msg::job_submit_reply submit_job(const msg::job_submit_request& req, timestamp) {
    return desk_.submit(req);
  }
  msg::job_states_reply job_states(const msg::job_states_request& req, timestamp) {
    return desk_.states(req);
  }
  msg::job_cancel_reply cancel_job(const msg::job_cancel_request& req, timestamp) {
    return desk_.cancel(req);
  }
  msg::job_find_reply find_jobs(const msg::job_find_request& req, timestamp) {
    return desk_.find(req);
  }
  msg::job_outlook_reply job_outlook(const msg::job_outlook_request& req, timestamp) {
    return desk_.outlook(req);
  }

  /// Expires every hold whose expiry is <= now (deleting it from the LRMS), applies start
  /// and end times, and forgets finished reservations past the retention time.
  void sweep(timestamp now);
  void retry_deletes(timestamp now);

  /// Rebuilds the service after a restart, before it serves anything: adopts the journal's
  /// rows for this cluster, settles holds by `plan` (commit decided or presumed abort),
  /// makes sure every committed reservation is in the LRMS (a simulated LRMS starts empty:
  /// they are created again), and deletes reservations of ours the LRMS has but no row
  /// claims (made just before a crash, never answered for). With a journal, only those
  /// below the claim's lease are ours: one at or above it was made by someone else under the
  /// same prefix, and recovery fails naming it (or takes it over, adopt_foreign). Fails also
  /// if the LRMS cannot be read, or the journal's claim names another prefix.
  status recover(const std::vector<reservation_row>& rows, const recovery_plan& plan, timestamp now,
                 recovery_report& report);

  /// Periodic full reads of the LRMS made beside the service (lrms_view.hpp, "Reads aside"):
  /// its actor begins one after a message when one is due, runs it on another thread and
  /// ends it here, on its own.
  void allow_reads_aside() noexcept { view_.allow_reads_aside(); }
  std::unique_ptr<lrms_view::read_aside> begin_read_aside(timestamp now) {
    return view_.begin_read_aside(*lrms_, now);
  }
  void end_read_aside(lrms_view::read_aside& read, timestamp now) {
    view_.end_read_aside(read, now);
  }

  /// The earliest pending hold expiry (or look at bound jobs, see reservation_jobs.cpp, or
  /// for overrunning ones, overruns.cpp; or a time already past when a laxity cluster has
  /// reservations to pull forward), for the actor's timer.
  std::optional<timestamp> next_expiry() const;

  /// What is wrong with the service's books: "" when every index of its reservation ledger
  /// agrees with the records (reservation_ledger::check), for tests and audits. O(n).
  std::string ledger_violation() const { return ledger_.check(); }

  /// Rows are written pipelined (reservation_journal::save_pipelined): the ticket of the
  /// latest write not yet known durable, 0 when there is none, and forgotten here. Whoever
  /// answers for what the service just did answers only once the journal says this ticket
  /// is durable (the actor defers its reply).
  write_ticket take_unsynced() { return std::exchange(unsynced_, write_ticket{0}); }
  /// The journal the tickets belong to (nullptr: none).
  reservation_journal* journal() const { return cfg_.journal.get(); }

 private:
  using record = reservation_record;

  cluster_service(cluster_service_config cfg, std::unique_ptr<lrms> backend, lrms_view view);

  /// The view brought up to `now` (lrms_view::refresh).
  status refresh(timestamp now, bool force = false);
  using admission = lrms_view::admission;
  result<admission> admission_for(bool ljp, bool admin, timestamp now) const {
    return view_.admission_for(ljp, admin, now);
  }
  /// Reservation `r` holds its terms in the view from `now` on (granted, changed, extended).
  void view_put(const record& r, timestamp now);
  /// LRMS reservation `lrms_id` holds nothing in the view any more.
  void view_erase(const std::string& lrms_id);

  // The steps of probe() (cluster_probe.cpp).
  std::vector<std::size_t> rate_and_filter(std::vector<candidate>& cands,
                                           const msg::probe_request& req, timestamp now) const;
  result<std::vector<candidate>> check_and_price(std::vector<candidate>& cands,
                                                 std::vector<std::size_t> passed,
                                                 const msg::probe_request& req,
                                                 const admission& rule, std::int32_t& available,
                                                 timestamp now) const;
  status select_best(const std::vector<candidate>& fit, const msg::probe_request& req,
                     std::vector<msg::slot>& slots) const;
  std::vector<msg::start_window> feasible_windows(const msg::probe_request& req,
                                                  const admission& rule, timestamp now) const;
  double esr_of(esr_method method, timestamp start, timestamp end, int np, timestamp now) const;

  // The steps of prepare().
  std::optional<timestamp> admit(const msg::prepare_request& req, timestamp now,
                                 msg::prepare_reply& out);
  void grant(const msg::prepare_request& req, timestamp now, timestamp admitted_after,
             msg::prepare_reply& out);
  timestamp busy_hint(const msg::prepare_request& req, const availability_profile& free) const;

  msg::ack_reply confirm(const record& r, timestamp now);
  msg::ack_reply drop_hold(const record& r, timestamp now);
  /// illegal_transition: `r` is in a state that does not allow `what`.
  msg::wire_error illegal(const record& r, const std::string& what) const;
  /// The owner ends it before its end (cancelled, or terminated while active).
  msg::ack_reply end_early(const record& r, reservation_state to, reservation_event e,
                           timestamp now);
  /// New terms for a committed reservation (`changed`: `r` with its lifecycle on them): in
  /// the LRMS make-before-break, then durable, then in the view and the record. Used by an
  /// owner's modify and by the laxity scheduler's moves.
  status replace_terms(const record& r, record changed, timestamp now);
  msg::ack_reply withdraw(const record& r, timestamp now);
  /// What np CPUs over [start, end) cost `user`, under the user's or their VO's agreement.
  result<double> cost_for(timestamp start, timestamp end, int np, const std::string& user) const;
  /// Puts id number n below the claim's lease in the journal (durably) before the LRMS sees
  /// a name with it (lrms_names::lease_for: once per block of ids).
  status lease(std::uint64_t n);
  /// Recovery's end: the LRMS's reservations under our prefix that no row claims, as
  /// lrms_names::classify says under `lease`: orphans deleted, others refused or adopted.
  status settle_unclaimed(const lrms_snapshot& snap, const std::set<std::string>& claimed,
                          std::uint64_t lease, timestamp now, recovery_report& report);
  msg::reservation_info info_of(const record& r) const;
  /// After a sweep, the reservation `id` if `user` owns it (its state brought up to `now`),
  /// else null: another user's looks exactly like a missing one. With scoped callers,
  /// another broker's too.
  const record* owned(const std::string& id, const std::string& user, timestamp now);
  /// Who asks (scoped_callers): the broker ("" for an admin broker, or without scoping) and
  /// the user ("" for an admin).
  broker_scope::caller caller_of(std::string_view user) const;
  static msg::wire_error missing(const std::string& id);
  /// `job_id` as a job of `r`: listed by bind and commit, or named by the LRMS as running in
  /// its reservation (the list is not journaled; the LRMS's binding survives a restart).
  msg::bound_job_reply bound_job_state(const record& r, const std::string& job_id);
  /// The serial of one of this service's ids "<cluster>/n", or 0 (we start at 1).
  std::uint64_t serial_of(std::string_view id) const;
  void release(const record& r, reservation_event e, timestamp now, bool persisted = false);
  // Jobs bound to reservations (reservation_jobs.cpp).
  msg::wire_error unfit_job(const record& r, const std::string& which, int np,
                            duration walltime) const;
  result<std::string> submit_bound(const record& r, const msg::job_terms& j);
  void note_bound_jobs(const record& r, const std::vector<std::string>& ids, timestamp now);
  void release_after_jobs(timestamp now);
  // The laxity planner's moves (laxity_scheduler.cpp; the planner: laxity_planner.hpp).
  /// Carries out a move the planner decided, by replace_terms.
  laxity_planner::mover mover(timestamp now);
  /// A new span pinned at [start, end) on a laxity cluster (a hold, an overrun quantum): the
  /// movable reservations re-planned around it and moved; the rule to check the span
  /// against afterwards, on the view as the moves left it (`rule` when nothing moved).
  result<admission> with_room(timestamp start, timestamp end, int np, admission rule, bool ljp,
                              bool admin, timestamp now);
  /// After reservations ended early: pull the movable ones forward.
  void pull_forward_moves(timestamp now);
  // Overruns (overruns.cpp).
  /// Looks at `r` again `overrun_notice` before its (current) end, if overruns are on.
  void watch_overrun(const record& r);
  /// The reservations whose look is due: a quantum more for those with jobs still running.
  void handle_overruns(timestamp now);
  /// One quantum after r's end, if the CPUs are free for it (the LJP rule, laxity moves):
  /// in the LRMS in place, then in the record, view, timeline and journal.
  bool extend_for_overrun(const record& r, timestamp now);
  /// The row of `r` in `state`; a terminal state is history from r.finished (or now).
  reservation_row row_of(const record& r, reservation_state state) const;
  status persist(const record& r, reservation_state state);
  /// Writes the end of a reservation that ended by time (completed), which nobody waits for.
  void persist_end(const record& r);
  /// A restored record into the ledger (invalid_parameter: two rows with one id or txn).
  status adopt(record r, timestamp now);

  cluster_service_config cfg_;
  std::unique_ptr<lrms> lrms_;  ///< an owned_lrms: its reservations_version is the view's
  lrms_view view_;
  job_desk desk_;  ///< grid jobs' copies in the batch queue (job_desk.hpp)
  std::uint64_t next_id_ = 1;
  lrms_names names_;  ///< our names in the LRMS and the journal's lease on them
  struct {
    std::int64_t holds_created = 0, commits = 0, aborts = 0, expiries = 0, cancels = 0, moves = 0,
                 overruns = 0, overruns_refused = 0;
  } events_;  // for status reports (metrics)
  /// The records and every index over them (reservation_ledger.hpp): the only code that
  /// changes them. The policies below keep their own schedules, by serial.
  reservation_ledger ledger_;
  overrun_watch overruns_;  ///< when to look for overrunning jobs (overruns.cpp)
  job_end_watch job_ends_;  ///< after_jobs = release: when to look (reservation_jobs.cpp)
  /// Reservations the service let go of that the LRMS did not delete (unreachable, in use):
  /// LRMS id -> their end. Every sweep tries again until the LRMS deletes them, forgets them,
  /// or they end on their own; until then they still hold CPUs there.
  std::map<std::string, timestamp> undeleted_;
  laxity_planner laxity_;      ///< paper 002's moves (laxity_scheduler.cpp)
  write_ticket unsynced_ = 0;  ///< see take_unsynced()
  timestamp now_ = 0;          ///< of the last sweep (or recovery): when rows written now end
  timestamp next_purge_ = 0;   ///< when to purge the journal's history past the retention again
};

}  // namespace arbroker
