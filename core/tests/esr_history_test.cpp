#include "arbroker/core/esr_history.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace arbroker {
namespace {

constexpr duration H = seconds_per_hour;
constexpr duration D = seconds_per_day;

// Two days of 6-hour samples:
//   day 0: 00:00 -> 8,  06:00 -> 16, 12:00 -> 32, 18:00 -> 4
//   day 1: 00:00 -> 12, 06:00 -> 20, 12:00 -> 0,  18:00 -> 8
history two_days() {
  auto h = history::create(6 * H);
  EXPECT_TRUE(h);
  const int idle[] = {8, 16, 32, 4, 12, 20, 0, 8};
  for (int i = 0; i < 8; ++i)
    EXPECT_TRUE(h->record(i * 6 * H, idle[i]));
  return *h;
}

double aip_of(const history& h, timestamp s, timestamp e) {
  auto a = h.aip(s, e);
  EXPECT_TRUE(a) << (a ? "" : to_string(a.err()));
  EXPECT_TRUE(a->has_value());
  return a->value_or(-1.0);
}

TEST(EsrHistoryFormula, PiecewiseInAip) {
  // 2 np <= aip -> 1.
  EXPECT_DOUBLE_EQ(*esr_history(9, 18.0), 1.0);
  EXPECT_DOUBLE_EQ(*esr_history(1, 100.0), 1.0);
  // np <= aip < 2 np -> 2 - 2 np / aip: 2 - 20/18 = 0.8888...
  EXPECT_DOUBLE_EQ(*esr_history(10, 18.0), 2.0 - 20.0 / 18.0);
  // np == aip -> 2 - 2 = 0, continuous with the last branch.
  EXPECT_DOUBLE_EQ(*esr_history(18, 18.0), 0.0);
  EXPECT_DOUBLE_EQ(*esr_history(19, 18.0), 0.0);
  EXPECT_DOUBLE_EQ(*esr_history(1, 0.0), 0.0);
  // Paper Sec. 4.2: threshold 0.85 accepts when about 1.74 np CPUs are idle.
  // np = 100, aip = 174: 2 - 200/174 = 0.850575; aip = 173: 2 - 200/173 = 0.843931.
  EXPECT_GE(*esr_history(100, 174.0), 0.85);
  EXPECT_LT(*esr_history(100, 173.0), 0.85);
}

TEST(EsrHistoryFormula, RejectsBadInput) {
  auto zero = esr_history(0, 10.0);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.err().code, errc::invalid_processor_range);
  EXPECT_FALSE(esr_history(-2, 10.0));
  for (double bad :
       {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    auto r = esr_history(4, bad);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.err().code, errc::invalid_parameter);
  }
}

TEST(History, EmptyHistoryHasNoEvidence) {
  auto h = history::create(H);
  ASSERT_TRUE(h);
  auto a = h->aip(0, H);
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->has_value());
  EXPECT_DOUBLE_EQ(*h->esr(0, H, 1000), 1.0);
}

TEST(History, MatchesByTimeOfDay) {
  const auto h = two_days();
  const timestamp day3 = 3 * D;
  // 07:00-08:00 touches only the 06:00 samples: (16 + 20) / 2 = 18.
  EXPECT_DOUBLE_EQ(aip_of(h, day3 + 7 * H, day3 + 8 * H), 18.0);
  // 05:00-07:00 touches 00:00 and 06:00: (8 + 16 + 12 + 20) / 4 = 14.
  EXPECT_DOUBLE_EQ(aip_of(h, day3 + 5 * H, day3 + 7 * H), 14.0);
  // 10:00-14:00 touches 06:00 and 12:00: (16 + 32 + 20 + 0) / 4 = 17.
  EXPECT_DOUBLE_EQ(aip_of(h, day3 + 10 * H, day3 + 14 * H), 17.0);
  // A candidate in the past (day 0 itself) is read through the same daily pattern.
  EXPECT_DOUBLE_EQ(aip_of(h, 7 * H, 8 * H), 18.0);
}

