#include "arbroker/api/codec.hpp"

#include <gtest/gtest.h>

#include <msgpack.hpp>

#include "sample_requests.hpp"

namespace arbroker::api {
namespace {

TEST(frame, header_is_big_endian_length) {
  std::string f = make_frame(std::string(0x0102, 'x'));
  ASSERT_EQ(f.size(), 4u + 0x0102);
  EXPECT_EQ(f[0], 0);
  EXPECT_EQ(f[1], 0);
  EXPECT_EQ(f[2], 1);
  EXPECT_EQ(f[3], 2);
}

TEST(frame_decoder, splits_a_stream_fed_byte_by_byte) {
  std::string stream = make_frame("one") + make_frame("second") + make_frame("3");
  frame_decoder d(64);
  std::vector<std::string> got;
  for (char c : stream) {
    d.feed(std::string_view(&c, 1));
    for (;;) {
      auto next = d.next();
      ASSERT_TRUE(next);
      if (!*next) break;
      got.push_back(**next);
    }
  }
  EXPECT_EQ(got, (std::vector<std::string>{"one", "second", "3"}));
  EXPECT_EQ(d.buffered(), 0u);
}

TEST(frame_decoder, refuses_oversized_frames_and_stays_failed) {
  frame_decoder d(10);
  d.feed(make_frame(std::string(11, 'x')));
  auto next = d.next();
  ASSERT_FALSE(next);
  EXPECT_EQ(next.err().code, errc::invalid_parameter);
  EXPECT_NE(next.err().message.find("exceeds the limit of 10"), std::string::npos);
  d.feed(make_frame("ok"));
  EXPECT_FALSE(d.next());
}

TEST(frame_decoder, refuses_empty_frames) {
  frame_decoder d(10);
  d.feed(std::string(4, '\0'));
  EXPECT_FALSE(d.next());
}

TEST(frame_decoder, waits_for_a_partial_frame) {
  frame_decoder d(100);
  std::string f = make_frame("hello");
  d.feed(std::string_view(f).substr(0, 6));
  auto next = d.next();
  ASSERT_TRUE(next);
  EXPECT_FALSE(*next);
}

TEST(codec, every_request_round_trips) {
  std::uint64_t id = 1;
  for (auto& body : testing::valid_bodies()) {
    request r{id++ << 40, body};
    auto d = decode_request(encode_request(r));
    ASSERT_TRUE(d.value) << to_string(r.op()) << ": " << d.value.err().message;
    EXPECT_EQ(*d.value, r);
    EXPECT_EQ(d.id, r.id);
  }
}

TEST(codec, every_response_round_trips) {
  for (std::uint8_t code = 1; code <= 11; ++code) {
    auto op = *to_operation(code);
    response r{code, op, 0, "", empty_response_body(op)};
    auto back = decode_response(encode_response(r));
    ASSERT_TRUE(back) << back.err().message;
    EXPECT_EQ(*back, r);
  }
  msg::list_reply list;
  list.reservations.push_back(
      msg::reservation_info{"a/1", "a", "alice", 1, 2, 3, reservation_state::committed, 0, 0, 9.5});
  response r{7, operation::list, 0, "", list};
  EXPECT_EQ(*decode_response(encode_response(r)), r);
  response err = error_response(8, operation::cancel, fail(errc::not_found, "no such"));
  auto back = decode_response(encode_response(err));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, err);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(back->body));
}

TEST(codec, hello_and_welcome_round_trip) {
  hello h{protocol_magic, protocol_version, "alice", "s3cret"};
  EXPECT_EQ(*decode_hello(encode_hello(h)), h);
  welcome w{protocol_version, "node-1", msg::wire(errc::permission_denied, "no"), ""};
  EXPECT_EQ(*decode_welcome(encode_welcome(w)), w);
  welcome standby{protocol_version, "b", msg::wire(errc::not_leader, "a serves"), "a:7400"};
  EXPECT_EQ(*decode_welcome(encode_welcome(standby)), standby);
}

