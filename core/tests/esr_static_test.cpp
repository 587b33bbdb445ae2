#include "arbroker/core/esr_static.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace arbroker {
namespace {

TEST(EsrStatic, PaperThresholdAtNineAndAHalfHours) {
  // d = 9.5 h = 34200 s, h = 18000 s: 1 - e^-1.9 = 1 - 0.1495686 = 0.8504314 >= 0.85.
  auto at = esr_static(34200);
  ASSERT_TRUE(at);
  EXPECT_NEAR(*at, 0.8504314, 1e-7);
  EXPECT_GE(*at, 0.85);
  // 100 s earlier: 1 - e^(-34100/18000) = 1 - e^-1.894444 = 1 - 0.1504019 = 0.8495981 < 0.85.
  auto before = esr_static(34100);
  ASSERT_TRUE(before);
  EXPECT_NEAR(*before, 0.8495981, 1e-7);
  EXPECT_LT(*before, 0.85);
}

TEST(EsrStatic, ShapeOfTheCurve) {
  // d == h: 1 - 1/e = 0.6321206.
  EXPECT_NEAR(*esr_static(600, 600), 0.6321206, 1e-7);
  // d = 2h: 1 - e^-2 = 1 - 0.1353353 = 0.8646647.
  EXPECT_NEAR(*esr_static(1200, 600), 0.8646647, 1e-7);
  // One second ahead, h = 18000, x = 1/18000: 1 - e^-x = x - x^2/2 + O(x^3)
  // = 5.5555556e-5 - 1.5432e-9 = 5.5554012e-5 (the x^3 term is ~3e-14).
  const double x = 1.0 / 18000.0;
  EXPECT_NEAR(*esr_static(1), x - x * x / 2, 1e-13);
  // Very far ahead: 1 (e^-big underflows to 0).
  EXPECT_DOUBLE_EQ(*esr_static(time_infinity), 1.0);
}

TEST(EsrStatic, NowOrPastIsZero) {
  EXPECT_DOUBLE_EQ(*esr_static(0), 0.0);
  EXPECT_DOUBLE_EQ(*esr_static(-3600), 0.0);
  EXPECT_DOUBLE_EQ(*esr_static(-time_infinity), 0.0);
}

TEST(EsrStatic, RejectsNonPositiveH) {
  for (duration h : {duration{0}, duration{-18000}}) {
    auto r = esr_static(3600, h);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.err().code, errc::invalid_duration);
    EXPECT_NE(r.err().message.find(std::to_string(h)), std::string::npos) << r.err().message;
  }
  // h is checked even when d <= 0 would short-cut the formula.
  EXPECT_FALSE(esr_static(-5, 0));
}

}  // namespace
}  // namespace arbroker
