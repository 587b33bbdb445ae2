#pragma once

// The reserve strategy of a grid job (JBS: paper 004 Sec. III-A, paper 003 Sec. 3 step 4) as a
// plain state machine over the coordinator core (no CAF; see README.md in actors/). The
// grid-job manager decides *where*: its best k clusters by its ranking, each with the start
// the cluster's outlook gave. The flow decides *how*, with one reservation_attempt per
// cluster (a hold that its owner, the manager, commits or lets go):
//
//   holding     a hold is asked at every option at once; a refusal that names a later start
//               (the cluster's admission: local jobs first) is tried again there, once
//   committing  every hold is answered: the one whose job finishes first is kept and
//               committed, the others are let go (abort)
//   kept        the kept hold is a committed reservation: the job goes into it
//   failed      no hold was granted, or the kept one's commit failed (it expired first; it is
//               released)
//   given_up    the job ended meanwhile (cancelled): every hold goes, now or as it arrives
//
// As with reservation_attempt, every method returns the calls to send: each to the cluster
// of its `hold`, its answer handed back with the call's id (nullptr: that service is gone).
// A hold whose answer was lost is released by its attempt (in doubt), without the flow
// waiting for that. The owner keeps the flow until open_calls() is 0.
//
// Cost: one attempt per option (k <= 16); every answer is O(k) at most (the decision).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arbroker/actors/reservation_attempt.hpp"

namespace arbroker {

/// One cluster the flow holds at.
struct reserve_option {
  std::string cluster;
  timestamp start = 0;  ///< where the hold starts
  duration length = 0;  ///< how long it lasts
  std::int32_t np = 0;  ///< CPUs it holds
  duration finish = 0;  ///< the job finishes this long after the hold's start
  /// No hold later than this is tried (a move's: a later one is no better than the
  /// reservation the job has); none: any.
  std::optional<timestamp> latest_start = {};
};

class reserve_flow {
 public:
  /// A call of hold `hold`'s attempt, for the cluster of option(hold).
  struct call {
    std::size_t hold = 0;
    reservation_attempt::call what;
  };
  using calls = std::vector<call>;

  enum class phase { holding, committing, kept, failed, given_up };

  /// The holds' transactions are "<txn_base>.<try>", one participant per cluster; they are
  /// `user`'s and expire `hold_seconds` after their prepare unless committed.
  reserve_flow(std::string txn_base, std::string user, duration hold_seconds);

  /// Asks for every hold. Precondition: options not empty, called once.
  calls start(std::vector<reserve_option> options, timestamp now);

  /// The answer to a prepare of hold `hold` (nullptr: its service is gone).
  calls answer(std::size_t hold, std::uint64_t id, const msg::prepare_reply* r, timestamp now);
  /// The answer to a commit, abort or release of hold `hold` (nullptr: its service is gone).
  calls answer(std::size_t hold, std::uint64_t id, const msg::ack_reply* r);

  /// The job ended before its reservation was kept (or while its commit was on its way):
  /// every hold is let go; a committed one is the job's to cancel as a reservation.
  calls give_up();

  phase current() const noexcept { return phase_; }
  bool done() const noexcept { return phase_ != phase::holding && phase_ != phase::committing; }
  std::size_t holds() const noexcept { return holds_.size(); }
  /// Hold `h`'s option (its start moved by a retry).
  const reserve_option& option(std::size_t h) const { return holds_.at(h).option; }
  /// The kept hold (committing, kept, or failed after its commit).
  std::optional<std::size_t> kept() const noexcept { return kept_; }
  /// The kept hold's reservation ("" before the decision).
  std::string reservation_id() const;
  /// When the job finishes in hold `hold` (its start, moved by a retry, + its finish).
  timestamp finish_of(std::size_t hold) const;
  /// Why the flow failed ("" otherwise).
  const std::string& failure() const noexcept { return failure_; }
  /// What happened to the holds since the last call, for the job's history, in order:
  /// "released the hold ...", "no hold at <cluster>: <why>", "kept ...", "the commit failed: ...".
  std::vector<std::string> take_notes();
  /// Calls sent and not yet answered, over every hold.
  std::size_t open_calls() const;

 private:
  struct hold {
    reserve_option option;
    reservation_attempt attempt;
    bool retried = false;
    bool settled = false;  ///< granted, or refused for good
  };

  calls of(std::size_t hold, reservation_attempt::calls cs) const;
  calls try_hold(std::size_t h, timestamp now);
  calls decide();
  std::string why_not(std::size_t h) const;

  std::string txn_base_, user_;
  duration hold_seconds_;
  phase phase_ = phase::holding;
  std::vector<hold> holds_;
  std::optional<std::size_t> kept_;
  std::string failure_;
  std::vector<std::string> notes_;
};

std::string_view to_string(reserve_flow::phase p) noexcept;

}  // namespace arbroker
