#include "arbroker/messages/grid_job_protocol.hpp"

namespace arbroker::msg {

grid_job_info info_of(const grid_job& j) {
  grid_job_info out;
  out.id = j.id;
  out.owner = j.owner;
  out.name = j.spec.name;
  out.strategy = j.spec.strategy;
  out.state = j.state;
  out.np = j.spec.np;
  out.walltime = j.spec.walltime;
  out.submitted = j.submitted;
  out.started = j.started.value_or(-1);
  out.ended = j.ended.value_or(-1);
  out.winner = j.winner ? static_cast<std::int32_t>(*j.winner) : -1;
  out.migrations = j.migrations;
  out.duplicate_starts = j.duplicate_starts;
  out.migration_gain = j.migration_gain;
  for (const auto& c : j.copies)
    out.copies.push_back({c.cluster, c.lrms_id, c.state, c.submitted, c.started.value_or(-1),
                          c.ended.value_or(-1), c.reason, c.lost});
  for (const auto& e : j.history)
    out.history.push_back({e.at, e.copy, e.what});
  out.reservation = j.reservation;
  out.resubmits = j.resubmits;
  out.max_resubmits = j.spec.max_resubmits;
  out.retries = j.retries;
  out.retry_on_failure = j.spec.retry_on_failure;
  out.mem_per_cpu = j.spec.needs.mem_per_cpu;
  out.mem_per_node = j.spec.needs.mem_per_node;
  out.features = j.spec.needs.features;
  out.os = j.spec.needs.os;
  return out;
}

}  // namespace arbroker::msg
