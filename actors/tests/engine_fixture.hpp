#pragma once

// A whole engine (GIS, cluster services on simulated LRMSs, broker) on CAF's deterministic
// test coordinator, with one hand-moved clock for the LRMSs, the services and CAF's timers.

#include <gtest/gtest.h>
#include <caf/all.hpp>

#include <functional>
#include <map>
#include <string>

#include "arbroker/actors/broker.hpp"
#include "arbroker/actors/cluster_service_actor.hpp"
#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/gis.hpp"
#include "arbroker/messages/checked_requests.hpp"
#include "arbroker/messages/speedup_spec.hpp"
#include "arbroker/sim/simulated_lrms.hpp"

namespace arbroker::testing {

struct test_config : caf::actor_system_config {
  test_config() {
    configure_engine(*this);
    set("scheduler.policy", caf::atom("testing"));
  }
};

class engine_fixture : public ::testing::Test {
 public:
  engine_fixture()
      : sys(cfg),
        sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())),
        self(sys, true) {
    gis = spawn_gis(sys);
    broker_config bc;
    bc.gis = gis;
    bc.clock = clock();
    bc.request_timeout = 20;
    bc.prepare_expiry = 10;
    broker = spawn_broker(sys, bc);
    broker_cfg = bc;
  }

  ~engine_fixture() override {
    for (auto& [name, c] : services)
      self->send_exit(c, caf::exit_reason::user_shutdown);
    self->send_exit(broker, caf::exit_reason::user_shutdown);
    self->send_exit(gis, caf::exit_reason::user_shutdown);
    sched.run();
  }

  clock_fn clock() {
    return [this] { return now; };
  }

  /// A simulated cluster named `name` with `cpus` CPUs of power `pp`, reserving in bunches.
  /// `describe` may add to what the cluster publishes (benchmarks, bandwidth, ...).
  void add_cluster(const std::string& name, int cpus, double pp, int bunch = 1,
                   double unit_cost = 1.0,
                   const std::function<void(msg::cluster_info&)>& describe = nullptr) {
    cluster_service_config c;
    c.info.name = name;
    c.info.cpus = cpus;
    c.info.pp = pp;
    c.info.bunch = bunch;
    c.refresh = 0;
    c.laxity = laxity;
    if (retention >= 0) c.retention = retention;
    c.cost = *cost_model::create(unit_cost, 3600, {}, 0);
    if (describe) describe(c.info);
    if (c.info.max_hold > 0) c.max_hold = c.info.max_hold;  // what it publishes it grants
    simulated_lrms_config sc{name, cpus, {bunch, {}}, clock()};
    sc.nodes = c.info.nodes;  // the nodes it publishes are the LRMS's
    auto l = simulated_lrms::create(std::move(sc));
    ASSERT_TRUE(l);
    lrms[name] = l->get();
    auto svc = cluster_service::create(c, std::move(*l));
    ASSERT_TRUE(svc);
    auto handle =
        spawn_cluster_service(sys, std::shared_ptr<cluster_service>(std::move(*svc)), clock());
    services[name] = handle;
    auto ack = ask<msg::ack_reply>(gis, register_atom::value, c.info, handle);
    ASSERT_TRUE(ack.error.ok());
  }

  /// A message as the engine takes it: a client request checked (the test fails if it does
  /// not pass), anything else as it is.
  template <class T>
  static decltype(auto) checked(T&& x) {
    using plain = std::decay_t<T>;
    if constexpr (std::is_same_v<plain, msg::elastic_request> ||
                  std::is_same_v<plain, msg::coreservation_request>) {
      auto c = msg::check(x);
      if (!c) ADD_FAILURE() << "check: " << c.err().message;
      using engine_form = std::decay_t<decltype(*c)>;
      return c ? engine_form(std::move(*c)) : engine_form{};
    } else {
      return std::forward<T>(x);
    }
  }

  /// Sends a request (client requests checked first) and runs the engine until the reply is
  /// there.
  template <class Reply, class Handle, class... Ts>
  Reply ask(const Handle& dest, Ts&&... xs) {
    auto h = self->request(dest, caf::infinite, checked(std::forward<Ts>(xs))...);
    sched.run();
    Reply out{};
    bool got = false;
    h.receive(
        [&](Reply& r) {
          out = std::move(r);
          got = true;
        },
        [&](caf::error& e) { ADD_FAILURE() << "error reply: " << sys.render(e); });
    EXPECT_TRUE(got);
    return out;
  }

  /// A coordinator's call to a cluster service (tagged), and the reply.
  template <class Reply, class Request>
  Reply call(const cluster_service_actor& service, Request req) {
    auto h = self->request(service, caf::infinite, msg::call_tag{1}, std::move(req));
    sched.run();
    Reply out{};
    bool got = false;
    h.receive(
        [&](msg::call_tag, Reply& r) {
          out = std::move(r);
          got = true;
        },
        [&](caf::error& e) { ADD_FAILURE() << "error reply: " << sys.render(e); });
    EXPECT_TRUE(got);
    return out;
  }

  /// Moves the hand clock and CAF's test clock together, then runs what became due.
  void advance(duration d) {
    now += d;
    sched.advance_time(std::chrono::seconds(d));
    sched.run();
  }

  std::size_t lrms_reservations(const std::string& name) {
    return lrms.at(name)->snapshot()->reservations.size();
  }

  msg::elastic_request elastic(std::int64_t est_offset, std::int64_t window, int np_min, int np_max,
                               std::int64_t dur_ref, std::int32_t np_ref) {
    msg::elastic_request r;
    r.user = "alice";
    r.est = now + est_offset;
    r.let = now + est_offset + window;
    msg::set_linear_work(r, np_min, np_max, dur_ref, np_ref);
    r.prefer = msg::default_preferences();
    r.tsn_max = 4;
    r.tss_gap = 600;
    return r;
  }

  /// The clusters of a what-if answer to `r`, best first, as one string of their names
  /// (clusters named by one letter read "bacedf"); the test fails if the broker refuses.
  std::string whatif_ranking(msg::elastic_request r) {
    r.mode = msg::request_mode::whatif;
    auto reply = ask<msg::elastic_reply>(broker, r);
    EXPECT_TRUE(reply.error.ok()) << r.policy << ": " << reply.error.message;
    std::string out;
    for (const auto& s : reply.ranked)
      out += s.cluster;
    return out;
  }

  timestamp now = 2'000'000'000;
  test_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  caf::scoped_actor self;
  gis_actor gis;
  broker_actor broker;
  broker_config broker_cfg;
  bool laxity = false;  ///< clusters added from now on move movable reservations (paper 002)
  /// Clusters added from now on keep finished reservations in memory this long (-1: the
  /// default; 0: they leave at once, as with a journal, which keeps them instead).
  duration retention = -1;
  std::map<std::string, cluster_service_actor> services;
  std::map<std::string, simulated_lrms*> lrms;  // owned by the services
};

}  // namespace arbroker::testing
