#include "arbroker/actors/job_desk.hpp"

#include <algorithm>
#include <unordered_map>

#include "arbroker/actors/broker_scope.hpp"
#include "arbroker/core/earliest_start.hpp"

namespace arbroker {

observed_state observed(lrms_job_state s) {
  switch (s) {
    case lrms_job_state::queued:
      return observed_state::queued;
    case lrms_job_state::running:
      return observed_state::running;
    case lrms_job_state::completed:
      return observed_state::completed;
    case lrms_job_state::failed:
      return observed_state::failed;
    case lrms_job_state::cancelled:
      return observed_state::cancelled;
    case lrms_job_state::lost:
      return observed_state::lost;
  }
  return observed_state::failed;
}

msg::job_submit_reply job_desk::submit(const msg::job_submit_request& req) {
  msg::job_submit_reply out;
  out.cluster = s_.cluster;
  if (req.np < 1 || req.walltime <= 0) {
    out.error = msg::wire(errc::invalid_parameter, "a job needs np >= 1 and walltime > 0");
    return out;
  }
  if (req.np > s_.cpus) {
    out.error =
        msg::wire(errc::infeasible, "job of " + std::to_string(req.np) + " CPUs: " + s_.cluster +
                                        " has " + std::to_string(s_.cpus));
    return out;
  }
  job_spec spec{s_.name_prefix + req.name,
                req.user,
                req.np,
                req.walltime,
                std::nullopt,
                req.command,
                {},
                {req.mem_per_cpu, req.mem_per_node, req.features, {}},
                req.not_before};
  auto id = lrms_.submit_job(spec);
  if (!id) {
    out.error = msg::to_wire(id.err());
    return out;
  }
  out.lrms_id = std::move(*id);
  queue_changed_();  // the service reads the queue again before the next probe
  return out;
}

msg::job_states_reply job_desk::states(const msg::job_states_request& req) {
  msg::job_states_reply out;
  out.cluster = s_.cluster;
  auto snap = lrms_.jobs_snapshot();  // no reservations needed: spares qrstat, a Slurm RPC
  if (!snap) {
    out.error = msg::to_wire(snap.err());
    return out;
  }
  std::unordered_map<std::string_view, const lrms_job*> running, queued;
  for (const auto& j : snap->running)
    running.emplace(j.id, &j);
  for (const auto& j : snap->queued)
    queued.emplace(j.id, &j);
  out.jobs.reserve(req.lrms_ids.size());
  for (const auto& id : req.lrms_ids) {
    msg::job_state_report r;
    r.lrms_id = id;
    if (auto it = running.find(id); it != running.end()) {
      r.state = observed_state::running;
      r.started = it->second->started.value_or(snap->now);
    } else if (queued.contains(id)) {
      r.state = observed_state::queued;
    } else if (auto st = lrms_.job_status(id)) {
      // Left the queue since (or between snapshot and now): one call for this job alone.
      r.state = observed(*st);
      if (*st == lrms_job_state::running) r.started = snap->now;
    } else {
      r.error = msg::to_wire(st.err());
    }
    out.jobs.push_back(std::move(r));
  }
  return out;
}

msg::job_cancel_reply job_desk::cancel(const msg::job_cancel_request& req) {
  msg::job_cancel_reply out;
  // An agent's caller: "<broker>:<lrms id>".
  const auto who = broker_scope::caller_of(req.lrms_id, s_.scoped_callers);
  out.lrms_id = std::string(who.rest);
  auto st = lrms_.job_status(out.lrms_id);
  if (!st) {
    out.error = msg::to_wire(st.err());
    return out;
  }
  out.found = observed(*st);
  const bool live = *st == lrms_job_state::queued || *st == lrms_job_state::running;
  if (!live || (req.only_if_queued && *st == lrms_job_state::running)) return out;
  if (!who.broker.empty()) {
    // Another broker's job answers like a missing one (its name carries its broker).
    auto mine = submitted_by(out.lrms_id, who.broker);
    if (!mine) {
      out.error = msg::to_wire(mine.err());
      return out;
    }
    if (!*mine) {
      out.error = msg::wire(errc::not_found, "no job '" + out.lrms_id + "' on " + s_.cluster);
      return out;
    }
  }
  if (auto ok = lrms_.cancel_job(out.lrms_id); !ok) {
    out.error = msg::to_wire(ok.err());
    return out;
  }
  queue_changed_();
  return out;
}

result<bool> job_desk::submitted_by(const std::string& lrms_id, std::string_view broker) {
  auto snap = lrms_.jobs_snapshot();
  if (!snap) return snap.err();
  const std::string prefix = s_.name_prefix + broker_scope::job_name(broker, "");
  for (const auto* list : {&snap->running, &snap->queued})
    for (const auto& j : *list)
      if (j.id == lrms_id) return j.name.starts_with(prefix);
  return false;
}

msg::job_find_reply job_desk::find(const msg::job_find_request& req) {
  msg::job_find_reply out;
  auto snap = lrms_.jobs_snapshot();
  if (!snap) {
    out.error = msg::to_wire(snap.err());
    return out;
  }
  std::unordered_map<std::string, std::string_view> by_name;
  for (const auto* list : {&snap->running, &snap->queued})
    for (const auto& j : *list)
      if (!j.name.empty()) by_name.emplace(j.name, j.id);
  for (const auto& n : req.names) {
    auto it = by_name.find(s_.name_prefix + n);
    out.lrms_ids.push_back(it == by_name.end() ? std::string() : std::string(it->second));
  }
  return out;
}

msg::job_outlook_reply job_desk::outlook(const msg::job_outlook_request& req) {
  msg::job_outlook_reply out;
  out.cluster = s_.cluster;
  auto snap = lrms_.snapshot();
  if (!snap) {
    out.error = msg::to_wire(snap.err());
    return out;
  }
  out.now = snap->now;
  for (const auto* list : {&snap->running, &snap->queued})
    for (const auto& j : *list)
      if (!j.reservation) {
        out.busy_cores += j.np;
        out.longest_walltime = std::max<std::int64_t>(out.longest_walltime, j.walltime);
      }
  const auto w = to_workload(*snap);
  auto plan = plan_workload(w, snap->now, ese_policy::local_jobs_preferred);
  if (!plan) {
    out.error = msg::to_wire(plan.err());
    return out;
  }
  out.starts.reserve(req.shapes.size());
  for (const auto& s : req.shapes) {
    std::int64_t start = -1;
    if (s.np >= 1 && s.np <= s_.cpus && s.walltime > 0) {
      auto t = estimate_earliest_start(*plan, snap->now, snap->now, s.walltime, s.np);
      if (t) start = *t;
    }
    out.starts.push_back(start);
  }
  // Queued jobs in the plan are those without a reservation, in queue order.
  std::unordered_map<std::string_view, std::size_t> position;
  std::size_t k = 0;
  for (const auto& j : snap->queued)
    if (!j.reservation) position.emplace(j.id, k++);
  out.queued_starts.reserve(req.queued_ids.size());
  for (const auto& id : req.queued_ids) {
    auto it = position.find(id);
    const bool planned = it != position.end() && it->second < plan->queued_starts.size() &&
                         plan->queued_starts[it->second] < time_infinity;
    out.queued_starts.push_back(planned ? plan->queued_starts[it->second] : -1);
  }
  return out;
}

}  // namespace arbroker
