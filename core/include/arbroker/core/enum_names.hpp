#pragma once

// Names of an enum numbered from 0 without gaps, kept in one table beside it: the name of a
// value and the value of a name (configuration keys, request fields, output).

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace arbroker {

/// The name of `v` in `names` (indexed by value), "unknown" outside it.
template <class E, std::size_t N>
constexpr std::string_view name_in(const std::array<std::string_view, N>& names, E v) noexcept {
  const auto i = static_cast<std::size_t>(v);
  return i < N ? names[i] : "unknown";
}

/// The value named `s` in `names`, if any.
template <class E, std::size_t N>
constexpr std::optional<E> value_in(const std::array<std::string_view, N>& names,
                                    std::string_view s) noexcept {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  return std::nullopt;
}

}  // namespace arbroker
