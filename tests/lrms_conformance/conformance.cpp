#include "conformance.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <thread>

namespace arbroker::conformance {
namespace {

timestamp wall_now() {
  return static_cast<timestamp>(std::time(nullptr));
}

const lrms_reservation* listed(const lrms_snapshot& s, const std::string& id) {
  auto it = std::find_if(s.reservations.begin(), s.reservations.end(),
                         [&](const lrms_reservation& r) { return r.id == id; });
  return it == s.reservations.end() ? nullptr : &*it;
}

const lrms_job* running(const lrms_snapshot& s, const std::string& id) {
  auto it = std::find_if(s.running.begin(), s.running.end(),
                         [&](const lrms_job& j) { return j.id == id; });
  return it == s.running.end() ? nullptr : &*it;
}

}  // namespace

std::string name_of(const ::testing::TestParamInfo<lrms_under_test>& info) {
  return info.param.name;
}

void PrintTo(const lrms_under_test& t, std::ostream* os) {
  *os << t.name;
}

void lrms_conformance::SetUp() {
  l = under_test().make();
  ASSERT_TRUE(l);
  // The previous case's cancelled jobs may take the LRMS a moment to clear away.
  auto s = l->snapshot();
  (void)eventually([&] {
    s = l->snapshot();
    return !s || (s->running.empty() && s->queued.empty());
  });
  ASSERT_TRUE(s) << s.err().message;
  ASSERT_EQ(s->cpus, under_test().cpus);
  ASSERT_TRUE(s->running.empty() && s->queued.empty()) << "the cluster is not idle";
}

void lrms_conformance::TearDown() {
  if (!l) return;
  for (const auto& j : jobs)
    (void)l->cancel_job(j);
  for (const auto& r : reservations)
    (void)l->delete_reservation(r);
}

result<std::string> lrms_conformance::reserve(timestamp start, duration length, int np) {
  auto id = l->create_reservation({"", under_test().owner, start, length, np});
  if (id) reservations.push_back(*id);
  return id;
}

result<std::string> lrms_conformance::submit(int np, duration walltime,
                                             std::optional<std::string> in) {
  job_spec j;
  j.name = "arb-conformance";
  j.owner = under_test().owner;
  j.np = np;
  j.walltime = walltime;
  j.reservation = std::move(in);
  j.command = "sleep " + std::to_string(walltime);
  auto id = l->submit_job(j);
  if (id) jobs.push_back(*id);
  return id;
}

bool lrms_conformance::eventually(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + under_test().dispatch_limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return true;
}

bool lrms_conformance::becomes(const std::string& job, lrms_job_state want) {
  return eventually([&] {
    auto st = l->job_status(job);
    return st && *st == want;
  });
}

// What was asked is what is listed, to the second; a delete removes it, a second delete
// finds nothing.
TEST_P(lrms_conformance, AReservationIsListedWithItsTermsAndGoesWithItsDelete) {
  const timestamp start = wall_now() + 3600;
  auto id = reserve(start, 600, 2);
  ASSERT_TRUE(id) << id.err().message;
  auto s = l->snapshot();
  ASSERT_TRUE(s) << s.err().message;
  const auto* r = listed(*s, *id);
  ASSERT_NE(r, nullptr) << *id << " is not listed";
  EXPECT_EQ(r->start, start);
  EXPECT_EQ(r->end, start + 600);
  EXPECT_EQ(r->np, 2);
  EXPECT_EQ(r->owner, under_test().owner);
  ASSERT_TRUE(l->delete_reservation(*id));
  s = l->snapshot();
  ASSERT_TRUE(s) << s.err().message;
  EXPECT_EQ(listed(*s, *id), nullptr);
  auto again = l->delete_reservation(*id);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.err().code, errc::not_found) << again.err().message;
}

