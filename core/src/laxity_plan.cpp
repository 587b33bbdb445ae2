#include "arbroker/core/laxity_plan.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_set>

namespace arbroker {
namespace {

std::string name_of(const laxity_job& j) {
  return "reservation " + std::to_string(j.key);
}

status check(std::span<const laxity_job> jobs, const laxity_job* extra = nullptr) {
  std::unordered_set<std::uint64_t> keys;
  auto one = [&keys](const laxity_job& j) -> status {
    if (j.np < 1) return fail(errc::invalid_parameter, name_of(j) + ": np must be >= 1");
    if (j.runtime <= 0 || j.runtime >= time_infinity)
      return fail(errc::invalid_parameter, name_of(j) + ": run time must be in (0, infinity)");
    if (j.earliest < -time_infinity || j.deadline > time_infinity ||
        j.earliest > j.deadline - j.runtime)
      return fail(errc::invalid_parameter, name_of(j) + ": [" + std::to_string(j.earliest) + ", " +
                                               std::to_string(j.deadline) +
                                               "] is shorter than its run time " +
                                               std::to_string(j.runtime));
    if (!keys.insert(j.key).second)
      return fail(errc::invalid_parameter, name_of(j) + " appears twice");
    return {};
  };
  for (const auto& j : jobs)
    if (auto ok = one(j); !ok) return ok;
  if (extra) return one(*extra);
  return {};
}

// Places `j` at its earliest fit from max(t, now) ending by its deadline, and books it.
result<timestamp> place(availability_profile& p, const laxity_job& j, timestamp now) {
  auto s = p.earliest_start(std::max(j.earliest, now), j.runtime, j.np, j.deadline);
  if (!s)
    return fail(errc::infeasible, name_of(j) + " (" + std::to_string(j.np) + " CPUs for " +
                                      std::to_string(j.runtime) + " s) cannot end by " +
                                      std::to_string(j.deadline));
  if (auto ok = p.add(*s, *s + j.runtime, j.np); !ok) return ok.err();
  return *s;
}

// EDF without the checks: the plan of `jobs` into `p` (which it books).
result<std::vector<timestamp>> edf_into(availability_profile& p, std::span<const laxity_job> jobs,
                                        timestamp now) {
  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&jobs](std::size_t a, std::size_t b) {
    const auto &x = jobs[a], &y = jobs[b];
    if (x.deadline != y.deadline) return x.deadline < y.deadline;
    if (x.earliest != y.earliest) return x.earliest < y.earliest;
    return x.key < y.key;
  });
  std::vector<timestamp> starts(jobs.size());
  for (std::size_t i : order) {
    auto s = place(p, jobs[i], now);
    if (!s) return s.err();
    starts[i] = *s;
  }
  return starts;
}

// Books the accepted jobs where the current plan has them.
status book_current(availability_profile& p, std::span<const laxity_job> accepted) {
  for (const auto& a : accepted)
    if (auto ok = p.add(a.start, a.start + a.runtime, a.np); !ok)
      return fail(errc::invalid_parameter,
                  name_of(a) + " does not fit where the current plan has it: " + ok.err().message);
  return {};
}

}  // namespace

result<std::vector<timestamp>> plan_edf(const availability_profile& fixed,
                                        std::span<const laxity_job> jobs, timestamp now) {
  if (auto ok = check(jobs); !ok) return ok.err();
  auto p = fixed;
  return edf_into(p, jobs, now);
}

result<laxity_admission> admit_with_laxity(const availability_profile& fixed,
                                           std::span<const laxity_job> accepted,
                                           const laxity_job& job, timestamp now) {
  if (auto ok = check(accepted, &job); !ok) return ok.err();
  laxity_admission out;
  {
    std::vector<laxity_job> all(accepted.begin(), accepted.end());
    all.push_back(job);
    auto p = fixed;
    if (auto starts = edf_into(p, all, now)) {
      out.start = starts->back();
      starts->pop_back();
      out.starts = std::move(*starts);
      out.replanned = true;
      for (std::size_t i = 0; i < accepted.size(); ++i)
        out.zeta += out.starts[i] - accepted[i].start;
      return out;
    }
  }
  // EDF is a heuristic: the current plan may still take the job where EDF found no room.
  auto p = fixed;
  if (auto ok = book_current(p, accepted); !ok) return ok.err();
  auto s = place(p, job, now);
  if (!s) return s.err();
  out.start = *s;
  for (const auto& a : accepted)
    out.starts.push_back(a.start);
  return out;
}

result<std::vector<timestamp>> pull_forward(const availability_profile& fixed,
                                            std::span<const laxity_job> accepted, timestamp now) {
  if (auto ok = check(accepted); !ok) return ok.err();
  auto p = fixed;
  if (auto ok = book_current(p, accepted); !ok) return ok.err();
  std::vector<timestamp> starts;
  for (const auto& a : accepted)
    starts.push_back(a.start);
  std::vector<std::size_t> order(accepted.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&accepted](std::size_t a, std::size_t b) {
    return accepted[a].start != accepted[b].start ? accepted[a].start < accepted[b].start
                                                  : accepted[a].key < accepted[b].key;
  });
  for (std::size_t i : order) {
    const auto& a = accepted[i];
    const timestamp from = std::max(a.earliest, now);
    if (from >= a.start) continue;
    (void)p.remove(a.start, a.start + a.runtime, a.np);
    // Its own place is free again, so the search ends at the latest there.
    auto s = p.earliest_start(from, a.runtime, a.np, a.start + a.runtime);
    starts[i] = s ? *s : a.start;
    (void)p.add(starts[i], starts[i] + a.runtime, a.np);
  }
  return starts;
}

}  // namespace arbroker
