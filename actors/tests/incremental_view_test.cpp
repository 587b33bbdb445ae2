// The view a service keeps between reads of its LRMS (capacity_view) against one read whole
// on every call: driven through the same random calls, on the same simulated LRMS, with
// local jobs queued and running, they must answer every call alike. The jobs change between
// calls only as time passes (every step moves the clock by at least the refresh interval) or
// through the service itself (its releases let queued jobs start), so the kept view has no
// excuse to differ. The kept view's LRMS says when something but its service changed the
// reservations (nothing does here), so it skips its periodic full reads too.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/adapters/timed_lrms.hpp"
#include "arbroker/core/site_adaptation.hpp"
#include "arbroker/sim/simulated_lrms.hpp"
#include "c1_config.hpp"

namespace arbroker {
namespace {

struct service {
  simulated_lrms* lrms = nullptr;  // owned by svc
  std::unique_ptr<cluster_service> svc;
  std::shared_ptr<int> full_reads = std::make_shared<int>(0);  // lrms::snapshot() calls
};

service make(const timestamp& now, duration refresh, ljp_method check) {
  service s;
  simulated_lrms_config sc{"c1", 64, {8, {}}, [&now] { return now; }};
  sc.reports_reservation_changes = refresh != 0;  // the reference reads whole on every call
  auto l = simulated_lrms::create(std::move(sc));
  EXPECT_TRUE(l);
  s.lrms = l->get();
  auto cfg = testing::c1_config();
  cfg.refresh = refresh;
  cfg.full_refresh = refresh == 0 ? 0 : 30;  // 0 and 0 (unversioned): read whole on every call
  cfg.ljp_check = check;
  auto timed = std::make_unique<timed_lrms>(
      std::move(*l),
      [n = s.full_reads](lrms_call c, auto, bool) { *n += c == lrms_call::snapshot; });
  auto svc = cluster_service::create(std::move(cfg), std::move(timed));
  EXPECT_TRUE(svc) << to_string(svc.err());
  s.svc = std::move(*svc);
  return s;
}

msg::probe_request probe_req(timestamp est, timestamp let, int np_max) {
  msg::probe_request p;
  p.user = "alice";
  elastic_request job{"alice", est, let, 8, np_max, 3600, 1000, 8, *speedup_model::amdahl(0), {}};
  if (auto site = adapt_to_site(job, {"c1", 64, 1000, {8, {}}})) p.site = *site;
  p.slotting = {6, 900};
  return p;
}

void run(ljp_method check, unsigned seed) {
  timestamp now = 1'000'000;
  auto whole = make(now, 0, check);  // reads the LRMS whole on every call
  auto kept = make(now, 1, check);   // keeps its view between reads
  std::mt19937 rng(seed);
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  std::vector<std::string> txns, ids;
  int prepares = 0, granted = 0, probes = 0, offered = 0, advices = 0, advised = 0;
  const auto pick = [&](const std::vector<std::string>& v) {
    return v.empty() ? std::string("none") : v[uniform(0, static_cast<int>(v.size()) - 1)];
  };
  for (int step = 0; step < 1500; ++step) {
    SCOPED_TRACE("seed " + std::to_string(seed) + ", step " + std::to_string(step));
    const auto op = uniform(0, 99);
    if (op < 30) {
      const timestamp est = now + uniform(0, 3 * 3600);
      const auto p = probe_req(est, est + uniform(3600, 6 * 3600), 8 * uniform(1, 8));
      const auto a = whole.svc->probe(p, now);
      ASSERT_EQ(kept.svc->probe(p, now), a);
      ++probes;
      offered += !a.slots.empty();
    } else if (op < 35) {
      // The match advisor's answer from the kept view, against one from a whole read.
      msg::advice_request q;
      q.user = "alice";
      q.site = probe_req(now + uniform(0, 3 * 3600), now + 8 * 3600, 8 * uniform(1, 8)).site;
      q.local_jobs_preferred = uniform(0, 3) != 0;
      q.admin = uniform(0, 1) == 1;
      const auto a = whole.svc->advise(q, now);
      ASSERT_EQ(kept.svc->advise(q, now), a);
      ++advices;
      advised += a.error.ok() && a.meets_qos;
    } else if (op < 60) {
      const std::string txn = "t" + std::to_string(step);
      const timestamp start = now + uniform(0, 8 * 3600);
      const msg::prepare_request p{.txn = txn,
                                   .owner = "alice",
                                   .start = start,
                                   .end = start + uniform(60, 2 * 3600),
                                   .np = 8 * static_cast<int>(uniform(1, 4)),
                                   .expiry = now + uniform(5, 60),
                                   .local_jobs_preferred = uniform(0, 3) != 0,
                                   .admin = uniform(0, 1) == 1,
                                   .commit_at_once = uniform(0, 1) == 1};
      const auto a = whole.svc->prepare(p, now);
      ASSERT_EQ(kept.svc->prepare(p, now), a);
      txns.push_back(txn);
      ++prepares;
      if (a.error.ok()) {
        ids.push_back(a.reservation_id);
        ++granted;
      }
    } else if (op < 70) {
      const msg::commit_txn_request c{pick(txns)};
      ASSERT_EQ(kept.svc->commit_txn(c, now), whole.svc->commit_txn(c, now));
    } else if (op < 75) {
      const msg::abort_txn_request a{pick(txns)};
      ASSERT_EQ(kept.svc->abort_txn(a, now), whole.svc->abort_txn(a, now));
    } else if (op < 80) {
      const msg::cancel_request c{"alice", pick(ids)};
      ASSERT_EQ(kept.svc->cancel(c, now), whole.svc->cancel(c, now));
    } else if (op < 85) {
      msg::modify_request m;
      m.user = "alice";
      m.reservation_id = pick(ids);
      m.start = now + uniform(0, 4 * 3600);
      m.end = m.start + uniform(60, 3600);
      m.np = 8 * static_cast<int>(uniform(1, 4));
      ASSERT_EQ(kept.svc->modify(m, now), whole.svc->modify(m, now));
    } else {
      // Local work arrives behind the services' backs, then time passes (at least the kept
      // view's refresh interval).
      if (uniform(0, 5) == 0) {  // about half the cluster's CPU time
        const job_spec j{"local",           "bob",        8 * static_cast<int>(uniform(1, 4)),
                         uniform(60, 1200), std::nullopt, "true"};
        ASSERT_TRUE(whole.lrms->submit_job(j));
        ASSERT_TRUE(kept.lrms->submit_job(j));
      }
      now += uniform(1, 120);
    }
    ASSERT_EQ(kept.svc->ledger_violation(), "") << "step " << step;
    ASSERT_EQ(whole.svc->ledger_violation(), "") << "step " << step;
  }
  // The run did what it is for: contention, refusals and grants, and few full reads (the
  // first: the others were skipped).
  EXPECT_GT(granted, prepares / 10);
  EXPECT_LT(granted, prepares);
  EXPECT_GT(offered, probes / 10);
  EXPECT_GT(advised, advices / 10);
  EXPECT_GT(*whole.full_reads, 500);
  EXPECT_EQ(*kept.full_reads, 1);
}

TEST(IncrementalView, AnswersAsAViewReadWholeOnEveryCallUnderEse) {
  for (unsigned seed : {1u, 2u, 3u})
    run(ljp_method::ese, seed);
}

TEST(IncrementalView, AnswersAsAViewReadWholeOnEveryCallUnderTWkl) {
  for (unsigned seed : {4u, 5u})
    run(ljp_method::twkl, seed);
}

// A reservation made in the LRMS behind the service's back (an admin's maintenance) is not in
// the kept view until the next full read; a hold that collides with it is refused by the
// LRMS, and from then on the service sees it, as it does after full_refresh anyway.
TEST(IncrementalView, SeesAReservationMadeBehindItsBackWhenTheLrmsRefusesOrAtTheNextFullRead) {
  timestamp now = 1'000'000;
  auto kept = make(now, 1, ljp_method::ese);
  const auto outside = [](const msg::probe_reply& r, timestamp from, timestamp to) {
    EXPECT_TRUE(r.error.ok()) << r.error.message;
    return std::all_of(r.slots.begin(), r.slots.end(),
                       [&](const msg::slot& s) { return s.end <= from || s.start >= to; });
  };
  const auto p = probe_req(now + 3600, now + 4 * 3600, 8);
  ASSERT_TRUE(kept.svc->probe(p, now).slots.size() > 0);
  const int reads = *kept.full_reads;
  auto maintenance = kept.lrms->create_reservation({"maint", "root", now + 3600, 3600, 64});
  ASSERT_TRUE(maintenance);
  // Within full_refresh the view does not know; the LRMS refuses the hold all the same.
  msg::prepare_request hold{.txn = "t1",
                            .owner = "alice",
                            .start = now + 3600,
                            .end = now + 7200,
                            .np = 8,
                            .expiry = now + 60};
  const auto refused = kept.svc->prepare(hold, now);
  EXPECT_EQ(refused.error.code, static_cast<std::uint8_t>(errc::busy)) << refused.error.message;
  EXPECT_EQ(refused.refused_by, msg::refusal::lrms);
  // The next call reads the LRMS whole: nothing offered across the maintenance.
  EXPECT_TRUE(outside(kept.svc->probe(p, now), now + 3600, now + 7200));
  EXPECT_EQ(*kept.full_reads, reads + 1);
  // Another one, no collision: seen once full_refresh (30 s) has passed, not before.
  auto second = kept.lrms->create_reservation({"maint2", "root", now + 9000, 3600, 64});
  ASSERT_TRUE(second);
  now += 29;
  (void)kept.svc->probe(p, now);
  EXPECT_EQ(*kept.full_reads, reads + 1);
  now += 1;
  const auto p2 = probe_req(now + 8000, now + 14000, 8);
  EXPECT_TRUE(outside(kept.svc->probe(p2, now), now - 30 + 9000, now - 30 + 12600));
  EXPECT_EQ(*kept.full_reads, reads + 2);
}

}  // namespace
}  // namespace arbroker
