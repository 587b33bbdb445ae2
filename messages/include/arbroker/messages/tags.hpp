#pragma once

// Numbers that travel first in a message so that an answer can be matched to what it
// answers. Each has its own type, so that the compiler (and a reader) cannot take a call's
// tag for a request's number.

#include <compare>
#include <cstdint>
#include <functional>

namespace arbroker::msg {

/// A coordinator's call to a cluster service, sent `(call_tag, request)` as an ordinary
/// message and answered `(call_tag, reply)` the same way (actors/tagged_calls.hpp).
struct call_tag {
  std::uint64_t value = 0;
  friend auto operator<=>(const call_tag&, const call_tag&) = default;
};

template <class Inspector>
auto inspect(Inspector& f, call_tag& x) {
  return f(x.value);
}

/// The broker's number for one client request it handed to a coordinator: the coordinator
/// answers `(request_no, reply)`, and a deadline names the request by it.
struct request_no {
  std::uint64_t value = 0;
  friend auto operator<=>(const request_no&, const request_no&) = default;
};

template <class Inspector>
auto inspect(Inspector& f, request_no& x) {
  return f(x.value);
}

}  // namespace arbroker::msg

template <>
struct std::hash<arbroker::msg::call_tag> {
  std::size_t operator()(arbroker::msg::call_tag t) const noexcept {
    return std::hash<std::uint64_t>{}(t.value);
  }
};

template <>
struct std::hash<arbroker::msg::request_no> {
  std::size_t operator()(arbroker::msg::request_no n) const noexcept {
    return std::hash<std::uint64_t>{}(n.value);
  }
};
