// The server and the blocking client over loopback, with fake handlers.

#include "arbroker/api/server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "arbroker/api/client.hpp"
#include "arbroker/api/token_hash.hpp"
#include "test_handlers.hpp"

namespace arbroker::api {
namespace {

using namespace std::chrono_literals;
using namespace testing;

server_config test_config() {
  server_config c;
  c.node_name = "test-node";
  c.tokens = {{"alice", {"alice-token", false}},
              {"bob", {"bob-token", false}},
              {"root", {"root-token", true}}};
  return c;
}

struct fixture {
  explicit fixture(request_handler& h, server_config c = test_config())
      : srv(std::move(c), h, 2), port(srv.local_endpoint().port()) {}
  threaded_server srv;
  std::uint16_t port;

  std::unique_ptr<client> connect(const std::string& user = "alice") {
    auto c = std::make_unique<client>(client_options{5s});
    auto w = c->connect("127.0.0.1", port, user, user + "-token");
    EXPECT_TRUE(w) << (w ? "" : w.err().message);
    if (w) {
      EXPECT_EQ(w->node, "test-node");
    }
    return c;
  }
};

TEST(server, answers_an_authenticated_request_as_the_caller) {
  echo_handler h;
  fixture f(h);
  auto c = f.connect();
  auto r = c->call(msg::list_request{});
  ASSERT_TRUE(r) << r.err().message;
  ASSERT_TRUE(r->ok()) << r->message;
  EXPECT_EQ(r->op, operation::list);
  auto& reply = std::get<msg::list_reply>(r->body);
  ASSERT_EQ(reply.reservations.size(), 1u);
  EXPECT_EQ(reply.reservations[0].owner, "alice");
}

TEST(server, refuses_wrong_tokens_and_unknown_users_alike) {
  echo_handler h;
  fixture f(h);
  client c(client_options{5s});
  auto wrong = c.connect("127.0.0.1", f.port, "alice", "bob-token");
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.err().code, errc::permission_denied);
  EXPECT_FALSE(c.connected());
  auto unknown = c.connect("127.0.0.1", f.port, "mallory", "x");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.err(), wrong.err());
  auto empty = c.connect("127.0.0.1", f.port, "alice", "");
  EXPECT_FALSE(empty);
  EXPECT_GE(f.srv.counters().handshakes_refused, 3u);
}

// A token stored as an argon2id hash: the right one logs in (again from the cache of checked
// tokens), a wrong one is refused like any other, and frames sent right behind the hello wait
// for the check instead of being read as a second hello.
TEST(server, checks_hashed_tokens_off_the_io_threads) {
  echo_handler h;
  auto config = test_config();
  auto hash = hash_token("carol-token");
  ASSERT_TRUE(hash);
  config.tokens["carol"] = {"", false, *hash};
  fixture f(h, config);
  for (int i = 0; i < 2; ++i) {
    auto c = f.connect("carol");
    ASSERT_TRUE(c->connected());
    auto r = c->call(msg::list_request{});
    ASSERT_TRUE(r && r->ok());
    EXPECT_EQ(std::get<msg::list_reply>(r->body).reservations.at(0).owner, "carol");
  }
  client wrong(client_options{5s});
  auto refused = wrong.connect("127.0.0.1", f.port, "carol", "carol-tokeN");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.err().code, errc::permission_denied);
  EXPECT_NE(refused.err().message.find("unknown user or wrong token"), std::string::npos);

  client pipelined(client_options{5s});
  ASSERT_TRUE(pipelined.open("127.0.0.1", f.port));
  ASSERT_TRUE(pipelined.send_bytes(
      make_frame(encode_hello({protocol_magic, protocol_version, "carol", "carol-token"})) +
      make_frame(encode_request(request{7, msg::list_request{}}))));
  auto w = decode_welcome(*pipelined.read_frame());
  ASSERT_TRUE(w);
  EXPECT_EQ(w->error.code, 0);
  auto frame = pipelined.read_frame();
  ASSERT_TRUE(frame);
  auto r = decode_response(*frame);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->id, 7u);
  EXPECT_TRUE(r->ok()) << r->message;

  // A reload with another hash: the old token no longer opens, though it was checked before.
  auto other = hash_token("carol-new-token");
  ASSERT_TRUE(other);
  auto table = test_config().tokens;
  table["carol"] = {"", false, *other};
  f.srv.set_tokens(table);
  client after(client_options{5s});
  EXPECT_FALSE(after.connect("127.0.0.1", f.port, "carol", "carol-token"));
  EXPECT_TRUE(after.connect("127.0.0.1", f.port, "carol", "carol-new-token"));
}

