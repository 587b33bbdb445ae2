#include "arbroker/core/slot_generation.hpp"

#include <algorithm>

namespace arbroker {

result<std::vector<timestamp>> start_times(timestamp est, timestamp let, duration dur,
                                           probe_limits limits) {
  if (est >= let)
    return fail(errc::invalid_window, "earliest start " + std::to_string(est) +
                                          " must be before latest end " + std::to_string(let));
  if (dur <= 0)
    return fail(errc::invalid_duration, "duration " + std::to_string(dur) + " s must be positive");
  if (limits.tsn_max < 1)
    return fail(errc::invalid_parameter,
                "tsn_max " + std::to_string(limits.tsn_max) + " must be at least 1");
  if (limits.tss_gap < 0)
    return fail(errc::invalid_parameter,
                "tss_gap " + std::to_string(limits.tss_gap) + " s must not be negative");
  if (dur > let - est)
    return fail(errc::infeasible, "duration " + std::to_string(dur) + " s exceeds the window of " +
                                      std::to_string(let - est) + " s");

  const timestamp lst = let - dur;
  const duration span = lst - est;
  // k start times spread evenly need k - 1 gaps of at least tss_gap (and of at least one
  // second, so that no start time repeats).
  const duration min_gap = std::max<duration>(limits.tss_gap, 1);
  const duration k = std::min<duration>(limits.tsn_max, span / min_gap + 1);
  std::vector<timestamp> out;
  out.reserve(static_cast<std::size_t>(k));
  if (k == 1) {
    out.push_back(est);
    return out;
  }
  // t_i = est + floor(i * span / (k - 1)): every gap is floor or ceil of span / (k - 1),
  // which is >= min_gap because k - 1 <= span / min_gap. Split the product to avoid
  // overflow on huge windows.
  const duration q = span / (k - 1);
  const duration r = span % (k - 1);
  for (duration i = 0; i < k; ++i)
    out.push_back(est + i * q + (i * r) / (k - 1));
  return out;
}

result<std::vector<candidate>> generate_candidates(std::string_view site, const site_request& req,
                                                   probe_limits limits) {
  if (req.est >= req.let)
    return fail(errc::invalid_window, "earliest start " + std::to_string(req.est) +
                                          " must be before latest end " + std::to_string(req.let));
  const duration dur_max = req.let - req.est;
  std::vector<candidate> out;
  // Up to tsn_max start times per size (a probe reallocated its way up otherwise); bounded,
  // since tsn_max comes from the request and the window may hold far fewer.
  out.reserve(req.shapes.size() * static_cast<std::size_t>(std::clamp(limits.tsn_max, 1, 64)));
  for (const auto& shape : req.shapes) {
    if (shape.np < 1)
      return fail(errc::invalid_processor_range,
                  "a shape of " + std::to_string(shape.np) + " CPUs (at least 1)");
    if (shape.dur <= 0)
      return fail(errc::invalid_duration,
                  "a shape of " + std::to_string(shape.dur) + " s (must be positive)");
    if (shape.dur > dur_max) continue;
    auto starts = start_times(req.est, req.let, shape.dur, limits);
    if (!starts) return starts.err();
    for (timestamp t : *starts)
      out.emplace_back(site, t, t + shape.dur, shape.np, slot_properties{});
  }
  return out;
}

}  // namespace arbroker
