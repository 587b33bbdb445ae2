#include "arbroker/adapters/lrms.hpp"

#include <algorithm>
#include <memory>
#include <string_view>
#include <unordered_map>

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
    case lrms_job_state::lost:
      return "lost";
  }
  return "?";
}

result<std::vector<node_group>> lrms::node_groups() {
  return std::vector<node_group>{};
}

result<lrms_snapshot> lrms::jobs_snapshot() {
  auto s = snapshot();
  if (s) s->reservations.clear();
  return s;
}

lrms::snapshot_rest lrms::begin_snapshot() {
  return [s = std::make_shared<result<lrms_snapshot>>(snapshot())] { return std::move(*s); };
}

cluster_workload to_workload(const lrms_snapshot& s) {
  cluster_workload w;
  w.cpus = s.cpus;
  // Until when the LRMS counts a running job's CPUs as taken (past its walltime by its margin).
  auto booked_until = [&s](const lrms_job& j) {
    return j.started.value_or(s.now) + j.walltime + s.job_end_margin;
  };
  for (const auto& j : s.running)
    if (!j.reservation) w.running.push_back({j.np, std::max<duration>(booked_until(j) - s.now, 1)});
  // A queued job waits for its begin time and for the jobs it depends on: a running one's
  // worst-case end, a queued one's planned run (the plan orders them). The id indexes are
  // built only when some job has dependencies (a simulated queue of 100k jobs has none).
  std::unordered_map<std::string_view, timestamp> running_end;
  std::unordered_map<std::string_view, std::size_t> queued_at;
  if (std::any_of(s.queued.begin(), s.queued.end(),
                  [](const auto& j) { return !j.after.empty(); })) {
    for (const auto& j : s.running)
      running_end[j.id] = booked_until(j);
    for (const auto& j : s.queued)
      if (!j.reservation) queued_at.emplace(j.id, queued_at.size());
  }
  w.queued.reserve(s.queued.size());
  for (const auto& j : s.queued) {
    if (j.reservation) continue;
    waiting_job q{j.np, j.walltime, j.not_before > s.now ? j.not_before : 0};
    for (const auto& parent : j.after) {
      if (auto r = running_end.find(parent); r != running_end.end())
        q.not_before = std::max(q.not_before, r->second);
      else if (auto k = queued_at.find(parent); k != queued_at.end())
        q.after.push_back(k->second);
      // else: ended, or bound to a reservation: nothing to wait for in this plan
    }
    w.queued.push_back(std::move(q));
  }
  for (const auto& r : s.reservations)
    w.reservations.push_back({r.start, r.end, r.np});
  return w;
}

}  // namespace arbroker
