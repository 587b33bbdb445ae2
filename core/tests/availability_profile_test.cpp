#include "arbroker/core/availability_profile.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "arbroker/core/linear_profile.hpp"

namespace arbroker {
namespace {

constexpr timestamp kMin = std::numeric_limits<timestamp>::min();
constexpr timestamp kMax = std::numeric_limits<timestamp>::max();

using intervals = std::vector<start_interval>;

// ---------------------------------------------------------------------------------------
// Hand-computed cases, run against both implementations.

template <class P>
class ProfileTest : public ::testing::Test {
 protected:
  static P make(int total) { return P::create(total).value(); }

  // The running example, 10 CPUs:
  //   add(0, 10, 4), add(5, 15, 3), add(20, 30, 10)
  //   time   (-inf,0) [0,5) [5,10) [10,15) [15,20) [20,30) [30,inf)
  //   used       0      4      7      3       0      10       0
  //   free      10      6      3      7      10       0      10
  static P example() {
    P p = make(10);
    EXPECT_TRUE(p.add(0, 10, 4));
    EXPECT_TRUE(p.add(5, 15, 3));
    EXPECT_TRUE(p.add(20, 30, 10));
    return p;
  }

  // free_at over a grid covering every change point of the tests, plus the point count.
  static std::vector<int> snapshot(const P& p) {
    std::vector<int> out;
    for (timestamp t = -3; t <= 33; ++t)
      out.push_back(p.free_at(t));
    out.push_back(p.free_at(kMin));
    out.push_back(p.free_at(kMax));
    out.push_back(static_cast<int>(p.change_points()));
    return out;
  }

  struct bad_change {
    timestamp start, end;
    int np;
    errc code;
  };

  // Each case, given to `op` (add or remove), is refused with its code and changes nothing.
  template <class Op>
  static void expect_each_refused(P& p, Op op, const std::vector<bad_change>& cases) {
    const auto before = snapshot(p);
    for (const auto& c : cases) {
      auto st = op(p, c.start, c.end, c.np);
      ASSERT_FALSE(st) << c.start << " " << c.end << " " << c.np;
      EXPECT_EQ(st.err().code, c.code) << st.err().message;
      EXPECT_EQ(snapshot(p), before);
    }
  }
};

using implementations = ::testing::Types<availability_profile, linear_profile>;
TYPED_TEST_SUITE(ProfileTest, implementations);

TYPED_TEST(ProfileTest, CreateValidatesTotal) {
  for (int bad : {0, -1, std::numeric_limits<int>::min()}) {
    auto p = TypeParam::create(bad);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.err().code, errc::invalid_processor_range);
    EXPECT_NE(p.err().message.find(std::to_string(bad)), std::string::npos);
  }
  auto p = TypeParam::create(1);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->total(), 1);
  EXPECT_EQ(p->change_points(), 0u);
  EXPECT_EQ(p->free_at(0), 1);
  EXPECT_EQ(p->free_at(kMin), 1);
  EXPECT_EQ(p->free_at(kMax), 1);
}

TYPED_TEST(ProfileTest, FreeAtFollowsTheStepFunction) {
  const auto p = this->example();
  EXPECT_EQ(p.change_points(), 6u);
  const std::vector<std::pair<timestamp, int>> expected = {
      {kMin, 10}, {-1, 10}, {0, 6},   {4, 6},  {5, 3},  {9, 3},   {10, 7},
      {14, 7},    {15, 10}, {19, 10}, {20, 0}, {29, 0}, {30, 10}, {kMax, 10}};
  for (const auto& [t, free] : expected)
    EXPECT_EQ(p.free_at(t), free) << "t=" << t;
}

