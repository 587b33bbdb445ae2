#include "arbroker/messages/checked_requests.hpp"

#include <gtest/gtest.h>

#include "arbroker/messages/speedup_spec.hpp"

namespace arbroker::msg {
namespace {

elastic_request sample() {
  elastic_request r;
  r.user = "alice";
  r.est = 1000;
  r.let = 1000 + 4 * 3600;
  r.np_min = 4;
  r.np_max = 16;
  r.dur_ref = 3600;
  r.pp_ref = 1000;
  r.np_ref = 8;
  r.speedup = to_spec(*speedup_model::downey(32, 1));
  r.os = "linux";
  r.clusters = {"a", "b"};
  return r;
}

TEST(CheckElastic, PutsTheRequestInTheEnginesTermsOnce) {
  auto r = sample();
  r.policy = "mli";
  r.mode = request_mode::hold;
  r.hold_seconds = 90;
  auto c = check(r);
  ASSERT_TRUE(c) << c.err().message;
  EXPECT_EQ(c->job.user, "alice");
  EXPECT_EQ(c->job.np_max, 16);
  EXPECT_EQ(c->job.sp, *speedup_model::downey(32, 1));
  EXPECT_EQ(c->prefer, default_preferences());
  EXPECT_EQ(c->policy, match_policy::mli);
  EXPECT_EQ(c->mode, request_mode::hold);
  EXPECT_EQ(c->hold_seconds, 90);
  EXPECT_EQ(c->where.np_min, 4);
  EXPECT_EQ(c->where.os, "linux");
  EXPECT_EQ(c->where.clusters, r.clusters);
  EXPECT_EQ(c->slotting, (probe_limits{8, 60}));
  EXPECT_FALSE(check(sample())->policy.has_value());
}

TEST(CheckElastic, EveryRuleNamesItsField) {
  struct bad_case {
    const char* what;
    void (*spoil)(elastic_request&);
    errc code;
    const char* field;
  };
  const bad_case cases[] = {
      {"no user", [](auto& r) { r.user.clear(); }, errc::permission_denied, "without a user"},
      {"empty window", [](auto& r) { r.let = r.est; }, errc::invalid_window, ""},
      {"bad range", [](auto& r) { r.np_min = 20; }, errc::invalid_processor_range, ""},
      {"bad model",
       [](auto& r) {
         r.speedup = to_spec(*speedup_model::amdahl(0));
         r.speedup.p1 = 2;
       },
       errc::invalid_speedup_model, "speedup:"},
      {"no preference", [](auto& r) { r.prefer.clear(); }, errc::invalid_parameter, "prefer:"},
      {"twice",
       [](auto& r) {
         r.prefer.push_back({objective_attribute::end, true});
       },
       errc::invalid_parameter, "prefer: preference 'end' is named twice"},
      {"policy", [](auto& r) { r.policy = "fastest"; }, errc::invalid_parameter, "policy:"},
      {"mode", [](auto& r) { r.mode = static_cast<request_mode>(7); }, errc::invalid_parameter,
       "mode: unknown mode 7"},
      {"esr", [](auto& r) { r.esr = static_cast<esr_method>(3); }, errc::invalid_parameter,
       "esr: unknown method 3"},
      {"threshold", [](auto& r) { r.esr_threshold = 1.5; }, errc::invalid_parameter,
       "esr_threshold:"},
      {"tsn", [](auto& r) { r.tsn_max = 0; }, errc::invalid_parameter, "tsn_max:"},
      {"gap", [](auto& r) { r.tss_gap = -1; }, errc::invalid_parameter, "tss_gap:"},
      {"hold outside hold", [](auto& r) { r.hold_seconds = 5; }, errc::invalid_parameter,
       "hold_seconds:"},
      {"account list", [](auto& r) { r.account = "a,b"; }, errc::invalid_parameter,
       "account: 'a,b' may hold only"},
      {"long account", [](auto& r) { r.account = std::string(65, 'a'); }, errc::invalid_parameter,
       "account: 65 characters"},
  };
  for (const auto& c : cases) {
    auto r = sample();
    c.spoil(r);
    auto out = check(r);
    ASSERT_FALSE(out) << c.what;
    EXPECT_EQ(out.err().code, c.code) << c.what;
    EXPECT_NE(out.err().message.find(c.field), std::string::npos)
        << c.what << ": " << out.err().message;
  }
}

coreservation_request co_sample(std::size_t parts) {
  coreservation_request r;
  r.user = "bob";
  r.est = 1000;
  r.let = 1000 + 6 * 3600;
  for (std::size_t i = 0; i < parts; ++i) {
    coreservation_component c;
    c.np_min = c.np_max = c.np_ref = 8;
    c.dur_ref = 3600;
    c.pp_ref = 1000;
    c.speedup = to_spec(*speedup_model::amdahl(0));
    c.offset = static_cast<std::int64_t>(i) * 600;
    r.components.push_back(c);
  }
  return r;
}

TEST(CheckCoreservation, ComponentsGetTheirShiftedWindows) {
  auto r = co_sample(3);
  r.components[2].np_min = 4;
  r.components[2].clusters = {"x"};
  auto c = check(r);
  ASSERT_TRUE(c) << c.err().message;
  ASSERT_EQ(c->components.size(), 3u);
  EXPECT_EQ(c->components[1].job.est, r.est + 600);
  EXPECT_EQ(c->components[1].job.let, r.let);
  EXPECT_EQ(c->components[2].clusters, std::vector<std::string>{"x"});
  EXPECT_EQ(c->where.np_min, 4);
  EXPECT_EQ(c->where.user, "bob");
  r.account = "hep.cms-1";
  EXPECT_EQ(check(r)->account, "hep.cms-1");
  r.account = "hep cms";
  EXPECT_EQ(check(r).err().code, errc::invalid_parameter);
}

TEST(CheckCoreservation, BadPartsAreNamed) {
  EXPECT_EQ(check(co_sample(0)).err().code, errc::invalid_parameter);
  EXPECT_EQ(check(co_sample(max_coreservation_components + 1)).err().code, errc::invalid_parameter);
  EXPECT_TRUE(check(co_sample(max_coreservation_components)));
  auto r = co_sample(2);
  r.components[1].offset = 99 * 3600;
  auto out = check(r);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.err().code, errc::invalid_window);
  EXPECT_NE(out.err().message.find("components[1].offset"), std::string::npos);
  r = co_sample(2);
  r.components[1].np_min = 20;
  out = check(r);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.err().code, errc::invalid_processor_range);
  EXPECT_NE(out.err().message.find("components[1]."), std::string::npos) << out.err().message;
  r = co_sample(2);
  r.max_attempts = 0;
  EXPECT_EQ(check(r).err().code, errc::invalid_parameter);
}

}  // namespace
}  // namespace arbroker::msg
