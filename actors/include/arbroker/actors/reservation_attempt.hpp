#pragma once

// The coordinator core: one client request's attempt to reserve, as a plain state machine
// (no CAF inside, driven by a test as easily as by an actor; see README.md in actors/).
//
// The owner (a coordinator actor: an elastic worker, the matchmaker, a co-reservation
// worker) decides *what* to try: its candidates in the order of its ranking. The attempt
// decides *how*: it turns a placement into the calls of a try, reads their answers, and
// tells the owner how the try ended. Every method returns the calls to send next; the owner
// sends each to the cluster service of its `site`, tagged, and hands the answer back with the
// call's id (nullptr when that service went away: a gone service answers nothing, and its
// holds went with it).
//
//   one part                 prepare (commit at once, or a hold the client commits later)
//                            -> granted | refused
//   several parts (2PC)      prepare every part as a hold -> all granted? log the decision,
//                            wait until it is durable (deciding), commit every part
//                            -> all committed: granted
//                            any refused: abort the granted holds, then refused
//                            a commit failed (a hold expired first): release every part
//                            (compensation), forget the decision, then refused; a commit
//                            or a release the store could not record: outcome unknown
//
// A prepare whose answer was lost (unreachable or timeout: the link to an agent broke, or the
// call outlived its deadline) may still have run at the cluster. Such a part is in doubt:
// it is released (release_txn, idempotent; the remote layer keeps it and sends it again when
// the link is back) without the try waiting for that release, and the attempt counts it
// (in_doubt()), so that the owner answers `unreachable` rather than a refusal.
//
// A refused try leaves the attempt idle; the owner picks the next placement or gives the
// client its answer. The client's deadline is give_up(): what the attempt holds is released,
// and a grant that arrives afterwards is released when it arrives (a request that timed out
// changes nothing). The owner keeps the attempt until open_calls() is 0.
//
// The decision is written pipelined (reservation_journal::log_commit_pipelined): the attempt
// asks its owner to wait for it (a durable_wait call, answered with decided()), so that no
// thread waits for the disk and concurrent decisions share one sync.

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "arbroker/core/time.hpp"
#include "arbroker/messages/cluster_protocol.hpp"
#include "arbroker/store/journal.hpp"

namespace arbroker {

/// One part of a placement: np CPUs of one cluster over [start, end). `site` is the owner's
/// number for the cluster: the attempt's calls for this part go to that site's service.
struct placement_part {
  std::size_t site = 0;
  std::string cluster;
  timestamp start = 0;
  timestamp end = 0;
  int np = 0;
  /// Paper 002: deadline > 0 lets a cluster with laxity move the part within [earliest,
  /// deadline] once it is committed (0: rigid).
  timestamp earliest = 0;
  timestamp deadline = 0;
};

/// One way to place a whole request: one part per component.
using placement = std::vector<placement_part>;

/// What every try of an attempt has in common.
struct attempt_terms {
  std::string user;
  /// Transactions are "<txn_base>.<try>": unique as long as the base is (the broker's
  /// incarnation and its request number).
  std::string txn_base;
  /// One part: leave the grant a hold until `hold_seconds` from the prepare (the client
  /// commits it) instead of committing it at once. Several parts always hold, until
  /// `prepare_expiry`, and commit in phase two.
  bool client_commits = false;
  duration hold_seconds = 120;
  duration prepare_expiry = 30;
  bool local_jobs_preferred = true;
  bool admin = false;   ///< may waive LJP where a site enforces it
  std::string account;  ///< to charge in the LRMS ("" = the user's default)
  /// Where commit decisions of several-part tries are made durable before phase two
  /// (presumed abort: without the record, a restarted node aborts the holds). Null: none.
  std::shared_ptr<reservation_journal> journal;
  /// The window the client asked for (its request's earliest start and latest end), which
  /// every part keeps for `show` (0: not known).
  timestamp window_start = 0;
  timestamp window_end = 0;
};

class reservation_attempt {
 public:
  /// Not a message: the owner waits until `journal` says `ticket` is durable
  /// (when_durable) and hands the outcome to decided() under the call's id.
  struct durable_wait {
    std::shared_ptr<reservation_journal> journal;
    write_ticket ticket = 0;
  };
  /// A call for the owner to send; its answer goes to answer() with the same id.
  struct call {
    std::uint64_t id = 0;
    std::size_t site = 0;
    std::variant<msg::prepare_request, msg::commit_txn_request, msg::abort_txn_request,
                 msg::release_txn_request, durable_wait>
        request;
  };
  using calls = std::vector<call>;

  enum class phase {
    idle,        ///< no try in progress: none yet, or the last one was refused
    preparing,   ///< phase one: prepares on their way
    deciding,    ///< every part is held; the commit decision is on its way to the disk
    committing,  ///< the decision is commit: commits on their way
    releasing,   ///< the try failed: aborts or releases on their way, then idle
    granted,     ///< the last try holds (or has committed) every part: done
    given_up,    ///< the deadline passed: done; late grants are released as they come
  };

  /// How one part of the current (or last) try went.
  struct part_outcome {
    placement_part terms;
    msg::prepare_reply prepared;  ///< the prepare's answer (error "gone" if its service went)
    bool answered = false;        ///< `prepared` is there
    bool committed = false;       ///< committed: by phase two, or by its prepare at once
    bool lost = false;            ///< its service went away (nothing to release there)
    bool in_doubt = false;        ///< its prepare's answer was lost: it may hold something
  };

