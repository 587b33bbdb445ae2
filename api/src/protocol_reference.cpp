#include "arbroker/api/protocol_reference.hpp"

#include <sstream>
#include <stdexcept>
#include <vector>

#include "arbroker/api/http_server.hpp"
#include "arbroker/api/protocol.hpp"
#include "wire_docs.hpp"
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

std::string number_text(double x) {
  std::ostringstream out;
  if (x == static_cast<double>(static_cast<std::int64_t>(x)))
    out << static_cast<std::int64_t>(x);
  else
    out << x;
  return out.str();
}

/// A field's default as a request gets it when the field is left out.
std::string default_text(const detail::wire_value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          return "";
        else if constexpr (std::is_same_v<T, detail::empty_list>)
          return "[]";
        else if constexpr (std::is_same_v<T, std::string>)
          return x.empty() ? "\"\"" : x;
        else if constexpr (std::is_same_v<T, bool>)
          return x ? "true" : "false";
        else if constexpr (std::is_same_v<T, double>)
          return number_text(x);
        else
          return std::to_string(x);
      },
      v);
}

/// The meaning of a field, with its unit and the rules validation holds a request's to.
std::string meaning(const std::string& structure, const detail::wire_field& f, bool in_request) {
  const auto* d = detail::doc_of(structure, f.name);
  if (!d) throw std::logic_error("undocumented field " + structure + "." + f.name);
  std::string text(d->text);
  std::vector<std::string> rules;
  if (!in_request) {
    if (!d->unit.empty()) text += " (" + std::string(d->unit) + ")";
    return text;
  }
  if (d->required) rules.push_back("required");
  if (!d->unit.empty()) rules.push_back(std::string(d->unit));
  if (d->minimum && d->maximum)
    rules.push_back(number_text(*d->minimum) + " .. " + number_text(*d->maximum));
  else if (d->minimum)
    rules.push_back(">= " + number_text(*d->minimum));
  else if (d->maximum)
    rules.push_back("<= " + number_text(*d->maximum));
  if (d->max_length)
    rules.push_back(std::string(f.type.k == detail::wire_type::kind::list ? "each " : "") +
                    "at most " + std::to_string(d->max_length) + " bytes");
  if (d->max_items) rules.push_back("at most " + std::to_string(d->max_items) + " entries");
  if (!rules.empty()) {
    text += " (";
    for (std::size_t i = 0; i < rules.size(); ++i)
      text += (i ? "; " : "") + rules[i];
    text += ")";
  }
  return text;
}

/// Every error code with its meaning and HTTP status: the reference's table and
/// protocol.md's.
std::string error_codes_block() {
  std::ostringstream out;
  out << "| code | name | meaning | HTTP status |\n|---:|---|---|---|\n";
  for (int c = 1; c <= static_cast<int>(last_errc); ++c) {
    const auto code = static_cast<errc>(c);
    out << "| " << c << " | " << to_string(code) << " | " << detail::errc_doc(code) << " | "
        << http_status_of(code) << " |\n";
  }
  return out.str();
}

/// The value names of an enum with what each means: "0 reserve (reserve the best ...)".
std::string enum_values(const detail::wire_enum& e) {
  std::string out;
  for (std::size_t i = 0; i < e.values.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(i) + " " + e.values[i];
    if (const auto d = detail::enum_value_doc(e.name, e.values[i]); !d.empty())
      out += " (" + std::string(d) + ")";
  }
  return out;
}

}  // namespace

std::string protocol_reference() {
  detail::wire_catalogue b;
  std::ostringstream out;
  out << "# Protocol reference\n\n"
      << "Generated from the code's field lists (`ARB_FIELDS` in messages/ and\n"
      << "api/include/arbroker/api/protocol.hpp), enums and error codes, with the meanings of\n"
      << "api/src/wire_docs.cpp, by `build/apps/arb-protocol-reference`; do not edit (a test\n"
      << "compares this file with the generator, another holds the stated bounds to\n"
      << "validation). docs/protocol.md explains frames, the handshake, limits and errors.\n\n"
      << "Protocol version " << protocol_version << ", magic `0x" << std::hex << protocol_magic
      << std::dec << "` (\"ARB1\").\n\n"
      << "A struct is a msgpack array of its fields in the order below (receivers skip fields\n"
      << "after those they know; a node gives the trailing fields a client of an older served\n"
      << "version leaves out their defaults, docs/compatibility.md); an enum is its number;\n"
      << "`array of T` a msgpack array. Integers are range-checked against their type.\n\n";

  out << "## Envelopes\n\n"
      << "| frame | msgpack |\n|---|---|\n"
      << "| first frame, client to server | " << type_of<hello>(b) << " |\n"
      << "| the server's answer to it | " << type_of<welcome>(b) << " |\n"
      << "| request | `[id uint64 (from 1), op uint8, body]` |\n"
      << "| response | `[id uint64, op uint8, code uint8 (0 = ok), message str, body or nil]` "
         "|\n\n";

  out << "## Operations\n\n| op | name | request body | reply body | what it does |\n"
      << "|---|---|---|---|---|\n";
  for (std::uint8_t code = 1;; ++code) {
    const auto op = to_operation(code);
    if (!op) break;
    out << "| " << +code << " | " << to_string(*op) << " | "
        << body_markdown(b, empty_request_body(*op)) << " | "
        << body_markdown(b, empty_response_body(*op)) << " | " << detail::operation_summary(*op)
        << " |\n";
  }

  out << "\n## Error codes\n\n"
      << "`code` of a response and of a `wire_error`; 0 is success.\n\n"
      << error_codes_block();

  std::vector<detail::wire_type> requests;
  for (std::uint8_t code = 1; to_operation(code); ++code)
    requests.push_back(detail::body_type(b, empty_request_body(*to_operation(code))));
  const auto in_requests = detail::structs_reached(b, requests);

  out << "\n## Structs\n\n"
      << "A request's field left out of a JSON body takes the default shown (msgpack sends "
         "every field);\nthe meaning says the unit and the rules a request's value must "
         "follow. A reply's struct\nhas every field.\n";
  for (const auto& s : b.structs()) {
    out << "\n### " << s.name << "\n\n";
    if (s.fields.empty()) {
      out << "No fields: an empty array.\n";
      continue;
    }
    const bool request = in_requests.count(s.name) > 0;
    if (request)
      out << "| # | field | type | default | meaning |\n|---|---|---|---|---|\n";
    else
      out << "| # | field | type | meaning |\n|---|---|---|---|\n";
    for (std::size_t i = 0; i < s.fields.size(); ++i) {
      const auto& f = s.fields[i];
      out << "| " << i << " | " << f.name << " | " << markdown(f.type) << " | ";
      if (request) out << default_text(f.default_value) << " | ";
      out << meaning(s.name, f, request) << " |\n";
    }
  }

  out << "\n## Enums\n";
  for (const auto& e : b.enums()) {
    out << "\n### " << e.name << "\n\n"
        << integer_name(e.bits, e.is_signed) << ": " << enum_values(e) << ".\n";
  }
  return out.str();
}

