#pragma once

// "Sound batch jobs": the records of a log that can be replayed as batch jobs. Paper 000 uses
// "the first 2000 sound batch-jobs of the SDSC Blue Horizon workload trace" without defining
// the term; the two rules below are the ones of traces/README.md.

#include <cstddef>
#include <limits>
#include <span>
#include <vector>

#include "arbroker/sim/swf.hpp"

namespace arbroker::sim {

enum class soundness {
  /// run time > 0, procs(job) > 0 (allocated or requested), queue != 0 (not interactive).
  loose,
  /// loose, and status == 1 (completed), allocated > 0, requested procs > 0 and requested
  /// time > 0.
  strict,
};

bool is_sound_batch_job(const swf_job& job, soundness rule) noexcept;

/// The sound batch jobs among `jobs`, in order, at most `limit` of them.
std::vector<swf_job> sound_batch_jobs(std::span<const swf_job> jobs, soundness rule,
                                      std::size_t limit = std::numeric_limits<std::size_t>::max());
/// The same, filtering `jobs` in place (no copy of a whole trace).
std::vector<swf_job> sound_batch_jobs(std::vector<swf_job>&& jobs, soundness rule,
                                      std::size_t limit);

}  // namespace arbroker::sim
