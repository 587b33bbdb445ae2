// Several nodes on one store (issue 36): a standby's msgpack front end refuses every hello
// with not_leader naming the leader, a starting node with unreachable; and the client given
// several nodes finds the one that serves, following a standby's word.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

#include "arbroker/api/client.hpp"
#include "arbroker/api/server.hpp"
#include "arbroker/api/serving_role.hpp"
#include "test_handlers.hpp"

namespace arbroker::api {
namespace {

using namespace std::chrono_literals;
using testing::echo_handler;

server_config node_config(std::string name, std::shared_ptr<const serving_role> role,
                          server_events events) {
  server_config c;
  c.node_name = std::move(name);
  c.tokens = {{"alice", {"alice-token", false}}};
  c.role = std::move(role);
  c.events = std::move(events);
  return c;
}

struct node {
  node(std::string name, request_handler& h, server_events events = {})
      : role(std::make_shared<serving_role>(name)),
        srv(node_config(name, role, std::move(events)), h, 1),
        port(srv.local_endpoint().port()),
        address("127.0.0.1:" + std::to_string(port)) {}
  std::shared_ptr<serving_role> role;
  threaded_server srv;
  std::uint16_t port;
  std::string address;
};

TEST(standby, refuses_every_hello_naming_the_leader_and_serves_once_it_leads) {
  echo_handler h;
  node b("b", h);
  b.role->standby(leader_info{"a", "10.0.0.1:7400", "10.0.0.1:7480", 3});
  client c(client_options{5s});
  auto refused = c.connect("127.0.0.1", b.port, "alice", "alice-token");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.err().code, errc::not_leader);
  EXPECT_NE(refused.err().message.find("node a serves, at 10.0.0.1:7400"), std::string::npos)
      << refused.err().message;
  EXPECT_NE(refused.err().message.find("epoch 3"), std::string::npos);
  EXPECT_FALSE(c.connected());

  // The raw welcome names the leader for programs.
  ASSERT_TRUE(c.open("127.0.0.1", b.port));
  ASSERT_TRUE(c.send_bytes(
      make_frame(encode_hello(hello{protocol_magic, protocol_version, "alice", "alice-token"}))));
  auto frame = c.read_frame();
  ASSERT_TRUE(frame) << frame.err().message;
  auto w = decode_welcome(*frame);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->error.code, static_cast<std::uint8_t>(errc::not_leader));
  EXPECT_EQ(w->leader, "10.0.0.1:7400");
  c.close();

  // No leader now (a failover under way): not_leader, naming none.
  b.role->standby(std::nullopt);
  auto none = c.connect("127.0.0.1", b.port, "alice", "alice-token");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.err().code, errc::not_leader);
  EXPECT_NE(none.err().message.find("no node serves"), std::string::npos);

  b.role->starting();
  auto starting = c.connect("127.0.0.1", b.port, "alice", "alice-token");
  ASSERT_FALSE(starting);
  EXPECT_EQ(starting.err().code, errc::unreachable);
  EXPECT_NE(starting.err().message.find("starting"), std::string::npos);

  b.role->serving();
  auto served = c.connect("127.0.0.1", b.port, "alice", "alice-token");
  ASSERT_TRUE(served) << served.err().message;
  auto r = c.call(msg::list_request{});
  ASSERT_TRUE(r && r->ok());
  EXPECT_EQ(b.srv.counters().handshakes_refused, 4u);
}

TEST(standby, a_client_given_several_nodes_reaches_the_one_that_serves) {
  echo_handler h;
  node a("a", h), b("b", h);
  a.role->serving();
  b.role->standby(leader_info{"a", a.address, "", 1});
  // A port nobody listens on: a node that is down.
  std::uint16_t dead = 0;
  {
    node gone("gone", h);
    dead = gone.port;
  }
  client c(client_options{5s});
  auto w = c.connect_any({{"127.0.0.1", dead}, {"127.0.0.1", b.port}}, "alice", "alice-token", 0s);
  ASSERT_TRUE(w) << w.err().message;
  EXPECT_EQ(w->node, "a");  // followed b's word
  auto r = c.call(msg::list_request{});
  ASSERT_TRUE(r && r->ok());

  // One node, no wait: connect() that follows a standby to its leader.
  client one(client_options{5s});
  auto followed = one.connect_any({{"127.0.0.1", b.port}}, "alice", "alice-token", 0s);
  ASSERT_TRUE(followed) << followed.err().message;
  EXPECT_EQ(followed->node, "a");

  // A refusal another node would give too is final, at once.
  client wrong(client_options{5s});
  const auto before = std::chrono::steady_clock::now();
  auto refused =
      wrong.connect_any({{"127.0.0.1", b.port}, {"127.0.0.1", a.port}}, "alice", "bob-token", 30s);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.err().code, errc::permission_denied);
  EXPECT_LT(std::chrono::steady_clock::now() - before, 10s);
}

TEST(standby, a_client_waits_out_a_failover_then_gives_up_saying_why) {
  echo_handler h;
  // b takes over after it turned the client away twice (once the client retries).
  std::atomic<int> b_refused{0};
  std::atomic<bool> take_over{false};
  std::shared_ptr<serving_role> b_role;
  server_events b_events;
  b_events.on_login_refused = [&](const login_refusal&) {
    if (++b_refused == 2 && take_over) b_role->serving();
  };
  node a("a", h), b("b", h, b_events);
  b_role = b.role;
  a.role->standby(std::nullopt);  // the leader died, nobody took over yet
  b.role->standby(std::nullopt);
  client c(client_options{5s});
  const auto before = std::chrono::steady_clock::now();
  auto w =
      c.connect_any({{"127.0.0.1", a.port}, {"127.0.0.1", b.port}}, "alice", "alice-token", 700ms);
  ASSERT_FALSE(w);
  EXPECT_GE(std::chrono::steady_clock::now() - before, 700ms);
  EXPECT_EQ(w.err().code, errc::not_leader);
  EXPECT_NE(w.err().message.find("no node of 127.0.0.1:" + std::to_string(a.port)),
            std::string::npos)
      << w.err().message;
  // Several rounds were tried, not one.
  EXPECT_GE(a.srv.counters().handshakes_refused, 3u);

  // b takes over while a client waits (after turning it away twice more): the client gets
  // there, in its third round.
  b_refused = 0;
  take_over = true;
  auto later =
      c.connect_any({{"127.0.0.1", a.port}, {"127.0.0.1", b.port}}, "alice", "alice-token", 10s);
  ASSERT_TRUE(later) << later.err().message;
  EXPECT_EQ(later->node, "b");
  EXPECT_EQ(b_refused, 2);
}

TEST(standby, server_lists_are_read_in_order_and_mistakes_named) {
  auto two = parse_server_list("a.example.org:7400,[::1]:7401");
  ASSERT_TRUE(two) << two.err().message;
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0], server_address("a.example.org", 7400));
  EXPECT_EQ((*two)[1], server_address("::1", 7401));
  auto one = parse_server_list("127.0.0.1:7400");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->size(), 1u);
  auto twice = parse_server_list("a:1,a:1");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.err().message.find("named twice"), std::string::npos);
  auto empty_part = parse_server_list("a:1,");
  ASSERT_FALSE(empty_part);
  auto no_port = parse_server_list("a:1,b");
  ASSERT_FALSE(no_port);
  EXPECT_NE(no_port.err().message.find("'b'"), std::string::npos);
}

}  // namespace
}  // namespace arbroker::api
