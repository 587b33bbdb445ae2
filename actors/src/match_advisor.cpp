// The match advisor of a cluster reservation service (paper 002, Sec. 3): answers an
// advice_request from the LRMS's current workload through core's advise_match().

#include <algorithm>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/core/match_advice.hpp"

namespace arbroker {

msg::advice_reply cluster_service::advise(const msg::advice_request& req, timestamp now) {
  msg::advice_reply out;
  out.cluster = name();
  out.now = now;
  auto failed = [&out](const error& e) {
    out.error = msg::to_wire(e);
    return out;
  };
  sweep(now);
  if (auto ok = refresh(now); !ok) return failed(ok.err());
  if (req.site.shapes.empty())
    return failed(fail(errc::invalid_processor_range, "advice for a job without shapes"));
  auto rule = admission_for(req.local_jobs_preferred, req.admin, now);
  if (!rule) return failed(rule.err());
  match_job job;
  // Report what prepare would admit under the site's LJP rule: under `ese` only the
  // vacancies the queued local jobs' plan leaves; under `twkl` (or without LJP) any start
  // from T_wkl (or now) that running jobs and reservations leave room for, where queued
  // jobs hold no capacity but the advice says how far it pushes them (zeta).
  job.ready = std::max(req.site.est, rule->not_before);
  job.deadline = req.site.let;
  job.shapes = req.site.shapes;
  if (job.ready >= job.deadline) return out;  // the window has passed: does not meet QoS
  // The workload as the view has it (refreshed above, as for a probe): no read of the LRMS
  // of its own. And the profile prepare checks against: place on it rather than build it.
  const auto workload = view_.capacity().workload(now);
  auto advice = advise_match(workload, now, job, ese_policy::reservations_first, rule->free);
  if (!advice) return failed(advice.err());
  out.meets_qos = advice->meets_qos;
  out.np = advice->shape.np;
  out.start = advice->start;
  out.end = advice->completion;
  out.zeta = advice->zeta;
  out.utilization = advice->utilization;
  out.utilization_after = advice->utilization_after;
  out.busy_cores = advice->busy_cores;
  out.longest_walltime = advice->longest_walltime;
  // Paper 002: on a laxity cluster the placement is the one its EDF plan would make, and
  // zeta is what that costs the reservations it has accepted.
  if (cfg_.laxity)
    laxity_planner::advise(ledger_, cfg_.info.cpus, job.ready, job.deadline, job.shapes,
                           *rule->free, now, out);
  return out;
}

}  // namespace arbroker
