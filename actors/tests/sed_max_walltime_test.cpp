// Paper 004's eq. 4 takes W_max, the longest run time the LRMS allows; a cluster that
// publishes it (cluster_info::max_walltime) is ranked by it, one that does not by the longest
// walltime now in its queue.

#include "engine_fixture.hpp"

namespace arbroker {
namespace {

using testing::engine_fixture;

constexpr duration T = 3600;

// Two clusters of 8 CPUs, each busy with one 8-CPU job: on x for 2T, on y for T.
struct sed_max_walltime_test : engine_fixture {
  void make(std::int64_t y_max_walltime) {
    add_cluster("x", 8, 1000, 1);
    add_cluster("y", 8, 1000, 1, 1.0,
                [y_max_walltime](msg::cluster_info& c) { c.max_walltime = y_max_walltime; });
    ASSERT_TRUE(lrms.at("x")->submit_job({"local", "bob", 8, 2 * T, {}, ""}));
    ASSERT_TRUE(lrms.at("y")->submit_job({"local", "bob", 8, T, {}, ""}));
  }

  std::string sed_ranking() {
    auto r = elastic(0, 20 * T, 4, 4, T, 4);
    r.policy = "sed";
    return whatif_ranking(r);
  }
};

TEST_F(sed_max_walltime_test, WithoutAPublishedLimitTheLongestQueuedWalltimeCounts) {
  make(0);
  EXPECT_EQ(sed_ranking(), "yx");  // eq. 4: y waits T x 1, x 2T x 1
}

TEST_F(sed_max_walltime_test, APublishedLimitIsWmax) {
  make(10 * T);  // y allows jobs of up to 10T: eq. 4 expects a wait of 10T there
  EXPECT_EQ(sed_ranking(), "xy");
}

}  // namespace
}  // namespace arbroker
