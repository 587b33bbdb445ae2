// The co-allocation step (paper 002, Sec. 3): jobs started in every part of a
// co-reservation, all or nothing, through the broker.

#include <algorithm>

#include "engine_fixture.hpp"

namespace arbroker {
namespace {

using testing::engine_fixture;

struct coallocation_test : engine_fixture {
  std::vector<msg::reservation_info> parts;  // a committed co-reservation on "a" and "b"

  void SetUp() override {
    add_cluster("a", 16, 1000);
    add_cluster("b", 16, 1000);
    msg::coreservation_request r;
    r.user = "alice";
    r.est = now + 3600;
    r.let = now + 6 * 3600;
    for (const char* c : {"a", "b"}) {
      msg::coreservation_component k;
      k.np_min = k.np_max = k.np_ref = 8;
      k.dur_ref = 3600;
      k.pp_ref = 1000;
      k.speedup = msg::to_spec(*speedup_model::amdahl(0));
      k.clusters = {c};
      r.components.push_back(k);
    }
    auto reply = ask<msg::coreservation_reply>(broker, r);
    ASSERT_TRUE(reply.error.ok()) << reply.error.message;
    parts = reply.parts;
    ASSERT_EQ(parts.size(), 2u);
  }

  // The jobs the LRMS of cluster `name` holds (queued or running) and their reservations.
  std::vector<lrms_job> jobs_on(const std::string& name) {
    auto snap = lrms.at(name)->snapshot();
    EXPECT_TRUE(snap);
    std::vector<lrms_job> out = snap->queued;
    out.insert(out.end(), snap->running.begin(), snap->running.end());
    return out;
  }

  msg::coallocate_request request(int np_a, int np_b, const std::string& user = "alice") {
    return {user,
            {{parts[0].id, {{"left", np_a, 1800, "run.sh"}}},
             {parts[1].id, {{"right", np_b, 1800, "run.sh"}}}}};
  }

  reservation_state state_of(const msg::reservation_info& p) {
    return ask<msg::query_reply>(broker, msg::query_request{"alice", p.id}).info.state;
  }
};

TEST_F(coallocation_test, EveryPartGetsItsJobInItsReservation) {
  auto r = ask<msg::coallocate_reply>(broker, request(8, 4));
  ASSERT_TRUE(r.error.ok()) << r.error.message;
  ASSERT_EQ(r.jobs.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    ASSERT_EQ(r.jobs[i].size(), 1u);
    auto in_lrms = jobs_on(parts[i].cluster);
    ASSERT_EQ(in_lrms.size(), 1u) << parts[i].cluster;
    EXPECT_EQ(in_lrms[0].id, r.jobs[i][0]);
    EXPECT_TRUE(in_lrms[0].reservation.has_value());  // bound, not queued loose
    EXPECT_EQ(in_lrms[0].np, i == 0 ? 8 : 4);
  }
  // The service knows them as the reservation's jobs.
  auto q = ask<msg::query_reply>(broker, msg::query_request{"alice", parts[1].id});
  EXPECT_EQ(q.jobs, r.jobs[1]);
}

TEST_F(coallocation_test, APartThatCannotTakeItsJobLeavesNoJobAnywhere) {
  // Part b holds 8 CPUs: a 12-CPU job cannot run in it, after part a took its job.
  auto r = ask<msg::coallocate_reply>(broker, request(8, 12));
  EXPECT_FALSE(r.error.ok());
  EXPECT_NE(r.error.message.find("part 1 (reservation '" + parts[1].id + "')"), std::string::npos)
      << r.error.message;
  EXPECT_TRUE(r.jobs.empty());
  EXPECT_TRUE(jobs_on("a").empty());
  EXPECT_TRUE(jobs_on("b").empty());
  EXPECT_TRUE(ask<msg::query_reply>(broker, msg::query_request{"alice", parts[0].id}).jobs.empty());
  for (const auto& p : parts)
    EXPECT_EQ(state_of(p), reservation_state::committed);  // the reservations stay
  // Nothing was spoiled: the right request goes through.
  auto again = ask<msg::coallocate_reply>(broker, request(8, 8));
  ASSERT_TRUE(again.error.ok()) << again.error.message;
  EXPECT_EQ(jobs_on("a").size(), 1u);
  EXPECT_EQ(jobs_on("b").size(), 1u);
}

TEST_F(coallocation_test, OnlyTheOwnersCommittedReservationsTakeJobs) {
  // Another user's part looks missing, and nothing is submitted anywhere.
  auto theirs = ask<msg::coallocate_reply>(broker, request(8, 8, "bob"));
  EXPECT_EQ(theirs.error.err(), errc::not_found) << theirs.error.message;
  // A hold is not a co-allocation's part.
  auto hold = elastic(3600, 5 * 3600, 8, 8, 3600, 8);
  hold.clusters = {"b"};
  hold.mode = msg::request_mode::hold;
  auto held = ask<msg::elastic_reply>(broker, hold);
  ASSERT_TRUE(held.error.ok()) << held.error.message;
  auto with_hold = request(8, 8);
  with_hold.parts[1].reservation_id = held.reservation.id;
  auto r = ask<msg::coallocate_reply>(broker, with_hold);
  EXPECT_EQ(r.error.err(), errc::illegal_transition) << r.error.message;
  // A cancelled part too: its cluster refuses the job, the other part's job is withdrawn.
  ASSERT_TRUE(ask<msg::ack_reply>(broker, msg::cancel_request{"alice", parts[1].id}).error.ok());
  auto cancelled = ask<msg::coallocate_reply>(broker, request(8, 8));
  EXPECT_FALSE(cancelled.error.ok());
  // An id naming no cluster.
  auto nowhere = request(8, 8);
  nowhere.parts[0].reservation_id = "nowhere/1";
  EXPECT_EQ(ask<msg::coallocate_reply>(broker, nowhere).error.err(), errc::not_found);
  EXPECT_TRUE(jobs_on("a").empty());
  EXPECT_TRUE(jobs_on("b").empty());
}

}  // namespace
}  // namespace arbroker
