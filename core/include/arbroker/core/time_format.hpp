#pragma once

#include <string>
#include <string_view>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// Parses a human duration: a whole number of seconds ("90"), or one or more number-unit
/// pairs with units d, h, m, s ("2h", "1h30m", "1d 6h"). Negative values are refused.
result<duration> parse_duration(std::string_view text);

/// "2h", "1h30m", "45s", "0s": the shortest form parse_duration() reads back.
std::string format_duration(duration d);

/// Parses a point in time: "now", "now+1h30m", "now-10m", a plain number of epoch seconds,
/// or ISO 8601 UTC / with offset ("2026-11-23T06:00:00Z", "2026-11-23T07:00:00+01:00",
/// "2026-11-23T06:00Z", "2026-11-23" = midnight UTC).
result<timestamp> parse_time(std::string_view text, timestamp now);

/// ISO 8601 in UTC, e.g. "2026-11-23T06:00:00Z".
std::string format_time(timestamp t);

/// Seconds since the epoch of a UTC civil date and time (proleptic Gregorian calendar).
timestamp utc_timestamp(int year, int month, int day, int hour = 0, int minute = 0, int second = 0);

}  // namespace arbroker
