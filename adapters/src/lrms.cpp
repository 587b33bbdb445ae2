#include "arbroker/adapters/lrms.hpp"

#include <algorithm>

namespace arbroker {

status lrms::extend_reservation(const std::string& id, timestamp new_end) {
  return fail(errc::infeasible, std::string(kind()) + " cannot extend reservation " + id + " to " +
                                    std::to_string(new_end) +
                                    " in place, nor the time limits of its running jobs");
}

std::string_view to_string(lrms_job_state s) noexcept {
  switch (s) {
    case lrms_job_state::queued:
      return "queued";
    case lrms_job_state::running:
      return "running";
    case lrms_job_state::completed:
      return "completed";
    case lrms_job_state::cancelled:
      return "cancelled";
    case lrms_job_state::failed:
      return "failed";
  }
  return "?";
}

result<lrms_snapshot> lrms::jobs_snapshot() {
  auto s = snapshot();
  if (s) s->reservations.clear();
  return s;
}

cluster_workload to_workload(const lrms_snapshot& s) {
  cluster_workload w;
  w.cpus = s.cpus;
  for (const auto& j : s.running) {
    if (j.reservation) continue;
    const timestamp started = j.started.value_or(s.now);
    w.running.push_back(
        {j.np, std::max<duration>(started + j.walltime + s.job_end_margin - s.now, 1)});
  }
  for (const auto& j : s.queued)
    if (!j.reservation) w.queued.push_back({j.np, j.walltime});
  for (const auto& r : s.reservations)
    w.reservations.push_back({r.start, r.end, r.np});
  return w;
}

}  // namespace arbroker