namespace {

// docs/ pages link to the reference's sections.
std::string reference_link(const detail::wire_type& t) {
  if (t.k == detail::wire_type::kind::structure && t.name.empty()) return "nil";
  if (t.k == detail::wire_type::kind::structure)
    return "[" + t.name + "](protocol-reference.md#" + t.name + ")";
  return markdown(t);
}

std::string hello_block(detail::wire_catalogue& b) {
  (void)b.type_of<hello>();
  std::ostringstream out;
  out << "| # | field | type | meaning |\n|---|---|---|---|\n";
  for (const auto& s : b.structs()) {
    if (s.name != "hello") continue;
    for (std::size_t i = 0; i < s.fields.size(); ++i)
      out << "| " << i << " | " << s.fields[i].name << " | " << markdown(s.fields[i].type) << " | "
          << meaning(s.name, s.fields[i], false) << " |\n";
  }
  out << "\nThe current protocol version is " << protocol_version << ".\n";
  return out.str();
}

std::string operations_block(detail::wire_catalogue& b) {
  std::ostringstream out;
  out << "| op | name | request body | reply body | what it does |\n|---|---|---|---|---|\n";
  for (std::uint8_t code = 1;; ++code) {
    const auto op = to_operation(code);
    if (!op) break;
    out << "| " << +code << " | " << to_string(*op) << " | "
        << reference_link(detail::body_type(b, empty_request_body(*op))) << " | "
        << reference_link(detail::body_type(b, empty_response_body(*op))) << " | "
        << detail::operation_doc(*op) << " |\n";
  }
  return out.str();
}

std::string enums_block(detail::wire_catalogue& b) {
  for (std::uint8_t code = 1; to_operation(code); ++code) {
    (void)detail::body_type(b, empty_request_body(*to_operation(code)));
    (void)detail::body_type(b, empty_response_body(*to_operation(code)));
  }
  std::ostringstream out;
  out << "| enum | values |\n|---|---|\n";
  for (const auto& e : b.enums())
    out << "| [" << e.name << "](protocol-reference.md#" << e.name << ") | " << enum_values(e)
        << " |\n";
  return out.str();
}

// The HTTP statuses, the error codes each carries (http_status_of) and what else answers
// with it.
std::string statuses_block() {
  std::ostringstream out;
  out << "| status | error codes | also |\n|---|---|---|\n";
  for (const auto& s : detail::http_status_docs()) {
    std::string codes;
    for (const auto code : detail::codes_of_status(s.status))
      codes += (codes.empty() ? "" : ", ") + std::string(to_string(code));
    out << "| " << s.status << " | " << codes << " | " << s.also << " |\n";
  }
  return out.str();
}

}  // namespace

std::string fill_generated_blocks(std::string_view text) {
  detail::wire_catalogue b;
  const std::string open = "<!-- generated: ", close = "<!-- end of generated: ";
  std::string out;
  std::size_t at = 0;
  for (;;) {
    const auto begin = text.find(open, at);
    if (begin == std::string_view::npos) break;
    const auto name_end = text.find(" -->", begin);
    if (name_end == std::string_view::npos)
      throw std::invalid_argument("a generated block without its name");
    const std::string name(text.substr(begin + open.size(), name_end - begin - open.size()));
    const std::string end_marker = close + name + " -->";
    const auto end = text.find(end_marker, name_end);
    if (end == std::string_view::npos)
      throw std::invalid_argument("generated block '" + name + "' has no end marker");
    std::string block;
    if (name == "hello")
      block = hello_block(b);
    else if (name == "operations")
      block = operations_block(b);
    else if (name == "error-codes")
      block = error_codes_block();
    else if (name == "enums")
      block = enums_block(b);
    else if (name == "statuses")
      block = statuses_block();
    else
      throw std::invalid_argument("unknown generated block '" + name + "'");
    out.append(text.substr(at, name_end + 4 - at));
    out += "\n\n" + block + "\n" + end_marker;
    at = end + end_marker.size();
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace arbroker::api
