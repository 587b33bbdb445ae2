#pragma once

// One field list per wire type. ARB_FIELDS(T, x.a, x.b, ...) defines inspect() for T (the
// fields in wire order, as CAF's serialization and the msgpack codec read them) and keeps
// the same list as text, from which field_names<T>() takes the names that the protocol
// reference (and any other named form) uses: one list, so names and order cannot drift.

#include <string>
#include <string_view>
#include <vector>

#define ARB_FIELDS(T, ...)                                          \
  template <class Inspector>                                        \
  auto inspect(Inspector& f, T& x) {                                \
    return f(__VA_ARGS__);                                          \
  }                                                                 \
  inline constexpr std::string_view field_list(const T*) noexcept { \
    return #__VA_ARGS__;                                            \
  }                                                                 \
  inline constexpr std::string_view wire_name(const T*) noexcept {  \
    return #T;                                                      \
  }

/// The same for a type without fields (an empty array on the wire).
#define ARB_NO_FIELDS(T)                                            \
  template <class Inspector>                                        \
  auto inspect(Inspector& f, T&) {                                  \
    return f();                                                     \
  }                                                                 \
  inline constexpr std::string_view field_list(const T*) noexcept { \
    return "";                                                      \
  }                                                                 \
  inline constexpr std::string_view wire_name(const T*) noexcept {  \
    return #T;                                                      \
  }

namespace arbroker::msg {

/// "x.user, x.est" -> {"user", "est"}.
std::vector<std::string> parse_field_list(std::string_view list);

/// Whether T's fields were declared with ARB_FIELDS.
template <class T>
concept has_field_list = requires(const T* p) {
  field_list(p);
};

/// The names of T's fields, in wire order (parsed once per type).
template <has_field_list T>
const std::vector<std::string>& field_names() {
  static const std::vector<std::string> names =
      parse_field_list(field_list(static_cast<const T*>(nullptr)));
  return names;
}

/// Whether T is a list on the wire (std::vector), for the walkers of field lists.
template <class T>
inline constexpr bool is_wire_list = false;
template <class T>
inline constexpr bool is_wire_list<std::vector<T>> = true;

/// T's name as ARB_FIELDS was given it ("elastic_request").
template <has_field_list T>
constexpr std::string_view wire_name_of() noexcept {
  return wire_name(static_cast<const T*>(nullptr));
}

}  // namespace arbroker::msg
