#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// Rounds a real number of seconds up to whole seconds, forgiving the last few ulps of
/// floating-point noise so that e.g. 3600 * 3 / 3 stays 3600 instead of becoming 3601.
inline duration round_up_seconds(double seconds) {
  const double tolerance = 1e-9 * std::max(1.0, std::fabs(seconds));
  return static_cast<duration>(std::ceil(seconds - tolerance));
}

/// round_up_seconds, refusing values that do not fit the time range of the core.
inline result<duration> checked_round_up(double seconds, const char* what) {
  if (!std::isfinite(seconds) || seconds > static_cast<double>(time_infinity))
    return fail(errc::invalid_duration,
                std::string(what) + " of " + std::to_string(seconds) + " s is out of range");
  return round_up_seconds(seconds);
}

}  // namespace arbroker
