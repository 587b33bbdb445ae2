#include "arbroker/sim/random_variates.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace arbroker::sim {
namespace {

struct moments {
  double mean = 0;
  double var = 0;
};

template <class Draw>
moments sample(int n, Draw draw) {
  double sum = 0;
  double sum2 = 0;
  for (int i = 0; i < n; ++i) {
    const double x = draw();
    sum += x;
    sum2 += x * x;
  }
  const double mean = sum / n;
  return {mean, sum2 / n - mean * mean};
}

TEST(RandomVariates, UniformsStayInTheirIntervals) {
  rng_engine rng(1);
  for (int i = 0; i < 100000; ++i) {
    const double u = uniform01(rng);
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
    const double v = uniform01_open_low(rng);
    EXPECT_GT(v, 0.0);
    EXPECT_LE(v, 1.0);
    EXPECT_LT(uniform_index(rng, 7), 7U);
  }
  EXPECT_EQ(uniform_index(rng, 1), 0U);
  EXPECT_EQ(uniform_index(rng, 0), 0U);
}

TEST(RandomVariates, SameSeedSameNumbers) {
  rng_engine a(5);
  rng_engine b(5);
  for (int i = 0; i < 1000; ++i)
    EXPECT_EQ(gamma_variate(a, 6.57, 0.823), gamma_variate(b, 6.57, 0.823));
}

// Sample mean and variance of n draws against the exact ones: the mean within 5 standard
// errors, the variance within 5% (n = 200000; the variance's relative standard error is
// about sqrt((kurtosis - 1) / n), below 1% for these distributions).
TEST(RandomVariates, ExponentialMoments) {
  rng_engine rng(2);
  const int n = 200000;
  const auto m = sample(n, [&] { return exponential(rng, 3.0); });
  EXPECT_NEAR(m.mean, 3.0, 5 * 3.0 / std::sqrt(n));
  EXPECT_NEAR(m.var, 9.0, 0.05 * 9.0);
}

TEST(RandomVariates, NormalMoments) {
  rng_engine rng(3);
  const int n = 200000;
  const auto m = sample(n, [&] { return standard_normal(rng); });
  EXPECT_NEAR(m.mean, 0.0, 5 / std::sqrt(n));
  EXPECT_NEAR(m.var, 1.0, 0.05);
}

TEST(RandomVariates, GammaMomentsForSmallMediumAndLargeShapes) {
  // Shapes of the Lublin model (a1, a2, aarr * arar) and one below 1.
  const std::vector<std::pair<double, double>> cases = {
      {0.4, 2.0}, {1.0, 1.0}, {6.57, 0.823}, {639.1, 0.0156}, {6.0415 * 1.0519, 0.8531}};
  rng_engine rng(4);
  const int n = 200000;
  for (const auto& [k, theta] : cases) {
    const auto m = sample(n, [&] { return gamma_variate(rng, k, theta); });
    const double mean = k * theta;
    const double var = k * theta * theta;
    EXPECT_NEAR(m.mean, mean, 5 * std::sqrt(var / n)) << "shape " << k;
    EXPECT_NEAR(m.var, var, 0.05 * var) << "shape " << k;
  }
}

}  // namespace
}  // namespace arbroker::sim
