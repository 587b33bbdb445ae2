#include "engine_fixture.hpp"

#include "arbroker/core/preference.hpp"
#include "memory_journal.hpp"

namespace arbroker {
namespace {

using testing::engine_fixture;

errc code(const msg::wire_error& e) {
  return e.err();
}

/// How the stand-in participant behaves in phase one and two.
enum class script { refuse, never_answer, kill_coordinator, die_before_commit, cooperate };

struct standin_state {
  script how = script::cooperate;
  int prepares = 0;
  static inline const char* name = "standin";
};

// The whole window, for any probe (its smallest shape).
msg::probe_reply offer_whole_window(const msg::probe_request& p) {
  msg::probe_reply r;
  r.cluster = "x";
  const auto& shape = p.site.shapes.front();
  r.windows.push_back({shape.np, shape.dur, p.site.est, p.site.let - shape.dur, 0});
  return r;
}

// A participant that offers the whole window in its probe and then follows its script. It
// speaks the coordinators' dialect: tagged calls, answered (tag, reply).
caf::behavior standin(caf::stateful_actor<standin_state>* self, script how) {
  self->state.how = how;
  return {
      [](msg::call_tag tag, const msg::probe_batch_request& b) {
        msg::probe_batch_reply r;
        for (const auto& p : b.probes)
          r.replies.push_back(offer_whole_window(p));
        return caf::make_message(tag, r);
      },
      [self](msg::call_tag tag, const msg::prepare_request& p) -> caf::result<caf::message> {
        ++self->state.prepares;
        switch (self->state.how) {
          case script::refuse:
            return caf::make_message(tag, msg::prepare_reply{p.txn, "", -1, msg::refusal::lrms,
                                                             msg::wire(errc::busy, "no")});
          case script::never_answer:
            return self->make_response_promise();  // kept by nobody: no reply ever
          case script::kill_coordinator:
            self->send_exit(caf::actor_cast<caf::actor>(self->current_sender()),
                            caf::exit_reason::kill);
            return caf::make_message(tag, msg::prepare_reply{p.txn, "x/1", -1, {}, {}});
          default:
            return caf::make_message(tag, msg::prepare_reply{p.txn, "x/1", -1, {}, {}});
        }
      },
      [self](msg::call_tag tag, const msg::commit_txn_request&) -> caf::result<caf::message> {
        if (self->state.how == script::die_before_commit) {
          self->quit(caf::exit_reason::kill);
          return self->make_response_promise();
        }
        return caf::make_message(tag, msg::ack_reply{});
      },
      [](msg::call_tag tag, const msg::abort_txn_request&) {
        return caf::make_message(tag, msg::ack_reply{});
      },
      [](msg::call_tag tag, const msg::release_txn_request&) {
        return caf::make_message(tag, msg::ack_reply{});
      },
  };
}

struct coreservation_test : engine_fixture {
  void SetUp() override {
    add_cluster("a", 16, 1000);
    add_cluster("b", 16, 1000);
    add_cluster("c", 16, 1000);
  }

  void add_standin(script how) {
    standin_actor = sys.spawn(standin, how);
    msg::cluster_info info;
    info.name = "x";
    info.cpus = 16;
    info.pp = 1000;
    ASSERT_TRUE(ask<msg::ack_reply>(gis, register_atom::value, info,
                                    caf::actor_cast<cluster_service_actor>(standin_actor))
                    .error.ok());
  }

  msg::coreservation_component component(std::vector<std::string> clusters, duration offset = 0) {
    msg::coreservation_component c;
    msg::set_linear_work(c, 8, 8, 3600, 8);
    c.offset = offset;
    c.clusters = std::move(clusters);
    return c;
  }

  msg::coreservation_request request(std::vector<msg::coreservation_component> parts) {
    msg::coreservation_request r;
    r.user = "alice";
    r.est = now + 3600;
    r.let = now + 6 * 3600;
    r.components = std::move(parts);
    r.max_attempts = 3;
    return r;
  }

  /// Live (held or committed) reservations on the real clusters.
  std::size_t live_everywhere() {
    return lrms_reservations("a") + lrms_reservations("b") + lrms_reservations("c");
  }

