// The schedule of the after_jobs = release policy on its own: one look for all the watched
// reservations, within `every` of the first bind, then every `every` while any is watched.

#include "arbroker/actors/job_end_watch.hpp"

#include <gtest/gtest.h>

#include <map>

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

TEST(job_end_watch, ALookReleasesTheReservationsWhoseJobsHaveAllLeftTheLrms) {
  job_end_watch w(10);
  for (std::uint64_t n : {1, 2, 3, 4, 5})
    w.watch(n, 100);
  // 1: one job queued, one gone; 2: running; 3: both gone; 4: ended meanwhile; 5: forgotten.
  const std::map<std::uint64_t, std::vector<std::string>> jobs = {
      {1, {"a", "b"}}, {2, {"c"}}, {3, {"d", "e"}}};
  const auto job = [](std::string id) {
    lrms_job j;
    j.id = std::move(id);
    return j;
  };
  lrms_snapshot snap;
  snap.queued = {job("a")};
  snap.running = {job("c"), job("x")};
  const auto of = [&](std::uint64_t n) -> const std::vector<std::string>* {
    auto it = jobs.find(n);
    return it == jobs.end() ? nullptr : &it->second;
  };
  EXPECT_EQ(w.look(snap, of, 110), std::vector<std::uint64_t>{3});
  EXPECT_EQ(w.watched(), (std::set<std::uint64_t>{1, 2}));  // 3, 4 and 5 no longer
  EXPECT_EQ(w.next(), 120);
  snap.queued.clear();  // a's done: 1 goes too
  EXPECT_EQ(w.look(snap, of, 120), std::vector<std::uint64_t>{1});
  snap.running.clear();
  EXPECT_EQ(w.look(snap, of, 130), std::vector<std::uint64_t>{2});
  EXPECT_FALSE(w.next());  // nothing left to look at
}

}  // namespace
}  // namespace arbroker
