// The broker on three simulated clusters and stand-ins: where elastic requests land, holds and
// their commits, probes, tries, failures, the directory (the faults: broker_faults_test.cpp).

#include "arbroker/actors/broker.hpp"

#include "broker_fixture.hpp"

namespace arbroker {
namespace {

using testing::broker_test;
using testing::code;

TEST_F(broker_test, ElasticRequestLandsOnTheBestCandidate) {
  // 8 CPUs for 1 h at power 1000, linear speedup; window of 4 h starting in 1 h.
  auto reply = ask<msg::elastic_reply>(broker, elastic(3600, 4 * 3600, 4, 16, 3600, 8));
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  const auto& r = reply.reservation;
  // Earliest end: "fast" with 16 CPUs (twice the CPUs, twice the power): 15 minutes.
  EXPECT_EQ(r.cluster, "fast");
  EXPECT_EQ(r.np, 16);
  EXPECT_EQ(r.start, now + 3600);
  EXPECT_EQ(r.end, now + 3600 + 900);
  EXPECT_EQ(r.state, reservation_state::committed);
  EXPECT_EQ(r.id.rfind("fast/", 0), 0u);
  EXPECT_EQ(reply.stats.clusters, 3);
  EXPECT_GT(reply.stats.candidates, 0);
  // It is really there: committed at the service and in the LRMS.
  auto st = ask<msg::cluster_status>(services["fast"], msg::cluster_status_request{});
  EXPECT_EQ(st.committed, 1);
  EXPECT_EQ(lrms_reservations("fast"), 1u);
  auto q = ask<msg::query_reply>(broker, msg::query_request{"alice", r.id});
  ASSERT_TRUE(q.error.ok()) << q.error.message;
  auto expected = msg::reservation_info{r.id,
                                        "fast",
                                        "alice",
                                        r.start,
                                        r.end,
                                        16,
                                        reservation_state::committed,
                                        0,
                                        now /* T_wkl of an idle cluster */,
                                        q.info.cost};
  expected.created = now;              // the service's clock when it granted the hold
  expected.window_start = now + 3600;  // what the request asked for
  expected.window_end = now + 3600 + 4 * 3600;
  EXPECT_EQ(q.info, expected);
  // The reply is the reservation as a query shows it (its creation, window and LJP bound
  // were 0 in the reply).
  EXPECT_EQ(r, q.info);
}

// Issue 33: a user who asks to waive Local Jobs Preferred where the sites enforce it is
// refused with permission_denied, also when the request names one slot of one cluster and the
// broker prepares at once, without a probe (the prepare's refusal was answered `busy`).
TEST_F(broker_test, AUsersWaiverOfEnforcedLjpIsPermissionDeniedNotBusy) {
  for (bool one_slot : {false, true}) {
    auto r = elastic(3600, one_slot ? 3600 : 4 * 3600, 8, 8, 3600, 8);
    r.local_jobs_preferred = false;
    if (one_slot) r.clusters = {"mid"};  // pp 1000: exactly the window at 8 CPUs
    auto reply = ask<msg::elastic_reply>(broker, r);
    EXPECT_EQ(code(reply.error), errc::permission_denied)
        << one_slot << ": " << reply.error.message;
  }
  EXPECT_EQ(lrms_reservations("mid"), 0u);
}

TEST_F(broker_test, CostFirstPrefersTheCheapCluster) {
  auto req = elastic(3600, 8 * 3600, 4, 16, 3600, 8);
  req.prefer = *parse_preferences("cost,end");
  auto reply = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  // Linear speedup: CPU-hours are the same for every np on a cluster; "slow" needs
  // 2 CPU-hours per reference CPU-hour at 0.5 = 8.0 for 8 CPU-hours; "fast" 0.5 * 2 = 8.0;
  // "mid" 8 * 1.0 = 8.0: all equal, so end time decides: "fast" with 16 CPUs.
  EXPECT_EQ(reply.reservation.cluster, "fast");
  req.prefer = *parse_preferences("cost,-end");  // equal cost, latest end first
  auto late = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(late.error.ok());
  EXPECT_EQ(late.reservation.end, req.let);
}

TEST_F(broker_test, WhatIfRanksWithoutReserving) {
  auto req = elastic(3600, 4 * 3600, 4, 16, 3600, 8);
  req.mode = msg::request_mode::whatif;
  auto reply = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(reply.error.ok());
  ASSERT_GT(reply.ranked.size(), 3u);
  for (std::size_t i = 1; i < reply.ranked.size(); ++i)
    EXPECT_LE(reply.ranked[i - 1].end, reply.ranked[i].end);  // end first
  for (const auto& name : {"slow", "fast", "mid"})
    EXPECT_EQ(lrms_reservations(name), 0u);
}

// A window over before the request arrived is refused as such, for a reservation, a what-if
// (it answered an empty list) and a matchmaking policy alike (issue 37); a window that began
// earlier but ends later is searched from now.
TEST_F(broker_test, AWindowThatEndedBeforeNowIsRefusedSayingSo) {
  for (const char* policy : {"", "mli"})
    for (auto mode : {msg::request_mode::reserve, msg::request_mode::whatif}) {
      auto req = elastic(-2 * 3600, 3600, 4, 16, 600, 8);  // [now - 2 h, now - 1 h)
      req.policy = policy;
      req.mode = mode;
      auto reply = ask<msg::elastic_reply>(broker, req);
      EXPECT_EQ(code(reply.error), errc::invalid_window) << policy;
      EXPECT_NE(reply.error.message.find("the window ended before now"), std::string::npos)
          << reply.error.message;
      EXPECT_TRUE(reply.ranked.empty());
    }
  auto started = elastic(-3600, 4 * 3600, 4, 16, 600, 8);
  auto reply = ask<msg::elastic_reply>(broker, started);
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  EXPECT_GE(reply.reservation.start, now);
}

// Issue 37: a what-if names every cluster that offers nothing, and why, beside its candidates
// (it used to drop them silently); with nothing at all, the reasons are all there is.
TEST_F(broker_test, AWhatIfSaysWhichClustersOfferNothingAndWhy) {
  ASSERT_TRUE(lrms.at("fast")->submit_local_job({"local", "local", 32, 10 * 3600, {}, ""},
                                                10 * 3600));  // fast: full for 10 hours
  for (const char* policy : {"", "mli"}) {
    SCOPED_TRACE(policy);
    auto req = elastic(3600, 4 * 3600, 20, 32, 3600, 20);  // 20 CPUs at least: not on mid
    req.mode = msg::request_mode::whatif;
    req.policy = policy;
    auto reply = ask<msg::elastic_reply>(broker, req);
    ASSERT_TRUE(reply.error.ok()) << reply.error.message;
    ASSERT_FALSE(reply.ranked.empty());
    for (const auto& s : reply.ranked)
      EXPECT_EQ(s.cluster, "slow");
    ASSERT_FALSE(reply.passed_over.empty());
    const auto& mid = reply.passed_over.back();
    EXPECT_EQ(mid.cluster, "mid");
    EXPECT_EQ(code(mid.error), errc::infeasible);
    EXPECT_EQ(mid.error.message, "has 16 CPUs");
    if (*policy) continue;  // a policy ranks every cluster it asked, full or not
    ASSERT_EQ(reply.passed_over.size(), 2u);
    EXPECT_EQ(reply.passed_over[0].cluster, "fast");
    EXPECT_EQ(code(reply.passed_over[0].error), errc::busy);
    EXPECT_NE(reply.passed_over[0].error.message.find("the CPUs are taken"), std::string::npos)
        << reply.passed_over[0].error.message;
  }
  // Nothing anywhere: an empty ranking, every cluster named.
  auto none = elastic(3600, 4 * 3600, 20, 32, 3600, 20);
  none.mode = msg::request_mode::whatif;
  none.clusters = {"fast", "mid"};
  auto reply = ask<msg::elastic_reply>(broker, none);
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  EXPECT_TRUE(reply.ranked.empty());
  ASSERT_EQ(reply.passed_over.size(), 2u);  // slow was not asked for: not named
  EXPECT_EQ(reply.passed_over[0].cluster, "fast");
  EXPECT_EQ(reply.passed_over[1].cluster, "mid");
}

TEST_F(broker_test, HoldThenClientCommitsByReservationId) {
  auto req = minute_hold();
  auto held = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(held.error.ok()) << held.error.message;
  EXPECT_EQ(held.reservation.state, reservation_state::accepted);
  EXPECT_EQ(held.reservation.expiry, now + 60);
  // Somebody else cannot commit it; the owner can.
  auto foreign =
      ask<msg::query_reply>(broker, msg::commit_request{"mallory", held.reservation.id, {}});
  EXPECT_EQ(code(foreign.error), errc::not_found);
  auto ok = ask<msg::query_reply>(broker, msg::commit_request{"alice", held.reservation.id, {}});
  ASSERT_TRUE(ok.error.ok()) << ok.error.message;
  // The reply shows the reservation as the commit left it (it showed the hold before).
  EXPECT_EQ(ok.info.state, reservation_state::committed);
  EXPECT_EQ(ok.info.expiry, 0);
  advance(120);  // past the hold's expiry: committed, so it stays
  EXPECT_EQ(lrms_reservations(held.reservation.cluster), 1u);
}

// Issue 16: a second commit or cancel changed nothing and says so (both used to succeed
// silently), with the state the reservation is in; the first one's effect stands.
TEST_F(broker_test, ASecondCommitOrCancelSaysItChangedNothing) {
  auto req = minute_hold();
  auto held = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(held.error.ok()) << held.error.message;
  const auto id = held.reservation.id;
  const auto cluster = held.reservation.cluster;
  ASSERT_TRUE(ask<msg::query_reply>(broker, msg::commit_request{"alice", id, {}}).error.ok());
  auto again = ask<msg::query_reply>(broker, msg::commit_request{"alice", id, {}});
  EXPECT_EQ(code(again.error), errc::illegal_transition);
  EXPECT_NE(again.error.message.find("is committed: committed already"), std::string::npos)
      << again.error.message;
  EXPECT_EQ(again.info.state, reservation_state::committed);
  EXPECT_EQ(lrms_reservations(cluster), 1u);

  ASSERT_TRUE(ask<msg::ack_reply>(broker, msg::cancel_request{"alice", id}).error.ok());
  EXPECT_EQ(lrms_reservations(cluster), 0u);
  auto twice = ask<msg::ack_reply>(broker, msg::cancel_request{"alice", id});
  EXPECT_EQ(code(twice.error), errc::illegal_transition);
  EXPECT_NE(twice.error.message.find("is cancelled: nothing to cancel"), std::string::npos)
      << twice.error.message;
  auto after = ask<msg::query_reply>(broker, msg::query_request{"alice", id});
  EXPECT_EQ(after.info.state, reservation_state::cancelled);
  // A commit of a cancelled one is refused as before.
  auto late = ask<msg::query_reply>(broker, msg::commit_request{"alice", id, {}});
  EXPECT_EQ(code(late.error), errc::illegal_transition);
}

// Issue 16: a hold longer than a cluster grants (its published max_hold) is not tried there;
// when no cluster for the request grants it, the error says so (it was "busy" after every
// try was refused), and nothing is held.
TEST_F(broker_test, AHoldLongerThanAClusterGrantsGoesElsewhereOrIsRefusedClearly) {
  add_cluster("brief", 64, 4000, 4, 0.1, [](msg::cluster_info& i) { i.max_hold = 300; });
  add_cluster("patient", 64, 500, 4, 5.0, [](msg::cluster_info& i) { i.max_hold = 3600; });
  auto req = elastic(3600, 4 * 3600, 4, 16, 3600, 8);
  req.mode = msg::request_mode::hold;
  req.hold_seconds = 1200;
  req.clusters = {"brief"};
  auto refused = ask<msg::elastic_reply>(broker, req);
  EXPECT_EQ(code(refused.error), errc::invalid_parameter);
  EXPECT_NE(refused.error.message.find("a hold of 1200 s"), std::string::npos)
      << refused.error.message;
  EXPECT_NE(refused.error.message.find("max_hold: brief 300 s"), std::string::npos)
      << refused.error.message;
  EXPECT_EQ(lrms_reservations("brief"), 0u);
  // The fastest and cheapest cluster cannot hold it that long: the hold goes to the other.
  req.clusters = {"brief", "patient"};
  auto held = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(held.error.ok()) << held.error.message;
  EXPECT_EQ(held.reservation.cluster, "patient");
  EXPECT_EQ(held.reservation.expiry, now + 1200);
  // Within both limits the faster one wins, as without them.
  req.hold_seconds = 300;
  held = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(held.error.ok()) << held.error.message;
  EXPECT_EQ(held.reservation.cluster, "brief");
}

TEST_F(broker_test, UncommittedHoldExpiresByItselfOnTime) {
  auto req = minute_hold();
  auto held = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(held.error.ok());
  const auto& cluster = held.reservation.cluster;
  EXPECT_EQ(lrms_reservations(cluster), 1u);
  advance(59);
  EXPECT_EQ(lrms_reservations(cluster), 1u);
  advance(1);  // the service's own timer fires; no other message is sent
  EXPECT_EQ(lrms_reservations(cluster), 0u);
  auto late = ask<msg::query_reply>(broker, msg::commit_request{"alice", held.reservation.id, {}});
  EXPECT_EQ(code(late.error), errc::illegal_transition);
}

TEST_F(broker_test, ForeignOrGuessedIdsLookMissingAndChangeNothing) {
  auto mine = ask<msg::elastic_reply>(broker, elastic(3600, 4 * 3600, 4, 16, 3600, 8));
  ASSERT_TRUE(mine.error.ok());
  const auto id = mine.reservation.id;
  for (const auto& target :
       {id, std::string("fast/999"), std::string("nowhere/1"), std::string("garbage")}) {
    auto c = ask<msg::ack_reply>(broker, msg::cancel_request{"mallory", target});
    EXPECT_EQ(code(c.error), errc::not_found) << target;
    auto q = ask<msg::query_reply>(broker, msg::query_request{"mallory", target});
    EXPECT_EQ(code(q.error), errc::not_found) << target;
  }
  EXPECT_EQ(lrms_reservations(mine.reservation.cluster), 1u);
  auto c = ask<msg::ack_reply>(broker, msg::cancel_request{"alice", id});
  ASSERT_TRUE(c.error.ok()) << c.error.message;
  EXPECT_EQ(lrms_reservations(mine.reservation.cluster), 0u);
  EXPECT_TRUE(ask<msg::list_reply>(broker, msg::list_request{"alice"}).reservations.empty());
  auto list = ask<msg::list_reply>(broker, msg::list_request{"alice", true, 0, ""});
  ASSERT_EQ(list.reservations.size(), 1u);  // without a store, history is in memory
  EXPECT_EQ(list.reservations[0].state, reservation_state::cancelled);
}

TEST_F(broker_test, ContendedSlotGoesToOneRequestOnly) {
  // Both want all 16 CPUs of "mid" for the whole (exact) window: only one can have it.
  auto req = elastic(3600, 3600, 16, 16, 3600, 16);
  req.clusters = {"mid"};
  auto h1 = self->request(broker, caf::infinite, checked(req));
  auto h2 = self->request(broker, caf::infinite, checked(req));
  sched.run();
  int ok = 0, busy = 0;
  for (auto* h : {&h1, &h2}) {
    h->receive(
        [&](msg::elastic_reply& r) {
          if (r.error.ok())
            ++ok;
          else if (code(r.error) == errc::busy || code(r.error) == errc::infeasible)
            ++busy;
        },
        [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  }
  EXPECT_EQ(ok, 1);
  EXPECT_EQ(busy, 1);
  EXPECT_EQ(lrms_reservations("mid"), 1u);
}

TEST_F(broker_test, ProbesSendTheBestFewAndTheRestIsFetchedWhenTheyAreTaken) {
  // A broker whose probes return one candidate per cluster.
  auto one_each = broker_cfg;
  one_each.probe_keep = 1;
  auto frugal = spawn_broker(sys, one_each);
  sched.run();
  // Ended on every way out of the test, or the actor system would wait for it forever.
  std::shared_ptr<void> end_frugal(nullptr, [&](void*) {
    self->send_exit(frugal, caf::exit_reason::user_shutdown);
    sched.run();
  });
  // All 16 CPUs of "mid" for 1 h in a 3 h window: the earliest start is best (end first).
  auto req = elastic(3600, 3 * 3600, 16, 16, 3600, 16);
  req.clusters = {"mid"};
  auto ranked = req;
  ranked.mode = msg::request_mode::whatif;
  auto whatif = ask<msg::elastic_reply>(frugal, ranked);
  ASSERT_TRUE(whatif.error.ok());
  ASSERT_GE(whatif.ranked.size(), 2u);  // a what-if still shows every candidate
  // Both probe before either reserves, so both are sent only the first start; the second
  // is refused there and must fetch the rest to land on the next start.
  auto h1 = self->request(frugal, caf::infinite, checked(req));
  auto h2 = self->request(frugal, caf::infinite, checked(req));
  sched.run();
  std::vector<msg::elastic_reply> replies;
  for (auto* h : {&h1, &h2})
    h->receive([&](msg::elastic_reply& r) { replies.push_back(r); },
               [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  ASSERT_EQ(replies.size(), 2u);
  for (const auto& r : replies)
    ASSERT_TRUE(r.error.ok()) << r.error.message;
  // Exactly one prepare was refused, and the one refused went on to the best slot left:
  // with the other reservation gone again, a what-if ranks it first.
  auto refused = [](const msg::elastic_reply& r) {
    return r.stats.rejected_by_service + r.stats.rejected_by_lrms;
  };
  ASSERT_EQ(refused(replies[0]) + refused(replies[1]), 1);
  const auto& first = refused(replies[0]) == 0 ? replies[0] : replies[1];
  const auto& second = refused(replies[0]) == 0 ? replies[1] : replies[0];
  EXPECT_EQ(first.reservation.start, whatif.ranked[0].start);
  EXPECT_EQ(lrms_reservations("mid"), 2u);
  ASSERT_TRUE(
      ask<msg::ack_reply>(frugal, msg::cancel_request{"alice", second.reservation.id}).error.ok());
  auto after = ask<msg::elastic_reply>(frugal, ranked);
  ASSERT_FALSE(after.ranked.empty());
  EXPECT_EQ(second.reservation.start, after.ranked[0].start);
  EXPECT_EQ(second.reservation.end, after.ranked[0].end);
}

TEST_F(broker_test, AFixedSlotOnOneClusterIsPreparedWithoutAProbe) {
  // A stand-in service that grants every prepare and counts what it is asked.
  int probes = 0, prepares = 0;
  auto solo = sys.spawn([&](caf::event_based_actor*) -> caf::behavior {
    return {
        // Tagged, as the broker's elastic workers call services (protocols.hpp).
        probes_by([&](const msg::probe_request&) {
          ++probes;
          msg::probe_reply r;
          r.cluster = "solo";
          r.error = msg::wire(errc::busy, "stand-in: no candidates");
          return r;
        }),
        [&](msg::call_tag tag, const msg::prepare_request& p) {
          ++prepares;
          msg::prepare_reply r;
          r.txn = p.txn;
          r.reservation_id = "solo/1";
          r.cost = 42;
          return caf::make_message(tag, r);
        },
    };
  });
  ASSERT_NO_FATAL_FAILURE(register_stand_in("solo", solo));
  // Exactly 8 CPUs for exactly the window: one candidate, so no probe.
  auto fixed = elastic(3600, 3600, 8, 8, 3600, 8);
  fixed.clusters = {"solo"};
  auto reply = ask<msg::elastic_reply>(broker, fixed);
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  EXPECT_EQ(reply.reservation.id, "solo/1");
  EXPECT_EQ(reply.reservation.start, fixed.est);
  EXPECT_EQ(reply.reservation.end, fixed.let);
  EXPECT_EQ(reply.reservation.np, 8);
  EXPECT_EQ(reply.reservation.cost, 42);  // what the service priced, not a guess
  EXPECT_EQ(probes, 0);
  EXPECT_EQ(prepares, 1);
  // A window with room to move needs the probe (which this stand-in answers with nothing).
  auto elastic_one = elastic(3600, 2 * 3600, 8, 8, 3600, 8);
  elastic_one.clusters = {"solo"};
  EXPECT_FALSE(ask<msg::elastic_reply>(broker, elastic_one).error.ok());
  EXPECT_EQ(probes, 1);
  EXPECT_EQ(prepares, 1);
  self->send_exit(solo, caf::exit_reason::user_shutdown);
  sched.run();
}

TEST_F(broker_test, TriesGoOnInPreferenceOrderFarDownTheRanking) {
  // A stand-in that offers 20 one-hour slots in scrambled order and refuses every prepare
  // but the one for the 13th earliest end: the worker ranks only the head of its candidates
  // at first and must sort further, in the same order, as its tries go on.
  std::vector<timestamp> tried_ends;
  const timestamp base = now + 3600;
  auto many = sys.spawn([&](caf::event_based_actor*) -> caf::behavior {
    return {
        probes_by([&](const msg::probe_request& p) {
          msg::probe_reply r;
          r.cluster = "many";
          for (int i = 0; i < 20; ++i) {
            const timestamp start = base + ((i * 7) % 20) * 600;  // a permutation of 0..19
            r.slots.push_back(priced_slot("many", start, start + 3600, p.site.shapes.front().np));
          }
          r.generated = r.above_threshold = r.available = 20;
          return r;
        }),
        [&](msg::call_tag tag, const msg::prepare_request& p) {
          tried_ends.push_back(p.end);
          msg::prepare_reply r;
          r.txn = p.txn;
          if (p.end == base + 12 * 600 + 3600)
            r.reservation_id = "many/1";
          else
            r.error = msg::wire(errc::busy, "stand-in: taken");
          return caf::make_message(tag, r);
        },
    };
  });
  ASSERT_NO_FATAL_FAILURE(register_stand_in("many", many));
  auto req = elastic(3600, 24 * 3600, 8, 8, 3600, 8);
  req.clusters = {"many"};
  auto reply = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  EXPECT_EQ(reply.reservation.id, "many/1");
  ASSERT_EQ(tried_ends.size(), 13u);
  for (std::size_t i = 0; i < tried_ends.size(); ++i)
    EXPECT_EQ(tried_ends[i], base + static_cast<timestamp>(i) * 600 + 3600) << i;
  self->send_exit(many, caf::exit_reason::user_shutdown);
  sched.run();
}

TEST_F(broker_test, FailureCarriesReasonAndEarliestAlternative) {
  // Fill "mid" completely for hours 1-3, then ask for it exactly there.
  auto block = elastic(3600, 2 * 3600, 16, 16, 2 * 3600, 16);
  block.clusters = {"mid"};
  auto blocked = ask<msg::elastic_reply>(broker, block);
  ASSERT_TRUE(blocked.error.ok()) << blocked.error.message;
  auto req = elastic(3600, 3600, 8, 8, 3600, 8);
  req.clusters = {"mid"};
  auto reply = ask<msg::elastic_reply>(broker, req);
  ASSERT_FALSE(reply.error.ok());
  EXPECT_TRUE(code(reply.error) == errc::infeasible || code(reply.error) == errc::busy);
  EXPECT_FALSE(reply.error.message.empty());
  // 8 CPUs for an hour fit first when the block ends, 3 h from now.
  EXPECT_EQ(reply.earliest_alternative, now + 3 * 3600);
  // Asking again there succeeds.
  req.est = reply.earliest_alternative;
  req.let = req.est + 3600;
  EXPECT_TRUE(ask<msg::elastic_reply>(broker, req).error.ok());
}

// A stand-in that counts its probes and offers, when `offer` says so, the earliest slot of
// the request's largest shape (the best end it can reach), at `unit_cost` per CPU-hour.
struct counting_service {
  std::string name;
  double unit_cost = 1;
  bool offer = true;
  int probes = 0;
  caf::behavior operator()(caf::event_based_actor*) {
    return {
        [this](msg::call_tag tag, const msg::probe_batch_request& b) {
          msg::probe_batch_reply out;
          for (const auto& p : b.probes) {
            ++probes;
            msg::probe_reply r;
            r.cluster = name;
            const auto& shape = p.site.shapes.back();
            if (offer) {
              auto sl =
                  broker_test::priced_slot(name, p.site.est, p.site.est + shape.dur, shape.np);
              sl.cost = unit_cost * shape.np * static_cast<double>(shape.dur) / 3600;
              r.slots.push_back(sl);
              r.generated = r.above_threshold = r.available = 1;
            }
            out.replies.push_back(r);
          }
          return caf::make_message(tag, out);
        },
        [this](msg::call_tag tag, const msg::prepare_request& p) {
          msg::prepare_reply r;
          r.txn = p.txn;
          r.reservation_id = name + "/1";
          return caf::make_message(tag, r);
        },
    };
  }
};

TEST_F(broker_test, OnlyClustersThatCouldEndFirstAreProbedUntilATryGetsPastThem) {
  // "a" and "b" (power 4000) can end the job at the same time, "c" (1000) only later.
  counting_service a{"a", 2.0}, b{"b", 1.0}, c{"c", 0.1};
  auto ha = sys.spawn([&](caf::event_based_actor* s) { return a(s); });
  auto hb = sys.spawn([&](caf::event_based_actor* s) { return b(s); });
  auto hc = sys.spawn([&](caf::event_based_actor* s) { return c(s); });
  ASSERT_NO_FATAL_FAILURE(register_stand_in("a", ha, 4000));
  ASSERT_NO_FATAL_FAILURE(register_stand_in("b", hb, 4000));
  ASSERT_NO_FATAL_FAILURE(register_stand_in("c", hc, 1000));
  auto req = elastic(3600, 8 * 3600, 4, 16, 3600, 8);
  req.clusters = {"a", "b", "c"};
  // End first, then cost: a and b tie on the end and both are asked (b is cheaper); c
  // cannot end as early, so asking it could change nothing.
  auto first = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(first.error.ok()) << first.error.message;
  EXPECT_EQ(first.reservation.cluster, "b");
  EXPECT_EQ(std::tie(a.probes, b.probes, c.probes), std::make_tuple(1, 1, 0));
  EXPECT_EQ(first.stats.clusters, 3);
  // When the fast ones have nothing, the others are asked before the client hears "no".
  a.offer = b.offer = false;
  auto second = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(second.error.ok()) << second.error.message;
  EXPECT_EQ(second.reservation.cluster, "c");
  EXPECT_EQ(std::tie(a.probes, b.probes, c.probes), std::make_tuple(2, 2, 1));
  // Cost first: no bound from the window decides it, every cluster is asked at once.
  req.prefer = *parse_preferences("cost,end");
  a.offer = b.offer = true;
  auto third = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(third.error.ok()) << third.error.message;
  EXPECT_EQ(third.reservation.cluster, "c");  // the cheapest
  EXPECT_EQ(std::tie(a.probes, b.probes, c.probes), std::make_tuple(3, 3, 2));
  for (const auto& h : {ha, hb, hc})
    self->send_exit(h, caf::exit_reason::user_shutdown);
  sched.run();
}

TEST_F(broker_test, TheBusyTimeHintIsAskedOnlyForARequestThatFails) {
  // A stand-in whose probes find nothing in the window and whose hint says "in 7 hours".
  int hints = 0;
  auto full = sys.spawn([&](caf::event_based_actor*) -> caf::behavior {
    return {
        probes_by([](const msg::probe_request&) {
          msg::probe_reply r;
          r.cluster = "full";
          return r;
        }),
        [&](msg::call_tag tag, const msg::busy_hint_request& q) {
          ++hints;
          return caf::make_message(tag, msg::busy_hint_reply{"full", q.site.est + 7 * 3600, {}});
        },
    };
  });
  ASSERT_NO_FATAL_FAILURE(register_stand_in("full", full));
  auto req = elastic(3600, 4 * 3600, 4, 8, 3600, 8);
  req.clusters = {"full", "mid"};
  auto placed = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(placed.error.ok()) << placed.error.message;
  EXPECT_EQ(placed.reservation.cluster, "mid");
  EXPECT_EQ(hints, 0);  // "mid" had room: nobody needs to know when "full" will
  req.clusters = {"full"};
  auto refused = ask<msg::elastic_reply>(broker, req);
  EXPECT_EQ(code(refused.error), errc::infeasible);
  EXPECT_EQ(hints, 1);
  EXPECT_EQ(refused.earliest_alternative, req.est + 7 * 3600);
  req.mode = msg::request_mode::whatif;  // an empty ranking says when, too
  auto ranked = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(ranked.error.ok());
  EXPECT_TRUE(ranked.ranked.empty());
  EXPECT_EQ(ranked.earliest_alternative, req.est + 7 * 3600);
  EXPECT_EQ(hints, 2);
  self->send_exit(full, caf::exit_reason::user_shutdown);
  sched.run();
}

TEST_F(broker_test, BadRequestsAreRefusedWithTypedErrors) {
  // What check() refuses never reaches the engine; what only the grid can tell (no cluster
  // is large enough), the broker refuses. Nothing is reserved either way.
  auto r = elastic(3600, 3600, 4, 16, 3600, 8);
  auto refused = [](const msg::elastic_request& bad) { return msg::check(bad).err().code; };
  auto bad = r;
  bad.let = bad.est;
  EXPECT_EQ(refused(bad), errc::invalid_window);
  bad = r;
  bad.np_min = 32;
  EXPECT_EQ(refused(bad), errc::invalid_processor_range);
  bad = r;
  bad.speedup.p1 = 3;
  EXPECT_EQ(refused(bad), errc::invalid_speedup_model);
  bad = r;
  bad.prefer.push_back({objective_attribute::end, true});  // "end" twice
  EXPECT_EQ(refused(bad), errc::invalid_parameter);
  bad = r;
  bad.user = "";
  EXPECT_EQ(refused(bad), errc::permission_denied);
  bad = r;
  bad.np_min = 100;
  bad.np_max = 100;
  EXPECT_EQ(code(ask<msg::elastic_reply>(broker, bad).error), errc::infeasible);
  bad = r;
  bad.policy = "mli";
  bad.np_min = 100;
  bad.np_max = 100;
  EXPECT_EQ(code(ask<msg::elastic_reply>(broker, bad).error), errc::infeasible);
  for (const auto& name : {"slow", "fast", "mid"})
    EXPECT_EQ(lrms_reservations(name), 0u);
}

TEST_F(broker_test, FollowsTheDirectoryWhenAServiceEnds) {
  auto req = elastic(3600, 4 * 3600, 4, 16, 3600, 8);
  auto first = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(first.error.ok()) << first.error.message;
  ASSERT_EQ(first.reservation.cluster, "fast");
  // "fast" goes away: the GIS drops it and tells the broker, which stops offering it and
  // reports its reservations as unknown (not a hang, not an error from a dead actor).
  self->send_exit(services["fast"], caf::exit_reason::user_shutdown);
  sched.run();
  services.erase("fast");
  auto second = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(second.error.ok()) << second.error.message;
  EXPECT_EQ(second.stats.clusters, 2);
  EXPECT_NE(second.reservation.cluster, "fast");
  auto q = ask<msg::query_reply>(broker, msg::query_request{"alice", first.reservation.id});
  EXPECT_EQ(code(q.error), errc::not_found);
  // A cluster registered later is offered to the very next request.
  add_cluster("faster", 32, 4000, 4, 2.0);
  auto third = ask<msg::elastic_reply>(broker, req);
  ASSERT_TRUE(third.error.ok()) << third.error.message;
  EXPECT_EQ(third.reservation.cluster, "faster");
  EXPECT_EQ(third.stats.clusters, 3);
}

TEST_F(broker_test, GisSendsItsWholeDirectoryToSubscribersOnEveryChange) {
  std::vector<std::vector<std::string>> seen;
  auto names = [&](std::vector<msg::cluster_info>& infos) {
    std::vector<std::string> out;
    for (const auto& i : infos)
      out.push_back(i.name);
    seen.push_back(out);
  };
  auto subscriber = sys.spawn([&](caf::event_based_actor* s) -> caf::behavior {
    s->request(gis, caf::infinite, subscribe_atom::value)
        .then([&](directory_atom, std::vector<msg::cluster_info>& infos,
                  std::vector<cluster_service_actor>&) { names(infos); });
    return {[&](directory_atom, std::vector<msg::cluster_info>& infos,
                std::vector<cluster_service_actor>&) { names(infos); }};
  });
  sched.run();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], (std::vector<std::string>{"fast", "mid", "slow"}));
  add_cluster("extra", 8, 1000);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1], (std::vector<std::string>{"extra", "fast", "mid", "slow"}));
  self->send_exit(services["mid"], caf::exit_reason::user_shutdown);
  sched.run();
  services.erase("mid");
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[2], (std::vector<std::string>{"extra", "fast", "slow"}));
  self->send_exit(subscriber, caf::exit_reason::user_shutdown);
  sched.run();
}

}  // namespace
}  // namespace arbroker
