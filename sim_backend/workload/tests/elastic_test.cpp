#include "arbroker/sim/elastic.hpp"

#include <gtest/gtest.h>

#include <set>

namespace arbroker::sim {
namespace {

swf_job job(std::int64_t submit, duration run, std::int64_t np) {
  swf_job j;
  j.job_id = 42;
  j.user_id = 7;
  j.submit_time = submit;
  j.run_time = run;
  j.requested_procs = np;
  return j;
}

TEST(ElasticTransform, HandComputedWindowAndRange) {
  // est = 1000 + 2 h = 8200; let = 8200 + 3600 + 5 h = 29800; [ceil(5), floor(20)].
  const elastic_transform t{2 * seconds_per_hour, 5 * seconds_per_hour, 0.5, 2.0};
  auto e = make_elastic(job(1000, 3600, 10), t);
  ASSERT_TRUE(e) << to_string(e.err());
  EXPECT_EQ(e->job_id, 42);
  EXPECT_EQ(e->user_id, 7);
  EXPECT_EQ(e->submit, 1000);
  EXPECT_EQ(e->est, 8200);
  EXPECT_EQ(e->let, 29800);
  EXPECT_EQ(e->run_time, 3600);
  EXPECT_EQ(e->procs, 10);
  EXPECT_EQ(e->np_min, 5);
  EXPECT_EQ(e->np_max, 20);
}

TEST(ElasticTransform, RigidFactorsKeepTheJobAsItIs) {
  auto e = make_elastic(job(0, 60, 7), elastic_transform{});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->est, 0);
  EXPECT_EQ(e->let, 60);
  EXPECT_EQ(e->np_min, 7);
  EXPECT_EQ(e->np_max, 7);
}

TEST(ElasticTransform, RoundsInwardAndKeepsAtLeastOneProcessor) {
  const elastic_transform half_double{0, 0, 0.5, 2.0};
  auto three = make_elastic(job(0, 1, 3), half_double);  // [ceil(1.5), floor(6)]
  ASSERT_TRUE(three);
  EXPECT_EQ(three->np_min, 2);
  EXPECT_EQ(three->np_max, 6);
  auto one = make_elastic(job(0, 1, 1), half_double);  // [max(1, ceil(0.5)), 2]
  ASSERT_TRUE(one);
  EXPECT_EQ(one->np_min, 1);
  EXPECT_EQ(one->np_max, 2);
  auto odd =
      make_elastic(job(0, 1, 5), elastic_transform{0, 0, 0.3, 1.1});  // [ceil 1.5, floor 5.5]
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->np_min, 2);
  EXPECT_EQ(odd->np_max, 5);
}

TEST(ElasticTransform, ExactProductsAreNotSpoiledByBinaryFractions) {
  // 10 * 0.3 is 3.0000000000000004 and 10 * 0.7 is 7.000000000000001 in doubles.
  auto e = make_elastic(job(0, 1, 10), elastic_transform{0, 0, 0.3, 0.7});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->np_min, 3);
  EXPECT_EQ(e->np_max, 7);
}

TEST(ElasticTransform, CapsAtTheMachineSize) {
  auto e = make_elastic(job(0, 1, 1000), elastic_transform{0, 0, 0.5, 2.0}, 1152);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->np_min, 500);
  EXPECT_EQ(e->np_max, 1152);
  auto big = make_elastic(job(0, 1, 1000), elastic_transform{0, 0, 1.5, 2.0}, 1152);
  ASSERT_TRUE(big);
  EXPECT_EQ(big->np_min, 1152);
  EXPECT_EQ(big->np_max, 1152);
}

TEST(ElasticTransform, UsesAllocatedProcsWhenRequestedAreUnknown) {
  auto j = job(0, 10, -1);
  j.allocated_procs = 16;
  auto e = make_elastic(j, elastic_transform{0, 0, 0.5, 1.0});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->procs, 16);
  EXPECT_EQ(e->np_min, 8);
  EXPECT_EQ(e->np_max, 16);
}

