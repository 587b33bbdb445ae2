#pragma once

// Numbers that travel first in a message so that an answer can be matched to what it
// answers. Each has its own type, so that the compiler (and a reader) cannot take a call's
// tag for a request's number.

#include <compare>
#include <cstdint>
#include <functional>

namespace arbroker::msg {

/// A number of one kind (`Kind` only tells the kinds apart).
template <class Kind>
struct tagged_number {
  std::uint64_t value = 0;
  friend auto operator<=>(const tagged_number&, const tagged_number&) = default;
};

template <class Inspector, class Kind>
auto inspect(Inspector& f, tagged_number<Kind>& x) {
  return f(x.value);
}

/// A coordinator's call to a cluster service, sent `(call_tag, request)` as an ordinary
/// message and answered `(call_tag, reply)` the same way (actors/tagged_calls.hpp).
using call_tag = tagged_number<struct call_tag_kind>;

/// The broker's number for one client request it handed to a coordinator: the coordinator
/// answers `(request_no, reply)`, and a deadline names the request by it.
using request_no = tagged_number<struct request_no_kind>;

}  // namespace arbroker::msg

template <class Kind>
struct std::hash<arbroker::msg::tagged_number<Kind>> {
  std::size_t operator()(arbroker::msg::tagged_number<Kind> n) const noexcept {
    return std::hash<std::uint64_t>{}(n.value);
  }
};
