#include "arbroker/core/runtime_prediction.hpp"

#include "arbroker/core/number_text.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

namespace arbroker {
namespace {

std::string where(std::string_view cluster) {
  return "cluster '" + std::string(cluster) + "': ";
}

status check_specs(std::span<const benchmark_spec> specs) {
  if (specs.empty()) return fail(errc::invalid_parameter, "no benchmarks given");
  std::set<std::string_view> seen;
  for (const benchmark_spec& s : specs) {
    if (s.name.empty()) return fail(errc::invalid_parameter, "benchmark with an empty name");
    if (!seen.insert(s.name).second) {
      return fail(errc::invalid_parameter, "benchmark '" + s.name + "' given twice");
    }
    if (!detail::positive_finite(s.reference_result)) {
      return fail(errc::invalid_parameter, "benchmark '" + s.name +
                                               "': reference result must be positive and "
                                               "finite, got " +
                                               detail::number_text(s.reference_result));
    }
    if (s.reference_time <= 0 || s.reference_time >= time_infinity) {
      return fail(errc::invalid_duration, "benchmark '" + s.name +
                                              "': reference time must be in (0, "
                                              "time_infinity), got " +
                                              std::to_string(s.reference_time));
    }
  }
  return {};
}

// Rounds seconds up so that a requested walltime is never below the estimate.
result<duration> ceil_seconds(double seconds, std::string_view what, std::string_view cluster) {
  const double up = std::ceil(seconds);
  if (!(up < static_cast<double>(time_infinity))) {
    return fail(errc::invalid_parameter, where(cluster) + std::string(what) + " of " +
                                             detail::number_text(seconds) +
                                             " s reaches time_infinity");
  }
  return static_cast<duration>(up);
}

status check_term(duration d, std::string_view what) {
  if (d < 0 || d >= time_infinity) {
    return fail(errc::invalid_duration,
                std::string(what) + " must be in [0, time_infinity), got " + std::to_string(d));
  }
  return {};
}

}  // namespace

std::int64_t runtime_hints::input_bytes_to(std::string_view cluster) const noexcept {
  std::int64_t bytes = input_bytes;
  for (const auto& [at, held] : held_at)
    if (at == cluster) bytes -= held;
  return std::max<std::int64_t>(bytes, 0);
}

result<runtime_prediction> predict_runtime(std::span<const benchmark_spec> specs,
                                           const cluster_benchmarks& cluster, double penalty) {
  if (!std::isfinite(penalty) || penalty < 1) {
    return fail(errc::invalid_parameter,
                "penalty factor must be finite and >= 1, got " + detail::number_text(penalty));
  }
  if (auto ok = check_specs(specs); !ok) return ok.err();

  std::map<std::string_view, double> published;  // requested benchmarks only
  for (const benchmark_result& r : cluster.results) {
    const bool requested = std::any_of(specs.begin(), specs.end(),
                                       [&](const benchmark_spec& s) { return s.name == r.name; });
    if (!requested) continue;
    if (!published.emplace(r.name, r.value).second) {
      return fail(errc::invalid_parameter,
                  where(cluster.name) + "benchmark '" + r.name + "' published twice");
    }
    if (!detail::positive_finite(r.value)) {
      return fail(errc::invalid_parameter, where(cluster.name) + "result for '" + r.name +
                                               "' must be positive and finite, got " +
                                               detail::number_text(r.value));
    }
  }
  if (published.empty()) {
    std::string wanted;
    for (const benchmark_spec& s : specs)
      wanted += (wanted.empty() ? "" : ", ") + s.name;
    return fail(errc::not_found,
                where(cluster.name) + "publishes none of the benchmarks " + wanted);
  }

  runtime_prediction out;
  out.estimates.reserve(specs.size());
  double longest = 0;
  for (const benchmark_spec& s : specs) {
    auto it = published.find(s.name);
    if (it == published.end()) {
      out.estimates.push_back({s.name, 0, true});  // filled in below
      continue;
    }
    // t * r / R rather than t * (r / R): dividing last keeps integral results exact.
    const double seconds = static_cast<double>(s.reference_time) * s.reference_result / it->second;
    longest = std::max(longest, seconds);
    out.estimates.push_back({s.name, seconds, false});
  }
  double sum = 0;
  for (benchmark_estimate& e : out.estimates) {
    if (e.penalized) e.seconds = penalty * longest;
    sum += e.seconds;
    out.max_seconds = std::max(out.max_seconds, e.seconds);
  }
  out.mean_seconds = sum / static_cast<double>(out.estimates.size());

  auto walltime = ceil_seconds(out.max_seconds, "longest estimate", cluster.name);
  if (!walltime) return walltime.err();
  out.walltime = *walltime;
  // mean <= max, so this cannot fail once the walltime fit.
  out.execution = *ceil_seconds(out.mean_seconds, "mean estimate", cluster.name);
  return out;
}

result<duration> total_time_to_delivery(const ttd_components& c) {
  if (auto ok = check_term(c.stage_in, "stage-in time"); !ok) return ok.err();
  if (auto ok = check_term(c.queue_wait, "queue wait"); !ok) return ok.err();
  if (c.execution <= 0 || c.execution >= time_infinity) {
    return fail(errc::invalid_duration,
                "execution time must be in (0, time_infinity), got " + std::to_string(c.execution));
  }
  if (c.stage_out) {
    if (auto ok = check_term(*c.stage_out, "stage-out time"); !ok) return ok.err();
  }
  // Three terms below time_infinity = INT64_MAX / 4 cannot overflow.
  const duration ttd = std::max(c.stage_in, c.queue_wait) + c.execution + c.stage_out.value_or(0);
  if (ttd >= time_infinity) {
    return fail(errc::invalid_duration,
                "total time to delivery of " + std::to_string(ttd) + " s reaches time_infinity");
  }
  return ttd;
}

result<std::vector<ttd_ranked>> rank_by_time_to_delivery(std::span<const ttd_candidate> clusters) {
  if (clusters.empty()) return fail(errc::invalid_parameter, "no clusters to rank");
  std::set<std::string_view> names;
  std::vector<ttd_ranked> ranked;
  ranked.reserve(clusters.size());
  const bool with_stage_out = clusters.front().components.stage_out.has_value();
  for (const ttd_candidate& c : clusters) {
    if (!names.insert(c.name).second) {
      return fail(errc::invalid_parameter, "duplicate cluster name '" + c.name + "'");
    }
    if (c.components.stage_out.has_value() != with_stage_out) {
      return fail(errc::invalid_parameter,
                  "stage-out time is known for cluster '" +
                      (with_stage_out ? clusters.front().name : c.name) + "' but not for '" +
                      (with_stage_out ? c.name : clusters.front().name) + "'");
    }
    auto ttd = total_time_to_delivery(c.components);
    if (!ttd) return fail(ttd.err().code, where(c.name) + ttd.err().message);
    ranked.push_back({c.name, *ttd});
  }
  // Names are unique, so (ttd, name) is a strict total order and the result is stable.
  std::sort(ranked.begin(), ranked.end(), [](const ttd_ranked& a, const ttd_ranked& b) {
    return std::tie(a.ttd, a.name) < std::tie(b.ttd, b.name);
  });
  return ranked;
}

}  // namespace arbroker
