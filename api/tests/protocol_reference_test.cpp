#include "arbroker/api/protocol_reference.hpp"

#include <gtest/gtest.h>

#include <fstream>
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

// The fields of `type` as the generated reference lists them, in wire order.
std::vector<std::string> reference_fields(const std::string& reference, const std::string& type) {
  std::vector<std::string> out;
  auto at = reference.find("### " + type + "\n\n");
  if (at == std::string::npos) return {"<no type " + type + " in the reference>"};
  std::istringstream rows(reference.substr(at));
  std::string row;
  std::getline(rows, row);  // the heading
  std::getline(rows, row);  // blank
  static const std::regex field(R"(^\| \d+ \| (\w+) \|)");
  std::smatch m;
  while (std::getline(rows, row) && !row.empty())
    if (std::regex_search(row, m, field)) out.push_back(m[1]);
  return out;
}

// The top-level names of "{a, b: [[x, y]], c (0: none)}" from just after its '{'.
std::vector<std::string> listed_fields(const std::string& line, std::size_t from) {
  std::vector<std::string> out;
  std::string item;
  int depth = 1;
  for (std::size_t i = from; i < line.size() && depth > 0; ++i) {
    const char c = line[i];
    if (c == '{' || c == '[' || c == '(') ++depth;
    if (c == '}' || c == ']' || c == ')') --depth;
    if (depth == 0 || (depth == 1 && c == ',')) {
      static const std::regex name(R"(^\s*(\w+))");
      std::smatch m;
      if (std::regex_search(item, m, name)) out.push_back(m[1]);
      item.clear();
    } else if (depth >= 1) {
      item += depth == 1 ? c : ' ';
    }
  }
  return out;
}

// docs/protocol.md's table of operations names each body's fields as `msg::x` {a, b, c}: a
// client written from it sends exactly those, so they must be all of the body's fields, in
// wire order (issue 37: grid_list once showed 3 of its 6 and such a client was refused).
TEST(protocol_reference, TheGuidesOperationTableNamesEveryFieldOfABodyInOrder) {
  std::ifstream in(ARB_SOURCE_DIR "/docs/protocol.md");
  ASSERT_TRUE(in) << "docs/protocol.md is missing";
  const auto reference = protocol_reference();
  static const std::regex op_row(R"(^\| \d+ +\| \w+ +\|)");
  static const std::regex body(R"(`(?:msg|api)::(\w+)` \{)");
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (!std::regex_search(line, op_row)) continue;
    for (std::sregex_iterator it(line.begin(), line.end(), body), end; it != end; ++it) {
      const auto type = (*it)[1].str();
      const auto from = static_cast<std::size_t>(it->position() + it->length());
      EXPECT_EQ(listed_fields(line, from), reference_fields(reference, type))
          << "docs/protocol.md's operation table on " << type << ": " << line;
      ++checked;
    }
  }
  EXPECT_GE(checked, 12);  // the table is still there and still names its fields
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
