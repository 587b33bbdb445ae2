// Paper 003, Sec. 3.1: a site either releases a reservation once the jobs bound to it have
// ended or keeps it for its term (job_end_policy).

#include <gtest/gtest.h>

#include "simulated_service.hpp"

namespace arbroker {
namespace {

struct reservation_jobs_test : testing::simulated_service {
  std::string id;  // committed: 8 CPUs over [t0 + 600, t0 + 4200)
  timestamp t0 = now;

  void make(job_end_policy policy) {
    testing::service_setup setup{.journaled = false};  // ended reservations stay in memory
    setup.config.info.cpus = 16;
    setup.config.after_jobs = policy;
    simulated_service::make(std::move(setup));
    auto h = hold(t0 + 600, 3600, 8);
    ASSERT_TRUE(h.error.ok()) << h.error.message;
    id = h.reservation_id;
  }

  reservation_state state() { return svc->query({"alice", id}, now).info.state; }
};

TEST_F(reservation_jobs_test, ReleaseEndsTheReservationWhenItsJobsHaveEnded) {
  make(job_end_policy::release);
  // Two jobs side by side in the reservation's 8 CPUs.
  auto c = svc->commit({"alice", id, {{"short", 4, 600, "run"}}}, now);
  ASSERT_TRUE(c.error.ok()) << c.error.message;
  auto more = svc->bind_job({"alice", id, "second", 4, 900, "run"}, now);
  ASSERT_TRUE(more.error.ok()) << more.error.message;
  // The service asks to be woken to look at the jobs.
  ASSERT_TRUE(svc->next_expiry());
  EXPECT_LE(*svc->next_expiry(), now + 1);
  now = t0 + 600 + 601;  // the first job is done, the second still runs
  svc->sweep(now);
  EXPECT_EQ(state(), reservation_state::active);
  now = t0 + 600 + 901;  // both done
  svc->sweep(now);
  EXPECT_EQ(state(), reservation_state::terminated);
  EXPECT_TRUE(lrms->snapshot()->reservations.empty());  // its CPUs went back
  EXPECT_FALSE(svc->next_expiry());                     // nothing left to look at
  EXPECT_FALSE(svc->bind_job({"alice", id, "late", 1, 60, "run"}, now).error.ok());
}

TEST_F(reservation_jobs_test, KeepLetsMoreJobsRunUntilTheEnd) {
  make(job_end_policy::keep);
  ASSERT_TRUE(svc->commit({"alice", id, {{"short", 8, 600, "run"}}}, now).error.ok());
  EXPECT_FALSE(svc->next_expiry());  // nothing to watch
  now = t0 + 600 + 601;
  svc->sweep(now);
  EXPECT_EQ(state(), reservation_state::active);
  EXPECT_EQ(lrms->snapshot()->reservations.size(), 1u);
  auto again = svc->bind_job({"alice", id, "next", 8, 600, "run"}, now);
  EXPECT_TRUE(again.error.ok()) << again.error.message;
}

TEST_F(reservation_jobs_test, AReservationWithoutJobsIsNotReleasedEarly) {
  make(job_end_policy::release);
  ASSERT_TRUE(svc->commit({"alice", id, {}}, now).error.ok());
  now = t0 + 1200;
  svc->sweep(now);
  EXPECT_EQ(state(), reservation_state::active);
}

// A job bound to a reservation is named in the LRMS as every job the service submits (its
// name_prefix first), so that the service finds it again by name (a grid job's copy after a
// crash) and, at an agent, knows whose it is.
TEST_F(reservation_jobs_test, BoundJobsAreNamedAndFoundAsSubmittedOnes) {
  make(job_end_policy::keep);
  auto c = svc->commit({"alice", id, {{"g7.0", 4, 600, "run"}}}, now);
  ASSERT_TRUE(c.error.ok()) << c.error.message;
  auto b = svc->bind_job({"alice", id, "g8.0", 4, 600, "run"}, now);
  ASSERT_TRUE(b.error.ok()) << b.error.message;
  const auto snap = lrms->snapshot();
  ASSERT_EQ(snap->queued.size() + snap->running.size(), 2u);
  for (const auto* list : {&snap->queued, &snap->running})
    for (const auto& j : *list)
      EXPECT_TRUE(j.name == "arb-g7.0" || j.name == "arb-g8.0") << j.name;
  const auto found = svc->find_jobs({{"g7.0", "g8.0", "g9.0"}}, now);
  ASSERT_TRUE(found.error.ok()) << found.error.message;
  ASSERT_EQ(found.lrms_ids.size(), 3u);
  EXPECT_EQ(found.lrms_ids[1], b.job_id);
  EXPECT_FALSE(found.lrms_ids[0].empty());
  EXPECT_TRUE(found.lrms_ids[2].empty());
}

// Issue 35 item 6 (paper 004, Sec. III-B): one job in a reservation is shown and cancelled alone;
// the reservation and its other job stay; only the owner reaches it; an id that is not one of
// its jobs is not found.
TEST_F(reservation_jobs_test, OneJobIsShownAndCancelledAloneAndTheReservationStays) {
  make(job_end_policy::keep);
  auto c = svc->commit({"alice", id, {{"first", 4, 1200, "run"}, {"second", 4, 1200, "run"}}}, now);
  ASSERT_TRUE(c.error.ok()) << c.error.message;
  ASSERT_EQ(c.jobs.size(), 2u);
  const auto first = c.jobs[0], second = c.jobs[1];
  auto queued = svc->bound_job({"alice", id, first}, now);
  ASSERT_TRUE(queued.error.ok()) << queued.error.message;
  EXPECT_EQ(queued.job.state, observed_state::queued);  // the reservation starts at t0 + 600
  EXPECT_EQ(queued.job.name, "first");
  EXPECT_EQ(queued.job.np, 4);
  EXPECT_EQ(queued.job.walltime, 1200);
  EXPECT_EQ(queued.job.reservation_id, id);
  now = t0 + 700;
  svc->sweep(now);
  auto running = svc->bound_job({"alice", id, first}, now);
  EXPECT_EQ(running.job.state, observed_state::running);
  EXPECT_EQ(running.job.started, t0 + 600);
  auto cancelled = svc->cancel_bound_job({"alice", id, first}, now);
  ASSERT_TRUE(cancelled.error.ok()) << cancelled.error.message;
  EXPECT_EQ(cancelled.job.state, observed_state::cancelled);
  EXPECT_EQ(svc->bound_job({"alice", id, first}, now).job.state, observed_state::cancelled);
  EXPECT_EQ(svc->bound_job({"alice", id, second}, now).job.state, observed_state::running);
  EXPECT_EQ(state(), reservation_state::active);
  const auto snap = lrms->snapshot();
  EXPECT_EQ(snap->running.size(), 1u);
  EXPECT_EQ(snap->reservations.size(), 1u);
  // Cancelling it again changes nothing; the others' and strangers' calls reach nothing.
  EXPECT_EQ(svc->cancel_bound_job({"alice", id, first}, now).job.state, observed_state::cancelled);
  auto stranger = svc->cancel_bound_job({"bob", id, second}, now);
  EXPECT_EQ(stranger.error.err(), errc::not_found);
  auto unknown = svc->bound_job({"alice", id, "J999"}, now);
  EXPECT_EQ(unknown.error.err(), errc::not_found);
  EXPECT_NE(unknown.error.message.find("no job 'J999' in reservation"), std::string::npos)
      << unknown.error.message;
  EXPECT_EQ(svc->bound_job({"alice", id, second}, now).job.state, observed_state::running);
  // Ended, it shows how it ended.
  now = t0 + 600 + 1201;
  svc->sweep(now);
  EXPECT_EQ(svc->bound_job({"alice", id, second}, now).job.state, observed_state::completed);
}

}  // namespace
}  // namespace arbroker
