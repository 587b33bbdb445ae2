#include "arbroker/config/toml_fields.hpp"

#include <gtest/gtest.h>

namespace arbroker::config {
namespace {

toml::table parse(std::string_view text) {
  return toml::parse(text);
}

TEST(toml_fields, ReadsTypedValuesAndNamesTheKeyOnError) {
  auto t = parse(R"(cpus = 64
name = "berlin"
pp = 1500
hold = "2m"
tz = "-5h"
on = true
)");
  EXPECT_EQ(*integer(at(t, "cluster[0]", "cpus")), 64);
  EXPECT_EQ(*text(at(t, "cluster[0]", "name")), "berlin");
  EXPECT_DOUBLE_EQ(*number(at(t, "cluster[0]", "pp")), 1500);  // an integer is a number too
  EXPECT_EQ(*span_of(at(t, "", "hold")), 120);
  EXPECT_EQ(*span_of(at(t, "", "tz"), true), -5 * 3600);
  EXPECT_TRUE(*boolean(at(t, "", "on")));

  auto wrong = integer(at(t, "cluster[0]", "name"));
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.err().message, "cluster[0].name: expected an integer");
  auto missing = text(at(t, "cluster[0]", "kind"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.err().message, "cluster[0].kind: missing");
  auto negative = span_of(at(t, "", "tz"));  // offsets only where allowed
  ASSERT_FALSE(negative);
  EXPECT_NE(negative.err().message.find("tz"), std::string::npos);
}

TEST(toml_fields, CostModelFromATableAppliesDayRatesAndAgreements) {
  auto t = parse(R"(base_unit_cost = 2.0
base_unit = "1h"
day_rates = [{ from = "0h", to = "6h", factor = 0.5 }]
agreements = { alice = 0.8 }
)");
  auto c = cost_of(t, "cluster[1]");
  ASSERT_TRUE(c) << c.err().message;
  // 4 CPUs for one hour at night (01:00-02:00 UTC): 4 * 2.0 * 0.5 = 4; alice pays 80%.
  const timestamp one_am = 3600;
  EXPECT_DOUBLE_EQ(*c->cost(one_am, one_am + 3600, 4, "bob"), 4.0);
  EXPECT_DOUBLE_EQ(*c->cost(one_am, one_am + 3600, 4, "alice"), 3.2);
}

TEST(toml_fields, CostModelErrorsNameTheKey) {
  auto t = parse(R"(day_rates = [{ from = "0h", factor = 0.5 }])");
  auto c = cost_of(t, "cluster[1]");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.err().message.rfind("cluster[1].day_rates[0].to", 0), 0u) << c.err().message;
}

TEST(toml_fields, ParseFileReportsLineOfASyntaxError) {
  auto r = parse_file("/nonexistent/arb.toml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.err().code, errc::invalid_parameter);
  EXPECT_NE(r.err().message.find("/nonexistent/arb.toml"), std::string::npos);
}

}  // namespace
}  // namespace arbroker::config
