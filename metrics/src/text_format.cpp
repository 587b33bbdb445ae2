#include "arbroker/metrics/text_format.hpp"

#include <array>
#include <charconv>
#include <cmath>

namespace arbroker::metrics {
namespace {

std::string escape(std::string_view text, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

std::string escape_help(std::string_view text) {
  return escape(text, false);
}

std::string escape_label_value(std::string_view text) {
  return escape(text, true);
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  std::array<char, 32> buf;
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return std::string(buf.data(), end);  // 32 chars always suffice for a double
}

bool valid_metric_name(std::string_view name) {
  if (name.empty() || !(is_letter(name[0]) || name[0] == ':')) return false;
  for (char c : name)
    if (!(is_letter(c) || is_digit(c) || c == ':')) return false;
  return true;
}

bool valid_label_name(std::string_view name) {
  if (name.empty() || !is_letter(name[0]) || name.starts_with("__")) return false;
  for (char c : name)
    if (!(is_letter(c) || is_digit(c))) return false;
  return true;
}

}  // namespace arbroker::metrics
