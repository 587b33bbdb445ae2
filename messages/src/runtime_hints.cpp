#include "arbroker/messages/runtime_hints.hpp"

#include <cmath>

#include "arbroker/messages/gis_protocol.hpp"

namespace arbroker::msg {

result<runtime_hints> hints_of(const std::vector<benchmark_triple>& benchmarks, double penalty,
                               const std::vector<input_file>& inputs, std::int64_t output_bytes) {
  runtime_hints h;
  if (!std::isfinite(penalty) || penalty < 1)
    return fail(errc::invalid_parameter, "penalty: must be a finite number >= 1");
  h.penalty = penalty;
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const auto& b = benchmarks[i];
    const auto f = "benchmarks[" + std::to_string(i) + "]";
    if (b.name.empty()) return fail(errc::invalid_parameter, f + ".name: must not be empty");
    if (!std::isfinite(b.result) || b.result <= 0)
      return fail(errc::invalid_parameter, f + ".result: must be positive");
    if (b.seconds <= 0 || b.seconds >= time_infinity)
      return fail(errc::invalid_duration, f + ".seconds: must be positive");
    h.benchmarks.push_back({b.name, b.result, b.seconds});
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].bytes < 0 || inputs[i].bytes > (INT64_MAX >> 2) - h.input_bytes)
      return fail(errc::invalid_parameter,
                  "inputs[" + std::to_string(i) + "].bytes: must be >= 0 (and the sum finite)");
    h.input_bytes += inputs[i].bytes;
    if (auto at = held_at_cluster(inputs[i].location)) {
      if (at->empty())
        return fail(errc::invalid_parameter,
                    "inputs[" + std::to_string(i) + "].location: 'cluster:' names no cluster");
      h.held_at.emplace_back(std::string(*at), inputs[i].bytes);
    }
  }
  if (output_bytes < -1)
    return fail(errc::invalid_parameter, "output_bytes: must be >= 0, or -1 for unknown");
  if (output_bytes >= 0) h.output_bytes = output_bytes;
  return h;
}

std::optional<std::string_view> held_at_cluster(std::string_view location) {
  if (!location.starts_with(cluster_location_prefix)) return std::nullopt;
  location.remove_prefix(cluster_location_prefix.size());
  return location.substr(0, location.find('/'));
}

cluster_benchmarks published_benchmarks(const cluster_info& c) {
  cluster_benchmarks b{c.name, {}};
  for (std::size_t i = 0; i < c.benchmark_names.size() && i < c.benchmark_results.size(); ++i)
    b.results.push_back({c.benchmark_names[i], c.benchmark_results[i]});
  return b;
}

}  // namespace arbroker::msg