TEST(server, refuses_another_protocol_version) {
  echo_handler h;
  fixture f(h);
  client c(client_options{5s});
  ASSERT_TRUE(c.open("127.0.0.1", f.port));
  ASSERT_TRUE(c.send_bytes(make_frame(encode_hello({protocol_magic, 99, "alice", "alice-token"}))));
  auto frame = c.read_frame();
  ASSERT_TRUE(frame);
  auto w = decode_welcome(*frame);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->error.code, static_cast<std::uint8_t>(errc::invalid_parameter));
  EXPECT_NE(w->error.message.find("protocol version 99"), std::string::npos);
  EXPECT_FALSE(c.read_frame());  // then closed
}

TEST(server, refuses_a_bad_magic) {
  echo_handler h;
  fixture f(h);
  client c(client_options{5s});
  ASSERT_TRUE(c.open("127.0.0.1", f.port));
  ASSERT_TRUE(c.send_bytes(make_frame(encode_hello({0x48545450, 1, "alice", "alice-token"}))));
  auto w = decode_welcome(*c.read_frame());
  ASSERT_TRUE(w);
  EXPECT_NE(w->error.message.find("magic"), std::string::npos);
}

TEST(server, strangers_may_not_send_large_frames) {
  echo_handler h;
  fixture f(h);
  client c(client_options{5s});
  ASSERT_TRUE(c.open("127.0.0.1", f.port));
  std::string token(5000, 'x');
  ASSERT_TRUE(c.send_bytes(make_frame(encode_hello({protocol_magic, 1, "alice", token}))));
  auto w = decode_welcome(*c.read_frame());
  ASSERT_TRUE(w);
  EXPECT_NE(w->error.message.find("exceeds the limit of 4096"), std::string::npos);
  EXPECT_FALSE(c.read_frame());
}

TEST(server, a_silent_client_is_closed_at_the_handshake_deadline) {
  echo_handler h;
  auto config = test_config();
  config.limits.handshake_timeout = 100ms;
  fixture f(h, config);
  client c(client_options{5s});
  ASSERT_TRUE(c.open("127.0.0.1", f.port));
  auto w = decode_welcome(*c.read_frame());
  ASSERT_TRUE(w);
  EXPECT_EQ(w->error.code, static_cast<std::uint8_t>(errc::timeout));
  EXPECT_FALSE(c.read_frame());
}

// A frame that is whole but holds no request: answered with id 0, and the connection reads
// on (the frame boundary is intact); other connections never notice.
TEST(server, a_payload_that_is_no_request_is_answered_and_the_connection_stays) {
  echo_handler h;
  fixture f(h);
  auto good = f.connect("bob");
  auto bad = f.connect();
  ASSERT_TRUE(bad->send_bytes(make_frame("\xc1 not msgpack")));
  auto frame = bad->read_frame();
  ASSERT_TRUE(frame);
  auto r = decode_response(*frame);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->id, 0u);
  EXPECT_EQ(r->op, operation::none);  // no request, no operation (version 9)
  EXPECT_EQ(r->code, static_cast<std::uint8_t>(errc::invalid_parameter));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(r->body));
  // A request of an unknown op: an error for its id, naming no operation.
  ASSERT_TRUE(bad->send_bytes(make_frame(std::string("\x93\x05\x63\x90", 4))));  // [5, 99, []]
  frame = bad->read_frame();
  ASSERT_TRUE(frame);
  r = decode_response(*frame);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->id, 5u);
  EXPECT_EQ(r->op, operation::none);
  EXPECT_EQ(r->code, static_cast<std::uint8_t>(errc::invalid_parameter));
  auto again = bad->call(msg::list_request{});
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->ok());

  auto ok = good->call(msg::list_request{});
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok->ok());
}

