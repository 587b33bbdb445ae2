#include "grid_job_terms.hpp"

#include <cmath>
#include <cstdint>

namespace arbroker {

std::uint64_t serial_in(const std::string& id) {
  const auto at = id.rfind("/g");
  if (at == std::string::npos || at + 2 >= id.size()) return 0;
  std::uint64_t n = 0;
  for (std::size_t i = at + 2; i < id.size(); ++i) {
    if (id[i] < '0' || id[i] > '9' || n > (UINT64_MAX - 9) / 10) return 0;
    n = n * 10 + static_cast<std::uint64_t>(id[i] - '0');
  }
  return n;
}

msg::gis_query eligibility(const msg::grid_submit_request& r, const std::string& owner) {
  msg::gis_query q;
  q.user = owner;
  q.np_min = r.np;
  q.clusters = r.clusters;
  return q;
}

namespace {

placement_inputs inputs_of(const msg::grid_submit_request& r) {
  placement_inputs in;
  in.walltime = r.walltime;
  for (const auto& b : r.benchmarks)
    in.benchmarks.push_back({b.name, b.result, b.seconds});
  in.penalty = r.penalty;
  for (const auto& f : r.inputs)
    in.input_bytes += f.bytes;
  if (r.output_bytes >= 0) in.output_bytes = r.output_bytes;
  return in;
}

}  // namespace

result<placement_terms> terms_for(const msg::grid_submit_request& r, const msg::cluster_info& c) {
  cluster_benchmarks b{c.name, {}};
  for (std::size_t i = 0; i < c.benchmark_names.size() && i < c.benchmark_results.size(); ++i)
    b.results.push_back({c.benchmark_names[i], c.benchmark_results[i]});
  return terms_on(inputs_of(r), b, c.bandwidth);
}

status check_request(const msg::grid_submit_request& r) {
  grid_job_spec spec{r.name,
                     r.command,
                     r.np,
                     r.walltime > 0 ? r.walltime : 1,
                     r.strategy,
                     r.width,
                     std::max<std::int64_t>(r.min_gain, 0),
                     std::max(r.max_migrations, -1)};
  if (auto ok = check(spec); !ok) return ok;
  if (r.walltime < 0 || (r.walltime == 0 && r.benchmarks.empty()))
    return fail(errc::invalid_duration, "walltime: give a positive walltime or benchmarks");
  if (r.min_gain < -1) return fail(errc::invalid_duration, "min_gain: must be >= 0");
  if (r.max_migrations < -2) return fail(errc::invalid_parameter, "max_migrations: below -1");
  if (!std::isfinite(r.penalty) || r.penalty < 1)
    return fail(errc::invalid_parameter, "penalty: must be a finite number >= 1");
  for (std::size_t i = 0; i < r.benchmarks.size(); ++i) {
    const auto& b = r.benchmarks[i];
    const auto f = "benchmarks[" + std::to_string(i) + "]";
    if (b.name.empty()) return fail(errc::invalid_parameter, f + ".name: must not be empty");
    if (!std::isfinite(b.result) || b.result <= 0)
      return fail(errc::invalid_parameter, f + ".result: must be positive");
    if (b.seconds <= 0 || b.seconds >= time_infinity)
      return fail(errc::invalid_duration, f + ".seconds: must be positive");
  }
  std::int64_t total = 0;
  for (std::size_t i = 0; i < r.inputs.size(); ++i) {
    if (r.inputs[i].bytes < 0 || r.inputs[i].bytes > (INT64_MAX >> 2) - total)
      return fail(errc::invalid_parameter,
                  "inputs[" + std::to_string(i) + "].bytes: must be >= 0 (and the sum finite)");
    total += r.inputs[i].bytes;
  }
  if (r.output_bytes < -1)
    return fail(errc::invalid_parameter, "output_bytes: must be >= 0, or -1 for unknown");
  return {};
}

// The reply a cluster service gives to `Request`, from its typed interface.

}  // namespace arbroker
