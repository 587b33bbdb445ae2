#include "arbroker/core/esr_history.hpp"

#include <cmath>
#include <string>

#include "arbroker/core/number_text.hpp"
#include "local_day.hpp"

namespace arbroker {
namespace {

bool in_time_range(timestamp t) {
  return t >= -time_infinity && t <= time_infinity;
}

// Do the half-open arcs [a, a + la) and [b, b + lb) of the 86400 s day circle intersect?
// Starts a, b in [0, 86400), lengths > 0. If two arcs meet, the first common point is the
// start of one of them, so it suffices to test whether either start lies in the other arc.
bool arcs_intersect(duration a, duration la, duration b, duration lb) {
  if (la >= seconds_per_day || lb >= seconds_per_day) return true;
  const duration b_after_a = ((b - a) % seconds_per_day + seconds_per_day) % seconds_per_day;
  const duration a_after_b = ((a - b) % seconds_per_day + seconds_per_day) % seconds_per_day;
  return b_after_a < la || a_after_b < lb;
}

}  // namespace

result<double> esr_history(int np, double aip) {
  if (np <= 0)
    return fail(errc::invalid_processor_range,
                "esr history: np must be > 0, got " + std::to_string(np));
  if (!std::isfinite(aip) || aip < 0.0)
    return fail(
        errc::invalid_parameter,
        "esr history: average idle CPUs must be finite and >= 0, got " + detail::number_text(aip));
  const double n = static_cast<double>(np);
  if (2.0 * n <= aip) return 1.0;
  if (n <= aip) return 2.0 - 2.0 * n / aip;
  return 0.0;
}

result<history> history::create(duration delta, std::size_t max_records) {
  if (delta <= 0 || delta > seconds_per_day)
    return fail(errc::invalid_duration,
                "history: delta must lie within (0, 86400] s, got " + std::to_string(delta));
  history h;
  h.delta_ = delta;
  h.max_records_ = max_records;
  return h;
}

status history::record(timestamp begin, int idle) {
  if (!in_time_range(begin))
    return fail(
        errc::invalid_parameter,
        "history: record time must lie within +-time_infinity, got " + std::to_string(begin));
  if (idle < 0)
    return fail(errc::invalid_processor_range,
                "history: idle CPUs must be >= 0, got " + std::to_string(idle));
  if (!records_.empty() && begin < records_.back().begin + delta_)
    return fail(errc::invalid_parameter, "history: record at " + std::to_string(begin) +
                                             " overlaps or precedes the last one [" +
                                             std::to_string(records_.back().begin) + ", " +
                                             std::to_string(records_.back().begin + delta_) + ")");
  records_.push_back({begin, idle});
  if (max_records_ > 0 && records_.size() > max_records_) records_.pop_front();
  return {};
}

result<std::optional<double>> history::aip(timestamp s, timestamp e) const {
  if (!in_time_range(s) || !in_time_range(e))
    return fail(errc::invalid_parameter, "history: times must lie within +-time_infinity, got [" +
                                             std::to_string(s) + ", " + std::to_string(e) + ")");
  if (s >= e)
    return fail(errc::invalid_window, "history: candidate [" + std::to_string(s) + ", " +
                                          std::to_string(e) + ") is empty or reversed");
  const duration s_tod = detail::split_local(s, 0).second;
  const duration length = e - s;
  std::int64_t sum = 0;  // ints summed exactly; cannot overflow for any realistic history
  std::int64_t matched = 0;
  for (const auto& r : records_) {
    const duration r_tod = detail::split_local(r.begin, 0).second;
    if (arcs_intersect(s_tod, length, r_tod, delta_)) {
      sum += r.idle;
      ++matched;
    }
  }
  if (matched == 0) return std::optional<double>{};
  return std::optional<double>{static_cast<double>(sum) / static_cast<double>(matched)};
}

result<double> history::esr(timestamp s, timestamp e, int np) const {
  if (np <= 0)
    return fail(errc::invalid_processor_range,
                "history: np must be > 0, got " + std::to_string(np));
  auto a = aip(s, e);
  if (!a) return std::move(a).err();
  if (!a->has_value()) return 1.0;  // no evidence against the candidate
  return esr_history(np, **a);
}

}  // namespace arbroker
