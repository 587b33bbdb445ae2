#include "arbroker/core/site_adaptation.hpp"

#include <gtest/gtest.h>

namespace arbroker {
namespace {

elastic_request request(speedup_model sp, duration window) {
  elastic_request r;
  r.user = "alice";
  r.est = 1000;
  r.let = 1000 + window;
  r.np_min = 2;
  r.np_max = 32;
  r.dur_ref = 7200;
  r.pp_ref = 1500;
  r.np_ref = 8;
  r.sp = std::move(sp);
  return r;
}

site_description site(int cpus, double pp) {
  return {"A", cpus, pp, {}};
}

TEST(AdaptNpMin, AmdahlSeqZeroSimplification) {
  // ceil(S_A(8) * 7200 / 3600) = ceil(8 * 2) = 16
  auto n = adapt_np_min(*speedup_model::amdahl(0), 2, 32, 8, 7200, 3600, 64);
  ASSERT_TRUE(n) << to_string(n.err());
  EXPECT_EQ(*n, 16);
}

TEST(AdaptNpMin, AmdahlClosedFormEquation4) {
  // S(8) = 7.4766, dur ratio 2: n = 0.99 / (3600 / (7.4766 * 7200) - 0.01) = 17.41 -> 18.
  auto sp = *speedup_model::amdahl(0.01);
  auto n = adapt_np_min(sp, 2, 32, 8, 7200, 3600, 64);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 18);
  // It is the smallest count that fits: 17 does not, 18 does.
  EXPECT_GT(*adapt_duration(sp, 7200, 8, 17), 3600);
  EXPECT_LE(*adapt_duration(sp, 7200, 8, 18), 3600);
  // np_min above the computed bound is kept.
  EXPECT_EQ(*adapt_np_min(sp, 20, 32, 8, 7200, 3600, 64), 20);
}

TEST(AdaptNpMin, AmdahlValidityCondition) {
  // seq = 0.1, np_ref = 8: 1 / (S(8) * seq) = 2.125, not > ratio 3: no count can do it.
  auto n = adapt_np_min(*speedup_model::amdahl(0.1), 1, 1000, 8, 10800, 3600, 1000);
  ASSERT_FALSE(n);
  EXPECT_EQ(n.err().code, errc::infeasible);
  // seq = 1: no speedup at all.
  EXPECT_EQ(adapt_np_min(*speedup_model::amdahl(1), 1, 64, 8, 7200, 3600, 64).err().code,
            errc::infeasible);
}

TEST(AdaptNpMin, DowneyIterationOfFigure2) {
  // C = S_D(8) * 2 = 15.574; the first n with S_D(n) >= C is 17 (by eq. 3, branch 1).
  auto sp = *speedup_model::downey(64, 0.5);
  auto n = adapt_np_min(sp, 2, 32, 8, 7200, 3600, 64);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 17);
  EXPECT_LT(sp.speedup(16), sp.speedup(8) * 2);
  EXPECT_GE(sp.speedup(17), sp.speedup(8) * 2);
}

TEST(AdaptNpMin, DowneyCannotReachRequiredSpeedup) {
  // A = 4 caps the speedup at 4 but C = S(2) * 3 = 6.
  auto n = adapt_np_min(*speedup_model::downey(4, 0), 1, 64, 2, 10800, 3600, 64);
  ASSERT_FALSE(n);
  EXPECT_EQ(n.err().code, errc::infeasible);
}

TEST(AdaptNpMin, BoundedByNpMaxAndSite) {
  auto lin = *speedup_model::amdahl(0);
  EXPECT_EQ(adapt_np_min(lin, 2, 12, 8, 7200, 3600, 64).err().code, errc::infeasible);  // 16 > 12
  EXPECT_EQ(adapt_np_min(lin, 2, 32, 8, 7200, 3600, 10).err().code, errc::infeasible);  // 16 > 10
  auto downey = *speedup_model::downey(64, 0.5);
  EXPECT_EQ(adapt_np_min(downey, 2, 32, 8, 7200, 3600, 16).err().code, errc::infeasible);
}

TEST(AdaptNpMin, RejectsBadInput) {
  auto lin = *speedup_model::amdahl(0);
  EXPECT_EQ(adapt_np_min(lin, 0, 4, 2, 60, 60, 8).err().code, errc::invalid_processor_range);
  EXPECT_EQ(adapt_np_min(lin, 5, 4, 2, 60, 60, 8).err().code, errc::invalid_processor_range);
  EXPECT_EQ(adapt_np_min(lin, 1, 4, 0, 60, 60, 8).err().code, errc::invalid_processor_range);
  EXPECT_EQ(adapt_np_min(lin, 1, 4, 2, -1, 60, 8).err().code, errc::invalid_duration);
  EXPECT_EQ(adapt_np_min(lin, 1, 4, 2, 60, 0, 8).err().code, errc::invalid_duration);
}

TEST(AdaptToSite, DurationFitsWindowLeavesRangeAlone) {
  auto r = request(*speedup_model::amdahl(0.01), 4 * 3600);
  auto out = adapt_to_site(r, site(16, 3000));  // twice as fast: 3600 s on 8 CPUs
  ASSERT_TRUE(out) << to_string(out.err());
  EXPECT_EQ(out->est, r.est);
  EXPECT_EQ(out->let, r.let);
  // Every count from np_min 2 to the site's 16 CPUs (np_max 32 is capped), each with eq. 5
  // on the scaled duration: 3600 s on the reference 8 CPUs.
  ASSERT_EQ(out->shapes.size(), 15u);
  EXPECT_EQ(out->shapes.front().np, 2);
  EXPECT_EQ(out->shapes.back().np, 16);
  for (const auto& s : out->shapes)
    EXPECT_EQ(s.dur, *adapt_duration(r.sp, 3600, 8, s.np)) << s.np;
  EXPECT_EQ(out->shapes[6], (job_shape{8, 3600}));
}