TYPED_TEST(ProfileTest, MinFreeOverHalfOpenWindows) {
  const auto p = this->example();
  EXPECT_EQ(*p.min_free(0, 5), 6);
  EXPECT_EQ(*p.min_free(0, 6), 3);
  EXPECT_EQ(*p.min_free(4, 5), 6);
  EXPECT_EQ(*p.min_free(9, 10), 3);
  EXPECT_EQ(*p.min_free(10, 11), 7);
  EXPECT_EQ(*p.min_free(12, 21), 0);
  EXPECT_EQ(*p.min_free(15, 20), 10);
  EXPECT_EQ(*p.min_free(-100, 0), 10);
  EXPECT_EQ(*p.min_free(30, time_infinity), 10);
  EXPECT_EQ(*p.min_free(kMin, kMax), 0);
  for (auto [a, b] : {std::pair<timestamp, timestamp>{5, 5}, {6, 5}, {kMax, kMin}}) {
    auto r = p.min_free(a, b);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.err().code, errc::invalid_window);
    EXPECT_NE(r.err().message.find(std::to_string(a)), std::string::npos);
  }
}

TYPED_TEST(ProfileTest, AdjacentAllocationsShareAChangePoint) {
  auto p = this->make(8);
  ASSERT_TRUE(p.add(0, 5, 2));
  ASSERT_TRUE(p.add(5, 10, 2));
  // The -2 and +2 at t=5 cancel: the change point is erased.
  EXPECT_EQ(p.change_points(), 2u);
  EXPECT_EQ(p.free_at(5), 6);
  EXPECT_EQ(*p.min_free(0, 10), 6);
  ASSERT_TRUE(p.remove(0, 10, 2));
  EXPECT_EQ(p.change_points(), 0u);
  EXPECT_EQ(p.free_at(5), 8);
}

TYPED_TEST(ProfileTest, AddValidatesAndChangesNothingOnError) {
  auto p = this->example();
  const auto add_op = [](TypeParam& q, timestamp start, timestamp end, int np) {
    return q.add(start, end, np);
  };
  this->expect_each_refused(p, add_op,
                            {
                                {5, 5, 1, errc::invalid_window},
                                {6, 5, 1, errc::invalid_window},
                                {-time_infinity - 1, 0, 1, errc::invalid_window},
                                {0, time_infinity + 1, 1, errc::invalid_window},
                                {0, 1, 0, errc::invalid_processor_range},
                                {0, 1, -1, errc::invalid_processor_range},
                                {20, 21, 1, errc::capacity_exceeded},   // [20,30) is full
                                {0, 6, 4, errc::capacity_exceeded},     // only 3 free in [5,6)
                                {-5, 40, 1, errc::capacity_exceeded},   // spans the full stretch
                                {16, 17, 11, errc::capacity_exceeded},  // more than the total
                            });
  auto st = p.add(0, 6, 4);
  EXPECT_NE(st.err().message.find("only 3 free"), std::string::npos) << st.err().message;
  // Exactly the free capacity fits.
  ASSERT_TRUE(p.add(0, 6, 3));
  EXPECT_EQ(p.free_at(5), 0);
  EXPECT_EQ(p.free_at(0), 3);
  EXPECT_EQ(p.free_at(6), 3);
  EXPECT_EQ(p.change_points(), 7u);
}

TYPED_TEST(ProfileTest, RemoveValidatesAndChangesNothingOnError) {
  auto p = this->example();
  const auto before = this->snapshot(p);
  const auto remove_op = [](TypeParam& q, timestamp start, timestamp end, int np) {
    return q.remove(start, end, np);
  };
  this->expect_each_refused(p, remove_op,
                            {
                                {5, 5, 1, errc::invalid_window},
                                {0, time_infinity + 1, 1, errc::invalid_window},
                                {0, 1, 0, errc::invalid_processor_range},
                                {0, 10, 5, errc::not_allocated},  // only 4 used in [0,5)
                                {15, 20, 1, errc::not_allocated},
                                {0, 30, 1, errc::not_allocated},  // nothing used in [15,20)
                                {-1, 1, 1, errc::not_allocated},
                                {29, 31, 1, errc::not_allocated},
                            });
  // Releasing part of what is used is allowed (step-function semantics).
  ASSERT_TRUE(p.remove(6, 8, 7));
  EXPECT_EQ(p.free_at(6), 10);
  EXPECT_EQ(p.free_at(8), 3);
  ASSERT_TRUE(p.add(6, 8, 7));
  EXPECT_EQ(this->snapshot(p), before);
  // Removing everything leaves the empty profile.
  ASSERT_TRUE(p.remove(20, 30, 10));
  ASSERT_TRUE(p.remove(5, 15, 3));
  ASSERT_TRUE(p.remove(0, 10, 4));
  EXPECT_EQ(p.change_points(), 0u);
  EXPECT_EQ(this->snapshot(p), this->snapshot(this->make(10)));
}

