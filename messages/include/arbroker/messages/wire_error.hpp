#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "arbroker/core/error.hpp"
#include "arbroker/messages/fields.hpp"

namespace arbroker::msg {

/// A typed error on the wire: code 0 means "no error", otherwise an arbroker::errc value.
/// Every reply body carries one; it is the reply's outcome.
struct wire_error {
  std::uint8_t code = 0;
  std::string message;

  bool ok() const noexcept { return code == 0; }
  /// Precondition: !ok().
  errc err() const noexcept { return static_cast<errc>(code); }
  friend bool operator==(const wire_error&, const wire_error&) = default;
};

inline wire_error to_wire(const error& e) {
  return {static_cast<std::uint8_t>(e.code), e.message};
}

/// A wire error from a code and a message (the wire form of fail()).
inline wire_error wire(errc code, std::string message) {
  return {static_cast<std::uint8_t>(code), std::move(message)};
}

/// Precondition: !ok().
inline error from_wire(const wire_error& e) {
  return {static_cast<errc>(e.code), e.message};
}

/// A reply of type Reply that carries only an error: the one way every layer (services,
/// coordinators, broker, node) builds a failed answer.
template <class Reply>
Reply error_reply(errc code, std::string message) {
  Reply r{};
  r.error = wire(code, std::move(message));
  return r;
}

template <class Reply>
Reply error_reply(const error& e) {
  return error_reply<Reply>(e.code, e.message);
}

ARB_FIELDS(wire_error, x.code, x.message)

}  // namespace arbroker::msg
