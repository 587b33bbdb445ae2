#include "arbroker/messages/msgpack_codec.hpp"

#include <gtest/gtest.h>

#include "arbroker/messages/all_types.hpp"
#include "field_randomizer.hpp"

namespace arbroker::msg {
namespace {

TEST(Msgpack, EveryMessageTypeRoundTripsWithRandomFields) {
  std::apply(
      [](const auto&... named) {
        auto check = [](const auto& n) {
          using T = typename std::decay_t<decltype(n)>::type;
          for (std::uint64_t seed = 1; seed <= 20; ++seed) {
            const T original = testing::random_message<T>(seed);
            auto bytes = encode(original);
            auto back = decode<T>(bytes);
            ASSERT_TRUE(back) << n.name << ": " << back.err().message;
            EXPECT_TRUE(*back == original) << n.name << " seed " << seed;
          }
        };
        (check(named), ...);
      },
      all_types);
}

TEST(Msgpack, MalformedInputIsATypedErrorNotACrash) {
  auto good = encode(testing::random_message<probe_request>(3));
  // Truncated at every length: never a crash, always invalid_parameter.
  for (std::size_t n = 0; n < good.size(); ++n) {
    auto r = decode<probe_request>(std::string_view(good).substr(0, n));
    ASSERT_FALSE(r) << "length " << n;
    EXPECT_EQ(r.err().code, errc::invalid_parameter);
  }
  EXPECT_FALSE(decode<probe_request>(good + "x"));  // trailing garbage
  // A different message type does not decode as this one.
  EXPECT_FALSE(decode<probe_request>(encode(testing::random_message<slot>(4))));
  // Wrong field type: a string where np_min is expected.
  probe_request p;
  auto bytes = encode(p);
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  pk.pack_array(3);
  pk.pack(std::string("u"));
  pk.pack(1);
  pk.pack(std::string("two"));
  EXPECT_FALSE(decode<probe_request>(std::string_view(buf.data(), buf.size())));
}

TEST(Msgpack, IntegerRangesAreChecked) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  pk.pack_array(2);
  pk.pack(std::uint64_t{1} << 40);  // does not fit code (uint8)
  pk.pack(std::string("m"));
  auto r = decode<wire_error>(std::string_view(buf.data(), buf.size()));
  ASSERT_FALSE(r);
  EXPECT_NE(r.err().message.find("out of range"), std::string::npos);
}

TEST(Msgpack, EnumsAreTheirNumbersAndOnlyTheirValuesDecode) {
  prepare_reply r;
  r.refused_by = refusal::lrms;
  auto back = decode<prepare_reply>(encode(r));
  ASSERT_TRUE(back) << back.err().message;
  EXPECT_EQ(back->refused_by, refusal::lrms);
  // The same bytes with the refusal's number (field 3) out of the enum's range.
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  pk.pack_array(9);
  pk.pack(std::string("t"));
  pk.pack(std::string("c/1"));
  pk.pack(-1);
  pk.pack(3);  // refusal has none, service, lrms: 0..2
  pk.pack_array(2);
  pk.pack(0);
  pk.pack(std::string());
  pk.pack(0.0);
  pk.pack(false);  // movable
  pk.pack(0);      // created
  pk.pack(0);      // admitted_after
  auto bad = decode<prepare_reply>(std::string_view(buf.data(), buf.size()));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.err().code, errc::invalid_parameter);
  EXPECT_NE(bad.err().message.find("enum value 3 out of range (0..2)"), std::string::npos)
      << bad.err().message;
}

TEST(Msgpack, NewerSendersMayAppendFields) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  pk.pack_array(3);
  pk.pack(7);
  pk.pack(std::string("busy"));
  pk.pack(std::string("a field this version does not know"));
  auto r = decode<wire_error>(std::string_view(buf.data(), buf.size()));
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->code, 7);
  EXPECT_EQ(r->message, "busy");
}

TEST(SlotConversion, KeepsWhichPropertiesAreSet) {
  candidate c{"A", 10, 20, 4, {2.5, std::nullopt}};
  auto back = to_candidate(to_slot(c), c.site);
  EXPECT_EQ(back, c);
  c.props.esr = 0.0;
  EXPECT_EQ(to_candidate(to_slot(c), c.site), c);
}

TEST(SpeedupSpec, RoundTripsModelsAndValidates) {
  for (const char* spec : {"amdahl:0.05", "downey:32:1.5", "table:1=1,16=12"}) {
    auto m = *speedup_model::parse(spec);
    auto back = to_model(to_spec(m));
    ASSERT_TRUE(back) << spec;
    EXPECT_EQ(*back, m);
  }
  speedup_spec bad;
  bad.kind = static_cast<speedup_kind>(9);
  EXPECT_EQ(to_model(bad).err().code, errc::invalid_speedup_model);
  bad.kind = speedup_kind::table;
  bad.table_n = {1, 2};
  bad.table_speedup = {1};
  EXPECT_EQ(to_model(bad).err().code, errc::invalid_speedup_model);
  bad = speedup_spec{};
  bad.p1 = 2;  // amdahl seq 2
  EXPECT_EQ(to_model(bad).err().code, errc::invalid_speedup_model);
}

}  // namespace
}  // namespace arbroker::msg
