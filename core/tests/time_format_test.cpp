#include "arbroker/core/time_format.hpp"

#include <gtest/gtest.h>

#include <random>

namespace arbroker {
namespace {

TEST(Duration, ParsesHumanForms) {
  EXPECT_EQ(*parse_duration("90"), 90);
  EXPECT_EQ(*parse_duration("45s"), 45);
  EXPECT_EQ(*parse_duration("15m"), 900);
  EXPECT_EQ(*parse_duration("2h"), 7200);
  EXPECT_EQ(*parse_duration("1h30m"), 5400);
  EXPECT_EQ(*parse_duration(" 1d 6h "), 108000);
  EXPECT_EQ(*parse_duration("0s"), 0);
}

TEST(Duration, RejectsNonsense) {
  for (const char* bad : {"", "-5", "2x", "h", "1h30", "5 5", "99999999999999999999d", "1.5h"}) {
    auto d = parse_duration(bad);
    ASSERT_FALSE(d) << bad;
    EXPECT_EQ(d.err().code, errc::invalid_duration) << bad;
  }
}

TEST(Duration, FormatRoundTrips) {
  EXPECT_EQ(format_duration(5400), "1h30m");
  EXPECT_EQ(format_duration(108000), "1d6h");
  EXPECT_EQ(format_duration(0), "0s");
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000; ++i) {
    duration d = std::uniform_int_distribution<duration>(0, 400 * seconds_per_day)(rng);
    EXPECT_EQ(*parse_duration(format_duration(d)), d);
  }
}

TEST(Time, ParsesRelativeEpochAndIso8601) {
  const timestamp now = 1'800'000'000;
  EXPECT_EQ(*parse_time("now", now), now);
  EXPECT_EQ(*parse_time("now+1h", now), now + 3600);
  EXPECT_EQ(*parse_time("now-10m", now), now - 600);
  EXPECT_EQ(*parse_time("1700000000", now), 1700000000);
  // 2000-03-01 is day 11017 since the epoch (30 years incl. 7 leap days + Jan + Feb 2000).
  EXPECT_EQ(*parse_time("2000-03-01", now), 11017 * seconds_per_day);
  EXPECT_EQ(*parse_time("2026-11-23T06:00:00Z", now), utc_timestamp(2026, 11, 23, 6));
  EXPECT_EQ(*parse_time("2026-11-23T07:00:00+01:00", now), utc_timestamp(2026, 11, 23, 6));
  EXPECT_EQ(*parse_time("2026-11-23T01:30-04:30", now), utc_timestamp(2026, 11, 23, 6));
  EXPECT_EQ(utc_timestamp(1970, 1, 1), 0);
  EXPECT_EQ(utc_timestamp(2024, 2, 29, 12), 1709208000);  // leap day
}

TEST(Time, RejectsNonsense) {
  for (const char* bad :
       {"", "tomorrow", "now*2", "now+", "2026-13-01", "2026-02-30", "2026-11-23T25:00Z",
        "2026-11-23T06:00", "2026-11-23T06:00:00+5", "2026/11/23"}) {
    auto t = parse_time(bad, 0);
    ASSERT_FALSE(t) << bad;
    EXPECT_EQ(t.err().code, errc::invalid_parameter) << bad;
  }
}

TEST(Time, FormatRoundTrips) {
  EXPECT_EQ(format_time(utc_timestamp(2026, 11, 23, 6, 5, 4)), "2026-11-23T06:05:04Z");
  EXPECT_EQ(format_time(-1), "1969-12-31T23:59:59Z");
  std::mt19937_64 rng(11);
  for (int i = 0; i < 1000; ++i) {
    timestamp t = std::uniform_int_distribution<timestamp>(-2'000'000'000, 8'000'000'000)(rng);
    EXPECT_EQ(*parse_time(format_time(t), 0), t);
  }
}

}  // namespace
}  // namespace arbroker
