#include "arbroker/core/cost.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace arbroker {
namespace {

constexpr duration H = seconds_per_hour;
constexpr duration D = seconds_per_day;
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

// 2 currency units per CPU-hour, half price from 00:00 to 06:00 local time.
// Day integral: 6 h * 0.5 + 18 h * 1 = 21 h.
cost_model night_model(duration tz = 0, std::map<std::string, double> agreements = {},
                       double default_agreement = 1.0) {
  auto m =
      cost_model::create(2.0, H, {{0, 6 * H, 0.5}}, tz, std::move(agreements), default_agreement);
  EXPECT_TRUE(m) << (m ? "" : to_string(m.err()));
  return *m;
}

void expect_error(const result<cost_model>& r, errc code, const std::string& needle) {
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, code) << r.err().message;
  EXPECT_NE(r.err().message.find(needle), std::string::npos) << r.err().message;
}

TEST(CostModel, NoRatesMeansFactorOne) {
  auto m = cost_model::create(2.0, H, {}, 0);
  ASSERT_TRUE(m);
  EXPECT_DOUBLE_EQ(m->day_integral(), 86400.0);
  // 4 CPUs * 2/3600 per CPU-second * 3 h * 3600 = 24.
  auto c = m->cost(0, 3 * H, 4, "anyone");
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(*c, 24.0);
}

TEST(CostModel, NightRateAcrossMidnight) {
  auto m = night_model();
  EXPECT_DOUBLE_EQ(m.day_integral(), 21.0 * H);
  // Day 1 22:00 to day 2 08:00: 2 h * 1 + 6 h * 0.5 + 2 h * 1 = 7 scaled hours.
  // 4 CPUs * 2 per CPU-hour * 7 = 56.
  auto c = m.cost(D + 22 * H, 2 * D + 8 * H, 4, "u");
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(*c, 56.0);
}

TEST(CostModel, TzOffsetShiftsTheLocalDay) {
  // UTC [day 1 00:00, 06:00), 1 CPU, scale integral in hours:
  //   tz  0: local 00-06 -> 6 * 0.5 = 3
  //   tz +3: local 03-09 -> 3 * 0.5 + 3 = 4.5
  //   tz -2: local 22-04 -> 2 * 1 + 4 * 0.5 = 4
  const timestamp s = D;
  const timestamp e = D + 6 * H;
  EXPECT_DOUBLE_EQ(*night_model(0).scale_integral(s, e), 3.0 * H);
  EXPECT_DOUBLE_EQ(*night_model(3 * H).scale_integral(s, e), 4.5 * H);
  EXPECT_DOUBLE_EQ(*night_model(-2 * H).scale_integral(s, e), 4.0 * H);
  // Local 22:00 -> 08:00 at UTC+1 is UTC 21:00 -> 07:00: same 7 scaled hours as above.
  auto c = night_model(H).cost(D + 21 * H, 2 * D + 7 * H, 4, "u");
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(*c, 56.0);
}

TEST(CostModel, MultiDaySpan) {
  auto m = night_model();
  // Day 1 12:00 to day 4 18:00: 3 whole days * 21 h + (12:00-18:00) 6 h = 69 h; * 2 = 138.
  auto c = m.cost(D + 12 * H, 4 * D + 18 * H, 1, "u");
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(*c, 138.0);
  // Exactly one local day, midnight to midnight.
  EXPECT_DOUBLE_EQ(*m.scale_integral(5 * D, 6 * D), 21.0 * H);
  // 1000 days: 1000 * 21 h = 75 600 000 s, exact (closed form, no sampling).
  EXPECT_DOUBLE_EQ(*m.scale_integral(0, 1000 * D), 75600000.0);
}

