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
  auto starts = plan_queued_jobs(plan.profile, w.queued, now);
  if (!starts) return starts.err();
  plan.queued_starts = std::move(*starts);
  for (auto t : plan.queued_starts)
    if (t < time_infinity) plan.queue_tail = std::max(plan.queue_tail, t);
  return plan;
}

namespace {

// The order the queue is planned in: queue order, except that a job comes after the jobs it
// depends on (a cycle is broken at one edge). Iterative: a chain of thousands of jobs is no
// deeper than the stack it needs here.
std::vector<std::size_t> dependency_order(const std::vector<waiting_job>& queued) {
  std::vector<std::size_t> order;
  order.reserve(queued.size());
  enum : char { unseen, visiting, placed };
  std::vector<char> mark(queued.size(), unseen);
  std::vector<std::pair<std::size_t, std::size_t>> stack;  // (job, next parent to look at)
  for (std::size_t root = 0; root < queued.size(); ++root) {
    if (mark[root] != unseen) continue;
    mark[root] = visiting;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [i, next] = stack.back();
      const auto& after = queued[i].after;
      if (next < after.size()) {
        const auto k = after[next++];
        if (k < queued.size() && mark[k] == unseen) {
          mark[k] = visiting;
          stack.emplace_back(k, 0);
        }
        continue;
      }
      mark[i] = placed;
      order.push_back(i);
      stack.pop_back();
    }
  }
  return order;
}

}  // namespace

result<std::vector<timestamp>> plan_queued_jobs(availability_profile& profile,
                                                const std::vector<waiting_job>& queued,
                                                timestamp now) {
  std::vector<timestamp> starts(queued.size(), time_infinity);
  for (std::size_t i = 0; i < queued.size(); ++i) {
    const auto& j = queued[i];
    if (j.np < 1)
      return fail(errc::invalid_processor_range, "queued job #" + std::to_string(i) + " asks for " +
                                                     std::to_string(j.np) + " CPUs");
    if (j.walltime <= 0)
      return fail(errc::invalid_duration, "queued job #" + std::to_string(i) + " has walltime " +
                                              std::to_string(j.walltime) + " s");
  }
  // Queue order, unless some job depends on another (then parents first).
  const bool dependencies = std::any_of(queued.begin(), queued.end(),
                                        [](const waiting_job& j) { return !j.after.empty(); });
  const auto order = dependencies ? dependency_order(queued) : std::vector<std::size_t>{};
  for (std::size_t n = 0; n < queued.size(); ++n) {
    const auto i = dependencies ? order[n] : n;
    const auto& j = queued[i];
    if (j.np > profile.total()) continue;  // never fits, blocks nothing
    // Not before its begin time, nor before the jobs it waits for have run their walltime.
    timestamp ready = std::max(now, j.not_before);
    for (auto k : j.after)
      if (k < queued.size() && k != i && starts[k] != time_infinity)
        ready = std::max(ready, starts[k] + queued[k].walltime);
    auto start = profile.earliest_start(ready, j.walltime, j.np);
    if (!start)
      return fail(start.err().code,
                  "queued job #" + std::to_string(i) + ": " + start.err().message);
    starts[i] = *start;
    // Cannot fail: earliest_start just found these CPUs free.
    (void)profile.add(*start, *start + j.walltime, j.np);
  }
  return starts;
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
  return estimate_earliest_start(*plan, now, ready, dur, np, deadline);
}

result<timestamp> estimate_earliest_start(const workload_plan& plan, timestamp now, timestamp ready,
                                          duration dur, int np, timestamp deadline) {
  if (auto ok = check_job_shape(dur, np); !ok) return ok.err();
  return plan.profile.earliest_start(std::max(ready, now), dur, np, deadline);
}

}  // namespace arbroker