TYPED_TEST(ProfileTest, AllocationUpToInfinity) {
  auto p = this->make(10);
  ASSERT_TRUE(p.add(100, time_infinity, 3));
  ASSERT_TRUE(p.add(-time_infinity, -100, 2));
  EXPECT_EQ(p.free_at(time_infinity - 1), 7);
  EXPECT_EQ(p.free_at(time_infinity), 10);
  EXPECT_EQ(p.free_at(-time_infinity), 8);
  EXPECT_EQ(p.free_at(-time_infinity - 1), 10);
  EXPECT_EQ(*p.earliest_start(0, 100, 8), 0);  // ends when the endless allocation starts
  EXPECT_EQ(*p.earliest_start(0, 1000, 7), 0);
  auto r = p.earliest_start(0, 101, 8);  // 8 CPUs are free again only at time_infinity
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::infeasible);
  EXPECT_EQ(*p.earliest_start(100, 1, 10, kMax), time_infinity);
}

TYPED_TEST(ProfileTest, EarliestStart) {
  const auto p = this->example();
  EXPECT_EQ(*p.earliest_start(0, 5, 6), 0);                  // [0,5) has 6 free
  EXPECT_EQ(*p.earliest_start(0, 6, 6), 10);                 // t=5 has 3 free: skip to 10
  EXPECT_EQ(*p.earliest_start(0, 10, 7), 10);                // 6 free at 0: first stretch is at 10
  EXPECT_EQ(*p.earliest_start(0, 11, 7), 30);                // [10,21) hits the full [20,30)
  EXPECT_EQ(*p.earliest_start(0, 11, 7, 41), 30);            // ends exactly at the deadline
  EXPECT_EQ(*p.earliest_start(16, 4, 10), 16);               // [16,20) is empty
  EXPECT_EQ(*p.earliest_start(16, 5, 10), 30);               // [16,21) is not
  EXPECT_EQ(*p.earliest_start(-50, 50, 6), -50);             // ends at 0
  EXPECT_EQ(*p.earliest_start(-50, 56, 6), 30);              // t=5, then [20,30) in the way
  EXPECT_EQ(*p.earliest_start(25, 1, 1), 30);                // inside the full stretch
  EXPECT_EQ(*p.earliest_start(12, 3, 7), 12);                // starts inside a stretch
  EXPECT_EQ(*p.earliest_start(kMin, 1, 10), kMin);           // no overflow at the extremes
  EXPECT_EQ(*p.earliest_start(31, 1, 10, 32), 31);           // after the last change point
  EXPECT_EQ(*p.earliest_start(kMin, kMax, 10, kMax), kMin);  // [kMin, -1) is empty

  struct bad_case {
    timestamp t0;
    duration dur;
    int np;
    timestamp deadline;
    errc code;
  };
  const std::vector<bad_case> cases = {
      {0, 0, 1, time_infinity, errc::invalid_duration},
      {0, -5, 1, time_infinity, errc::invalid_duration},
      {0, 1, 0, time_infinity, errc::invalid_processor_range},
      {0, 1, -2, time_infinity, errc::invalid_processor_range},
      {0, 1, 11, time_infinity, errc::infeasible},  // more than the total
      {0, 11, 7, 40, errc::infeasible},             // 30 + 11 > 40
      {0, 5, 1, 4, errc::infeasible},               // deadline before t0 + dur
      {time_infinity - 5, 10, 1, time_infinity, errc::infeasible},
      {kMax - 1, kMax, 1, kMax, errc::infeasible},   // s + dur overflows int64
      {kMin + 2, kMax, 10, kMax, errc::infeasible},  // would cover t=0; later ones overflow
  };
  for (const auto& c : cases) {
    auto r = p.earliest_start(c.t0, c.dur, c.np, c.deadline);
    ASSERT_FALSE(r) << c.t0 << " " << c.dur << " " << c.np << " " << c.deadline;
    EXPECT_EQ(r.err().code, c.code) << r.err().message;
  }
}

