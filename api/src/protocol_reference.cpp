#include "arbroker/api/protocol_reference.hpp"

#include <set>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "arbroker/api/protocol.hpp"
#include "arbroker/messages/fields.hpp"

namespace arbroker::api {
namespace {

template <class T>
std::string integer_name() {
  return std::string(std::is_signed_v<T> ? "int" : "uint") + std::to_string(8 * sizeof(T));
}

// GitHub's anchor of a "### name" heading: the name as it is (lower case, '_' kept).
std::string anchor(std::string_view name) {
  return "#" + std::string(name);
}

/// Walks types through their inspect() field lists and records every struct and enum it
/// reaches, in the order first reached.
class reference_builder {
 public:
  struct field {
    std::string name, type;
  };
  struct shape {
    std::string name;
    std::vector<field> fields;
  };
  struct enumeration {
    std::string name, underlying;
    std::vector<std::string> values;
  };

  template <class T>
  std::string type_of() {
    if constexpr (std::is_same_v<T, std::string>) {
      return "str";
    } else if constexpr (std::is_same_v<T, bool>) {
      return "bool";
    } else if constexpr (std::is_same_v<T, double>) {
      return "float64 (integers accepted)";
    } else if constexpr (msg::is_wire_list<T>) {
      return "array of " + type_of<typename T::value_type>();
    } else if constexpr (std::is_enum_v<T>) {
      static_assert(bounded_enum<T>, "a wire enum needs enum_bounds");
      add_enum<T>();
      const std::string name = enum_bounds<T>::name;
      return "[" + name + "](" + anchor(name) + ") (" + integer_name<std::underlying_type_t<T>>() +
             ")";
    } else if constexpr (std::is_integral_v<T>) {
      return integer_name<T>();
    } else {
      const std::string name(msg::wire_name_of<T>());
      add_struct<T>();
      return "[" + name + "](" + anchor(name) + ")";
    }
  }

  template <class T>
  void add_struct() {
    const std::string name(msg::wire_name_of<T>());
    if (!seen_.insert(name).second) return;
    const auto at = shapes_.size();
    shapes_.push_back({name, {}});
    collector c{*this, {}};
    T x{};
    inspect(c, x);
    const auto& names = msg::field_names<T>();
    if (names.size() != c.types.size())
      throw std::logic_error(name + ": field list and inspect disagree");
    for (std::size_t i = 0; i < names.size(); ++i)
      shapes_[at].fields.push_back({names[i], c.types[i]});
  }

  const std::vector<shape>& shapes() const { return shapes_; }
  const std::vector<enumeration>& enums() const { return enums_; }

 private:
  struct collector {
    reference_builder& b;
    std::vector<std::string> types;
    using result_type = void;
    template <class... Ts>
    void operator()(Ts&...) {
      (types.push_back(b.type_of<Ts>()), ...);
    }
  };

  template <class E>
  void add_enum() {
    const std::string name = enum_bounds<E>::name;
    if (!seen_.insert("enum " + name).second) return;
    enumeration e{name, integer_name<std::underlying_type_t<E>>(), {}};
    for (std::underlying_type_t<E> v = 0;; ++v) {
      e.values.emplace_back(to_string(static_cast<E>(v)));
      if (static_cast<E>(v) == enum_bounds<E>::last) break;
    }
    enums_.push_back(std::move(e));
  }

  std::set<std::string> seen_;  // struct and "enum <name>" names already reached
  std::vector<shape> shapes_;
  std::vector<enumeration> enums_;
};

template <class Variant>
std::string body_type(reference_builder& b, const Variant& v) {
  return std::visit(
      [&](const auto& body) -> std::string {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          return "nil";
        else
          return b.type_of<T>();
      },
      v);
}

}  // namespace

std::string protocol_reference() {
  reference_builder b;
  std::ostringstream out;
  out << "# Protocol reference\n\n"
      << "Generated from the code's field lists (`ARB_FIELDS` in messages/ and\n"
      << "api/include/arbroker/api/protocol.hpp), enums and error codes by\n"
      << "`build/apps/arb-protocol-reference`; do not edit (a test compares this file with the\n"
      << "generator). docs/protocol.md explains frames, the handshake, limits and errors.\n\n"
      << "Protocol version " << protocol_version << ", magic `0x" << std::hex << protocol_magic
      << std::dec << "` (\"ARB1\").\n\n"
      << "A struct is a msgpack array of its fields in the order below (receivers accept more\n"
      << "fields than they know, never fewer); an enum is its number; `array of T` a msgpack\n"
      << "array. Integers are range-checked against their type.\n\n";

  out << "## Envelopes\n\n"
      << "| frame | msgpack |\n|---|---|\n"
      << "| first frame, client to server | " << b.type_of<hello>() << " |\n"
      << "| the server's answer to it | " << b.type_of<welcome>() << " |\n"
      << "| request | `[id uint64 (from 1), op uint8, body]` |\n"
      << "| response | `[id uint64, op uint8, code uint8 (0 = ok), message str, body or nil]` "
         "|\n\n";

  out << "## Operations\n\n| op | name | request body | reply body |\n|---|---|---|---|\n";
  for (std::uint8_t code = 1;; ++code) {
    const auto op = to_operation(code);
    if (!op) break;
    out << "| " << +code << " | " << to_string(*op) << " | "
        << body_type(b, empty_request_body(*op)) << " | " << body_type(b, empty_response_body(*op))
        << " |\n";
  }

  out << "\n## Error codes\n\n"
      << "`code` of a response and of a `wire_error`; 0 is success.\n\n"
      << "| code | name |\n|---|---|\n";
  for (int c = 1; c <= static_cast<int>(errc::internal); ++c)
    out << "| " << c << " | " << to_string(static_cast<errc>(c)) << " |\n";

  out << "\n## Structs\n";
  for (const auto& s : b.shapes()) {
    out << "\n### " << s.name << "\n\n";
    if (s.fields.empty()) {
      out << "No fields: an empty array.\n";
      continue;
    }
    out << "| # | field | type |\n|---|---|---|\n";
    for (std::size_t i = 0; i < s.fields.size(); ++i)
      out << "| " << i << " | " << s.fields[i].name << " | " << s.fields[i].type << " |\n";
  }

  out << "\n## Enums\n";
  for (const auto& e : b.enums()) {
    out << "\n### " << e.name << "\n\n" << e.underlying << ": ";
    for (std::size_t i = 0; i < e.values.size(); ++i)
      out << (i ? ", " : "") << i << " " << e.values[i];
    out << ".\n";
  }
  return out.str();
}

}  // namespace arbroker::api
