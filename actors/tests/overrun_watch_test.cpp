// The overrun policy's schedule on its own: when it looks, and which looks still count.

#include "arbroker/actors/overrun_watch.hpp"

#include <gtest/gtest.h>

namespace arbroker {
namespace {

using verdict = overrun_watch::verdict;
using look = std::pair<timestamp, std::uint64_t>;

TEST(overrun_watch, LooksNoticeBeforeTheEndInTimeOrder) {
  overrun_watch w(600, 60);
  w.watch(1, 5000);
  w.watch(2, 3000);
  EXPECT_EQ(w.next(), 2940);
  EXPECT_FALSE(w.take_due(2939));
  EXPECT_EQ(w.take_due(5000), look(2940, 2));
  EXPECT_EQ(w.take_due(5000), look(4940, 1));
  EXPECT_FALSE(w.take_due(5000));
  EXPECT_FALSE(w.next());
}

TEST(overrun_watch, OffWithoutAQuantum) {
  overrun_watch w(0, 60);
  w.watch(1, 5000);
  EXPECT_FALSE(w.on());
  EXPECT_FALSE(w.next());
}

TEST(overrun_watch, OnlyALookForTheCurrentEndOfAnActiveReservationCounts) {
  const overrun_watch w(600, 60);
  // [1000, 2000): the look for this end is at 1940.
  EXPECT_EQ(w.what_now(1940, reservation_state::active, 1000, 2000), verdict::look);
  EXPECT_EQ(w.what_now(1999, reservation_state::active, 1000, 2000), verdict::look);
  // Asked for an older end (it moved or was extended since), or at or after the end.
  EXPECT_EQ(w.what_now(1500, reservation_state::active, 1000, 2000), verdict::stale);
  EXPECT_EQ(w.what_now(2000, reservation_state::active, 1000, 2000), verdict::stale);
  // Ended or withdrawn meanwhile.
  EXPECT_EQ(w.what_now(1940, reservation_state::completed, 1000, 2000), verdict::stale);
  EXPECT_EQ(w.what_now(1940, reservation_state::cancelled, 1000, 2000), verdict::stale);
  // Shorter than the notice, not started yet: at its start instead.
  EXPECT_EQ(w.what_now(1970, reservation_state::committed, 1980, 2000), verdict::at_start);
}

TEST(overrun_watch, ALookAskedAgainComesDueAgain) {
  overrun_watch w(600, 60);
  w.again(7, 100);
  w.again(7, 100);  // (one look: the same request twice)
  EXPECT_EQ(w.take_due(100), look(100, 7));
  EXPECT_FALSE(w.take_due(100));
}

lrms_job job_in(std::string reservation, std::optional<timestamp> started, duration walltime) {
  lrms_job j;
  j.id = "j" + std::to_string(walltime);
  j.np = 1;
  j.walltime = walltime;
  j.started = started;
  j.reservation = std::move(reservation);
  return j;
}

TEST(overrun_watch, AJobOverrunsWhenItsOwnLimitDoesNotStopItBeforeTheEnd) {
  using seen = overrun_watch::jobs_seen;
  lrms_snapshot snap;
  snap.running = {job_in("r1", 1000, 500)};  // ends at 1500
  EXPECT_EQ(overrun_watch::jobs_at_end(snap, "r1", 1600), seen::none);
  EXPECT_EQ(overrun_watch::jobs_at_end(snap, "r1", 1500), seen::overrunning);  // at the end
  EXPECT_EQ(overrun_watch::jobs_at_end(snap, "r1", 1400), seen::overrunning);
  EXPECT_EQ(overrun_watch::jobs_at_end(snap, "r2", 1400), seen::none);  // not its job
  snap.queued = {job_in("r1", std::nullopt, 100)};  // one of it still waits: it may yet
  EXPECT_EQ(overrun_watch::jobs_at_end(snap, "r1", 1600), seen::waiting);
  EXPECT_EQ(overrun_watch::jobs_at_end(snap, "r1", 1400), seen::overrunning);
  snap.queued = {job_in("r2", std::nullopt, 100)};
  EXPECT_EQ(overrun_watch::jobs_at_end(snap, "r1", 1600), seen::none);
}

}  // namespace
}  // namespace arbroker
