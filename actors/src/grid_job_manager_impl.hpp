#pragma once

// The grid-job manager's state (internal to actors/src/): one struct behind grid_job_manager,
// its operations in four files, one concern each:
//   grid_job_manager.cpp    the jobs: queries, cancels, copies and their LRMS calls, the store,
//                           adoption after a restart, ended jobs leaving memory; the facade
//   grid_job_placement.cpp  submissions, one outlook per cluster per batch, the ranking (TTD
//                           or SED), placement by strategy
//   grid_job_reserve.cpp    the reserve strategy: its flow's calls (reserve_flow.hpp), the job
//                           bound into the kept reservation, the reservation's release
//   grid_job_rounds.cpp     poll rounds and LRMS events, recovery rounds, adaptation rounds
//                           (migrations), clusters that leave the directory

#include "grid_job_events.hpp"
#include "grid_job_manager.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "arbroker/actors/fan_in.hpp"
#include "arbroker/actors/reserve_flow.hpp"
#include "arbroker/core/expected_delay.hpp"
#include "arbroker/core/grid_placement.hpp"
#include "arbroker/core/site_adaptation.hpp"
#include "grid_job_terms.hpp"

namespace arbroker {
struct grid_job_manager::impl {
  /// A field of a cluster service's reply, or why there is none: the call failed, or the reply
  /// carries an error.
  template <class Reply, class T>
  static result<T> outcome(const result<Reply>& rep, T Reply::*field) {
    if (!rep) return rep.err();
    if (!rep->error.ok()) return msg::from_wire(rep->error);
    return (*rep).*field;
  }

  /// One cluster's answer to a ranking outlook.
  struct ranked {
    std::string cluster;
    duration ttd = 0;
    duration walltime = 0;
    timestamp start = 0;  ///< the cluster's earliest start for the job
    placement_terms terms;
    duration sed_delay = 0;  ///< paper 004 eq. 6 (the TTD where SED cannot be computed)
    duration key = 0;        ///< what the ranking sorts by: SED delay, or TTD with staging data
    const char* by = "TTD";
  };

  /// How long the holds of the reserve flow may stay undecided.
  static constexpr duration hold_expiry = 60;
  /// A reserve-flow reservation lasts the job's walltime and this much more: a reservation
  /// that starts at once has begun by the time its job is submitted into it, and a batch
  /// system refuses a job that would run past the reservation's end (Grid Engine: "the job
  /// duration exceeds the end time of the advance reservation").
  static constexpr duration submit_slack = 60;
  /// ... and starts at least this far ahead: a hold for "now" is in the past by the time the
  /// batch system sees it once the clock has ticked ("reservation start ... is in the past").
  static constexpr duration start_lead = 5;

  using reply_fn = grid_job_manager::reply_fn;

  impl(grid_jobs_config cfg, grid_job_port& port) : cfg_(std::move(cfg)), port_(port) {
    if (!cfg_.counters) cfg_.counters = std::make_shared<grid_job_counters>();
    next_serial_ = std::max(next_serial_, cfg_.last_serial + 1);
    for (auto& rec : cfg_.recovered)
      adopt(std::move(rec));
    cfg_.recovered.clear();
  }

  msg::grid_job_reply query(const msg::grid_query_request& r);

  struct tracked {
    msg::grid_submit_request request;
    grid_job job;
    std::vector<reply_fn> answer_when_placed;
    std::optional<grid_job_state> counted;  // the state it is counted under in counters.jobs
    bool noted_ended = false;               // in ended_ (it leaves memory from there)
    grid_job_seen seen;                     // at its last write: its next write's events
    /// strategy reserve: its holds, until the job is in its reservation (or failed), and
    /// the flow's phase this job has acted on.
    std::shared_ptr<reserve_flow> flow;
    reserve_flow::phase flow_seen = reserve_flow::phase::holding;
    /// strategy reserve: the best `width` clusters it asked for holds first, and the ranked
    /// ones after them, asked in turn when none of the last `width` granted a hold.
    std::vector<ranked> reserve_first, reserve_rest;
    /// What the request brings for its terms, read once (a recovered job's on first use) ...
    std::optional<placement_inputs> inputs;
    /// ... and its terms on each cluster, computed once per cluster (dropped when the
    /// directory changes: a cluster's speed or bandwidth may have).
    /// A job that may move (adaptive) keeps every candidate's, the others those of the
    /// clusters their copies or holds went to. (A short list: searched, not indexed.)
    std::vector<std::pair<std::string, placement_terms>> terms;
    /// Placements again (resubmissions, retries) already in the counters.
    std::int32_t counted_resubmits = 0, counted_retries = 0;
    /// strategy reserve, while `flow` is a move's (make-before-break): when the job finishes
    /// in the reservation it has; the new one must beat it by more than min_gain.
    std::optional<timestamp> moving_from_finish;
    /// ... and after moves that came to nothing in a row (`futile_moves`), the next is not
    /// tried before this: twice as long each time, so that a cluster whose outlook promises
    /// more than its admission grants is not asked at every round.
    timestamp next_move = 0;
    std::int32_t futile_moves = 0;
  };

