#include "arbroker/messages/grid_job_record.hpp"

#include <gtest/gtest.h>

namespace arbroker::msg {
namespace {

TEST(GridJobRecord, RoundTripsEveryFieldTheRulesNeed) {
  grid_job_record r;
  r.request.user = "alice";
  r.request.np = 4;
  r.request.walltime = 600;
  r.request.benchmarks = {{"linpack", 10.5, 300}};
  r.request.inputs = {{"gsiftp://x/in", 1 << 20}};
  auto& j = r.job;
  j.id = "n/g7";
  j.owner = "alice";
  j.spec = {"sim", "run.sh", 4, 600, grid_strategy::adaptive, 1, 300, 2};
  j.submitted = 100;
  j.reservation = "a/3";
  j.add_copy("a", 100, "best");
  (void)j.on_submitted(0, std::string("a.1"), 101);
  const auto n = j.migrate("b", 50, 160);
  (void)j.on_submitted(n, std::string("b.9"), 161);  // withdraw of copy 0 on the way
  ASSERT_TRUE(j.migrating_from);
  ASSERT_TRUE(j.copies[0].cancel_sent);

  auto back = decode_record(encode_record(r));
  ASSERT_TRUE(back) << back.err().message;
  EXPECT_EQ(back->request, r.request);
  EXPECT_EQ(back->job, r.job);
}

TEST(GridJobRecord, GarbageIsAStorageFailure) {
  auto bad = decode_record("not msgpack at all");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.err().code, errc::storage_failure);
}

}  // namespace
}  // namespace arbroker::msg
