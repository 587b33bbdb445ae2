#include "arbroker/api/json_codec.hpp"

#include <gtest/gtest.h>

#include "arbroker/messages/fields.hpp"
#include "sample_requests.hpp"

namespace arbroker::api {
namespace {

// Every operation's valid body goes to JSON and back unchanged.
TEST(json_codec, EveryRequestBodyRoundTrips) {
  for (const auto& body : testing::valid_bodies()) {
    const auto op = operation_of(body);
    const auto text = to_json(body);
    auto back = request_body_from_json(op, text);
    ASSERT_TRUE(back) << to_string(op) << ": " << back.err().message << "\n" << text;
    EXPECT_TRUE(*back == body) << to_string(op) << "\n" << text;
  }
}

TEST(json_codec, KeysAreTheFieldNamesAndEnumsTheirNames) {
  const auto text = to_json(request_body{testing::valid_elastic()});
  for (const auto& name : msg::field_names<msg::elastic_request>())
    EXPECT_NE(text.find("\"" + name + "\":"), std::string::npos) << name << " in " << text;
  EXPECT_NE(text.find(R"("mode":"reserve")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("kind":"amdahl")"), std::string::npos) << text;
  msg::list_reply reply;
  reply.reservations.push_back(msg::reservation_info{"a/1", "a", "alice", 10, 20, 4,
                                                     reservation_state::committed, 0, 0, 1.5});
  const auto r = to_json(response_body{reply});
  EXPECT_NE(r.find(R"("state":"committed")"), std::string::npos) << r;
  EXPECT_NE(r.find(R"("error":{"code":0,"message":""})"), std::string::npos) << r;
  EXPECT_EQ(to_json(response_body{}), "null");
}

TEST(json_codec, MissingKeysKeepTheirDefaults) {
  auto b =
      request_body_from_json(operation::elastic, R"({"np_min": 4, "np_max": 8, "mode": "whatif"})");
  ASSERT_TRUE(b) << b.err().message;
  const auto& e = std::get<msg::elastic_request>(*b);
  EXPECT_EQ(e.np_min, 4);
  EXPECT_EQ(e.mode, msg::request_mode::whatif);
  EXPECT_EQ(e.tsn_max, msg::elastic_request{}.tsn_max);
  EXPECT_TRUE(e.clusters.empty());
}

// Each mistake is refused with the path of the field it is in.
TEST(json_codec, MistakesNameTheirField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"np_mni": 4})", "np_mni: no such field (elastic_request has user, est,"},
      {R"({"np_min": "4"})", "np_min: expected an integer"},
      {R"({"np_min": 4.5})", "np_min: expected an integer"},
      {R"({"np_min": 4294967296})", "np_min: integer 4294967296 out of range"},
      {R"({"np_min": -2147483649})", "np_min: integer -2147483649 out of range"},
      {R"({"pp_ref": "fast"})", "pp_ref: expected a number"},
      {R"({"mode": "book"})", "mode: expected one of reserve, hold, whatif"},
      {R"({"mode": 1})", "mode: expected one of"},
      {R"({"clusters": "a"})", "clusters: expected an array"},
      {R"({"clusters": ["a", 2]})", "clusters[1]: expected a string"},
      {R"({"speedup": {"kind": "amdahl", "p9": 1}})", "speedup.p9: no such field"},
      {R"({"prefer": [{"attribute": "end", "descending": "yes"}]})",
       "prefer[0].descending: expected true or false"},
      {R"([1, 2])", "body: expected an object"},
      {R"({"user": "a")", "not JSON"},
      {"{\"user\": \"j\xff\xfe\"}", "not JSON (or not valid UTF-8)"},
  };
  for (const auto& [text, expected] : cases) {
    auto b = request_body_from_json(operation::elastic, text);
    ASSERT_FALSE(b) << text;
    EXPECT_EQ(b.err().code, errc::invalid_parameter) << text;
    EXPECT_NE(b.err().message.find(expected), std::string::npos)
        << text << " -> " << b.err().message;
  }
  auto nested = request_body_from_json(operation::coreserve,
                                       R"({"components": [{"np_min": 2}, {"np_min": "two"}]})");
  ASSERT_FALSE(nested);
  EXPECT_NE(nested.err().message.find("components[1].np_min: expected an integer"),
            std::string::npos)
      << nested.err().message;
}

TEST(json_codec, InvalidUtf8InARepliedStringIsReplacedNotSent) {
  msg::query_reply q;
  q.info.id = "a/1";
  q.info.owner = "j\xff";
  const auto text = to_json(response_body{q});
  EXPECT_EQ(text.find('\xff'), std::string::npos);
  EXPECT_NE(text.find("j\xef\xbf\xbd"), std::string::npos) << text;  // U+FFFD
}

}  // namespace
}  // namespace arbroker::api
