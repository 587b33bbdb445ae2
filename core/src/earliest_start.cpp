#include "arbroker/core/earliest_start.hpp"

#include <algorithm>
#include <string>

namespace arbroker {

result<workload_plan> plan_workload(const cluster_workload& w, timestamp now, ese_policy policy) {
  auto profile = availability_profile::create(w.cpus);
  if (!profile) return profile.err();
  for (std::size_t i = 0; i < w.running.size(); ++i) {
    const auto& j = w.running[i];
    if (j.np < 1 || j.np > w.cpus)
      return fail(errc::invalid_processor_range, "running job #" + std::to_string(i) + " uses " +
                                                     std::to_string(j.np) + " of " +
                                                     std::to_string(w.cpus) + " CPUs");
    if (auto ok = profile->add(now, now + std::max<duration>(j.remaining, 1), j.np); !ok)
      return fail(ok.err().code, "running job #" + std::to_string(i) + ": " + ok.err().message);
  }
  for (std::size_t i = 0; i < w.reservations.size(); ++i) {
    const auto& r = w.reservations[i];
    if (r.start >= r.end)
      return fail(errc::invalid_window, "reservation #" + std::to_string(i) + " starts at " +
                                            std::to_string(r.start) + ", not before its end " +
                                            std::to_string(r.end));
    if (r.np < 1)
      return fail(errc::invalid_processor_range,
                  "reservation #" + std::to_string(i) + " has " + std::to_string(r.np) + " CPUs");
    if (r.end <= now) continue;  // over
    if (auto ok = profile->add(std::max(r.start, now), r.end, r.np); !ok)
      return fail(ok.err().code, "reservation #" + std::to_string(i) + ": " + ok.err().message);
  }

  workload_plan plan{std::move(*profile), {}, now};
  if (policy == ese_policy::reservations_first) return plan;  // queued jobs yield
  plan.queued_starts.reserve(w.queued.size());
  for (std::size_t i = 0; i < w.queued.size(); ++i) {
    const auto& j = w.queued[i];
    if (j.np < 1)
      return fail(errc::invalid_processor_range, "queued job #" + std::to_string(i) + " asks for " +
                                                     std::to_string(j.np) + " CPUs");
    if (j.walltime <= 0)
      return fail(errc::invalid_duration, "queued job #" + std::to_string(i) + " has walltime " +
                                              std::to_string(j.walltime) + " s");
    if (j.np > w.cpus) {
      plan.queued_starts.push_back(time_infinity);
      continue;
    }
    auto start = plan.profile.earliest_start(now, j.walltime, j.np);
    if (!start)
      return fail(start.err().code,
                  "queued job #" + std::to_string(i) + ": " + start.err().message);
    plan.queued_starts.push_back(*start);
    plan.queue_tail = std::max(plan.queue_tail, *start);
    // Cannot fail: earliest_start just found these CPUs free.
    (void)plan.profile.add(*start, *start + j.walltime, j.np);
  }
  return plan;
}

namespace {

// Checked before any planning, so that bad input costs nothing.
status check_job_shape(duration dur, int np) {
  if (dur <= 0)
    return fail(errc::invalid_duration, "duration " + std::to_string(dur) + " s must be positive");
  if (np < 1)
    return fail(errc::invalid_processor_range, "np " + std::to_string(np) + " must be at least 1");
  return {};
}

}  // namespace

result<timestamp> estimate_earliest_start(const cluster_workload& w, timestamp now, timestamp ready,
                                          duration dur, int np, ese_policy policy,
                                          timestamp deadline) {
  if (auto ok = check_job_shape(dur, np); !ok) return ok.err();
  auto plan = plan_workload(w, now, policy);
  if (!plan) return plan.err();
  return estimate_earliest_start(*plan, now, ready, dur, np, policy, deadline);
}

result<timestamp> estimate_earliest_start(const workload_plan& plan, timestamp now, timestamp ready,
                                          duration dur, int np, ese_policy policy,
                                          timestamp deadline) {
  if (auto ok = check_job_shape(dur, np); !ok) return ok.err();
  timestamp from = std::max(ready, now);
  if (policy == ese_policy::local_jobs_preferred) from = std::max(from, plan.queue_tail);
  return plan.profile.earliest_start(from, dur, np, deadline);
}

}  // namespace arbroker
