#include "arbroker/api/protocol_reference.hpp"

#include <sstream>
#include <vector>

#include "arbroker/api/protocol.hpp"
#include "wire_model.hpp"

namespace arbroker::api {
namespace {

std::string integer_name(int bits, bool is_signed) {
  return std::string(is_signed ? "int" : "uint") + std::to_string(bits);
}

// GitHub's anchor of a "### name" heading: the name as it is (lower case, '_' kept).
std::string anchor(std::string_view name) {
  return "#" + std::string(name);
}

/// The markdown of a type: "int32", "array of str", "[ask](#ask)", "[state](#state) (uint8)".
std::string markdown(const detail::wire_type& t) {
  using kind = detail::wire_type::kind;
  switch (t.k) {
    case kind::string:
      return "str";
    case kind::boolean:
      return "bool";
    case kind::number:
      return "float64 (integers accepted)";
    case kind::integer:
      return integer_name(t.bits, t.is_signed);
    case kind::list:
      return "array of " + markdown(*t.element);
    case kind::enumeration:
      return "[" + t.name + "](" + anchor(t.name) + ") (" + integer_name(t.bits, t.is_signed) + ")";
    case kind::structure:
      return t.name.empty() ? "nil" : "[" + t.name + "](" + anchor(t.name) + ")";
  }
  return "?";
}

template <class T>
std::string type_of(detail::wire_catalogue& c) {
  return markdown(c.type_of<T>());
}

template <class Variant>
std::string body_markdown(detail::wire_catalogue& c, const Variant& v) {
  return markdown(detail::body_type(c, v));
}

}  // namespace

std::string protocol_reference() {
  detail::wire_catalogue b;
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
      << "| first frame, client to server | " << type_of<hello>(b) << " |\n"
      << "| the server's answer to it | " << type_of<welcome>(b) << " |\n"
      << "| request | `[id uint64 (from 1), op uint8, body]` |\n"
      << "| response | `[id uint64, op uint8, code uint8 (0 = ok), message str, body or nil]` "
         "|\n\n";

  out << "## Operations\n\n| op | name | request body | reply body |\n|---|---|---|---|\n";
  for (std::uint8_t code = 1;; ++code) {
    const auto op = to_operation(code);
    if (!op) break;
    out << "| " << +code << " | " << to_string(*op) << " | "
        << body_markdown(b, empty_request_body(*op)) << " | "
        << body_markdown(b, empty_response_body(*op)) << " |\n";
  }

  out << "\n## Error codes\n\n"
      << "`code` of a response and of a `wire_error`; 0 is success.\n\n"
      << "| code | name |\n|---|---|\n";
  for (int c = 1; c <= static_cast<int>(last_errc); ++c)
    out << "| " << c << " | " << to_string(static_cast<errc>(c)) << " |\n";

  out << "\n## Structs\n";
  for (const auto& s : b.structs()) {
    out << "\n### " << s.name << "\n\n";
    if (s.fields.empty()) {
      out << "No fields: an empty array.\n";
      continue;
    }
    out << "| # | field | type |\n|---|---|---|\n";
    for (std::size_t i = 0; i < s.fields.size(); ++i)
      out << "| " << i << " | " << s.fields[i].name << " | " << markdown(s.fields[i].type)
          << " |\n";
  }

  out << "\n## Enums\n";
  for (const auto& e : b.enums()) {
    out << "\n### " << e.name << "\n\n" << integer_name(e.bits, e.is_signed) << ": ";
    for (std::size_t i = 0; i < e.values.size(); ++i)
      out << (i ? ", " : "") << i << " " << e.values[i];
    out << ".\n";
  }
  return out.str();
}

}  // namespace arbroker::api
