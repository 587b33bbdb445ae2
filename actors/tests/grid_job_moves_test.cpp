// Reserve jobs moved to an earlier reservation elsewhere (issue 35 item 7, make-before-break:
// grid_job_reserve.cpp start_move) on the deterministic engine.

#include "grid_jobs_fixture.hpp"

namespace arbroker::testing {
namespace {

std::string history_of(const msg::grid_job_info& j) {
  std::string all;
  for (const auto& e : j.history)
    all += e.what + " | ";
  return all;
}

bool says(const msg::grid_job_info& j, const std::string& what) {
  return history_of(j).find(what) != std::string::npos;
}

class grid_job_moves_test : public grid_jobs_test {
 public:
  // A reserve job held at a (busy until 1000 s) while b says it is busy until 2000 s but
  // frees up after 200 s.
  msg::grid_job_info reserved_at_a(msg::grid_submit_request r) {
    busy("a", 8, 1000, 1000);
    busy("b", 8, 2000, 200);
    start_manager();
    auto j = submit(r);
    EXPECT_EQ(j.copies.size(), 1u);
    EXPECT_EQ(j.copies.at(0).cluster, "a");
    EXPECT_EQ(j.reservation.substr(0, 2), "a/");
    return j;
  }

  msg::grid_submit_request reserve_job() {
    auto r = job(grid_strategy::reserve, 8, 100);
    r.width = 1;
    return r;
  }

  reservation_state state_of(const std::string& reservation) {
    const auto at = reservation.substr(0, reservation.rfind('/'));
    auto q = ask<msg::query_reply>(services.at(at), msg::query_request{"alice", reservation});
    EXPECT_TRUE(q.error.ok()) << q.error.message;
    return q.info.state;
  }
};

// The new reservation is committed and the job queued in it before the old copy is withdrawn;
// the old reservation is released only then. The job runs once, where it moved to.
TEST_F(grid_job_moves_test, AReservedJobMovesToAnEarlierReservationElsewhereAndRunsOnceThere) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  auto j = reserved_at_a(reserve_job());
  const auto old = j.reservation;
  adapt();  // b still says 2000 s: nothing better
  EXPECT_EQ(show(j.id).copies.size(), 1u);
  EXPECT_EQ(lrms_reservations("b"), 0u);
  advance(200);
  adapt();
  auto s = show(j.id);
  ASSERT_EQ(s.copies.size(), 2u) << history_of(s);
  EXPECT_EQ(s.copies[1].cluster, "b");
  EXPECT_EQ(s.copies[1].state, copy_state::queued);
  EXPECT_EQ(s.copies[0].state, copy_state::cancelled);
  EXPECT_EQ(s.reservation.substr(0, 2), "b/") << history_of(s);
  EXPECT_EQ(s.migrations, 1);
  EXPECT_TRUE(says(s, "moved to reservation " + s.reservation)) << history_of(s);
  // a: the old reservation cancelled, no job of ours; b: the new one committed, the job in it.
  EXPECT_EQ(state_of(old), reservation_state::cancelled);
  EXPECT_EQ(lrms_reservations("a"), 0u);
  EXPECT_EQ(ours_in("a"), 0u);
  EXPECT_EQ(state_of(s.reservation), reservation_state::committed);
  EXPECT_EQ(ours_in("b"), 1u);
  // It finishes 795 s earlier: 800 s of a's wait left, against b's hold 5 s ahead.
  EXPECT_EQ(s.migration_gain, 795);
  advance(5);
  poll();
  s = show(j.id);
  EXPECT_EQ(s.state, grid_job_state::running);
  EXPECT_EQ(s.copies.at(static_cast<std::size_t>(s.winner)).cluster, "b");
  adapt();  // running: it stays
  advance(100);
  poll();
  s = show(j.id);
  EXPECT_EQ(s.state, grid_job_state::completed) << history_of(s);
  EXPECT_EQ(s.copies.size(), 2u);
  EXPECT_EQ(s.duplicate_starts, 0);
}

// A gain of at most min_gain, or max_migrations 0, keeps the job in its reservation: no hold
// is even asked for.
TEST_F(grid_job_moves_test, MinGainAndMaxMigrationsKeepAReservedJobWhereItIs) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000);
  auto r = reserve_job();
  r.min_gain = 795;
  auto j = reserved_at_a(r);
  auto r2 = reserve_job();
  r2.max_migrations = 0;
  auto j2 = submit(r2);
  ASSERT_EQ(show(j2.id).copies.at(0).cluster, "a");
  advance(200);
  adapt();
  for (const auto& id : {j.id, j2.id}) {
    auto s = show(id);
    EXPECT_EQ(s.copies.size(), 1u) << history_of(s);
    EXPECT_EQ(s.reservation.substr(0, 2), "a/");
  }
  EXPECT_EQ(lrms_reservations("b"), 0u);
}

// The cluster it would move to grants no hold: the job stays in its reservation, and its
// history says why it did not move.
TEST_F(grid_job_moves_test, AReservedJobWhoseMoveFindsNoHoldStaysInItsReservation) {
  add_cluster("a", 8, 1000);
  add_cluster("b", 8, 1000, 1, 1.0, [](msg::cluster_info& c) { c.max_hold = 30; });
  auto j = reserved_at_a(reserve_job());
  advance(200);
  adapt();
  auto s = show(j.id);
  EXPECT_EQ(s.copies.size(), 1u);
  EXPECT_EQ(s.reservation, j.reservation);
  EXPECT_EQ(state_of(j.reservation), reservation_state::committed);
  EXPECT_TRUE(says(s, "no move: ")) << history_of(s);
  EXPECT_EQ(lrms_reservations("b"), 0u);
  advance(800);
  poll();
  EXPECT_EQ(show(j.id).state, grid_job_state::running);
}

// The node was killed after a move's new reservation was committed and before the job was
// in it: the obligation to let it go is in the store with the job, so the restarted manager
// cancels it and the job keeps the reservation it had.
TEST_F(grid_job_moves_test, AMovesCommittedReservationIsReleasedAfterARestart) {
  use_memory_store();
  add_cluster("a", 8, 1000);
  auto made = ask<msg::elastic_reply>(broker, elastic(600, 3600, 8, 8, 600, 8));
  ASSERT_TRUE(made.error.ok()) << made.error.message;
  msg::grid_job_record rec;
  rec.request = reserve_job();
  rec.job.id = "n/g1";
  rec.job.owner = "alice";
  rec.job.spec = {"sim", "./run", 8, 100, grid_strategy::reserve, 1, 0, -1};
  rec.job.submitted = now;
  rec.job.releasing = {made.reservation.id};
  (void)rec.job.cancel(now);  // no copy: ended, but not done with until the release is
  ASSERT_TRUE(rec.job.active());
  ASSERT_TRUE(journal->save_grid_job({"n/g1", "alice", true, msg::encode_record(rec)}));
  start_manager();
  poll();
  EXPECT_EQ(state_of(made.reservation.id), reservation_state::cancelled);
  auto stored = journal->find_grid_job("n/g1");
  ASSERT_TRUE(stored && *stored);
  EXPECT_TRUE(msg::decode_record((*stored)->body)->job.releasing.empty());
  auto rows = journal->grid_jobs();
  ASSERT_TRUE(rows);
  EXPECT_TRUE(rows->empty());  // nothing left to do after the next restart
}

}  // namespace
}  // namespace arbroker::testing
