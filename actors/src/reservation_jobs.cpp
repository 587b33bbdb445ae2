// What the jobs bound to a reservation do to it (paper 003, Sec. 3.1). Under the site's
// job_end_policy::release a reservation ends, and its CPUs go back, once every job bound
// to it has ended ("allowing the user to run only the requested job"); under keep it lasts
// its term and takes more jobs. The service learns that jobs ended from one LRMS snapshot
// per refresh interval while any such reservation is watched, driven by the actor's timer
// (next_expiry), not by a call per job.

#include <algorithm>
#include <unordered_set>

#include "arbroker/actors/cluster_service.hpp"

namespace arbroker {

void cluster_service::note_bound_jobs(record& r, const std::vector<std::string>& ids,
                                      timestamp now) {
  r.jobs.insert(r.jobs.end(), ids.begin(), ids.end());
  if (cfg_.after_jobs != job_end_policy::release || ids.empty()) return;
  watched_.insert(r.serial);
  jobs_look_at_ = std::min(jobs_look_at_, now + std::max<duration>(cfg_.refresh, 1));
}

void cluster_service::release_after_jobs(timestamp now) {
  if (watched_.empty() || now < jobs_look_at_) return;
  const duration interval = std::max<duration>(cfg_.refresh, 1);
  auto snap = lrms_->snapshot();
  if (!snap) {
    jobs_look_at_ = now + interval;  // the LRMS did not answer: look again later
    return;
  }
  std::unordered_set<std::string> alive;
  for (const auto* jobs : {&snap->queued, &snap->running})
    for (const auto& j : *jobs)
      alive.insert(j.id);
  for (auto it = watched_.begin(); it != watched_.end();) {
    auto rec = records_.find(*it);
    if (rec == records_.end()) {
      it = watched_.erase(it);
      continue;
    }
    auto& r = rec->second;
    r.life.advance(now);
    const bool running_on = std::any_of(r.jobs.begin(), r.jobs.end(),
                                        [&](const std::string& id) { return alive.count(id); });
    if (is_terminal(r.life.state()) || !running_on) {
      it = watched_.erase(it);
      if (!is_terminal(r.life.state())) (void)withdraw(r, now);  // its jobs are done
      continue;
    }
    ++it;
  }
  jobs_look_at_ = watched_.empty() ? time_infinity : now + interval;
}

}  // namespace arbroker
