#include "grid_job_terms.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <vector>

#include "arbroker/messages/runtime_hints.hpp"

namespace arbroker {

std::uint64_t serial_in(const std::string& id) {
  const auto at = id.rfind("/g");
  if (at == std::string::npos || at + 2 >= id.size()) return 0;
  std::uint64_t n = 0;
  for (std::size_t i = at + 2; i < id.size(); ++i) {
    if (id[i] < '0' || id[i] > '9' || n > (UINT64_MAX - 9) / 10) return 0;
    n = n * 10 + static_cast<std::uint64_t>(id[i] - '0');
  }
  return n;
}

msg::gis_query eligibility(const msg::grid_submit_request& r, const std::string& owner) {
  msg::gis_query q;
  q.user = owner;
  q.np_min = r.np;
  q.clusters = r.clusters;
  q.os = r.os;
  q.features = r.features;
  q.mem_per_cpu = r.mem_per_cpu;
  q.mem_per_node = r.mem_per_node;
  q.every_node = r.strategy == grid_strategy::reserve;  // the LRMS picks its CPUs by count
  return q;
}

result<placement_inputs> inputs_of(const msg::grid_submit_request& r) {
  std::vector<msg::input_file> anywhere;  // locality off: the inputs held nowhere in particular
  if (!r.locality)
    std::copy_if(r.inputs.begin(), r.inputs.end(), std::back_inserter(anywhere),
                 [](const auto& f) { return !msg::held_at_cluster(f.location); });
  auto hints =
      msg::hints_of(r.benchmarks, r.penalty, r.locality ? r.inputs : anywhere, r.output_bytes);
  if (!hints) return hints.err();
  placement_inputs in{std::move(*hints)};
  in.walltime = r.walltime;
  in.pp_ref = r.pp_ref;
  return in;
}

result<placement_terms> terms_for(const placement_inputs& in, const directory_entry& c) {
  return terms_on(in, c.benchmarks, c.info.bandwidth, c.info.pp);
}

grid_job_spec spec_of(const msg::grid_submit_request& r, duration walltime) {
  return {r.name,
          r.command,
          r.np,
          walltime,
          r.strategy,
          r.width,
          r.min_gain,
          r.max_migrations,
          r.max_resubmits,
          r.retry_on_failure,
          msg::needs_of(r)};
}

status check_request(const msg::grid_submit_request& r) {
  grid_job_spec spec{r.name,
                     r.command,
                     r.np,
                     r.walltime > 0 ? r.walltime : 1,
                     r.strategy,
                     r.width,
                     std::max<std::int64_t>(r.min_gain, 0),
                     std::max(r.max_migrations, -1),
                     std::max(r.max_resubmits, 0),
                     r.retry_on_failure,
                     msg::needs_of(r)};
  if (auto ok = check(spec); !ok) return ok;
  if (r.walltime < 0 || (r.walltime == 0 && r.benchmarks.empty()))
    return fail(errc::invalid_duration, "walltime: give a positive walltime or benchmarks");
  if (r.min_gain < -1) return fail(errc::invalid_duration, "min_gain: must be >= 0");
  if (r.max_migrations < -2) return fail(errc::invalid_parameter, "max_migrations: below -1");
  if (r.max_resubmits < -1)
    return fail(errc::invalid_parameter, "max_resubmits: below 0 (-1: the node's default)");
  return {};
}

}  // namespace arbroker
