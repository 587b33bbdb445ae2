// The agent protocol between two actor systems over loopback: a broker reserving on a cluster
// it reaches only through an agent, over mutual TLS; transactions scoped per broker at the
// agent; who is refused at the opening (wrong CA, wrong role, unlisted broker, wrong agent
// name, a skewed interface, a connection that never says hello); and what a caller gets when
// the agent goes away, comes back, or stops answering.

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <chrono>
#include <future>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include <caf/all.hpp>

#include "arbroker/actors/broker.hpp"
#include "arbroker/actors/cluster_service_actor.hpp"
#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/gis.hpp"
#include "arbroker/api/codec.hpp"
#include "arbroker/messages/checked_requests.hpp"
#include "arbroker/messages/msgpack_codec.hpp"
#include "arbroker/messages/speedup_spec.hpp"
#include "arbroker/remote/agent_protocol.hpp"
#include "arbroker/remote/agent_server.hpp"
#include "arbroker/remote/remote_agent.hpp"
#include "arbroker/sim/simulated_lrms.hpp"
#include "test_certificates.hpp"

namespace arbroker::remote {
namespace {

using namespace std::chrono_literals;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

std::string cert(const std::string& name) {
  return api::testing::certificate_file(name);
}

struct engine_cfg : caf::actor_system_config {
  engine_cfg() { configure_engine(*this, 2); }
};

msg::cluster_info c1_info() {
  msg::cluster_info i;
  i.name = "c1";
  i.cpus = 64;
  i.pp = 1000;
  return i;
}

/// The agent's process: cluster c1 (simulated, 64 CPUs) and, once serve() ran, its server.
struct agent_side {
  engine_cfg cfg;
  caf::actor_system sys{cfg};
  cluster_service_actor service;
  std::unique_ptr<agent_server> server;

  explicit agent_side(ljp_policy ljp = ljp_policy::off) {
    auto l = simulated_lrms::create({"c1", 64, {1, {}}, wall_clock()});
    cluster_service_config c;
    c.info = c1_info();
    c.refresh = 0;
    c.ljp = ljp;
    c.cost = *cost_model::create(1.0, 3600, {}, 0);
    c.scoped_callers = true;  // as an agent's (node.cpp)
    auto svc = cluster_service::create(c, std::move(*l));
    service =
        spawn_cluster_service(sys, std::shared_ptr<cluster_service>(std::move(*svc)), wall_clock());
  }
  ~agent_side() {
    server.reset();
    caf::anon_send_exit(service, caf::exit_reason::user_shutdown);
  }

  static agent_server_config tls_config() {
    agent_server_config c;
    c.name = "agent1";
    c.tls = api::make_server_tls({cert("agent1.pem"), cert("agent1.key"), cert("ca.pem")}).value();
    c.brokers = {"broker1", "broker2"};
    return c;
  }

  void serve(agent_server_config c = tls_config()) {
    auto s = agent_server::start(sys, std::move(c), {{c1_info(), service}});
    ASSERT_TRUE(s) << s.err().message;
    server = std::move(*s);
  }
  std::string address() const {
    return "127.0.0.1:" + std::to_string(server->local_endpoint().port());
  }
  /// The agent's process back, on the port it had.
  void serve_again(unsigned short port, agent_server_config c = tls_config()) {
    c.endpoint.port(port);
    serve(c);
  }
};

/// A broker node's process: its actor system, and the connection to one agent.
struct broker_side {
  engine_cfg cfg;
  caf::actor_system sys{cfg};
  std::unique_ptr<remote_agent> agent;

  remote_agent_config config(const std::string& address, const std::string& who = "broker1") {
    remote_agent_config c;
    c.address = address;
    c.agent_name = "agent1";
    c.broker_name = who;
    c.tls = api::make_client_tls({cert("ca.pem"), cert(who + ".pem"), cert(who + ".key")}).value();
    c.clusters = {"c1"};
    c.opening = 2000ms;
    c.call_timeout = 3000ms;
    c.backoff_min = 20ms;
    c.backoff_max = 200ms;
    return c;
  }
  void connect(remote_agent_config c) {
    auto a = remote_agent::start(sys, std::move(c));
    ASSERT_TRUE(a) << a.err().message;
    agent = std::move(*a);
  }
  /// Connected to `to` as broker1, over TLS.
  void connect_to(const agent_side& to) {
    connect(config(to.address()));
    ASSERT_TRUE(agent->wait_connected(10s)) << agent->last_error();
  }
  ~broker_side() { agent.reset(); }