  // The job's terms on cluster `e`: computed at most once per directory.
  result<placement_terms> terms_at(tracked& t, const directory_entry& e);
  /// How long its inputs take to reach `e`, whether or not the ranking counts them.
  duration stage_in_to(const tracked& t, const directory_entry& e,
                       const placement_terms& as_ranked) const;
  /// hold_for_stage_in: not before then may a copy on `e` start (0: at once).
  timestamp inputs_arrive(const tracked& t, const directory_entry& e,
                          const placement_terms& as_ranked) const;

  // Keeps counters.jobs in step with the job's state.
  void recount(tracked& t);

  void uncount(tracked& t);

  timestamp now() const { return cfg_.clock(); }

  // -- requests ---------------------------------------------------------------------------

  void submit(msg::grid_submit_request r, reply_fn rp);
  // Several jobs at once (grid_job_dependencies.cpp): all written or none; those whose
  // parents are met placed, the others waiting.
  void submit_many(msg::grid_submit_many_request r, grid_job_manager::many_reply_fn rp);

  // A request the node can take now: checked, the node's defaults filled in, the clusters
  // that may take it with its terms there (the errors a submission is refused with).
  struct admission {
    std::vector<std::pair<std::string, placement_terms>> where;
    placement_inputs inputs;
  };
  result<admission> admit(msg::grid_submit_request& r) const;

  // How a failed placement starts: "not placed: ", or "not placed again: " for a job that ran
  // copies (or held a reservation) before.
  static std::string not_placed(const tracked& t) {
    return t.job.copies.empty() && t.job.reservation.empty() ? "not placed: "
                                                             : "not placed again: ";
  }

  struct pending_submit {
    msg::grid_submit_request request;
    reply_fn rp;
    std::vector<std::pair<std::string, placement_terms>> candidates;
    placement_inputs inputs;
    std::uint64_t again = 0;  ///< a job placed again (its serial), not a new one
  };

  // The clusters that may take request `r` (in its `clusters`, open to its user, big enough,
  // none of `excluded`), with its terms on each; why the others may not; the most CPUs of any.
  struct eligible_clusters {
    std::vector<std::pair<std::string, placement_terms>> where;
    std::string why_not;
    std::int32_t largest = 0;
  };
  eligible_clusters eligible(const msg::grid_submit_request& r, const placement_inputs& in,
                             const std::vector<std::string>& excluded) const;

  // A job whose copies were lost (or whose winner failed, with retries asked for) is placed
  // again by its strategy among the clusters that did not fail it, in the next batch.
  void place_again(std::uint64_t serial);
  static void sort_ranked(std::vector<ranked>& ok);  // best first, ties by name
  static void add_ranked_copies(grid_job& job, const std::vector<ranked>& ok, timestamp at);
  // How many copies a placement of `r` makes: a flood's width, else one.
  static std::size_t copies_of(const msg::grid_submit_request& r);
  // (cluster, walltime) of each ranked place a job went to.
  static std::vector<std::pair<std::string, duration>> places(const std::vector<ranked>& ok);
  // New copies of a tracked job at the ranked clusters `ok`: written down before any LRMS sees
  // them (if the store refuses, they are refused and none goes out), then submitted.
  void add_copies(std::uint64_t serial, const std::vector<ranked>& ok);
  // The batch's ranking for a job placed again: its new copies, or it fails.
  std::vector<std::pair<std::string, duration>> place_existing(pending_submit p,
                                                               std::vector<ranked> ok,
                                                               std::string refused);
  // The copies of jobs on clusters that could not be asked past lost_after are lost.
  void lose_unreachable();
  // Cluster `at` could not be asked about its copies (left the directory, LRMS unreachable).
  void unreachable(const std::string& at);

