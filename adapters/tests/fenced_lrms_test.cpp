#include "arbroker/adapters/fenced_lrms.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

namespace arbroker {
namespace {

// Records every call it receives; each one succeeds.
class recording_lrms : public lrms {
 public:
  std::vector<std::string> calls;
  std::string_view kind() const noexcept override { return "recording"; }
  result<lrms_snapshot> snapshot() override {
    calls.push_back("snapshot");
    lrms_snapshot s;
    s.cpus = 8;
    return s;
  }
  result<lrms_snapshot> jobs_snapshot() override {
    calls.push_back("jobs_snapshot");
    return lrms_snapshot{};
  }
  result<std::string> create_reservation(const reservation_spec& spec) override {
    calls.push_back("create " + spec.name);
    return "R-" + spec.name;
  }
  status delete_reservation(const std::string& id) override {
    calls.push_back("delete " + id);
    return {};
  }
  result<std::string> modify_reservation(const std::string& id, const reservation_spec&) override {
    calls.push_back("modify " + id);
    return id;
  }
  status extend_reservation(const std::string& id, timestamp) override {
    calls.push_back("extend " + id);
    return {};
  }
  result<std::string> submit_job(const job_spec& spec) override {
    calls.push_back("submit " + spec.name);
    return std::string("J1");
  }
  status cancel_job(const std::string& id) override {
    calls.push_back("cancel " + id);
    return {};
  }
  result<lrms_job_state> job_status(const std::string& id) override {
    calls.push_back("status " + id);
    return lrms_job_state::running;
  }
};

// Every change the node makes while it holds the lease goes through; once the lease is
// gone, not one reaches the batch system and each is answered with the fence's own error.
TEST(fenced_lrms, ChangesPassOnlyWhileAllowedAndAreRefusedWithTheFencesError) {
  auto inner = std::make_unique<recording_lrms>();
  auto* rec = inner.get();
  std::atomic<bool> leader{true};
  fenced_lrms f(std::move(inner), [&]() -> status {
    if (leader) return {};
    return fail(errc::not_leader, "the lease of epoch 3 ran out");
  });
  EXPECT_EQ(f.kind(), "recording");
  reservation_spec spec;
  spec.name = "a";
  job_spec job;
  job.name = "j";
  ASSERT_TRUE(f.create_reservation(spec));
  ASSERT_TRUE(f.modify_reservation("R-a", spec));
  ASSERT_TRUE(f.extend_reservation("R-a", 100));
  ASSERT_TRUE(f.submit_job(job));
  ASSERT_TRUE(f.cancel_job("J1"));
  ASSERT_TRUE(f.delete_reservation("R-a"));
  const std::vector<std::string> allowed{"create a", "modify R-a", "extend R-a",
                                         "submit j", "cancel J1",  "delete R-a"};
  EXPECT_EQ(rec->calls, allowed);

  leader = false;
  rec->calls.clear();
  auto expect_fenced = [](const auto& r, const char* what) {
    ASSERT_FALSE(r) << what << " passed the fence";
    EXPECT_EQ(r.err().code, errc::not_leader) << what;
    EXPECT_EQ(r.err().message, "the lease of epoch 3 ran out") << what;
  };
  expect_fenced(f.create_reservation(spec), "create");
  expect_fenced(f.modify_reservation("R-a", spec), "modify");
  expect_fenced(f.extend_reservation("R-a", 100), "extend");
  expect_fenced(f.submit_job(job), "submit");
  expect_fenced(f.cancel_job("J1"), "cancel");
  expect_fenced(f.delete_reservation("R-a"), "delete");
  EXPECT_TRUE(rec->calls.empty()) << rec->calls.front() << " reached the LRMS";
}

// Reads are never fenced: a node that lost its lease still reports what it sees while it
// steps down, and a standby's reads do not touch the batch system's state.
TEST(fenced_lrms, ReadsPassWithoutAskingTheFence) {
  auto inner = std::make_unique<recording_lrms>();
  auto* rec = inner.get();
  int asked = 0;
  fenced_lrms f(std::move(inner), [&]() -> status {
    ++asked;
    return fail(errc::not_leader, "not the leader");
  });
  auto s = f.snapshot();
  ASSERT_TRUE(s) << s.err().message;
  EXPECT_EQ(s->cpus, 8);
  EXPECT_TRUE(f.jobs_snapshot());
  auto st = f.job_status("J1");
  ASSERT_TRUE(st);
  EXPECT_EQ(*st, lrms_job_state::running);
  EXPECT_EQ(asked, 0);
  const std::vector<std::string> reads{"snapshot", "jobs_snapshot", "status J1"};
  EXPECT_EQ(rec->calls, reads);
}

}  // namespace
}  // namespace arbroker
