// A hold committed together with its jobs in one call (paper 001, Sec. 2.3: "commit with
// job(s)"), all or nothing: if one job cannot be submitted, the jobs already submitted are
// cancelled and the hold stays a hold.

#include <gtest/gtest.h>

#include "delegating_lrms.hpp"
#include "simulated_service.hpp"

namespace arbroker {
namespace {

// A simulated LRMS whose submit number `fail_at` (0-based, counted from now on) fails.
class failing_submits final : public testing::delegating_lrms {
 public:
  using delegating_lrms::delegating_lrms;
  int fail_at = -1;

  result<std::string> submit_job(const job_spec& s) override {
    if (fail_at == 0) {
      fail_at = -1;
      return fail(errc::unreachable, "the batch system did not take it");
    }
    if (fail_at > 0) --fail_at;
    return delegating_lrms::submit_job(s);
  }
};

struct commit_jobs_test : testing::simulated_service {
  failing_submits* failing = nullptr;  // owned by the service
  std::string id;                      // a hold of 8 CPUs from now + 600 for an hour

  void SetUp() override {
    // No journal: an expired hold stays in memory, to be refused a commit as expired.
    make({.bunch = 8, .journaled = false, .wrap = testing::wrapped_in(failing)});
    auto h = hold(now + 600, 3600, 8);
    ASSERT_TRUE(h.error.ok()) << h.error.message;
    id = h.reservation_id;
  }

  // The jobs in the LRMS, queued or running.
  std::vector<lrms_job> jobs() {
    auto snap = lrms->snapshot();
    EXPECT_TRUE(snap);
    std::vector<lrms_job> out = snap->queued;
    out.insert(out.end(), snap->running.begin(), snap->running.end());
    return out;
  }

  reservation_state state() { return svc->query({"alice", id}, now).info.state; }

  static std::vector<msg::job_terms> two_jobs() {
    return {{"pre", 8, 600, "prepare.sh"}, {"main", 4, 3000, "run.sh"}};
  }
};

TEST_F(commit_jobs_test, TheHoldAndItsJobsAreCommittedInOneCall) {
  auto r = svc->commit({"alice", id, two_jobs()}, now);
  ASSERT_TRUE(r.error.ok()) << r.error.message;
  EXPECT_EQ(r.info.state, reservation_state::committed);
  ASSERT_EQ(r.jobs.size(), 2u);
  auto in_lrms = jobs();
  ASSERT_EQ(in_lrms.size(), 2u);
  for (const auto& j : in_lrms) {
    EXPECT_TRUE(j.reservation.has_value());  // bound to the reservation
    EXPECT_EQ(j.owner, "alice");
    EXPECT_NE(std::find(r.jobs.begin(), r.jobs.end(), j.id), r.jobs.end());
  }
  // A committed reservation takes more jobs the same way and stays committed.
  auto more = svc->commit({"alice", id, {{"post", 1, 60, "post.sh"}}}, now);
  ASSERT_TRUE(more.error.ok()) << more.error.message;
  EXPECT_EQ(more.jobs.size(), 1u);
  EXPECT_EQ(jobs().size(), 3u);
}

TEST_F(commit_jobs_test, AJobTheLrmsRefusesUndoesTheOthersAndLeavesTheHold) {
  failing->fail_at = 1;  // the second job
  auto r = svc->commit({"alice", id, two_jobs()}, now);
  EXPECT_EQ(r.error.err(), errc::unreachable);
  EXPECT_NE(r.error.message.find("job 1 ('main')"), std::string::npos) << r.error.message;
  EXPECT_TRUE(r.jobs.empty());
  EXPECT_TRUE(jobs().empty());  // the first job was cancelled
  EXPECT_EQ(state(), reservation_state::accepted);
  // Nothing was spoiled: the same call goes through once the LRMS takes jobs again.
  auto again = svc->commit({"alice", id, two_jobs()}, now);
  ASSERT_TRUE(again.error.ok()) << again.error.message;
  EXPECT_EQ(jobs().size(), 2u);
  EXPECT_EQ(state(), reservation_state::committed);
}

// Paper 003, Sec. 3.1: the account a request names is the LRMS reservation's, and the jobs
// bound to it run under it (the simulated LRMS, like Slurm, lets no other account in).
TEST_F(commit_jobs_test, TheAccountGoesToTheLrmsReservationAndItsJobs) {
  auto h = svc->prepare({.txn = "t2",
                         .owner = "alice",
                         .start = now + 600,
                         .end = now + 4200,
                         .np = 8,
                         .expiry = now + 60,
                         .account = "physics"},
                        now);
  ASSERT_TRUE(h.error.ok()) << h.error.message;
  auto snap = lrms->snapshot();
  ASSERT_EQ(snap->reservations.size(), 2u);
  EXPECT_EQ(snap->reservations[1].account, "physics");
  auto c = svc->commit({"alice", h.reservation_id, two_jobs()}, now);
  ASSERT_TRUE(c.error.ok()) << c.error.message;
  EXPECT_EQ(c.info.account, "physics");
  auto bound = svc->bind_job({"alice", h.reservation_id, "more", 1, 60, "run"}, now);
  EXPECT_TRUE(bound.error.ok()) << bound.error.message;
  EXPECT_EQ(svc->query({"alice", h.reservation_id}, now).info.account, "physics");
}

TEST_F(commit_jobs_test, BadJobsAreRefusedBeforeAnyIsSubmitted) {
  auto wide = svc->commit({"alice", id, {{"ok", 8, 60, ""}, {"wide", 9, 60, ""}}}, now);
  EXPECT_EQ(wide.error.err(), errc::invalid_processor_range);
  auto zero = svc->commit({"alice", id, {{"ok", 8, 60, ""}, {"zero", 1, 0, ""}}}, now);
  EXPECT_EQ(zero.error.err(), errc::invalid_duration);
  EXPECT_TRUE(jobs().empty());
  EXPECT_EQ(state(), reservation_state::accepted);
  // Another user's hold looks missing and gets no job.
  EXPECT_EQ(svc->commit({"mallory", id, two_jobs()}, now).error.err(), errc::not_found);
  EXPECT_TRUE(jobs().empty());
  // An expired hold takes none either.
  now += 61;
  EXPECT_EQ(svc->commit({"alice", id, two_jobs()}, now).error.err(), errc::illegal_transition);
  EXPECT_TRUE(jobs().empty());
}

}  // namespace
}  // namespace arbroker