  struct outlook_round {
    std::vector<pending_submit> submits;
    std::map<std::string, msg::job_outlook_request> asks;
    std::map<std::string, std::map<msg::queue_shape, std::size_t>> shape_index;
    std::map<std::string, result<msg::job_outlook_reply>> answers;
  };

  void flush();

  // How much later a cluster starts the next job once one of np CPUs for `walltime` joined
  // its queue: the jobs of one batch (or one adaptation round) see one outlook, and without
  // this they would all pick the same cluster.
  duration queue_growth(const std::string& at, std::int32_t np, duration walltime) const;

  void rank_batch(outlook_round& rd);

  // The ranking is in: keep the best (or the best `width` for a flood) and submit there.
  // Returns where it went: (cluster, walltime) of each copy or hold.
  std::vector<std::pair<std::string, duration>> place(pending_submit p, std::vector<ranked> ok,
                                                      std::string refused);

  // The JBS flow (reserve_flow.hpp; paper 004 Sec. III-A, paper 003 Sec. 3 step 4): hold at
  // the best k clusters at once, each at the start its estimator gave (after stage-in), keep
  // the hold that finishes first, let the others go, and run the job in the kept reservation
  // with the walltime of the largest benchmark estimate.
  void reserve(std::uint64_t serial, std::vector<ranked> ok);
  // The holds the flow asks for at the clusters of `ok` (the smallest reservable size that
  // holds the job; the finish by eq. 7 or start + run); `unfit` gets why a cluster has none.
  std::vector<reserve_option> reserve_options(const tracked& t, const std::vector<ranked>& ok,
                                              std::vector<std::string>& unfit) const;
  // Make-before-break for a reserve job (its bound copy queued): a hold at `to`, committed,
  // the job bound into it, then the old copy withdrawn and the old reservation released; or,
  // where the new one does not finish the job more than min_gain before `current_finish` (a
  // retried hold starts later), the new one is let go and the job stays.
  void start_move(std::uint64_t serial, const ranked& to, timestamp current_finish);
  // The move's flow has ended (kept, failed or given up): the job moves or stays.
  void end_move(std::uint64_t serial, const std::shared_ptr<reserve_flow>& f);

  // Sends the calls of a job's reserve flow; their answers go back to it and then here,
  // where what the flow decided becomes the job's.
  void flow_step(std::uint64_t serial, const std::shared_ptr<reserve_flow>& f,
                 reserve_flow::calls cs);

  void fail_reserve(std::uint64_t serial, const std::string& why);

  // No hold granted (`why`): holds at the next `width` clusters of the ranking, or (asked for:
  // fallback_flood) a flood of the best `width`. False when neither is left.
  bool reserve_fallback(std::uint64_t serial, const std::string& why);

  // -- dependencies (grid_job_dependencies.cpp): a job that waits for others (`after`) --
  enum class wait_state { met, waiting, broken };
  struct wait_verdict {
    wait_state state = wait_state::met;
    std::string why;  ///< waiting: for which; broken: why it can never run
    errc code = errc::infeasible;
  };
  // Where the parents of a request stand (the owner's jobs: in memory, or ended, in the store);
  // met, with `outputs`: the declared outputs of those that completed, where they ran.
  wait_verdict parents_of(const msg::grid_submit_request& r, const std::string& owner,
                          std::vector<msg::input_file>* outputs = nullptr);
  // A job that waits: written, answered pending, placed when its parents end as asked.
  void wait_for_parents(msg::grid_submit_request r, reply_fn rp, const std::string& why);
  // Job `parent` ended: the jobs waiting for it are placed, or fail (or are cancelled) when
  // they can never run. Only those that name it are looked at (their other parents may be
  // read from the store); without a parent, every waiting job (after a restart).
  void wake_children(const std::optional<std::string>& parent = std::nullopt);
  // A reserve job placed again after its bound job was lost: the old reservation let go, new
  // holds at the best of `ok` (ranked). Returns the queue growth, as places().
  std::vector<std::pair<std::string, duration>> reserve_again(std::uint64_t serial,
                                                              std::vector<ranked> ok);