  explicit reservation_attempt(attempt_terms terms);

  /// Starts a try of `p` (one part or several). Precondition: phase idle, p not empty.
  calls try_placement(placement p, timestamp now);

  /// The answer to a prepare (nullptr: its service is gone).
  calls answer(std::uint64_t id, const msg::prepare_reply* r);
  /// The answer to a commit, abort or release (nullptr: its service is gone).
  calls answer(std::uint64_t id, const msg::ack_reply* r);
  /// The outcome of a durable_wait: the decision is durable (ok), or never will be.
  calls decided(std::uint64_t id, const status& durable);

  /// For an owner that is its own client (client_commits, one part: the grid-job manager's
  /// reserve flow). Precondition: granted, the hold not committed. Commits the hold: granted
  /// (committed) once the commit is answered, or, if it failed (the hold expired first),
  /// the hold is released and the attempt is idle with failure() saying why.
  calls commit_hold();
  /// ... or lets the granted hold go (abort): done (given up) afterwards.
  calls release_hold();

  /// The client's deadline passed (or the client went away): releases what the try holds,
  /// now or when a grant still on its way arrives. Done afterwards, whatever the phase.
  calls give_up();

  phase current() const noexcept { return phase_; }
  /// True once the attempt needs nothing more from its owner: granted or given up.
  bool done() const noexcept { return phase_ == phase::granted || phase_ == phase::given_up; }
  /// Tries started so far.
  int tries() const noexcept { return tries_; }
  /// Calls sent and not yet answered (a given-up attempt lives until this is 0).
  std::size_t open_calls() const noexcept { return open_.size(); }
  /// The parts of the current or last try, in placement order.
  const std::vector<part_outcome>& parts() const noexcept { return parts_; }
  /// The reservation part `part` of a granted try is, as its client sees it: held (with the
  /// hold's expiry) or committed, its cluster's word on cost, creation and LJP bound, the
  /// window the client asked for, and where a laxity cluster may still move it.
  msg::reservation_info reservation_of(std::size_t part) const;
  /// The transaction of the current or last try.
  const std::string& txn() const noexcept { return txn_; }
  /// The txn part `part` of the current try carries to its cluster.
  std::string part_txn(std::size_t part) const;
  /// When the holds of the current or last try expire unless committed.
  timestamp expiry() const noexcept { return expiry_; }
  /// Why the last try was refused, when no part's answer says it ("" otherwise): a journal
  /// that could not log the decision, or a hold lost during phase two.
  const std::string& failure() const noexcept { return failure_; }
  /// Prepares (over every try) whose answer was lost, each released since: a request that
  /// fails after one did not fail for want of capacity, and its client should hear
  /// `unreachable`.
  int in_doubt() const noexcept { return in_doubt_; }
  /// A try whose commit decision was logged could not record a part's commit or its
  /// compensation (the store failed under a cluster service): what the request holds is
  /// what recovery makes of the decision (it completes it), not known here. The owner
  /// answers `storage_failure`, never a refusal.
  bool decision_in_doubt() const noexcept { return !decision_in_doubt_.empty(); }
  const std::string& decision_in_doubt_why() const noexcept { return decision_in_doubt_; }

 private:
  /// settle: the release of a part in doubt, which nothing waits for.
  enum class kind { prepare, commit, abort, release, decide, settle };
  struct open_call {
    std::size_t part;
    kind what;
  };

  std::uint64_t send(calls& out, std::size_t part, kind what);
  calls after_prepares();
  /// The decision is durable: phase two.
  calls commit_all();
  /// Presumed abort: aborts every part that holds something.
  calls abort_all();
  calls after_commits();
  /// Phase two could not complete: release every part still there, then idle.
  calls compensate(std::string why);
  void finish_releasing();
  /// The current try needs its journal record no more (granted, or nothing left to settle).
  void forget_decision();
  /// Releases part i, whose prepare's answer was lost, once.
  void settle(calls& out, std::size_t i);

  attempt_terms terms_;
  phase phase_ = phase::idle;
  int tries_ = 0;
  int in_doubt_ = 0;
  std::string txn_;
  timestamp expiry_ = 0;
  std::string failure_;
  bool decision_logged_ = false;   ///< the current try's commit decision is in the journal
  std::string decision_in_doubt_;  ///< why (decision_in_doubt()), "" while it is known
  std::vector<part_outcome> parts_;
  std::size_t waiting_ = 0;  ///< answers the current phase still waits for
  std::unordered_map<std::uint64_t, open_call> open_;
  std::uint64_t next_id_ = 1;
};

std::string_view to_string(reservation_attempt::phase p) noexcept;

/// An error answer after which the call may still have run where it went: its answer was
/// lost (unreachable: the link to an agent broke with the call in flight) or came too late
/// (timeout). A call made while a link was down did not run; treating it alike is harmless.
inline bool outcome_unknown(const msg::wire_error& e) {
  const auto code = static_cast<errc>(e.code);
  return !e.ok() && (code == errc::unreachable || code == errc::timeout);
}

/// For a failure message: "" or "; N of them got no answer (released where they may have
/// been granted)".
std::string in_doubt_note(const reservation_attempt& a);

}  // namespace arbroker
