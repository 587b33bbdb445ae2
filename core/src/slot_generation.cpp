#include "arbroker/core/slot_generation.hpp"

#include <algorithm>

namespace arbroker {

result<std::vector<int>> reservable_counts(const reservable_sizes& sizes, int np_min, int np_max,
                                           int np_site) {
  if (np_min < 1 || np_min > np_max)
    return fail(errc::invalid_processor_range, "processor range [" + std::to_string(np_min) + ", " +
                                                   std::to_string(np_max) +
                                                   "] is empty or below 1");
  if (sizes.bunch < 1)
    return fail(errc::invalid_processor_range,
                "bunch size " + std::to_string(sizes.bunch) + " must be at least 1");
  const int hi = std::min(np_max, np_site);
  std::vector<int> out;
  if (!sizes.counts.empty()) {
    for (int c : sizes.counts)
      if (c >= np_min && c <= hi) out.push_back(c);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  } else {
    const long long b = sizes.bunch;  // wide, so that n + b cannot overflow near INT_MAX
    for (long long n = (np_min + b - 1) / b * b; n <= hi; n += b)
      out.push_back(static_cast<int>(n));
  }
  if (out.empty())
    return fail(errc::invalid_processor_range,
                "no reservable processor count in [" + std::to_string(np_min) + ", " +
                    std::to_string(hi) + "] (bunch " + std::to_string(sizes.bunch) + ")");
  return out;
}

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

result<std::vector<candidate>> generate_candidates(const site_description& site,
                                                   const site_request& req, const speedup_model& sp,
                                                   timestamp est, timestamp let,
                                                   probe_limits limits) {
  if (est >= let)
    return fail(errc::invalid_window, "earliest start " + std::to_string(est) +
                                          " must be before latest end " + std::to_string(let));
  auto rnp = reservable_counts(site.sizes, req.np_min, req.np_max, site.cpus);
  if (!rnp) return rnp.err();
  const duration dur_max = let - est;
  std::vector<candidate> out;
  // Up to tsn_max start times per size (a probe reallocated its way up otherwise); bounded,
  // since tsn_max comes from the request and the window may hold far fewer.
  out.reserve(rnp->size() * static_cast<std::size_t>(std::clamp(limits.tsn_max, 1, 64)));
  for (int n : *rnp) {
    auto dur_n = adapt_duration(sp, req.dur_ref, req.np_ref, n);
    if (!dur_n) return dur_n.err();
    if (*dur_n > dur_max) continue;
    auto starts = start_times(est, let, *dur_n, limits);
    if (!starts) return starts.err();
    for (timestamp t : *starts)
      out.push_back(candidate{site.name, t, t + *dur_n, n, {}});
  }
  return out;
}

}  // namespace arbroker
