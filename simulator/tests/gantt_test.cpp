#include "arbroker/simulator/gantt.hpp"

#include <gtest/gtest.h>

#include <map>

namespace arbroker::sim {
namespace {

job_record done(std::int64_t id, timestamp start, timestamp end, int np) {
  return {id, 0, 0, start, end, np};
}

request_record granted(std::int64_t id, timestamp start, timestamp end, int np) {
  request_record r;
  r.id = id;
  r.cluster = 0;
  r.reply.reservation.start = start;
  r.reply.reservation.end = end;
  r.reply.reservation.np = np;
  return r;
}

// The schedule of the driver's hand-built test on 10 CPUs.
sim_output schedule() {
  sim_output out;
  out.jobs = {done(1, 0, 100, 6),   done(2, 100, 150, 6), done(3, 100, 110, 2),
              done(4, 250, 350, 4), done(5, 250, 260, 2), done(6, 250, 270, 3)};
  out.requests = {granted(7, 200, 250, 10)};
  return out;
}

TEST(gantt, ItemsGetTheirCpuCountOnRowsNoOneElseUsesMeanwhile) {
  auto boxes = gantt_layout(schedule(), 0, 10, 0, 1000);
  ASSERT_TRUE(boxes) << boxes.err().message;
  std::map<std::int64_t, int> rows;
  for (const auto& b : *boxes) {
    EXPECT_GE(b.row_begin, 0);
    EXPECT_LE(b.row_end, 10);
    rows[b.id] += b.row_end - b.row_begin;
  }
  EXPECT_EQ(rows,
            (std::map<std::int64_t, int>{{1, 6}, {2, 6}, {3, 2}, {4, 4}, {5, 2}, {6, 3}, {7, 10}}));
  for (std::size_t i = 0; i < boxes->size(); ++i)
    for (std::size_t k = i + 1; k < boxes->size(); ++k) {
      const auto& a = (*boxes)[i];
      const auto& b = (*boxes)[k];
      bool time_overlap = a.start < b.end && b.start < a.end;
      bool row_overlap = a.row_begin < b.row_end && b.row_begin < a.row_end;
      EXPECT_FALSE(time_overlap && row_overlap) << a.id << " and " << b.id;
    }
  // Lowest free rows first: J1 on 0-5, then J2 reuses them at 100 and J3 takes 6-7.
  EXPECT_EQ((*boxes)[0], (gantt_box{0, 100, 0, 6, gantt_kind::job, 1}));
  EXPECT_EQ((*boxes)[1], (gantt_box{100, 150, 0, 6, gantt_kind::job, 2}));
  EXPECT_EQ((*boxes)[2], (gantt_box{100, 110, 6, 8, gantt_kind::job, 3}));
}

TEST(gantt, TheIntervalClipsAndFilters) {
  auto boxes = gantt_layout(schedule(), 0, 10, 120, 220);
  ASSERT_TRUE(boxes);
  ASSERT_EQ(boxes->size(), 2u);  // J2 (to 150) and the reservation (from 200)
  EXPECT_EQ((*boxes)[0], (gantt_box{120, 150, 0, 6, gantt_kind::job, 2}));
  EXPECT_EQ((*boxes)[1], (gantt_box{200, 220, 0, 10, gantt_kind::reservation, 7}));
}

TEST(gantt, MoreCpusThanTheClusterHasIsAnError) {
  auto out = schedule();
  out.jobs.push_back(done(8, 210, 220, 1));  // inside the 10-CPU reservation
  auto boxes = gantt_layout(out, 0, 10, 0, 1000);
  ASSERT_FALSE(boxes);
  EXPECT_EQ(boxes.err().code, errc::invalid_parameter);
}

}  // namespace
}  // namespace arbroker::sim
