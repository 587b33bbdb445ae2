#include "node_handler.hpp"

#include <gtest/gtest.h>

namespace arbroker {
namespace {

msg::reservation_info item(std::string id, std::string owner) {
  msg::reservation_info r;
  r.id = std::move(id);
  r.owner = std::move(owner);
  r.cluster = "berlin";
  r.start = 1000 + static_cast<timestamp>(r.owner.size());
  r.end = r.start + 3600;
  r.np = 8;
  r.account = "physics";
  r.cost = 12;
  return r;
}

// Every list of one cluster holds one item of alice's, one of bob's and a local user's.
msg::cluster_status mixed_status() {
  msg::cluster_status s;
  s.cluster = "berlin";
  s.running_jobs = 3;
  s.queued_jobs = 3;
  s.committed = 2;
  for (auto* list : {&s.reservations, &s.lrms_reservations, &s.lrms_running, &s.lrms_queued,
                     &s.lrms_running_bound})
    *list = {item("a", "alice"), item("b", "bob"), item("l", "operator7")};
  for (const auto* owner : {"alice", "bob", "operator7"})
    s.approximated.push_back({std::string("j-") + owner, owner, "held"});
  return s;
}

std::vector<std::string> owners(const std::vector<msg::reservation_info>& list) {
  std::vector<std::string> out;
  for (const auto& r : list)
    out.push_back(r.owner);
  return out;
}

TEST(node_handler, AUserSeesTheirOwnReservationsAndJobsInStatusAndOthersOnlyAsBusyBlocks) {
  auto s = mixed_status();
  keep_what_caller_sees(s, {"bob", false, api::front_end::msgpack});
  const std::vector<std::string> bob{"bob"};
  // Others' reservations and running jobs: busy blocks without a name.
  const std::vector<std::string> anonymous{"", "bob", ""};
  EXPECT_EQ(owners(s.reservations), anonymous);
  EXPECT_EQ(owners(s.lrms_running), anonymous);
  for (const auto* list : {&s.reservations, &s.lrms_running}) {
    EXPECT_EQ((*list)[0].id, "");
    EXPECT_EQ((*list)[0].account, "");
    EXPECT_EQ((*list)[0].cost, 0);
    EXPECT_EQ((*list)[0].np, 8);
    EXPECT_EQ((*list)[0].start, 1005);  // alice's (its start: 1000 + 5)
    EXPECT_EQ((*list)[0].end, 4605);
    EXPECT_EQ((*list)[0].cluster, "berlin");
    EXPECT_EQ((*list)[1].account, "physics");  // bob's own, in full
    EXPECT_EQ((*list)[1].id, "b");
  }
  EXPECT_EQ(owners(s.lrms_reservations), bob);
  EXPECT_EQ(owners(s.lrms_queued), bob);
  EXPECT_EQ(owners(s.lrms_running_bound), bob);
  ASSERT_EQ(s.approximated.size(), 1u);
  EXPECT_EQ(s.approximated[0].owner, "bob");
  // The cluster's counts are no one's in particular.
  EXPECT_EQ(s.running_jobs, 3);
  EXPECT_EQ(s.queued_jobs, 3);
  EXPECT_EQ(s.committed, 2);
}

TEST(node_handler, AnAdminSeesEveryonesInStatus) {
  auto s = mixed_status();
  keep_what_caller_sees(s, {"root", true, api::front_end::http});
  EXPECT_EQ(s, mixed_status());
}

}  // namespace
}  // namespace arbroker
