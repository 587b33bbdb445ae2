#include "arbroker/core/expected_delay.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace arbroker {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

// 1 h on a 2000 MHz reference CPU, two input files of 3 GB and 1 GB (4e9 bytes in all).
sed_application app() {
  return {2000.0, 3600, {3'000'000'000, 1'000'000'000}};
}

// Heterogeneous: 2500 and 1600 MHz CPUs, 64 cores, 2 h walltime, busy with 32+48+16 cores.
sed_machine lyra() {
  return {"lyra", {2500.0, 1600.0}, 64, 7200, {32, 48, 16}, 1e8};
}
// Faster than the reference and idle, but behind a slower link.
sed_machine orion() {
  return {"orion", {3000.0}, 16, 3600, {}, 5e7};
}
// Reference speed, exactly full.
sed_machine vega() {
  return {"vega", {2000.0}, 8, 1800, {8}, 4e8};
}
// Same delay as orion: ties are ordered by name.
sed_machine draco() {
  return {"draco", {3000.0}, 4, 100, {}, 5e7};
}

TEST(SpeedFactor, SlowestCpuGoverns) {
  // eq. 1-2: max(2000/2500, 2000/1600) = max(0.8, 1.25) = 1.25
  const std::vector<double> rates{2500.0, 1600.0};
  auto alpha = speed_factor(2000.0, rates);
  ASSERT_TRUE(alpha);
  EXPECT_DOUBLE_EQ(*alpha, 1.25);
  const std::vector<double> fast{4000.0};
  EXPECT_DOUBLE_EQ(*speed_factor(2000.0, fast), 0.5);
}

TEST(SpeedFactor, RejectsBadInput) {
  const std::vector<double> ok{1000.0};
  EXPECT_EQ(speed_factor(0.0, ok).err().code, errc::invalid_parameter);
  EXPECT_EQ(speed_factor(-1.0, ok).err().code, errc::invalid_parameter);
  EXPECT_EQ(speed_factor(nan, ok).err().code, errc::invalid_parameter);
  EXPECT_EQ(speed_factor(inf, ok).err().code, errc::invalid_parameter);
  EXPECT_EQ(speed_factor(1000.0, {}).err().code, errc::invalid_parameter);
  for (double bad : {0.0, -5.0, nan, inf}) {
    const std::vector<double> rates{1000.0, bad};
    auto r = speed_factor(1000.0, rates);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.err().code, errc::invalid_parameter);
  }
}

TEST(ExpectedDelay, HandComputedBreakdown) {
  auto b = expected_delay(app(), lyra());
  ASSERT_TRUE(b) << to_string(b.err());
  EXPECT_DOUBLE_EQ(b->alpha, 1.25);
  EXPECT_EQ(b->run, 4500);     // 1.25 * 3600
  EXPECT_EQ(b->wait, 14400);   // 7200 * ceil((32+48+16)/64) = 7200 * ceil(1.5) = 7200 * 2
  EXPECT_EQ(b->transfer, 40);  // 4e9 B / 1e8 B/s
  EXPECT_EQ(b->delay, 18940);  // 40 + 14400 + 4500

  auto o = expected_delay(app(), orion());
  ASSERT_TRUE(o);
  EXPECT_DOUBLE_EQ(o->alpha, 2.0 / 3.0);
  EXPECT_EQ(o->run, 2400);     // 3600 * 2000 / 3000, exact: no spurious extra second
  EXPECT_EQ(o->wait, 0);       // no jobs
  EXPECT_EQ(o->transfer, 80);  // 4e9 / 5e7
  EXPECT_EQ(o->delay, 2480);

  auto v = expected_delay(app(), vega());
  ASSERT_TRUE(v);
  EXPECT_EQ(v->run, 3600);
  EXPECT_EQ(v->wait, 1800);  // 1800 * ceil(8/8) = 1800 * 1
  EXPECT_EQ(v->transfer, 10);
  EXPECT_EQ(v->delay, 5410);
}

