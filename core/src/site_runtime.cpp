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
  if (h.input_bytes < 0) return fail(errc::invalid_parameter, "input bytes must not be negative");
  if (h.output_bytes && *h.output_bytes < 0)
    return fail(errc::invalid_parameter, "output bytes must not be negative");
  // The hints read as a grid job's are (grid_placement.hpp); dur_ref stands in for the
  // walltime, which only counts without benchmarks (and then the request is not changed).
  placement_inputs in{h};
  in.walltime = req.dur_ref;
  auto t = terms_on(in, published, bandwidth);
  if (!t) return t.err();
  if (!h.benchmarks.empty()) {
    out.req.dur_ref = t->walltime;  // the largest estimate
    out.req.pp_ref = site.pp;       // the estimate is for this cluster already: no scaling
    d.execution_share = static_cast<double>(t->execution) / static_cast<double>(t->walltime);
  }
  d.stage_in = t->stage_in;
  d.stage_out = t->stage_out;
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
