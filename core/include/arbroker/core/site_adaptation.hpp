#pragma once

#include "arbroker/core/error.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/core/speedup.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// The request as it is sent in a probe to one site (paper 000, Sec. 3.2.1-3.2.2): the
/// duration scaled to the site's processor power and, when that duration no longer fits the
/// window, a raised lower end of the processor range (np_ref follows np_min then).
struct site_request {
  int np_min = 1;
  int np_max = 1;
  int np_ref = 1;
  duration dur_ref = 0;  ///< duration on np_ref of the site's processors
  duration dur_max = 0;  ///< let - est
};

/// eq. 4 and Fig. 2: the smallest n with dur_new * S(np_ref) / S(n) <= dur_max, starting the
/// search at np_min and never above np_max or np_site. Amdahl is solved in closed form
/// (including seq = 0, and seq = 1 / the validity condition 1/(S(np_ref) seq) > dur_new/dur_max
/// as `infeasible`); Downey and table models by the iteration of Fig. 2.
/// Returns `infeasible` when no such n exists within the range.
result<int> adapt_np_min(const speedup_model& sp, int np_min, int np_max, int np_ref,
                         duration dur_new, duration dur_max, int np_site);

/// Sec. 3.2.1-3.2.2 for one site: scale the duration, adapt np_min when needed, and cap
/// np_max at the site's CPUs. `infeasible` when the site cannot host the request at all.
result<site_request> adapt_to_site(const elastic_request& req, const site_description& site);

}  // namespace arbroker
