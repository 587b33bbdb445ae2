#include "arbroker/core/reservation_state.hpp"

#include <array>
#include <string>

#include "arbroker/core/enum_names.hpp"

namespace arbroker {

/// By value.
constexpr std::array<std::string_view, 10> state_names = {
    "requested", "rejected",  "accepted",  "committed",  "change_requested",
    "active",    "cancelled", "completed", "terminated", "expired"};
static_assert(state_names.size() == static_cast<std::size_t>(reservation_state::expired) + 1);

std::string_view to_string(reservation_state s) noexcept {
  return name_in(state_names, s);
}

/// By value.
constexpr std::array<std::string_view, 11> event_names = {
    "accept",         "reject", "commit", "expire", "request_change", "change_granted",
    "change_refused", "start",  "finish", "cancel", "terminate"};
static_assert(event_names.size() == static_cast<std::size_t>(reservation_event::terminate) + 1);

std::string_view to_string(reservation_event e) noexcept {
  return name_in(event_names, e);
}

bool is_terminal(reservation_state s) noexcept {
  switch (s) {
    case reservation_state::rejected:
    case reservation_state::cancelled:
    case reservation_state::completed:
    case reservation_state::terminated:
    case reservation_state::expired:
      return true;
    default:
      return false;
  }
}

bool holds_capacity(reservation_state s) noexcept {
  switch (s) {
    case reservation_state::accepted:
    case reservation_state::committed:
    case reservation_state::change_requested:
    case reservation_state::active:
      return true;
    default:
      return false;
  }
}

result<reservation_state> next_state(reservation_state s, reservation_event e) {
  using st = reservation_state;
  using ev = reservation_event;
  switch (s) {
    case st::requested:
      if (e == ev::accept) return st::accepted;
      if (e == ev::reject) return st::rejected;
      if (e == ev::cancel) return st::cancelled;
      break;
    case st::accepted:
      if (e == ev::commit) return st::committed;
      if (e == ev::expire) return st::expired;
      if (e == ev::cancel) return st::cancelled;
      break;
    case st::committed:
      if (e == ev::request_change) return st::change_requested;
      if (e == ev::start) return st::active;
      if (e == ev::cancel) return st::cancelled;
      break;
    case st::change_requested:
      // Either way the reservation stays committed: with the new terms or the old ones.
      if (e == ev::change_granted || e == ev::change_refused) return st::committed;
      if (e == ev::start) return st::active;  // time does not wait for a negotiation
      if (e == ev::cancel) return st::cancelled;
      break;
    case st::active:
      if (e == ev::finish) return st::completed;
      if (e == ev::terminate) return st::terminated;
      break;
    case st::rejected:
    case st::cancelled:
    case st::completed:
    case st::terminated:
    case st::expired:
      break;
  }
  return fail(errc::illegal_transition, "cannot " + std::string(to_string(e)) +
                                            " a reservation that is " + std::string(to_string(s)));
}

query_status to_query_status(reservation_state s) noexcept {
  switch (s) {
    case reservation_state::requested:
    case reservation_state::accepted:
      return query_status::not_committed;
    case reservation_state::committed:
    case reservation_state::change_requested:
      return query_status::not_started;
    case reservation_state::expired:
      return query_status::expired;
    case reservation_state::active:
      return query_status::active;
    case reservation_state::completed:
      return query_status::completed;
    case reservation_state::cancelled:
      return query_status::cancelled;
    case reservation_state::terminated:
      return query_status::terminated;
    case reservation_state::rejected:
      return query_status::rejected;
  }
  return query_status::rejected;
}

/// By value.
constexpr std::array<std::string_view, 8> query_status_names = {
    "not committed", "not started", "expired",    "active",
    "completed",     "cancelled",   "terminated", "rejected"};
static_assert(query_status_names.size() == static_cast<std::size_t>(query_status::rejected) + 1);

std::string_view to_string(query_status q) noexcept {
  return name_in(query_status_names, q);
}

result<reservation_lifecycle> reservation_lifecycle::create(timestamp start, timestamp end) {
  if (start >= end)
    return fail(errc::invalid_window, "reservation start " + std::to_string(start) +
                                          " must be before its end " + std::to_string(end));
  return reservation_lifecycle{start, end};
}

status reservation_lifecycle::accept(timestamp now, timestamp expiry) {
  if (expiry <= now)
    return fail(errc::invalid_parameter, "hold expiry " + std::to_string(expiry) +
                                             " must be after the current time " +
                                             std::to_string(now));
  auto next = next_state(state_, reservation_event::accept);
  if (!next) return next.err();
  state_ = *next;
  expiry_ = expiry;
  return {};
}

void reservation_lifecycle::advance(timestamp now) {
  if (state_ == reservation_state::accepted && now >= expiry_) state_ = reservation_state::expired;
  if ((state_ == reservation_state::committed || state_ == reservation_state::change_requested) &&
      now >= start_)
    state_ = reservation_state::active;
  if (state_ == reservation_state::active && now >= end_) state_ = reservation_state::completed;
}

status reservation_lifecycle::apply(reservation_event e, timestamp now) {
  if (e == reservation_event::accept)
    return fail(errc::invalid_parameter, "accept needs an expiry time: use accept()");
  advance(now);
  auto next = next_state(state_, e);
  if (!next) return next.err();
  state_ = *next;
  return {};
}

status reservation_lifecycle::change_terms(timestamp now, timestamp start, timestamp end) {
  if (start >= end)
    return fail(errc::invalid_window, "new start " + std::to_string(start) +
                                          " must be before the new end " + std::to_string(end));
  advance(now);
  auto next = next_state(state_, reservation_event::change_granted);
  if (!next) return next.err();
  state_ = *next;
  start_ = start;
  end_ = end;
  return {};
}

status reservation_lifecycle::extend(timestamp now, timestamp new_end) {
  advance(now);
  if (state_ != reservation_state::committed && state_ != reservation_state::active)
    return fail(errc::illegal_transition,
                "only a committed or active reservation can be extended, not a " +
                    std::string(to_string(state_)) + " one");
  if (end_ <= now || new_end <= end_)
    return fail(errc::invalid_window, "new end " + std::to_string(new_end) +
                                          " must be after the end " + std::to_string(end_) +
                                          ", which must be after now (" + std::to_string(now) +
                                          ")");
  end_ = new_end;
  return {};
}

}  // namespace arbroker