TEST(ElasticTransform, RejectsBadInput) {
  EXPECT_EQ(make_elastic(job(0, 0, 4), {}).err().code, errc::invalid_duration);
  EXPECT_EQ(make_elastic(job(0, -1, 4), {}).err().code, errc::invalid_duration);
  EXPECT_EQ(make_elastic(job(0, 10, -1), {}).err().code, errc::invalid_processor_range);
  EXPECT_EQ(make_elastic(job(0, 10, 4), elastic_transform{-1, 0, 1, 1}).err().code,
            errc::invalid_duration);
  EXPECT_EQ(make_elastic(job(0, 10, 4), elastic_transform{0, -1, 1, 1}).err().code,
            errc::invalid_duration);
  EXPECT_EQ(make_elastic(job(0, 10, 4), elastic_transform{0, 0, 2, 1}).err().code,
            errc::invalid_processor_range);
  EXPECT_EQ(make_elastic(job(0, 10, 4), elastic_transform{0, 0, 0, 1}).err().code,
            errc::invalid_processor_range);
  // procs 1 with <1.2, 1.5>: [2, 1] is empty.
  auto empty = make_elastic(job(0, 10, 1), elastic_transform{0, 0, 1.2, 1.5});
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.err().code, errc::invalid_processor_range);
  EXPECT_EQ(empty.err().message,
            "job 42: factors <1.2, 1.5> of 1 processors leave no whole processor count "
            "(min 2 > max 1)");
}

TEST(ElasticTransform, ToRequestCarriesWindowRangeAndDuration) {
  auto e = make_elastic(job(100, 3600, 8), elastic_transform{3600, 7200, 0.5, 2.0});
  ASSERT_TRUE(e);
  const elastic_request r = to_request(*e, "u7");
  EXPECT_EQ(r.user, "u7");
  EXPECT_EQ(r.est, 3700);
  EXPECT_EQ(r.let, 3700 + 3600 + 7200);
  EXPECT_EQ(r.np_min, 4);
  EXPECT_EQ(r.np_max, 16);
  EXPECT_EQ(r.dur_ref, 3600);
  EXPECT_EQ(r.np_ref, 8);
  EXPECT_EQ(r.pp_ref, 1.0);
  EXPECT_TRUE(validate(r));
}

TEST(PickOnePerGroup, OnePickInEachGroupInOrder) {
  // Paper 000: 2000 jobs, 200 groups of 10.
  auto picks = pick_one_per_group(2000, 10, 2007);
  ASSERT_TRUE(picks);
  ASSERT_EQ(picks->size(), 200U);
  std::set<std::size_t> offsets;
  for (std::size_t g = 0; g < picks->size(); ++g) {
    EXPECT_GE((*picks)[g], g * 10);
    EXPECT_LT((*picks)[g], g * 10 + 10);
    offsets.insert((*picks)[g] % 10);
  }
  EXPECT_EQ(offsets.size(), 10U);  // every position in a group gets picked somewhere
}

TEST(PickOnePerGroup, DeterministicForASeed) {
  EXPECT_EQ(*pick_one_per_group(2000, 10, 1), *pick_one_per_group(2000, 10, 1));
  EXPECT_NE(*pick_one_per_group(2000, 10, 1), *pick_one_per_group(2000, 10, 2));
}

TEST(PickOnePerGroup, HandComputedEdges) {
  EXPECT_TRUE(pick_one_per_group(0, 10, 1)->empty());
  EXPECT_EQ(*pick_one_per_group(4, 1, 1), (std::vector<std::size_t>{0, 1, 2, 3}));
  auto short_group = pick_one_per_group(3, 5, 1);  // one group [0, 3)
  ASSERT_EQ(short_group->size(), 1U);
  EXPECT_LT(short_group->at(0), 3U);
  auto partial = pick_one_per_group(25, 10, 3);  // groups [0,10) [10,20) [20,25)
  ASSERT_EQ(partial->size(), 3U);
  EXPECT_GE(partial->at(2), 20U);
  EXPECT_LT(partial->at(2), 25U);
  EXPECT_EQ(pick_one_per_group(10, 0, 1).err().code, errc::invalid_parameter);
}

}  // namespace
}  // namespace arbroker::sim
