#include "arbroker/core/site_runtime.hpp"

#include <algorithm>
#include <cmath>

#include "arbroker/core/grid_placement.hpp"

namespace arbroker {

result<site_runtime> runtime_on_site(const elastic_request& req, const site_description& site,
                                     const cluster_benchmarks& published, double bandwidth,
                                     timestamp now) {
  site_runtime out{req, {}};
  delivery_terms& d = out.delivery;
  const runtime_hints& h = req.hints;
  if (!h.benchmarks.empty()) {
    auto p = predict_runtime(h.benchmarks, published, h.penalty);
    if (!p) return p.err();
    out.req.dur_ref = p->walltime;
    out.req.pp_ref = site.pp;  // the estimate is for this cluster already: no scaling
    d.execution_share = p->mean_seconds / p->max_seconds;
  }
  if (h.input_bytes < 0) return fail(errc::invalid_parameter, "input bytes must not be negative");
  if (h.output_bytes && *h.output_bytes < 0)
    return fail(errc::invalid_parameter, "output bytes must not be negative");
  d.stage_in = transfer_seconds(h.input_bytes, bandwidth);
  if (h.output_bytes) d.stage_out = transfer_seconds(*h.output_bytes, bandwidth);
  if (d.stage_in > 0) {
    const timestamp arrives = now > time_infinity - d.stage_in ? time_infinity : now + d.stage_in;
    if (arrives >= req.let)
      return fail(errc::infeasible, "the input (" + std::to_string(h.input_bytes) + " B) takes " +
                                        std::to_string(d.stage_in) +
                                        " s to stage in and arrives after the latest end");
    out.req.est = std::max(req.est, arrives);
  }
  return out;
}

ttd_components ttd_terms(const delivery_terms& d, timestamp now, timestamp start, timestamp end) {
  const auto reserved = static_cast<double>(std::max<duration>(end - start, 1));
  const auto execution =
      std::max<duration>(static_cast<duration>(std::ceil(reserved * d.execution_share)), 1);
  return {d.stage_in, std::max<duration>(start - now, 0), execution, d.stage_out};
}

}  // namespace arbroker