// A body the decoder cannot read is answered by the request's own id, and the connection
// stays: a map where a struct belongs, a value cut short inside the frame, request id 0.
TEST(server, a_malformed_body_gets_an_error_for_its_own_id) {
  echo_handler h;
  fixture f(h);
  auto c = f.connect();
  const struct {
    std::string payload;
    std::uint64_t id;
    std::string says;
  } cases[] = {
      {std::string("\x93\x07\x08\x81\xa1"
                   "a\x01",
                   7),
       7, "request.body (list)"},  // [7, list, {a: 1}]
      {std::string("\x93\x09\x08\xaa"
                   "abc",
                   7),
       9, "malformed msgpack"},  // a 10-byte str, 3 there
      {encode_request(request{0, msg::list_request{}}), 0, "request id 0 is reserved"},
  };
  for (const auto& k : cases) {
    ASSERT_TRUE(c->send_bytes(make_frame(k.payload)));
    auto frame = c->read_frame();
    ASSERT_TRUE(frame) << k.says;
    auto r = decode_response(*frame);
    ASSERT_TRUE(r) << k.says;
    EXPECT_EQ(r->id, k.id) << k.says;
    EXPECT_EQ(r->op, operation::list) << k.says;
    EXPECT_EQ(r->code, static_cast<std::uint8_t>(errc::invalid_parameter)) << k.says;
    EXPECT_NE(r->message.find(k.says), std::string::npos) << r->message;
  }
  auto good = c->call(msg::list_request{});  // the same connection still works
  ASSERT_TRUE(good);
  EXPECT_TRUE(good->ok());
}

TEST(server, an_oversized_frame_gets_an_error_and_closes) {
  echo_handler h;
  auto config = test_config();
  config.limits.max_frame = 1024;
  fixture f(h, config);
  auto c = f.connect();
  ASSERT_TRUE(c->send_bytes(std::string("\x00\x00\x08\x00", 4)));  // announces 2048 bytes
  auto r = decode_response(*c->read_frame());
  ASSERT_TRUE(r);
  EXPECT_NE(r->message.find("exceeds the limit of 1024"), std::string::npos);
  EXPECT_FALSE(c->read_frame());
}

TEST(server, a_bad_body_is_answered_and_the_connection_stays) {
  echo_handler h;
  fixture f(h);
  auto c = f.connect();
  auto bad = c->call(msg::modify_request{"", "a/1", 100, 50, 4, true});
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->code, static_cast<std::uint8_t>(errc::invalid_window));
  EXPECT_NE(bad->message.find("modify.end"), std::string::npos);
  auto good = c->call(msg::list_request{});
  ASSERT_TRUE(good);
  EXPECT_TRUE(good->ok());
}

TEST(server, reports_every_response_to_the_metrics_hook) {
  echo_handler h;
  auto config = test_config();
  std::mutex mu;
  std::vector<std::pair<operation, std::uint8_t>> seen;
  config.events.on_response = [&](operation op, std::uint8_t code, auto latency) {
    EXPECT_GE(latency.count(), 0);
    std::lock_guard lock(mu);
    seen.emplace_back(op, code);
  };
  fixture f(h, config);
  auto c = f.connect();
  ASSERT_TRUE(c->call(msg::list_request{}));
  ASSERT_TRUE(c->call(msg::cancel_request{"", ""}));  // refused by validation
  std::lock_guard lock(mu);                           // each hook ran before its response was sent
  EXPECT_EQ(seen, (std::vector<std::pair<operation, std::uint8_t>>{
                      {operation::list, 0},
                      {operation::cancel, static_cast<std::uint8_t>(errc::invalid_parameter)}}));
}