  // The job into the kept reservation (which starts at `start`): a copy whose LRMS id is the
  // bound job's.
  void bind(std::uint64_t serial, const std::string& where, duration walltime, timestamp start);
  // Copy i, written down with its reservation, submitted into it.
  void bind_copy(std::uint64_t serial, std::size_t i, duration walltime);

  // The reservation of a reserve job that ended before its course (job.reservation_to_release),
  // once no copy of the job is live any more, and those it let go (job.releasing), once no
  // live copy runs in them. The obligation is in the store with the job: it ends only when
  // the cluster has cancelled the reservation (or says it has ended), so a cancel lost to a
  // crash or an unreachable cluster is sent again (poll rounds, restarts).
  void release_reservation_if_done(std::uint64_t serial);
  void release(std::uint64_t serial, const std::string& reservation);

  // A call of a reserve flow, tagged as a coordinator's; counted like ask(). The handler gets
  // the reply, nullptr when the cluster left the grid (nothing is held there), or an
  // `unreachable` reply when the call failed: its answer was lost, and the flow treats what it
  // asked for as in doubt.
  template <class Reply, class Request, class F>
  void txn(const std::string& where, Request q, F handler) {
    ask(where, std::move(q), [handler](const result<Reply>& rep) mutable {
      if (rep) return handler(&*rep);
      if (rep.err().code == errc::not_found) return handler(static_cast<const Reply*>(nullptr));
      Reply lost;
      lost.error = msg::to_wire(rep.err());
      handler(static_cast<const Reply*>(&lost));
    });
  }

  msg::grid_job_reply cancel(const msg::grid_cancel_request& r);

  msg::grid_list_reply list(const msg::grid_list_request& r) const;

  tracked* find(const std::string& id, const std::string& user);

  static msg::grid_job_reply missing(const std::string& id);

  // -- copies ---------------------------------------------------------------------------

  const directory_entry* cluster(const std::string& which) const;

  void send_copy(std::uint64_t serial, std::size_t i);

  // Writes the job, does what the rules asked, and answers a submit once no copy is
  // still being submitted.
  void after_change(std::uint64_t serial, std::vector<grid_action> acts);

  // Answers the submission once no copy is still being submitted (and a reserve job's holds
  // are decided).
  void answer_if_placed(tracked& t);

  void perform(std::uint64_t serial, std::vector<grid_action> acts);

  void count(const grid_job& j, std::int32_t dup, std::int32_t mig, duration gain);

  // -- rounds ---------------------------------------------------------------------------

  // After a restart: find the copies whose submission was never answered by their names,
  // and release the reservations of reserve jobs that never got their job.
  void recover_round();

  // One state request per cluster for every copy that may be in its queue.
  std::int32_t poll_round();

  // Copies given up while their cluster was silent, looked for there by name (poll rounds).
  void look_for_given_up(const std::string& at,
                         std::vector<std::pair<std::uint64_t, std::size_t>> copies);

  // An LRMS's event hook: its copies that changed are looked at now, not at the next poll.
  void look_at(const msg::lrms_job_events& ev);

  // What one LRMS said of one copy.
  struct observation {
    std::uint64_t serial;
    std::size_t copy;
    msg::job_state_report report;
  };
  // A poll round's observations, taken together once every cluster asked has answered, the
  // copies that started first first: a flood's winner is the copy that started first in its
  // LRMS, not the one whose cluster happened to answer first.
  struct poll_batch {
    std::size_t waiting = 0;
    std::vector<observation> seen;
  };

  // One state request to cluster `at` for `copies` (job serial, copy index); what it reports
  // goes through the job's rules, at once or (`batch`: the poll round's) with the round's.
  void ask_states(const std::string& at, std::vector<std::pair<std::uint64_t, std::size_t>> copies,
                  std::shared_ptr<poll_batch> batch);

  // The LRMSs' reports through the jobs' rules: started copies in the order they started.
  void observe(std::vector<observation> seen);

