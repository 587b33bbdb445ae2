// The schedule of the after_jobs = release policy on its own: one look for all the watched
// reservations, within `every` of the first bind, then every `every` while any is watched.

#include "arbroker/actors/job_end_watch.hpp"

#include <gtest/gtest.h>

namespace arbroker {
namespace {

TEST(job_end_watch, OneLookForAllWithinTheIntervalOfTheFirstBind) {
  job_end_watch w(10);
  EXPECT_FALSE(w.next());  // nothing watched: no look
  w.watch(1, 100);
  w.watch(2, 105);  // does not put the look off
  EXPECT_EQ(w.next(), 110);
  EXPECT_FALSE(w.due(109));
  EXPECT_TRUE(w.due(110));
  w.looked(110);
  EXPECT_EQ(w.next(), 120);
  EXPECT_EQ(w.watched(), (std::set<std::uint64_t>{1, 2}));
}

TEST(job_end_watch, NoLookOnceNothingIsWatched) {
  job_end_watch w(10);
  w.watch(1, 100);
  w.forget(1);
  EXPECT_FALSE(w.next());
  EXPECT_FALSE(w.due(1000));
  w.looked(1000);
  w.watch(3, 2000);  // watched again: within the interval
  EXPECT_EQ(w.next(), 2010);
}

TEST(job_end_watch, AnIntervalBelowOneSecondIsOneSecond) {
  job_end_watch w(0);  // a view refreshed on every call
  w.watch(1, 100);
  EXPECT_EQ(w.next(), 101);
}

}  // namespace
}  // namespace arbroker
