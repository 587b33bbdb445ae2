#pragma once

// The shapes of the protocol's types, walked from their inspect() field lists (ARB_FIELDS):
// what the generated references (protocol_reference.cpp for msgpack, openapi.cpp for JSON)
// describe, so that both follow the code and each other.

#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "arbroker/core/enum_bounds.hpp"
#include "arbroker/messages/fields.hpp"

namespace arbroker::api::detail {

struct wire_type {
  enum class kind { string, boolean, number, integer, list, enumeration, structure };
  kind k = kind::string;
  std::string name;  ///< of an enum or struct
  int bits = 0;      ///< of an integer, or an enum's underlying integer
  bool is_signed = false;
  std::shared_ptr<const wire_type> element;  ///< of a list
};

/// A field's default as a default-constructed struct has it: a scalar (an enum by its name),
/// an empty list, or nothing to say (a struct, a list with entries).
struct empty_list {};
using wire_value = std::variant<std::monostate, std::string, bool, double, std::int64_t,
                                std::uint64_t, empty_list>;

struct wire_field {
  std::string name;
  wire_type type;
  wire_value default_value;
};

struct wire_struct {
  std::string name;
  std::vector<wire_field> fields;  ///< in wire order
};

struct wire_enum {
  std::string name;
  int bits = 8;
  bool is_signed = false;
  std::vector<std::string> values;  ///< names, by number from 0
};

/// Every struct and enum reached from the types asked for, in the order first reached.
class wire_catalogue {
 public:
  template <class T>
  wire_type type_of() {
    wire_type t;
    if constexpr (std::is_same_v<T, std::string>) {
      t.k = wire_type::kind::string;
    } else if constexpr (std::is_same_v<T, bool>) {
      t.k = wire_type::kind::boolean;
    } else if constexpr (std::is_same_v<T, double>) {
      t.k = wire_type::kind::number;
    } else if constexpr (msg::is_wire_list<T>) {
      t.k = wire_type::kind::list;
      t.element = std::make_shared<const wire_type>(type_of<typename T::value_type>());
    } else if constexpr (std::is_enum_v<T>) {
      static_assert(bounded_enum<T>, "a wire enum needs enum_bounds");
      using U = std::underlying_type_t<T>;
      t = {wire_type::kind::enumeration, enum_bounds<T>::name, static_cast<int>(8 * sizeof(U)),
           std::is_signed_v<U>, nullptr};
      add_enum<T>();
    } else if constexpr (std::is_integral_v<T>) {
      t = {wire_type::kind::integer, "", static_cast<int>(8 * sizeof(T)), std::is_signed_v<T>,
           nullptr};
    } else {
      t.k = wire_type::kind::structure;
      t.name = msg::wire_name_of<T>();
      add_struct<T>();
    }
    return t;
  }

  const std::vector<wire_struct>& structs() const { return structs_; }
  const std::vector<wire_enum>& enums() const { return enums_; }

 private:
  template <class T>
  static wire_value value_of(const T& x) {
    if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool> ||
                  std::is_same_v<T, double>) {
      return x;
    } else if constexpr (msg::is_wire_list<T>) {
      if (x.empty()) return empty_list{};
      return {};
    } else if constexpr (std::is_enum_v<T>) {
      return std::string(to_string(x));
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      return static_cast<std::int64_t>(x);
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<std::uint64_t>(x);
    } else {
      return {};
    }
  }

  struct collector {
    wire_catalogue& c;
    std::vector<wire_type> types;
    std::vector<wire_value> defaults;
    using result_type = void;
    template <class... Ts>
    void operator()(Ts&... xs) {
      (types.push_back(c.type_of<Ts>()), ...);
      (defaults.push_back(value_of(xs)), ...);
    }
  };

  template <class T>
  void add_struct() {
    const std::string name(msg::wire_name_of<T>());
    if (!seen_.insert(name).second) return;
    const auto at = structs_.size();
    structs_.push_back({name, {}});
    collector c{*this, {}, {}};
    T x{};
    inspect(c, x);
    const auto& names = msg::field_names<T>();
    if (names.size() != c.types.size())
      throw std::logic_error(name + ": field list and inspect disagree");
    for (std::size_t i = 0; i < names.size(); ++i)
      structs_[at].fields.push_back({names[i], c.types[i], c.defaults[i]});
  }

  template <class E>
  void add_enum() {
    const std::string name = enum_bounds<E>::name;
    if (!seen_.insert("enum " + name).second) return;
    using U = std::underlying_type_t<E>;
    wire_enum e{name, static_cast<int>(8 * sizeof(U)), std::is_signed_v<U>, {}};
    for (U v = 0;; ++v) {
      e.values.emplace_back(to_string(static_cast<E>(v)));
      if (static_cast<E>(v) == enum_bounds<E>::last) break;
    }
    enums_.push_back(std::move(e));
  }

  std::set<std::string> seen_;  // struct and "enum <name>" names already reached
  std::vector<wire_struct> structs_;
  std::vector<wire_enum> enums_;
};

/// The names of the structs reached from `roots` (themselves included): those of requests,
/// whose fields have defaults and rules, and those of replies, which carry every field.
inline std::set<std::string> structs_reached(const wire_catalogue& c,
                                             const std::vector<wire_type>& roots) {
  std::set<std::string> out;
  std::vector<wire_type> pending(roots);
  while (!pending.empty()) {
    auto t = std::move(pending.back());
    pending.pop_back();
    while (t.k == wire_type::kind::list)
      t = wire_type(*t.element);
    if (t.k != wire_type::kind::structure || t.name.empty() || !out.insert(t.name).second) continue;
    for (const auto& s : c.structs())
      if (s.name == t.name)
        for (const auto& f : s.fields)
          pending.push_back(f.type);
  }
  return out;
}

/// The type of the alternative a body variant holds; nullopt-like `kind::structure` with an
/// empty name for std::monostate (no body).
template <class Variant>
wire_type body_type(wire_catalogue& c, const Variant& v) {
  return std::visit(
      [&](const auto& body) -> wire_type {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          return wire_type{wire_type::kind::structure, "", 0, false, nullptr};
        else
          return c.type_of<T>();
      },
      v);
}

}  // namespace arbroker::api::detail