TEST(CostModel, SeveralRatesInAnyOrderAndBoundaries) {
  // Peak 09-17 at 1.5, night 00-06 at 0.5, given out of order.
  auto m = cost_model::create(1.0, H, {{9 * H, 17 * H, 1.5}, {0, 6 * H, 0.5}}, 0);
  ASSERT_TRUE(m);
  // Day: 6 * 0.5 + 3 * 1 + 8 * 1.5 + 7 * 1 = 3 + 3 + 12 + 7 = 25 h.
  EXPECT_DOUBLE_EQ(m->day_integral(), 25.0 * H);
  // 05:00 -> 10:00: 1 * 0.5 + 3 * 1 + 1 * 1.5 = 5 h.
  EXPECT_DOUBLE_EQ(*m->scale_integral(5 * H, 10 * H), 5.0 * H);
  // Within one segment: 10:00 -> 10:00:01 = 1.5 s; empty interval = 0.
  EXPECT_DOUBLE_EQ(*m->scale_integral(10 * H, 10 * H + 1), 1.5);
  EXPECT_DOUBLE_EQ(*m->scale_integral(10 * H, 10 * H), 0.0);
  // Starting exactly at a boundary: 17:00 belongs to the factor-1 part, 06:00 too.
  EXPECT_DOUBLE_EQ(*m->scale_integral(17 * H, 17 * H + 10), 10.0);
  EXPECT_DOUBLE_EQ(*m->scale_integral(6 * H - 10, 6 * H + 10), 10 * 0.5 + 10 * 1.0);
}

TEST(CostModel, TouchingAndWholeDayRates) {
  auto touching = cost_model::create(1.0, H, {{0, 6 * H, 0.5}, {6 * H, 12 * H, 2.0}}, 0);
  ASSERT_TRUE(touching);
  // 3 + 12 + 12 = 27 h.
  EXPECT_DOUBLE_EQ(touching->day_integral(), 27.0 * H);
  auto free_of_charge = cost_model::create(3.0, H, {{0, D, 0.0}}, 0);
  ASSERT_TRUE(free_of_charge);
  EXPECT_DOUBLE_EQ(*free_of_charge->cost(0, 10 * D + 5, 64, "u"), 0.0);
}

TEST(CostModel, TimesBeforeTheEpoch) {
  auto m = night_model();
  // [-1 h, +1 h): day -1 23:00-24:00 at 1, day 0 00:00-01:00 at 0.5 -> 1.5 h.
  EXPECT_DOUBLE_EQ(*m.scale_integral(-H, H), 1.5 * H);
  // [-2 days, 0): two whole days.
  EXPECT_DOUBLE_EQ(*m.scale_integral(-2 * D, 0), 42.0 * H);
  // [-21 h, -20 h) is 03:00-04:00 of day -1, at 0.5.
  EXPECT_DOUBLE_EQ(*m.scale_integral(-21 * H, -20 * H), 0.5 * H);
}

TEST(CostModel, NearTimeInfinity) {
  auto m = night_model(-H);
  // Any span of exactly one day integrates to the day integral, wherever it starts.
  EXPECT_DOUBLE_EQ(*m.scale_integral(time_infinity - D, time_infinity), 21.0 * H);
  EXPECT_DOUBLE_EQ(*m.scale_integral(-time_infinity, -time_infinity + D), 21.0 * H);
}

TEST(CostModel, Agreements) {
  auto m = night_model(0, {{"alice", 0.8}, {"physics", 0.5}}, 1.2);
  // 12:00-14:00, day factor 1, 1 CPU: 2 h * 2 = 4 before the agreement factor.
  const timestamp s = 12 * H;
  const timestamp e = 14 * H;
  EXPECT_DOUBLE_EQ(*m.cost(s, e, 1, "alice"), 4.0 * 0.8);
  EXPECT_DOUBLE_EQ(*m.cost(s, e, 1, "bob"), 4.0 * 1.2);               // default
  EXPECT_DOUBLE_EQ(*m.cost(s, e, 1, "bob", "physics"), 4.0 * 0.5);    // VO
  EXPECT_DOUBLE_EQ(*m.cost(s, e, 1, "alice", "physics"), 4.0 * 0.8);  // user first
  EXPECT_DOUBLE_EQ(*m.cost(s, e, 1, "", "physics"), 4.0 * 0.5);
  EXPECT_DOUBLE_EQ(*m.cost(s, e, 1, "bob", "chemistry"), 4.0 * 1.2);
  EXPECT_DOUBLE_EQ(m.agreement("alice"), 0.8);
  EXPECT_DOUBLE_EQ(m.agreement(""), 1.2);
}

