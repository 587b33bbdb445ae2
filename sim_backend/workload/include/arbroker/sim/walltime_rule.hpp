#pragma once

// How a trace job's requested time and run time become a simulated job's walltime and run
// time. The choice changes headline results up to 5x (jobs that overran their request are a
// large share of some logs), so every tool names the rule it uses and prints it.

#include <cstdint>
#include <optional>
#include <string_view>

#include "arbroker/core/time.hpp"
#include "arbroker/sim/swf.hpp"

namespace arbroker::sim {

enum class walltime_rule : std::uint8_t {
  /// walltime = the requested time (the run time when unknown); a job that ran longer than
  /// it asked is killed at its walltime, as its batch system would have killed it.
  kill,
  /// walltime = max(requested time, run time): every job runs to its recorded end.
  extend,
};

/// "kill", "extend".
std::string_view to_string(walltime_rule r) noexcept;

/// "kill" or "extend"; nothing for anything else.
std::optional<walltime_rule> parse_walltime_rule(std::string_view text) noexcept;

struct job_times {
  duration walltime = 0;  ///< the limit the simulated LRMS enforces
  duration runtime = 0;   ///< how long the job would run without a limit (the trace's)
};

/// The job's times under `rule` (run_time as recorded; requested_time <= 0 is unknown).
job_times times_of(const swf_job& job, walltime_rule rule) noexcept;

}  // namespace arbroker::sim
