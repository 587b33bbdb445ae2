#include "arbroker/sim/sound_jobs.hpp"

namespace arbroker::sim {

bool is_sound_batch_job(const swf_job& job, soundness rule) noexcept {
  const bool loose = job.run_time > 0 && procs(job) > 0 && job.queue != 0;
  if (rule == soundness::loose || !loose) return loose;
  return job.status == 1 && job.allocated_procs > 0 && job.requested_procs > 0 &&
         job.requested_time > 0;
}

std::vector<swf_job> sound_batch_jobs(std::span<const swf_job> jobs, soundness rule,
                                      std::size_t limit) {
  std::vector<swf_job> out;
  for (const swf_job& job : jobs) {
    if (out.size() >= limit) break;
    if (is_sound_batch_job(job, rule)) out.push_back(job);
  }
  return out;
}

std::vector<swf_job> sound_batch_jobs(std::vector<swf_job>&& jobs, soundness rule,
                                      std::size_t limit) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < jobs.size() && kept < limit; ++i)
    if (is_sound_batch_job(jobs[i], rule)) jobs[kept++] = jobs[i];
  jobs.resize(kept);
  return std::move(jobs);
}

}  // namespace arbroker::sim
