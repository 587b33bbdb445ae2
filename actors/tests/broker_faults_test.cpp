// The broker when what it calls fails: a service that dies while asked, a grant that comes
// after its request timed out, an elastic worker that dies with requests in flight, a part
// in doubt whose release is answered late.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "arbroker/actors/broker.hpp"
#include "broker_fixture.hpp"
#include "broker_state.hpp"

namespace arbroker {
namespace {

using testing::broker_test;
using testing::code;

TEST_F(broker_test, AServiceThatDiesWhileAskedIsPassedOverAtOnce) {
  // A stand-in that offers the best slot there is and ends when asked to prepare it.
  int prepares = 0;
  auto vanishing = sys.spawn([&](caf::event_based_actor* s) -> caf::behavior {
    return {
        probes_by([&](const msg::probe_request& p) {
          msg::probe_reply r;
          r.cluster = "vanishing";
          // Ends before anything "mid" can offer.
          r.slots.push_back(
              priced_slot("vanishing", p.site.est, p.site.est + 60, p.site.shapes.front().np));
          r.generated = r.above_threshold = r.available = 1;
          return r;
        }),
        [&, s](msg::call_tag, const msg::prepare_request&) {
          ++prepares;
          s->quit();  // no answer, ever
        },
    };
  });
  ASSERT_NO_FATAL_FAILURE(register_stand_in("vanishing", vanishing));
  auto req = elastic(3600, 4 * 3600, 4, 8, 3600, 8);
  req.clusters = {"vanishing", "mid"};
  auto h = self->request(broker, caf::infinite, checked(req));
  sched.run();  // no clock advance: an answer now cannot come from the request's deadline
  EXPECT_EQ(prepares, 1);
  ASSERT_FALSE(self->mailbox().empty()) << "the request waits for a service that is gone";
  h.receive(
      [](msg::elastic_reply& r) {
        ASSERT_TRUE(r.error.ok()) << r.error.message;
        EXPECT_EQ(r.reservation.cluster, "mid");
      },
      [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
}

// A stand-in service that grants every prepare, but only when told to ("go"), and notes the
// reservations released: a prepare still on its way when its request times out.
struct slow_service {
  using go_atom = caf::atom_constant<caf::atom("go")>;
  std::vector<std::pair<caf::response_promise, msg::call_tag>> waiting;
  std::map<std::string, std::string> granted;  // txn -> reservation id
  std::vector<std::string> cancelled;          // reservation ids released
  caf::behavior operator()(caf::event_based_actor* s) {
    return {
        [](msg::call_tag tag, const msg::advice_request& q) {
          msg::advice_reply a;
          a.cluster = "late";
          a.meets_qos = true;
          a.np = q.site.shapes.front().np;
          a.start = q.site.est;
          a.end = q.site.est + q.site.shapes.front().dur;
          return caf::make_message(tag, a);
        },
        [this, s](msg::call_tag tag, const msg::prepare_request& p) {
          auto rp = s->make_response_promise();
          granted[p.txn] = "late/" + std::to_string(granted.size() + 1);
          waiting.push_back({rp, tag});
          return rp;
        },
        [this](go_atom) {
          for (auto& [rp, tag] : waiting) {
            msg::prepare_reply r;
            r.reservation_id = "late/" + std::to_string(cancelled.size() + 1);
            rp.deliver(tag, r);
          }
          waiting.clear();
        },
        [this](msg::call_tag tag, const msg::release_txn_request& r) {
          cancelled.push_back(granted.at(r.txn));
          return caf::make_message(tag, msg::ack_reply{});
        },
    };
  }
};

TEST_F(broker_test, WhatATimedOutRequestIsGrantedLateIsCancelled) {
  slow_service late;
  auto svc = sys.spawn([&](caf::event_based_actor* s) { return late(s); });
  ASSERT_NO_FATAL_FAILURE(register_stand_in("late", svc));
  for (const std::string policy : {"", "ff"}) {  // the elastic worker, then the matchmaker
    SCOPED_TRACE("policy '" + policy + "'");
    auto req = elastic(3600, 3600, 8, 8, 3600, 8);
    req.clusters = {"late"};
    req.policy = policy;
    auto h = self->request(broker, caf::infinite, checked(req));
    sched.run();
    ASSERT_EQ(late.waiting.size(), 1u);  // the prepare is held back
    advance(broker_cfg.request_timeout);
    h.receive([](msg::elastic_reply& r) { EXPECT_EQ(code(r.error), errc::timeout); },
              [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
    const auto before = late.cancelled.size();
    self->send(svc, slow_service::go_atom::value);  // the grant arrives after the timeout
    sched.run();
    ASSERT_EQ(late.cancelled.size(), before + 1);
    EXPECT_EQ(late.cancelled.back(), "late/" + std::to_string(before + 1));
  }
  self->send_exit(svc, caf::exit_reason::user_shutdown);
  sched.run();
}

TEST_F(broker_test, AnElasticWorkerThatDiesIsReplacedAndItsRequestsAnswered) {
  slow_service late;
  auto svc = sys.spawn([&](caf::event_based_actor* s) { return late(s); });
  ASSERT_NO_FATAL_FAILURE(register_stand_in("late", svc));
  auto* b = dynamic_cast<caf::stateful_actor<broker_state, broker_impl_actor::base>*>(
      caf::actor_cast<caf::abstract_actor*>(broker));
  ASSERT_NE(b, nullptr);
  const auto pool = b->state.elastic_workers;
  ASSERT_EQ(pool.size(), static_cast<std::size_t>(broker_cfg.elastic_workers));
  // One request in flight on every worker, each held at its prepare.
  auto req = elastic(3600, 3600, 8, 8, 3600, 8);
  req.clusters = {"late"};
  std::vector<decltype(self->request(broker, caf::infinite, checked(req)))> pending;
  for (std::size_t i = 0; i < pool.size(); ++i)
    pending.push_back(self->request(broker, caf::infinite, checked(req)));
  sched.run();
  ASSERT_EQ(late.waiting.size(), pool.size());
  // The worker of the first request dies: its client hears why, the others wait on.
  self->send_exit(pool[0], caf::exit_reason::user_shutdown);
  sched.run();
  pending[0].receive(
      [](msg::elastic_reply& r) {
        EXPECT_EQ(code(r.error), errc::internal);
        EXPECT_NE(r.error.message.find("terminated before answering"), std::string::npos)
            << r.error.message;
      },
      [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  // It was replaced; the pool still serves every request, the others' included.
  ASSERT_EQ(b->state.elastic_workers.size(), pool.size());
  EXPECT_NE(b->state.elastic_workers[0], pool[0]);
  self->send(svc, slow_service::go_atom::value);
  sched.run();
  for (std::size_t i = 1; i < pending.size(); ++i)
    pending[i].receive([](msg::elastic_reply& r) { EXPECT_TRUE(r.error.ok()) << r.error.message; },
                       [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  // The dead worker's grant went to nobody (its hold expires by itself, as for any
  // coordinator that dies). New requests are served by the whole pool, the new worker too.
  auto small = elastic(3600, 30 * 24 * 3600, 4, 4, 600, 4);
  small.clusters = {"slow", "fast", "mid"};
  for (std::size_t i = 0; i < pool.size(); ++i) {
    auto r = ask<msg::elastic_reply>(broker, small);
    EXPECT_TRUE(r.error.ok()) << r.error.message;
  }
  self->send_exit(svc, caf::exit_reason::user_shutdown);
  sched.run();
}

// A stand-in whose first prepare ends in doubt (unreachable, as from a leader whose lease ran
// out): the attempt releases that part with a call nothing waits for (its settle call), and
// the request probes again. The stand-in holds that release's answer and the second probe
// until told, so that the release is answered while the request waits for the probe.
struct doubtful_service {
  using answer_release_atom = caf::atom_constant<caf::atom("rel")>;
  using answer_probe_atom = caf::atom_constant<caf::atom("probe")>;
  int probes = 0, prepares = 0, releases = 0;
  std::vector<std::pair<caf::response_promise, msg::call_tag>> held_releases;
  std::vector<std::pair<caf::response_promise, msg::call_tag>> held_probes;
  timestamp later = 0;  // the start the second probe offers
  // A probe's answer: one slot of 8 CPUs for an hour from `start`, of `available` it has.
  static msg::probe_batch_reply one_slot(timestamp start, std::int32_t available) {
    msg::probe_reply r;
    r.cluster = "doubtful";
    r.slots.push_back(broker_test::priced_slot("doubtful", start, start + 3600, 8));
    r.generated = r.above_threshold = r.available = available;
    msg::probe_batch_reply out;
    out.replies.push_back(r);
    return out;
  }
  caf::behavior operator()(caf::event_based_actor* s) {
    return {
        [this, s](msg::call_tag tag, const msg::probe_batch_request& b) -> caf::message {
          ++probes;
          const auto& p = b.probes.front();
          if (probes == 1)  // its best slot, and word of more (a refill fetches them)
            return caf::make_message(tag, one_slot(p.site.est, 3));
          later = p.site.est + 600;
          held_probes.push_back({s->make_response_promise(), tag});
          return {};
        },
        [this](msg::call_tag tag, const msg::prepare_request&) {
          msg::prepare_reply r;
          if (++prepares == 1)
            r.error = msg::wire(errc::unreachable, "the lease ran out: it changes nothing");
          else
            r.reservation_id = "doubtful/1";
          return caf::make_message(tag, r);
        },
        [this, s](msg::call_tag tag, const msg::release_txn_request&) -> caf::message {
          ++releases;
          held_releases.push_back({s->make_response_promise(), tag});
          return {};
        },
        [this](answer_release_atom) {
          for (auto& [rp, tag] : held_releases)
            rp.deliver(tag, msg::ack_reply{});
          held_releases.clear();
        },
        [this](answer_probe_atom) {
          for (auto& [rp, tag] : held_probes)
            rp.deliver(tag, one_slot(later, 1));
          held_probes.clear();
        },
    };
  }
};

TEST_F(broker_test, TheAnswerToAReleaseInDoubtStartsNoSecondTry) {
  doubtful_service d;
  auto svc = sys.spawn([&](caf::event_based_actor* s) { return d(s); });
  ASSERT_NO_FATAL_FAILURE(register_stand_in("doubtful", svc));
  auto req = elastic(3600, 4 * 3600, 8, 8, 3600, 8);
  req.clusters = {"doubtful"};
  auto h = self->request(broker, caf::infinite, checked(req));
  sched.run();
  ASSERT_EQ(d.prepares, 1);
  ASSERT_EQ(d.releases, 1) << "the part in doubt is released";
  ASSERT_EQ(d.probes, 2) << "the request probes again for the slots held back";
  // The release is answered while the request waits for its probe: that changes nothing
  // for the request (it used to start a try from the candidates of before the probe).
  self->send(svc, doubtful_service::answer_release_atom::value);
  sched.run();
  EXPECT_EQ(d.prepares, 1);
  EXPECT_TRUE(self->mailbox().empty()) << "answered before its probe came back";
  self->send(svc, doubtful_service::answer_probe_atom::value);
  sched.run();
  EXPECT_EQ(d.prepares, 2);
  h.receive(
      [&](msg::elastic_reply& r) {
        ASSERT_TRUE(r.error.ok()) << r.error.message;
        EXPECT_EQ(r.reservation.start, d.later);
      },
      [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  self->send_exit(svc, caf::exit_reason::user_shutdown);
  sched.run();
}

}  // namespace
}  // namespace arbroker
