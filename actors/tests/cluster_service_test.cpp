#include "arbroker/actors/cluster_service.hpp"

#include <gtest/gtest.h>

#include <map>

#include "arbroker/core/site_adaptation.hpp"
#include "arbroker/sim/simulated_lrms.hpp"
#include "arbroker/store/recovery_plan.hpp"
#include "c1_config.hpp"
#include "memory_journal.hpp"

namespace arbroker {
namespace {

using testing::memory_journal;

using msg::wire_error;

// A 64-CPU cluster reserving in bunches of 8, on a clock the test moves by hand.
struct fixture : ::testing::Test {
  timestamp now = 1'000'000;
  simulated_lrms* lrms = nullptr;  // owned by the service
  std::unique_ptr<cluster_service> svc;

  void SetUp() override { make(); }

  // Whatever a test did, the service's books still agree with themselves.
  void TearDown() override {
    if (svc) {
      EXPECT_EQ(svc->ledger_violation(), "");
    }
  }

  void make(duration refresh = 0, std::shared_ptr<reservation_journal> journal = nullptr,
            ljp_policy ljp = ljp_policy::enforce, ljp_method check = ljp_method::ese,
            std::function<void(const reservation_row&)> on_change = nullptr) {
    auto l = simulated_lrms::create({"c1", 64, {8, {}}, [this] { return now; }});
    ASSERT_TRUE(l) << to_string(l.err());
    lrms = l->get();
    auto cfg = testing::c1_config();
    cfg.refresh = refresh;  // 0: every call sees the LRMS as it is
    cfg.journal = std::move(journal);
    cfg.ljp = ljp;
    cfg.ljp_check = check;
    cfg.on_change = std::move(on_change);
    auto s = cluster_service::create(std::move(cfg), std::move(*l));
    ASSERT_TRUE(s) << to_string(s.err());
    svc = std::move(*s);
  }

  // 8 to 32 CPUs for an hour on 8 of this cluster's CPUs, adapted as the broker adapts it.
  msg::probe_request probe_req(timestamp est, timestamp let,
                               speedup_model sp = *speedup_model::amdahl(0)) {
    msg::probe_request p;
    p.user = "alice";
    elastic_request job{"alice", est, let, 8, 32, 3600, 1000, 8, std::move(sp), {}};
    auto site = adapt_to_site(job, {"c1", 64, 1000, {8, {}}});
    if (site) p.site = *site;
    p.site.est = est;  // kept for a request that adapt_to_site refuses (a bad window)
    p.site.let = let;
    p.slotting = {4, 600};
    return p;
  }

  msg::prepare_request hold(std::string txn, timestamp start, duration len, int np,
                            std::string owner = "alice") {
    return {std::move(txn), std::move(owner), start, start + len, np, now + 60, true, false};
  }