  /// A coordinator's call to the remote cluster: the tag that came back and the reply.
  template <class Reply, class Request>
  std::pair<msg::call_tag, Reply> call(std::uint64_t tag, Request r) {
    caf::scoped_actor self{sys};
    std::pair<msg::call_tag, Reply> out{};
    self->request(agent->cluster("c1"), 20s, msg::call_tag{tag}, std::move(r))
        .receive(
            [&](msg::call_tag t, Reply& rep) {
              out = {t, std::move(rep)};
            },
            [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
    return out;
  }
  /// The grid-job manager's call (tagged) to the remote cluster.
  template <class Reply, class Request>
  Reply job_call(Request r) {
    return call<Reply>(++job_tags, std::move(r)).second;
  }
  std::uint64_t job_tags = 1000;
  /// A client's operation on the remote cluster (query, cancel, list).
  template <class Reply, class Request>
  Reply ask(Request r) {
    caf::scoped_actor self{sys};
    Reply out{};
    self->request(agent->cluster("c1"), 20s, std::move(r))
        .receive([&](Reply& rep) { out = std::move(rep); },
                 [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
    return out;
  }
};

msg::prepare_request hold(const std::string& txn, int np) {
  const auto now = wall_clock()();
  return {.txn = txn,
          .owner = "alice",
          .start = now + 3600,
          .end = now + 7200,
          .np = np,
          .expiry = now + 60,
          .local_jobs_preferred = false};
}

TEST(RemoteAgent, ABrokerReservesOnAClusterItReachesThroughAnAgent) {
  agent_side agent;
  agent.serve();
  broker_side node;
  auto gis = spawn_gis(node.sys);
  broker_config bc;
  bc.gis = gis;
  bc.clock = wall_clock();
  auto broker = spawn_broker(node.sys, bc);
  std::promise<msg::cluster_info> described;
  auto c = node.config(agent.address());
  c.on_cluster = [&described](const msg::cluster_info& info, const cluster_service_actor&) {
    described.set_value(info);
  };
  node.connect(c);
  ASSERT_TRUE(node.agent->wait_connected(10s)) << node.agent->last_error();
  // The agent's description of c1, registered with the GIS as a node does (the broker has
  // the directory before the GIS acknowledges).
  const auto info = described.get_future().get();
  EXPECT_EQ(info, c1_info());
  caf::scoped_actor self{node.sys};
  self->request(gis, 5s, register_atom::value, info, node.agent->cluster("c1"))
      .receive([](const msg::ack_reply& a) { EXPECT_TRUE(a.error.ok()); },
               [&](caf::error& e) { FAIL() << node.sys.render(e); });

  msg::elastic_request r;
  r.user = "alice";
  r.est = wall_clock()() + 3600;
  r.let = r.est + 4 * 3600;
  msg::set_linear_work(r, 8, 16, 3600, 8);
  r.prefer = msg::default_preferences();
  msg::elastic_reply reply;
  self->request(broker, 20s, *msg::check(r))
      .receive([&](msg::elastic_reply& x) { reply = std::move(x); },
               [&](caf::error& e) { FAIL() << node.sys.render(e); });
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  EXPECT_EQ(reply.reservation.cluster, "c1");
  EXPECT_GE(reply.reservation.np, 8);

  // The agent's service holds it, committed, as alice's.
  msg::cluster_status st;
  caf::scoped_actor at_agent{agent.sys};
  at_agent->request(agent.service, 5s, msg::cluster_status_request{})
      .receive([&](msg::cluster_status& s) { st = std::move(s); }, [](caf::error&) {});
  ASSERT_EQ(st.reservations.size(), 1u);
  EXPECT_EQ(st.reservations[0].id, reply.reservation.id);
  EXPECT_EQ(st.reservations[0].owner, "alice");
  EXPECT_EQ(st.committed, 1);
  EXPECT_GE(agent.server->counters().calls, 2u);  // a probe, a prepare (+ a commit)

  node.agent.reset();
  caf::anon_send_exit(broker, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(gis, caf::exit_reason::user_shutdown);
}

// broker1 (`one`) and broker2 (`two`), both connected to `agent`.
::testing::AssertionResult connect_two_brokers(agent_side& agent, broker_side& one,
                                               broker_side& two) {
  one.connect(one.config(agent.address(), "broker1"));
  two.connect(two.config(agent.address(), "broker2"));
  for (auto* b : {&one, &two})
    if (!b->agent->wait_connected(10s))
      return ::testing::AssertionFailure() << b->agent->last_error();
  return ::testing::AssertionSuccess();
}

// Issue 33: a site's enforced LJP is waived only by an admin, and at the agent only an admin
// broker's admin bit counts (any broker could set it for its clients before).
TEST(RemoteAgent, OnlyAnAdminBrokerMayWaiveTheSitesEnforcedLocalJobsPreferred) {
  agent_side agent(ljp_policy::enforce);
  auto cfg = agent_side::tls_config();
  cfg.admin_brokers = {"broker2"};
  agent.serve(cfg);
  broker_side one, two;
  ASSERT_TRUE(connect_two_brokers(agent, one, two));
  auto waive = hold("t-1", 8);  // local_jobs_preferred = false
  waive.admin = true;
  auto [tag1, refused] = one.call<msg::prepare_reply>(1, waive);
  EXPECT_EQ(refused.error.err(), errc::permission_denied) << refused.error.message;
  auto [tag2, granted] = two.call<msg::prepare_reply>(2, waive);
  EXPECT_TRUE(granted.error.ok()) << granted.error.message;
}

TEST(RemoteAgent, TransactionsAreTheBrokersOwnAtTheAgent) {
  agent_side agent;
  agent.serve();
  broker_side one, two;
  ASSERT_TRUE(connect_two_brokers(agent, one, two));

  auto [tag, held] = one.call<msg::prepare_reply>(42, hold("t-1", 8));
  EXPECT_EQ(tag.value, 42u);  // the caller's tag comes back
  ASSERT_TRUE(held.error.ok()) << held.error.message;
  EXPECT_EQ(held.txn, "t-1");  // in the broker's own words

  // broker2 cannot commit broker1's transaction: at the agent it is another one.
  auto [tag2, other] = two.call<msg::ack_reply>(7, msg::commit_txn_request{"t-1"});
  EXPECT_EQ(tag2.value, 7u);
  EXPECT_FALSE(other.error.ok());
  // ... and the same number is a transaction of its own for broker2.
  auto [tag3, theirs] = two.call<msg::prepare_reply>(8, hold("t-1", 8));
  ASSERT_TRUE(theirs.error.ok()) << theirs.error.message;
  EXPECT_NE(theirs.reservation_id, held.reservation_id);

  auto [tag4, mine] = one.call<msg::ack_reply>(43, msg::commit_txn_request{"t-1"});
  EXPECT_TRUE(mine.error.ok()) << mine.error.message;
}

TEST(RemoteAgent, ABrokerReachesOnlyWhatItMadeUnlessItIsAnAdminBroker) {
  agent_side agent;
  agent.serve();
  const auto port = agent.server->local_endpoint().port();
  broker_side one, two;
  ASSERT_TRUE(connect_two_brokers(agent, one, two));

  // broker1 reserves for alice and submits a grid job for her.
  const auto terms = hold("t-1", 8);
  auto [tag, held] = one.call<msg::prepare_reply>(1, terms);
  ASSERT_TRUE(held.error.ok()) << held.error.message;
  ASSERT_TRUE(one.call<msg::ack_reply>(2, msg::commit_txn_request{"t-1"}).second.error.ok());
  const auto id = held.reservation_id;
  auto job =
      one.job_call<msg::job_submit_reply>(msg::job_submit_request{"alice", "gj-1", "true", 2, 600});
  ASSERT_TRUE(job.error.ok()) << job.error.message;

  // broker2, even for the same user or as its own admin (no user), finds neither.
  for (const std::string user : {"alice", ""}) {
    auto q = two.ask<msg::query_reply>(msg::query_request{user, id});
    EXPECT_EQ(q.error.err(), errc::not_found) << "user '" << user << "': " << q.error.message;
    EXPECT_TRUE(two.ask<msg::list_reply>(msg::list_request{user}).reservations.empty());
  }
  auto cancel = two.ask<msg::ack_reply>(msg::cancel_request{"alice", id});
  EXPECT_EQ(cancel.error.err(), errc::not_found) << cancel.error.message;
  auto modify = two.ask<msg::query_reply>(msg::modify_request{.user = "alice",
                                                              .reservation_id = id,
                                                              .start = terms.start,
                                                              .end = terms.end,
                                                              .np = 4,
                                                              .local_jobs_preferred = false});
  EXPECT_EQ(modify.error.err(), errc::not_found) << modify.error.message;
  auto found = two.job_call<msg::job_find_reply>(msg::job_find_request{{"gj-1"}});
  ASSERT_EQ(found.lrms_ids.size(), 1u);
  EXPECT_EQ(found.lrms_ids[0], "");  // its names are its own
  auto kill = two.job_call<msg::job_cancel_reply>(msg::job_cancel_request{job.lrms_id});
  EXPECT_EQ(kill.error.err(), errc::not_found) << kill.error.message;

  // broker1 still has both, untouched: its reservation as it was, its job live.
  auto q = one.ask<msg::query_reply>(msg::query_request{"alice", id});
  ASSERT_TRUE(q.error.ok()) << q.error.message;
  EXPECT_EQ(q.info.np, 8);
  EXPECT_EQ(q.info.state, reservation_state::committed);
  EXPECT_EQ(one.ask<msg::list_reply>(msg::list_request{""}).reservations.size(), 1u);
  EXPECT_EQ(one.job_call<msg::job_find_reply>(msg::job_find_request{{"gj-1"}}).lrms_ids,
            std::vector<std::string>{job.lrms_id});

  // The agent again, with broker2 as an admin broker: it reaches broker1's reservation.
  agent.server.reset();
  ASSERT_TRUE(two.agent->wait_disconnected(10s));
  auto admin = agent_side::tls_config();
  admin.brokers = {"broker1"};
  admin.admin_brokers = {"broker2"};
  agent.serve_again(port, admin);
  ASSERT_TRUE(two.agent->wait_connected(10s)) << two.agent->last_error();
  auto seen = two.ask<msg::query_reply>(msg::query_request{"", id});
  ASSERT_TRUE(seen.error.ok()) << seen.error.message;
  EXPECT_EQ(seen.info.owner, "alice");
  EXPECT_EQ(two.ask<msg::list_reply>(msg::list_request{"alice"}).reservations.size(), 1u);
  auto killed = two.job_call<msg::job_cancel_reply>(msg::job_cancel_request{job.lrms_id});
  EXPECT_TRUE(killed.error.ok()) << killed.error.message;
  EXPECT_EQ(killed.lrms_id, job.lrms_id);
  auto cancelled = two.ask<msg::ack_reply>(msg::cancel_request{"alice", id});
  EXPECT_TRUE(cancelled.error.ok()) << cancelled.error.message;
}

// A leader whose lease was not renewed (node_hooks::lrms_may_change) changes nothing behind
// an agent either: a new hold, a client's cancel, a grid job submitted or cancelled is
// answered with the fence's error and never sent; reads and the second phase of a
// transaction (a decision the next leader completes the same way) still go out.
TEST(RemoteAgent, ANodeThatMayNoLongerChangeItsBatchSystemsSendsNoChange) {
  agent_side agent;
  agent.serve();
  broker_side node;
  std::atomic<bool> fenced{false};
  auto c = node.config(agent.address());
  c.may_change = [&fenced]() -> status {
    if (!fenced) return {};
    return fail(errc::unreachable, "the lease of epoch 3 was not renewed");
  };
  node.connect(c);
  ASSERT_TRUE(node.agent->wait_connected(10s)) << node.agent->last_error();
  auto [tag1, held] = node.call<msg::prepare_reply>(1, hold("t-1", 8));
  ASSERT_TRUE(held.error.ok()) << held.error.message;
  auto job = node.job_call<msg::job_submit_reply>(
      msg::job_submit_request{"alice", "gj-1", "true", 2, 600});
  ASSERT_TRUE(job.error.ok()) << job.error.message;

  fenced = true;
  const auto calls = agent.server->counters().calls;
  const auto refused = [](const msg::wire_error& e) {
    return e.err() == errc::unreachable &&
           e.message.find("c1: the lease of epoch 3 was not renewed") != std::string::npos;
  };
  auto [tag2, more] = node.call<msg::prepare_reply>(2, hold("t-2", 8));
  EXPECT_EQ(tag2.value, 2u);
  EXPECT_TRUE(refused(more.error)) << more.error.message;
  auto submitted = node.job_call<msg::job_submit_reply>(
      msg::job_submit_request{"alice", "gj-2", "true", 2, 600});
  EXPECT_TRUE(refused(submitted.error)) << submitted.error.message;
  auto kill = node.job_call<msg::job_cancel_reply>(msg::job_cancel_request{job.lrms_id});
  EXPECT_TRUE(refused(kill.error)) << kill.error.message;
  auto cancel = node.ask<msg::ack_reply>(msg::cancel_request{"alice", held.reservation_id});
  EXPECT_TRUE(refused(cancel.error)) << cancel.error.message;
  EXPECT_EQ(agent.server->counters().calls, calls) << "a fenced change reached the agent";

  // Reads and the second phase go out: the hold is committed, and listed.
  auto [tag3, committed] = node.call<msg::ack_reply>(3, msg::commit_txn_request{"t-1"});
  EXPECT_TRUE(committed.error.ok()) << committed.error.message;
  auto q = node.ask<msg::query_reply>(msg::query_request{"alice", held.reservation_id});
  ASSERT_TRUE(q.error.ok()) << q.error.message;
  EXPECT_EQ(q.info.state, reservation_state::committed);
  EXPECT_EQ(node.ask<msg::list_reply>(msg::list_request{""}).reservations.size(), 1u);
  EXPECT_EQ(node.job_call<msg::job_find_reply>(msg::job_find_request{{"gj-1", "gj-2"}}).lrms_ids,
            (std::vector<std::string>{job.lrms_id, ""}));
  EXPECT_EQ(agent.server->counters().calls, calls + 4);
}

// A job a broker binds to its reservation (a grid job's copy under the reserve strategy) is
// named for that broker in the LRMS like a submitted one: found by it after a crash, and
// cancelled by it, never by another broker.
TEST(RemoteAgent, ABrokerFindsAndCancelsTheJobsItBoundToItsReservations) {
  agent_side agent;
  agent.serve();
  broker_side one, two;
  ASSERT_TRUE(connect_two_brokers(agent, one, two));
  auto [tag, held] = one.call<msg::prepare_reply>(1, hold("t-1", 8));
  ASSERT_TRUE(held.error.ok()) << held.error.message;
  ASSERT_TRUE(one.call<msg::ack_reply>(2, msg::commit_txn_request{"t-1"}).second.error.ok());
  auto bound = one.ask<msg::bind_job_reply>(
      msg::bind_job_request{"alice", held.reservation_id, "g1.0", 2, 600, "true"});
  ASSERT_TRUE(bound.error.ok()) << bound.error.message;
  EXPECT_EQ(one.job_call<msg::job_find_reply>(msg::job_find_request{{"g1.0"}}).lrms_ids,
            std::vector<std::string>{bound.job_id});
  EXPECT_EQ(two.job_call<msg::job_find_reply>(msg::job_find_request{{"g1.0"}}).lrms_ids,
            std::vector<std::string>{""});
  auto theirs = two.job_call<msg::job_cancel_reply>(msg::job_cancel_request{bound.job_id});
  EXPECT_EQ(theirs.error.err(), errc::not_found) << theirs.error.message;
  auto mine = one.job_call<msg::job_cancel_reply>(msg::job_cancel_request{bound.job_id});
  EXPECT_TRUE(mine.error.ok()) << mine.error.message;
  EXPECT_EQ(one.job_call<msg::job_find_reply>(msg::job_find_request{{"g1.0"}}).lrms_ids,
            std::vector<std::string>{""});  // cancelled: in no queue any more
}

/// Connects with `c` and returns why it did not get in (fails the test if it did).
std::string refusal(broker_side& node, remote_agent_config c) {
  node.connect(std::move(c));
  EXPECT_TRUE(node.agent->wait_settled(10s));
  EXPECT_FALSE(node.agent->connected());
  std::string why = node.agent->last_error();
  node.agent.reset();
  std::cout << "  refused: " << why << "\n";
  return why;
}

TEST(RemoteAgent, OnlyListedBrokersWithTheRightCertificatesGetIn) {
  agent_side agent;
  auto ac = agent_side::tls_config();
  ac.brokers = {"broker1"};
  agent.serve(ac);
  broker_side node;
  const auto refused_before = agent.server->counters().refused;

  // A certificate of another CA.
  auto rogue = node.config(agent.address());
  rogue.tls =
      api::make_client_tls({cert("ca.pem"), cert("rogue-broker1.pem"), cert("rogue-broker1.key")})
          .value();
  EXPECT_NE(refusal(node, rogue), "");
  // An agent's certificate (server role) acting as a broker.
  auto wrong_role = node.config(agent.address());
  wrong_role.broker_name = "agent2";
  wrong_role.tls =
      api::make_client_tls({cert("ca.pem"), cert("agent2.pem"), cert("agent2.key")}).value();
  EXPECT_NE(refusal(node, wrong_role), "");
  // A valid broker certificate, of a broker this agent does not serve.
  EXPECT_NE(refusal(node, node.config(agent.address(), "broker2"))
                .find("'broker2' is not a broker this agent serves"),
            std::string::npos);
  // The agent is not the one this node expects.
  auto other_agent = node.config(agent.address());
  other_agent.agent_name = "agent2";
  EXPECT_NE(refusal(node, other_agent).find("names 'agent1', not 'agent2'"), std::string::npos);
  // No certificate at all.
  auto anonymous = node.config(agent.address());
  anonymous.tls = api::make_client_tls({cert("ca.pem")}).value();
  EXPECT_NE(refusal(node, anonymous), "");

  EXPECT_GE(agent.server->counters().refused, refused_before + 4);
  // The one it serves still gets in.
  node.connect(node.config(agent.address()));
  EXPECT_TRUE(node.agent->wait_connected(10s)) << node.agent->last_error();
}

// A raw TCP client of a plain-text agent, for what a broker built from other sources sends.
struct raw_client {
  asio::io_context io;
  tcp::socket s{io};
  explicit raw_client(unsigned short port) {
    s.connect({asio::ip::make_address("127.0.0.1"), port});
    timeval tv{10, 0};  // a read that gets nothing fails the test instead of hanging it
    ::setsockopt(s.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  void send(const std::string& payload) { asio::write(s, asio::buffer(api::make_frame(payload))); }
  /// The next frame; nullopt when the agent closed the connection.
  std::optional<std::string> next() {
    api::frame_decoder d;
    for (;;) {
      if (auto f = d.next(); f && *f) return **f;
      char buf[4096];
      boost::system::error_code ec;
      const auto n = s.read_some(asio::buffer(buf), ec);
      if (ec) return std::nullopt;
      d.feed(std::string_view(buf, n));
    }
  }
};

agent_server_config plain_config() {
  agent_server_config c;
  c.name = "agent1";
  c.brokers = {"broker1"};
  c.opening = 500ms;
  return c;
}

TEST(RemoteAgent, ASkewedBrokerIsRefusedWithBothVersionsNamed) {
  agent_side agent;
  agent.serve(plain_config());
  raw_client raw(agent.server->local_endpoint().port());
  raw.send(msg::encode(agent_hello{std::string(agent_magic), agent_protocol_version,
                                   interface_fingerprint() + 1, "broker1"}));
  auto w = raw.next();
  ASSERT_TRUE(w);
  auto welcome = msg::decode<agent_welcome>(*w);
  ASSERT_TRUE(welcome);
  EXPECT_EQ(welcome->error.err(), errc::invalid_parameter);
  EXPECT_NE(welcome->error.message.find("protocol skew"), std::string::npos)
      << welcome->error.message;
  EXPECT_NE(welcome->error.message.find(std::to_string(interface_fingerprint())),
            std::string::npos);
  EXPECT_TRUE(welcome->clusters.empty());
  EXPECT_FALSE(raw.next());  // and the agent closes
}

TEST(RemoteAgent, AConnectionThatNeverSaysHelloIsCutAtTheOpeningDeadline) {
  agent_side agent;
  auto c = agent_side::tls_config();
  c.opening = 300ms;
  agent.serve(c);
  raw_client silent(agent.server->local_endpoint().port());  // no TLS handshake, nothing
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(silent.next());  // closed by the agent (or the read's 10 s limit: too late)
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_EQ(agent.server->counters().refused, 1u);
  EXPECT_EQ(agent.server->counters().connections_open, 0u);
}

TEST(RemoteAgent, GarbageAfterTheWelcomeEndsThatLinkOnly) {
  agent_side agent;
  agent.serve(plain_config());
  broker_side node;
  auto c = node.config(agent.address());
  c.tls = nullptr;
  node.connect(c);
  ASSERT_TRUE(node.agent->wait_connected(10s)) << node.agent->last_error();

  raw_client raw(agent.server->local_endpoint().port());
  raw.send(msg::encode(agent_hello{std::string(agent_magic), agent_protocol_version,
                                   interface_fingerprint(), "broker1"}));
  ASSERT_TRUE(raw.next());  // welcome
  raw.send(msg::encode(agent_call{1, 3, "c1", "\xc1 not msgpack"}));
  auto a = raw.next();
  ASSERT_TRUE(a);
  auto answer = msg::decode<agent_answer>(*a);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->code, static_cast<std::uint8_t>(errc::invalid_parameter));
  raw.send(msg::encode(agent_call{2, 9999, "c1", ""}));
  answer = msg::decode<agent_answer>(raw.next().value());
  EXPECT_NE(answer->body.find("unknown operation"), std::string::npos);
  raw.send("not even an envelope");
  EXPECT_FALSE(raw.next());  // that link ends ...

  auto [tag, held] = node.call<msg::prepare_reply>(1, hold("t-1", 4));  // ... not the others
  EXPECT_TRUE(held.error.ok()) << held.error.message;
}

TEST(RemoteAgent, ALostAgentIsUnreachableAtOnceAndTheSameHandleWorksWhenItIsBack) {
  agent_side agent;
  agent.serve();
  const auto port = agent.server->local_endpoint().port();
  broker_side node;
  node.connect_to(agent);
  const auto proxy = node.agent->cluster("c1");

  agent.server.reset();  // the agent's process goes away
  auto [tag, r] = node.call<msg::prepare_reply>(5, hold("t-1", 4));
  EXPECT_EQ(tag.value, 5u);
  EXPECT_EQ(r.error.err(), errc::unreachable) << r.error.message;

  agent.serve_again(port);
  ASSERT_TRUE(node.agent->wait_connected(10s)) << node.agent->last_error();
  EXPECT_EQ(node.agent->cluster("c1"), proxy);
  auto [tag2, again] = node.call<msg::prepare_reply>(6, hold("t-2", 4));
  EXPECT_TRUE(again.error.ok()) << again.error.message;
}

TEST(RemoteAgent, ACommitWaitsForTheLinkAndIsDeliveredWhenTheAgentIsBack) {
  agent_side agent;
  agent.serve();
  const auto port = agent.server->local_endpoint().port();
  broker_side node;
  node.connect_to(agent);
  auto [t1, held] = node.call<msg::prepare_reply>(1, hold("t-1", 4));
  ASSERT_TRUE(held.error.ok()) << held.error.message;

  agent.server.reset();  // the link goes; the service (and its hold) stays
  ASSERT_TRUE(node.agent->wait_disconnected(10s));
  // The commit is made while there is no link: no answer yet ...
  caf::scoped_actor self{node.sys};
  self->send(node.agent->cluster("c1"), msg::call_tag{2}, msg::commit_txn_request{"t-1"});
  bool early = false;
  self->receive([&](msg::call_tag, msg::ack_reply&) { early = true; },
                caf::after(std::chrono::milliseconds(300)) >> [] {});
  EXPECT_FALSE(early) << "a commit was answered while the agent was away";
  // ... until the agent is back: then it is delivered, and it commits the hold.
  agent.serve_again(port);
  msg::ack_reply ack;
  self->receive([&](msg::call_tag t, msg::ack_reply& a) {
    EXPECT_EQ(t.value, 2u);
    ack = std::move(a);
  });
  EXPECT_TRUE(ack.error.ok()) << ack.error.message;
  msg::cluster_status st;
  caf::scoped_actor at_agent{agent.sys};
  at_agent->request(agent.service, 5s, msg::cluster_status_request{})
      .receive([&](msg::cluster_status& x) { st = std::move(x); }, [](caf::error&) {});
  EXPECT_EQ(st.committed, 1);
  EXPECT_EQ(st.holds, 0);
}

// An agent that welcomes and then says nothing more, as one stopped with SIGSTOP after its
// welcome would (the kernel still holds the connection open).
struct mute_agent {
  asio::io_context io;
  tcp::acceptor acceptor{io, {asio::ip::make_address("127.0.0.1"), 0}};
  std::thread t;
  std::atomic<bool> welcomed{false};
  tcp::socket kept{io};

  mute_agent() {
    t = std::thread([this] {
      tcp::socket s = acceptor.accept();
      api::frame_decoder d;
      char buf[4096];
      for (;;) {  // the hello
        if (auto f = d.next(); f && *f) break;
        boost::system::error_code ec;
        const auto n = s.read_some(asio::buffer(buf), ec);
        if (ec) return;
        d.feed(std::string_view(buf, n));
      }
      agent_welcome w{agent_protocol_version, interface_fingerprint(), "agent1", {c1_info()}, {}};
      asio::write(s, asio::buffer(api::make_frame(msg::encode(w))));
      welcomed = true;
      kept = std::move(s);  // open, never read again
    });
  }
  ~mute_agent() {
    t.join();
    boost::system::error_code ignored;
    kept.close(ignored);
  }
};

TEST(RemoteAgent, AnAgentThatStopsAnsweringCostsADeadlineNotAHang) {
  mute_agent mute;
  broker_side node;
  auto c = node.config("127.0.0.1:" + std::to_string(mute.acceptor.local_endpoint().port()));
  c.tls = nullptr;
  c.call_timeout = 400ms;
  c.heartbeat = 100ms;
  c.silence = 60000ms;  // the call's deadline comes first here
  node.connect(c);
  ASSERT_TRUE(node.agent->wait_connected(10s)) << node.agent->last_error();
  const auto t0 = std::chrono::steady_clock::now();
  auto [tag, r] = node.call<msg::prepare_reply>(9, hold("t-1", 4));
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(tag.value, 9u);
  EXPECT_EQ(r.error.err(), errc::timeout) << r.error.message;
  EXPECT_GE(took, 400ms);
  EXPECT_LT(took, 5s);
}

TEST(RemoteAgent, SilenceEndsTheLink) {
  mute_agent mute;
  broker_side node;
  auto c = node.config("127.0.0.1:" + std::to_string(mute.acceptor.local_endpoint().port()));
  c.tls = nullptr;
  c.heartbeat = 50ms;
  c.silence = 300ms;
  c.backoff_min = c.backoff_max = 60000ms;  // no reconnection in this test
  node.connect(c);
  ASSERT_TRUE(node.agent->wait_connected(10s)) << node.agent->last_error();
  // The pings go unanswered: within `silence` the link is declared dead.
  EXPECT_TRUE(node.agent->wait_disconnected(10s));
  EXPECT_NE(node.agent->last_error().find("no word from the peer"), std::string::npos)
      << node.agent->last_error();
}

TEST(RemoteAgent, PlainTextOnlyOnLoopbackAndAddressesAreChecked) {
  engine_cfg cfg;
  caf::actor_system sys{cfg};
  remote_agent_config c;
  c.address = "192.0.2.1:7700";
  c.clusters = {"c1"};
  auto r = remote_agent::start(sys, c);
  ASSERT_FALSE(r);
  EXPECT_NE(r.err().message.find("loopback only"), std::string::npos);
  c.address = "no-port";
  EXPECT_FALSE(remote_agent::start(sys, c));

  agent_server_config a;
  a.endpoint = {asio::ip::make_address("0.0.0.0"), 0};
  auto s = agent_server::start(sys, a, {});
  ASSERT_FALSE(s);
  EXPECT_NE(s.err().message.find("loopback only"), std::string::npos);
}

}  // namespace
}  // namespace arbroker::remote
