// Local Jobs Preferred (paper 004, Sec. III-B): who may waive it, and the promise behind the
// `ese` method as a property: a hold that fits the vacancies of the queue's plan postpones
// no queued job.

#include "arbroker/core/local_jobs_preferred.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "arbroker/core/earliest_start.hpp"

namespace arbroker {
namespace {

TEST(LocalJobsPreferred, SitePolicyDecidesWhoMayWaiveIt) {
  // enforce: LJP for everyone; a user's waiver is refused, an admin's honoured.
  EXPECT_TRUE(*ljp_applies(ljp_policy::enforce, true, false));
  EXPECT_TRUE(*ljp_applies(ljp_policy::enforce, true, true));
  EXPECT_EQ(ljp_applies(ljp_policy::enforce, false, false).err().code, errc::permission_denied);
  EXPECT_FALSE(*ljp_applies(ljp_policy::enforce, false, true));
  // default: the request decides.
  EXPECT_TRUE(*ljp_applies(ljp_policy::by_default, true, false));
  EXPECT_FALSE(*ljp_applies(ljp_policy::by_default, false, false));
  // off: never.
  EXPECT_FALSE(*ljp_applies(ljp_policy::off, true, false));
}

TEST(LocalJobsPreferred, NamesRoundTripAndUnknownOnesAreRejected) {
  for (auto p : {ljp_policy::enforce, ljp_policy::by_default, ljp_policy::off})
    EXPECT_EQ(ljp_policy_from(to_string(p)), p);
  for (auto m : {ljp_method::ese, ljp_method::twkl})
    EXPECT_EQ(ljp_method_from(to_string(m)), m);
  EXPECT_EQ(to_string(ljp_policy::by_default), "default");
  EXPECT_FALSE(ljp_policy_from("Enforce"));
  EXPECT_FALSE(ljp_method_from(""));
}

// A random cluster: running jobs that fit together, committed reservations that fit beside
// them, and a FIFO queue.
cluster_workload random_workload() {
  cluster_workload w;
  w.cpus = *rc::gen::inRange(1, 17);
  int used = 0;
  const int n_running = *rc::gen::inRange(0, 6);
  for (int i = 0; i < n_running && used < w.cpus; ++i) {
    const int np = *rc::gen::inRange(1, w.cpus - used + 1);
    used += np;
    w.running.push_back({np, *rc::gen::inRange<duration>(1, 500)});
  }
  auto profile = plan_workload(w, 0, ese_policy::reservations_first)->profile;
  const int n_res = *rc::gen::inRange(0, 4);
  for (int i = 0; i < n_res; ++i) {
    const timestamp start = *rc::gen::inRange<timestamp>(0, 600);
    const timestamp end = start + *rc::gen::inRange<duration>(1, 300);
    const int np = *rc::gen::inRange(1, w.cpus + 1);
    if (!profile.fits(start, end, np)) continue;
    (void)profile.add(start, end, np);
    w.reservations.push_back({start, end, np});
  }
  const int n_queued = *rc::gen::inRange(0, 8);
  for (int i = 0; i < n_queued; ++i)
    w.queued.push_back({*rc::gen::inRange(1, w.cpus + 2), *rc::gen::inRange<duration>(1, 400)});
  return w;
}

RC_GTEST_PROP(LocalJobsPreferred, AHoldInTheVacanciesPostponesNoQueuedJob, ()) {
  const auto w = random_workload();
  auto before = plan_workload(w, 0, ese_policy::local_jobs_preferred);
  RC_ASSERT(bool(before));
  const timestamp start = *rc::gen::inRange<timestamp>(0, 1500);
  const timestamp end = start + *rc::gen::inRange<duration>(1, 600);
  const int np = *rc::gen::inRange(1, w.cpus + 1);
  RC_PRE(before->profile.fits(start, end, np));  // what the ese method admits
  auto with_hold = w;
  with_hold.reservations.push_back({start, end, np});
  auto after = plan_workload(with_hold, 0, ese_policy::local_jobs_preferred);
  RC_ASSERT(bool(after));
  RC_ASSERT(after->queued_starts.size() == before->queued_starts.size());
  for (std::size_t i = 0; i < w.queued.size(); ++i)
    RC_ASSERT(after->queued_starts[i] <= before->queued_starts[i]);
}

RC_GTEST_PROP(LocalJobsPreferred, TheEarliestStartUnderLjpIsAdmittedByTheVacancies, ()) {
  // What the estimator (and so a probe) offers, the vacancy check (prepare) admits.
  const auto w = random_workload();
  auto plan = plan_workload(w, 0, ese_policy::local_jobs_preferred);
  RC_ASSERT(bool(plan));
  const duration dur = *rc::gen::inRange<duration>(1, 600);
  const int np = *rc::gen::inRange(1, w.cpus + 1);
  const timestamp ready = *rc::gen::inRange<timestamp>(0, 800);
  auto t = estimate_earliest_start(*plan, 0, ready, dur, np);
  RC_ASSERT(bool(t));
  RC_ASSERT(*t >= ready);
  RC_ASSERT(plan->profile.fits(*t, *t + dur, np));
  if (*t > ready) RC_ASSERT(!plan->profile.fits(*t - 1, *t - 1 + dur, np));
}

}  // namespace
}  // namespace arbroker
