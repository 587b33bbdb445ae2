#include "arbroker/core/cost.hpp"

#include <algorithm>
#include <cmath>

#include "arbroker/core/number_text.hpp"
#include "local_day.hpp"

namespace arbroker {
namespace {

using detail::number_text;

bool is_factor(double f) {
  return std::isfinite(f) && f >= 0.0;
}

bool in_time_range(timestamp t) {
  return t >= -time_infinity && t <= time_infinity;
}

std::string rate_text(const day_rate& r) {
  return "[" + std::to_string(r.from) + ", " + std::to_string(r.to) + ") x " +
         number_text(r.factor);
}

}  // namespace

result<cost_model> cost_model::create(double base_unit_cost, duration base_unit_duration,
                                      std::vector<day_rate> day_rates, duration tz_offset,
                                      std::map<std::string, double> agreements,
                                      double default_agreement) {
  if (!is_factor(base_unit_cost))
    return fail(errc::invalid_parameter,
                "base unit cost must be finite and >= 0, got " + number_text(base_unit_cost));
  if (base_unit_duration <= 0)
    return fail(errc::invalid_duration,
                "base unit duration must be > 0 s, got " + std::to_string(base_unit_duration));
  if (tz_offset <= -seconds_per_day || tz_offset >= seconds_per_day)
    return fail(errc::invalid_parameter,
                "tz offset must lie within (-86400, 86400) s, got " + std::to_string(tz_offset));
  if (!is_factor(default_agreement))
    return fail(errc::invalid_parameter, "default agreement factor must be finite and >= 0, got " +
                                             number_text(default_agreement));
  for (const auto& [name, factor] : agreements) {
    if (name.empty()) return fail(errc::invalid_parameter, "agreement with an empty user/VO name");
    if (!is_factor(factor))
      return fail(
          errc::invalid_parameter,
          "agreement factor of '" + name + "' must be finite and >= 0, got " + number_text(factor));
  }
  for (const auto& r : day_rates) {
    if (r.from < 0 || r.to > seconds_per_day)
      return fail(errc::invalid_parameter,
                  "day rate " + rate_text(r) + " leaves the day [0, 86400)");
    if (r.from >= r.to)
      return fail(errc::invalid_window, "day rate " + rate_text(r) + " is empty or reversed");
    if (!is_factor(r.factor))
      return fail(errc::invalid_parameter,
                  "day rate " + rate_text(r) + ": factor must be finite and >= 0");
  }
  std::sort(day_rates.begin(), day_rates.end(),
            [](const day_rate& x, const day_rate& y) { return x.from < y.from; });
  for (std::size_t i = 1; i < day_rates.size(); ++i) {
    if (day_rates[i - 1].to > day_rates[i].from)
      return fail(errc::invalid_parameter, "day rates " + rate_text(day_rates[i - 1]) + " and " +
                                               rate_text(day_rates[i]) + " overlap");
  }

  cost_model m;
  m.base_unit_cost_ = base_unit_cost;
  m.base_unit_duration_ = base_unit_duration;
  m.tz_offset_ = tz_offset;
  m.default_agreement_ = default_agreement;
  m.agreements_.insert(agreements.begin(), agreements.end());

  // Fill the gaps between the given rates with factor 1, then accumulate prefix sums.
  duration covered = 0;
  for (const auto& r : day_rates) {
    if (r.from > covered) m.segments_.push_back(day_rate{covered, r.from, 1.0});
    m.segments_.push_back(r);
    covered = r.to;
  }
  if (covered < seconds_per_day) m.segments_.push_back(day_rate{covered, seconds_per_day, 1.0});
  double sum = 0.0;
  for (const auto& seg : m.segments_) {
    m.segment_prefix_.push_back(sum);
    sum += seg.factor * static_cast<double>(seg.to - seg.from);
  }
  m.day_integral_ = sum;
  return m;
}

double cost_model::prefix_integral(duration second_of_day) const {
  // Last segment starting at or before second_of_day; segments_[0].from == 0 always.
  auto it = std::upper_bound(segments_.begin(), segments_.end(), second_of_day,
                             [](duration s, const day_rate& seg) { return s < seg.from; });
  auto i = static_cast<std::size_t>(std::distance(segments_.begin(), it)) - 1;
  return segment_prefix_[i] +
         segments_[i].factor * static_cast<double>(second_of_day - segments_[i].from);
}

result<double> cost_model::scale_integral(timestamp a, timestamp b) const {
  if (!in_time_range(a) || !in_time_range(b))
    return fail(errc::invalid_parameter, "times must lie within +-time_infinity, got [" +
                                             std::to_string(a) + ", " + std::to_string(b) + ")");
  if (a > b)
    return fail(errc::invalid_window,
                "reversed interval [" + std::to_string(a) + ", " + std::to_string(b) + ")");
  // integral over [a, b) = G(b) - G(a), G(t) = local_day(t) * day_integral + prefix(tod(t)).
  // Subtracting the day numbers as integers first keeps long spans exact.
  const auto la = detail::split_local(a, tz_offset_);
  const auto lb = detail::split_local(b, tz_offset_);
  return static_cast<double>(lb.day - la.day) * day_integral_ + prefix_integral(lb.second) -
         prefix_integral(la.second);
}

double cost_model::agreement(std::string_view user, std::string_view vo) const {
  if (auto it = agreements_.find(user); !user.empty() && it != agreements_.end()) return it->second;
  if (auto it = agreements_.find(vo); !vo.empty() && it != agreements_.end()) return it->second;
  return default_agreement_;
}

result<double> cost_model::cost(timestamp start, timestamp end, int np, std::string_view user,
                                std::string_view vo) const {
  if (in_time_range(start) && in_time_range(end) && start >= end)
    return fail(errc::invalid_window, "reservation [" + std::to_string(start) + ", " +
                                          std::to_string(end) + ") is empty or reversed");
  if (np <= 0)
    return fail(errc::invalid_processor_range, "np must be > 0, got " + std::to_string(np));
  auto integral = scale_integral(start, end);  // also rejects times beyond +-time_infinity
  if (!integral) return std::move(integral).err();
  return static_cast<double>(np) * (base_unit_cost_ / static_cast<double>(base_unit_duration_)) *
         agreement(user, vo) * *integral;
}

}  // namespace arbroker
