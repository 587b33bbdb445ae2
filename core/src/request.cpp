#include "arbroker/core/request.hpp"

#include <cmath>

#include "arbroker/core/time_format.hpp"

namespace arbroker {

status validate(const elastic_request& r) {
  if (r.est >= r.let)
    return fail(errc::invalid_window, "earliest start " + format_time(r.est) +
                                          " must be before latest end " + format_time(r.let));
  if (r.np_min < 1)
    return fail(errc::invalid_processor_range,
                "np_min " + std::to_string(r.np_min) + " must be at least 1");
  if (r.np_min > r.np_max)
    return fail(errc::invalid_processor_range, "np_min " + std::to_string(r.np_min) +
                                                   " exceeds np_max " + std::to_string(r.np_max));
  if (r.np_ref < 0)
    return fail(errc::invalid_processor_range,
                "np_ref " + std::to_string(r.np_ref) + " must be at least 1 (or 0: np_min)");
  if (r.dur_ref <= 0)
    return fail(errc::invalid_duration,
                "reference duration " + std::to_string(r.dur_ref) + " s must be positive");
  if (!(r.pp_ref >= 0.0) || !std::isfinite(r.pp_ref))
    return fail(errc::invalid_parameter, "reference processor power " + std::to_string(r.pp_ref) +
                                             " must be positive (or 0: the cluster's)");
  return {};
}

int reference_np(const elastic_request& r) {
  return r.np_ref > 0 ? r.np_ref : r.np_min;
}

status validate(const site_description& s) {
  if (s.cpus < 1)
    return fail(errc::invalid_processor_range,
                "site '" + s.name + "' has " + std::to_string(s.cpus) + " CPUs; needs at least 1");
  if (!(s.pp > 0.0) || !std::isfinite(s.pp))
    return fail(errc::invalid_parameter, "site '" + s.name + "' processor power " +
                                             std::to_string(s.pp) + " must be positive");
  if (s.sizes.bunch < 1)
    return fail(errc::invalid_processor_range, "site '" + s.name + "' bunch size " +
                                                   std::to_string(s.sizes.bunch) +
                                                   " must be at least 1");
  for (int c : s.sizes.counts)
    if (c < 1)
      return fail(errc::invalid_processor_range, "site '" + s.name + "' reservable count " +
                                                     std::to_string(c) + " must be at least 1");
  return {};
}

}  // namespace arbroker
