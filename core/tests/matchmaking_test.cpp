#include "arbroker/core/matchmaking.hpp"

#include <gtest/gtest.h>

#include <set>

namespace arbroker {
namespace {

using order = std::vector<std::size_t>;

// A selection window where the policies disagree (index: name):
//        completion zeta util  SED machine (cpu_ref 1000, run_ref 1000)  TTD (in, wait, exec)
// 0: a   500        100  0.5   rate 2000, idle          -> 500 + 0      (0, 100, 400) -> 500
// 1: b   400        0    0.2   rate 1000, 20 of 10 cores x 100 s wall
//                                                       -> 1000 + 200   (0, 50, 350)  -> 400
// 2: c   300        50   0.8   rate 500, idle           -> 2000         (1000, 0, 300)-> 1300
// 3: d   does not meet QoS (never chosen)
std::vector<match_report> window() {
  auto machine = [](double rate, std::vector<int> jobs, duration wall) {
    return sed_machine{"", {rate}, 10, wall, std::move(jobs), 0};
  };
  return {
      {"a", true, 500, 100, 0.5, 1.0, machine(2000, {}, 1000), {0, 100, 400, {}}},
      {"b", true, 400, 0, 0.2, 1.0, machine(1000, {20}, 100), {0, 50, 350, {}}},
      {"c", true, 300, 50, 0.8, 1.0, machine(500, {}, 1000), {1000, 0, 300, {}}},
      {"d", false, 100, 0, 0.0, 1.0, machine(4000, {}, 1000), {0, 0, 100, {}}},
  };
}

const sed_application app{1000, 1000, {}};

order run(match_policy p, std::string_view next_fit = "") {
  std::mt19937_64 rng(7);
  auto w = window();
  auto o = match_order(w, p, app, next_fit, rng);
  EXPECT_TRUE(o) << o.err().message;
  return o ? *o : order{};
}

TEST(Matchmaking, EachPolicyOrdersTheWindowItsOwnWay) {
  EXPECT_EQ(run(match_policy::ff), (order{0, 1, 2}));
  EXPECT_EQ(run(match_policy::imct), (order{2, 1, 0}));  // 300 < 400 < 500
  EXPECT_EQ(run(match_policy::minu), (order{1, 0, 2}));  // 0.2 < 0.5 < 0.8
  EXPECT_EQ(run(match_policy::maxu), (order{2, 0, 1}));  // 0.8 > 0.5 > 0.2
  EXPECT_EQ(run(match_policy::mli), (order{1, 2, 0}));   // zeta 0 < 50 < 100
  EXPECT_EQ(run(match_policy::sed), (order{0, 1, 2}));   // 500 < 1200 < 2000
  EXPECT_EQ(run(match_policy::ttd), (order{1, 0, 2}));   // 400 < 500 < 1300
}

TEST(Matchmaking, NextFitStartsAfterTheLastChoice) {
  EXPECT_EQ(run(match_policy::nf, "a"), (order{1, 2, 0}));
  EXPECT_EQ(run(match_policy::nf, "c"), (order{0, 1, 2}));
  EXPECT_EQ(run(match_policy::nf, "d"), (order{0, 1, 2}));  // d itself is not fit
  EXPECT_EQ(run(match_policy::nf, ""), (order{0, 1, 2}));
  EXPECT_EQ(run(match_policy::nf, "gone"), (order{0, 1, 2}));
}

TEST(Matchmaking, MliBreaksTiesByCompletionThenScalesBySpeed) {
  auto w = window();
  w[0].zeta = 0;  // a and b tie on zeta; b completes first (400 < 500)
  std::mt19937_64 rng(1);
  EXPECT_EQ(*match_order(w, match_policy::mli, app, "", rng), (order{1, 0, 2}));
  w[1].relative_speed = 2;  // scaled zeta of b stays 0: still first
  w[2].zeta = 10;
  w[0].zeta = 30;
  w[2].relative_speed = 4;  // c: 40 > a: 30
  EXPECT_EQ(*match_order(w, match_policy::mli, app, "", rng), (order{1, 0, 2}));
}

TEST(Matchmaking, RandomIsSeededAndOnlyPicksFitClusters) {
  auto w = window();
  std::mt19937_64 r1(42), r2(42);
  std::set<std::size_t> firsts;
  for (int i = 0; i < 100; ++i) {
    auto o1 = *match_order(w, match_policy::ran, app, "", r1);
    auto o2 = *match_order(w, match_policy::ran, app, "", r2);
    EXPECT_EQ(o1, o2);
    auto sorted = o1;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (order{0, 1, 2}));
    firsts.insert(o1.front());
  }
  EXPECT_EQ(firsts.size(), 3u);  // every fit cluster comes first sometimes
}

TEST(Matchmaking, NamesAndErrors) {
  for (auto name : {"ran", "ff", "nf", "imct", "minu", "maxu", "mli", "sed", "ttd"}) {
    auto p = parse_match_policy(name);
    ASSERT_TRUE(p) << name;
    EXPECT_EQ(to_string(*p), name);
  }
  auto bad = parse_match_policy("best");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.err().code, errc::invalid_parameter);
  EXPECT_NE(bad.err().message.find("'best'"), std::string::npos);
  EXPECT_NE(bad.err().message.find("mli"), std::string::npos);
  EXPECT_FALSE(parse_match_policy("MLI"));

  std::mt19937_64 rng(1);
  auto w = window();
  for (auto& r : w)
    r.meets_qos = false;
  EXPECT_EQ(match_order(w, match_policy::ff, app, "", rng).err().code, errc::infeasible);
  w = window();
  w[1].name = "a";
  EXPECT_EQ(match_order(w, match_policy::ff, app, "", rng).err().code, errc::invalid_parameter);
  w = window();
  w[0].machine.available_cores = 0;  // SED passes the core function's error on
  EXPECT_FALSE(match_order(w, match_policy::sed, app, "", rng));
}

}  // namespace
}  // namespace arbroker