TEST(History, HalfOpenBoundaries) {
  const auto h = two_days();
  // [06:00, 12:00) equals the 06:00 records exactly; it neither touches the 00:00
  // records (which end at 06:00) nor the 12:00 records (which begin at its end): 18.
  EXPECT_DOUBLE_EQ(aip_of(h, D + 6 * H, D + 12 * H), 18.0);
  // One second more on either side pulls in the neighbour.
  // [05:59:59, 12:00): (8 + 16 + 12 + 20) / 4 = 14.
  EXPECT_DOUBLE_EQ(aip_of(h, D + 6 * H - 1, D + 12 * H), 14.0);
  // [06:00, 12:00:01): (16 + 32 + 20 + 0) / 4 = 17.
  EXPECT_DOUBLE_EQ(aip_of(h, D + 6 * H, D + 12 * H + 1), 17.0);
}

TEST(History, WrapsAroundMidnight) {
  const auto h = two_days();
  // 22:00 day 3 -> 02:00 day 4 touches 18:00 and 00:00: (4 + 8 + 8 + 12) / 4 = 8.
  EXPECT_DOUBLE_EQ(aip_of(h, 3 * D + 22 * H, 4 * D + 2 * H), 8.0);
  // 23:00 -> 24:00 touches only the 18:00 records: (4 + 8) / 2 = 6.
  EXPECT_DOUBLE_EQ(aip_of(h, 3 * D + 23 * H, 4 * D), 6.0);
  // 18:00 -> 06:00 next day (12 h) touches 18:00 and 00:00 only: 8.
  EXPECT_DOUBLE_EQ(aip_of(h, 3 * D + 18 * H, 4 * D + 6 * H), 8.0);
}

TEST(History, DayLongCandidateTouchesEverything) {
  const auto h = two_days();
  // Mean of all 8: (8 + 16 + 32 + 4 + 12 + 20 + 0 + 8) / 8 = 100 / 8 = 12.5.
  EXPECT_DOUBLE_EQ(aip_of(h, 3 * D + 5 * H, 4 * D + 5 * H), 12.5);
  EXPECT_DOUBLE_EQ(aip_of(h, 3 * D, 10 * D), 12.5);
  // 23 h 59 min 59 s starting 06:00 misses nothing either (the 00:00 records start inside).
  EXPECT_DOUBLE_EQ(aip_of(h, 3 * D + 6 * H, 4 * D + 6 * H - 1), 12.5);
  // ...but 18 h starting 06:00 ([06:00, 24:00)) misses the 00:00 records:
  // (16 + 32 + 4 + 20 + 0 + 8) / 6 = 80 / 6.
  EXPECT_DOUBLE_EQ(aip_of(h, 3 * D + 6 * H, 4 * D), 80.0 / 6.0);
}

TEST(History, UnalignedSamplesAndTimesBeforeTheEpoch) {
  // Hourly samples need not start on the hour: day -1 01:30 -> 6, day 0 02:30 -> 10.
  auto h = history::create(H);
  ASSERT_TRUE(h);
  ASSERT_TRUE(h->record(-D + H + H / 2, 6));
  ASSERT_TRUE(h->record(2 * H + H / 2, 10));
  // Day 7 02:00-02:30 lies within [01:30, 02:30) only -> 6.
  EXPECT_DOUBLE_EQ(aip_of(*h, 7 * D + 2 * H, 7 * D + 2 * H + H / 2), 6.0);
  // 02:00-03:00 touches both -> (6 + 10) / 2 = 8.
  EXPECT_DOUBLE_EQ(aip_of(*h, 7 * D + 2 * H, 7 * D + 3 * H), 8.0);
  // 03:30-04:00 (also on a day before the epoch): nothing recorded then.
  for (timestamp day : {7 * D, -5 * D}) {
    auto none = h->aip(day + 3 * H + H / 2, day + 4 * H);
    ASSERT_TRUE(none);
    EXPECT_FALSE(none->has_value());
    EXPECT_DOUBLE_EQ(*h->esr(day + 3 * H + H / 2, day + 4 * H, 64), 1.0);
  }
}

