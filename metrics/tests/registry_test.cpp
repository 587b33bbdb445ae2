#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "arbroker/metrics/registry.hpp"

namespace arbroker::metrics {
namespace {

TEST(Registry, RejectsBadNamesWithoutRegisteringAnything) {
  registry reg;
  for (const char* bad : {"", "1abc", "a-b", "a b", "é"}) {
    auto r = reg.add_counter(bad, "x");
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.err().code, errc::invalid_parameter);
  }
  EXPECT_FALSE(reg.add_gauge("g", "x", {"__reserved"}));
  EXPECT_FALSE(reg.add_gauge("g", "x", {"a:b"}));
  EXPECT_FALSE(reg.add_gauge("g", "x", {"a", "a"}));
  EXPECT_FALSE(reg.add_histogram("h", "x", {1}, {"le"}));
  EXPECT_EQ(reg.render(), "");
  EXPECT_TRUE(reg.add_counter("ns:sub_total", "x", {"_ok", "A9"}));
}

TEST(Registry, RejectsBadBuckets) {
  registry reg;
  auto unsorted = reg.add_histogram("h", "x", {1, 0.5});
  ASSERT_FALSE(unsorted);
  EXPECT_NE(unsorted.err().message.find("must increase"), std::string::npos);
  EXPECT_FALSE(reg.add_histogram("h", "x", {1, 1}));
  EXPECT_FALSE(reg.add_histogram("h", "x", {1, std::numeric_limits<double>::infinity()}));
  EXPECT_FALSE(reg.add_histogram("h", "x", {std::nan("")}));
  EXPECT_EQ(reg.render(), "");
}

TEST(Registry, SameDefinitionSharesTheFamilyAnotherOneIsAnError) {
  registry reg;
  auto a = *reg.add_counter("c_total", "C.", {"x"});
  auto b = *reg.add_counter("c_total", "C.", {"x"});
  a.with({"1"}).inc();
  EXPECT_EQ(&a.with({"1"}), &b.with({"1"}));
  EXPECT_EQ(b.with({"1"}).value(), 1u);

  EXPECT_FALSE(reg.add_gauge("c_total", "C.", {"x"}));
  EXPECT_FALSE(reg.add_counter("c_total", "other help", {"x"}));
  EXPECT_FALSE(reg.add_counter("c_total", "C.", {"y"}));
  (void)*reg.add_histogram("h", "H.", {1, 2});
  EXPECT_FALSE(reg.add_histogram("h", "H.", {1, 3}));
  EXPECT_TRUE(reg.add_histogram("h", "H.", {1, 2}));
}

TEST(Registry, LabelSetsAreCreatedOnceAndKeepTheirAddress) {
  registry reg;
  auto f = *reg.add_gauge("g", "G.", {"cluster"});
  auto& first = f.with({"alpha"});
  for (int i = 0; i < 100; ++i)
    f.with({"c" + std::to_string(i)});
  const std::vector<std::string> alpha{"alpha"};
  EXPECT_EQ(&f.with(alpha), &first);
}

TEST(Registry, WrongNumberOfLabelValuesThrowsAndCreatesNothing) {
  registry reg;
  auto f = *reg.add_counter("c_total", "C.", {"a", "b"});
  EXPECT_THROW(f.with({"only-one"}), std::invalid_argument);
  EXPECT_THROW(f.get(), std::invalid_argument);
  EXPECT_EQ(reg.render(), "# HELP c_total C.\n# TYPE c_total counter\n");
}

}  // namespace
}  // namespace arbroker::metrics