  std::size_t lrms_reservations() { return lrms->snapshot()->reservations.size(); }
};

TEST_F(fixture, ProbeGeneratesCandidatesWithCostAndEsr) {
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

TEST_F(fixture, ProbeDropsWhatTheViewCannotFitAndWhatBypassesLocalJobs) {
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
TEST_F(fixture, WindowsKeepOnlyStartsWhoseSuccessRatePasses) {
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

TEST_F(fixture, ProbeForTheBestFewSendsTheHeadOfTheFullRanking) {
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

TEST_F(fixture, PrepareHoldsCapacityCommitKeepsIt) {
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

TEST_F(fixture, HoldsExpireByThemselvesAndCommitAfterExpiryFails) {
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

TEST_F(fixture, AbortIsIdempotentAndPresumed) {
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

TEST_F(fixture, ReleaseUndoesATransactionWhateverBecameOfIt) {
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

TEST_F(fixture, AClientCommitsOnlyItsOwnHoldById) {
  auto h = svc->prepare(hold("t1", now + 100, 3600, 8), now);
  ASSERT_TRUE(h.error.ok());
  EXPECT_EQ(svc->commit({"mallory", h.reservation_id, {}}, now).error.err(), errc::not_found);
  EXPECT_EQ(svc->query({"alice", h.reservation_id}, now).info.state, reservation_state::accepted);
  EXPECT_TRUE(svc->commit({"alice", h.reservation_id, {}}, now).error.ok());
  EXPECT_EQ(svc->query({"alice", h.reservation_id}, now).info.state, reservation_state::committed);
}

TEST_F(fixture, LocalJobsPreferredRefusesStartsBeforeTwkl) {
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

TEST_F(fixture, OwnerChecksLookLikeMissingReservations) {
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

TEST_F(fixture, ModifyIsMakeBeforeBreak) {
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

TEST_F(fixture, BoundJobRunsInsideTheReservation) {
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

TEST_F(fixture, BadRequestsGetTypedErrorsAndChangeNothing) {
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

TEST_F(fixture, EveryAnsweredChangeIsWrittenBeforeTheAnswer) {
  auto j = std::make_shared<memory_journal>();
  make(0, j);
  using rs = reservation_state;
  auto p = svc->prepare(hold("t1", now + 600, 3600, 8), now);
  ASSERT_TRUE(p.error.ok());
  EXPECT_EQ(j->rows.at(p.reservation_id).state, rs::accepted);
  EXPECT_EQ(j->rows.at(p.reservation_id).expiry, now + 60);
  ASSERT_TRUE(svc->commit_txn({"t1"}, now).error.ok());
  EXPECT_EQ(j->rows.at(p.reservation_id).state, rs::committed);
  ASSERT_TRUE(svc->cancel({"alice", p.reservation_id}, now).error.ok());
  EXPECT_EQ(j->rows.at(p.reservation_id).state, rs::cancelled);
  auto q = svc->prepare(hold("t2", now + 600, 3600, 8), now);
  ASSERT_TRUE(q.error.ok());
  now += 61;
  svc->sweep(now);
  EXPECT_EQ(j->rows.at(q.reservation_id).state, rs::expired);
  EXPECT_EQ(j->written, (std::vector<rs>{rs::accepted, rs::committed, rs::cancelled, rs::accepted,
                                         rs::expired}));
}

// list and status read indexes (by owner; what has not finished): they must still answer
// exactly what a walk over every record would, as reservations finish and are forgotten.
TEST_F(fixture, ListAndStatusStayExactAsReservationsFinishAndAreForgotten) {
  make();
  auto ids = [&](const std::string& user) {  // without a store, history is in memory
    std::vector<std::pair<std::string, reservation_state>> out;
    for (const auto& r : svc->list({user, true, 0, ""}, now).reservations)
      out.emplace_back(r.id, r.state);
    return out;
  };
  using rs = reservation_state;
  auto a1 = svc->prepare(hold("a1", now + 600, 3600, 8), now);         // committed
  auto a2 = svc->prepare(hold("a2", now + 100, 200, 8), now);          // completes
  auto b1 = svc->prepare(hold("b1", now + 600, 3600, 8, "bob"), now);  // cancelled
  auto a3 = svc->prepare(hold("a3", now + 900, 3600, 8), now);         // expires
  for (const auto* p : {&a1, &a2, &b1, &a3})
    ASSERT_TRUE(p->error.ok()) << p->error.message;
  ASSERT_TRUE(svc->commit_txn({"a1"}, now).error.ok());
  ASSERT_TRUE(svc->commit_txn({"a2"}, now).error.ok());
  ASSERT_TRUE(svc->commit_txn({"b1"}, now).error.ok());
  ASSERT_TRUE(svc->cancel({"bob", b1.reservation_id}, now).error.ok());
  now += 301;  // a2 has run; a3's hold expired
  auto st = svc->status_report({}, now);
  EXPECT_EQ(st.holds, 0);
  EXPECT_EQ(st.committed, 1);
  ASSERT_EQ(st.reservations.size(), 1u);
  EXPECT_EQ(st.reservations[0].id, a1.reservation_id);
  EXPECT_EQ(ids("alice"),
            (std::vector<std::pair<std::string, rs>>{{a2.reservation_id, rs::completed},
                                                     {a1.reservation_id, rs::committed},
                                                     {a3.reservation_id, rs::expired}}));
  EXPECT_EQ(ids("bob"),
            (std::vector<std::pair<std::string, rs>>{{b1.reservation_id, rs::cancelled}}));
  EXPECT_TRUE(ids("carol").empty());
  EXPECT_EQ(svc->list({"", true, 0, ""}, now).reservations.size(), 4u);  // everyone's (an admin)
  // Without history: the live ones only.
  ASSERT_EQ(svc->list({"alice"}, now).reservations.size(), 1u);
  EXPECT_EQ(svc->list({"alice"}, now).reservations[0].id, a1.reservation_id);
  EXPECT_EQ(svc->list({}, now).reservations.size(), 1u);
  now += 4000;  // past the default retention (1 h) of the finished ones; a1 has completed
  EXPECT_EQ(ids("bob").size(), 0u);
  EXPECT_EQ(ids("alice"),
            (std::vector<std::pair<std::string, rs>>{{a1.reservation_id, rs::completed}}));
  EXPECT_EQ(svc->status_report({}, now).committed, 0);
}

// With a store, a reservation that ends leaves memory at once: its row, marked with the
// time it ended, is its history (completed by time too); the store's history is purged
// past the retention.
TEST_F(fixture, WithAStoreFinishedReservationsLeaveMemoryAndStayInTheStore) {
  auto j = std::make_shared<memory_journal>();
  make(0, j);
  auto a = svc->prepare(hold("a", now + 600, 3600, 8), now);
  auto b = svc->prepare(hold("b", now + 100, 200, 8), now);  // completes at now + 300
  for (const auto* p : {&a, &b})
    ASSERT_TRUE(p->error.ok()) << p->error.message;
  ASSERT_TRUE(svc->commit_txn({"a"}, now).error.ok());
  ASSERT_TRUE(svc->commit_txn({"b"}, now).error.ok());
  ASSERT_TRUE(svc->cancel({"alice", a.reservation_id}, now).error.ok());
  EXPECT_EQ(j->rows.at(a.reservation_id).finished, now);
  EXPECT_EQ(j->rows.at(b.reservation_id).finished, 0);
  // Forgotten by the service: a query and a second cancel find nothing here (the node asks
  // the store, node/src/history.hpp), and even a list with history has only what is live.
  EXPECT_EQ(svc->query({"alice", a.reservation_id}, now).error.code,
            static_cast<std::uint8_t>(errc::not_found));
  EXPECT_EQ(svc->cancel({"alice", a.reservation_id}, now).error.code,
            static_cast<std::uint8_t>(errc::not_found));
  auto listed = svc->list({"alice", true, 0, ""}, now).reservations;
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].id, b.reservation_id);
  now += 301;
  svc->sweep(now);  // b ran to its end: written as completed, with its end
  EXPECT_EQ(j->rows.at(b.reservation_id).state, reservation_state::completed);
  EXPECT_EQ(j->rows.at(b.reservation_id).finished, now);
  EXPECT_TRUE(svc->list({"", true, 0, ""}, now).reservations.empty());
  EXPECT_TRUE(j->rows_of("c1")->empty());  // a restart recovers nothing
  // Past the retention (1 h) the history is purged, but for the row of the last id.
  now += 3700;
  svc->sweep(now);
  EXPECT_EQ(j->rows.count(a.reservation_id), 0u);
  EXPECT_EQ(j->rows.count(b.reservation_id), 1u);
}

// `show` tells when a reservation was made and the window its request asked for: kept in
// the store's row, and again after a restart.
TEST_F(fixture, AReservationKeepsWhenItWasMadeAndTheWindowAskedFor) {
  auto j = std::make_shared<memory_journal>();
  make(0, j);
  auto req = hold("w", now + 600, 3600, 8);
  req.window_start = now + 300;
  req.window_end = now + 9000;
  const timestamp made = now;
  auto h = svc->prepare(req, now);
  ASSERT_TRUE(h.error.ok()) << h.error.message;
  now += 10;
  ASSERT_TRUE(svc->commit_txn({"w"}, now).error.ok());
  auto q = svc->query({"alice", h.reservation_id}, now);
  ASSERT_TRUE(q.error.ok()) << q.error.message;
  EXPECT_EQ(q.info.created, made);  // the hold's grant, not its commit
  EXPECT_EQ(q.info.window_start, now - 10 + 300);
  EXPECT_EQ(q.info.window_end, made + 9000);
  const auto& row = j->rows.at(h.reservation_id);
  EXPECT_EQ(std::tie(row.created, row.window_start, row.window_end),
            std::tie(q.info.created, q.info.window_start, q.info.window_end));
  auto rows = *j->rows_of("c1");
  make(0, j);
  recovery_report report;
  ASSERT_TRUE(svc->recover(rows, plan_recovery(rows, {}), now, report));
  auto again = svc->query({"alice", h.reservation_id}, now);
  ASSERT_TRUE(again.error.ok()) << again.error.message;
  EXPECT_EQ(again.info.created, made);
  EXPECT_EQ(again.info.window_end, made + 9000);
}

// Transactions that ended are remembered across a restart (from the store's history): a
// commit of a part a compensation released says so (a broker's decision settler must not
// take it for a cluster without a part), a late prepare of it is refused.
TEST_F(fixture, ARestartRemembersTheTransactionsThatEnded) {
  auto j = std::make_shared<memory_journal>();
  make(0, j);
  auto h = svc->prepare(hold("T.1#0", now + 600, 3600, 8), now);
  ASSERT_TRUE(h.error.ok()) << h.error.message;
  ASSERT_TRUE(svc->commit_txn({"T.1#0"}, now).error.ok());
  ASSERT_TRUE(svc->release_txn({"T.1#0"}, now).error.ok());  // the compensation's release
  now += 5;
  auto rows = *j->rows_of("c1");
  make(0, j);
  recovery_report report;
  ASSERT_TRUE(svc->recover(rows, plan_recovery(rows, {}), now, report));
  auto c = svc->commit_txn({"T.1#0"}, now);
  EXPECT_EQ(c.error.err(), errc::illegal_transition) << c.error.message;
  EXPECT_NE(c.error.message.find("cancelled"), std::string::npos) << c.error.message;
  EXPECT_EQ(svc->commit_txn({"T.1#1"}, now).error.err(), errc::not_found);  // no such part
  EXPECT_FALSE(svc->prepare(hold("T.1#0", now + 600, 3600, 8), now).error.ok());
  EXPECT_EQ(lrms_reservations(), 0u);
}

// An agent's recovery (keep_in_doubt_holds): a hold without a commit decision stays a hold
// until its expiry, so that a broker's commit still on its way succeeds; past its expiry it
// is released as before. Without the setting: presumed abort.
TEST_F(fixture, AnAgentKeepsInDoubtHoldsUntilTheirExpiry) {
  for (bool keep : {false, true}) {
    auto j = std::make_shared<memory_journal>();
    make(0, j);
    // The node restarts on its store (a new, empty simulated LRMS), recovering its rows.
    const auto restart = [&](bool keep_holds, recovery_report& report) {
      auto rows = *j->rows_of("c1");
      svc.reset();
      auto l = simulated_lrms::create({"c1", 64, {8, {}}, [this] { return now; }});
      ASSERT_TRUE(l);
      lrms = l->get();
      auto cfg = testing::c1_config();
      cfg.refresh = 0;
      cfg.journal = j;
      cfg.keep_in_doubt_holds = keep_holds;
      auto s = cluster_service::create(cfg, std::move(*l));
      ASSERT_TRUE(s);
      svc = std::move(*s);
      ASSERT_TRUE(svc->recover(rows, plan_recovery(rows, {}), now, report));
    };
    auto h = svc->prepare(hold("b1:t", now + 600, 3600, 8), now);  // expires at now + 60
    ASSERT_TRUE(h.error.ok()) << h.error.message;
    auto soon = hold("b1:u", now + 600, 3600, 8);
    soon.expiry = now + 10;
    ASSERT_TRUE(svc->prepare(soon, now).error.ok());
    now += 20;  // one hold is due by now, the other is not
    recovery_report report;
    restart(keep, report);
    EXPECT_EQ(report.kept_holds, keep ? 1 : 0);
    EXPECT_EQ(report.aborted_holds, keep ? 1 : 2);
    EXPECT_EQ(lrms_reservations(), keep ? 1u : 0u);
    auto c = svc->commit_txn({"b1:t"}, now);
    EXPECT_EQ(c.error.ok(), keep) << c.error.message;
    EXPECT_FALSE(svc->commit_txn({"b1:u"}, now).error.ok());
    if (keep) {
      EXPECT_EQ(svc->query({"alice", h.reservation_id}, now).info.state,
                reservation_state::committed);
    }
    // A kept hold nobody commits expires at its time, like any other.
    auto again = svc->prepare(hold("b1:v", now + 600, 3600, 8), now);
    ASSERT_TRUE(again.error.ok()) << again.error.message;
    recovery_report second;
    restart(true, second);
    EXPECT_EQ(second.kept_holds, 1);
    now += 61;
    svc->sweep(now);
    EXPECT_EQ(svc->query({"alice", again.reservation_id}, now).error.code,
              static_cast<std::uint8_t>(errc::not_found));  // expired, forgotten
    EXPECT_EQ(j->rows.at(again.reservation_id).state, reservation_state::expired);
  }
}

// A hold that expired has left memory (with a store) by the time a late phase-two commit
// arrives: the coordinator is told the hold expired, not that its transaction is unknown;
// a transaction never prepared here is still unknown.
TEST_F(fixture, ALateCommitOfAForgottenExpiredHoldIsToldItExpired) {
  auto j = std::make_shared<memory_journal>();
  make(0, j);
  auto h = svc->prepare(hold("late", now + 600, 3600, 8), now);
  ASSERT_TRUE(h.error.ok()) << h.error.message;
  now += 61;
  svc->sweep(now);
  ASSERT_EQ(j->rows.at(h.reservation_id).state, reservation_state::expired);
  EXPECT_EQ(svc->query({"alice", h.reservation_id}, now).error.code,
            static_cast<std::uint8_t>(errc::not_found));  // forgotten here
  auto c = svc->commit_txn({"late"}, now);
  EXPECT_EQ(c.error.code, static_cast<std::uint8_t>(errc::illegal_transition)) << c.error.message;
  EXPECT_NE(c.error.message.find(h.reservation_id), std::string::npos) << c.error.message;
  EXPECT_NE(c.error.message.find("expired"), std::string::npos) << c.error.message;
  EXPECT_EQ(svc->commit_txn({"never"}, now).error.code, static_cast<std::uint8_t>(errc::not_found));
  EXPECT_TRUE(svc->abort_txn({"late"}, now).error.ok());  // presumed abort, as before
}

// The audit trail's source: every recorded change, with or without a store, and none that
// the store refused.
TEST_F(fixture, EveryRecordedChangeIsToldOnceAndARefusedOneIsNot) {
  for (bool with_store : {false, true}) {
    SCOPED_TRACE(with_store ? "with a store" : "without a store");
    auto j = with_store ? std::make_shared<memory_journal>() : nullptr;
    std::vector<std::pair<std::string, reservation_state>> told;
    make(0, j, ljp_policy::enforce, ljp_method::ese,
         [&](const reservation_row& r) { told.emplace_back(r.id, r.state); });
    using rs = reservation_state;
    auto p = svc->prepare(hold("t1", now + 600, 3600, 8), now);
    ASSERT_TRUE(p.error.ok());
    ASSERT_TRUE(svc->commit_txn({"t1"}, now).error.ok());
    ASSERT_TRUE(svc->cancel({"alice", p.reservation_id}, now).error.ok());
    auto q = svc->prepare(hold("t2", now + 600, 3600, 8), now);
    ASSERT_TRUE(q.error.ok());
    svc->sweep(now + 61);
    const std::vector<std::pair<std::string, rs>> want{{p.reservation_id, rs::accepted},
                                                       {p.reservation_id, rs::committed},
                                                       {p.reservation_id, rs::cancelled},
                                                       {q.reservation_id, rs::accepted},
                                                       {q.reservation_id, rs::expired}};
    EXPECT_EQ(told, want);
    if (j) {
      told.clear();
      j->broken = true;
      EXPECT_FALSE(svc->prepare(hold("t3", now + 600, 3600, 8), now).error.ok());
      EXPECT_TRUE(told.empty()) << "a change the store refused was reported";
    }
  }
}

TEST_F(fixture, AStoreThatCannotWriteRefusesAndChangesNothing) {
  auto j = std::make_shared<memory_journal>();
  make(0, j);
  auto kept = svc->prepare(hold("t1", now + 600, 3600, 8), now);
  ASSERT_TRUE(kept.error.ok());
  j->broken = true;
  // A new hold: refused, nothing left in the LRMS.
  auto p = svc->prepare(hold("t2", now + 600, 3600, 16), now);
  EXPECT_EQ(p.error.code, static_cast<std::uint8_t>(errc::storage_failure));
  EXPECT_EQ(lrms_reservations(), 1u);
  // A commit: refused, the hold stays a hold.
  auto c = svc->commit_txn({"t1"}, now);
  EXPECT_EQ(c.error.code, static_cast<std::uint8_t>(errc::storage_failure));
  EXPECT_EQ(svc->query({"alice", kept.reservation_id}, now).info.state,
            reservation_state::accepted);
  // Once the store works again the same commit goes through.
  j->broken = false;
  ASSERT_TRUE(svc->commit_txn({"t1"}, now).error.ok());
  j->broken = true;
  // A cancel: refused, the reservation still holds its CPUs in the LRMS.
  auto x = svc->cancel({"alice", kept.reservation_id}, now);
  EXPECT_EQ(x.error.code, static_cast<std::uint8_t>(errc::storage_failure));
  EXPECT_EQ(lrms_reservations(), 1u);
  EXPECT_EQ(svc->query({"alice", kept.reservation_id}, now).info.state,
            reservation_state::committed);
}

TEST_F(fixture, StatusCountsEventsForMetrics) {
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

TEST_F(fixture, EstimateHonoursQueuedLocalJobsAndReservations) {
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
