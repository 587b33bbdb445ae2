#include "grid_job_events.hpp"

#include <algorithm>

namespace arbroker {

grid_job_seen seen_of(const grid_job& job) {
  return {true,
          job.copies.size(),
          job.history.size(),
          job.started.has_value(),
          job.ended.has_value(),
          job.migrations};
}

std::vector<event_row> grid_job_events(const grid_job_seen& before, const grid_job& job,
                                       timestamp at) {
  // The history lines since the last write, "copy 2: queued at b as 17; ...".
  std::string lines;
  for (std::size_t i = std::min(before.history, job.history.size()); i < job.history.size(); ++i) {
    const auto& h = job.history[i];
    if (!lines.empty()) lines += "; ";
    if (h.copy >= 0) lines += "copy " + std::to_string(h.copy) + ": ";
    lines += h.what;
  }
  std::vector<event_row> out;
  auto add = [&](const char* kind, std::string cluster) {
    out.push_back({0, at, kind, job.id, job.owner, std::move(cluster),
                   std::string(to_string(job.state)), job.started.value_or(0),
                   job.ended.value_or(0), job.spec.np, lines});
  };
  if (!before.written) add("grid_job.submitted", "");
  const std::size_t had = std::min(before.copies, job.copies.size());
  if (job.copies.size() > had) {
    const std::string where = job.copies.back().cluster;
    if (job.migrations > before.migrations || job.migrating_from)  // a move under way
      add("grid_job.migrated", where);
    else if (job.round_start > 0 && had <= job.round_start)  // a round after the first
      add("grid_job.resubmitted", where);
    else if (had == 0)
      add("grid_job.placed", where);
    else
      add("grid_job.copied", where);
  }
  const std::string winner = job.winner && *job.winner < job.copies.size()
                                 ? job.copies[*job.winner].cluster
                                 : std::string();
  if (job.started && !before.started) add("grid_job.started", winner);
  if (job.ended && !before.ended) add("grid_job.ended", winner);
  if (out.empty() && job.history.size() > before.history) add("grid_job.updated", "");
  return out;
}

}  // namespace arbroker