TYPED_TEST(ProfileTest, EarliestStartWhenFullForever) {
  auto p = this->make(4);
  ASSERT_TRUE(p.add(10, time_infinity, 4));
  EXPECT_EQ(*p.earliest_start(0, 10, 4), 0);
  auto r = p.earliest_start(0, 11, 1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::infeasible);
  EXPECT_EQ(p.earliest_start(20, 1, 1).err().code, errc::infeasible);
  EXPECT_EQ(*p.earliest_start(time_infinity, 1, 1, kMax), time_infinity);
}

TYPED_TEST(ProfileTest, FeasibleStarts) {
  const auto p = this->example();
  // np = 6: used must stay <= 4. Stretches: (-inf,5), [10,20), [30,inf).
  EXPECT_EQ(*p.feasible_starts(0, 40, 5, 6), (intervals{{0, 0}, {10, 15}, {30, 40}}));
  EXPECT_EQ(*p.feasible_starts(-10, 40, 5, 6), (intervals{{-10, 0}, {10, 15}, {30, 40}}));
  EXPECT_EQ(*p.feasible_starts(2, 12, 5, 6), (intervals{{10, 12}}));
  EXPECT_EQ(*p.feasible_starts(12, 14, 5, 6), (intervals{{12, 14}}));
  // np = 7: used <= 3. Stretches: (-inf,0), [10,20), [30,inf); [10,20) is too short for 11.
  EXPECT_EQ(*p.feasible_starts(0, 40, 11, 7), (intervals{{30, 40}}));
  EXPECT_EQ(*p.feasible_starts(-20, 40, 11, 7), (intervals{{-20, -11}, {30, 40}}));
  EXPECT_EQ(*p.feasible_starts(0, 40, 1, 11), intervals{});  // more than the total
  EXPECT_EQ(*p.feasible_starts(21, 25, 1, 1), intervals{});  // full stretch
  EXPECT_EQ(*p.feasible_starts(5, 5, 1, 1), (intervals{{5, 5}}));
  EXPECT_EQ(*p.feasible_starts(15, 15, 5, 10), (intervals{{15, 15}}));
  EXPECT_EQ(*p.feasible_starts(15, 15, 6, 10), intervals{});
  // The whole int64 range, with windows long enough to overflow s + dur.
  EXPECT_EQ(*p.feasible_starts(kMin, kMax, kMax, 1), (intervals{{kMin, 20 - kMax}, {30, kMax}}));

  auto r = p.feasible_starts(6, 5, 1, 1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::invalid_window);
  EXPECT_EQ(p.feasible_starts(0, 5, 0, 1).err().code, errc::invalid_duration);
  EXPECT_EQ(p.feasible_starts(0, 5, 1, 0).err().code, errc::invalid_processor_range);
}

TYPED_TEST(ProfileTest, SkipsManyShortGaps) {
  // Full at [10,11), [12,13), [14,15) and [30,31): the gaps [11,12) and [13,14) are too
  // short for 15 s, the one at [15,30) is just long enough.
  auto p = this->make(4);
  for (timestamp t : {10, 12, 14, 30})
    ASSERT_TRUE(p.add(t, t + 1, 4));
  EXPECT_EQ(p.change_points(), 8u);
  EXPECT_EQ(*p.earliest_start(0, 15, 1), 15);
  EXPECT_EQ(*p.earliest_start(0, 10, 1), 0);
  EXPECT_EQ(*p.earliest_start(0, 16, 1), 31);
  EXPECT_EQ(*p.earliest_start(11, 1, 4), 11);
  EXPECT_EQ(p.earliest_start(0, 15, 1, 29).err().code, errc::infeasible);
  EXPECT_EQ(*p.feasible_starts(0, 40, 15, 1), (intervals{{15, 15}, {31, 40}}));
  EXPECT_EQ(*p.feasible_starts(0, 40, 1, 1),
            (intervals{{0, 9}, {11, 11}, {13, 13}, {15, 29}, {31, 40}}));
  EXPECT_EQ(*p.feasible_starts(-5, 40, 15, 1), (intervals{{-5, -5}, {15, 15}, {31, 40}}));
}

