#include "arbroker/actors/deadline_timer.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace arbroker {
namespace {

TEST(deadline_timer, SetsATimerOnlyWhenTheEarliestDeadlineMovesEarlier) {
  deadline_timer<int> d;
  EXPECT_EQ(d.add(100, 1), 100);           // first: a timer for 100
  EXPECT_EQ(d.add(130, 2), std::nullopt);  // the timer for 100 comes first
  EXPECT_EQ(d.add(90, 3), 90);             // earlier: another timer
  std::vector<int> due;
  // The timer for 90 fires: only 3 is due, and a timer for the next deadline is asked for
  // (a timer set earlier for it may fire as well; it then finds nothing due).
  EXPECT_EQ(d.fire(90, [&](int k) { due.push_back(k); }), 100);
  EXPECT_EQ(due, (std::vector<int>{3}));
  d.remove(100, 1);  // answered before its deadline
  due.clear();
  EXPECT_EQ(d.fire(100, [&](int k) { due.push_back(k); }), 130);
  EXPECT_TRUE(due.empty());
  EXPECT_EQ(d.fire(200, [&](int k) { due.push_back(k); }), std::nullopt);
  EXPECT_EQ(due, (std::vector<int>{2}));
}

}  // namespace
}  // namespace arbroker
