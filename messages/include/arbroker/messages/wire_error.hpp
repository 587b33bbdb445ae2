#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "arbroker/core/error.hpp"

namespace arbroker::msg {

/// A typed error on the wire: code 0 means "no error", otherwise an arbroker::errc value.
struct wire_error {
  std::uint8_t code = 0;
  std::string message;

  bool ok() const noexcept { return code == 0; }
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

template <class Inspector>
auto inspect(Inspector& f, wire_error& x) {
  return f(x.code, x.message);
}

}  // namespace arbroker::msg
