#include "arbroker/sim/random_variates.hpp"

#include <cmath>

namespace arbroker::sim {

std::uint64_t uniform_index(rng_engine& rng, std::uint64_t n) {
  if (n <= 1) return 0;
  const auto i = static_cast<std::uint64_t>(uniform01(rng) * static_cast<double>(n));
  return i < n ? i : n - 1;
}

double exponential(rng_engine& rng, double mean) {
  return -mean * std::log(uniform01_open_low(rng));
}

double standard_normal(rng_engine& rng) {
  for (;;) {
    const double u = 2.0 * uniform01(rng) - 1.0;
    const double v = 2.0 * uniform01(rng) - 1.0;
    const double s = u * u + v * v;
    if (s > 0.0 && s < 1.0) return u * std::sqrt(-2.0 * std::log(s) / s);
  }
}

double gamma_variate(rng_engine& rng, double shape, double scale) {
  if (shape < 1.0) {
    // Gamma(k) = Gamma(k + 1) * U^(1/k).
    const double g = gamma_variate(rng, shape + 1.0, 1.0);
    return scale * g * std::pow(uniform01_open_low(rng), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0;
    double v = 0;
    do {
      x = standard_normal(rng);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform01_open_low(rng);
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return scale * d * v;
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return scale * d * v;
  }
}

}  // namespace arbroker::sim
