#pragma once

// What a request may carry for paper 003's runtime prediction and staging (Sec. 3.2): the
// benchmark triples, the penalty factor, the input files and the expected output size. Grid
// jobs (grid_job_protocol.hpp) and elastic reservations (broker_protocol.hpp) carry the same
// fields; hints_of() turns them into the core's runtime_hints.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/runtime_prediction.hpp"
#include "arbroker/messages/fields.hpp"

namespace arbroker::msg {

struct cluster_info;

/// Paper 003's {b_i, r_i, t_i}: the job runs `seconds` on a system scoring `result` in `name`.
struct benchmark_triple {
  std::string name;
  double result = 0;
  std::int64_t seconds = 0;
  friend bool operator==(const benchmark_triple&, const benchmark_triple&) = default;
};
ARB_FIELDS(benchmark_triple, x.name, x.result, x.seconds)

/// An input file; a location `cluster:NAME` or `cluster:NAME/...` says the file is at cluster
/// NAME already (a parent job's output where it ran): it is moved to any cluster but that one.
struct input_file {
  std::string location;
  std::int64_t bytes = 0;
  friend bool operator==(const input_file&, const input_file&) = default;
};
ARB_FIELDS(input_file, x.location, x.bytes)

inline constexpr std::string_view cluster_location_prefix = "cluster:";

/// The cluster of a `cluster:NAME[/...]` location ("" for `cluster:` alone); nothing for any
/// other location.
std::optional<std::string_view> held_at_cluster(std::string_view location);

/// Checks the fields and sums the input sizes (those at a cluster into held_at): every benchmark
/// named, with a positive result and seconds below time_infinity; penalty finite and >= 1; sizes >=
/// 0 with a finite sum; output_bytes >= 0 or -1 (unknown). The error names the field.
result<runtime_hints> hints_of(const std::vector<benchmark_triple>& benchmarks, double penalty,
                               const std::vector<input_file>& inputs, std::int64_t output_bytes);

/// The benchmark results a cluster publishes, as predict_runtime takes them.
cluster_benchmarks published_benchmarks(const cluster_info& c);

}  // namespace arbroker::msg
