#include "arbroker/core/grid_placement.hpp"

#include <algorithm>
#include <cmath>

#include "arbroker/core/expected_delay.hpp"

namespace arbroker {

duration transfer_seconds(std::int64_t bytes, double bytes_per_second) {
  if (bytes <= 0 || !(bytes_per_second > 0)) return 0;
  const double s = std::ceil(static_cast<double>(bytes) / bytes_per_second);
  return s >= static_cast<double>(time_infinity) ? time_infinity - 1 : static_cast<duration>(s);
}

result<placement_terms> terms_on(const placement_inputs& job, const cluster_benchmarks& benchmarks,
                                 double bandwidth, double pp) {
  placement_terms t;
  if (job.benchmarks.empty()) {
    if (job.walltime <= 0)
      return fail(errc::invalid_duration, "a job needs a walltime or benchmarks");
    t.execution = t.walltime = job.walltime;
    if (job.pp_ref > 0) {
      const double rates[] = {pp};
      auto alpha = speed_factor(job.pp_ref, rates);  // eq. 2
      if (!alpha) return alpha.err();
      const double run = std::ceil(static_cast<double>(job.walltime) * *alpha);  // eq. 3
      if (!(run < static_cast<double>(time_infinity)))
        return fail(errc::invalid_duration,
                    "the walltime scaled to this cluster's power is too long");
      t.execution = t.walltime = std::max<duration>(1, static_cast<duration>(run));
    }
  } else {
    auto p = predict_runtime(job.benchmarks, benchmarks, job.penalty);
    if (!p) return p.err();
    t.execution = p->execution;
    t.walltime = p->walltime;
  }
  t.stage_in = transfer_seconds(job.input_bytes_to(benchmarks.name), bandwidth);
  if (job.output_bytes) t.stage_out = transfer_seconds(*job.output_bytes, bandwidth);
  return t;
}

result<duration> ttd_at(const placement_terms& t, timestamp now, timestamp start) {
  return total_time_to_delivery(
      {t.stage_in, std::max<duration>(start - now, 0), t.execution, t.stage_out});
}

}  // namespace arbroker
