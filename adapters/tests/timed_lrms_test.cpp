#include "arbroker/adapters/timed_lrms.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace arbroker {
namespace {

// Records what it is asked; deleting or cancelling anything but "keep" fails.
class recording_lrms : public lrms {
 public:
  std::vector<std::string> calls;
  std::string_view kind() const noexcept override { return "recording"; }
  result<lrms_snapshot> snapshot() override {
    calls.push_back("snapshot");
    lrms_snapshot s;
    s.cpus = 12;
    return s;
  }
  result<std::string> create_reservation(const reservation_spec& spec) override {
    calls.push_back("create " + spec.name);
    return std::string("R-") + spec.name;
  }
  status delete_reservation(const std::string& id) override {
    calls.push_back("delete " + id);
    if (id == "keep") return {};
    return fail(errc::not_found, "no reservation " + id);
  }
  result<std::string> modify_reservation(const std::string& id, const reservation_spec&) override {
    calls.push_back("modify " + id);
    return id;
  }
  result<std::string> submit_job(const job_spec&) override {
    calls.push_back("submit");
    return std::string("J1");
  }
  status cancel_job(const std::string& id) override {
    calls.push_back("cancel " + id);
    return fail(errc::lrms_failure, "scancel failed");
  }
  result<lrms_job_state> job_status(const std::string& id) override {
    calls.push_back("status " + id);
    return lrms_job_state::running;
  }
};

struct seen {
  lrms_call call;
  bool ok;
  bool operator==(const seen&) const = default;
};

TEST(timed_lrms, ForwardsEveryCallAndReportsItsOutcome) {
  auto inner = std::make_unique<recording_lrms>();
  auto* rec = inner.get();
  std::vector<seen> observed;
  timed_lrms t(std::move(inner), [&](lrms_call c, std::chrono::nanoseconds d, bool ok) {
    EXPECT_GE(d.count(), 0);
    observed.push_back({c, ok});
  });
  EXPECT_EQ(t.kind(), "recording");
  EXPECT_EQ(t.snapshot()->cpus, 12);
  reservation_spec spec;
  spec.name = "arb-7";
  EXPECT_EQ(*t.create_reservation(spec), "R-arb-7");
  EXPECT_TRUE(t.delete_reservation("keep"));
  EXPECT_EQ(t.delete_reservation("gone").err().code, errc::not_found);
  EXPECT_EQ(*t.modify_reservation("R-arb-7", spec), "R-arb-7");
  EXPECT_EQ(t.extend_reservation("R-arb-7", 5000).err().code, errc::infeasible);  // the default
  EXPECT_EQ(*t.submit_job({}), "J1");
  EXPECT_EQ(t.cancel_job("J1").err().code, errc::lrms_failure);
  EXPECT_EQ(*t.job_status("J1"), lrms_job_state::running);

  EXPECT_EQ(rec->calls,
            (std::vector<std::string>{"snapshot", "create arb-7", "delete keep", "delete gone",
                                      "modify R-arb-7", "submit", "cancel J1", "status J1"}));
  EXPECT_EQ(observed, (std::vector<seen>{{lrms_call::snapshot, true},
                                         {lrms_call::create_reservation, true},
                                         {lrms_call::delete_reservation, true},
                                         {lrms_call::delete_reservation, false},
                                         {lrms_call::modify_reservation, true},
                                         {lrms_call::extend_reservation, false},
                                         {lrms_call::submit_job, true},
                                         {lrms_call::cancel_job, false},
                                         {lrms_call::job_status, true}}));
}

TEST(timed_lrms, CallsHaveDistinctNames) {
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < lrms_call_count; ++i)
    names.insert(to_string(static_cast<lrms_call>(i)));
  EXPECT_EQ(names.size(), lrms_call_count);
  EXPECT_EQ(names.count("unknown"), 0u);
  EXPECT_EQ(to_string(lrms_call::create_reservation), "create_reservation");
}

}  // namespace
}  // namespace arbroker