// A version-19 server's welcome has no `leader`: read all the same, so that its refusal of
// this client's version reaches the user in its words (other messages refuse missing fields).
TEST(codec, an_older_servers_welcome_is_read_without_its_newest_fields) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  pk.pack_array(3);
  pk.pack(std::uint16_t{19});
  pk.pack(std::string("old-node"));
  pk.pack_array(2);
  pk.pack(static_cast<std::uint8_t>(errc::invalid_parameter));
  pk.pack(std::string("unsupported protocol version 20 (this server speaks 19)"));
  auto w = decode_welcome(std::string_view(buf.data(), buf.size()));
  ASSERT_TRUE(w) << w.err().message;
  EXPECT_EQ(w->version, 19);
  EXPECT_EQ(w->error.message, "unsupported protocol version 20 (this server speaks 19)");
  EXPECT_EQ(w->leader, "");
}

TEST(codec, unknown_operation_keeps_the_id) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  pk.pack_array(3);
  pk.pack(std::uint64_t{42});
  pk.pack(std::uint8_t{99});
  pk.pack_nil();
  auto d = decode_request(std::string_view(buf.data(), buf.size()));
  EXPECT_FALSE(d.value);
  EXPECT_EQ(d.id, 42u);
  EXPECT_NE(d.value.err().message.find("unknown operation 99"), std::string::npos);
}

TEST(codec, bad_body_keeps_the_id_and_names_the_operation) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  pk.pack_array(3);
  pk.pack(std::uint64_t{7});
  pk.pack(static_cast<std::uint8_t>(operation::cancel));
  pk.pack_array(2);
  pk.pack(std::string("alice"));
  pk.pack(std::int64_t{5});  // reservation id must be a string
  auto d = decode_request(std::string_view(buf.data(), buf.size()));
  ASSERT_FALSE(d.value);
  EXPECT_EQ(d.id, 7u);
  EXPECT_NE(d.value.err().message.find("cancel"), std::string::npos);
}

TEST(codec, garbage_has_no_id) {
  for (std::string bytes : {std::string("\xc1"), std::string("\x93\xa1x\x01\xc0"),
                            std::string("\x92\x01\x02"), std::string("\x01")}) {
    auto d = decode_request(bytes);
    EXPECT_FALSE(d.value);
    EXPECT_FALSE(d.id);
  }
}

// A payload that does not unpack still names its request when its envelope's head is whole;
// anything else has no id.
TEST(codec, a_broken_body_keeps_the_id_of_a_whole_head) {
  auto cut =
      decode_request(std::string("\x93\x09\x08\xaa"
                                 "abc",
                                 7));  // a str cut short
  EXPECT_FALSE(cut.value);
  EXPECT_EQ(cut.id, 9u);
  EXPECT_EQ(cut.op_code, 8);
  for (std::string bytes : {std::string("\x05\xc1"), std::string("\x93\x91\x01\x08\xc1"),
                            std::string("\x93\x81\x01\x01\x08\xc1"), std::string(1000, '\x91')}) {
    auto d = decode_request(bytes);
    EXPECT_FALSE(d.value);
    EXPECT_FALSE(d.id);
  }
}

// Error messages may quote refused bytes; the response still carries UTF-8 only.
TEST(codec, a_message_with_invalid_utf8_is_sent_with_replacement_characters) {
  response r{3, operation::query, static_cast<std::uint8_t>(errc::not_found),
             "no reservation '\xff\xfe'", std::monostate{}};
  auto back = decode_response(encode_response(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->message, "no reservation '\xef\xbf\xbd\xef\xbf\xbd'");
}

TEST(codec, claimed_sizes_beyond_the_payload_are_refused_without_allocating) {
  // An array header claiming 2^32-1 elements in a 5-byte payload.
  std::string huge_array("\xdd\xff\xff\xff\xff", 5);
  EXPECT_FALSE(decode_request(huge_array).value);
  std::string huge_string("\xdb\xff\xff\xff\xff", 5);
  EXPECT_FALSE(decode_hello(huge_string));
}

TEST(codec, deep_nesting_is_refused) {
  std::string deep(1000, '\x91');
  deep.push_back('\x01');
  EXPECT_FALSE(decode_request(deep).value);
}

TEST(codec, trailing_bytes_are_refused) {
  request r{1, msg::list_request{"alice"}};
  EXPECT_FALSE(decode_request(encode_request(r) + "x").value);
}

}  // namespace
}  // namespace arbroker::api