  caf::actor standin_actor;
};

TEST_F(coreservation_test, AProbeBatchAnswersLikeItsProbesOneByOne) {
  // Block part of "a" so that the windows are not trivial.
  auto block = elastic(2 * 3600, 3600, 8, 8, 3600, 8);
  block.clusters = {"a"};
  ASSERT_TRUE(ask<msg::elastic_reply>(broker, block).error.ok());
  msg::probe_batch_request batch;
  for (int np : {4, 12}) {
    msg::probe_request p;
    p.user = "alice";
    p.site = {now + 3600, now + 6 * 3600, {{np, 3600}}};
    p.want_windows = true;
    batch.probes.push_back(p);
  }
  batch.probes.back().site.shapes[0].np = 0;  // a bad one answers with its own error, in its place
  auto together = call<msg::probe_batch_reply>(services["a"], batch);
  ASSERT_TRUE(together.error.ok());
  ASSERT_EQ(together.replies.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    auto alone =
        call<msg::probe_batch_reply>(services["a"], msg::probe_batch_request{{batch.probes[i]}})
            .replies.at(0);
    EXPECT_EQ(together.replies[i], alone) << "probe " << i;
  }
  EXPECT_TRUE(together.replies[0].error.ok());
  EXPECT_FALSE(together.replies[0].windows.empty());
  EXPECT_FALSE(together.replies[1].error.ok());
}

TEST_F(coreservation_test, AllComponentsCommitTogether) {
  auto reply = ask<msg::coreservation_reply>(
      broker, request({component({}), component({}), component({}, 600)}));
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  ASSERT_EQ(reply.parts.size(), 3u);
  std::set<std::string> clusters;
  for (const auto& p : reply.parts) {
    clusters.insert(p.cluster);
    EXPECT_EQ(p.state, reservation_state::committed);
    EXPECT_EQ(p.np, 8);
  }
  EXPECT_EQ(clusters.size(), 3u);  // distinct clusters
  EXPECT_EQ(reply.parts[0].start, now + 3600);
  EXPECT_EQ(reply.parts[1].start, reply.parts[0].start);
  EXPECT_EQ(reply.parts[2].start, reply.parts[0].start + 600);  // its offset
  EXPECT_EQ(live_everywhere(), 3u);
  for (const auto& p : reply.parts) {
    auto q = ask<msg::query_reply>(broker, msg::query_request{"alice", p.id});
    EXPECT_EQ(q.info.state, reservation_state::committed);
    EXPECT_EQ(p, q.info);  // every part as a query shows it (creation, window, LJP bound)
  }
}

TEST_F(coreservation_test, FindsTheCommonStartAcrossBusyClusters) {
  // "a" is full for the first two hours of the window: the common start moves after it.
  auto block = elastic(3600, 2 * 3600, 16, 16, 2 * 3600, 16);
  block.clusters = {"a"};
  ASSERT_TRUE(ask<msg::elastic_reply>(broker, block).error.ok());
  auto reply = ask<msg::coreservation_reply>(
      broker, request({component({"a"}), component({"b"}), component({"c"})}));
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  for (const auto& p : reply.parts)
    EXPECT_EQ(p.start, now + 3 * 3600);
}

// The request's preferences rank the common starts over the combined parts: "a" is full
// for two hours, "d" is free but five times as dear. By start, the first part goes to "d"
// at once; by cost, it waits for "a".
TEST_F(coreservation_test, PreferencesRankTheCommonStarts) {
  add_cluster("d", 16, 1000, 1, 5.0);
  auto block = elastic(3600, 2 * 3600, 16, 16, 2 * 3600, 16);
  block.clusters = {"a"};
  ASSERT_TRUE(ask<msg::elastic_reply>(broker, block).error.ok());
  auto req = request({component({"a", "d"}), component({"b"})});
  auto by_start = ask<msg::coreservation_reply>(broker, req);
  ASSERT_TRUE(by_start.error.ok()) << by_start.error.message;
  EXPECT_EQ(by_start.parts[0].cluster, "d");
  EXPECT_EQ(by_start.parts[0].start, now + 3600);
  EXPECT_DOUBLE_EQ(by_start.parts[0].cost, 5.0 * 8);
  for (const auto& p : by_start.parts)
    ASSERT_TRUE(ask<msg::ack_reply>(broker, msg::cancel_request{"alice", p.id}).error.ok());

  req.prefer = *parse_preferences("cost,start");
  auto by_cost = ask<msg::coreservation_reply>(broker, req);
  ASSERT_TRUE(by_cost.error.ok()) << by_cost.error.message;
  EXPECT_EQ(by_cost.parts[0].cluster, "a");
  EXPECT_EQ(by_cost.parts[0].start, now + 3 * 3600);
  EXPECT_EQ(by_cost.parts[1].start, now + 3 * 3600);
  EXPECT_DOUBLE_EQ(by_cost.parts[0].cost + by_cost.parts[1].cost, 16.0);

  // A success rate or a site names no value of the combined parts.
  req.prefer = *parse_preferences("-esr");
  EXPECT_EQ(msg::check(req).err().code, errc::invalid_parameter);
}

// Several components may share a cluster (paper 002 has no rule against it): two parts of
// 8 CPUs on "a" (16 CPUs), each with its own hold there; three of 8 cannot be.
TEST_F(coreservation_test, SeveralComponentsOnOneClusterAsFarAsItsCpusGo) {
  auto reply = ask<msg::coreservation_reply>(broker, request({component({"a"}), component({"a"})}));
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  ASSERT_EQ(reply.parts.size(), 2u);
  EXPECT_EQ(reply.parts[0].cluster, "a");
  EXPECT_EQ(reply.parts[1].cluster, "a");
  EXPECT_NE(reply.parts[0].id, reply.parts[1].id);
  EXPECT_EQ(reply.parts[0].start, reply.parts[1].start);
  EXPECT_EQ(lrms_reservations("a"), 2u);
  for (const auto& p : reply.parts)
    EXPECT_EQ(ask<msg::query_reply>(broker, msg::query_request{"alice", p.id}).info.state,
              reservation_state::committed);

  auto three = ask<msg::coreservation_reply>(
      broker, request({component({"b"}), component({"b"}), component({"b"})}));
  EXPECT_EQ(code(three.error), errc::infeasible) << three.error.message;
  EXPECT_EQ(lrms_reservations("b"), 0u);
}

// Each part's window on "c" alone says 8 CPUs are free at the first hour; together they are
// not (a block of 8 over [1 h, 3 h)): the cluster's prepare refuses the second, the try is
// aborted, and the next common start after the block holds both.
TEST_F(coreservation_test, PartsSharingAClusterMustFitThereTogether) {
  auto block = elastic(3600, 2 * 3600, 8, 8, 2 * 3600, 8);
  block.clusters = {"c"};
  ASSERT_TRUE(ask<msg::elastic_reply>(broker, block).error.ok());
  auto reply = ask<msg::coreservation_reply>(broker, request({component({"c"}), component({"c"})}));
  ASSERT_TRUE(reply.error.ok()) << reply.error.message << " after " << reply.attempts;
  EXPECT_GE(reply.attempts, 2);
  for (const auto& p : reply.parts)
    EXPECT_EQ(p.start, now + 3 * 3600);
  EXPECT_EQ(lrms_reservations("c"), 3u);  // the block and the two parts
}

// Paper 000's success-rate filter on every part: "a" runs 8 of its 16 CPUs for 3 h, so
// T_wkl = now + 3 h (the running jobs' remaining time, weighted by their CPUs) and the load
// method rates earlier starts 0. Without a threshold the parts start at the window's start
// (the other 8 CPUs are free); with 1, at T_wkl.
TEST_F(coreservation_test, ASuccessRateThresholdCutsThePartsWindows) {
  ASSERT_TRUE(lrms.at("a")->submit_job({"local", "bob", 8, 3 * 3600, {}, ""}));
  auto req = request({component({"a"}), component({"b"})});
  auto any = ask<msg::coreservation_reply>(broker, req);
  ASSERT_TRUE(any.error.ok()) << any.error.message;
  EXPECT_EQ(any.parts[0].start, now + 3600);
  for (const auto& p : any.parts)
    ASSERT_TRUE(ask<msg::ack_reply>(broker, msg::cancel_request{"alice", p.id}).error.ok());
  req.esr = esr_method::load;
  req.esr_threshold = 1;
  auto sure = ask<msg::coreservation_reply>(broker, req);
  ASSERT_TRUE(sure.error.ok()) << sure.error.message;
  EXPECT_EQ(sure.parts[0].start, now + 3 * 3600);
  EXPECT_EQ(sure.parts[1].start, now + 3 * 3600);
  req.esr_threshold = 2;
  EXPECT_EQ(msg::check(req).err().code, errc::invalid_parameter);
}

TEST_F(coreservation_test, ParticipantRefusesAllAreAborted) {
  add_standin(script::refuse);
  auto reply = ask<msg::coreservation_reply>(
      broker, request({component({"a"}), component({"b"}), component({"x"})}));
  EXPECT_EQ(code(reply.error), errc::busy);
  EXPECT_EQ(reply.attempts, 3);      // three common starts tried, each refused by "x"
  EXPECT_EQ(live_everywhere(), 0u);  // every hold on a and b was aborted
}

TEST_F(coreservation_test, ParticipantNeverAnswersCoordinatorTimesOutAndAborts) {
  add_standin(script::never_answer);
  auto h = self->request(broker, caf::infinite,
                         checked(request({component({"a"}), component({"b"}), component({"x"})})));
  sched.run();
  EXPECT_EQ(live_everywhere(), 2u);  // a and b hold, x is silent
  advance(broker_cfg.request_timeout);
  h.receive([](msg::coreservation_reply& r) { EXPECT_EQ(code(r.error), errc::timeout); },
            [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  EXPECT_EQ(live_everywhere(), 0u);  // the coordinator aborted them
}

TEST_F(coreservation_test, ParticipantDiesBetweenPrepareAndCommitNothingRemains) {
  add_standin(script::die_before_commit);
  auto reply = ask<msg::coreservation_reply>(
      broker, request({component({"a"}), component({"b"}), component({"x"})}));
  EXPECT_FALSE(reply.error.ok());
  // a and b had committed; they were compensated (cancelled), not left behind.
  EXPECT_EQ(live_everywhere(), 0u);
  auto list = ask<msg::list_reply>(broker, msg::list_request{"alice"});
  for (const auto& r : list.reservations)
    EXPECT_FALSE(holds_capacity(r.state)) << r.id;
}

// A journal whose commit decisions are written at once and durable only when the test says
// so: the coordinator must not send a commit before.
struct held_decisions : testing::memory_journal {
  std::vector<std::string> logged;
  std::vector<std::function<void(status)>> waiting;
  result<write_ticket> log_commit_pipelined(const std::string& txn) override {
    logged.push_back(txn);
    return write_ticket{logged.size()};
  }
  void when_durable(write_ticket, std::function<void(status)> done) override {
    waiting.push_back(std::move(done));
  }
};

struct decided_coreservation_test : coreservation_test {
  std::shared_ptr<held_decisions> journal = std::make_shared<held_decisions>();
  broker_actor logging_broker;

  void SetUp() override {
    coreservation_test::SetUp();
    auto bc = broker_cfg;
    bc.journal = journal;
    logging_broker = spawn_broker(sys, bc);
  }
  void TearDown() override {
    self->send_exit(logging_broker, caf::exit_reason::user_shutdown);
    sched.run();
  }
  /// The journal's word on every decision waiting for it, until none waits (each new try
  /// of a refused request waits for its own).
  void settle_decisions(status outcome) {
    while (!journal->waiting.empty()) {
      auto w = std::move(journal->waiting);
      journal->waiting.clear();
      for (auto& done : w)
        done(outcome);
      sched.run();
    }
  }
  int committed_everywhere() {
    int n = 0;
    for (const char* c : {"a", "b", "c"})
      n += ask<msg::cluster_status>(services[c], msg::cluster_status_request{}).committed;
    return n;
  }
};

TEST_F(decided_coreservation_test, TheCommitsLeaveOnlyOnceTheDecisionIsDurable) {
  auto h = self->request(logging_broker, caf::infinite,
                         checked(request({component({"a"}), component({"b"}), component({"c"})})));
  sched.run();
  ASSERT_EQ(journal->logged.size(), 1u);
  ASSERT_EQ(journal->waiting.size(), 1u);
  EXPECT_EQ(live_everywhere(), 3u);      // every part holds
  EXPECT_EQ(committed_everywhere(), 0);  // and none is committed while the disk is busy
  settle_decisions({});                  // on disk now (the journal calls back from its thread)
  bool answered = false;
  h.receive(
      [&](msg::coreservation_reply& r) {
        answered = true;
        EXPECT_TRUE(r.error.ok()) << r.error.message;
        EXPECT_EQ(r.txn, journal->logged.front());
      },
      [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  EXPECT_TRUE(answered);
  EXPECT_EQ(committed_everywhere(), 3);
}

TEST_F(decided_coreservation_test, ADecisionTheDiskRefusesAbortsEveryPart) {
  auto h = self->request(logging_broker, caf::infinite,
                         checked(request({component({"a"}), component({"b"})})));
  sched.run();
  ASSERT_EQ(journal->waiting.size(), 1u);
  settle_decisions(fail(errc::storage_failure, "cannot sync the write-ahead log"));
  h.receive(
      [&](msg::coreservation_reply& r) {
        EXPECT_FALSE(r.error.ok());
        EXPECT_NE(r.error.message.find("cannot sync the write-ahead log"), std::string::npos)
            << r.error.message;
      },
      [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  EXPECT_EQ(live_everywhere(), 0u);
  EXPECT_EQ(committed_everywhere(), 0);
}

TEST_F(decided_coreservation_test, ADeadlineWhileDecidingReleasesEveryHoldAndNeverCommits) {
  auto h = self->request(logging_broker, caf::infinite,
                         checked(request({component({"a"}), component({"b"})})));
  sched.run();
  ASSERT_EQ(journal->waiting.size(), 1u);
  advance(broker_cfg.request_timeout);
  h.receive([](msg::coreservation_reply& r) { EXPECT_EQ(code(r.error), errc::timeout); },
            [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  EXPECT_EQ(live_everywhere(), 0u);      // released at the deadline
  settle_decisions({});                  // the decision reaches the disk late
  EXPECT_EQ(committed_everywhere(), 0);  // and commits nothing
  EXPECT_EQ(live_everywhere(), 0u);
}

TEST_F(coreservation_test, CoordinatorDiesAfterPrepareHoldsExpireByThemselves) {
  add_standin(script::kill_coordinator);
  auto h = self->request(broker, caf::infinite,
                         checked(request({component({"a"}), component({"b"}), component({"x"})})));
  sched.run();
  // The broker notices its agent died and still answers the client.
  h.receive(
      [](msg::coreservation_reply& r) {
        EXPECT_EQ(code(r.error), errc::internal);
        EXPECT_NE(r.error.message.find("coordinator terminated"), std::string::npos);
      },
      [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  EXPECT_EQ(live_everywhere(), 2u);  // prepared, never decided
  advance(broker_cfg.prepare_expiry);
  EXPECT_EQ(live_everywhere(), 0u);  // presumed abort: the holds expired on their own
}

TEST_F(coreservation_test, StrayErrorMessagesDoNotKillAService) {
  // CAF 0.17 terminates an actor that receives an error outside a request by default.
  auto untyped = caf::actor_cast<caf::actor>(services["a"]);
  caf::anon_send(untyped, caf::make_error(caf::sec::unexpected_message));
  caf::anon_send(untyped, msg::ack_reply{});  // a message it has no handler for
  sched.run();
  auto st = ask<msg::cluster_status>(services["a"], msg::cluster_status_request{});
  EXPECT_EQ(st.cluster, "a");
}

TEST_F(coreservation_test, BadRequestsAreRefused) {
  auto refused = [](const msg::coreservation_request& bad) { return msg::check(bad).err().code; };
  auto r = request({component({}), component({})});
  r.components.clear();
  EXPECT_EQ(refused(r), errc::invalid_parameter);
  r = request({component({}), component({}, 99 * 3600)});
  EXPECT_EQ(refused(r), errc::invalid_window);
  r = request({component({}), component({})});
  r.components[1].np_min = 20;
  EXPECT_EQ(refused(r), errc::invalid_processor_range);
  r = request({component({"a"}), component({"a"}), component({"a"})});  // 24 CPUs on 16
  EXPECT_EQ(code(ask<msg::coreservation_reply>(broker, r).error), errc::infeasible);
  EXPECT_EQ(live_everywhere(), 0u);
}

}  // namespace
}  // namespace arbroker
