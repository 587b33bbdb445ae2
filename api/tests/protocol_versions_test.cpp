// Served versions (docs/compatibility.md): a node serves clients of its protocol version and of
// the two before it, each in the shape its version knows, and refuses older ones naming the
// versions it serves.

#include "arbroker/api/protocol_versions.hpp"

#include <gtest/gtest.h>

#include "arbroker/api/client.hpp"
#include "arbroker/api/server.hpp"
#include "arbroker/api/serving_role.hpp"
#include "arbroker/messages/msgpack_codec.hpp"
#include "test_handlers.hpp"

namespace arbroker::api {
namespace {

using namespace std::chrono_literals;
using testing::echo_handler;

constexpr std::uint16_t previous = protocol_version - 1;

/// A request envelope [id, op, body] around a body's msgpack bytes, as any client builds it.
std::string make_request_payload(std::uint64_t id, std::uint8_t op, const std::string& body) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  pk.pack_array(3);
  pk.pack(id);
  pk.pack(op);
  return std::string(buf.data(), buf.size()) + body;
}

struct node {
  explicit node(request_handler& h, std::shared_ptr<serving_role> r = nullptr)
      : role(std::move(r)), srv(config(role), h, 1), port(srv.local_endpoint().port()) {}
  static server_config config(std::shared_ptr<const serving_role> role) {
    server_config c;
    c.node_name = "n1";
    c.tokens = {{"alice", {"alice-token", false}}};
    c.role = std::move(role);
    return c;
  }
  std::shared_ptr<serving_role> role;
  threaded_server srv;
  std::uint16_t port;
};

/// A connection whose hello says `version`; the welcome's raw msgpack array.
struct session {
  session(const node& n, std::uint16_t version) : c(client_options{5s}) {
    EXPECT_TRUE(c.open("127.0.0.1", n.port));
    EXPECT_TRUE(c.send_bytes(
        make_frame(encode_hello(hello{protocol_magic, version, "alice", "alice-token"}))));
    auto frame = c.read_frame();
    EXPECT_TRUE(frame) << (frame ? "" : frame.err().message);
    if (frame) welcome_bytes = *frame;
  }
  std::size_t welcome_fields() const {
    auto oh = msgpack::unpack(welcome_bytes.data(), welcome_bytes.size());
    return oh.get().type == msgpack::type::ARRAY ? oh.get().via.array.size : 0;
  }
  welcome greeting() const { return *decode_welcome(welcome_bytes); }
  response call(std::uint64_t id, std::uint8_t op, const std::string& body_msgpack) {
    EXPECT_TRUE(c.send_bytes(make_frame(make_request_payload(id, op, body_msgpack))));
    auto frame = c.read_frame();
    EXPECT_TRUE(frame);
    auto r = decode_response(frame ? *frame : std::string());
    EXPECT_TRUE(r) << (r ? "" : r.err().message);
    return r ? *r : response{};
  }
  client c;
  std::string welcome_bytes;
};

TEST(protocol_versions, ServesThisVersionAndTheTwoBefore) {
  EXPECT_TRUE(serves_protocol_version(protocol_version));
  EXPECT_TRUE(serves_protocol_version(protocol_version - 2));
  EXPECT_FALSE(serves_protocol_version(protocol_version - 3));
  EXPECT_FALSE(serves_protocol_version(protocol_version + 1));
  EXPECT_EQ(served_protocol_versions(), std::to_string(protocol_version - 2) + ", " +
                                            std::to_string(protocol_version - 1) + " and " +
                                            std::to_string(protocol_version));
}

TEST(protocol_versions, AnOlderServedClientIsWelcomedInItsOwnVersionAndServed) {
  echo_handler h;
  node n(h);
  for (std::uint16_t v = oldest_served_protocol_version; v <= protocol_version; ++v) {
    session s(n, v);
    const welcome w = s.greeting();
    EXPECT_TRUE(w.error.ok()) << v << ": " << w.error.message;
    EXPECT_EQ(w.version, v);
    EXPECT_EQ(s.welcome_fields(), v >= 20 ? 4u : 3u) << "version " << v;
    const auto r =
        s.call(3, static_cast<std::uint8_t>(operation::list), msg::encode(msg::list_request{}));
    EXPECT_TRUE(r.ok()) << v << ": " << r.message;
    EXPECT_EQ(r.id, 3u);
  }
}

TEST(protocol_versions, AVersionNoLongerServedIsRefusedWithTheVersionsThatAre) {
  echo_handler h;
  node n(h);
  session s(n, oldest_served_protocol_version - 1);
  const welcome w = s.greeting();
  EXPECT_EQ(w.error.code, static_cast<std::uint8_t>(errc::invalid_parameter));
  EXPECT_EQ(w.error.message, "unsupported protocol version " +
                                 std::to_string(oldest_served_protocol_version - 1) +
                                 " (this server serves " + served_protocol_versions() + ")");
  EXPECT_FALSE(s.c.read_frame());  // then closed
}

// Op 20 (watch) came with version 19: a version-18 session never sees it (an unknown op, as
// for that client's own build), a version-19 one does.
TEST(protocol_versions, AnOperationNewerThanTheSessionIsUnknownToIt) {
  echo_handler h;
  node n(h);
  const auto watch = static_cast<std::uint8_t>(operation::watch);
  ASSERT_EQ(introduced_in(operation::watch), 19);
  if (!serves_protocol_version(18)) GTEST_SKIP() << "version 18 is no longer served";
  session old(n, 18);
  const auto r = old.call(5, watch, msg::encode(msg::watch_request{}));
  EXPECT_EQ(r.op, operation::none);
  EXPECT_EQ(r.code, static_cast<std::uint8_t>(errc::invalid_parameter));
  EXPECT_EQ(r.message, "request.op: unknown operation 20");

  const auto bytes = msg::encode(msg::watch_request{});
  EXPECT_TRUE(decode_request(make_request_payload(5, watch, bytes), 19).value);
  EXPECT_FALSE(decode_request(make_request_payload(5, watch, bytes), 18).value);
}

// A standby refuses a version-19 client with a code that version knows (unreachable: a node
// that does not serve), in a welcome of that version's three fields; the leader is in the
// message. A version-20 client gets not_leader and the leader's field.
TEST(protocol_versions, AStandbyRefusesAnOlderClientInCodesItKnows) {
  echo_handler h;
  auto role = std::make_shared<serving_role>("b");
  role->standby(leader_info{"a", "10.0.0.1:7400", "10.0.0.1:7480", 3});
  node n(h, role);
  session old(n, 19);
  EXPECT_EQ(old.welcome_fields(), 3u);
  EXPECT_EQ(old.greeting().error.code, static_cast<std::uint8_t>(errc::unreachable));
  EXPECT_NE(old.greeting().error.message.find("node a serves, at 10.0.0.1:7400"),
            std::string::npos);
  session now(n, 20);
  EXPECT_EQ(now.welcome_fields(), 4u);
  EXPECT_EQ(now.greeting().error.code, static_cast<std::uint8_t>(errc::not_leader));
  EXPECT_EQ(now.greeting().leader, "10.0.0.1:7400");
}

TEST(protocol_versions, ACodeIsShownAsTheNearestOneTheVersionKnows) {
  const error e{errc::not_leader, "node b is a standby"};
  EXPECT_EQ(as_known_to(20, e).code, errc::not_leader);
  EXPECT_EQ(as_known_to(19, e).code, errc::unreachable);
  EXPECT_EQ(as_known_to(19, e).message, e.message);
  EXPECT_EQ(as_known_to(18, error{errc::gone, "x"}).code, errc::not_found);
  EXPECT_EQ(as_known_to(19, error{errc::gone, "x"}).code, errc::gone);
  EXPECT_EQ(as_known_to(18, error{errc::busy, "x"}).code, errc::busy);
  // Every code is known to the version that introduced it, and none is newer than this one.
  for (std::uint8_t c = 1; c <= static_cast<std::uint8_t>(last_errc); ++c) {
    const auto code = static_cast<errc>(c);
    EXPECT_LE(introduced_in(code), protocol_version) << to_string(code);
    EXPECT_EQ(as_known_to(introduced_in(code), error{code, ""}).code, code) << to_string(code);
    EXPECT_LT(introduced_in(as_known_to(1, error{code, ""}).code), 2) << to_string(code);
  }
}

/// A list_request as msgpack with its first `n` fields only, or with `extra` more appended.
std::string list_request_fields(std::size_t keep, std::size_t extra = 0) {
  const auto full = msg::encode(msg::list_request{});
  auto oh = msgpack::unpack(full.data(), full.size());
  const auto& a = oh.get().via.array;
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  pk.pack_array(static_cast<std::uint32_t>(std::min<std::size_t>(keep, a.size) + extra));
  for (std::size_t i = 0; i < std::min<std::size_t>(keep, a.size); ++i)
    pk.pack(a.ptr[i]);
  for (std::size_t i = 0; i < extra; ++i)
    pk.pack(std::string("a field of a later release"));
  return std::string(buf.data(), buf.size());
}

// An older client may send fewer trailing fields (they keep their defaults); a client of this
// version may not (a mistake of its own build). Appended fields of a later release are
// skipped in both.
TEST(protocol_versions, FewerTrailingFieldsOnlyFromAnOlderClientMoreFromAny) {
  const auto list = static_cast<std::uint8_t>(operation::list);
  const auto fewer = make_request_payload(9, list, list_request_fields(1));
  const auto more = make_request_payload(9, list, list_request_fields(99, 2));
  auto old = decode_request(fewer, previous);
  ASSERT_TRUE(old.value) << old.value.err().message;
  EXPECT_EQ(std::get<msg::list_request>(old.value->body), msg::list_request{});
  auto now = decode_request(fewer, protocol_version);
  ASSERT_FALSE(now.value);
  EXPECT_NE(now.value.err().message.find("struct has 1 fields"), std::string::npos)
      << now.value.err().message;
  EXPECT_TRUE(decode_request(more, protocol_version).value);
  EXPECT_TRUE(decode_request(more, previous).value);
}

}  // namespace
}  // namespace arbroker::api