TYPED_TEST(ProfileTest, CopiesAreIndependent) {
  auto a = this->example();
  auto b = a;
  ASSERT_TRUE(b.remove(20, 30, 10));
  EXPECT_EQ(a.free_at(25), 0);
  EXPECT_EQ(b.free_at(25), 10);
  EXPECT_EQ(a.change_points(), 6u);
  EXPECT_EQ(b.change_points(), 4u);
}

// ---------------------------------------------------------------------------------------
// Property tests: random operation sequences applied to the tree, the linear reference and
// a brute-force array of used CPUs per second; every observable must agree.

// used[t - lo] for t in [lo, hi); 0 outside (all allocations of the test lie inside).
struct brute_profile {
  int total;
  timestamp lo, hi;
  std::vector<int> used;

  brute_profile(int total_cpus, timestamp from, timestamp to)
      : total(total_cpus), lo(from), hi(to), used(static_cast<std::size_t>(to - from), 0) {}

  int used_at(timestamp t) const { return t < lo || t >= hi ? 0 : used[t - lo]; }
  int max_used(timestamp a, timestamp b) const {
    int m = used_at(a);
    for (timestamp t = std::max(a, lo); t < std::min(b, hi); ++t)
      m = std::max(m, used_at(t));
    return m;
  }
  int min_used(timestamp a, timestamp b) const {
    int m = used_at(a);
    for (timestamp t = std::max(a, lo); t < std::min(b, hi); ++t)
      m = std::min(m, used_at(t));
    return m;
  }
  void apply(timestamp a, timestamp b, int delta) {
    for (timestamp t = a; t < b; ++t)
      used[t - lo] += delta;
  }
  bool fits(timestamp s, duration dur, int np) const {
    return np <= total && max_used(s, s + dur) <= total - np;
  }
};

template <class R>
void expect_same(const R& tree, const R& linear, const std::string& what) {
  ASSERT_EQ(tree.has_value(), linear.has_value()) << what;
  if (tree) {
    EXPECT_EQ(*tree, *linear) << what;
  } else {
    EXPECT_EQ(tree.err().code, linear.err().code) << what;
  }
}

inline void expect_same(const status& tree, const status& linear, const std::string& what) {
  ASSERT_EQ(tree.has_value(), linear.has_value()) << what;
  if (!tree) {
    EXPECT_EQ(tree.err().code, linear.err().code) << what;
  }
}

struct allocation {
  timestamp start, end;
  int np;
};

