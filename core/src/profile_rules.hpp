#pragma once

// Internal to arb_core: input validation and overflow-safe time arithmetic shared by
// availability_profile and linear_profile, so that both have exactly the same semantics
// (same error codes, same messages). Not installed, not part of the public API.

#include <cstdint>
#include <limits>
#include <string>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker::detail {

/// True iff s + dur <= limit, computed without overflow for any int64 values (dur > 0).
inline bool ends_by(timestamp s, duration dur, timestamp limit) noexcept {
  if (s > limit) return false;
  // limit - s is exact in uint64 because limit >= s.
  return static_cast<std::uint64_t>(limit) - static_cast<std::uint64_t>(s) >=
         static_cast<std::uint64_t>(dur);
}

/// s + dur, or the largest timestamp if that overflows (dur > 0).
inline timestamp saturating_add(timestamp s, duration dur) noexcept {
  return s > std::numeric_limits<timestamp>::max() - dur ? std::numeric_limits<timestamp>::max()
                                                         : s + dur;
}

inline std::string str(std::int64_t v) {
  return std::to_string(v);
}

inline status check_total(const char* who, int total_cpus) {
  if (total_cpus <= 0)
    return fail(errc::invalid_processor_range,
                std::string(who) + ": total_cpus must be > 0, got " + str(total_cpus));
  return {};
}

/// An allocation [start, end) of np CPUs: start < end, both within
/// [-time_infinity, time_infinity], np > 0.
inline status check_allocation(const char* who, timestamp start, timestamp end, int np) {
  if (start >= end)
    return fail(errc::invalid_window,
                std::string(who) + ": start " + str(start) + " >= end " + str(end));
  if (start < -time_infinity || end > time_infinity)
    return fail(errc::invalid_window, std::string(who) + ": [" + str(start) + ", " + str(end) +
                                          ") is outside [-time_infinity, time_infinity]");
  if (np <= 0)
    return fail(errc::invalid_processor_range,
                std::string(who) + ": np must be > 0, got " + str(np));
  return {};
}

inline status check_window(const char* who, timestamp a, timestamp b) {
  if (a >= b)
    return fail(errc::invalid_window, std::string(who) + ": a " + str(a) + " >= b " + str(b));
  return {};
}

/// A request for np CPUs during dur seconds.
inline status check_request(const char* who, duration dur, int np) {
  if (dur <= 0)
    return fail(errc::invalid_duration, std::string(who) + ": dur must be > 0, got " + str(dur));
  if (np <= 0)
    return fail(errc::invalid_processor_range,
                std::string(who) + ": np must be > 0, got " + str(np));
  return {};
}

inline status check_start_window(const char* who, timestamp from, timestamp latest_start) {
  if (from > latest_start)
    return fail(errc::invalid_window,
                std::string(who) + ": from " + str(from) + " > latest_start " + str(latest_start));
  return {};
}

inline error too_many_cpus(const char* who, int np, int total) {
  return fail(errc::infeasible,
              std::string(who) + ": np " + str(np) + " exceeds total_cpus " + str(total));
}

inline error no_start(const char* who, timestamp t0, duration dur, int np, timestamp deadline) {
  return fail(errc::infeasible, std::string(who) + ": no start >= " + str(t0) + " with " + str(np) +
                                    " CPUs free for " + str(dur) + " s ending by " + str(deadline));
}

inline error over_capacity(const char* who, timestamp start, timestamp end, int np,
                           std::int64_t free) {
  return fail(errc::capacity_exceeded, std::string(who) + ": " + str(np) +
                                           " CPUs requested over [" + str(start) + ", " + str(end) +
                                           ") but only " + str(free) + " free");
}

inline error not_allocated(const char* who, timestamp start, timestamp end, int np,
                           std::int64_t used) {
  return fail(errc::not_allocated, std::string(who) + ": releasing " + str(np) + " CPUs over [" +
                                       str(start) + ", " + str(end) + ") but only " + str(used) +
                                       " allocated somewhere there");
}

}  // namespace arbroker::detail
