#include "arbroker/sim/elastic.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "arbroker/core/number_text.hpp"
#include "arbroker/sim/random_variates.hpp"

namespace arbroker::sim {

status validate(const elastic_transform& t) {
  if (t.book_ahead < 0) {
    return fail(errc::invalid_duration, "elastic transform: book-ahead time " +
                                            std::to_string(t.book_ahead) + " s must be >= 0");
  }
  if (t.time_range < 0) {
    return fail(errc::invalid_duration, "elastic transform: time range " +
                                            std::to_string(t.time_range) + " s must be >= 0");
  }
  if (!(std::isfinite(t.np_min_factor) && std::isfinite(t.np_max_factor) && t.np_min_factor > 0 &&
        t.np_min_factor <= t.np_max_factor)) {
    return fail(errc::invalid_processor_range, "elastic transform: processor range factors <" +
                                                   detail::number_text(t.np_min_factor) + ", " +
                                                   detail::number_text(t.np_max_factor) +
                                                   "> must be finite with 0 < min <= max");
  }
  return {};
}

result<elastic_job> make_elastic(const swf_job& job, const elastic_transform& t, int max_procs) {
  if (auto s = validate(t); !s) return s.err();
  if (job.run_time <= 0) {
    return fail(errc::invalid_duration, "job " + std::to_string(job.job_id) + ": run time " +
                                            std::to_string(job.run_time) + " s must be > 0");
  }
  const std::int64_t np = procs(job);
  if (np <= 0 || np > std::numeric_limits<int>::max()) {
    return fail(errc::invalid_processor_range, "job " + std::to_string(job.job_id) +
                                                   ": processor count " + std::to_string(np) +
                                                   " must be > 0 and fit an int");
  }
  // A tolerance keeps exact products exact despite binary fractions (10 * 0.3 = 3.0000000004).
  constexpr double slack = 1e-9;
  const double lo = static_cast<double>(np) * t.np_min_factor;
  const double hi = static_cast<double>(np) * t.np_max_factor;
  const double cap =
      max_procs > 0 ? max_procs : static_cast<double>(std::numeric_limits<int>::max());
  const double np_min = std::min(std::max(1.0, std::ceil(lo - slack)), cap);
  const double np_max = std::min(std::floor(hi + slack), cap);
  if (np_max < np_min) {
    return fail(errc::invalid_processor_range,
                "job " + std::to_string(job.job_id) + ": factors <" +
                    detail::number_text(t.np_min_factor) + ", " +
                    detail::number_text(t.np_max_factor) + "> of " + std::to_string(np) +
                    " processors leave no whole processor count (min " +
                    detail::number_text(np_min) + " > max " + detail::number_text(np_max) + ")");
  }
  elastic_job e;
  e.job_id = job.job_id;
  e.user_id = job.user_id;
  e.submit = job.submit_time;
  e.est = job.submit_time + t.book_ahead;
  e.let = e.est + job.run_time + t.time_range;
  e.run_time = job.run_time;
  e.procs = static_cast<int>(np);
  e.np_min = static_cast<int>(np_min);
  e.np_max = static_cast<int>(np_max);
  return e;
}

elastic_request to_request(const elastic_job& job, std::string user, speedup_model sp) {
  elastic_request r;
  r.user = std::move(user);
  r.est = job.est;
  r.let = job.let;
  r.np_min = job.np_min;
  r.np_max = job.np_max;
  r.dur_ref = job.run_time;
  r.pp_ref = 1.0;
  r.np_ref = job.procs;
  r.sp = std::move(sp);
  return r;
}

result<std::vector<std::size_t>> pick_one_per_group(std::size_t n, std::size_t group_size,
                                                    std::uint64_t seed) {
  if (group_size == 0) {
    return fail(errc::invalid_parameter, "pick one per group: group size must be >= 1, not 0");
  }
  rng_engine rng(seed);
  std::vector<std::size_t> picks;
  picks.reserve(n / group_size + 1);
  for (std::size_t first = 0; first < n; first += group_size) {
    const std::size_t size = std::min(group_size, n - first);
    picks.push_back(first + static_cast<std::size_t>(uniform_index(rng, size)));
  }
  return picks;
}

}  // namespace arbroker::sim