TEST(ExpectedDelay, WaitRoundsUpAnyLoad) {
  sed_machine m = vega();
  m.job_cores = {1};  // ceil(1/8) = 1 walltime
  EXPECT_EQ(expected_delay(app(), m)->wait, 1800);
  m.job_cores = {8, 1};  // ceil(9/8) = 2
  EXPECT_EQ(expected_delay(app(), m)->wait, 3600);
  m.job_cores = {17};  // the sum alone is accepted: ceil(17/8) = 3
  EXPECT_EQ(expected_delay(app(), m)->wait, 5400);
}

TEST(ExpectedDelay, FractionalSecondsRoundUp) {
  sed_application a = app();
  a.input_file_bytes = {1'000'000'001};  // (1e9+1) B / 5e7 B/s = 20.00000002 s -> 21
  a.run_ref = 1000;                      // 1000 * 2000 / 3000 = 666.67 -> 667
  auto o = expected_delay(a, orion());
  ASSERT_TRUE(o);
  EXPECT_EQ(o->transfer, 21);
  EXPECT_EQ(o->run, 667);
  EXPECT_EQ(o->delay, 688);  // 21 + 0 + 667
}

TEST(ExpectedDelay, NoFilesNeedNoBandwidth) {
  sed_application a = app();
  a.input_file_bytes.clear();
  sed_machine m = vega();
  m.bandwidth_bytes_per_s = 0;
  auto b = expected_delay(a, m);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->transfer, 0);
  EXPECT_EQ(b->delay, 5400);  // 0 + 1800 + 3600
}

TEST(ExpectedDelay, EmptyFileStillNeedsALink) {
  sed_application a = app();
  a.input_file_bytes = {0};
  sed_machine m = vega();
  EXPECT_EQ(expected_delay(a, m)->transfer, 0);
  m.bandwidth_bytes_per_s = 0;
  EXPECT_EQ(expected_delay(a, m).err().code, errc::invalid_parameter);
}

TEST(ExpectedDelay, RejectsBadInput) {
  auto code = [](const sed_application& a, const sed_machine& m) {
    auto r = expected_delay(a, m);
    EXPECT_FALSE(r);
    return r ? errc{} : r.err().code;
  };
  sed_application a = app();
  a.run_ref = 0;
  EXPECT_EQ(code(a, vega()), errc::invalid_duration);
  a.run_ref = -10;
  EXPECT_EQ(code(a, vega()), errc::invalid_duration);
  a = app();
  a.cpu_ref = nan;
  EXPECT_EQ(code(a, vega()), errc::invalid_parameter);
  a = app();
  a.input_file_bytes = {10, -1};
  EXPECT_EQ(code(a, vega()), errc::invalid_parameter);

  sed_machine m = vega();
  m.max_walltime = 0;
  EXPECT_EQ(code(app(), m), errc::invalid_duration);
  m = vega();
  m.max_walltime = time_infinity;
  EXPECT_EQ(code(app(), m), errc::invalid_duration);
  m = vega();
  m.available_cores = 0;
  EXPECT_EQ(code(app(), m), errc::invalid_processor_range);
  m = vega();
  m.job_cores = {4, 0};
  EXPECT_EQ(code(app(), m), errc::invalid_processor_range);
  m = vega();
  m.cpu_clock_rates = {};
  EXPECT_EQ(code(app(), m), errc::invalid_parameter);
  m = vega();
  m.bandwidth_bytes_per_s = 0;
  EXPECT_EQ(code(app(), m), errc::invalid_parameter);
  m.bandwidth_bytes_per_s = -1;
  EXPECT_EQ(code(app(), m), errc::invalid_parameter);
  m.bandwidth_bytes_per_s = nan;
  EXPECT_EQ(code(app(), m), errc::invalid_parameter);
}

TEST(ExpectedDelay, ErrorNamesMachineAndValue) {
  sed_machine m = vega();
  m.available_cores = -3;
  auto r = expected_delay(app(), m);
  ASSERT_FALSE(r);
  EXPECT_NE(r.err().message.find("vega"), std::string::npos);
  EXPECT_NE(r.err().message.find("-3"), std::string::npos);
}

