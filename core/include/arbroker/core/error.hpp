#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace arbroker {

/// What went wrong, as a stable code a caller can branch on. The accompanying message is
/// for humans and names the offending values. The numbers are on the wire (docs/protocol.md):
/// new codes are appended, never inserted.
enum class errc : std::uint8_t {
  invalid_window = 1,       ///< time window empty or reversed (est >= let, start >= end)
  invalid_processor_range,  ///< np_min > np_max, np <= 0, empty set of reservable sizes
  invalid_duration,         ///< negative or zero duration where a positive one is needed
  invalid_speedup_model,    ///< seq outside [0,1], A < 1, sigma < 0, bad table
  invalid_parameter,        ///< any other out-of-domain argument
  capacity_exceeded,        ///< an allocation would use more CPUs than are free
  not_allocated,            ///< removing CPUs that were never allocated there
  infeasible,               ///< the request cannot be satisfied on this resource
  illegal_transition,       ///< reservation state machine refuses the event
  not_found,                ///< no such reservation / cluster / object
  busy,                     ///< the resource refuses: CPUs taken or overlapping reservation
  permission_denied,        ///< unknown user, or not the owner
  unreachable,              ///< the resource manager does not answer
  timeout,                  ///< a call did not finish in time
  in_use,                   ///< cannot delete: jobs are running in it
  lrms_failure,             ///< any other refusal; the message carries the LRMS's words
  storage_failure,          ///< the node's durable store could not read or write
  internal,                 ///< a bug: a handler threw, a coordinator died, a wrong reply type
  slow_consumer,            ///< a watcher fell too far behind its events and was cut off
  gone,                     ///< no longer kept (a watch resumed after events past the retention)
  not_leader,  ///< this node is a standby: another node serves its store (the answer names it)
};
/// The highest code (new codes are added after it and it moves: codes are pinned).
inline constexpr errc last_errc = errc::not_leader;

/// Short stable name of a code, e.g. "invalid_window".
std::string_view to_string(errc code) noexcept;

/// A typed error: a code for programs, a message for people.
struct error {
  errc code;
  std::string message;

  friend bool operator==(const error&, const error&) = default;
};

/// "code: message", for logs and exceptions.
std::string to_string(const error& e);

/// Thrown only when a caller reads the value of a failed result (a programming error).
class bad_result_access : public std::logic_error {
 public:
  explicit bad_result_access(const error& e) : std::logic_error(to_string(e)) {}
};

/// Either a value or an error (a small stand-in for C++23 std::expected). Functions of the
/// core never throw on bad input; they return a result whose error says what is wrong.
template <class T>
class [[nodiscard]] result {
 public:
  result(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design
  result(error e) : data_(std::move(e)) {}      // NOLINT: implicit by design

  bool has_value() const noexcept { return data_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & {
    check();
    return std::get<0>(data_);
  }
  const T& value() const& {
    check();
    return std::get<0>(data_);
  }
  T&& value() && {
    check();
    return std::get<0>(std::move(data_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  /// The value, or `fallback` when this holds an error.
  T value_or(T fallback) const& { return has_value() ? std::get<0>(data_) : std::move(fallback); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  /// Precondition: !has_value().
  const error& err() const& { return std::get<1>(data_); }
  error&& err() && { return std::get<1>(std::move(data_)); }

 private:
  void check() const {
    if (!has_value()) throw bad_result_access(std::get<1>(data_));
  }
  std::variant<T, error> data_;
};

/// Success or an error, with no value.
template <>
class [[nodiscard]] result<void> {
 public:
  result() = default;
  result(error e) : error_(std::move(e)), failed_(true) {}  // NOLINT: implicit by design

  bool has_value() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return !failed_; }
  void value() const {
    if (failed_) throw bad_result_access(error_);
  }
  const error& err() const& { return error_; }

 private:
  error error_{errc::invalid_parameter, {}};
  bool failed_ = false;
};

using status = result<void>;

/// Builds an error; reads well at call sites: `return fail(errc::invalid_window, "...")`.
inline error fail(errc code, std::string message) {
  return error{code, std::move(message)};
}

}  // namespace arbroker
