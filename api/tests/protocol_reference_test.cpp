#include "arbroker/api/protocol_reference.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

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
  EXPECT_NE(text.find("### hello\n\n| # | field | type | meaning |\n|---|---|---|---|\n"
                      "| 0 | magic | uint32 | "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| 1 | version | uint16 | "), std::string::npos);
  EXPECT_NE(text.find("| 1 | elastic | [elastic_request](#elastic_request) | "
                      "[elastic_reply](#elastic_reply) | Reserve"),
            std::string::npos);
  // A request's field: its default and its rules; a reply's: what it is.
  EXPECT_NE(text.find("| 4 | np_max | int32 | 1 | The most CPUs the job can use (at least "
                      "np_min). (CPUs; 1 .. 1000000) |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| 2 | let | int64 | 0 | Latest end of the window"), std::string::npos);
  EXPECT_NE(text.find("(required; Unix s; 0 .. 13500000000) |"), std::string::npos);
  EXPECT_NE(text.find("| 10 | not_found |"), std::string::npos);
  EXPECT_NE(text.find("### reservation_state\n\nuint8: 0 "), std::string::npos) << text;
  EXPECT_NE(text.find("| estimates | array of [cluster_estimate](#cluster_estimate) | Per"),
            std::string::npos);
  EXPECT_NE(text.find("### cluster_list_request\n\nNo fields"), std::string::npos);
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// docs/protocol.md's and docs/http-api.md's tables of the hello, the operations, the error
// codes, the enums and the HTTP statuses are written by the generator from the same source
// as the reference (issue 37: protocol.md's grid_list once showed 3 of its 6 fields and its
// hello table an old version): the committed pages are what filling them gives.
TEST(protocol_reference, TheGuidesGeneratedTablesAreWhatTheCodeGenerates) {
  int blocks = 0;
  for (const char* page : {"/docs/protocol.md", "/docs/http-api.md"}) {
    const auto text = read(std::string(ARB_SOURCE_DIR) + page);
    ASSERT_FALSE(text.empty()) << page;
    EXPECT_TRUE(fill_generated_blocks(text) == text)
        << page << " is out of date: write its tables anew with\n"
        << "  build/apps/arb-protocol-reference --fill docs/protocol.md docs/http-api.md";
    for (auto at = text.find("<!-- generated: "); at != std::string::npos;
         at = text.find("<!-- generated: ", at + 1))
      ++blocks;
  }
  EXPECT_EQ(blocks, 5);  // hello, error-codes, enums, operations; statuses
  const auto filled = fill_generated_blocks(
      "a\n<!-- generated: error-codes -->\nOLD-TEXT\n"
      "<!-- end of generated: error-codes -->\nb\n");
  EXPECT_NE(filled.find("| 20 | gone |"), std::string::npos) << filled;
  EXPECT_EQ(filled.find("OLD-TEXT"), std::string::npos);
  EXPECT_THROW(fill_generated_blocks("<!-- generated: nonsense -->x"), std::invalid_argument);
  EXPECT_THROW(fill_generated_blocks("<!-- generated: enums -->x"), std::invalid_argument);
}

// Wherever a page names an error code by number and name ("12 permission_denied", "`busy`
// (11)"), the two agree with the code.
TEST(protocol_reference, ErrorCodesNamedInTheDocsHaveTheirNumbers) {
  std::map<std::string, int> number;
  for (int c = 1; c <= static_cast<int>(last_errc); ++c)
    number[std::string(to_string(static_cast<errc>(c)))] = c;
  static const std::regex number_name(R"((\d+) `?([a-z_]+)`?)");
  static const std::regex name_number(R"(`([a-z_]+)` \((\d+)\))");
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ARB_SOURCE_DIR "/docs")) {
    if (entry.path().extension() != ".md") continue;
    const auto text = read(entry.path().string());
    auto check = [&](const std::string& name, const std::string& digits, const std::string& at) {
      const auto it = number.find(name);
      if (it == number.end()) return;
      ++checked;
      EXPECT_EQ(std::stoi(digits), it->second)
          << entry.path().filename() << ": '" << at << "' names " << name;
    };
    for (std::sregex_iterator it(text.begin(), text.end(), number_name), end; it != end; ++it)
      check((*it)[2], (*it)[1], it->str());
    for (std::sregex_iterator it(text.begin(), text.end(), name_number), end; it != end; ++it)
      check((*it)[1], (*it)[2], it->str());
  }
  EXPECT_GE(checked, 8);
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
