// Paper 002, Sec. 5.3, in a cluster service: jobs still running `overrun_notice` before their
// reservation ends get a quantum more where the CPUs are free (under the site's LJP rule; on
// a laxity cluster movable reservations move for it), at most overrun_max times; otherwise
// they end with their reservation.

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "simulated_service.hpp"

namespace arbroker {
namespace {

constexpr duration quantum = 600;
constexpr duration notice = 60;

struct overrun_options {
  duration quantum = 600;  // the tests' `quantum`
  int max = 4;
  bool laxity = false;
  ljp_policy ljp = ljp_policy::off;
};

struct overrun_test : testing::simulated_service {
  void SetUp() override { make({}); }

  void make(overrun_options o) {
    simulated_service::make([o](cluster_service_config& c) {
      c.ljp = o.ljp;
      c.laxity = o.laxity;
      c.overrun_quantum = o.quantum;
      c.overrun_notice = notice;
      c.overrun_max = o.max;
    });
  }

  // A granted reservation's id (see simulated_service::reserve).
  std::string reserved(timestamp start, duration len, int np, timestamp earliest = 0,
                       timestamp deadline = 0) {
    auto r = reserve(start, len, np, earliest, deadline);
    EXPECT_TRUE(r.error.ok()) << r.error.message;
    return r.reservation_id;
  }

  // A job its user submitted straight into the reservation (as `sbatch --reservation`),
  // with a walltime to the reservation's end and a real runtime of `runs`.
  std::string job_in(const std::string& id, int np, duration runs) {
    const auto r = in_lrms(id);
    EXPECT_TRUE(r);
    auto j = lrms->submit_local_job(
        {"overrunner", "alice", np, r->end - std::max(now, r->start), r->id, "", ""}, runs);
    EXPECT_TRUE(j) << to_string(j.err());
    return *j;
  }

  lrms_job_state job_state(const std::string& job) { return *lrms->job_status(job); }

