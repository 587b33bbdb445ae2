#pragma once

// One table cell as text, the same in every table arb prints (render.cpp, list_view.cpp).

#include <cstdint>
#include <sstream>
#include <string>

#include "arbroker/core/time_format.hpp"

namespace arbroker::cli {

/// A point in time, ISO 8601 UTC; "-" for none (negative).
inline std::string when(std::int64_t t) {
  return t < 0 ? "-" : format_time(t);
}

/// How long a slot or reservation is held: what the request's run time became there.
inline std::string length(std::int64_t start, std::int64_t end) {
  return start < 0 || end < start ? "-" : format_duration(end - start);
}

/// A cost or power, six significant digits.
inline std::string number(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

}  // namespace arbroker::cli