TEST(CostModel, RejectsBadConstruction) {
  expect_error(cost_model::create(-1.0, H, {}, 0), errc::invalid_parameter, "-1");
  expect_error(cost_model::create(nan, H, {}, 0), errc::invalid_parameter, "nan");
  expect_error(cost_model::create(inf, H, {}, 0), errc::invalid_parameter, "inf");
  expect_error(cost_model::create(1.0, 0, {}, 0), errc::invalid_duration, "0");
  expect_error(cost_model::create(1.0, -5, {}, 0), errc::invalid_duration, "-5");
  expect_error(cost_model::create(1.0, H, {{-1, H, 0.5}}, 0), errc::invalid_parameter, "-1");
  expect_error(cost_model::create(1.0, H, {{0, D + 1, 0.5}}, 0), errc::invalid_parameter, "86401");
  expect_error(cost_model::create(1.0, H, {{H, H, 0.5}}, 0), errc::invalid_window, "3600");
  expect_error(cost_model::create(1.0, H, {{2 * H, H, 0.5}}, 0), errc::invalid_window, "7200");
  expect_error(cost_model::create(1.0, H, {{0, 6 * H, 0.5}, {5 * H, 7 * H, 2.0}}, 0),
               errc::invalid_parameter, "overlap");
  expect_error(cost_model::create(1.0, H, {{0, H, -0.5}}, 0), errc::invalid_parameter, "-0.5");
  expect_error(cost_model::create(1.0, H, {{0, H, nan}}, 0), errc::invalid_parameter, "nan");
  expect_error(cost_model::create(1.0, H, {{0, H, inf}}, 0), errc::invalid_parameter, "inf");
  expect_error(cost_model::create(1.0, H, {}, D), errc::invalid_parameter, "86400");
  expect_error(cost_model::create(1.0, H, {}, -D), errc::invalid_parameter, "-86400");
  expect_error(cost_model::create(1.0, H, {}, 0, {{"", 1.0}}), errc::invalid_parameter, "empty");
  expect_error(cost_model::create(1.0, H, {}, 0, {{"eve", -1.0}}), errc::invalid_parameter, "eve");
  expect_error(cost_model::create(1.0, H, {}, 0, {{"eve", nan}}), errc::invalid_parameter, "nan");
  expect_error(cost_model::create(1.0, H, {}, 0, {}, -0.1), errc::invalid_parameter, "-0.1");
  expect_error(cost_model::create(1.0, H, {}, 0, {}, inf), errc::invalid_parameter, "inf");
  // Zero is a legal price and a legal factor.
  EXPECT_TRUE(cost_model::create(0.0, H, {{0, H, 0.0}}, 0, {{"eve", 0.0}}, 0.0));
}

TEST(CostModel, RejectsBadQueries) {
  auto m = night_model();
  auto same = m.cost(H, H, 1, "u");
  ASSERT_FALSE(same);
  EXPECT_EQ(same.err().code, errc::invalid_window);
  auto reversed = m.cost(2 * H, H, 1, "u");
  ASSERT_FALSE(reversed);
  EXPECT_EQ(reversed.err().code, errc::invalid_window);
  EXPECT_NE(reversed.err().message.find("7200"), std::string::npos);
  auto zero_np = m.cost(0, H, 0, "u");
  ASSERT_FALSE(zero_np);
  EXPECT_EQ(zero_np.err().code, errc::invalid_processor_range);
  auto negative_np = m.cost(0, H, -3, "u");
  ASSERT_FALSE(negative_np);
  EXPECT_NE(negative_np.err().message.find("-3"), std::string::npos);
  auto too_late = m.cost(0, time_infinity + 1, 1, "u");
  ASSERT_FALSE(too_late);
  EXPECT_EQ(too_late.err().code, errc::invalid_parameter);
  auto too_early = m.scale_integral(-time_infinity - 1, 0);
  ASSERT_FALSE(too_early);
  EXPECT_EQ(too_early.err().code, errc::invalid_parameter);
  auto back = m.scale_integral(5, 4);
  ASSERT_FALSE(back);
  EXPECT_EQ(back.err().code, errc::invalid_window);
}

}  // namespace
}  // namespace arbroker
