#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

// Benchmark-based execution time prediction and total time to delivery (TTD), paper 003,
// Sec. 3.2 and the `benchmarks` RSL attribute of Fig. 2.

/// One user triple {b_i, r_i, t_i}: the application needs t_i seconds on a system whose
/// result for benchmark b_i is r_i. Higher results mean faster systems.
struct benchmark_spec {
  std::string name;             ///< b_i, matched exactly (case-sensitive) against clusters
  double reference_result = 0;  ///< r_i
  duration reference_time = 0;  ///< t_i, seconds

  friend bool operator==(const benchmark_spec&, const benchmark_spec&) = default;
};

/// A benchmark result published by a cluster.
struct benchmark_result {
  std::string name;
  double value = 0;

  friend bool operator==(const benchmark_result&, const benchmark_result&) = default;
};

/// The benchmark results one cluster publishes. Plain data; predict_runtime validates it.
struct cluster_benchmarks {
  std::string name;
  std::vector<benchmark_result> results;

  friend bool operator==(const cluster_benchmarks&, const cluster_benchmarks&) = default;
};

/// The estimate obtained from one requested benchmark.
struct benchmark_estimate {
  std::string benchmark;
  double seconds = 0;
  bool penalized = false;  ///< the cluster lacks this benchmark: c * longest other estimate

  friend bool operator==(const benchmark_estimate&, const benchmark_estimate&) = default;
};

/// The k estimates for one cluster and what the broker uses them for.
struct runtime_prediction {
  std::vector<benchmark_estimate> estimates;  ///< in the order of the specs
  double mean_seconds = 0;                    ///< ranks clusters
  double max_seconds = 0;                     ///< requested at submission
  duration execution = 0;                     ///< ceil(mean_seconds): the TTD execution term
  duration walltime = 0;                      ///< ceil(max_seconds): never below any estimate

  friend bool operator==(const runtime_prediction&, const runtime_prediction&) = default;
};

/// Paper 003's default penalty factor c for a benchmark a cluster does not publish.
inline constexpr double default_missing_benchmark_penalty = 1.25;

/// What a request may bring for Sec. 3.2 (all optional): its benchmark triples, the penalty c,
/// the bytes of its input files and the expected bytes of its output (unknown: no stage-out).
struct runtime_hints {
  std::vector<benchmark_spec> benchmarks;
  double penalty = default_missing_benchmark_penalty;
  std::int64_t input_bytes = 0;
  std::optional<std::int64_t> output_bytes;
  /// Input already at a cluster (a parent job's output where it ran): (cluster, bytes),
  /// counted in input_bytes but not moved to that cluster.
  std::vector<std::pair<std::string, std::int64_t>> held_at = {};

  /// The input bytes that must move to `cluster`: all but those already there.
  std::int64_t input_bytes_to(std::string_view cluster) const noexcept;

  bool empty() const noexcept { return benchmarks.empty() && input_bytes == 0 && !output_bytes; }
  friend bool operator==(const runtime_hints&, const runtime_hints&) = default;
};

/// Linear scaling: for each spec the cluster publishes, t_i * r_i / R; for each it lacks,
/// penalty * (longest of those estimates). Results for benchmarks nobody asked for are
/// ignored and not validated. Fails with not_found when the cluster has none of the
/// benchmarks; invalid_duration for t_i outside (0, time_infinity); invalid_parameter for
/// no specs, an empty or duplicate spec name, r_i or a used R not positive and finite, a
/// requested benchmark published twice, penalty not finite or < 1, or an estimate
/// reaching time_infinity.
result<runtime_prediction> predict_runtime(std::span<const benchmark_spec> specs,
                                           const cluster_benchmarks& cluster,
                                           double penalty = default_missing_benchmark_penalty);

/// The operations of Sec. 3.2 for one cluster, in seconds. stage_out is empty when the
/// output sizes are unknown.
struct ttd_components {
  duration stage_in = 0;    ///< input files and executable to the resource
  duration queue_wait = 0;  ///< batch queue (or reservation start) from submission
  duration execution = 0;   ///< typically runtime_prediction::execution
  std::optional<duration> stage_out;

  friend bool operator==(const ttd_components&, const ttd_components&) = default;
};

/// TTD = max(stage_in, queue_wait) + execution + stage_out (stage_out omitted when empty):
/// the job waits for whichever of stage-in and queue takes longer. Fails with
/// invalid_duration for a negative term, execution <= 0, or a term or sum reaching
/// time_infinity.
result<duration> total_time_to_delivery(const ttd_components& c);

/// A cluster to compare by TTD.
struct ttd_candidate {
  std::string name;
  ttd_components components;

  friend bool operator==(const ttd_candidate&, const ttd_candidate&) = default;
};

/// A cluster with its TTD, as returned by the ranking.
struct ttd_ranked {
  std::string name;
  duration ttd = 0;

  friend bool operator==(const ttd_ranked&, const ttd_ranked&) = default;
};

/// Ranks clusters by TTD ascending; equal TTDs are ordered by name. Fails on an empty list
/// or duplicate names (invalid_parameter), with the first cluster's error, and with
/// invalid_parameter when stage_out is known for some clusters but not for others (their
/// TTDs would not be comparable; drop stage_out everywhere to compare without it).
result<std::vector<ttd_ranked>> rank_by_time_to_delivery(std::span<const ttd_candidate> clusters);

}  // namespace arbroker
