#pragma once

// The grid jobs the tests of the grid-job manager and of its actor submit and recover.

#include <string>

#include "arbroker/messages/grid_job_protocol.hpp"

namespace arbroker::testing {

/// Alice's job "sim" (./run) of `np` CPUs for `walltime` seconds, by strategy `s` over `width`
/// clusters.
inline msg::grid_submit_request sample_grid_job(grid_strategy s, int width, int np = 8,
                                                duration walltime = 100) {
  msg::grid_submit_request r;
  r.user = "alice";
  r.name = "sim";
  r.command = "./run";
  r.np = np;
  r.walltime = walltime;
  r.strategy = s;
  r.width = width;
  return r;
}

/// What a node wrote for a flood of the sample job to clusters a and b at `now`, before it
/// heard back from either: two copies submitted, neither answered.
inline msg::grid_job_record unanswered_flood(std::string id, timestamp now) {
  msg::grid_job_record rec;
  rec.request = sample_grid_job(grid_strategy::flood, 2);
  rec.job.id = std::move(id);
  rec.job.owner = "alice";
  rec.job.spec = {"sim", "./run", 8, 100, grid_strategy::flood, 2, 0, -1};
  rec.job.submitted = now;
  rec.job.add_copy("a", now, "top");
  rec.job.add_copy("b", now, "top");
  return rec;
}

}  // namespace arbroker::testing
