#pragma once

#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/core/speedup.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// The request as it is sent in a probe to one site (paper 000, Sec. 3.2.1-3.2.2), adapted
/// to the site once, by the broker: the window, and for every processor count the site can
/// reserve in the adapted range its duration there. The site generates its candidates from
/// the shapes without knowing the speedup model (the paper's site applies eq. 5 itself; the
/// result is the same, and a site cannot get the model wrong).
struct site_request {
  timestamp est = 0;
  timestamp let = 0;
  /// Ascending np: RNP within [np_min, np_max] after the adaptation, each with eq. 5 applied
  /// to the duration scaled to the site's processor power. Shapes longer than the window
  /// are kept (a site still places them for its busy-time hint).
  std::vector<job_shape> shapes;

  friend bool operator==(const site_request&, const site_request&) = default;
};

/// The processor counts in [np_min, np_max] a site can reserve (RNP), ascending.
/// `invalid_processor_range` when there is none.
result<std::vector<int>> reservable_counts(const reservable_sizes& sizes, int np_min, int np_max,
                                           int np_site);

/// eq. 4 and Fig. 2: the smallest n with dur_new * S(np_ref) / S(n) <= dur_max, starting the
/// search at np_min and never above np_max or np_site. Amdahl is solved in closed form
/// (including seq = 0, and seq = 1 / the validity condition 1/(S(np_ref) seq) > dur_new/dur_max
/// as `infeasible`); Downey and table models by the iteration of Fig. 2.
/// Returns `infeasible` when no such n exists within the range.
result<int> adapt_np_min(const speedup_model& sp, int np_min, int np_max, int np_ref,
                         duration dur_new, duration dur_max, int np_site);

/// Sec. 3.2.1-3.2.2 for one site: scale the duration to the site's power, raise np_min when
/// that duration no longer fits the window (np_ref follows np_min then), cap np_max at the
/// site's CPUs, and apply eq. 5 to every reservable count in the range. `infeasible` when
/// the site cannot host the request at all, `invalid_processor_range` when it can reserve
/// no count in the range.
result<site_request> adapt_to_site(const elastic_request& req, const site_description& site);

}  // namespace arbroker
