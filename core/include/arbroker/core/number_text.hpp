#pragma once

// Text of numbers for error messages, shared by the libraries (namespace detail: not part
// of the engine's API).

#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>

namespace arbroker::detail {

/// Shortest text that reads back as the same double ("0.5", "1e+300", "nan", "inf"), so
/// that messages name the offending value exactly; std::to_string would print "0.500000".
inline std::string number_text(double v) {
  std::array<char, 64> buf{};
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  if (ec != std::errc{}) return "?";
  return std::string(buf.data(), end);
}

/// A finite number above zero (false for NaN).
inline bool positive_finite(double x) {
  return std::isfinite(x) && x > 0;
}

}  // namespace arbroker::detail
