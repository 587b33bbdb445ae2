#pragma once

#include <optional>
#include <string_view>

namespace arbroker {

/// What a site does with a reservation once the jobs bound to it have ended (paper 003,
/// Sec. 3.1: "the Grid manager may remove the reservation, allowing the user to run only
/// the requested job. Alternatively, resources may allow the user to submit more jobs to
/// the reservation once the first has finished").
enum class job_end_policy {
  keep,     ///< the reservation lasts its term; more jobs may be bound to it
  release,  ///< it ends (its CPUs go back) when every job bound to it has ended
};

/// "keep" or "release".
std::string_view to_string(job_end_policy p) noexcept;
std::optional<job_end_policy> job_end_policy_from(std::string_view s) noexcept;

}  // namespace arbroker
