#pragma once

#include <cstdint>
#include <limits>

namespace arbroker {

/// A point in time, in whole seconds. Wall clock (Unix epoch) in a live broker, virtual
/// time in the simulator: the core never asks which.
using timestamp = std::int64_t;

/// A length of time, in whole seconds.
using duration = std::int64_t;

/// Stands for "never" / "unbounded" in both roles. Kept well below the int64 limit so
/// that `t + d` of two such values cannot overflow.
inline constexpr timestamp time_infinity = std::numeric_limits<std::int64_t>::max() / 4;

inline constexpr duration seconds_per_hour = 3600;
inline constexpr duration seconds_per_day = 86400;

}  // namespace arbroker
