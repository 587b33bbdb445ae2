// What a cluster service reports without changing anything: a reservation, a user's list,
// what a request would get (estimate), and the cluster's status for metrics and operators.

#include <algorithm>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/core/earliest_start.hpp"

namespace arbroker {

msg::query_reply cluster_service::query(const msg::query_request& req, timestamp now) {
  const auto* r = owned(req.reservation_id, req.user, now);
  if (!r) return {{}, missing(req.reservation_id)};
  return {info_of(*r), {}, r->jobs};  // with the jobs bound to it (commit, bind, coallocate)
}

msg::list_reply cluster_service::list(const msg::list_request& req, timestamp now) {
  sweep(now);
  msg::list_reply out;
  const auto who = caller_of(req.user);
  auto add = [&](const record& r) {
    if (!broker_scope::may_see(who, r.txn, r.owner)) return;
    ledger_.advance(r.serial, now);
    // Finished ones only when asked for (without a journal they are still here).
    if (is_terminal(r.life.state()) && !req.history) return;
    out.reservations.push_back(info_of(r));
  };
  if (!who.rest.empty()) {
    for (const auto n : ledger_.of_owner(std::string(who.rest)))
      add(*ledger_.find(n));
  } else if (req.history) {
    ledger_.for_each(add);
  } else {
    for (const auto n : std::vector(ledger_.live().begin(), ledger_.live().end()))
      add(*ledger_.find(n));
  }
  std::sort(out.reservations.begin(), out.reservations.end(), [](const auto& a, const auto& b) {
    return std::tie(a.start, a.id) < std::tie(b.start, b.id);
  });
  return out;
}

msg::estimate_reply cluster_service::estimate(const msg::estimate_request& req, timestamp now) {
  msg::estimate_reply out;
  out.cluster = name();
  if (req.np < 1) {
    out.error = msg::wire(errc::invalid_processor_range,
                          "a job needs at least one CPU, not " + std::to_string(req.np));
    return out;
  }
  if (req.walltime <= 0) {
    out.error = msg::wire(errc::invalid_duration,
                          "walltime " + std::to_string(req.walltime) + " s must be positive");
    return out;
  }
  if (req.np > cfg_.info.cpus) {  // never starts here: say why, not just "no start"
    out.error = msg::wire(errc::invalid_processor_range,
                          "cluster '" + name() + "' has " + std::to_string(cfg_.info.cpus) +
                              " CPUs; a job of " + std::to_string(req.np) + " never starts here");
    return out;
  }
  if (req.ready < 0 || req.deadline < 0) {
    out.error = msg::wire(errc::invalid_window, "ready and deadline must not be negative");
    return out;
  }
  // From the service's view of the LRMS (as fresh as a probe's: its jobs read every refresh),
  // not a listing of the whole LRMS per estimate.
  if (auto ok = refresh(now); !ok) {
    out.error = msg::to_wire(ok.err());
    return out;
  }
  const timestamp ready = std::max(now, req.ready);
  const timestamp deadline = req.deadline > 0 ? req.deadline : time_infinity;
  auto start = estimate_earliest_start(view_.capacity().workload(now), now, ready, req.walltime,
                                       req.np, ese_policy::local_jobs_preferred, deadline);
  if (start)
    out.start = *start;
  else if (start.err().code != errc::infeasible)
    out.error = msg::to_wire(start.err());
  else if (req.deadline > 0)
    out.error = msg::wire(errc::infeasible,
                          "cannot end by the deadline " + std::to_string(req.deadline) + " here");
  return out;
}

msg::cluster_status cluster_service::status_report(const msg::cluster_status_request&,
                                                   timestamp now) {
  sweep(now);
  msg::cluster_status out;
  out.cluster = name();
  out.now = now;
  out.cpus = cfg_.info.cpus;
  out.name_prefix = cfg_.name_prefix;
  if (auto ok = refresh(now); !ok) out.error = msg::to_wire(ok.err());
  if (auto snap = lrms_->snapshot()) {
    for (const auto& r : snap->reservations)
      out.lrms_reservations.push_back(
          {r.name, name(), r.owner, r.start, r.end, r.np, reservation_state::committed, 0, 0, 0});
    for (const auto& j : snap->running) {
      const timestamp started = j.started.value_or(now);
      // One bound to a reservation runs on its reservation's CPUs.
      (j.reservation ? out.lrms_running_bound : out.lrms_running)
          .push_back({j.id, name(), j.owner, started, started + j.walltime, j.np,
                      reservation_state::active, 0, 0, 0});
    }
    for (const auto& j : snap->queued) {
      out.lrms_queued.push_back(
          {j.id, name(), j.owner, -1, -1, j.np, reservation_state::accepted, 0, 0, 0});
      if (!j.approximation.empty()) out.approximated.push_back({j.id, j.owner, j.approximation});
    }
  }
  out.running_jobs = view_.running();
  out.queued_jobs = view_.queued();
  // What has finished holds nothing. (A copy: advancing may finish one.)
  for (const auto n : std::vector(ledger_.live().begin(), ledger_.live().end())) {
    ledger_.advance(n, now);
    const auto& r = *ledger_.find(n);
    if (!holds_capacity(r.life.state())) continue;
    if (r.life.state() == reservation_state::accepted)
      ++out.holds;
    else
      ++out.committed;
    if (r.life.state() == reservation_state::active) out.reserved_cpus += r.np;
    out.reservations.push_back(info_of(r));
  }
  out.holds_created = events_.holds_created;
  out.commits = events_.commits;
  out.aborts = events_.aborts;
  out.expiries = events_.expiries;
  out.cancels = events_.cancels;
  out.moves = events_.moves;
  out.overruns = events_.overruns;
  out.overruns_refused = events_.overruns_refused;
  out.undeleted = static_cast<std::int32_t>(undeleted_.size());
  return out;
}

}  // namespace arbroker
