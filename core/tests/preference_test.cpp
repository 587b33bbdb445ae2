#include "arbroker/core/preference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace arbroker {
namespace {

candidate c(std::string_view site, timestamp s, timestamp e, int np, double cost) {
  return {std::move(site), s, e, np, {cost, std::nullopt}};
}

// The eight candidates of paper 000, Fig. 5, as <site, start, end, np, costs>.
std::vector<candidate> figure5() {
  return {c("A", 0, 4, 8, 10), c("A", 1, 4, 16, 15), c("A", 2, 6, 8, 9), c("A", 3, 6, 16, 13),
          c("B", 1, 4, 8, 12), c("B", 2, 4, 16, 16), c("B", 3, 6, 8, 8), c("B", 4, 6, 16, 8)};
}

TEST(PreferenceTree, Figure5EndThenNpThenCost) {
  auto prefs = *parse_preferences("end,np,cost");
  // Level 1 splits by end {4: #0 #1 #4 #5} {6: #2 #3 #6 #7}; level 2 by np, level 3 by cost:
  // end 4, np 8:  #0 (10) #4 (12);  end 4, np 16: #1 (15) #5 (16)
  // end 6, np 8:  #6 (8)  #2 (9);   end 6, np 16: #7 (8)  #3 (13)
  auto order = preference_order(figure5(), prefs);
  ASSERT_TRUE(order) << to_string(order.err());
  EXPECT_EQ(*order, (std::vector<std::size_t>{0, 4, 1, 5, 6, 2, 7, 3}));
  // every leaf is a single candidate here: no two agree on all three objectives
  auto leaves = *preference_leaves(figure5(), prefs);
  EXPECT_EQ(leaves.size(), 8u);
}

TEST(PreferenceTree, TiesFormLeafSetsInInputOrder) {
  auto cands = figure5();
  auto leaves = preference_leaves(cands, *parse_preferences("end"));
  ASSERT_TRUE(leaves);
  ASSERT_EQ(leaves->size(), 2u);
  EXPECT_EQ((*leaves)[0], (std::vector<std::size_t>{0, 1, 4, 5}));
  EXPECT_EQ((*leaves)[1], (std::vector<std::size_t>{2, 3, 6, 7}));
  // cost 8 is shared by #6 and #7 at end 6
  auto by_cost = *preference_leaves(cands, *parse_preferences("cost,end"));
  EXPECT_EQ(by_cost[0], (std::vector<std::size_t>{6, 7}));
}

TEST(PreferenceTree, DescendingAndOtherAttributes) {
  auto cands = figure5();
  cands[2].props.esr = 0.9;
  for (auto& x : cands)
    if (!x.props.esr) x.props.esr = 0.5;
  auto order = *preference_order(cands, *parse_preferences("-esr,-np,site,start"));
  EXPECT_EQ(order.front(), 2u);  // highest esr first
  // then esr 0.5 with np 16 before np 8, site A before B, earlier start first
  EXPECT_EQ(std::vector<std::size_t>(order.begin() + 1, order.end()),
            (std::vector<std::size_t>{1, 3, 5, 7, 0, 4, 6}));
  auto by_length = *preference_order(cands, *parse_preferences("duration,start"));
  // lengths: #0 4, #1 3, #2 4, #3 3, #4 3, #5 2, #6 3, #7 2
  EXPECT_EQ(by_length, (std::vector<std::size_t>{5, 7, 1, 4, 3, 6, 0, 2}));
}

TEST(PreferenceTree, MissingPropertyIsAnError) {
  auto cands = figure5();
  auto r = preference_order(cands, *parse_preferences("end,esr"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::invalid_parameter);
  cands[3].props.cost = std::nan("");
  EXPECT_FALSE(preference_order(cands, *parse_preferences("cost")));
}

TEST(PreferenceParse, RoundTripAndErrors) {
  auto p = parse_preferences(" end , +cost,-esr");
  ASSERT_TRUE(p);
  ASSERT_EQ(p->size(), 3u);
  EXPECT_EQ((*p)[2], (objective{objective_attribute::esr, true}));
  EXPECT_EQ(to_string(*p), "end,cost,-esr");
  for (const char* bad : {"", "end,", ",end", "end,,cost", "fastest", "end,-end", "-"}) {
    auto r = parse_preferences(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.err().code, errc::invalid_parameter) << bad;
  }
}

TEST(PreferenceOrder, LimitedOrderIsThePrefixOfTheLeavesFlattened) {
  // Many ties (few distinct values), so that the order within leaves matters.
  std::mt19937 rng(7);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  for (int round = 0; round < 200; ++round) {
    std::vector<candidate> cands;
    const int n = 1 + pick(40);
    for (int i = 0; i < n; ++i) {
      const timestamp start = pick(4);
      cands.push_back(c(pick(2) ? "A" : "B", start, start + 1 + pick(3), 4 * (1 + pick(2)),
                        static_cast<double>(pick(3))));
    }
    const auto prefs = *parse_preferences(round % 2 ? "end,cost" : "cost,-np,site");
    std::vector<std::size_t> flat;
    const auto leaves = preference_leaves(cands, prefs);
    ASSERT_TRUE(leaves);
    for (const auto& leaf : *leaves)
      flat.insert(flat.end(), leaf.begin(), leaf.end());
    ASSERT_EQ(*preference_order(cands, prefs), flat);
    const std::size_t limit = static_cast<std::size_t>(pick(n + 2));
    auto first = *preference_order(cands, prefs, limit);
    ASSERT_EQ(first.size(), std::min(limit, flat.size()));
    EXPECT_TRUE(std::equal(first.begin(), first.end(), flat.begin())) << "round " << round;
  }
}

TEST(SlotKey, OrdersOneSitesCandidatesAsTheSlotPrefixDoes) {
  std::mt19937 rng(11);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  for (const char* text : {"end", "start,np", "-np,duration", "duration,-end,site,start",
                           "site,-start,np,-duration", "np,-end"}) {
    const auto prefix = slot_prefix(*parse_preferences(text));
    for (int i = 0; i < 500; ++i) {
      const timestamp s1 = pick(5), s2 = pick(5);
      const candidate a{"A", s1, s1 + 1 + pick(4), 1 + pick(3), {}};
      const candidate b{"A", s2, s2 + 1 + pick(4), 1 + pick(3), {}};
      const int want = compare_candidates(a, b, prefix);
      const auto got = slot_key_of(a, prefix) <=> slot_key_of(b, prefix);
      EXPECT_EQ(want < 0, got < 0) << text;
      EXPECT_EQ(want == 0, got == 0) << text;
    }
  }
}

TEST(SlotValue, SmallerIsBetterUnderOneSlotObjectiveAndNoneForComputedOnes) {
  const candidate a = c("A", 10, 40, 4, 2.0), b = c("A", 20, 30, 8, 1.0);
  for (const char* text :
       {"end", "-end", "start", "-start", "np", "-np", "duration", "-duration"}) {
    const auto o = parse_preferences(text)->front();
    const int want = compare_candidates(a, b, {o});
    ASSERT_NE(want, 0) << text;
    EXPECT_EQ(want < 0, *slot_value(a, o) < *slot_value(b, o)) << text;
  }
  for (const char* text : {"site", "cost", "esr"})
    EXPECT_FALSE(slot_value(a, parse_preferences(text)->front())) << text;
}

}  // namespace
}  // namespace arbroker
