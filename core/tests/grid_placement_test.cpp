#include "arbroker/core/grid_placement.hpp"

#include <gtest/gtest.h>

namespace arbroker {
namespace {

TEST(GridPlacement, WalltimeWithoutBenchmarks) {
  placement_inputs in;
  in.walltime = 600;
  auto t = terms_on(in, {"a", {}}, 0);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->execution, 600);
  EXPECT_EQ(t->walltime, 600);
  EXPECT_EQ(t->stage_in, 0);
  EXPECT_FALSE(t->stage_out);
  in.walltime = 0;
  EXPECT_EQ(terms_on(in, {"a", {}}, 0).err().code, errc::invalid_duration);
}

// Paper 004 eq. 1-3: a walltime for a CPU of power pp_ref takes walltime x pp_ref / pp on a
// cluster of power pp, as execution and as the LRMS's limit; benchmarks take precedence.
TEST(GridPlacement, AReferencePowerScalesTheWalltimeByTheSpeedFactor) {
  placement_inputs in;
  in.walltime = 600;
  in.pp_ref = 2;
  EXPECT_EQ(terms_on(in, {"a", {}}, 0, 4)->execution, 300);  // twice as fast
  EXPECT_EQ(terms_on(in, {"a", {}}, 0, 4)->walltime, 300);
  EXPECT_EQ(terms_on(in, {"a", {}}, 0, 1.5)->execution, 800);
  EXPECT_EQ(terms_on(in, {"a", {}}, 0, 3)->execution, 400);
  EXPECT_EQ(terms_on(in, {"a", {}}, 0, 0).err().code, errc::invalid_parameter);
  in.pp_ref = 0;  // none named: the walltime holds everywhere
  EXPECT_EQ(terms_on(in, {"a", {}}, 0, 4)->execution, 600);
  in.pp_ref = 2;
  in.benchmarks = {{"b1", 100, 1000}};
  EXPECT_EQ(terms_on(in, {"a", {{"b1", 200}}}, 0, 4)->walltime, 500);  // by the benchmark
}

TEST(GridPlacement, BenchmarksGiveMeanForRankingAndMaxForTheLrms) {
  placement_inputs in;
  in.benchmarks = {{"b1", 100, 1000}, {"b2", 10, 400}};
  // Twice as fast on b1 (500 s), b2 missing: 1.25 * 500 = 625 s.
  auto t = terms_on(in, {"a", {{"b1", 200}}}, 0);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->walltime, 625);
  EXPECT_EQ(t->execution, 563);  // ceil(562.5)
  EXPECT_EQ(terms_on(in, {"a", {{"other", 1}}}, 0).err().code, errc::not_found);
}

TEST(GridPlacement, StagingFromBandwidth) {
  placement_inputs in;
  in.walltime = 100;
  in.input_bytes = 1000;
  in.output_bytes = 250;
  auto t = terms_on(in, {"a", {}}, 100);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->stage_in, 10);
  EXPECT_EQ(t->stage_out, 3);
  // TTD = max(stage_in, wait) + execution + stage_out.
  EXPECT_EQ(*ttd_at(*t, 1000, 1005), 10 + 100 + 3);
  EXPECT_EQ(*ttd_at(*t, 1000, 1050), 50 + 100 + 3);
  EXPECT_EQ(transfer_seconds(5, 0), 0);
}

TEST(GridPlacement, InputAlreadyAtAClusterIsNotMovedThere) {
  placement_inputs in;
  in.walltime = 100;
  in.input_bytes = 1000;
  in.held_at = {{"a", 600}, {"b", 300}, {"a", 100}};
  EXPECT_EQ(terms_on(in, {"a", {}}, 100)->stage_in, 3);  // 1000 - 700 left to move
  EXPECT_EQ(terms_on(in, {"b", {}}, 100)->stage_in, 7);
  EXPECT_EQ(terms_on(in, {"c", {}}, 100)->stage_in, 10);
  in.held_at = {{"a", 2000}};  // never below nothing
  EXPECT_EQ(in.input_bytes_to("a"), 0);
}

}  // namespace
}  // namespace arbroker
