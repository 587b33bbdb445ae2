#include "arbroker/core/esr_load.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace arbroker {
namespace {

using running = std::vector<running_job>;
using waiting = std::vector<waiting_job>;
using reservations = std::vector<reservation_span>;

constexpr timestamp ct = 1000;
constexpr int site = 10;

timestamp twkl(const running& r, const waiting& w, const reservations& rs,
               const load_params& p = {}) {
  auto t = t_wkl(ct, site, r, w, rs, p);
  EXPECT_TRUE(t) << (t ? "" : to_string(t.err()));
  return t ? *t : -1;
}

void expect_error(const result<timestamp>& t, errc code, const std::string& needle) {
  ASSERT_FALSE(t);
  EXPECT_EQ(t.err().code, code) << t.err().message;
  EXPECT_NE(t.err().message.find(needle), std::string::npos) << t.err().message;
}

TEST(TWkl, NoWorkloadIsNow) {
  EXPECT_EQ(twkl({}, {}, {}), ct);
}

TEST(TWkl, RunningJobsAverageRemainingTime) {
  // (4 * 100 + 6 * 200) / (4 + 6) = 1600 / 10 = 160.
  const running r = {{4, 100}, {6, 200}};
  EXPECT_EQ(twkl(r, {}, {}), ct + 160);
  // acc_r = 0.5 halves it: 80.
  EXPECT_EQ(twkl(r, {}, {}, {.acc_r = 0.5}), ct + 80);
  // The divisor is the running CPUs, not the site: one 2-CPU job with 300 s left -> 300.
  EXPECT_EQ(twkl({{2, 300}}, {}, {}), ct + 300);
  // A job about to end adds nothing.
  EXPECT_EQ(twkl({{5, 0}}, {}, {}), ct);
}

TEST(TWkl, WaitingJobsSpreadOverTheSite) {
  // (5 * 300 + 10 * 60) * 0.5 / 10 = 2100 * 0.5 / 10 = 105.
  const waiting w = {{5, 300}, {10, 60}};
  EXPECT_EQ(twkl({}, w, {}, {.acc_w = 0.5}), ct + 105);
  // Both: 160 + 105.
  EXPECT_EQ(twkl({{4, 100}, {6, 200}}, w, {}, {.acc_w = 0.5}), ct + 265);
  // acc_w = 0 ignores waiting jobs.
  EXPECT_EQ(twkl({}, w, {}, {.acc_w = 0.0}), ct);
}

TEST(TWkl, RoundsUpFractionsButNotFloatNoise) {
  // 3 * 10 / 3 = 10 plus 1 * 1 / 10 = 0.1 -> 10.1 -> 11.
  EXPECT_EQ(twkl({{3, 10}}, {{1, 1}}, {}), ct + 11);
  // 1 * 100 * 0.9 is 90.00000000000001 in doubles; it means 90.
  EXPECT_EQ(twkl({{1, 100}}, {}, {}, {.acc_r = 0.9}), ct + 90);
  // 10 * 30 * 0.1 / 10 is 3.0000000000000004 in doubles; it means 3.
  EXPECT_EQ(twkl({}, {{10, 30}}, {}, {.acc_w = 0.1}), ct + 3);
  // 1 * 1 * 0.5 / 10 = 0.05 -> 1.
  EXPECT_EQ(twkl({}, {{1, 1}}, {}, {.acc_w = 0.5}), ct + 1);
}

// Running: one 10-CPU job with 100 s left -> T_wkl = 1100 before reservations.
// Reservations (given out of order), by start:
//   r0 [0, 1000) x10     over before ct: ignored
//   ra [900, 1100) x4    active now, 100 s left after ct
//   r1 [1050, 1250) x5
//   r2 [1200, 1300) x10  starts after 1100: counts only once r1 has pushed T_wkl
//   r3 [1400, 1500) x10  out of reach
const running busy = {{10, 100}};
const reservations booked = {
    {1400, 1500, 10}, {1200, 1300, 10}, {0, 1000, 10}, {1050, 1250, 5}, {900, 1100, 4}};

TEST(TWkl, WorkSharePushIsIterative) {
  // w = 100; ra: + 4 * 100 / 10 = 40 -> 140; r1 (50 < 140): + 5 * 200 / 10 = 100 -> 240;
  // r2 (200 < 240): + 10 * 100 / 10 = 100 -> 340; r3 (400 >= 340): stop. T = 1340.
  EXPECT_EQ(twkl(busy, {}, booked), ct + 340);
  // Without r1, r2 never comes into range: 100 + 40 = 140.
  EXPECT_EQ(twkl(busy, {}, {{1200, 1300, 10}, {900, 1100, 4}}), ct + 140);
}

TEST(TWkl, PastEndPushJumpsToReservationEnds) {
  // w = 100; ra: max(100, 1100 - 1000) = 100; r1 (50 < 100): 250; r2 (200 < 250): 300;
  // r3 (400 >= 300): stop. T = 1300.
  EXPECT_EQ(twkl(busy, {}, booked, {.push = reservation_push::past_end}), ct + 300);
}

TEST(TWkl, ReservationStartingAtTWklDoesNotCount) {
  for (auto push : {reservation_push::work_share, reservation_push::past_end}) {
    EXPECT_EQ(twkl(busy, {}, {{1100, 1200, 10}}, {.push = push}), ct + 100) << to_string(push);
    // One second earlier it does: work_share + 10 * 101 / 10 = 101; past_end -> 1200.
    const timestamp expected = push == reservation_push::work_share ? ct + 201 : 1200;
    EXPECT_EQ(twkl(busy, {}, {{1099, 1200, 10}}, {.push = push}), expected) << to_string(push);
  }
}

TEST(TWkl, IdleSiteWithActiveReservation) {
  // No jobs: T = ct, yet a reservation active at ct starts before it (r_s < T_wkl).
  // work_share: 6 * (1600 - 1000) / 10 = 360; past_end: 1600.
  const reservations active = {{500, 1600, 6}};
  EXPECT_EQ(twkl({}, {}, active), ct + 360);
  EXPECT_EQ(twkl({}, {}, active, {.push = reservation_push::past_end}), 1600);
  // A future reservation on an idle site does not block anything before it.
  EXPECT_EQ(twkl({}, {}, {{1001, 1600, 6}}), ct);
}

TEST(TWkl, SaturatesAtTimeInfinity) {
  EXPECT_EQ(twkl({{10, time_infinity}}, {}, {}, {.acc_r = 4.0}), time_infinity);
  EXPECT_EQ(twkl({}, {{10, time_infinity}}, {}), time_infinity);
  auto late = t_wkl(time_infinity, site, running{{1, 1}}, waiting{}, reservations{});
  ASSERT_TRUE(late);
  EXPECT_EQ(*late, time_infinity);
  // Far in the past still works relative to ct.
  auto early = t_wkl(-time_infinity, site, running{{1, 7}}, waiting{}, reservations{});
  ASSERT_TRUE(early);
  EXPECT_EQ(*early, -time_infinity + 7);
}

TEST(TWkl, RejectsBadInput) {
  const running none_r;
  const waiting none_w;
  const reservations none_rs;
  expect_error(t_wkl(time_infinity + 1, site, none_r, none_w, none_rs), errc::invalid_parameter,
               "ct");
  expect_error(t_wkl(ct, 0, none_r, none_w, none_rs), errc::invalid_processor_range, "0");
  expect_error(t_wkl(ct, -4, none_r, none_w, none_rs), errc::invalid_processor_range, "-4");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  expect_error(t_wkl(ct, site, none_r, none_w, none_rs, {.acc_r = -0.1}), errc::invalid_parameter,
               "acc_r");
  expect_error(t_wkl(ct, site, none_r, none_w, none_rs, {.acc_r = nan}), errc::invalid_parameter,
               "nan");
  expect_error(t_wkl(ct, site, none_r, none_w, none_rs, {.acc_w = inf}), errc::invalid_parameter,
               "acc_w");
  expect_error(t_wkl(ct, site, none_r, none_w, none_rs, {.push = static_cast<reservation_push>(7)}),
               errc::invalid_parameter, "7");
  expect_error(t_wkl(ct, site, running{{4, 10}, {0, 10}}, none_w, none_rs),
               errc::invalid_processor_range, "running job #1");
  expect_error(t_wkl(ct, site, running{{11, 10}}, none_w, none_rs), errc::invalid_processor_range,
               "11");
  expect_error(t_wkl(ct, site, running{{1, -1}}, none_w, none_rs), errc::invalid_duration, "-1");
  expect_error(t_wkl(ct, site, none_r, waiting{{-2, 10}}, none_rs), errc::invalid_processor_range,
               "waiting job #0");
  expect_error(t_wkl(ct, site, none_r, waiting{{1, 0}}, none_rs), errc::invalid_duration,
               "walltime");
  expect_error(t_wkl(ct, site, none_r, waiting{{1, -60}}, none_rs), errc::invalid_duration, "-60");
  expect_error(t_wkl(ct, site, none_r, none_w, reservations{{1200, 1200, 1}}), errc::invalid_window,
               "1200");
  expect_error(t_wkl(ct, site, none_r, none_w, reservations{{1300, 1200, 1}}), errc::invalid_window,
               "1300");
  expect_error(t_wkl(ct, site, none_r, none_w, reservations{{1200, 1300, 0}}),
               errc::invalid_processor_range, "0");
  expect_error(t_wkl(ct, site, none_r, none_w, reservations{{1200, 1300, 11}}),
               errc::invalid_processor_range, "11");
  expect_error(t_wkl(ct, site, none_r, none_w, reservations{{1200, time_infinity + 1, 1}}),
               errc::invalid_parameter, "time_infinity");
}

TEST(EsrLoad, StepAtTWkl) {
  EXPECT_DOUBLE_EQ(esr_load(1265, 1265), 1.0);
  EXPECT_DOUBLE_EQ(esr_load(1266, 1265), 1.0);
  EXPECT_DOUBLE_EQ(esr_load(1264, 1265), 0.0);
  static_assert(esr_load(0, 0) == 1.0);
}

TEST(ReservationPush, Names) {
  EXPECT_EQ(to_string(reservation_push::work_share), "work_share");
  EXPECT_EQ(to_string(reservation_push::past_end), "past_end");
}

}  // namespace
}  // namespace arbroker
