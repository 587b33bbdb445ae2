#include "arbroker/sim/arrivals.hpp"

#include <cmath>

#include "arbroker/core/number_text.hpp"

namespace arbroker::sim {

result<poisson_arrivals> poisson_arrivals::create(double mean_interarrival, std::uint64_t seed,
                                                  timestamp start) {
  if (!(std::isfinite(mean_interarrival) && mean_interarrival > 0)) {
    return fail(errc::invalid_parameter, "poisson arrivals: mean inter-arrival time " +
                                             detail::number_text(mean_interarrival) +
                                             " s must be finite and > 0");
  }
  return poisson_arrivals(mean_interarrival, seed, start);
}

timestamp poisson_arrivals::next() {
  clock_ += exponential(rng_, mean_);
  return static_cast<timestamp>(std::floor(clock_));
}

result<std::vector<timestamp>> poisson_arrival_times(double mean_interarrival, std::size_t n,
                                                     std::uint64_t seed, timestamp start) {
  auto arrivals = poisson_arrivals::create(mean_interarrival, seed, start);
  if (!arrivals) return std::move(arrivals).err();
  std::vector<timestamp> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(arrivals->next());
  return out;
}

void assign_submit_times(std::span<swf_job> jobs, poisson_arrivals& arrivals) {
  for (swf_job& job : jobs)
    job.submit_time = arrivals.next();
}

}  // namespace arbroker::sim
