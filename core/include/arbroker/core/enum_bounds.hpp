#pragma once

// Enums that travel on a wire are numbered from 0 without gaps; `enum_bounds<E>::last` names
// the largest value. A decoder refuses any other number (msgpack_codec.hpp), so a value
// outside the enum never reaches a switch.

#include <concepts>
#include <type_traits>

namespace arbroker {

/// Specialize beside an enum that travels on a wire: `static constexpr E last = E::...;`.
template <class E>
struct enum_bounds;

template <class E>
concept bounded_enum = std::is_enum_v<E> && requires {
  { enum_bounds<E>::last } -> std::convertible_to<E>;
};

/// True when `v` is the number of one of E's values.
template <bounded_enum E>
constexpr bool is_enum_value(std::underlying_type_t<E> v) noexcept {
  using U = std::underlying_type_t<E>;
  if constexpr (std::is_signed_v<U>) {
    if (v < 0) return false;
  }
  return v <= static_cast<U>(enum_bounds<E>::last);
}

}  // namespace arbroker
