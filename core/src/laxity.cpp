#include "arbroker/core/laxity.hpp"

#include "arbroker/core/number_text.hpp"

#include <cmath>
#include <map>

namespace arbroker {
namespace {

std::string job_name(const scheduled_job& job) {
  return "job '" + job.id + "': ";
}

// The checks LX needs; scheduled_start is left to check_scheduled.
status check_window(const scheduled_job& job) {
  if (job.runtime <= 0 || job.runtime >= time_infinity) {
    return fail(errc::invalid_duration, job_name(job) + "runtime must be in (0, time_infinity), " +
                                            "got " + std::to_string(job.runtime));
  }
  if (job.earliest_start < 0 || job.earliest_start >= time_infinity) {
    return fail(errc::invalid_parameter, job_name(job) +
                                             "earliest start must be in [0, time_infinity), got " +
                                             std::to_string(job.earliest_start));
  }
  if (job.deadline > time_infinity) {
    return fail(errc::invalid_parameter, job_name(job) + "deadline must be <= time_infinity, got " +
                                             std::to_string(job.deadline));
  }
  if (job.deadline <= job.earliest_start) {
    return fail(errc::invalid_window, job_name(job) + "deadline " + std::to_string(job.deadline) +
                                          " is not after earliest start " +
                                          std::to_string(job.earliest_start));
  }
  return {};
}

status check_scheduled(const scheduled_job& job) {
  if (auto ok = check_window(job); !ok) return ok;
  if (job.scheduled_start < job.earliest_start || job.scheduled_start >= time_infinity) {
    return fail(errc::invalid_parameter,
                job_name(job) + "scheduled start " + std::to_string(job.scheduled_start) +
                    " outside [earliest start " + std::to_string(job.earliest_start) +
                    ", time_infinity)");
  }
  return {};
}

// Indexes a schedule by id, rejecting invalid jobs, empty and duplicate ids.
result<std::map<std::string_view, const scheduled_job*>> index_schedule(
    std::span<const scheduled_job> jobs, std::string_view which) {
  std::map<std::string_view, const scheduled_job*> by_id;
  for (const scheduled_job& job : jobs) {
    if (job.id.empty()) {
      return fail(errc::invalid_parameter, "schedule " + std::string(which) + ": empty job id");
    }
    if (auto ok = check_scheduled(job); !ok) {
      return fail(ok.err().code, "schedule " + std::string(which) + ": " + ok.err().message);
    }
    if (!by_id.emplace(job.id, &job).second) {
      return fail(errc::invalid_parameter,
                  "schedule " + std::string(which) + ": duplicate job id '" + job.id + "'");
    }
  }
  return by_id;
}

}  // namespace

result<duration> laxity(const scheduled_job& job) {
  if (auto ok = check_window(job); !ok) return ok.err();
  return job.deadline - job.runtime - job.earliest_start;  // eq. 3.1
}

result<duration> remaining_laxity(const scheduled_job& job) {
  if (auto ok = check_scheduled(job); !ok) return ok.err();
  return job.deadline - job.runtime - job.scheduled_start;  // eq. 3.2
}

result<duration> laxity_impact(std::span<const scheduled_job> before,
                               std::span<const scheduled_job> after, timestamp arrival,
                               std::string_view new_job_id) {
  if (arrival < 0 || arrival >= time_infinity) {
    return fail(errc::invalid_parameter,
                "arrival must be in [0, time_infinity), got " + std::to_string(arrival));
  }
  if (new_job_id.empty()) return fail(errc::invalid_parameter, "empty id for the new job");
  auto old_jobs = index_schedule(before, "before");
  if (!old_jobs) return old_jobs.err();
  auto new_jobs = index_schedule(after, "after");
  if (!new_jobs) return new_jobs.err();
  if (old_jobs->contains(new_job_id)) {
    return fail(errc::invalid_parameter,
                "new job '" + std::string(new_job_id) + "' is already in the schedule before");
  }
  for (const auto& [id, job] : *new_jobs) {
    if (id != new_job_id && !old_jobs->contains(id)) {
      return fail(errc::not_found, "job '" + std::string(id) +
                                       "' is in the schedule after but not in the one before");
    }
  }

  duration zeta = 0;
  for (const scheduled_job& old_job : before) {
    auto it = new_jobs->find(old_job.id);
    if (it == new_jobs->end()) {
      return fail(errc::not_found,
                  "job '" + old_job.id + "' is in the schedule before but not in the one after");
    }
    const scheduled_job& new_job = *it->second;
    if (new_job.earliest_start != old_job.earliest_start || new_job.runtime != old_job.runtime ||
        new_job.deadline != old_job.deadline) {
      return fail(
          errc::invalid_parameter,
          job_name(old_job) + "(t, e, d) changed from (" + std::to_string(old_job.earliest_start) +
              ", " + std::to_string(old_job.runtime) + ", " + std::to_string(old_job.deadline) +
              ") to (" + std::to_string(new_job.earliest_start) + ", " +
              std::to_string(new_job.runtime) + ", " + std::to_string(new_job.deadline) + ")");
    }
    if (old_job.scheduled_start < arrival) continue;  // not in C
    // RL before - RL after = (d - e - s_before) - (d - e - s_after) = s_after - s_before.
    // Both starts and the running sum lie in (-time_infinity, time_infinity): no overflow.
    zeta += new_job.scheduled_start - old_job.scheduled_start;
    if (zeta <= -time_infinity || zeta >= time_infinity) {
      return fail(errc::invalid_parameter, "laxity impact reaches time_infinity");
    }
  }
  return zeta;
}

result<std::size_t> choose_min_laxity_impact(std::span<const mli_option> options) {
  if (options.empty()) return fail(errc::invalid_parameter, "no resources to choose from");
  std::size_t best = options.size();
  double best_scaled = 0;
  for (std::size_t i = 0; i < options.size(); ++i) {
    const mli_option& o = options[i];
    if (!o.meets_qos) continue;
    const std::string where = "resource " + std::to_string(i) + ": ";
    if (!std::isfinite(o.relative_speed) || o.relative_speed <= 0) {
      return fail(errc::invalid_parameter, where + "relative speed must be positive and finite, " +
                                               "got " + detail::number_text(o.relative_speed));
    }
    if (o.zeta <= -time_infinity || o.zeta >= time_infinity) {
      return fail(errc::invalid_parameter,
                  where + "laxity impact " + std::to_string(o.zeta) + " reaches time_infinity");
    }
    if (o.completion_time < 0 || o.completion_time >= time_infinity) {
      return fail(errc::invalid_parameter, where +
                                               "completion time must be in [0, time_infinity), " +
                                               "got " + std::to_string(o.completion_time));
    }
    const double scaled = static_cast<double>(o.zeta) * o.relative_speed;
    // Strict comparisons keep the lower index on a full tie.
    if (best == options.size() || scaled < best_scaled ||
        (scaled == best_scaled && o.completion_time < options[best].completion_time)) {
      best = i;
      best_scaled = scaled;
    }
  }
  if (best == options.size()) {
    return fail(errc::infeasible, "none of the " + std::to_string(options.size()) +
                                      " resources meets the job's QoS constraints");
  }
  return best;
}

}  // namespace arbroker
