#include "arbroker/core/site_adaptation.hpp"

#include <algorithm>
#include <cmath>
#include <variant>

namespace arbroker {
namespace {

// Relative slack when comparing speedups, so that a speedup that equals the required one
// up to rounding noise counts as sufficient.
constexpr double speedup_epsilon = 1e-12;

std::string range_text(int np_min, int np_max, int np_site) {
  return "[" + std::to_string(np_min) + ", " + std::to_string(std::min(np_max, np_site)) + "]";
}

// Closed form of eq. 4 for Amdahl's model.
result<int> amdahl_np_min(double seq, double s_ref, double dur_ratio) {
  if (seq >= 1.0)
    return fail(errc::infeasible,
                "amdahl seq = 1: no speedup is possible, the duration cannot be shortened");
  if (seq <= 0.0) return static_cast<int>(std::min(std::ceil(s_ref * dur_ratio - 1e-9), 2e9));
  // Validity condition: 1 / (S_A(np_ref) * seq) > dur_new / dur_max.
  if (!(1.0 / (s_ref * seq) > dur_ratio))
    return fail(errc::infeasible, "amdahl: the sequential fraction " + std::to_string(seq) +
                                      " limits the speedup below the " +
                                      std::to_string(s_ref * dur_ratio) +
                                      " needed to fit the window");
  const double n = (1.0 - seq) / (1.0 / (s_ref * dur_ratio) - seq);
  return static_cast<int>(std::min(std::ceil(n - 1e-9), 2e9));
}

}  // namespace

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

result<int> adapt_np_min(const speedup_model& sp, int np_min, int np_max, int np_ref,
                         duration dur_new, duration dur_max, int np_site) {
  if (np_min < 1 || np_min > np_max)
    return fail(errc::invalid_processor_range, "processor range [" + std::to_string(np_min) + ", " +
                                                   std::to_string(np_max) +
                                                   "] is empty or below 1");
  if (np_ref < 1 || np_site < 1)
    return fail(errc::invalid_processor_range, "np_ref (" + std::to_string(np_ref) +
                                                   ") and np_site (" + std::to_string(np_site) +
                                                   ") must be at least 1");
  if (dur_new <= 0 || dur_max <= 0)
    return fail(errc::invalid_duration,
                "durations must be positive (dur_new=" + std::to_string(dur_new) +
                    ", dur_max=" + std::to_string(dur_max) + ")");
  const int limit = std::min(np_max, np_site);
  const double s_ref = sp.speedup(np_ref);
  const double dur_ratio = static_cast<double>(dur_new) / static_cast<double>(dur_max);

  int n = np_min;
  if (auto* amdahl = std::get_if<amdahl_model>(&sp.model())) {
    auto closed = amdahl_np_min(amdahl->seq, s_ref, dur_ratio);
    if (!closed) return closed.err();
    n = std::max(np_min, *closed);
  } else {
    // Fig. 2 with C the required speedup. (The paper's listing tests `C < S_D` after the
    // loop; the intent, and what is implemented, is: still short of C means invalid.)
    const double c = s_ref * dur_ratio;
    while (c > sp.speedup(n) * (1 + speedup_epsilon) && n <= limit)
      ++n;
    if (c > sp.speedup(n) * (1 + speedup_epsilon))
      return fail(errc::infeasible, "no processor count in " + range_text(np_min, np_max, np_site) +
                                        " reaches the required speedup " + std::to_string(c));
  }
  if (n > np_max)
    return fail(errc::infeasible, "needs at least " + std::to_string(n) +
                                      " processors to fit the window but np_max is " +
                                      std::to_string(np_max));
  if (n > np_site)
    return fail(errc::infeasible, "needs at least " + std::to_string(n) +
                                      " processors to fit the window but the site has " +
                                      std::to_string(np_site));
  return n;
}

result<site_request> adapt_to_site(const elastic_request& req, const site_description& site) {
  if (auto ok = validate(req); !ok) return ok.err();
  if (auto ok = validate(site); !ok) return ok.err();
  if (req.np_min > site.cpus)
    return fail(errc::infeasible, "site '" + site.name + "' has " + std::to_string(site.cpus) +
                                      " CPUs, fewer than np_min " + std::to_string(req.np_min));
  // pp_ref 0: the duration is for this site's processors already.
  auto dur_new =
      scale_duration_to_site(req.dur_ref, req.pp_ref > 0 ? req.pp_ref : site.pp, site.pp);
  if (!dur_new) return dur_new.err();

  // Sec. 3.2.1: the reference form on this site's processors.
  int np_min = req.np_min;
  int np_ref = reference_np(req);
  duration dur_ref = *dur_new;
  const duration dur_max = req.let - req.est;
  if (dur_ref > dur_max) {
    auto n = adapt_np_min(req.sp, req.np_min, req.np_max, np_ref, dur_ref, dur_max, site.cpus);
    if (!n) return fail(n.err().code, "site '" + site.name + "': " + n.err().message);
    if (*n != np_min) {
      // Sec. 3.2.2: if np_min changed, np_ref follows it (and the duration with it).
      auto dur = adapt_duration(req.sp, dur_ref, np_ref, *n);
      if (!dur) return dur.err();
      np_min = np_ref = *n;
      dur_ref = *dur;
    }
  }
  // eq. 5 for every count the site can reserve in the range.
  auto counts = reservable_counts(site.sizes, np_min, std::min(req.np_max, site.cpus), site.cpus);
  if (!counts) return fail(counts.err().code, "site '" + site.name + "': " + counts.err().message);
  site_request out{req.est, req.let, {}};
  out.shapes.reserve(counts->size());
  for (int n : *counts) {
    auto dur = adapt_duration(req.sp, dur_ref, np_ref, n);
    if (!dur) return dur.err();
    out.shapes.push_back({n, *dur});
  }
  return out;
}

}  // namespace arbroker
