// Which events a grid job's writes record (grid_job_events.hpp): one per change a watcher
// cares about, from what the job looked like at its previous write.

#include <gtest/gtest.h>

#include "grid_job_events.hpp"

namespace arbroker {
namespace {

std::vector<std::string> kinds_of(const std::vector<event_row>& es) {
  std::vector<std::string> out;
  for (const auto& e : es)
    out.push_back(e.kind);
  return out;
}
using kinds = std::vector<std::string>;

grid_job job() {
  grid_job j;
  j.id = "n/g1";
  j.owner = "alice";
  j.spec.np = 4;
  j.submitted = 100;
  return j;
}

TEST(grid_job_events, ALifeOfPlacementMigrationStartAndEndTellsEachStepOnce) {
  auto j = job();
  j.spec.strategy = grid_strategy::adaptive;
  j.history.push_back({100, -1, "placed"});
  auto e = grid_job_events({}, j, 100);
  ASSERT_EQ(kinds_of(e), kinds{"grid_job.submitted"});
  EXPECT_EQ(e[0].owner, "alice");
  EXPECT_EQ(e[0].np, 4);
  EXPECT_EQ(e[0].what, "placed");
  auto seen = seen_of(j);
  EXPECT_TRUE(grid_job_events(seen, j, 101).empty());  // written again unchanged: nothing

  j.add_copy("berlin", 110, "earliest start");
  e = grid_job_events(seen, j, 110);
  ASSERT_EQ(kinds_of(e), kinds{"grid_job.placed"});
  EXPECT_EQ(e[0].cluster, "berlin");
  EXPECT_EQ(e[0].at, 110);
  EXPECT_NE(e[0].what.find("copy 0: submit to berlin"), std::string::npos) << e[0].what;
  seen = seen_of(j);

  (void)j.on_submitted(0, std::string("17"), 111);
  EXPECT_EQ(kinds_of(grid_job_events(seen, j, 111)), kinds{"grid_job.updated"});  // queued
  seen = seen_of(j);

  (void)j.on_observed(0, observed_state::queued, std::nullopt, 120);
  ASSERT_TRUE(j.can_migrate());
  j.migrate("potsdam", 600, 130);
  e = grid_job_events(seen, j, 130);
  ASSERT_EQ(kinds_of(e), kinds{"grid_job.migrated"});
  EXPECT_EQ(e[0].cluster, "potsdam");
  seen = seen_of(j);

  (void)j.on_submitted(1, std::string("3"), 131);
  seen = seen_of(j);
  (void)j.on_observed(1, observed_state::running, 140, 140);
  (void)j.on_observed(1, observed_state::completed, std::nullopt, 200);
  e = grid_job_events(seen, j, 200);  // started and ended between two writes: both told
  ASSERT_EQ(kinds_of(e), (kinds{"grid_job.started", "grid_job.ended"}));
  EXPECT_EQ(e[1].cluster, "potsdam");
  EXPECT_EQ(e[1].state, "completed");
  EXPECT_EQ(e[1].start, 140);
  EXPECT_EQ(e[1].end, 200);
}

TEST(grid_job_events, APlacementAgainAfterALostCopyIsAResubmission) {
  auto j = job();
  j.spec.max_resubmits = 2;
  j.add_copy("berlin", 110, "earliest start");
  (void)j.on_submitted(0, std::string("17"), 111);
  auto seen = seen_of(j);
  (void)j.on_lost(0, "node failed", 150);
  ASSERT_TRUE(j.to_place) << "a lost copy makes the job to be placed again";
  EXPECT_EQ(kinds_of(grid_job_events(seen, j, 150)), kinds{"grid_job.updated"});
  seen = seen_of(j);  // written with the loss
  j.add_copy("potsdam", 160, "placed again");
  auto e = grid_job_events(seen, j, 160);
  ASSERT_EQ(kinds_of(e), kinds{"grid_job.resubmitted"});
  EXPECT_EQ(e[0].cluster, "potsdam");
}

}  // namespace
}  // namespace arbroker
