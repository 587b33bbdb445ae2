#pragma once

// Internal helper of the core sources (not installed): splitting a time into the site's
// local day number and second of that day.

#include <cstdint>

#include "arbroker/core/time.hpp"

namespace arbroker::detail {

/// Local day of t and seconds since that day's local midnight, in [0, 86400).
struct local_day_time {
  std::int64_t day;
  duration second;
};

/// Local time = t + tz_offset. Floors (C++ '/' truncates towards zero), so that times
/// before the epoch fall into the right day. Precondition: t + tz_offset does not overflow.
inline local_day_time split_local(timestamp t, duration tz_offset) {
  const timestamp local = t + tz_offset;
  std::int64_t day = local / seconds_per_day;
  if (local % seconds_per_day < 0) --day;
  return {day, local - day * seconds_per_day};
}

}  // namespace arbroker::detail
