#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// A scaling of the base unit cost over part of every local day, e.g. 0.5 at night.
/// [from, to) are seconds after local midnight, 0 <= from < to <= 86400. A rate that
/// crosses midnight is given as two rates, [from, 86400) and [0, to).
struct day_rate {
  duration from = 0;
  duration to = 0;
  double factor = 1.0;

  friend bool operator==(const day_rate&, const day_rate&) = default;
};

/// The price list of one site (paper 000, eq. 6):
///
///   cost(rsvc, user) = np * BU_c / BU_d * integral_start^end scale(t, user) dt
///
/// with scale(t, user) = day factor of t's local time of day * agreement factor of the
/// user (or of the user's VO). The integral is computed exactly, in closed form: whole
/// local days contribute a precomputed day integral, the two partial days a prefix sum.
class cost_model {
 public:
  /// Validates and builds a model.
  /// - base_unit_cost (BU_c): finite, >= 0, the price of one CPU for base_unit_duration;
  /// - base_unit_duration (BU_d): > 0 seconds;
  /// - day_rates: within [0, 86400], from < to, pairwise non-overlapping, factor finite
  ///   and >= 0, in any order; seconds of the day no rate covers have factor 1;
  /// - tz_offset: local time = UTC + tz_offset, |tz_offset| < 86400;
  /// - agreements: user or VO name (non-empty) -> factor, finite and >= 0;
  /// - default_agreement: factor of anyone without an agreement, finite and >= 0.
  static result<cost_model> create(double base_unit_cost, duration base_unit_duration,
                                   std::vector<day_rate> day_rates, duration tz_offset,
                                   std::map<std::string, double> agreements = {},
                                   double default_agreement = 1.0);

  /// Cost of np CPUs held over [start, end) for `user`, whose virtual organization is `vo`
  /// (may be empty). Fails on start >= end, np <= 0 or a time beyond +-time_infinity.
  result<double> cost(timestamp start, timestamp end, int np, std::string_view user,
                      std::string_view vo = {}) const;

  /// Integral of the day factor over [a, b), in seconds (a == b gives 0): the cost of one
  /// CPU before the BU_c / BU_d and agreement factors. Fails on a > b or a time beyond
  /// +-time_infinity.
  result<double> scale_integral(timestamp a, timestamp b) const;

  /// Agreement factor: the user's own if any, else the VO's, else the default.
  double agreement(std::string_view user, std::string_view vo = {}) const;

  /// Integral of the day factor over one whole local day, in seconds.
  double day_integral() const noexcept { return day_integral_; }

  double base_unit_cost() const noexcept { return base_unit_cost_; }
  duration base_unit_duration() const noexcept { return base_unit_duration_; }
  duration tz_offset() const noexcept { return tz_offset_; }

 private:
  cost_model() = default;

  /// Integral of the day factor from local midnight to `second_of_day` (in [0, 86400)).
  double prefix_integral(duration second_of_day) const;

  double base_unit_cost_ = 0.0;
  duration base_unit_duration_ = 1;
  duration tz_offset_ = 0;
  // The day split into consecutive segments covering [0, 86400) exactly, gaps filled with
  // factor 1, so that the prefix integral is a lookup plus one product.
  std::vector<day_rate> segments_;
  std::vector<double> segment_prefix_;  // integral from midnight to segments_[i].from
  double day_integral_ = 0.0;
  std::map<std::string, double, std::less<>> agreements_;  // transparent: find(string_view)
  double default_agreement_ = 1.0;
};

}  // namespace arbroker
