// A reservation the service lets go of but its LRMS does not delete (unreachable, in use) is
// not forgotten: the service tries again on every sweep until the LRMS deletes it, and says
// how many are pending meanwhile.

#include <gtest/gtest.h>

#include "c1_config.hpp"
#include "delegating_lrms.hpp"
#include "simulated_service.hpp"

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

struct undeleted_test : testing::simulated_service {
  flaky_deletes* flaky = nullptr;  // owned by the service

  void SetUp() override {
    testing::service_setup setup{.config = testing::c1_config(), .bunch = 8, .journaled = false};
    setup.wrap = testing::wrapped_in(flaky);
    make(std::move(setup));
  }

  std::size_t reservations_in_lrms() { return lrms->snapshot()->reservations.size(); }
};

TEST_F(undeleted_test, ACancelTheLrmsMissedIsRetriedUntilItTakes) {
  auto h = svc->prepare({"t1", "alice", now + 100, now + 3700, 32, now + 60, true, true}, now);
  ASSERT_TRUE(h.error.ok()) << h.error.message;
  flaky->down = true;
  EXPECT_TRUE(svc->cancel({"alice", h.reservation_id}, now).error.ok());  // the owner's is done
  EXPECT_EQ(reservations_in_lrms(), 1u);  // but the LRMS still holds it
  auto st = svc->status_report({}, now + 1);
  EXPECT_EQ(st.undeleted, 1);
  EXPECT_EQ(st.committed, 0);
  EXPECT_EQ(svc->status_report({}, now + 2).undeleted, 1);  // still down: still pending
  flaky->down = false;
  EXPECT_EQ(svc->status_report({}, now + 3).undeleted, 0);  // the next sweep deleted it
  EXPECT_EQ(reservations_in_lrms(), 0u);
  // Its CPUs are free again: a reservation of the whole cluster fits.
  EXPECT_TRUE(
      svc->prepare({"t2", "alice", now + 100, now + 3700, 64, now + 60, true, true}, now + 4)
          .error.ok());
}

TEST_F(undeleted_test, AnExpiredHoldTheLrmsKeptIsForgottenOnceItEnds) {
  auto h = svc->prepare({"t1", "alice", now + 100, now + 700, 8, now + 60, true, false}, now);
  ASSERT_TRUE(h.error.ok()) << h.error.message;
  flaky->down = true;
  EXPECT_EQ(svc->status_report({}, now + 61).undeleted, 1);   // expired, not deleted
  EXPECT_EQ(svc->status_report({}, now + 700).undeleted, 0);  // over: the LRMS ends it itself
}

}  // namespace
}  // namespace arbroker