void run_small_sequence(std::uint64_t seed, int total, int ops) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " total " + std::to_string(total));
  constexpr timestamp horizon = 48;
  std::mt19937_64 rng(seed);
  auto uniform = [&rng](std::int64_t a, std::int64_t b) {
    return std::uniform_int_distribution<std::int64_t>(a, b)(rng);
  };
  auto tree = availability_profile::create(total).value();
  auto linear = linear_profile::create(total).value();
  brute_profile brute(total, 0, horizon);
  std::vector<allocation> live;

  for (int op = 0; op < ops; ++op) {
    const std::string where = "op " + std::to_string(op);
    const auto kind = uniform(0, 99);
    // Mostly short valid windows and modest np, so that many adds succeed; sometimes any
    // window (possibly empty or reversed) and any np in [0, total + 1].
    const bool wild = uniform(0, 9) == 0;
    timestamp a = uniform(0, horizon - 1);
    timestamp b = wild ? uniform(0, horizon) : std::min(horizon, a + uniform(1, 12));
    int np = static_cast<int>(wild ? uniform(0, total + 1) : uniform(1, (total + 1) / 2));
    if (kind < 45) {  // add
      const auto st = tree.add(a, b, np);
      expect_same(st, linear.add(a, b, np), where + " add");
      const bool valid = a < b && np > 0;
      EXPECT_EQ(st.has_value(), valid && brute.max_used(a, b) + np <= total) << where;
      if (st) {
        brute.apply(a, b, np);
        live.push_back({a, b, np});
      }
    } else {  // remove: usually a live allocation (or a slice of one), sometimes random
      if (kind < 85 && !live.empty()) {
        const auto i =
            static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(live.size()) - 1));
        a = live[i].start;
        b = live[i].end;
        np = live[i].np;
        if (kind >= 75) {  // a slice
          a = uniform(a, b - 1);
          b = uniform(a + 1, b);
          np = static_cast<int>(uniform(1, np));
        } else {
          live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
        }
      }
      const auto st = tree.remove(a, b, np);
      expect_same(st, linear.remove(a, b, np), where + " remove");
      const bool valid = a < b && np > 0;
      EXPECT_EQ(st.has_value(), valid && brute.min_used(a, b) >= np) << where;
      if (st) brute.apply(a, b, -np);
    }
    if (::testing::Test::HasFailure()) return;

    ASSERT_EQ(tree.change_points(), linear.change_points()) << where;
    for (timestamp t = -1; t <= horizon + 1; ++t) {
      const int free = tree.free_at(t);
      ASSERT_GE(free, 0) << where << " t=" << t;
      ASSERT_LE(free, total) << where << " t=" << t;
      ASSERT_EQ(free, total - brute.used_at(t)) << where << " t=" << t;
      ASSERT_EQ(free, linear.free_at(t)) << where << " t=" << t;
    }
    for (int q = 0; q < 3; ++q) {
      const timestamp x = uniform(-2, horizon + 2);
      const timestamp y = uniform(-2, horizon + 2);
      const auto m = tree.min_free(x, y);
      expect_same(m, linear.min_free(x, y), where + " min_free");
      if (m) {
        EXPECT_EQ(*m, total - brute.max_used(x, y)) << where;
      }
    }
    for (int q = 0; q < 3; ++q) {
      const timestamp t0 = uniform(-3, horizon + 3);
      const duration dur = uniform(0, horizon / 2);
      const int qnp = static_cast<int>(uniform(0, total + 1));
      const timestamp deadline = uniform(0, 3) == 0 ? time_infinity : uniform(-3, 2 * horizon);
      const auto s = tree.earliest_start(t0, dur, qnp, deadline);
      expect_same(s, linear.earliest_start(t0, dur, qnp, deadline), where + " earliest_start");
      if (dur > 0 && qnp > 0) {
        // Brute force: after the horizon everything is free, so the answer is <= max(t0, horizon).
        std::optional<timestamp> expected;
        for (timestamp c = t0; c <= std::max(t0, horizon) && c + dur <= deadline; ++c) {
          if (brute.fits(c, dur, qnp)) {
            expected = c;
            break;
          }
        }
        ASSERT_EQ(s.has_value(), expected.has_value()) << where << " t0=" << t0;
        if (s) {
          EXPECT_EQ(*s, *expected) << where;
        }
      }
    }
    for (int q = 0; q < 2; ++q) {
      const timestamp from = uniform(-3, horizon + 3);
      const timestamp latest = from + uniform(-1, horizon);
      const duration dur = uniform(0, horizon / 2);
      const int qnp = static_cast<int>(uniform(0, total + 1));
      const auto f = tree.feasible_starts(from, latest, dur, qnp);
      expect_same(f, linear.feasible_starts(from, latest, dur, qnp), where + " feasible_starts");
      if (f) {
        intervals expected;
        for (timestamp c = from; c <= latest; ++c) {
          if (!brute.fits(c, dur, qnp)) continue;
          if (!expected.empty() && expected.back().last == c - 1) {
            expected.back().last = c;
          } else {
            expected.push_back({c, c});
          }
        }
        EXPECT_EQ(*f, expected) << where;
      }
    }
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(AvailabilityProfileProperty, AgreesWithLinearAndBruteForceOnSmallRanges) {
  std::uint64_t seed = 20240601;
  for (int total : {1, 3, 8, 16}) {
    for (int rep = 0; rep < 4; ++rep) {
      run_small_sequence(seed++, total, 1500);
      if (HasFailure()) return;
    }
  }
}

