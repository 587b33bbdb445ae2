#include "arbroker/sim/walltime_rule.hpp"

#include <algorithm>

namespace arbroker::sim {

std::string_view to_string(walltime_rule r) noexcept {
  return r == walltime_rule::kill ? "kill" : "extend";
}

std::optional<walltime_rule> parse_walltime_rule(std::string_view text) noexcept {
  if (text == "kill") return walltime_rule::kill;
  if (text == "extend") return walltime_rule::extend;
  return std::nullopt;
}

job_times times_of(const swf_job& job, walltime_rule rule) noexcept {
  const duration asked = job.requested_time > 0 ? job.requested_time : job.run_time;
  return {rule == walltime_rule::kill ? asked : std::max(asked, job.run_time), job.run_time};
}

}  // namespace arbroker::sim
