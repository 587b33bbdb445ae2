#pragma once

#include <cstdint>
#include <string_view>

#include "arbroker/core/enum_bounds.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// The lifecycle of an advance reservation (paper 001, Sec. 2.2).
enum class reservation_state : std::uint8_t {
  requested,         ///< a request was made, not yet answered
  rejected,          ///< not enough free slots (terminal)
  accepted,          ///< held until its expiry time, awaiting commit
  committed,         ///< confirmed before expiry; the resource will honour it
  change_requested,  ///< a modification is being negotiated (old terms still hold)
  active,            ///< start time reached
  cancelled,         ///< withdrawn by the user before it began (terminal)
  completed,         ///< end time reached (terminal)
  terminated,        ///< stopped by the user while active (terminal)
  expired,           ///< not committed before its expiry time (terminal)
};
template <>
struct enum_bounds<reservation_state> {
  static constexpr auto last = reservation_state::expired;
  static constexpr const char* name = "reservation_state";
};

/// What can happen to a reservation.
enum class reservation_event : std::uint8_t {
  accept,          ///< resource grants the hold
  reject,          ///< resource refuses the request
  commit,          ///< user confirms a held reservation
  expire,          ///< the hold's expiry time passed without a commit
  request_change,  ///< user asks to modify a committed reservation
  change_granted,  ///< the new terms are held; committed with them
  change_refused,  ///< the new terms cannot be had; committed with the old ones
  start,           ///< start time reached
  finish,          ///< end time reached
  cancel,          ///< user withdraws it before it starts
  terminate,       ///< user stops it while active
};

std::string_view to_string(reservation_state s) noexcept;
std::string_view to_string(reservation_event e) noexcept;

/// True for rejected, cancelled, completed, terminated and expired.
bool is_terminal(reservation_state s) noexcept;

/// True while the reservation occupies capacity: accepted (a hold), committed,
/// change_requested and active.
bool holds_capacity(reservation_state s) noexcept;

/// The state after `e` in state `s`, or `illegal_transition` naming both.
result<reservation_state> next_state(reservation_state s, reservation_event e);

/// The answers of paper 001's queryReservation().
enum class query_status : std::uint8_t {
  not_committed,
  not_started,
  expired,
  active,
  completed,
  cancelled,
  terminated,
  rejected
};
query_status to_query_status(reservation_state s) noexcept;
std::string_view to_string(query_status q) noexcept;

/// One reservation's state together with the times that drive it: a hold expires at
/// `expiry` unless committed before, becomes active at `start` and completes at `end`.
/// Time-driven events are applied by advance(); user events by apply(), which first
/// advances to `now`, so a commit at or after the expiry finds an expired reservation.
class reservation_lifecycle {
 public:
  /// A reservation in `requested` state. invalid_window unless start < end.
  static result<reservation_lifecycle> create(timestamp start, timestamp end);

  reservation_state state() const noexcept { return state_; }
  timestamp start() const noexcept { return start_; }
  timestamp end() const noexcept { return end_; }
  timestamp expiry() const noexcept { return expiry_; }

  /// requested -> accepted, held until `expiry` (which must be after `now`).
  status accept(timestamp now, timestamp expiry);

  /// Applies a user or resource event at time `now` (not accept: use accept()).
  status apply(reservation_event e, timestamp now);

  /// Applies every time-driven event due at `now`: expire, start, finish.
  void advance(timestamp now);

  /// A granted change: new terms while change_requested. invalid_window unless start < end.
  status change_terms(timestamp now, timestamp start, timestamp end);

  /// Paper 002, Sec. 5.3: the site lets a committed or active reservation whose jobs overrun
  /// end later, in place (no change request, the state stays). invalid_window unless
  /// new_end > end > now; illegal_transition in any other state.
  status extend(timestamp now, timestamp new_end);

 private:
  reservation_lifecycle(timestamp start, timestamp end) : start_(start), end_(end) {}
  reservation_state state_ = reservation_state::requested;
  timestamp start_;
  timestamp end_;
  timestamp expiry_ = time_infinity;
};

}  // namespace arbroker