TEST(AdaptToSite, ShapesFollowTheSitesReservableSizes) {
  auto r = request(*speedup_model::amdahl(0), 4 * 3600);
  auto s = site(16, 1500);
  s.sizes.bunch = 4;
  auto out = adapt_to_site(r, s);
  ASSERT_TRUE(out) << to_string(out.err());
  std::vector<job_shape> expected{{4, 14400}, {8, 7200}, {12, 4800}, {16, 3600}};
  EXPECT_EQ(out->shapes, expected);
  s.sizes.counts = {1, 6, 64};  // only 6 lies in [2, 16]
  out = adapt_to_site(r, s);
  ASSERT_TRUE(out) << to_string(out.err());
  EXPECT_EQ(out->shapes, (std::vector<job_shape>{{6, 9600}}));
  s.sizes.counts = {1, 64};
  EXPECT_EQ(adapt_to_site(r, s).err().code, errc::invalid_processor_range);
}

TEST(AdaptToSite, RaisesNpMinAndMovesReference) {
  // Same power: dur_new 7200 s > 3600 s window; np_min -> 18, np_ref follows, and the
  // duration is re-expressed on 18 processors: ceil(7200 * S(8)/S(18)) = 3500.
  const auto sp = *speedup_model::amdahl(0.01);
  auto out = adapt_to_site(request(sp, 3600), site(64, 1500));
  ASSERT_TRUE(out);
  ASSERT_EQ(out->shapes.size(), 32u - 18u + 1u);
  EXPECT_EQ(out->shapes.front(), (job_shape{18, 3500}));
  EXPECT_EQ(out->shapes.back().np, 32);
  for (const auto& s : out->shapes)  // from the new reference: 3500 s on 18 CPUs
    EXPECT_EQ(s.dur, *adapt_duration(sp, 3500, 18, s.np)) << s.np;
}

TEST(AdaptToSite, InvalidCandidates) {
  auto r = request(*speedup_model::amdahl(0.01), 3600);
  auto small = adapt_to_site(r, site(16, 1500));  // needs 18
  ASSERT_FALSE(small);
  EXPECT_EQ(small.err().code, errc::infeasible);
  EXPECT_NE(small.err().message.find("'A'"), std::string::npos);
  r.np_min = 40;
  r.np_max = 64;
  EXPECT_EQ(adapt_to_site(r, site(32, 1500)).err().code, errc::infeasible);
}

TEST(AdaptToSite, ValidatesRequestAndSite) {
  auto r = request(*speedup_model::amdahl(0.01), 3600);
  auto bad = r;
  bad.let = bad.est;
  EXPECT_EQ(adapt_to_site(bad, site(64, 1)).err().code, errc::invalid_window);
  bad = r;
  bad.np_min = 40;
  EXPECT_EQ(adapt_to_site(bad, site(64, 1)).err().code, errc::invalid_processor_range);
  bad = r;
  bad.dur_ref = -1;
  EXPECT_EQ(adapt_to_site(bad, site(64, 1)).err().code, errc::invalid_duration);
  bad = r;
  bad.pp_ref = -1;
  EXPECT_EQ(adapt_to_site(bad, site(64, 1)).err().code, errc::invalid_parameter);
  bad = r;
  bad.np_ref = -1;
  EXPECT_EQ(adapt_to_site(bad, site(64, 1)).err().code, errc::invalid_processor_range);
  EXPECT_EQ(adapt_to_site(r, site(0, 1)).err().code, errc::invalid_processor_range);
  EXPECT_EQ(adapt_to_site(r, site(64, 0)).err().code, errc::invalid_parameter);
  auto s = site(64, 1);
  s.sizes.bunch = 0;
  EXPECT_EQ(adapt_to_site(r, s).err().code, errc::invalid_processor_range);
}

// Issue 16: "--np 8 --runtime 2h" must mean 2 hours on 8 CPUs of the cluster, not 2 hours on
// one CPU of power 1 scaled to the site (which made 1-second reservations).
TEST(AdaptToSite, ARequestNamingNoReferenceGetsItsRunTimeOnEveryCluster) {
  elastic_request r;  // pp_ref and np_ref left at their defaults
  r.est = 0;
  r.let = 86400;
  r.np_min = r.np_max = 8;
  r.dur_ref = 7200;
  for (double pp : {1.0, 1500.0, 3000.0}) {
    auto out = adapt_to_site(r, site(64, pp));
    ASSERT_TRUE(out) << to_string(out.err());
    EXPECT_EQ(out->shapes, (std::vector<job_shape>{{8, 7200}})) << pp;
  }
  // A range: the run time is for its lower end, shorter on more CPUs (eq. 5, Amdahl 0.1).
  r.np_max = 16;
  r.sp = *speedup_model::amdahl(0.1);
  auto out = adapt_to_site(r, site(64, 1500));
  ASSERT_TRUE(out) << to_string(out.err());
  EXPECT_EQ(out->shapes.front(), (job_shape{8, 7200}));
  EXPECT_EQ(out->shapes.back().dur, *adapt_duration(r.sp, 7200, 8, 16));
  EXPECT_LT(out->shapes.back().dur, 7200);
  // Naming the reference still scales: 2 h on CPUs of power 1500 take 1 h on power 3000.
  r.np_max = 8;
  r.pp_ref = 1500;
  out = adapt_to_site(r, site(64, 3000));
  ASSERT_TRUE(out) << to_string(out.err());
  EXPECT_EQ(out->shapes, (std::vector<job_shape>{{8, 3600}}));
}

}  // namespace
}  // namespace arbroker
