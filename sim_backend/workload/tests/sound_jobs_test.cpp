#include "arbroker/sim/sound_jobs.hpp"

#include <gtest/gtest.h>

#include "trace_files.hpp"

namespace arbroker::sim {
namespace {

swf_job batch_job() {
  swf_job j;
  j.job_id = 1;
  j.submit_time = 0;
  j.run_time = 100;
  j.allocated_procs = 8;
  j.requested_procs = 8;
  j.requested_time = 200;
  j.status = 1;
  j.queue = 3;
  return j;
}

TEST(SoundJobs, AFullyKnownCompletedBatchJobIsSoundBothWays) {
  EXPECT_TRUE(is_sound_batch_job(batch_job(), soundness::loose));
  EXPECT_TRUE(is_sound_batch_job(batch_job(), soundness::strict));
}

TEST(SoundJobs, LooseNeedsRuntimeProcsAndANonInteractiveQueue) {
  auto j = batch_job();
  j.run_time = 0;
  EXPECT_FALSE(is_sound_batch_job(j, soundness::loose));
  j = batch_job();
  j.queue = 0;
  EXPECT_FALSE(is_sound_batch_job(j, soundness::loose));
  j.queue = -1;  // unknown queue: not known to be interactive
  EXPECT_TRUE(is_sound_batch_job(j, soundness::loose));
  j = batch_job();
  j.allocated_procs = -1;
  j.requested_procs = -1;
  EXPECT_FALSE(is_sound_batch_job(j, soundness::loose));
  j.allocated_procs = 4;  // either count will do
  EXPECT_TRUE(is_sound_batch_job(j, soundness::loose));
}

TEST(SoundJobs, StrictAlsoNeedsCompletionAndKnownRequests) {
  auto j = batch_job();
  j.status = 5;  // cancelled
  EXPECT_TRUE(is_sound_batch_job(j, soundness::loose));
  EXPECT_FALSE(is_sound_batch_job(j, soundness::strict));
  j = batch_job();
  j.allocated_procs = -1;
  EXPECT_FALSE(is_sound_batch_job(j, soundness::strict));
  j = batch_job();
  j.requested_procs = -1;
  EXPECT_FALSE(is_sound_batch_job(j, soundness::strict));
  j = batch_job();
  j.requested_time = -1;
  EXPECT_FALSE(is_sound_batch_job(j, soundness::strict));
  j = batch_job();
  j.queue = 0;
  EXPECT_FALSE(is_sound_batch_job(j, soundness::strict));
}

TEST(SoundJobs, SelectionKeepsOrderAndLimit) {
  std::vector<swf_job> jobs;
  for (int i = 1; i <= 10; ++i) {
    auto j = batch_job();
    j.job_id = i;
    if (i % 3 == 0) j.queue = 0;
    jobs.push_back(j);
  }
  auto all = sound_batch_jobs(jobs, soundness::loose);
  ASSERT_EQ(all.size(), 7U);
  EXPECT_EQ(all[2].job_id, 4);
  auto first = sound_batch_jobs(jobs, soundness::loose, 3);
  ASSERT_EQ(first.size(), 3U);
  EXPECT_EQ(first.back().job_id, 4);
  // Filtering in place gives the same jobs.
  EXPECT_EQ(sound_batch_jobs(std::vector<swf_job>(jobs), soundness::loose), all);
  EXPECT_EQ(sound_batch_jobs(std::vector<swf_job>(jobs), soundness::loose, 3), first);
}

// Counted independently in traces/README.md.
TEST(SoundJobs, First2000OfSdscBlue) {
  const swf_trace* t = testing::cached_trace(testing::blue_file);
  if (t == nullptr) return;  // the test has failed
  const auto loose = sound_batch_jobs(t->jobs, soundness::loose, 2000);
  ASSERT_EQ(loose.size(), 2000U);
  EXPECT_EQ(loose.back().job_id, 3374);
  EXPECT_EQ(loose.back().submit_time, 1247052);
  const auto strict = sound_batch_jobs(t->jobs, soundness::strict, 2000);
  ASSERT_EQ(strict.size(), 2000U);
  EXPECT_EQ(strict.back().job_id, 3904);
  EXPECT_EQ(strict.back().submit_time, 1417672);
  EXPECT_EQ(sound_batch_jobs(t->jobs, soundness::loose).size(), 157880U);
  EXPECT_EQ(sound_batch_jobs(t->jobs, soundness::strict).size(), 136393U);
}

}  // namespace
}  // namespace arbroker::sim