TEST(History, EsrFromAip) {
  const auto h = two_days();
  const timestamp s = 3 * D + 7 * H;
  const timestamp e = 3 * D + 8 * H;  // aip 18, see above
  EXPECT_DOUBLE_EQ(*h.esr(s, e, 9), 1.0);
  EXPECT_DOUBLE_EQ(*h.esr(s, e, 10), 2.0 - 20.0 / 18.0);
  EXPECT_DOUBLE_EQ(*h.esr(s, e, 18), 0.0);
  EXPECT_DOUBLE_EQ(*h.esr(s, e, 100), 0.0);
}

TEST(History, WholeDayDeltaAndCapacity) {
  // delta = 1 day: every record spans the whole day pattern.
  auto daily = history::create(D);
  ASSERT_TRUE(daily);
  ASSERT_TRUE(daily->record(0, 10));
  ASSERT_TRUE(daily->record(D, 30));
  EXPECT_DOUBLE_EQ(aip_of(*daily, 5 * D + 3 * H, 5 * D + 3 * H + 1), 20.0);

  // Keep the newest two: after 10, 20, 40 only 20 and 40 remain -> 30.
  auto capped = history::create(H, 2);
  ASSERT_TRUE(capped);
  ASSERT_TRUE(capped->record(0, 10));
  ASSERT_TRUE(capped->record(D, 20));
  ASSERT_TRUE(capped->record(2 * D, 40));
  ASSERT_EQ(capped->records().size(), 2u);
  EXPECT_EQ(capped->records().front(), (history_record{D, 20}));
  EXPECT_DOUBLE_EQ(aip_of(*capped, 3 * D, 3 * D + H), 30.0);
}

TEST(History, RecordValidation) {
  auto h = history::create(H);
  ASSERT_TRUE(h);
  auto negative = h->record(0, -1);
  ASSERT_FALSE(negative);
  EXPECT_EQ(negative.err().code, errc::invalid_processor_range);
  EXPECT_NE(negative.err().message.find("-1"), std::string::npos);
  EXPECT_TRUE(h->record(0, 0));  // zero idle CPUs is a valid observation
  auto overlap = h->record(H - 1, 5);
  ASSERT_FALSE(overlap);
  EXPECT_EQ(overlap.err().code, errc::invalid_parameter);
  EXPECT_NE(overlap.err().message.find("3599"), std::string::npos) << overlap.err().message;
  auto backwards = h->record(-H, 5);
  ASSERT_FALSE(backwards);
  EXPECT_EQ(backwards.err().code, errc::invalid_parameter);
  EXPECT_TRUE(h->record(H, 5));      // adjacent
  EXPECT_TRUE(h->record(5 * H, 5));  // after a gap
  auto far = h->record(time_infinity + 1, 5);
  ASSERT_FALSE(far);
  EXPECT_EQ(far.err().code, errc::invalid_parameter);
  EXPECT_EQ(h->records().size(), 3u);  // failed records leave the history unchanged
}

TEST(History, CreateAndQueryValidation) {
  for (duration bad : {duration{0}, duration{-H}, D + 1}) {
    auto h = history::create(bad);
    ASSERT_FALSE(h);
    EXPECT_EQ(h.err().code, errc::invalid_duration);
    EXPECT_NE(h.err().message.find(std::to_string(bad)), std::string::npos);
  }
  const auto h = two_days();
  auto empty = h.aip(H, H);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.err().code, errc::invalid_window);
  auto reversed = h.esr(2 * H, H, 1);
  ASSERT_FALSE(reversed);
  EXPECT_EQ(reversed.err().code, errc::invalid_window);
  auto beyond = h.aip(0, time_infinity + 1);
  ASSERT_FALSE(beyond);
  EXPECT_EQ(beyond.err().code, errc::invalid_parameter);
  auto no_cpus = h.esr(0, H, 0);
  ASSERT_FALSE(no_cpus);
  EXPECT_EQ(no_cpus.err().code, errc::invalid_processor_range);
}

}  // namespace
}  // namespace arbroker
