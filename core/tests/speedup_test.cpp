#include "arbroker/core/speedup.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace arbroker {
namespace {

TEST(Amdahl, MatchesEquation2) {
  auto sp = *speedup_model::amdahl(0.01);
  EXPECT_DOUBLE_EQ(sp.speedup(1), 1.0);
  // 1 / (0.01 + 0.99 / 8) = 1 / 0.13375
  EXPECT_NEAR(sp.speedup(8), 7.4766355140186915, 1e-12);
  // 1 / (0.01 + 0.99 / 16) = 1 / 0.071875
  EXPECT_NEAR(sp.speedup(16), 13.913043478260871, 1e-12);
  EXPECT_DOUBLE_EQ(speedup_model::amdahl(0.0)->speedup(37), 37.0);  // perfectly parallel
  EXPECT_DOUBLE_EQ(speedup_model::amdahl(1.0)->speedup(37), 1.0);   // purely sequential
}

TEST(Amdahl, RejectsFractionOutsideUnitInterval) {
  for (double bad : {-0.1, 1.5, std::nan("")}) {
    auto sp = speedup_model::amdahl(bad);
    ASSERT_FALSE(sp);
    EXPECT_EQ(sp.err().code, errc::invalid_speedup_model);
  }
}

TEST(Downey, AllFiveBranchesOfEquation3) {
  auto low = *speedup_model::downey(64, 0.5);  // sigma <= 1
  // branch 1, n <= A: 64*16 / (64 + 0.25*15) = 1024 / 67.75
  EXPECT_NEAR(low.speedup(16), 15.114391143911439, 1e-12);
  // branch 2, A <= n <= 2A-1: 64*100 / (0.5*63.5 + 100*0.75) = 6400 / 106.75
  EXPECT_NEAR(low.speedup(100), 59.95316159250586, 1e-12);
  // branch 3, n >= 2A-1: A
  EXPECT_DOUBLE_EQ(low.speedup(200), 64.0);

  auto high = *speedup_model::downey(64, 2.0);  // sigma >= 1
  // branch 4, n <= A + A*sigma - sigma = 190: 64*16*3 / (2*(16+63) + 64) = 3072 / 222
  EXPECT_NEAR(high.speedup(16), 13.837837837837839, 1e-12);
  EXPECT_NEAR(high.speedup(190), 64.0, 1e-12);
  // branch 5: A
  EXPECT_DOUBLE_EQ(high.speedup(300), 64.0);
}

TEST(Downey, ContinuousAtBranchBoundariesAndMonotone) {
  for (double a : {2.0, 8.0, 33.0, 100.0}) {
    for (double sigma : {0.0, 0.3, 1.0, 1.7, 5.0}) {
      auto sp = *speedup_model::downey(a, sigma);
      EXPECT_DOUBLE_EQ(sp.speedup(1), 1.0) << "A=" << a << " sigma=" << sigma;
      for (int n = 2; n < 4 * a; ++n) {
        EXPECT_GE(sp.speedup(n) + 1e-12, sp.speedup(n - 1)) << "A=" << a << " n=" << n;
        EXPECT_LE(sp.speedup(n), a + 1e-9);
      }
    }
  }
}

TEST(Downey, RejectsBadParameters) {
  EXPECT_EQ(speedup_model::downey(0.5, 1).err().code, errc::invalid_speedup_model);
  EXPECT_EQ(speedup_model::downey(8, -0.1).err().code, errc::invalid_speedup_model);
  EXPECT_FALSE(speedup_model::downey(std::numeric_limits<double>::infinity(), 1));
}

TEST(Table, InterpolatesAndErrsTowardsLongerDurations) {
  auto sp = *speedup_model::table({{1, 1.0}, {8, 6.0}, {32, 20.0}});
  EXPECT_DOUBLE_EQ(sp.speedup(8), 6.0);
  EXPECT_NEAR(sp.speedup(4), 1.0 + 3.0 / 7.0 * 5.0, 1e-12);
  EXPECT_NEAR(sp.speedup(20), 6.0 + 12.0 / 24.0 * 14.0, 1e-12);
  EXPECT_DOUBLE_EQ(sp.speedup(64), 20.0);  // flat beyond the last point
  auto from4 = *speedup_model::table({{4, 3.5}});
  EXPECT_DOUBLE_EQ(from4.speedup(2), 1.75);  // scaled linearly below the first point
}

TEST(Table, RejectsBadPoints) {
  EXPECT_FALSE(speedup_model::table({}));
  EXPECT_FALSE(speedup_model::table({{0, 1.0}}));
  EXPECT_FALSE(speedup_model::table({{1, 0.0}}));
  EXPECT_FALSE(speedup_model::table({{4, 2.0}, {4, 3.0}}));
  EXPECT_FALSE(speedup_model::table({{8, 2.0}, {4, 3.0}}));
}

TEST(SpeedupParse, RoundTripsEveryModel) {
  for (const char* spec : {"amdahl:0.01", "downey:64:0.5", "table:1=1,8=6.5,32=20"}) {
    auto sp = speedup_model::parse(spec);
    ASSERT_TRUE(sp) << spec << ": " << to_string(sp.err());
    auto again = speedup_model::parse(sp->to_string());
    ASSERT_TRUE(again) << sp->to_string();
    EXPECT_EQ(*sp, *again);
  }
  EXPECT_NEAR(speedup_model::parse("amdahl:0.01")->speedup(8), 7.4766355140186915, 1e-12);
}

TEST(SpeedupParse, NamesTheProblem) {
  for (const char* bad :
       {"", "amdahl", "amdahl:", "amdahl:x", "amdahl:2", "downey:4", "downey:4:-1", "gustafson:0.1",
        "table:", "table:4", "table:1.5=2", "table:8=6,4=3", "amdahl:0.1:3"}) {
    auto sp = speedup_model::parse(bad);
    ASSERT_FALSE(sp) << bad;
    EXPECT_EQ(sp.err().code, errc::invalid_speedup_model) << bad;
    EXPECT_FALSE(sp.err().message.empty());
  }
}

TEST(AdaptDuration, Equation5RoundsUp) {
  auto sp = *speedup_model::amdahl(0.01);
  // 7200 * S(8) / S(16) = 3869.16 s, rounded up
  EXPECT_EQ(*adapt_duration(sp, 7200, 8, 16), 3870);
  EXPECT_EQ(*adapt_duration(sp, 7200, 8, 8), 7200);
  // Linear speedup: exactly half on twice the processors, no spurious extra second.
  EXPECT_EQ(*adapt_duration(*speedup_model::amdahl(0), 3600, 3, 6), 1800);
  EXPECT_EQ(*adapt_duration(*speedup_model::amdahl(0), 3600, 3, 9), 1200);
}

TEST(AdaptDuration, RejectsBadInput) {
  auto sp = *speedup_model::amdahl(0.01);
  EXPECT_EQ(adapt_duration(sp, 0, 8, 16).err().code, errc::invalid_duration);
  EXPECT_EQ(adapt_duration(sp, -5, 8, 16).err().code, errc::invalid_duration);
  EXPECT_EQ(adapt_duration(sp, 60, 0, 16).err().code, errc::invalid_processor_range);
  EXPECT_EQ(adapt_duration(sp, 60, 8, 0).err().code, errc::invalid_processor_range);
  EXPECT_EQ(adapt_duration(*speedup_model::amdahl(0), time_infinity, 1 << 30, 1).err().code,
            errc::invalid_duration);  // would overflow the time range
}

TEST(ScaleToSite, ProcessorPowerRatio) {
  EXPECT_EQ(*scale_duration_to_site(7200, 1500, 2000), 5400);
  EXPECT_EQ(*scale_duration_to_site(7200, 1500, 1000), 10800);
  EXPECT_EQ(*scale_duration_to_site(1000, 3, 7), 429);  // 428.57 rounded up
  EXPECT_EQ(scale_duration_to_site(7200, 0, 1000).err().code, errc::invalid_parameter);
  EXPECT_EQ(scale_duration_to_site(7200, 1500, -1).err().code, errc::invalid_parameter);
  EXPECT_EQ(scale_duration_to_site(0, 1500, 1000).err().code, errc::invalid_duration);
}

}  // namespace
}  // namespace arbroker
