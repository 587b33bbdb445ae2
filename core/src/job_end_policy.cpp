#include "arbroker/core/job_end_policy.hpp"

namespace arbroker {

std::string_view to_string(job_end_policy p) noexcept {
  return p == job_end_policy::release ? "release" : "keep";
}

std::optional<job_end_policy> job_end_policy_from(std::string_view s) noexcept {
  for (auto p : {job_end_policy::keep, job_end_policy::release})
    if (s == to_string(p)) return p;
  return std::nullopt;
}

}  // namespace arbroker