TEST(server, only_admins_act_for_other_users) {
  echo_handler h;
  fixture f(h);
  auto alice = f.connect("alice");
  auto denied = alice->call(msg::query_request{"bob", "a/1"});
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->code, static_cast<std::uint8_t>(errc::permission_denied));
  auto root = f.connect("root");
  auto allowed = root->call(msg::query_request{"bob", "a/1"});
  ASSERT_TRUE(allowed);
  ASSERT_TRUE(allowed->ok());
  EXPECT_EQ(std::get<msg::query_reply>(allowed->body).info.owner, "bob/admin");
}

TEST(server, excess_in_flight_requests_get_busy_and_the_rest_complete) {
  deferred_handler h;
  auto config = test_config();
  config.limits.max_in_flight = 2;
  fixture f(h, config);
  auto c = f.connect();
  for (std::uint64_t id = 1; id <= 3; ++id)
    ASSERT_TRUE(c->send_bytes(make_frame(encode_request({id, msg::cancel_request{"", "a/1"}}))));
  // The third is refused at once, while the first two are still held by the handler.
  auto busy = decode_response(*c->read_frame());
  ASSERT_TRUE(busy);
  EXPECT_EQ(busy->id, 3u);
  EXPECT_EQ(busy->code, static_cast<std::uint8_t>(errc::busy));
  h.wait_for(2);
  h.release_all();  // from another thread, each done() called twice
  std::set<std::uint64_t> answered;
  for (int i = 0; i < 2; ++i) {
    auto r = decode_response(*c->read_frame());
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->ok());
    EXPECT_EQ(r->message, "answered " + std::to_string(r->id));
    answered.insert(r->id);
  }
  EXPECT_EQ(answered, (std::set<std::uint64_t>{1, 2}));
  // Still usable, and done() twice produced no extra frame.
  ASSERT_TRUE(c->send_bytes(make_frame(encode_request({4, msg::cancel_request{"", "a/1"}}))));
  h.wait_for(1);
  h.release_all();
  EXPECT_EQ(decode_response(*c->read_frame())->id, 4u);
}

TEST(server, a_client_that_stops_reading_is_closed_without_stalling_others) {
  echo_handler h;
  h.big = 20000;  // ~1 MB replies
  auto config = test_config();
  config.limits.max_write_queue = 4u << 20;
  fixture f(h, config);
  auto reader = f.connect("bob");
  auto silent = f.connect();
  const std::string req = make_frame(encode_request({1, msg::list_request{}}));
  // Requests are tiny and replies large: the server's queue for this client fills once the
  // kernel buffers do, and it closes the connection; sends then fail. The bound is only a
  // backstop (the server may lag the sender by many requests on a loaded machine).
  bool cut_off = false;
  for (int i = 0; i < 1'000'000 && !cut_off; ++i) {
    cut_off = !silent->send_bytes(req);
    if (i % 1000 == 0) {
      auto r = reader->call(msg::list_request{});  // others keep being served meanwhile
      ASSERT_TRUE(r);
      ASSERT_TRUE(r->ok());
    }
  }
  EXPECT_TRUE(cut_off);
  EXPECT_GE(f.srv.counters().connections_dropped, 1u);
  auto r = reader->call(msg::list_request{});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->ok());
}

TEST(server, serves_many_concurrent_clients) {
  echo_handler h;
  fixture f(h);
  constexpr int clients = 16;
  constexpr int calls = 50;
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i)
    threads.emplace_back([&, i] {
      client c(client_options{10s});
      const std::string user = i % 2 ? "alice" : "bob";
      if (!c.connect("127.0.0.1", f.port, user, user + "-token")) return;
      for (int k = 0; k < calls; ++k) {
        auto r = c.call(msg::query_request{"", "r" + std::to_string(k)});
        if (r && r->ok() &&
            std::get<msg::query_reply>(r->body).info.id == "r" + std::to_string(k) &&
            std::get<msg::query_reply>(r->body).info.owner == user)
          ++ok;
      }
    });
  for (auto& t : threads)
    t.join();
  EXPECT_EQ(ok.load(), clients * calls);
}