// Larger trees (thousands of change points): the tree against the linear reference only,
// at random points.
TEST(AvailabilityProfileProperty, AgreesWithLinearOnLargeProfiles) {
  constexpr int total = 64;
  constexpr timestamp horizon = 20000;
  std::mt19937_64 rng(7);
  auto uniform = [&rng](std::int64_t a, std::int64_t b) {
    return std::uniform_int_distribution<std::int64_t>(a, b)(rng);
  };
  auto tree = availability_profile::create(total).value();
  auto linear = linear_profile::create(total).value();
  std::vector<allocation> live;
  for (int op = 0; op < 12000; ++op) {
    const std::string where = "op " + std::to_string(op);
    if (uniform(0, 3) != 0 || live.empty()) {
      const timestamp a = uniform(0, horizon - 1);
      const timestamp b = a + uniform(1, 500);
      const int np = static_cast<int>(uniform(1, 24));
      const auto st = tree.add(a, b, np);
      expect_same(st, linear.add(a, b, np), where + " add");
      if (st) live.push_back({a, b, np});
    } else {
      const auto i =
          static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(live.size()) - 1));
      const auto st = tree.remove(live[i].start, live[i].end, live[i].np);
      ASSERT_TRUE(st) << where << " " << st.err().message;
      ASSERT_TRUE(linear.remove(live[i].start, live[i].end, live[i].np)) << where;
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    }
    ASSERT_EQ(tree.change_points(), linear.change_points()) << where;
    const timestamp t = uniform(-1, horizon + 600);
    const int free = tree.free_at(t);
    ASSERT_GE(free, 0);
    ASSERT_LE(free, total);
    ASSERT_EQ(free, linear.free_at(t)) << where;
    const timestamp x = uniform(0, horizon);
    const timestamp y = x + uniform(1, 2000);
    expect_same(tree.min_free(x, y), linear.min_free(x, y), where + " min_free");
    const int want = static_cast<int>(uniform(1, total));
    ASSERT_EQ(tree.fits(x, y, want), *linear.min_free(x, y) >= want) << where << " fits";
    const timestamp t0 = uniform(0, horizon);
    const duration dur = uniform(1, 3000);
    const int np = static_cast<int>(uniform(1, total));
    const timestamp deadline = uniform(0, 1) ? time_infinity : t0 + uniform(0, 10000);
    expect_same(tree.earliest_start(t0, dur, np, deadline),
                linear.earliest_start(t0, dur, np, deadline), where + " earliest_start");
    if (op % 10 == 0) {
      const timestamp latest = t0 + uniform(0, 5000);
      expect_same(tree.feasible_starts(t0, latest, dur, np),
                  linear.feasible_starts(t0, latest, dur, np), where + " feasible_starts");
    }
    if (HasFailure()) return;
  }
  EXPECT_GT(tree.change_points(), 1000u);  // the trees really were large
}

