#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

// Shortest Expected Delay (SED) pre-ranking of machines (paper 004, Sec. III-A, eq. 1-7).
// The result is only a rough pre-qualification: the broker then reserves at the top sites
// and compares their committed start times with eq. 7.

/// What the user states about the application: a runtime measured on a reference CPU and
/// the input files that must be transferred to the machine.
struct sed_application {
  double cpu_ref = 0;                          ///< reference clock rate, same unit as the machines'
  duration run_ref = 0;                        ///< runtime on the reference CPU, seconds
  std::vector<std::int64_t> input_file_bytes;  ///< sizes of all input files, may be empty

  friend bool operator==(const sed_application&, const sed_application&) = default;
};

/// What the broker knows about one machine M_i. Plain data; expected_delay validates it.
struct sed_machine {
  std::string name;
  std::vector<double> cpu_clock_rates;  ///< one per CPU type; several for a heterogeneous machine
  int available_cores = 0;
  duration max_walltime = 0;         ///< the LRMS's maximum runtime per job, seconds
  std::vector<int> job_cores;        ///< requested cores of every waiting and running job;
                                     ///< a caller that only knows the sum passes {sum} ({} if idle)
  double bandwidth_bytes_per_s = 0;  ///< file location -> machine; may be 0 without input files

  friend bool operator==(const sed_machine&, const sed_machine&) = default;
};

/// The terms of eq. 6 for one machine. Seconds are rounded up (std::ceil) where the real
/// value is fractional so that no term is underestimated.
struct sed_breakdown {
  double alpha = 0;       ///< eq. 1-2: CPU_ref / slowest CPU of the machine
  duration run = 0;       ///< eq. 3: ceil(alpha * run_ref)
  duration wait = 0;      ///< eq. 4: max_walltime * ceil(sum(job_cores) / available_cores)
  duration transfer = 0;  ///< eq. 5: ceil(sum(input bytes) / bandwidth); 0 without files
  duration delay = 0;     ///< eq. 6: transfer + wait + run

  friend bool operator==(const sed_breakdown&, const sed_breakdown&) = default;
};

/// A machine with its breakdown, as returned by the ranking.
struct sed_ranked {
  std::string name;
  sed_breakdown breakdown;

  friend bool operator==(const sed_ranked&, const sed_ranked&) = default;
};

/// Eq. 1-2: alpha = max_k(cpu_ref / cpu_clock_rates[k]), i.e. the slowest CPU governs.
/// Fails on cpu_ref or a rate that is not positive and finite, or an empty rate list.
result<double> speed_factor(double cpu_ref, std::span<const double> cpu_clock_rates);

/// Eq. 1-6 for one machine. Fails with invalid_duration for run_ref or max_walltime <= 0,
/// invalid_processor_range for available_cores <= 0 or a job requesting < 1 core, and
/// invalid_parameter otherwise (bad clock rate, negative file size, bandwidth not > 0 while
/// there are input files, a term beyond time_infinity). Messages name the machine.
result<sed_breakdown> expected_delay(const sed_application& app, const sed_machine& machine);

/// Ranks machines by delay ascending; equal delays are ordered by name. Fails on an empty
/// list, on duplicate names (invalid_parameter) and with the first machine's error.
result<std::vector<sed_ranked>> rank_by_expected_delay(const sed_application& app,
                                                       std::span<const sed_machine> machines);

/// Eq. 7: earliest_start + delay, with earliest_start as committed by the reservation
/// service. Fails unless 0 <= earliest_start, 0 <= delay and the sum < time_infinity.
result<timestamp> earliest_finish(timestamp earliest_start, duration delay);

}  // namespace arbroker