TEST(server, graceful_stop_finishes_in_flight_requests_and_refuses_new_ones) {
  deferred_handler h;
  auto f = std::make_unique<fixture>(h);
  auto c = f->connect();
  ASSERT_TRUE(c->send_bytes(make_frame(encode_request({1, msg::cancel_request{"", "a/1"}}))));
  h.wait_for(1);
  std::thread stopper([&] { f->srv.stop(10s); });
  // Wait until new clients are refused: the acceptor is closed.
  for (;;) {
    client probe(client_options{2s});
    if (!probe.connect("127.0.0.1", f->port, "alice", "alice-token")) break;
  }
  // The connection is draining now: a new request is refused, the held one completes.
  ASSERT_TRUE(c->send_bytes(make_frame(encode_request({2, msg::cancel_request{"", "a/1"}}))));
  auto refused = decode_response(*c->read_frame());
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->id, 2u);
  EXPECT_EQ(refused->code, static_cast<std::uint8_t>(errc::unreachable));
  h.release_all();
  auto done = decode_response(*c->read_frame());
  ASSERT_TRUE(done);
  EXPECT_EQ(done->id, 1u);
  EXPECT_TRUE(done->ok());
  EXPECT_FALSE(c->read_frame());  // then closed
  stopper.join();
  client late(client_options{2s});
  EXPECT_FALSE(late.connect("127.0.0.1", f->port, "alice", "alice-token"));
}

TEST(server, graceful_stop_gives_up_at_the_deadline) {
  deferred_handler h;  // answers only after the server is gone
  auto f = std::make_unique<fixture>(h);
  auto c = f->connect();
  ASSERT_TRUE(c->send_bytes(make_frame(encode_request({1, msg::cancel_request{"", "a/1"}}))));
  h.wait_for(1);
  f->srv.stop(50ms);
  EXPECT_FALSE(c->read_frame());
  EXPECT_EQ(f->srv.counters().connections_open, 0u);
  f.reset();
  h.release_all();  // done() after the server and its io_context are destroyed: a no-op
}

/// Misbehaving handlers: one throws, one answers with the wrong body type.
// Version 9: an error reply's body is nil unless it says more than the code and message.
TEST(server, error_replies_carry_a_body_only_when_it_says_more) {
  refusing_handler h;
  fixture f(h);
  auto c = f.connect();
  auto cancel = c->call(msg::cancel_request{"", "a/1"});
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->code, static_cast<std::uint8_t>(errc::illegal_transition));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(cancel->body));
  auto list = c->call(msg::list_request{});
  ASSERT_TRUE(list);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(list->body));
  auto query = c->call(msg::query_request{"", "a/1"});  // the reservation as it stands
  ASSERT_TRUE(query);
  ASSERT_TRUE(std::holds_alternative<msg::query_reply>(query->body));
  EXPECT_EQ(std::get<msg::query_reply>(query->body).info.id, "a/1");
  msg::elastic_request e;
  e.est = 1;  // (0 would mean now, after let)
  e.let = 100;
  e.dur_ref = 10;
  auto elastic = c->call(e);  // statistics and the earliest alternative
  ASSERT_TRUE(elastic);
  EXPECT_EQ(elastic->code, static_cast<std::uint8_t>(errc::illegal_transition));
  EXPECT_TRUE(std::holds_alternative<msg::elastic_reply>(elastic->body));
}

