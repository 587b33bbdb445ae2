// Paper 002, Sec. 3.1.4 and 3.1.7 on clusters with laxity: IMCT takes the earliest
// completion even where that pushes an accepted reservation toward its deadline; MLI takes
// the cluster where the job costs the accepted ones the least laxity.

#include "engine_fixture.hpp"

namespace arbroker {
namespace {

using testing::engine_fixture;

constexpr duration T = 3600;

// Two clusters of 8 CPUs with laxity. The new job: 8 CPUs for T within [now, now + 10T).
//   a: a movable reservation of 8 CPUs at [now + 60, now + 60 + T), window [now + 60, now + 10T]:
//      the job goes first at now (completion T) and pushes it to now + T (zeta T - 60).
//   b: a rigid reservation of 8 CPUs over [now, now + 2T): the job at 2T (completion 3T),
//      zeta 0.
struct laxity_matchmaking_test : engine_fixture {
  std::string movable_id;

  void SetUp() override {
    laxity = true;
    add_cluster("a", 8, 1000);
    add_cluster("b", 8, 1000);
    // Carol's two reservations, through the broker's own ranking (earliest completion).
    auto ra = elastic(60, 10 * T - 60, 8, 8, T, 8);
    ra.user = "carol";
    ra.clusters = {"a"};
    ra.movable = true;
    auto got_a = ask<msg::elastic_reply>(broker, ra);
    ASSERT_TRUE(got_a.error.ok()) << got_a.error.message;
    ASSERT_EQ(got_a.reservation.start, now + 60);
    movable_id = got_a.reservation.id;
    auto rb = elastic(0, 2 * T, 8, 8, 2 * T, 8);
    rb.user = "carol";
    rb.clusters = {"b"};
    auto got_b = ask<msg::elastic_reply>(broker, rb);
    ASSERT_TRUE(got_b.error.ok()) << got_b.error.message;
    ASSERT_EQ(got_b.reservation.start, now);
  }

  msg::elastic_request job(const std::string& policy) {
    auto r = elastic(0, 10 * T, 8, 8, T, 8);
    r.policy = policy;
    r.movable = true;
    return r;
  }

  msg::reservation_info carols() {
    return ask<msg::query_reply>(services["a"], msg::query_request{"carol", movable_id}).info;
  }
};

TEST_F(laxity_matchmaking_test, ImctPushesTheAcceptedReservation) {
  EXPECT_EQ(whatif_ranking(job("imct")), "ab");
  auto reply = ask<msg::elastic_reply>(broker, job("imct"));
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  EXPECT_EQ(reply.reservation.cluster, "a");
  EXPECT_EQ(reply.reservation.start, now);
  // The new one may move too: it runs within the request's window.
  EXPECT_EQ(reply.reservation.earliest, now);
  EXPECT_EQ(reply.reservation.deadline, now + 10 * T);
  const auto pushed = carols();
  EXPECT_EQ(pushed.start, now + T);
  EXPECT_LE(pushed.end, pushed.deadline);
  EXPECT_EQ(ask<msg::cluster_status>(services["a"], msg::cluster_status_request{}).moves, 1);
}

TEST_F(laxity_matchmaking_test, MliLeavesTheAcceptedReservationAlone) {
  EXPECT_EQ(whatif_ranking(job("mli")), "ba");
  auto reply = ask<msg::elastic_reply>(broker, job("mli"));
  ASSERT_TRUE(reply.error.ok()) << reply.error.message;
  EXPECT_EQ(reply.reservation.cluster, "b");
  EXPECT_EQ(reply.reservation.start, now + 2 * T);
  EXPECT_EQ(carols().start, now + 60);
  EXPECT_EQ(ask<msg::cluster_status>(services["a"], msg::cluster_status_request{}).moves, 0);
}

}  // namespace
}  // namespace arbroker
