#include "arbroker/sim/arrivals.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace arbroker::sim {
namespace {

TEST(PoissonArrivals, DeterministicForASeed) {
  auto a = poisson_arrival_times(600.0, 1000, 11);
  auto b = poisson_arrival_times(600.0, 1000, 11);
  auto c = poisson_arrival_times(600.0, 1000, 12);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(*a, *b);
  EXPECT_NE(*a, *c);
}

TEST(PoissonArrivals, NonDecreasingFromTheStart) {
  auto t = poisson_arrival_times(5.0, 10000, 3, 1000);
  ASSERT_TRUE(t);
  EXPECT_GE(t->front(), 1000);
  for (std::size_t i = 1; i < t->size(); ++i)
    EXPECT_LE((*t)[i - 1], (*t)[i]);
}

TEST(PoissonArrivals, MeanAndVarianceOfTheGaps) {
  // Exponential gaps: mean m, standard deviation m. With n = 200000 the sample mean has
  // standard error m / sqrt(n) = 0.22% of m; allow 5 of them (+1 s for the rounding down).
  const double m = 600.0;
  const std::size_t n = 200000;
  auto arrivals = poisson_arrivals::create(m, 99);
  ASSERT_TRUE(arrivals);
  timestamp last = 0;
  double sum = 0;
  double sum2 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const timestamp t = arrivals->next();
    const double gap = static_cast<double>(t - last);
    sum += gap;
    sum2 += gap * gap;
    last = t;
  }
  const double mean = sum / n;
  const double sd = std::sqrt(sum2 / n - mean * mean);
  EXPECT_NEAR(mean, m, 5 * m / std::sqrt(n) + 1.0);
  EXPECT_NEAR(sd, m, 0.02 * m);
}

TEST(PoissonArrivals, AssignsSubmitTimesInOrder) {
  std::vector<swf_job> jobs(5);
  auto arrivals = poisson_arrivals::create(100.0, 5);
  ASSERT_TRUE(arrivals);
  assign_submit_times(jobs, *arrivals);
  auto times = poisson_arrival_times(100.0, 5, 5);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    EXPECT_EQ(jobs[i].submit_time, (*times)[i]);
}

TEST(PoissonArrivals, RejectsABadMean) {
  for (double bad : {0.0, -1.0, std::nan(""), double(INFINITY)}) {
    auto a = poisson_arrivals::create(bad, 1);
    ASSERT_FALSE(a) << bad;
    EXPECT_EQ(a.err().code, errc::invalid_parameter);
  }
  EXPECT_EQ(poisson_arrivals::create(0.0, 1).err().message,
            "poisson arrivals: mean inter-arrival time 0 s must be finite and > 0");
}

}  // namespace
}  // namespace arbroker::sim
