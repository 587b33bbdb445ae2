#pragma once

#include <string>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/runtime_prediction.hpp"
#include "arbroker/core/speedup.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// An elastic reservation request (paper 000, Table 1): a window [est, let], a processor
/// range, and a duration given for a reference system (np_ref processors of power pp_ref).
/// The reference defaults to what a user means by "2 hours on 8 CPUs": np_ref = 0 stands for
/// np_min and pp_ref = 0 for the power of the cluster it is adapted to (no scaling), so a
/// request that names no reference gets dur_ref on np_min CPUs of every cluster.
struct elastic_request {
  std::string user;  ///< who asks (the paper's certificate proxy `ucp`)
  timestamp est = 0;
  timestamp let = 0;
  int np_min = 1;
  int np_max = 1;
  duration dur_ref = 0;
  double pp_ref = 0.0;  ///< 0: the power of the cluster it runs on
  int np_ref = 0;       ///< 0: np_min
  speedup_model sp = *speedup_model::amdahl(0.0);
  /// Paper 003 Sec. 3.2 (optional): with benchmarks, the run time on np_ref CPUs of a cluster
  /// comes from them instead of scaling dur_ref by pp_ref (runtime_on_site, site_runtime.hpp).
  runtime_hints hints;
};

/// One way to run a job on one site: np CPUs for dur seconds.
struct job_shape {
  int np = 0;
  duration dur = 0;

  friend bool operator==(const job_shape&, const job_shape&) = default;
};

/// Checks the request on its own (est < let, 1 <= np_min <= np_max, dur_ref > 0, pp_ref >= 0,
/// np_ref >= 0); the error names the first offending field.
status validate(const elastic_request& r);

/// The reference processor count the request's duration is for (np_ref, or np_min for 0).
int reference_np(const elastic_request& r);

/// Which processor counts a site can reserve: every multiple of `bunch` (1 = any count), or,
/// when `counts` is non-empty, exactly those counts.
struct reservable_sizes {
  int bunch = 1;
  std::vector<int> counts;
};

/// What the core needs to know of a site to adapt and probe a request.
struct site_description {
  std::string name;
  int cpus = 0;            ///< np_site
  double pp = 1.0;         ///< processor power, in the unit of the request's pp_ref
  reservable_sizes sizes;  ///< RNP
};

/// Checks a site description (cpus > 0, pp > 0, bunch >= 1, counts positive).
status validate(const site_description& s);

}  // namespace arbroker