// A clock that only moves forward (advance_origin): updates may start before the origin and
// count from it on; every query is at or after it. The tree, the linear reference and the
// brute-force array (which clips every update to the origin) must agree, and the past must
// cost no change points.
TEST(AvailabilityProfileProperty, ForgettingThePastKeepsTheFuture) {
  constexpr timestamp horizon = 96;
  for (std::uint64_t seed : {11u, 12u, 13u, 14u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    auto uniform = [&rng](std::int64_t a, std::int64_t b) {
      return std::uniform_int_distribution<std::int64_t>(a, b)(rng);
    };
    const int total = static_cast<int>(uniform(1, 12));
    auto tree = availability_profile::create(total).value();
    auto linear = linear_profile::create(total).value();
    brute_profile brute(total, 0, horizon + 40);
    std::vector<allocation> live;
    timestamp origin = 0;
    for (int op = 0; op < 2000 && origin < horizon; ++op) {
      const std::string where = "op " + std::to_string(op) + " origin " + std::to_string(origin);
      if (uniform(0, 4) == 0) {
        origin += uniform(0, 3);
        tree.advance_origin(origin);
        linear.advance_origin(origin);
        ASSERT_EQ(tree.origin(), origin);
      }
      const timestamp from = std::max<timestamp>(0, origin - 4);
      if (uniform(0, 1) == 0 || live.empty()) {  // add, sometimes from before the origin
        const timestamp a = uniform(from, horizon - 1);
        const timestamp b = std::max(a, origin) + uniform(1, 12);
        const int np = static_cast<int>(uniform(1, total));
        const auto st = tree.add(a, b, np);
        expect_same(st, linear.add(a, b, np), where + " add");
        EXPECT_EQ(st.has_value(), brute.max_used(std::max(a, origin), b) + np <= total) << where;
        if (st) {
          brute.apply(std::max(a, origin), b, np);
          live.push_back({a, b, np});
        }
      } else {  // remove a live allocation, or a slice of one that ends after the origin
        const auto i =
            static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(live.size()) - 1));
        allocation x = live[i];
        if (uniform(0, 3) == 0 && x.end > origin) {
          x.start = uniform(x.start, x.end - 1);
          x.end = uniform(std::max(x.start, origin) + 1, x.end);
          x.np = static_cast<int>(uniform(1, x.np));
        } else {
          live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
        }
        const auto st = tree.remove(x.start, x.end, x.np);
        expect_same(st, linear.remove(x.start, x.end, x.np), where + " remove");
        // An allocation wholly in the past is gone already: removing it changes nothing.
        EXPECT_EQ(st.has_value(),
                  x.end <= origin || brute.min_used(std::max(x.start, origin), x.end) >= x.np)
            << where;
        if (st && x.end > origin) brute.apply(std::max(x.start, origin), x.end, -x.np);
      }
      if (HasFailure()) return;
      ASSERT_EQ(tree.change_points(), linear.change_points()) << where;
      for (timestamp t = origin; t <= horizon + 20; ++t) {
        ASSERT_EQ(tree.free_at(t), total - brute.used_at(t)) << where << " t=" << t;
        ASSERT_EQ(linear.free_at(t), total - brute.used_at(t)) << where << " t=" << t;
      }
      const timestamp x = uniform(origin, horizon + 20), y = x + uniform(1, 20);
      expect_same(tree.min_free(x, y), linear.min_free(x, y), where + " min_free");
      EXPECT_EQ(*tree.min_free(x, y), total - brute.max_used(x, y)) << where;
      const timestamp t0 = origin + uniform(0, 20);
      const duration dur = uniform(1, 30);
      const int np = static_cast<int>(uniform(1, total));
      const auto s = tree.earliest_start(t0, dur, np);
      expect_same(s, linear.earliest_start(t0, dur, np), where + " earliest_start");
      ASSERT_TRUE(s) << where << ": " << s.err().message << " free at t0 " << tree.free_at(t0)
                     << " brute " << total - brute.used_at(t0) << " total " << total;
      EXPECT_TRUE(brute.fits(*s, dur, np)) << where;
      for (timestamp c = t0; c < *s; ++c)
        ASSERT_FALSE(brute.fits(c, dur, np)) << where << " " << c << " fits before " << *s;
      expect_same(tree.feasible_starts(t0, t0 + 30, dur, np),
                  linear.feasible_starts(t0, t0 + 30, dur, np), where + " feasible_starts");
      if (HasFailure()) return;
      // Only the change points after the origin are kept: exactly the times after it at
      // which the level changes.
      std::size_t changes = 0;
      for (timestamp t = origin + 1; t < horizon + 40; ++t)
        changes += brute.used_at(t) != brute.used_at(t - 1) ? 1 : 0;
      ASSERT_EQ(tree.change_points(), changes) << where;
    }
  }
}

}  // namespace
}  // namespace arbroker
