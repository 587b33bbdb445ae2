#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// Amdahl's law (paper 000, eq. 2): S_A(n) = 1 / (seq + par/n), par = 1 - seq.
struct amdahl_model {
  double seq = 0.0;  ///< sequential fraction in [0, 1]
  friend bool operator==(const amdahl_model&, const amdahl_model&) = default;
};

/// Downey's model (paper 000, eq. 3): average parallelism A >= 1, variance sigma >= 0.
struct downey_model {
  double a = 1.0;
  double sigma = 0.0;
  friend bool operator==(const downey_model&, const downey_model&) = default;
};

/// Measured reference speedups, interpolated linearly between points. Below the first
/// point the speedup is scaled linearly down (S(n) = S(n0) * n / n0), above the last it
/// stays flat: both err towards longer durations, never shorter ones.
struct table_model {
  struct point {
    int n = 1;
    double speedup = 1.0;
    friend bool operator==(const point&, const point&) = default;
  };
  std::vector<point> points;  ///< strictly increasing n >= 1, speedup > 0
  friend bool operator==(const table_model&, const table_model&) = default;
};

/// One of the speedup models a request may name.
class speedup_model {
 public:
  using variant_type = std::variant<amdahl_model, downey_model, table_model>;

  static result<speedup_model> amdahl(double seq);
  static result<speedup_model> downey(double a, double sigma);
  static result<speedup_model> table(std::vector<table_model::point> points);

  /// Parses "amdahl:0.01", "downey:64:0.5" (A:sigma) or "table:1=1,8=6.5,32=20".
  static result<speedup_model> parse(std::string_view spec);

  /// The speedup S(n) for n >= 1 processors. Precondition: n >= 1.
  double speedup(int n) const;

  /// Inverse form of the spec accepted by parse().
  std::string to_string() const;

  const variant_type& model() const noexcept { return model_; }
  friend bool operator==(const speedup_model&, const speedup_model&) = default;

 private:
  explicit speedup_model(variant_type m) : model_(std::move(m)) {}
  variant_type model_;
};

/// eq. 5: the duration on n processors of a job that takes dur_ref on np_ref processors,
/// dur_ref * S(np_ref) / S(n), rounded up to whole seconds (a reservation must never be
/// shorter than the job needs).
result<duration> adapt_duration(const speedup_model& sp, duration dur_ref, int np_ref, int n);

/// Sec. 3.2.1: the duration on a site with processor power pp_site of a job that takes
/// dur_ref on processors of power pp_ref: dur_ref * pp_ref / pp_site, rounded up.
result<duration> scale_duration_to_site(duration dur_ref, double pp_ref, double pp_site);

}  // namespace arbroker
