// A cluster service on its own, without actors: probes, holds and the two phases, owners'
// calls, modify, bound jobs, bad requests, status, estimates (what it writes, forgets and
// recovers: cluster_service_store_test.cpp).

#include "arbroker/actors/cluster_service.hpp"

#include <gtest/gtest.h>

#include <map>

#include "cluster_service_fixture.hpp"

namespace arbroker {
namespace {

using testing::cluster_service_fixture;

using msg::wire_error;

TEST_F(cluster_service_fixture, ProbeGeneratesCandidatesWithCostAndEsr) {
  auto r = svc->probe(probe_req(now, now + 4 * 3600), now);
  ASSERT_TRUE(r.error.ok()) << r.error.message;
  EXPECT_EQ(r.cluster, "c1");
  // np 8 (1 h), 16 (30 min), 24 (20 min), 32 (15 min): 4 start times each
  EXPECT_EQ(r.generated, 16);
  ASSERT_EQ(r.slots.size(), 16u);
  for (const auto& s : r.slots) {
    ASSERT_TRUE(s.flags & msg::slot::has_cost);
    // 1.0 per CPU-hour, no day rates: cost = np * length / 3600
    EXPECT_DOUBLE_EQ(s.cost, s.np * (s.end - s.start) / 3600.0);
    EXPECT_DOUBLE_EQ(s.esr, 1.0);  // idle cluster: T_wkl = now
  }
}

TEST_F(cluster_service_fixture, ProbeDropsWhatTheViewCannotFitAndWhatBypassesLocalJobs) {
  make(0, nullptr, ljp_policy::by_default, ljp_method::twkl);  // paper 000's rule
  // 48 CPUs busy for an hour, and a queued job of 64 CPUs waiting behind it.
  ASSERT_TRUE(lrms->submit_local_job({"j1", "bob", 48, 3600, {}, ""}, 3600));
  ASSERT_TRUE(lrms->submit_local_job({"j2", "bob", 64, 3600, {}, ""}, 3600));
  auto p = probe_req(now, now + 4 * 3600);
  auto r = svc->probe(p, now);
  ASSERT_TRUE(r.error.ok());
  // T_wkl = now + 48*3600/48 (running) + 64*3600/64 (waiting) = now + 2 h
  EXPECT_EQ(r.t_wkl, now + 7200);
  for (const auto& s : r.slots)
    EXPECT_GE(s.start, r.t_wkl);
  EXPECT_FALSE(r.slots.empty());
  // Without LJP, only capacity counts: 16 CPUs are free during the first hour.
  p.local_jobs_preferred = false;
  auto r2 = svc->probe(p, now);
  bool early_small = false;
  for (const auto& s : r2.slots) {
    if (s.start < now + 3600) {
      EXPECT_LE(s.np, 16);
      early_small = true;
    }
  }
  EXPECT_TRUE(early_small);
  // Without the availability check everything generated comes back.
  p.check_availability = false;
  EXPECT_EQ(svc->probe(p, now).slots.size(), 16u);
}

// A co-reservation's windows with a success-rate threshold keep only the starts that pass:
// the static method (1 - exp(-d / h), h = 5 h) reaches 0.5 at d = h ln 2 = 12477 s.
TEST_F(cluster_service_fixture, WindowsKeepOnlyStartsWhoseSuccessRatePasses) {
  msg::probe_request p;
  p.user = "alice";
  p.site.est = now;
  p.site.let = now + 10 * 3600;
  p.site.shapes = {{8, 3600}};
  p.slotting = {1, 60};
  p.want_windows = true;
  auto all = svc->probe(p, now);
  ASSERT_TRUE(all.error.ok()) << all.error.message;
  ASSERT_EQ(all.windows.size(), 1u);
  EXPECT_EQ(all.windows[0].first, now);
  p.want_esr = true;
  p.esr = esr_method::static_;
  p.esr_threshold = 0.5;
  auto sure = svc->probe(p, now);
  ASSERT_TRUE(sure.error.ok()) << sure.error.message;
  ASSERT_EQ(sure.windows.size(), 1u);
  EXPECT_GE(sure.windows[0].first, now + 12477);
  EXPECT_LT(sure.windows[0].first, now + 12477 + 60);  // to the 60-s step
  EXPECT_EQ(sure.windows[0].last, all.windows[0].last);
}

TEST_F(cluster_service_fixture, ProbeForTheBestFewSendsTheHeadOfTheFullRanking) {
  // Part of the cluster is taken at different times, so that availability drops candidates
  // here and there; Amdahl speedup makes the cost differ by CPU count.
  ASSERT_TRUE(svc->prepare(hold("t1", now + 1800, 3600, 40), now).error.ok());
  ASSERT_TRUE(svc->prepare(hold("t2", now + 3 * 3600, 1800, 56), now).error.ok());
  ASSERT_TRUE(svc->prepare(hold("t3", now + 5 * 3600, 7200, 24), now).error.ok());
  for (const std::string prefer :
       {"end,cost", "end", "start,cost", "-np,end,cost", "cost,end", "duration,-esr,cost",
        "site,end,cost", "-end,cost", "start,-cost"}) {  // ties on start: the price decides
    auto req = probe_req(now, now + 8 * 3600, *speedup_model::amdahl(0.1));
    req.slotting.tsn_max = 8;
    req.prefer = *parse_preferences(prefer);
    req.keep = 0;  // everything, best first
    const auto full = svc->probe(req, now);
    ASSERT_TRUE(full.error.ok()) << full.error.message;
    ASSERT_GT(full.available, 4) << prefer;
    for (int keep = 1; keep <= 6; ++keep) {
      SCOPED_TRACE("prefer " + prefer + ", keep " + std::to_string(keep));
      req.keep = keep;
      const auto best = svc->probe(req, now);
      ASSERT_TRUE(best.error.ok()) << best.error.message;
      ASSERT_EQ(best.slots.size(), static_cast<std::size_t>(keep));
      for (int i = 0; i < keep; ++i) {
        const auto& a = best.slots[static_cast<std::size_t>(i)];
        const auto& b = full.slots[static_cast<std::size_t>(i)];
        EXPECT_EQ(std::tie(a.start, a.end, a.np), std::tie(b.start, b.end, b.np)) << i;
        EXPECT_DOUBLE_EQ(a.cost, b.cost);
      }
      // It may not know how many more fit, but never hides that some do.
      EXPECT_GT(best.available, keep);
      EXPECT_EQ(best.generated, full.generated);
      EXPECT_EQ(best.above_threshold, full.above_threshold);
    }
  }
}

TEST_F(cluster_service_fixture, PrepareHoldsCapacityCommitKeepsIt) {
  auto h = svc->prepare(hold("t1", now + 100, 3600, 40), now);
  ASSERT_TRUE(h.error.ok()) << h.error.message;
  EXPECT_EQ(h.reservation_id, "c1/1");
  EXPECT_EQ(lrms_reservations(), 1u);
  // The hold counts: 40 + 32 > 64.
  auto clash = svc->prepare(hold("t2", now + 200, 600, 32), now);
  EXPECT_EQ(clash.error.code, static_cast<std::uint8_t>(errc::busy));
  EXPECT_EQ(clash.refused_by, msg::refusal::lrms);
  EXPECT_EQ(clash.busy_until, now + 100 + 3600);  // earliest start the view allows
  EXPECT_TRUE(svc->commit_txn({"t1"}, now + 10).error.ok());
  EXPECT_TRUE(svc->commit_txn({"t1"}, now + 11).error.ok());  // idempotent
  auto st = svc->status_report({}, now + 12);
  EXPECT_EQ(st.committed, 1);
  EXPECT_EQ(st.holds, 0);
  // Committed: expiry no longer applies.
  now += 1000;
  EXPECT_EQ(svc->status_report({}, now).committed, 1);
  EXPECT_EQ(lrms_reservations(), 1u);
}

TEST_F(cluster_service_fixture, HoldsExpireByThemselvesAndCommitAfterExpiryFails) {
  auto h = svc->prepare(hold("t1", now + 100, 3600, 8), now);
  ASSERT_TRUE(h.error.ok());
  EXPECT_EQ(svc->next_expiry(), now + 60);
  now += 60;
  svc->sweep(now);
  EXPECT_EQ(lrms_reservations(), 0u);  // gone from the LRMS, coordinator or not
  EXPECT_FALSE(svc->next_expiry());
  auto c = svc->commit_txn({"t1"}, now);
  EXPECT_EQ(c.error.code, static_cast<std::uint8_t>(errc::illegal_transition));
  auto q = svc->query({"alice", h.reservation_id}, now);
  EXPECT_EQ(q.info.state, reservation_state::expired);
  // The CPUs are free again.
  EXPECT_TRUE(svc->prepare(hold("t2", now + 100, 3600, 64), now).error.ok());
}

TEST_F(cluster_service_fixture, AbortIsIdempotentAndPresumed) {
  EXPECT_TRUE(svc->abort_txn({"never-prepared"}, now).error.ok());
  auto h = svc->prepare(hold("t1", now + 100, 3600, 8), now);
  ASSERT_TRUE(h.error.ok());
  // A repeated prepare answers as the first.
  EXPECT_EQ(svc->prepare(hold("t1", now + 100, 3600, 8), now).reservation_id, h.reservation_id);
  EXPECT_EQ(lrms_reservations(), 1u);
  EXPECT_TRUE(svc->abort_txn({"t1"}, now).error.ok());
  EXPECT_TRUE(svc->abort_txn({"t1"}, now).error.ok());
  EXPECT_EQ(lrms_reservations(), 0u);
  EXPECT_EQ(svc->commit_txn({"t1"}, now).error.code,
            static_cast<std::uint8_t>(errc::illegal_transition));
  // Committed transactions cannot be aborted.
  ASSERT_TRUE(svc->prepare(hold("t2", now + 100, 3600, 8), now).error.ok());
  ASSERT_TRUE(svc->commit_txn({"t2"}, now).error.ok());
  EXPECT_EQ(svc->abort_txn({"t2"}, now).error.code,
            static_cast<std::uint8_t>(errc::illegal_transition));
}

TEST_F(cluster_service_fixture, ReleaseUndoesATransactionWhateverBecameOfIt) {
  EXPECT_TRUE(svc->release_txn({"never-prepared"}, now).error.ok());
  // A hold goes away like an abort.
  ASSERT_TRUE(svc->prepare(hold("t1", now + 100, 3600, 8), now).error.ok());
  EXPECT_TRUE(svc->release_txn({"t1"}, now).error.ok());
  EXPECT_EQ(lrms_reservations(), 0u);
  // A committed one (commit at once, or committed in phase two) is cancelled.
  auto direct = hold("t2", now + 100, 3600, 8);
  direct.commit_at_once = true;
  auto d = svc->prepare(direct, now);
  ASSERT_TRUE(d.error.ok());
  ASSERT_TRUE(svc->prepare(hold("t3", now + 100, 3600, 8), now).error.ok());
  ASSERT_TRUE(svc->commit_txn({"t3"}, now).error.ok());
  EXPECT_EQ(lrms_reservations(), 2u);
  EXPECT_TRUE(svc->release_txn({"t2"}, now).error.ok());
  EXPECT_TRUE(svc->release_txn({"t3"}, now).error.ok());
  EXPECT_EQ(lrms_reservations(), 0u);
  EXPECT_EQ(svc->query({"alice", d.reservation_id}, now).info.state, reservation_state::cancelled);
  EXPECT_TRUE(svc->release_txn({"t2"}, now).error.ok());  // idempotent
  const auto st = svc->status_report({}, now);
  EXPECT_EQ(st.aborts, 1);
  EXPECT_EQ(st.cancels, 2);
}

TEST_F(cluster_service_fixture, AClientCommitsOnlyItsOwnHoldById) {
  auto h = svc->prepare(hold("t1", now + 100, 3600, 8), now);
  ASSERT_TRUE(h.error.ok());
  EXPECT_EQ(svc->commit({"mallory", h.reservation_id, {}}, now).error.err(), errc::not_found);
  EXPECT_EQ(svc->query({"alice", h.reservation_id}, now).info.state, reservation_state::accepted);
  EXPECT_TRUE(svc->commit({"alice", h.reservation_id, {}}, now).error.ok());
  EXPECT_EQ(svc->query({"alice", h.reservation_id}, now).info.state, reservation_state::committed);
}

TEST_F(cluster_service_fixture, LocalJobsPreferredRefusesStartsBeforeTwkl) {
  make(0, nullptr, ljp_policy::by_default, ljp_method::twkl);
  ASSERT_TRUE(lrms->submit_local_job({"j1", "bob", 64, 3600, {}, ""}, 3600));
  ASSERT_TRUE(lrms->submit_local_job({"j2", "bob", 32, 3600, {}, ""}, 3600));
  // T_wkl = now + 3600 + 32*3600/64 = now + 5400. The LRMS would accept a 32-CPU hold at
  // now + 3600 (the queued job does not hold CPUs), but it would bypass j2.
  auto h = svc->prepare(hold("t1", now + 3600, 600, 32), now);
  EXPECT_EQ(h.error.code, static_cast<std::uint8_t>(errc::busy));
  EXPECT_EQ(h.refused_by, msg::refusal::service);
  EXPECT_EQ(h.busy_until, now + 5400);
  EXPECT_EQ(lrms_reservations(), 0u);
  auto req = hold("t1", now + 3600, 600, 32);
  req.local_jobs_preferred = false;
  EXPECT_TRUE(svc->prepare(req, now).error.ok());
}

TEST_F(cluster_service_fixture, OwnerChecksLookLikeMissingReservations) {
  auto h = svc->prepare(hold("t1", now + 100, 3600, 8), now);
  ASSERT_TRUE(svc->commit_txn({"t1"}, now).error.ok());
  auto foreign = svc->query({"mallory", h.reservation_id}, now);
  auto missing = svc->query({"mallory", "c1/999"}, now);
  EXPECT_EQ(foreign.error.code, static_cast<std::uint8_t>(errc::not_found));
  EXPECT_EQ(missing.error.code, static_cast<std::uint8_t>(errc::not_found));
  EXPECT_EQ(svc->cancel({"mallory", h.reservation_id}, now).error.code,
            static_cast<std::uint8_t>(errc::not_found));
  EXPECT_EQ(
      svc->modify({"mallory", h.reservation_id, now + 200, now + 300, 8, true}, now).error.code,
      static_cast<std::uint8_t>(errc::not_found));
  EXPECT_EQ(svc->bind_job({"mallory", h.reservation_id, "x", 8, 60, ""}, now).error.code,
            static_cast<std::uint8_t>(errc::not_found));
  EXPECT_EQ(lrms_reservations(), 1u);  // nothing changed
  EXPECT_TRUE(svc->list({"mallory"}, now).reservations.empty());
  EXPECT_EQ(svc->list({"alice"}, now).reservations.size(), 1u);
}

TEST_F(cluster_service_fixture, ModifyIsMakeBeforeBreak) {
  auto a = svc->prepare(hold("t1", now + 100, 3600, 32), now);
  ASSERT_TRUE(svc->commit_txn({"t1"}, now).error.ok());
  ASSERT_TRUE(svc->prepare(hold("t2", now + 7200, 3600, 32), now).error.ok());
  ASSERT_TRUE(svc->commit_txn({"t2"}, now).error.ok());
  // Move t1 onto t2 with 40 CPUs: 40 + 32 > 64, refused; t1 keeps its terms.
  auto bad = svc->modify({"alice", a.reservation_id, now + 7200, now + 9000, 40, true}, now);
  EXPECT_EQ(bad.error.code, static_cast<std::uint8_t>(errc::busy));
  auto q = svc->query({"alice", a.reservation_id}, now);
  EXPECT_EQ(q.info.start, now + 100);
  EXPECT_EQ(q.info.np, 32);
  EXPECT_EQ(q.info.state, reservation_state::committed);
  // Growing in place to 32 + 32 = 64 fits (the old terms are released for the check).
  auto good = svc->modify({"alice", a.reservation_id, now + 100, now + 7300, 32, true}, now);
  ASSERT_TRUE(good.error.ok()) << good.error.message;
  EXPECT_EQ(good.info.end, now + 7300);
  auto spans = lrms->snapshot()->reservations;
  ASSERT_EQ(spans.size(), 2u);
  // Never above capacity: 32 over [100, 7200), 64 over [7200, 7300).
  auto refused = svc->modify({"alice", a.reservation_id, now + 100, now + 7300, 40, true}, now);
  EXPECT_EQ(refused.error.code, static_cast<std::uint8_t>(errc::busy));
}

TEST_F(cluster_service_fixture, BoundJobRunsInsideTheReservation) {
  auto h = svc->prepare(hold("t1", now + 100, 3600, 16), now);
  ASSERT_TRUE(svc->commit_txn({"t1"}, now).error.ok());
  auto too_big = svc->bind_job({"alice", h.reservation_id, "big", 32, 600, ""}, now);
  EXPECT_EQ(too_big.error.code, static_cast<std::uint8_t>(errc::invalid_processor_range));
  auto j = svc->bind_job({"alice", h.reservation_id, "sim", 16, 600, ""}, now);
  ASSERT_TRUE(j.error.ok()) << j.error.message;
  EXPECT_EQ(*lrms->job_status(j.job_id), lrms_job_state::queued);
  now += 100;
  EXPECT_EQ(*lrms->job_status(j.job_id), lrms_job_state::running);
  auto q = svc->query({"alice", h.reservation_id}, now);
  EXPECT_EQ(q.info.state, reservation_state::active);
}

TEST_F(cluster_service_fixture, BadRequestsGetTypedErrorsAndChangeNothing) {
  auto code = [](const wire_error& e) { return static_cast<errc>(e.code); };
  EXPECT_EQ(code(svc->prepare(hold("", now + 100, 60, 8), now).error), errc::invalid_parameter);
  EXPECT_EQ(code(svc->prepare(hold("t", now + 100, 60, 8, ""), now).error),
            errc::permission_denied);
  EXPECT_EQ(code(svc->prepare(hold("t", now - 100, 60, 8), now).error), errc::invalid_window);
  EXPECT_EQ(code(svc->prepare(hold("t", now + 100, 0, 8), now).error), errc::invalid_window);
  EXPECT_EQ(code(svc->prepare(hold("t", now + 100, 60, 0), now).error),
            errc::invalid_processor_range);
  EXPECT_EQ(code(svc->prepare(hold("t", now + 100, 60, 65), now).error),
            errc::invalid_processor_range);
  auto long_hold = hold("t", now + 100, 60, 8);
  long_hold.expiry = now + 100000;
  EXPECT_EQ(code(svc->prepare(long_hold, now).error), errc::invalid_parameter);
  EXPECT_EQ(code(svc->commit_txn({"nope"}, now).error), errc::not_found);
  auto p = probe_req(now + 10, now);
  EXPECT_EQ(code(svc->probe(p, now).error), errc::invalid_window);
  p = probe_req(now, now + 3600);
  p.site.shapes.front().dur = 0;
  EXPECT_EQ(code(svc->probe(p, now).error), errc::invalid_duration);
  p = probe_req(now, now + 3600);
  p.slotting.tsn_max = 0;
  EXPECT_EQ(code(svc->probe(p, now).error), errc::invalid_parameter);
  EXPECT_EQ(lrms_reservations(), 0u);
  auto st = svc->status_report({}, now);
  EXPECT_EQ(st.holds + st.committed, 0);
}

TEST_F(cluster_service_fixture, StatusCountsEventsForMetrics) {
  ASSERT_TRUE(svc->prepare(hold("a", now + 600, 3600, 8), now).error.ok());
  ASSERT_TRUE(svc->commit_txn({"a"}, now).error.ok());
  ASSERT_TRUE(svc->prepare(hold("b", now + 600, 3600, 8), now).error.ok());
  ASSERT_TRUE(svc->abort_txn({"b"}, now).error.ok());
  ASSERT_TRUE(svc->abort_txn({"b"}, now).error.ok());  // idempotent: counted once
  auto c = svc->prepare(hold("c", now + 600, 3600, 8), now);
  ASSERT_TRUE(c.error.ok());
  auto once = hold("d", now, 7200, 16);
  once.commit_at_once = true;
  ASSERT_TRUE(svc->prepare(once, now).error.ok());
  now += 61;  // c expires; d has started
  auto st = svc->status_report({}, now);
  EXPECT_EQ(st.holds_created, 4);
  EXPECT_EQ(st.commits, 2);
  EXPECT_EQ(st.aborts, 1);
  EXPECT_EQ(st.expiries, 1);
  EXPECT_EQ(st.cancels, 0);
  EXPECT_EQ(st.reserved_cpus, 16);  // only d is active now
}

TEST_F(cluster_service_fixture, EstimateHonoursQueuedLocalJobsAndReservations) {
  // 48 CPUs busy for an hour; a 64-CPU job queued behind; a reservation of 32 CPUs from
  // +2h to +3h. A 32-CPU job of one hour: not before the queued job ends (+2h), and then
  // the reservation leaves exactly 32 free, so +2h.
  ASSERT_TRUE(lrms->submit_local_job({"j1", "bob", 48, 3600, {}, ""}, 3600));
  ASSERT_TRUE(lrms->submit_local_job({"j2", "bob", 64, 3600, {}, ""}, 3600));
  auto r = hold("r", now + 7200, 3600, 32);
  r.commit_at_once = true;
  r.local_jobs_preferred = false;
  r.admin = true;  // this site enforces LJP
  ASSERT_TRUE(svc->prepare(r, now).error.ok());
  auto e = svc->estimate({.np = 32, .walltime = 3600}, now);
  ASSERT_TRUE(e.error.ok()) << e.error.message;
  EXPECT_EQ(e.start, now + 7200);
  // 40 CPUs for an hour do not fit beside the reservation: after it, at +3h.
  EXPECT_EQ(svc->estimate({.np = 40, .walltime = 3600}, now).start, now + 3 * 3600);
  const auto too_wide = svc->estimate({.np = 65, .walltime = 60}, now);  // wider than the cluster
  EXPECT_EQ(too_wide.start, -1);
  EXPECT_EQ(too_wide.error.code, static_cast<std::uint8_t>(errc::invalid_processor_range));
  EXPECT_NE(too_wide.error.message.find("has 64 CPUs"), std::string::npos)
      << too_wide.error.message;
  EXPECT_EQ(svc->estimate({.np = 0, .walltime = 60}, now).error.code,
            static_cast<std::uint8_t>(errc::invalid_processor_range));
  EXPECT_EQ(svc->estimate({.np = 8, .walltime = 0}, now).error.code,
            static_cast<std::uint8_t>(errc::invalid_duration));
  // Paper 004 Sec. III-C: a ready time moves the start; a deadline it cannot meet is said.
  EXPECT_EQ(svc->estimate({.np = 32, .walltime = 3600, .ready = now + 3 * 3600}, now).start,
            now + 3 * 3600);
  auto late = svc->estimate({.np = 32, .walltime = 3600, .deadline = now + 2 * 3600 + 1800}, now);
  EXPECT_EQ(late.start, -1);
  EXPECT_EQ(late.error.code, static_cast<std::uint8_t>(errc::infeasible));
  EXPECT_EQ(svc->estimate({.np = 32, .walltime = 3600, .deadline = now + 3 * 3600}, now).start,
            now + 7200);
}

TEST(ClusterServiceCreate, RejectsBadConfig) {
  auto lrms = [] {
    return std::move(*simulated_lrms::create({"x", 8, {}, [] { return timestamp{0}; }}));
  };
  cluster_service_config cfg;
  cfg.info.name = "a/b";
  cfg.info.cpus = 8;
  EXPECT_EQ(cluster_service::create(cfg, lrms()).err().code, errc::invalid_parameter);
  cfg.info.name = "a";
  EXPECT_EQ(cluster_service::create(cfg, nullptr).err().code, errc::invalid_parameter);
  cfg.info.cpus = 0;
  EXPECT_EQ(cluster_service::create(cfg, lrms()).err().code, errc::invalid_processor_range);
}

// Paper 000's cost agreements by virtual organization: a user without an agreement of their
// own pays their VO's factor, in probes and in the reservation's cost; a user's own
// agreement wins over their VO's.
TEST(cluster_service_vo, AUsersVirtualOrganizationsAgreementPricesTheirReservations) {
  const timestamp now = 1'000'000;
  auto l = simulated_lrms::create({"c1", 64, {8, {}}, [now] { return now; }});
  ASSERT_TRUE(l);
  auto cfg = testing::c1_config();
  cfg.cost = *cost_model::create(1.0, 3600, {}, 0, {{"atlas", 0.5}, {"alice", 0.8}});
  cfg.vo_of = std::make_shared<std::map<std::string, std::string>>(
      std::map<std::string, std::string>{{"bob", "atlas"}, {"alice", "atlas"}});
  auto svc = cluster_service::create(std::move(cfg), std::move(*l));
  ASSERT_TRUE(svc) << to_string(svc.err());
  auto reserve = [&](const std::string& who, timestamp start) {
    msg::prepare_request p{.txn = who + std::to_string(start),
                           .owner = who,
                           .start = start,
                           .end = start + 3600,
                           .np = 8,
                           .expiry = now + 60,
                           .commit_at_once = true};
    auto r = (*svc)->prepare(p, now);
    EXPECT_TRUE(r.error.ok()) << r.error.message;
    return r.cost;
  };
  EXPECT_DOUBLE_EQ(reserve("carol", now + 600), 8.0);        // no VO: 8 CPU-hours at 1.0
  EXPECT_DOUBLE_EQ(reserve("bob", now + 600), 8.0 * 0.5);    // atlas's agreement
  EXPECT_DOUBLE_EQ(reserve("alice", now + 600), 8.0 * 0.8);  // her own wins
  msg::probe_request p;
  p.user = "bob";
  elastic_request job{"bob", now, now + 4 * 3600, 8, 8, 3600, 1000, 8, *speedup_model::amdahl(0),
                      {}};
  p.site = *adapt_to_site(job, {"c1", 64, 1000, {8, {}}});
  p.slotting = {2, 600};
  auto probed = (*svc)->probe(p, now);
  ASSERT_TRUE(probed.error.ok()) << probed.error.message;
  ASSERT_FALSE(probed.slots.empty());
  for (const auto& s : probed.slots)
    EXPECT_DOUBLE_EQ(s.cost, 8.0 * 0.5);
}

}  // namespace
}  // namespace arbroker
