#include "arbroker/core/success_rate.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <optional>

namespace arbroker {
namespace {

candidate with_esr(std::string_view site, timestamp start, std::optional<double> esr) {
  candidate c{std::move(site), start, start + 3600, 8, {}};
  c.props.esr = esr;
  return c;
}

std::vector<std::string> sites(const std::vector<candidate>& cs) {
  std::vector<std::string> out;
  for (const auto& c : cs)
    out.emplace_back(c.site);
  return out;
}

// esr: a 0.9, b 0.85, c 0.84, d missing, e 1.0, f 0.0.
std::vector<candidate> sample() {
  return {with_esr("a", 0, 0.9),           with_esr("b", 10, 0.85), with_esr("c", 20, 0.84),
          with_esr("d", 30, std::nullopt), with_esr("e", 40, 1.0),  with_esr("f", 50, 0.0)};
}

TEST(FilterByEsr, KeepsAtOrAboveThresholdInOrder) {
  auto kept = filter_by_esr(sample(), 0.85);  // the paper's threshold
  ASSERT_TRUE(kept);
  EXPECT_EQ(sites(*kept), (std::vector<std::string>{"a", "b", "e"}));
  EXPECT_EQ(kept->front(), sample().front());  // candidates pass through unchanged
}

TEST(FilterByEsr, ThresholdExtremes) {
  // th = 0 switches filtering off, keeping even the candidate without esr.
  auto all = filter_by_esr(sample(), 0.0);
  ASSERT_TRUE(all);
  EXPECT_EQ(sites(*all), (std::vector<std::string>{"a", "b", "c", "d", "e", "f"}));
  // th = 1 keeps only certain candidates.
  auto sure = filter_by_esr(sample(), 1.0);
  ASSERT_TRUE(sure);
  EXPECT_EQ(sites(*sure), (std::vector<std::string>{"e"}));
  // A missing esr counts as 0: dropped by the smallest positive threshold.
  auto tiny = filter_by_esr(sample(), 1e-12);
  ASSERT_TRUE(tiny);
  EXPECT_EQ(sites(*tiny), (std::vector<std::string>{"a", "b", "c", "e"}));
  auto empty = filter_by_esr({}, 0.5);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(FilterByEsr, RejectsBadThreshold) {
  for (double th : {-0.1, 1.1, std::numeric_limits<double>::quiet_NaN(),
                    std::numeric_limits<double>::infinity()}) {
    auto r = filter_by_esr(sample(), th);
    ASSERT_FALSE(r) << th;
    EXPECT_EQ(r.err().code, errc::invalid_parameter);
    EXPECT_NE(r.err().message.find("threshold"), std::string::npos);
  }
}

TEST(FilterByEsr, RejectsBadEsr) {
  for (double esr : {1.5, -0.25, std::numeric_limits<double>::quiet_NaN()}) {
    auto cs = sample();
    cs.push_back(with_esr("bad", 77, esr));
    auto r = filter_by_esr(cs, 0.5);
    ASSERT_FALSE(r) << esr;
    EXPECT_EQ(r.err().code, errc::invalid_parameter);
    EXPECT_NE(r.err().message.find("<bad, 77, 3677, 8>"), std::string::npos) << r.err().message;
  }
}

TEST(EsrMethod, NamesRoundTrip) {
  for (auto m : {esr_method::static_, esr_method::history, esr_method::load}) {
    auto parsed = parse_esr_method(to_string(m));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(*parsed, m);
  }
  EXPECT_EQ(to_string(esr_method::static_), "static");
  auto bad = parse_esr_method("Load");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.err().code, errc::invalid_parameter);
  EXPECT_NE(bad.err().message.find("'Load'"), std::string::npos);
  EXPECT_FALSE(parse_esr_method(""));
}

}  // namespace
}  // namespace arbroker