TEST(server, a_throwing_or_confused_handler_yields_an_error_response) {
  faulty_handler h;
  fixture f(h);
  auto c = f.connect();
  auto thrown = c->call(msg::cancel_request{"", "a/1"});
  ASSERT_TRUE(thrown);
  EXPECT_EQ(thrown->code, static_cast<std::uint8_t>(errc::internal));
  EXPECT_NE(thrown->message.find("engine exploded"), std::string::npos);
  auto wrong = c->call(msg::list_request{});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->code, static_cast<std::uint8_t>(errc::internal));
  EXPECT_NE(wrong->message.find("wrong body type"), std::string::npos);
}

TEST(server, refuses_connections_beyond_the_limit) {
  echo_handler h;
  auto config = test_config();
  config.limits.max_connections = 2;
  fixture f(h, config);
  auto a = f.connect("alice");
  auto b = f.connect("bob");
  client third(client_options{5s});
  auto refused = third.connect("127.0.0.1", f.port, "root", "root-token");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.err().code, errc::busy);
  // The others are still served.
  auto r = b->call(msg::list_request{});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->ok());
}

// A watch over msgpack: pages as responses to its request's id, the next asked for only once
// one is written, its end an error response, and the connection free for other requests.
TEST(server_watch, pages_arrive_for_the_watch_s_id_and_its_end_is_an_error_response) {
  watch_handler h;
  fixture f(h);
  auto c = f.connect();
  std::thread node([&] {
    auto w = h.wait_started(0);
    EXPECT_EQ(w.request.user, "alice");
    EXPECT_EQ(w.request.since, 3);
    h.page(0, {}, 3);
    h.wait_more(0, 1);
    h.page(0, {4, 5}, 6);
    h.wait_more(0, 2);
    h.end(0, fail(errc::slow_consumer, "fell behind"));
  });
  std::vector<msg::watch_reply> pages;
  auto ended = c->watch({"", 3, {}}, [&](const msg::watch_reply& p) {
    pages.push_back(p);
    return true;
  });
  node.join();
  ASSERT_FALSE(ended);
  EXPECT_EQ(ended.err().code, errc::slow_consumer);
  ASSERT_EQ(pages.size(), 2u);
  EXPECT_EQ(pages[0].last, 3u);
  EXPECT_TRUE(pages[0].events.empty());
  ASSERT_EQ(pages[1].events.size(), 2u);
  EXPECT_EQ(pages[1].events[1].id, 5u);
  EXPECT_EQ(pages[1].last, 6u);
  // The connection still serves requests.
  auto r = c->call(msg::list_request{});
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_TRUE(r->ok());
}

TEST(server_watch, refusals_come_at_once_and_leaving_cancels_the_watch) {
  watch_handler h;
  fixture f(h);
  auto c = f.connect();
  auto gone = c->watch({"", 999, {}}, [](const msg::watch_reply&) { return true; });
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.err().code, errc::gone);
  auto other = c->watch({"bob", -1, {}}, [](const msg::watch_reply&) { return true; });
  ASSERT_FALSE(other);
  EXPECT_EQ(other.err().code, errc::permission_denied);
  std::thread node([&] {
    h.wait_started(0);
    h.page(0, {1}, 1);
  });
  auto stopped = c->watch({"", -1, {}}, [](const msg::watch_reply&) { return false; });
  node.join();
  EXPECT_TRUE(stopped);  // the callback said enough: the client closed the connection ...
  h.wait_cancelled(0);   // ... and the server cancelled the watch
}

TEST(server_watch, a_graceful_stop_ends_watches_with_unreachable) {
  watch_handler h;
  fixture f(h);
  auto c = f.connect();
  std::thread stopper([&] {
    h.wait_started(0);
    h.page(0, {}, 0);
    f.srv.stop(10s);
  });
  auto ended = c->watch({"", -1, {}}, [](const msg::watch_reply&) { return true; });
  stopper.join();
  ASSERT_FALSE(ended);
  EXPECT_EQ(ended.err().code, errc::unreachable);
  h.wait_cancelled(0);
}

}  // namespace
}  // namespace arbroker::api
