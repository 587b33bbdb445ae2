#include "arbroker/sim/metrics.hpp"

#include <gtest/gtest.h>

namespace arbroker::sim {
namespace {

metrics_collector make(int cpus) {
  auto m = metrics_collector::create(cpus);
  EXPECT_TRUE(m);
  return std::move(m).value();
}

TEST(Metrics, MeanWaitCountsFirstStartsOfStartedJobs) {
  auto m = make(10);
  ASSERT_TRUE(m.batch_submitted("a", 0));
  ASSERT_TRUE(m.batch_submitted("b", 10));
  ASSERT_TRUE(m.batch_submitted("c", 20));  // never starts: not in the mean
  ASSERT_TRUE(m.batch_started("a", 100));   // waits 100
  ASSERT_TRUE(m.batch_started("b", 40));    // waits 30
  ASSERT_TRUE(m.batch_started("a", 500));   // a restart: the first start counts
  const auto s = *m.summary(0, 1000);
  EXPECT_EQ(s.batch_jobs, 3u);
  EXPECT_EQ(s.batch_jobs_started, 2u);
  EXPECT_DOUBLE_EQ(*s.mean_wait, 65.0);  // (100 + 30) / 2
}

TEST(Metrics, WholeBatchRecordsCountLikeKeyedOnes) {
  auto m = make(10);
  ASSERT_TRUE(m.batch_submitted("a", 0));
  ASSERT_TRUE(m.batch_started("a", 100));         // waits 100
  ASSERT_TRUE(m.batch_record(10, 40));            // waits 30
  ASSERT_TRUE(m.batch_record(20, std::nullopt));  // never starts: not in the mean
  EXPECT_FALSE(m.batch_record(50, 49));           // starts before its submit: refused
  const auto s = *m.summary(0, 1000);
  EXPECT_EQ(s.batch_jobs, 3u);
  EXPECT_EQ(s.batch_jobs_started, 2u);
  EXPECT_DOUBLE_EQ(*s.mean_wait, 65.0);
}

// Paper 002's request measures on four requests (work = np x runtime):
//   r1 AR  4 CPUs x 100 = 400,  asked for 1000, granted 1300, completed 1450
//   r2 AR  2 CPUs x  50 = 100,  asked for 2000, granted 2000, completed 2050
//   r3 AR  8 CPUs x 200 = 1600, rejected
//   r4 OD  1 CPU  x 300 = 300,  submitted 50, completed 800
// P_b = 1 / 4 = 0.25. W_R = 100 x 1600 / 2400 = 66.67 %. Q = (1600 / 1) / (2400 / 4) = 2.667,
// and P_b = (W_R / 100) / Q = 0.6667 / 2.667 = 0.25. MOT over accepted ARs = (300 + 0) / 2 =
// 150. R_AR = ((1450 - 1000) + (2050 - 2000)) / 2 = 250. R_OD = 800 - 50 = 750.
TEST(Metrics, RequestMeasuresOfPaper002) {
  auto m = make(10);
  using k = request_kind;
  ASSERT_TRUE(m.request_submitted("r1", k::advance_reservation, 0, 1000, 4, 100));
  ASSERT_TRUE(m.request_submitted("r2", k::advance_reservation, 10, 2000, 2, 50));
  ASSERT_TRUE(m.request_submitted("r3", k::advance_reservation, 20, 3000, 8, 200));
  ASSERT_TRUE(m.request_submitted("r4", k::on_demand, 50, 50, 1, 300));
  ASSERT_TRUE(m.request_accepted("r1", 1300));
  ASSERT_TRUE(m.request_accepted("r2", 2000));
  ASSERT_TRUE(m.request_rejected("r3"));
  ASSERT_TRUE(m.request_accepted("r4", 500));
  ASSERT_TRUE(m.request_completed("r1", 1450));
  ASSERT_TRUE(m.request_completed("r2", 2050));
  ASSERT_TRUE(m.request_completed("r4", 800));
  const auto s = *m.summary(0, 3000);
  EXPECT_EQ(s.requests, 4u);
  EXPECT_EQ(s.accepted, 3u);
  EXPECT_EQ(s.rejected, 1u);
  EXPECT_DOUBLE_EQ(*s.blocking_probability, 0.25);
  EXPECT_NEAR(*s.work_rejected_percent, 66.6667, 1e-3);
  EXPECT_NEAR(*s.fairness, 2.6667, 1e-3);
  EXPECT_NEAR(*s.work_rejected_percent / 100 / *s.fairness, *s.blocking_probability, 1e-12);
  EXPECT_DOUBLE_EQ(*s.mean_offset, 150.0);
  EXPECT_DOUBLE_EQ(*s.mean_response_advance_reservation, 250.0);
  EXPECT_DOUBLE_EQ(*s.mean_response_on_demand, 750.0);
}

TEST(Metrics, NoSampleMeansNoValue) {
  auto m = make(4);
  const auto s = *m.summary(0, 10);
  EXPECT_EQ(s.mean_wait, std::nullopt);
  EXPECT_EQ(s.mean_offset, std::nullopt);
  EXPECT_EQ(s.blocking_probability, std::nullopt);
  EXPECT_EQ(s.fairness, std::nullopt);
  EXPECT_EQ(s.estimate_accuracy, std::nullopt);
  EXPECT_EQ(s.accepted_effort.candidates, std::nullopt);
  EXPECT_DOUBLE_EQ(*s.utilization, 0.0);
  ASSERT_TRUE(m.request_submitted("r", request_kind::on_demand, 0, 0, 1, 1));
  ASSERT_TRUE(m.request_accepted("r", 0));
  EXPECT_EQ(m.summary(0, 10)->fairness, std::nullopt);  // nothing rejected: Q undefined
  EXPECT_DOUBLE_EQ(*m.summary(0, 10)->work_rejected_percent, 0.0);
}

// 10 CPUs over [0, 100): 4 CPUs over [0, 50) = 200, 2 CPUs over [80, 150) clipped to
// [80, 100) = 40, 10 CPUs over [-20, 10) clipped to [0, 10) = 100. U = 340 / 1000 = 0.34.
TEST(Metrics, UtilizationClipsBusySpansToTheWindow) {
  auto m = make(10);
  ASSERT_TRUE(m.cpus_busy(0, 50, 4));
  ASSERT_TRUE(m.cpus_busy(80, 150, 2));
  ASSERT_TRUE(m.cpus_busy(-20, 10, 10));
  ASSERT_TRUE(m.cpus_busy(200, 300, 10));  // outside
  EXPECT_DOUBLE_EQ(*m.summary(0, 100)->utilization, 0.34);
  EXPECT_EQ(m.summary(100, 100).err().code, errc::invalid_window);
}

// Paper 000 Fig. 7, per outcome:
//   accepted a: 10 candidates, 4 after the threshold, 1 CRS rejection, 0 local
//   accepted b: 20 candidates, 6 after, 0 CRS, 1 local
//   rejected c: 8 candidates, 2 after, 2 CRS, 0 local
// Accepted means: 15 candidates, 5 after, 0.5 CRS, 0.5 local. Rejected: 8, 2, 2, 0.
TEST(Metrics, BrokerEffortSplitsByOutcome) {
  auto m = make(8);
  using k = request_kind;
  for (const char* id : {"a", "b", "c"})
    ASSERT_TRUE(m.request_submitted(id, k::advance_reservation, 0, 100, 1, 10));
  ASSERT_TRUE(m.candidates("a", 10, 4));
  ASSERT_TRUE(m.candidates("b", 20, 6));
  ASSERT_TRUE(m.candidates("c", 8, 2));
  ASSERT_TRUE(m.reserve_rejected("a", reserve_rejecter::crs));
  ASSERT_TRUE(m.reserve_rejected("b", reserve_rejecter::local_scheduler));
  ASSERT_TRUE(m.reserve_rejected("c", reserve_rejecter::crs));
  ASSERT_TRUE(m.reserve_rejected("c", reserve_rejecter::crs));
  ASSERT_TRUE(m.request_accepted("a", 100));
  ASSERT_TRUE(m.request_accepted("b", 100));
  ASSERT_TRUE(m.request_rejected("c"));
  const auto s = *m.summary(0, 1);
  const broker_effort ok{2, 15.0, 5.0, 0.5, 0.5};
  const broker_effort bad{1, 8.0, 2.0, 2.0, 0.0};
  EXPECT_EQ(s.accepted_effort, ok);
  EXPECT_EQ(s.rejected_effort, bad);
}

// Paper 004 eq. 8, waits counted from the estimate:
//   rt 100, et 120: 1 - 20/100 = 0.8;  rt 100, et 50: 0.5;  rt 100, et 250: |150| > 100 -> 0;
//   rt 0, et 0: 1;  rt 0, et 5: 0.  Mean of the first three (made at 1000): 1.3 / 3.
TEST(Metrics, EstimateAccuracyFollowsEquation8) {
  EXPECT_DOUBLE_EQ(estimate_accuracy(100, 120), 0.8);
  EXPECT_DOUBLE_EQ(estimate_accuracy(100, 50), 0.5);
  EXPECT_DOUBLE_EQ(estimate_accuracy(100, 200), 0.0);  // |100| <= 100: 1 - 1 = 0
  EXPECT_DOUBLE_EQ(estimate_accuracy(100, 250), 0.0);
  EXPECT_DOUBLE_EQ(estimate_accuracy(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(estimate_accuracy(0, 5), 0.0);
  auto m = make(1);
  ASSERT_TRUE(m.start_estimate(1000, 1120, 1100));
  ASSERT_TRUE(m.start_estimate(1000, 1050, 1100));
  ASSERT_TRUE(m.start_estimate(1000, 1250, 1100));
  const auto s = *m.summary(0, 1);
  EXPECT_EQ(s.estimates, 3u);
  EXPECT_DOUBLE_EQ(*s.estimate_accuracy, 1.3 / 3);
}

TEST(Metrics, BadInputIsRefusedAndChangesNothing) {
  EXPECT_EQ(metrics_collector::create(0).err().code, errc::invalid_processor_range);
  auto m = make(4);
  ASSERT_TRUE(m.batch_submitted("a", 10));
  EXPECT_EQ(m.batch_submitted("a", 20).err().code, errc::invalid_parameter);
  EXPECT_EQ(m.batch_started("zz", 20).err().code, errc::not_found);
  EXPECT_EQ(m.batch_started("a", 5).err().code, errc::invalid_parameter);
  EXPECT_EQ(m.cpus_busy(10, 5, 1).err().code, errc::invalid_window);
  EXPECT_EQ(m.cpus_busy(0, 5, 0).err().code, errc::invalid_processor_range);
  using k = request_kind;
  EXPECT_EQ(m.request_submitted("r", k::on_demand, 0, 0, 0, 10).err().code,
            errc::invalid_processor_range);
  EXPECT_EQ(m.request_submitted("r", k::on_demand, 0, 0, 1, 0).err().code, errc::invalid_duration);
  ASSERT_TRUE(m.request_submitted("r", k::on_demand, 0, 0, 1, 10));
  EXPECT_EQ(m.request_completed("r", 5).err().code, errc::invalid_parameter);  // not accepted
  EXPECT_EQ(m.candidates("r", 2, 3).err().code, errc::invalid_parameter);
  EXPECT_EQ(m.request_accepted("x", 0).err().code, errc::not_found);
  ASSERT_TRUE(m.request_rejected("r"));
  EXPECT_EQ(m.request_accepted("r", 0).err().code, errc::invalid_parameter);
  EXPECT_EQ(m.start_estimate(100, 50, 200).err().code, errc::invalid_parameter);
  const auto s = *m.summary(0, 100);
  EXPECT_EQ(s.batch_jobs, 1u);
  EXPECT_EQ(s.batch_jobs_started, 0u);
  EXPECT_EQ(s.requests, 1u);
  EXPECT_EQ(s.rejected, 1u);
  EXPECT_EQ(s.estimates, 0u);
  EXPECT_DOUBLE_EQ(*s.utilization, 0.0);
}

}  // namespace
}  // namespace arbroker::sim