// Intervals are half-open: two reservations of every CPU meet end to start; a third that
// overlaps both is refused as busy, and nothing of it is left.
TEST_P(lrms_conformance, ReservationsMeetEndToStartAndNeverOverbook) {
  const int n = under_test().cpus;
  const timestamp t = wall_now() + 3600;
  auto a = reserve(t, 600, n);
  ASSERT_TRUE(a) << a.err().message;
  auto b = reserve(t + 600, 600, n);
  ASSERT_TRUE(b) << b.err().message;
  auto c = reserve(t + 300, 600, 1);
  ASSERT_FALSE(c) << "overbooked with " << *c;
  EXPECT_EQ(c.err().code, errc::busy) << c.err().message;
  auto s = l->snapshot();
  ASSERT_TRUE(s) << s.err().message;
  EXPECT_EQ(s->reservations.size(), 2u);
}

// More CPUs than the cluster has, or a start long past: refused, nothing created.
TEST_P(lrms_conformance, WhatCanNeverBeHeldIsRefused) {
  auto too_wide = reserve(wall_now() + 3600, 600, under_test().cpus + 1);
  EXPECT_FALSE(too_wide);
  auto past = reserve(wall_now() - 3600, 600, 1);
  ASSERT_FALSE(past);
  EXPECT_EQ(past.err().code, errc::invalid_window) << past.err().message;
  auto s = l->snapshot();
  ASSERT_TRUE(s) << s.err().message;
  EXPECT_TRUE(s->reservations.empty());
}

// New terms replace the old ones without a moment of neither (make-before-break, maybe under
// a new id); terms the LRMS cannot hold change nothing.
TEST_P(lrms_conformance, AModifyReplacesTheTermsOrChangesNothing) {
  const timestamp t = wall_now() + 3600;
  auto r = reserve(t, 600, 2);
  ASSERT_TRUE(r) << r.err().message;
  const std::string owner = under_test().owner;
  auto m = l->modify_reservation(*r, {"", owner, t + 3600, 900, 3});
  ASSERT_TRUE(m) << m.err().message;
  reservations.push_back(*m);
  auto s = l->snapshot();
  ASSERT_TRUE(s) << s.err().message;
  const auto* now_held = listed(*s, *m);
  ASSERT_NE(now_held, nullptr) << *m << " is not listed";
  EXPECT_EQ(now_held->start, t + 3600);
  EXPECT_EQ(now_held->end, t + 3600 + 900);
  EXPECT_EQ(now_held->np, 3);
  if (*m != *r) {
    EXPECT_EQ(listed(*s, *r), nullptr) << "the old " << *r << " is left";
  }
  EXPECT_EQ(s->reservations.size(), 1u);
  auto blocker = reserve(t + 7200, 600, under_test().cpus);
  ASSERT_TRUE(blocker) << blocker.err().message;
  auto refused = l->modify_reservation(*m, {"", owner, t + 7200, 600, 1});
  ASSERT_FALSE(refused) << "overbooked with " << *refused;
  EXPECT_EQ(refused.err().code, errc::busy) << refused.err().message;
  s = l->snapshot();
  ASSERT_TRUE(s) << s.err().message;
  now_held = listed(*s, *m);
  ASSERT_NE(now_held, nullptr) << "a refused modify lost " << *m;
  EXPECT_EQ(now_held->start, t + 3600);
  EXPECT_EQ(now_held->np, 3);
}

// A job bound to a reservation runs in it once it starts, is listed as bound to it, and
// ends when cancelled.
TEST_P(lrms_conformance, AJobBoundToAReservationRunsInItUntilCancelled) {
  auto r = reserve(wall_now() + 2, 600, 2);
  ASSERT_TRUE(r) << r.err().message;
  auto j = submit(2, 300, *r);
  ASSERT_TRUE(j) << j.err().message;
  ASSERT_TRUE(becomes(*j, lrms_job_state::running)) << *j << " did not start in " << *r;
  auto s = l->snapshot();
  ASSERT_TRUE(s) << s.err().message;
  const auto* job = running(*s, *j);
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->reservation, *r);
  EXPECT_EQ(job->np, 2);
  EXPECT_EQ(job->owner, under_test().owner);
  ASSERT_TRUE(l->cancel_job(*j));
  EXPECT_TRUE(becomes(*j, lrms_job_state::cancelled));
}

