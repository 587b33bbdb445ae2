#include "arbroker/core/expected_delay.hpp"

#include "arbroker/core/number_text.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>
#include <tuple>

namespace arbroker {
namespace {

std::string where(std::string_view machine) {
  return "machine '" + std::string(machine) + "': ";
}

// Rounds a non-negative real number of seconds up, refusing values that do not fit below
// time_infinity (e.g. a clock rate of 1e-300 Hz).
result<duration> ceil_seconds(double seconds, std::string_view what, std::string_view machine) {
  const double up = std::ceil(seconds);
  if (!(up < static_cast<double>(time_infinity))) {
    return fail(errc::invalid_parameter, where(machine) + std::string(what) + " of " +
                                             detail::number_text(seconds) +
                                             " s reaches time_infinity");
  }
  return static_cast<duration>(up);
}

}  // namespace

result<double> speed_factor(double cpu_ref, std::span<const double> cpu_clock_rates) {
  if (!detail::positive_finite(cpu_ref)) {
    return fail(errc::invalid_parameter, "reference clock rate must be positive and finite, got " +
                                             detail::number_text(cpu_ref));
  }
  if (cpu_clock_rates.empty()) {
    return fail(errc::invalid_parameter, "machine lists no CPU clock rate");
  }
  double alpha = 0;
  for (double rate : cpu_clock_rates) {
    if (!detail::positive_finite(rate)) {
      return fail(errc::invalid_parameter,
                  "CPU clock rate must be positive and finite, got " + detail::number_text(rate));
    }
    alpha = std::max(alpha, cpu_ref / rate);  // eq. 2: the slowest CPU governs
  }
  return alpha;
}

result<sed_breakdown> expected_delay(const sed_application& app, const sed_machine& machine) {
  const std::string& name = machine.name;
  if (app.run_ref <= 0 || app.run_ref >= time_infinity) {
    return fail(errc::invalid_duration, where(name) + "reference runtime must be in (0, " +
                                            "time_infinity), got " + std::to_string(app.run_ref));
  }
  if (machine.max_walltime <= 0 || machine.max_walltime >= time_infinity) {
    return fail(errc::invalid_duration, where(name) +
                                            "max walltime must be in (0, time_infinity), got " +
                                            std::to_string(machine.max_walltime));
  }
  if (machine.available_cores <= 0) {
    return fail(errc::invalid_processor_range, where(name) +
                                                   "available cores must be positive, got " +
                                                   std::to_string(machine.available_cores));
  }

  sed_breakdown out;
  auto alpha = speed_factor(app.cpu_ref, machine.cpu_clock_rates);
  if (!alpha) return fail(alpha.err().code, where(name) + alpha.err().message);
  out.alpha = *alpha;
  // run_ref * cpu_ref / slowest equals alpha * run_ref but divides last, so an integral
  // runtime comes out exact instead of a hair above and then rounded up by a second.
  const double slowest =
      *std::min_element(machine.cpu_clock_rates.begin(), machine.cpu_clock_rates.end());
  auto run =
      ceil_seconds(static_cast<double>(app.run_ref) * app.cpu_ref / slowest, "runtime", name);
  if (!run) return run.err();
  out.run = *run;

  // Eq. 4. The sum fits: job_cores.size() * INT_MAX stays far below the int64 limit.
  std::int64_t cores = 0;
  for (int c : machine.job_cores) {
    if (c < 1) {
      return fail(errc::invalid_processor_range,
                  where(name) + "a job requests " + std::to_string(c) + " cores");
    }
    cores += c;
  }
  const std::int64_t rounds = (cores + machine.available_cores - 1) / machine.available_cores;
  if (rounds > 0 && machine.max_walltime > (time_infinity - 1) / rounds) {
    return fail(errc::invalid_parameter, where(name) + "waiting time of " + std::to_string(rounds) +
                                             " x " + std::to_string(machine.max_walltime) +
                                             " s reaches time_infinity");
  }
  out.wait = machine.max_walltime * rounds;

  // Eq. 5. Bytes are summed as doubles: exact up to 2^53 bytes, and never overflowing.
  double bytes = 0;
  for (std::int64_t size : app.input_file_bytes) {
    if (size < 0) {
      return fail(errc::invalid_parameter,
                  where(name) + "input file size must be >= 0, got " + std::to_string(size));
    }
    bytes += static_cast<double>(size);
  }
  const double bw = machine.bandwidth_bytes_per_s;
  if (!std::isfinite(bw) || bw < 0) {
    return fail(errc::invalid_parameter,
                where(name) + "bandwidth must be finite and >= 0, got " + detail::number_text(bw));
  }
  if (!app.input_file_bytes.empty()) {
    if (bw == 0) {
      return fail(errc::invalid_parameter, where(name) + "bandwidth is 0 but " +
                                               std::to_string(app.input_file_bytes.size()) +
                                               " input files must be transferred");
    }
    auto transfer = ceil_seconds(bytes / bw, "transfer time", name);
    if (!transfer) return transfer.err();
    out.transfer = *transfer;
  }

  // Each term is below time_infinity = INT64_MAX / 4, so the sum cannot overflow.
  out.delay = out.transfer + out.wait + out.run;
  if (out.delay >= time_infinity) {
    return fail(errc::invalid_parameter,
                where(name) + "delay of " + std::to_string(out.delay) + " s reaches time_infinity");
  }
  return out;
}

result<std::vector<sed_ranked>> rank_by_expected_delay(const sed_application& app,
                                                       std::span<const sed_machine> machines) {
  if (machines.empty()) return fail(errc::invalid_parameter, "no machines to rank");
  std::set<std::string_view> names;
  std::vector<sed_ranked> ranked;
  ranked.reserve(machines.size());
  for (const sed_machine& m : machines) {
    if (!names.insert(m.name).second) {
      return fail(errc::invalid_parameter, "duplicate machine name '" + m.name + "'");
    }
    auto breakdown = expected_delay(app, m);
    if (!breakdown) return breakdown.err();
    ranked.push_back({m.name, *breakdown});
  }
  // Names are unique, so (delay, name) is a strict total order and the result is stable.
  std::sort(ranked.begin(), ranked.end(), [](const sed_ranked& a, const sed_ranked& b) {
    return std::tie(a.breakdown.delay, a.name) < std::tie(b.breakdown.delay, b.name);
  });
  return ranked;
}

result<timestamp> earliest_finish(timestamp earliest_start, duration delay) {
  if (earliest_start < 0 || earliest_start >= time_infinity) {
    return fail(errc::invalid_parameter, "earliest start must be in [0, time_infinity), got " +
                                             std::to_string(earliest_start));
  }
  if (delay < 0 || delay >= time_infinity) {
    return fail(errc::invalid_duration,
                "delay must be in [0, time_infinity), got " + std::to_string(delay));
  }
  const timestamp finish = earliest_start + delay;  // both < INT64_MAX / 4: no overflow
  if (finish >= time_infinity) {
    return fail(errc::invalid_parameter, "earliest finish " + std::to_string(earliest_start) +
                                             " + " + std::to_string(delay) +
                                             " reaches time_infinity");
  }
  return finish;
}

}  // namespace arbroker
