#pragma once

// Turning rigid jobs into elastic reservation requests (paper 000, Sec. 4): the job's
// submit time plus a book-ahead time is the earliest start, its run time plus a time range
// gives the latest end, and two factors widen its processor count into a range.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/core/time.hpp"
#include "arbroker/sim/swf.hpp"

namespace arbroker::sim {

/// Paper 000 used book_ahead in {0, 2, 4, 6, 12, 24} h, time_range = k h with
/// k in {0, 1, 2, 5, 10, 30}, and the factor pairs <1, 1> and <0.5, 2>.
struct elastic_transform {
  duration book_ahead = 0;     ///< est = submit + book_ahead
  duration time_range = 0;     ///< let = est + run time + time_range
  double np_min_factor = 1.0;  ///< np_min = max(1, ceil(procs * np_min_factor))
  double np_max_factor = 1.0;  ///< np_max = floor(procs * np_max_factor)

  friend bool operator==(const elastic_transform&, const elastic_transform&) = default;
};

/// book_ahead >= 0, time_range >= 0 (errc::invalid_duration); 0 < np_min_factor <=
/// np_max_factor, both finite (errc::invalid_processor_range).
status validate(const elastic_transform& t);

/// A job turned into an elastic reservation request.
struct elastic_job {
  std::int64_t job_id = 0;
  std::int64_t user_id = swf_unknown;
  timestamp submit = 0;   ///< when the request is made (the job's submit time)
  timestamp est = 0;      ///< earliest start
  timestamp let = 0;      ///< latest end
  duration run_time = 0;  ///< the duration to reserve (the job's actual run time)
  int procs = 0;          ///< the job's processor count, procs(job)
  int np_min = 0;
  int np_max = 0;

  friend bool operator==(const elastic_job&, const elastic_job&) = default;
};

/// Applies `t` to `job`. The products procs * factor are rounded with a tolerance of 1e-9 so
/// that e.g. 10 * 0.3 gives 3, not 4. When `max_procs` > 0, np_max (and np_min) are capped
/// at it. Errors: the job's run time is not > 0 (errc::invalid_duration); procs(job) is not
/// > 0 or does not fit an int, or the rounded range is empty, e.g. procs 1 with factors
/// <1.2, 1.5> (errc::invalid_processor_range); `t` is invalid.
result<elastic_job> make_elastic(const swf_job& job, const elastic_transform& t, int max_procs = 0);

/// The core's request for an elastic job: window [est, let], range [np_min, np_max], the run
/// time as dur_ref for np_ref = procs processors of power pp_ref = 1 (so that a site of
/// power 1 running it on `procs` processors takes exactly the original run time), and the
/// given speedup model.
elastic_request to_request(const elastic_job& job, std::string user,
                           speedup_model sp = *speedup_model::amdahl(0.0));

/// Paper 000's choice of the jobs to turn into reservations: split indices 0..n-1 into
/// consecutive groups of `group_size` (keeping their order) and pick one index uniformly at
/// random in each, seeded. A last, shorter group (when group_size does not divide n) gets a
/// pick too. The result is ascending. errc::invalid_parameter if group_size is 0.
result<std::vector<std::size_t>> pick_one_per_group(std::size_t n, std::size_t group_size,
                                                    std::uint64_t seed);

}  // namespace arbroker::sim