// A reservation a running job is bound to: refused with in_use (the job runs on), or
// deleted with its job; never a reservation gone and its job running outside it.
TEST_P(lrms_conformance, DeletingAReservationInUseKeepsItOrTakesItsJob) {
  auto r = reserve(wall_now() + 2, 600, 2);
  ASSERT_TRUE(r) << r.err().message;
  auto j = submit(2, 300, *r);
  ASSERT_TRUE(j) << j.err().message;
  ASSERT_TRUE(becomes(*j, lrms_job_state::running));
  auto d = l->delete_reservation(*r);
  auto s = l->snapshot();
  ASSERT_TRUE(s) << s.err().message;
  if (under_test().differs.delete_in_use_refused) {
    ASSERT_FALSE(d);
    EXPECT_EQ(d.err().code, errc::in_use) << d.err().message;
    EXPECT_NE(listed(*s, *r), nullptr);
    EXPECT_NE(running(*s, *j), nullptr);
  } else {
    ASSERT_TRUE(d) << d.err().message;
    EXPECT_EQ(listed(*s, *r), nullptr);
    (void)eventually([&] {
      s = l->snapshot();
      return !s || !running(*s, *j);
    });
    ASSERT_TRUE(s) << s.err().message;
    EXPECT_EQ(running(*s, *j), nullptr) << *j << " runs on without its reservation";
  }
}

// A running job holds its CPUs until its walltime's end (and the LRMS's margin): listed with
// its start and walltime, and no reservation of every CPU is granted over it.
TEST_P(lrms_conformance, ARunningJobHoldsItsCpusUntilItsWalltimeEnds) {
  const timestamp before = wall_now();
  auto j = submit(1, 600);
  ASSERT_TRUE(j) << j.err().message;
  ASSERT_TRUE(becomes(*j, lrms_job_state::running));
  auto s = l->snapshot();
  ASSERT_TRUE(s) << s.err().message;
  const auto* job = running(*s, *j);
  ASSERT_NE(job, nullptr);
  ASSERT_TRUE(job->started);
  EXPECT_GE(*job->started, before - 1);
  EXPECT_LE(*job->started, s->now);
  EXPECT_EQ(job->walltime, 600);
  EXPECT_FALSE(job->reservation);
  EXPECT_GE(s->job_end_margin, 0);
  const timestamp job_end = *job->started + job->walltime;
  auto over = reserve(job_end - 60, 600, under_test().cpus);
  ASSERT_FALSE(over) << "granted over a running job: " << *over;
  EXPECT_EQ(over.err().code, errc::busy) << over.err().message;
  auto after = reserve(job_end + s->job_end_margin, 600, under_test().cpus);
  EXPECT_TRUE(after) << "refused at the job's end + margin: " << after.err().message;
}

// What a cluster publishes of its nodes (a grid job's needs are matched against it) is what
// its snapshot counts: the groups' CPUs add up to the cluster's, each group one a GIS takes;
// or it publishes none (its needs are then not checked).
TEST_P(lrms_conformance, ThePublishedNodesHoldTheClustersCpus) {
  auto nodes = l->node_groups();
  ASSERT_TRUE(nodes) << nodes.err().message;
  auto s = l->snapshot();
  ASSERT_TRUE(s) << s.err().message;
  if (nodes->empty()) return;
  std::int64_t cpus = 0;
  for (const auto& g : *nodes) {
    EXPECT_TRUE(check(g)) << check(g).err().message;
    cpus += static_cast<std::int64_t>(g.count) * g.cpus;
  }
  EXPECT_EQ(cpus, s->cpus);
}

TEST_P(lrms_conformance, UnknownIdsAreNotFound) {
  auto st = l->job_status("999999");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.err().code, errc::not_found) << st.err().message;
  auto c = l->cancel_job("999999");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.err().code, errc::not_found) << c.err().message;
}

}  // namespace arbroker::conformance
