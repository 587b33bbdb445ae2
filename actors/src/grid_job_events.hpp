#pragma once

// Which events (store/events.hpp) a grid job's write records, from what the job looked like
// at its previous write: watchers hear of its placement, copies, migrations, placements
// again, start and end.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "arbroker/core/grid_job.hpp"
#include "arbroker/store/events.hpp"

namespace arbroker {

/// What a grid job looked like when it was last written (nothing: never written).
struct grid_job_seen {
  bool written = false;
  std::size_t copies = 0;
  std::size_t history = 0;
  bool started = false;
  bool ended = false;
  std::int32_t migrations = 0;
};

/// The job as it is now, written.
grid_job_seen seen_of(const grid_job& job);

/// The events of writing `job` over `before` at `at`, in order: submitted (its first write); placed
/// (its first copies), migrated, resubmitted (the copies of a placement again, after a lost
/// copy or a failure the job retries) or copied (other new copies); started; ended; or, when none
/// of these, updated (its history grew, e.g. a copy was queued or refused). Each names the new
/// history lines in `what`.
std::vector<event_row> grid_job_events(const grid_job_seen& before, const grid_job& job,
                                       timestamp at);

}  // namespace arbroker
