#include "arbroker/api/protocol_reference.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "arbroker/api/protocol.hpp"
#include "arbroker/messages/fields.hpp"

namespace arbroker::api {
namespace {

// The committed reference is what the code generates: a field added, moved or renamed, an
// enum value or error code added, changes the generator's text and fails this until the file
// is regenerated.
TEST(protocol_reference, TheCommittedFileIsWhatTheCodeGenerates) {
  std::ifstream in(ARB_SOURCE_DIR "/docs/protocol-reference.md");
  ASSERT_TRUE(in) << "docs/protocol-reference.md is missing";
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_TRUE(committed.str() == protocol_reference())
      << "docs/protocol-reference.md is out of date: regenerate it with\n"
         "  build/apps/arb-protocol-reference > docs/protocol-reference.md";
}

TEST(protocol_reference, NamesEveryFieldInWireOrderWithItsType) {
  const auto text = protocol_reference();
  // hello is [magic, version, user, token] (codec_test checks the bytes).
  EXPECT_NE(text.find("### hello\n\n| # | field | type |\n|---|---|---|\n| 0 | magic | uint32 |\n"
                      "| 1 | version | uint16 |\n| 2 | user | str |\n| 3 | token | str |\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| 1 | elastic | [elastic_request](#elastic_request) | "
                      "[elastic_reply](#elastic_reply) |"),
            std::string::npos);
  EXPECT_NE(text.find("| 10 | not_found |"), std::string::npos);
  EXPECT_NE(text.find("### reservation_state\n\nuint8: 0 "), std::string::npos) << text;
  EXPECT_NE(text.find("| estimates | array of [cluster_estimate](#cluster_estimate) |"),
            std::string::npos);
  EXPECT_NE(text.find("### cluster_list_request\n\nNo fields"), std::string::npos);
}

TEST(field_names, ComeFromTheFieldListInItsOrder) {
  EXPECT_EQ(msg::field_names<hello>(),
            (std::vector<std::string>{"magic", "version", "user", "token"}));
  EXPECT_EQ(msg::wire_name_of<estimate_request>(), "estimate_request");
  EXPECT_TRUE(msg::field_names<cluster_list_request>().empty());
  EXPECT_EQ(msg::parse_field_list(" x.a,x.b , x.c"), (std::vector<std::string>{"a", "b", "c"}));
}

}  // namespace
}  // namespace arbroker::api