TEST(ExpectedDelay, RejectsTermsBeyondInfinity) {
  sed_machine m = vega();
  m.cpu_clock_rates = {1e-300};  // runtime ~ 7e305 s
  EXPECT_EQ(expected_delay(app(), m).err().code, errc::invalid_parameter);
  m = vega();
  m.max_walltime = time_infinity - 1;
  m.job_cores = {9};  // 2 walltimes
  EXPECT_EQ(expected_delay(app(), m).err().code, errc::invalid_parameter);
  m = vega();
  m.bandwidth_bytes_per_s = 1e-300;
  EXPECT_EQ(expected_delay(app(), m).err().code, errc::invalid_parameter);
  // Each term fits, the sum does not.
  m = vega();
  m.max_walltime = time_infinity - 1;
  m.job_cores = {8};
  EXPECT_EQ(expected_delay(app(), m).err().code, errc::invalid_parameter);
}

TEST(RankByExpectedDelay, AscendingDelayTiesByName) {
  const std::vector<sed_machine> machines{lyra(), orion(), vega(), draco()};
  auto ranked = rank_by_expected_delay(app(), machines);
  ASSERT_TRUE(ranked) << to_string(ranked.err());
  ASSERT_EQ(ranked->size(), 4u);
  // draco: run 2400, wait 0, transfer 80 -> 2480, same as orion; "draco" < "orion".
  EXPECT_EQ((*ranked)[0].name, "draco");
  EXPECT_EQ((*ranked)[0].breakdown.delay, 2480);
  EXPECT_EQ((*ranked)[1].name, "orion");
  EXPECT_EQ((*ranked)[1].breakdown.delay, 2480);
  EXPECT_EQ((*ranked)[2].name, "vega");
  EXPECT_EQ((*ranked)[2].breakdown.delay, 5410);
  EXPECT_EQ((*ranked)[3].name, "lyra");
  EXPECT_EQ((*ranked)[3].breakdown, *expected_delay(app(), lyra()));
}

TEST(RankByExpectedDelay, OrderDoesNotDependOnInputOrder) {
  const std::vector<sed_machine> a{draco(), orion(), vega(), lyra()};
  const std::vector<sed_machine> b{lyra(), vega(), orion(), draco()};
  EXPECT_EQ(*rank_by_expected_delay(app(), a), *rank_by_expected_delay(app(), b));
}

TEST(RankByExpectedDelay, RejectsBadInput) {
  EXPECT_EQ(rank_by_expected_delay(app(), {}).err().code, errc::invalid_parameter);
  const std::vector<sed_machine> dup{vega(), orion(), vega()};
  auto d = rank_by_expected_delay(app(), dup);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.err().code, errc::invalid_parameter);
  EXPECT_NE(d.err().message.find("vega"), std::string::npos);
  sed_machine broken = orion();
  broken.available_cores = 0;
  const std::vector<sed_machine> bad{vega(), broken};
  auto b = rank_by_expected_delay(app(), bad);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.err().code, errc::invalid_processor_range);
  EXPECT_NE(b.err().message.find("orion"), std::string::npos);
}

TEST(EarliestFinish, AddsDelayToCommittedStart) {
  // eq. 7: 1000 + 2480
  EXPECT_EQ(*earliest_finish(1000, 2480), 3480);
  EXPECT_EQ(*earliest_finish(0, 0), 0);
}

TEST(EarliestFinish, RejectsBadInput) {
  EXPECT_EQ(earliest_finish(-1, 10).err().code, errc::invalid_parameter);
  EXPECT_EQ(earliest_finish(time_infinity, 10).err().code, errc::invalid_parameter);
  EXPECT_EQ(earliest_finish(10, -1).err().code, errc::invalid_duration);
  EXPECT_EQ(earliest_finish(10, time_infinity).err().code, errc::invalid_duration);
  EXPECT_EQ(earliest_finish(time_infinity - 5, 5).err().code, errc::invalid_parameter);
}

}  // namespace
}  // namespace arbroker
