// A reservation the service lets go of but its LRMS does not delete (unreachable, in use) is
// not forgotten: the service tries again on every sweep until the LRMS deletes it, and says
// how many are pending meanwhile.

#include <gtest/gtest.h>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/sim/simulated_lrms.hpp"
#include "c1_config.hpp"
#include "delegating_lrms.hpp"

namespace arbroker {
namespace {

// A simulated LRMS whose deletes fail while `down` is set.
class flaky_deletes final : public testing::delegating_lrms {
 public:
  using delegating_lrms::delegating_lrms;
  bool down = false;

  status delete_reservation(const std::string& id) override {
    if (down) return fail(errc::unreachable, "the LRMS does not answer");
    return delegating_lrms::delete_reservation(id);
  }
};

struct undeleted_test : ::testing::Test {
  timestamp now = 1'000'000;
  flaky_deletes* lrms = nullptr;  // owned by the service
  std::unique_ptr<cluster_service> svc;

  // Whatever a test did, the service's books still agree with themselves.
  void TearDown() override {
    if (svc) {
      EXPECT_EQ(svc->ledger_violation(), "");
    }
  }

  void SetUp() override {
    auto inner = simulated_lrms::create({"c1", 64, {8, {}}, [this] { return now; }});
    ASSERT_TRUE(inner);
    auto l = std::make_unique<flaky_deletes>(std::move(*inner));
    lrms = l.get();
    auto s = cluster_service::create(testing::c1_config(), std::move(l));
    ASSERT_TRUE(s) << to_string(s.err());
    svc = std::move(*s);
  }

  std::size_t in_lrms() { return lrms->inner().snapshot()->reservations.size(); }
};

TEST_F(undeleted_test, ACancelTheLrmsMissedIsRetriedUntilItTakes) {
  auto h = svc->prepare({"t1", "alice", now + 100, now + 3700, 32, now + 60, true, true}, now);
  ASSERT_TRUE(h.error.ok()) << h.error.message;
  lrms->down = true;
  EXPECT_TRUE(svc->cancel({"alice", h.reservation_id}, now).error.ok());  // the owner's is done
  EXPECT_EQ(in_lrms(), 1u);  // but the LRMS still holds it
  auto st = svc->status_report({}, now + 1);
  EXPECT_EQ(st.undeleted, 1);
  EXPECT_EQ(st.committed, 0);
  EXPECT_EQ(svc->status_report({}, now + 2).undeleted, 1);  // still down: still pending
  lrms->down = false;
  EXPECT_EQ(svc->status_report({}, now + 3).undeleted, 0);  // the next sweep deleted it
  EXPECT_EQ(in_lrms(), 0u);
  // Its CPUs are free again: a reservation of the whole cluster fits.
  EXPECT_TRUE(
      svc->prepare({"t2", "alice", now + 100, now + 3700, 64, now + 60, true, true}, now + 4)
          .error.ok());
}

TEST_F(undeleted_test, AnExpiredHoldTheLrmsKeptIsForgottenOnceItEnds) {
  auto h = svc->prepare({"t1", "alice", now + 100, now + 700, 8, now + 60, true, false}, now);
  ASSERT_TRUE(h.error.ok()) << h.error.message;
  lrms->down = true;
  EXPECT_EQ(svc->status_report({}, now + 61).undeleted, 1);   // expired, not deleted
  EXPECT_EQ(svc->status_report({}, now + 700).undeleted, 0);  // over: the LRMS ends it itself
}

}  // namespace
}  // namespace arbroker