  // Paper 003 Sec. 3.3 for every queued adaptive job, from one outlook per cluster: the
  // planned start of each job where it stands, and when it would start elsewhere.
  std::int32_t adapt_round();

  template <class Round>
  void decide_migrations(Round& rd);
  /// How many of `evaluated` queued adaptive jobs one round may move (cfg.migration_share).
  std::size_t migrations_allowed(std::size_t evaluated) const;

  // The directory changed: the terms on its clusters are computed again when next needed,
  // and copies on clusters that left it can no longer be watched: they fail.
  void directory_changed();

  void drop_departed();

  // -- plumbing -------------------------------------------------------------------------

  // A request to the service of cluster `at` (the one way the manager calls a cluster);
  // the handler gets the reply or the error. Counted so that poll_atom/adapt_atom can answer
  // when everything they set off is done.
  template <class Request, class F>
  void ask(const std::string& at, Request q, F handler) {
    using reply = reply_to<Request>;
    if constexpr (std::is_same_v<Request, msg::job_outlook_request>) ++cfg_.counters->outlook_calls;
    if constexpr (std::is_same_v<Request, msg::job_states_request>) ++cfg_.counters->state_calls;
    const auto sent = call_started();
    port_.call(at, std::move(q),
               [this, handler = std::move(handler), sent](result<grid_cluster_reply> r) mutable {
                 auto typed = r ? result<reply>(std::get<reply>(std::move(*r))) : r.err();
                 call_ended(handler, sent, std::move(typed));
               });
  }

  // Every call (ask, txn) is counted from here ...
  std::chrono::steady_clock::time_point call_started();

  // ... to here: its latency into the counters (wall time: what an operator wants to see,
  // whatever clock the manager plans with), the handler, and maybe the end of a round.
  template <class F, class Answer>
  void call_ended(F& handler, std::chrono::steady_clock::time_point sent, Answer r) {
    cfg_.counters->lrms_call_microseconds += std::chrono::duration_cast<std::chrono::microseconds>(
                                                 std::chrono::steady_clock::now() - sent)
                                                 .count();
    handler(r);
    settled();
  }

  void when_settled(std::int32_t value, std::function<void(std::int32_t)> done);

  void settled();

  arbroker::status persist_job(tracked& t);
  // The job's row in the store (and, ended, its place in ended_).
  grid_job_row row_of(tracked& t);

  // Ended jobs leave memory after ended_in_memory, or sooner beyond ended_in_memory_max
  // (oldest first), unless something still waits on them; the store keeps them (purged past
  // the retention once a minute). Memory and list then do not grow with the history.
  void forget_ended();

  void adopt(msg::grid_job_record rec);

  grid_jobs_config cfg_;
  grid_job_port& port_;
  directory_view directory_;
  std::map<std::uint64_t, tracked> jobs_;                // by serial: oldest first
  std::set<std::pair<timestamp, std::uint64_t>> ended_;  // (ended, serial): leave memory
  timestamp next_purge_ = 0;
  std::uint64_t next_serial_ = 1;
  std::set<std::string> polling_;  // clusters with a state request in flight
  std::set<std::string> finding_;  // clusters asked for given-up copies by name
  std::vector<std::pair<std::uint64_t, std::size_t>> unresolved_;  // recovered, submitting
  std::vector<std::uint64_t> resend_;      // recovered with cancels or withdrawals on their way
  std::set<std::uint64_t> to_place_;       // to be placed again once the directory is known
  std::set<std::uint64_t> placing_again_;  // in a batch
  std::set<std::uint64_t> waiting_;        // for their parents to end (`after`)
  bool recheck_waiting_ = false;  // adopted waiting jobs: the first poll round looks at all
  std::map<std::string, timestamp> away_since_;  // clusters that could not be asked
  std::set<std::string> releasing_;              // reservations whose cancel is on its way
  bool adapting_ = false;
  std::size_t outstanding_ = 0;
  std::vector<pending_submit> batch_;  // submissions waiting for the next flush
  bool flush_pending_ = false;  // a flush is asked for (port::flush_soon) or waits for ranking_
  bool ranking_ = false;        // a batch's outlooks are in flight
  std::vector<std::pair<std::function<void(std::int32_t)>, std::int32_t>> waiters_;
};

}  // namespace arbroker
