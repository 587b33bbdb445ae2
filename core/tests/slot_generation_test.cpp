#include "arbroker/core/slot_generation.hpp"

#include <gtest/gtest.h>

#include <random>

namespace arbroker {
namespace {

TEST(ReservableCounts, BunchesAndExplicitCounts) {
  EXPECT_EQ(*reservable_counts({4, {}}, 4, 16, 64), (std::vector<int>{4, 8, 12, 16}));
  EXPECT_EQ(*reservable_counts({4, {}}, 5, 15, 64), (std::vector<int>{8, 12}));
  EXPECT_EQ(*reservable_counts({4, {}}, 4, 100, 10), (std::vector<int>{4, 8}));
  EXPECT_EQ(*reservable_counts({1, {}}, 3, 5, 64), (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(*reservable_counts({1, {16, 8, 32, 8}}, 8, 20, 64), (std::vector<int>{8, 16}));
}

TEST(ReservableCounts, EmptySetIsAnError) {
  EXPECT_EQ(reservable_counts({4, {}}, 1, 3, 64).err().code, errc::invalid_processor_range);
  EXPECT_EQ(reservable_counts({1, {64}}, 1, 32, 128).err().code, errc::invalid_processor_range);
  EXPECT_EQ(reservable_counts({1, {}}, 4, 2, 64).err().code, errc::invalid_processor_range);
  EXPECT_EQ(reservable_counts({0, {}}, 1, 2, 64).err().code, errc::invalid_processor_range);
}

TEST(StartTimes, EvenCoverIncludingBothEnds) {
  // span = 10000 - 2000 = 8000, five start times 2000 s apart
  EXPECT_EQ(*start_times(0, 10000, 2000, {5, 60}),
            (std::vector<timestamp>{0, 2000, 4000, 6000, 8000}));
  // the gap of 3000 s allows only 8000 / 3000 + 1 = 3 start times
  EXPECT_EQ(*start_times(0, 10000, 2000, {8, 3000}), (std::vector<timestamp>{0, 4000, 8000}));
  // no room to move: the only start is est
  EXPECT_EQ(*start_times(500, 600, 100, {8, 1}), (std::vector<timestamp>{500}));
  EXPECT_EQ(*start_times(0, 10000, 2000, {1, 0}), (std::vector<timestamp>{0}));
  // span 7, gaps of floor/ceil(7/3)
  EXPECT_EQ(*start_times(0, 10, 3, {4, 0}), (std::vector<timestamp>{0, 2, 4, 7}));
}

TEST(StartTimes, RejectsBadInput) {
  EXPECT_EQ(start_times(10, 10, 1, {4, 0}).err().code, errc::invalid_window);
  EXPECT_EQ(start_times(0, 10, 0, {4, 0}).err().code, errc::invalid_duration);
  EXPECT_EQ(start_times(0, 10, 3, {0, 0}).err().code, errc::invalid_parameter);
  EXPECT_EQ(start_times(0, 10, 3, {4, -1}).err().code, errc::invalid_parameter);
  EXPECT_EQ(start_times(0, 10, 11, {4, 0}).err().code, errc::infeasible);
}

TEST(StartTimes, PropertiesHoldForRandomParameters) {
  std::mt19937_64 rng(42);
  for (int iter = 0; iter < 20000; ++iter) {
    const timestamp est = std::uniform_int_distribution<timestamp>(-100000, 100000)(rng);
    const duration window = std::uniform_int_distribution<duration>(1, 200000)(rng);
    const duration dur = std::uniform_int_distribution<duration>(1, window)(rng);
    const probe_limits lim{std::uniform_int_distribution<int>(1, 20)(rng),
                           std::uniform_int_distribution<duration>(0, 50000)(rng)};
    auto st = start_times(est, est + window, dur, lim);
    ASSERT_TRUE(st);
    const timestamp lst = est + window - dur;
    ASSERT_FALSE(st->empty());
    ASSERT_LE(static_cast<int>(st->size()), lim.tsn_max);
    EXPECT_EQ(st->front(), est);
    if (st->size() > 1) {
      EXPECT_EQ(st->back(), lst);
    }
    for (std::size_t i = 1; i < st->size(); ++i) {
      ASSERT_GE((*st)[i] - (*st)[i - 1], std::max<duration>(lim.tss_gap, 1));
      ASSERT_LE((*st)[i], lst);
    }
    // Maximal: one more start time would have violated tsn_max or the gap.
    const auto k = static_cast<duration>(st->size());
    if (k < lim.tsn_max) {
      EXPECT_LT(lst - est, k * std::max<duration>(lim.tss_gap, 1));
    }
  }
}

TEST(GenerateCandidates, Figure3ForEachReservableCount) {
  // Linear speedup, 7200 s on 8 CPUs: n = 4 needs 14400 s > 7200: skipped. n = 8: 7200 s,
  // only t = 0. n = 12: 4800 s, starts 0..2400. n = 16: 3600 s, starts 0..3600.
  site_request req{0, 7200, {{4, 14400}, {8, 7200}, {12, 4800}, {16, 3600}}};
  auto c = generate_candidates("A", req, {3, 600});
  ASSERT_TRUE(c) << to_string(c.err());
  std::vector<candidate> expected{
      {"A", 0, 7200, 8, {}},     {"A", 0, 4800, 12, {}}, {"A", 1200, 6000, 12, {}},
      {"A", 2400, 7200, 12, {}}, {"A", 0, 3600, 16, {}}, {"A", 1800, 5400, 16, {}},
      {"A", 3600, 7200, 16, {}},
  };
  EXPECT_EQ(*c, expected);
}

TEST(GenerateCandidates, NothingFitsGivesEmptyListNotError) {
  site_request req{0, 3600, {{4, 5400}, {8, 4500}}};
  auto c = generate_candidates("A", req, {3, 600});
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->empty());
}

TEST(GenerateCandidates, RejectsBadInput) {
  EXPECT_EQ(generate_candidates("A", {10, 10, {{4, 60}}}, {3, 0}).err().code, errc::invalid_window);
  EXPECT_EQ(generate_candidates("A", {0, 60, {{0, 60}}}, {3, 0}).err().code,
            errc::invalid_processor_range);
  EXPECT_EQ(generate_candidates("A", {0, 60, {{4, 60}}}, {0, 0}).err().code,
            errc::invalid_parameter);
  EXPECT_EQ(generate_candidates("A", {0, 60, {{4, 0}}}, {3, 0}).err().code, errc::invalid_duration);
}

}  // namespace
}  // namespace arbroker
