#pragma once

#include <cstddef>
#include <limits>
#include <map>
#include <vector>

#include "arbroker/core/availability_profile.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"

namespace arbroker {

/// The reference implementation of availability_profile: the same API and semantics, with
/// the change points kept in a std::map<timestamp, delta> and every query answered by
/// scanning the change points linearly from the first one (O(n) each). Meant for tests and
/// benchmarks, not for production use. See availability_profile for the contract.
class linear_profile {
 public:
  static result<linear_profile> create(int total_cpus);

  int total() const noexcept { return total_; }
  status add(timestamp start, timestamp end, int np);
  status remove(timestamp start, timestamp end, int np);
  int free_at(timestamp t) const;
  result<int> min_free(timestamp a, timestamp b) const;
  result<timestamp> earliest_start(timestamp t0, duration dur, int np,
                                   timestamp deadline = time_infinity) const;
  result<std::vector<start_interval>> feasible_starts(timestamp from, timestamp latest_start,
                                                      duration dur, int np) const;
  std::size_t change_points() const noexcept { return deltas_.size(); }
  void advance_origin(timestamp t);
  timestamp origin() const noexcept { return origin_; }

 private:
  struct extremes {
    int min_used;
    int max_used;
  };

  explicit linear_profile(int total_cpus) : total_(total_cpus) {}
  extremes used_over(timestamp a, timestamp b) const;
  void bump(timestamp key, int delta);

  int total_;
  timestamp origin_ = std::numeric_limits<timestamp>::min();
  int base_ = 0;                     // used CPUs at the origin (see advance_origin)
  std::map<timestamp, int> deltas_;  // change of used CPUs at each change point; never 0
};

}  // namespace arbroker
