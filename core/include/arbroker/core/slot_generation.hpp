#pragma once

#include <string>
#include <vector>

#include "arbroker/core/candidate.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/core/site_adaptation.hpp"
#include "arbroker/core/speedup.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// How densely a probe samples the window (paper 000, Sec. 3.2.2).
struct probe_limits {
  int tsn_max = 8;        ///< at most this many start times per processor count
  duration tss_gap = 60;  ///< consecutive start times at least this far apart (>= 0)
  friend bool operator==(const probe_limits&, const probe_limits&) = default;
};

/// start_times() of Fig. 3: start times in [est, lst = let - dur] that cover the window evenly,
/// always including est and (when there is room for two) lst, at most tsn_max of them, with
/// consecutive gaps >= tss_gap. `infeasible` when dur does not fit [est, let].
result<std::vector<timestamp>> start_times(timestamp est, timestamp let, duration dur,
                                           probe_limits limits);

/// process_probe() of Fig. 3: for each shape (n, dur_n) of the site request with dur_n <=
/// let - est, the candidates <site, t, t + dur_n, n> for t in start_times(). Properties are
/// left empty; the cluster service fills in those the request asks for. Candidates come out
/// in shape order, then by start. invalid_processor_range / invalid_duration for a shape
/// with np < 1 or dur <= 0.
/// The candidates view `site`, which must outlive them.
result<std::vector<candidate>> generate_candidates(std::string_view site, const site_request& req,
                                                   probe_limits limits);

}  // namespace arbroker
