#include "arbroker/core/match_advice.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "arbroker/core/laxity.hpp"

namespace arbroker {
namespace {

// CPU-seconds of np CPUs over [a, b) that fall into [from, until).
double overlap(timestamp a, timestamp b, int np, timestamp from, timestamp until) {
  const timestamp lo = std::max(a, from);
  const timestamp hi = std::min(b, until);
  return hi > lo ? static_cast<double>(hi - lo) * np : 0.0;
}

// Booked CPU-seconds in [from, until): running jobs, reservations, planned queued jobs.
double booked(const cluster_workload& w, const std::vector<timestamp>& queued_starts, timestamp now,
              timestamp from, timestamp until) {
  double sum = 0;
  for (const auto& j : w.running)
    sum += overlap(now, now + std::max<duration>(j.remaining, 1), j.np, from, until);
  for (const auto& r : w.reservations)
    sum += overlap(std::max(r.start, now), r.end, r.np, from, until);
  for (std::size_t i = 0; i < w.queued.size() && i < queued_starts.size(); ++i) {
    const timestamp s = queued_starts[i];
    if (s < time_infinity) sum += overlap(s, s + w.queued[i].walltime, w.queued[i].np, from, until);
  }
  return sum;
}

// The queued local jobs as a schedule for laxity_impact(): ready now, no deadline.
std::vector<scheduled_job> queued_schedule(const cluster_workload& w,
                                           const std::vector<timestamp>& queued_starts,
                                           timestamp now) {
  std::vector<scheduled_job> jobs;
  for (std::size_t i = 0; i < w.queued.size() && i < queued_starts.size(); ++i) {
    const timestamp s = queued_starts[i];
    if (s >= time_infinity) continue;  // never fits: not in the schedule
    jobs.push_back({"q" + std::to_string(i), now, w.queued[i].walltime, time_infinity, s});
  }
  return jobs;
}

status check(const match_job& job) {
  if (job.shapes.empty()) return fail(errc::invalid_parameter, "match advice: no job shapes");
  for (const auto& s : job.shapes)
    if (s.np < 1 || s.dur <= 0 || s.dur >= time_infinity)
      return fail(errc::invalid_parameter, "match advice: shape of " + std::to_string(s.np) +
                                               " CPUs for " + std::to_string(s.dur) +
                                               " s (need np >= 1, dur > 0)");
  if (job.ready < 0 || job.ready >= time_infinity || job.deadline > time_infinity ||
      job.deadline <= job.ready)
    return fail(errc::invalid_parameter, "match advice: ready " + std::to_string(job.ready) +
                                             " and deadline " + std::to_string(job.deadline) +
                                             " do not form a window");
  return {};
}

}  // namespace

result<match_advice> advise_match(const cluster_workload& w, timestamp now, const match_job& job,
                                  ese_policy policy, const availability_profile* committed) {
  if (auto ok = check(job); !ok) return ok.err();
  // Profiles are built only where needed (building is the expensive part): the LJP plan
  // places the queued jobs, for zeta, utilization and LJP placement; without queued jobs it
  // is the profile of running jobs and reservations, which the caller may already have.
  constexpr auto ljp = ese_policy::local_jobs_preferred;
  std::optional<workload_plan> before;
  if (policy == ljp || !w.queued.empty() || !committed) {
    auto p = plan_workload(w, now, ljp);
    if (!p) return p.err();
    before = std::move(*p);
  }
  const std::vector<timestamp> no_queue;
  const std::vector<timestamp>& queued_before = before ? before->queued_starts : no_queue;

  match_advice out;
  for (const auto& j : w.running) {
    out.busy_cores += j.np;
    out.longest_walltime = std::max(out.longest_walltime, j.remaining);
  }
  for (const auto& j : w.queued) {
    out.busy_cores += j.np;
    out.longest_walltime = std::max(out.longest_walltime, j.walltime);
  }

  std::optional<workload_plan> other;
  if (policy != ljp && committed) {
    other = workload_plan{*committed, {}, now};
  } else if (policy != ljp && !w.queued.empty()) {
    auto p = plan_workload(w, now, policy);
    if (!p) return p.err();
    other = std::move(*p);
  }
  const workload_plan& placing = other ? *other : *before;
  for (const auto& s : job.shapes) {
    auto start = estimate_earliest_start(placing, now, job.ready, s.dur, s.np, job.deadline);
    if (!start) {
      if (start.err().code == errc::infeasible) continue;
      return start.err();
    }
    const timestamp end = *start + s.dur;
    if (!out.meets_qos || end < out.completion || (end == out.completion && s.np < out.shape.np)) {
      out.meets_qos = true;
      out.shape = s;
      out.start = *start;
      out.completion = end;
    }
  }

  const timestamp from = std::max(now, job.ready);
  duration longest = 0;
  for (const auto& s : job.shapes)
    longest = std::max(longest, s.dur);
  const timestamp until = job.deadline < time_infinity ? job.deadline : from + longest;
  const double capacity = static_cast<double>(w.cpus) * static_cast<double>(until - from);
  const double booked_before = booked(w, queued_before, now, from, until);
  out.utilization = capacity > 0 ? booked_before / capacity : 0.0;
  out.utilization_after = out.utilization;
  if (!out.meets_qos) return out;
  if (capacity > 0)
    out.utilization_after =
        (booked_before + overlap(out.start, out.completion, out.shape.np, from, until)) / capacity;

  if (w.queued.empty()) return out;  // nothing that could be pushed: zeta = 0
  cluster_workload with_job = w;
  with_job.reservations.push_back({out.start, out.completion, out.shape.np});
  auto after = plan_workload(with_job, now, ese_policy::local_jobs_preferred);
  if (!after) return after.err();
  const auto old_jobs = queued_schedule(w, queued_before, now);
  const auto new_jobs = queued_schedule(with_job, after->queued_starts, now);
  auto zeta = laxity_impact(old_jobs, new_jobs, now, "new");
  if (!zeta) return zeta.err();
  out.zeta = *zeta;
  return out;
}

}  // namespace arbroker