  // The service's timer fires (the actor calls sweep at next_expiry).
  void fire_at(timestamp t) {
    ASSERT_EQ(svc->next_expiry(), t);
    now = t;
    svc->sweep(now);
  }
};

TEST_F(overrun_test, AnOverrunningJobGetsAQuantumAndFinishes) {
  const timestamp start = now + 100, end = start + 3600;
  const auto id = reserved(start, 3600, 32);
  now = start;
  const auto job = job_in(id, 32, 3600 + 400);  // 400 s more than it said
  const double cost = info(id).cost;
  fire_at(end - notice);
  const auto extended = info(id);
  EXPECT_EQ(extended.end, end + quantum);
  EXPECT_EQ(extended.state, reservation_state::active);
  EXPECT_EQ(in_lrms(id)->end, end + quantum);          // in place: same LRMS id
  EXPECT_EQ(journal->rows.at(id).end, end + quantum);  // and durable
  EXPECT_GT(extended.cost, cost);                      // the quantum is charged
  EXPECT_EQ(svc->status_report({}, now).overruns, 1);
  now = end;
  svc->sweep(now);
  EXPECT_EQ(job_state(job), lrms_job_state::running);  // not killed at the old end
  now = start + 4000;
  EXPECT_EQ(job_state(job), lrms_job_state::completed);
  // The next look finds nothing running: no second quantum; the reservation ends on time.
  fire_at(end + quantum - notice);
  EXPECT_EQ(info(id).end, end + quantum);
  EXPECT_EQ(svc->status_report({}, now).overruns, 1);
  EXPECT_EQ(svc->status_report({}, now).overruns_refused, 0);
  now = end + quantum;
  EXPECT_EQ(info(id).state, reservation_state::completed);
}

TEST_F(overrun_test, AJobThatEndsInTimeGetsNothing) {
  const timestamp start = now + 100, end = start + 3600;
  const auto id = reserved(start, 3600, 32);
  now = start;
  const auto job = job_in(id, 32, 3000);
  fire_at(end - notice);
  EXPECT_EQ(job_state(job), lrms_job_state::completed);
  EXPECT_EQ(info(id).end, end);
  EXPECT_EQ(svc->status_report({}, now).overruns, 0);
  EXPECT_EQ(svc->next_expiry(), std::nullopt);
}

// A job that starts late in its reservation (behind another of its jobs here; under a busy
// LRMS, late by itself) is still looked at: while one waits, the service looks each second.
TEST_F(overrun_test, AJobThatStartsAfterTheLookIsStillSeen) {
  const timestamp start = now + 100, end = start + 3600;
  const auto id = reserved(start, 3600, 32);
  now = start;
  const auto r = in_lrms(id);
  ASSERT_TRUE(r);
  // The first ends 30 s before the end (no overrun); the second waits for its CPUs until then.
  ASSERT_TRUE(lrms->submit_local_job({"first", "alice", 32, 3570, r->id, "", ""}, 3570));
  const auto late = lrms->submit_local_job({"late", "alice", 32, 3600, r->id, "", ""}, 3700);
  ASSERT_TRUE(late);
  fire_at(end - notice);
  EXPECT_EQ(info(id).end, end);  // nothing overruns yet
  EXPECT_EQ(job_state(*late), lrms_job_state::queued);
  while (info(id).end == end && svc->next_expiry() && *svc->next_expiry() < end)
    fire_at(*svc->next_expiry());
  EXPECT_EQ(now, start + 3570);  // looked at each second until the late job ran
  EXPECT_EQ(info(id).end, end + quantum);
  EXPECT_EQ(svc->status_report({}, now).overruns, 1);
}

TEST_F(overrun_test, NoQuantumWhereAnotherReservationFollows) {
  const timestamp start = now + 100, end = start + 3600;
  const auto id = reserved(start, 3600, 64);
  const auto next = reserved(end, 3600, 64);
  now = start;
  const auto job = job_in(id, 64, 3600 + 400);
  fire_at(end - notice);
  EXPECT_EQ(info(id).end, end);
  EXPECT_EQ(info(next).start, end);  // rigid: it keeps its terms
  EXPECT_EQ(svc->status_report({}, now).overruns_refused, 1);
  now = end;
  EXPECT_EQ(job_state(job), lrms_job_state::failed);  // aborted, as the paper says
}

TEST_F(overrun_test, OnALaxityClusterAMovableReservationMakesRoom) {
  make({.laxity = true});
  const timestamp start = now + 100, end = start + 3600;
  const auto id = reserved(start, 3600, 64);
  const auto next = reserved(end, 3600, 64, now, end + 20'000);  // movable
  now = start;
  const auto job = job_in(id, 64, 3600 + 400);
  fire_at(end - notice);
  EXPECT_EQ(info(id).end, end + quantum);
  const auto moved = info(next);
  EXPECT_EQ(moved.start, end + quantum);  // pushed back within its window
  EXPECT_LE(moved.end, moved.deadline);
  EXPECT_EQ(in_lrms(next)->start, end + quantum);
  const auto s = svc->status_report({}, now);
  EXPECT_EQ(s.overruns, 1);
  EXPECT_EQ(s.moves, 1);
  now = start + 4000;
  EXPECT_EQ(job_state(job), lrms_job_state::completed);
}

TEST_F(overrun_test, AtMostOverrunMaxQuanta) {
  make({.max = 2});
  const timestamp start = now + 100, end = start + 3600;
  const auto id = reserved(start, 3600, 16);
  now = start;
  const auto job = job_in(id, 16, 10 * 3600);
  fire_at(end - notice);
  fire_at(end + quantum - notice);
  EXPECT_EQ(info(id).end, end + 2 * quantum);
  fire_at(end + 2 * quantum - notice);  // a third: refused
  EXPECT_EQ(info(id).end, end + 2 * quantum);
  const auto s = svc->status_report({}, now);
  EXPECT_EQ(s.overruns, 2);
  EXPECT_EQ(s.overruns_refused, 1);
  now = end + 2 * quantum;
  EXPECT_EQ(job_state(job), lrms_job_state::failed);
}

TEST_F(overrun_test, LocalJobsPreferredKeepsQueuedJobsFromBeingPostponed) {
  make({.ljp = ljp_policy::enforce});
  const timestamp start = now + 100, end = start + 3600;
  const auto id = reserved(start, 3600, 64);
  now = start;
  const auto job = job_in(id, 64, 3600 + 400);
  // A local job waits for the whole cluster: its planned start is the reservation's end.
  const auto local = *lrms->submit_job({"local", "bob", 64, 3600, {}, "", ""});
  fire_at(end - notice);
  EXPECT_EQ(info(id).end, end);
  EXPECT_EQ(svc->status_report({}, now).overruns_refused, 1);
  now = end;
  EXPECT_EQ(job_state(job), lrms_job_state::failed);
  EXPECT_EQ(job_state(local), lrms_job_state::running);  // started when it was planned to
}

TEST_F(overrun_test, OffUnlessAQuantumIsConfigured) {
  make({.quantum = 0});
  const timestamp start = now + 100, end = start + 3600;
  const auto id = reserved(start, 3600, 32);
  now = start;
  const auto job = job_in(id, 32, 3600 + 400);
  EXPECT_EQ(svc->next_expiry(), std::nullopt);
  now = end;
  svc->sweep(now);
  EXPECT_EQ(job_state(job), lrms_job_state::failed);
  EXPECT_EQ(info(id).state, reservation_state::completed);
}

// A hold whose overrun look and expiry come due in one sweep (a late timer) is deleted from the
// LRMS: the look must not advance it to expired behind the sweep's back, which then saw no
// hold to delete and left its CPUs held in the LRMS until the reservation's end.
TEST_F(overrun_test, AHoldExpiringInTheSweepOfItsLookLeavesTheLrms) {
  const auto r = svc->prepare({.txn = "late-timer",
                               .owner = "alice",
                               .start = now + 10,
                               .end = now + 70,  // its look is due at now + 10
                               .np = 32,
                               .expiry = now + 100},
                              now);
  ASSERT_TRUE(r.error.ok()) << r.error.message;
  ASSERT_TRUE(in_lrms(r.reservation_id));
  now += 100;
  svc->sweep(now);  // (no sweep at the look's time)
  EXPECT_FALSE(in_lrms(r.reservation_id));
  EXPECT_EQ(info(r.reservation_id).state, reservation_state::expired);
  EXPECT_EQ(svc->status_report({}, now).expiries, 1);
}

TEST_F(overrun_test, BadSettingsAreRefused) {
  const std::vector<std::tuple<duration, duration, int>> bad = {
      {-1, 60, 4}, {600, 0, 4}, {600, 60, -1}};
  for (auto [q, n, m] : bad) {
    auto l = simulated_lrms::create({"c1", 64, {1, {}}, [this] { return now; }});
    cluster_service_config cfg;
    cfg.info.name = "c1";
    cfg.info.cpus = 64;
    cfg.overrun_quantum = q;
    cfg.overrun_notice = n;
    cfg.overrun_max = m;
    auto s = cluster_service::create(std::move(cfg), std::move(*l));
    ASSERT_FALSE(s);
    EXPECT_EQ(s.err().code, errc::invalid_parameter);
    EXPECT_NE(s.err().message.find("overrun"), std::string::npos) << s.err().message;
  }
}

}  // namespace
}  // namespace arbroker
