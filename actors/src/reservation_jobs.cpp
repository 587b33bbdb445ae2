// Jobs bound to reservations: a client's bind, its commit with jobs (paper 001, Sec. 2.3:
// all or nothing), and what the jobs do to the reservation (paper 003, Sec. 3.1). Under the site's
// job_end_policy::release a reservation ends, and its CPUs go back, once every job bound
// to it has ended ("allowing the user to run only the requested job"); under keep it lasts
// its term and takes more jobs. The service learns that jobs ended from one LRMS snapshot
// per refresh interval while any such reservation is watched, driven by the actor's timer
// (next_expiry), not by a call per job.

#include "arbroker/actors/cluster_service.hpp"

#include <algorithm>

#include "arbroker/actors/job_desk.hpp"

namespace arbroker {

// A job that may run in `r`: no more CPUs than it holds, a positive walltime ("" if so).
msg::wire_error cluster_service::unfit_job(const record& r, const std::string& which, int np,
                                           duration walltime) const {
  if (np < 1 || np > r.np)
    return msg::wire(
        errc::invalid_processor_range,
        which + " of " + std::to_string(np) + " CPUs in a reservation of " + std::to_string(r.np));
  if (walltime <= 0)
    return msg::wire(errc::invalid_duration,
                     which + ": walltime " + std::to_string(walltime) + " s must be positive");
  return {};
}

// Into the LRMS reservation, under the reservation's owner and account, named as every job the
// service submits (name_prefix + name: found again by it after a crash; at an agent the name
// carries the calling broker, whose cancel submitted_by then recognizes).
result<std::string> cluster_service::submit_bound(const record& r, const msg::job_terms& j) {
  return lrms_->submit_job({cfg_.name_prefix + j.name,
                            r.owner,
                            j.np,
                            j.walltime,
                            r.lrms_id,
                            j.command,
                            r.account,
                            {j.mem_per_cpu, j.mem_per_node, j.features, {}}});
}

msg::bind_job_reply cluster_service::bind_job(const msg::bind_job_request& req, timestamp now) {
  auto* r = owned(req.reservation_id, req.user, now);
  if (!r) return {{}, missing(req.reservation_id)};
  if (r->life.state() != reservation_state::committed &&
      r->life.state() != reservation_state::active)
    return {{}, illegal(*r, "jobs bind to committed reservations")};
  if (auto e = unfit_job(*r, "job", req.np, req.walltime); !e.ok()) return {{}, e};
  auto job = submit_bound(*r, {req.name, req.np, req.walltime, req.command, req.mem_per_cpu,
                               req.mem_per_node, req.features});
  if (!job) return {{}, msg::to_wire(job.err())};
  note_bound_jobs(*r, {*job}, now);
  return {*job, {}};
}

msg::bound_job_reply cluster_service::bound_job_state(const record& r, const std::string& job_id) {
  msg::bound_job_reply out;
  out.job.id = job_id;
  out.job.reservation_id = r.id;
  const bool listed = std::find(r.jobs.begin(), r.jobs.end(), job_id) != r.jobs.end();
  auto snap = lrms_->jobs_snapshot();
  if (!snap) {
    out.error = msg::to_wire(snap.err());
    return out;
  }
  for (const auto* jobs : {&snap->running, &snap->queued})
    for (const auto& j : *jobs) {
      if (j.id != job_id) continue;
      if (!listed && j.reservation != r.lrms_id) break;  // the LRMS's, not this reservation's
      out.job.name =
          j.name.starts_with(cfg_.name_prefix) ? j.name.substr(cfg_.name_prefix.size()) : j.name;
      out.job.np = j.np;
      out.job.walltime = j.walltime;
      out.job.state = j.started ? observed_state::running : observed_state::queued;
      out.job.started = j.started.value_or(-1);
      return out;
    }
  if (listed) {
    if (auto st = lrms_->job_status(job_id)) {
      out.job.state = observed(*st);
      return out;
    }
  }
  out.error = msg::wire(errc::not_found,
                        "no job '" + job_id + "' in reservation '" + r.id + "'" +
                            (listed ? "" : " (a job that ended is known only until a restart)"));
  return out;
}

msg::bound_job_reply cluster_service::bound_job(const msg::bound_job_query_request& req,
                                                timestamp now) {
  const auto* r = owned(req.reservation_id, req.user, now);
  if (!r) return {{}, missing(req.reservation_id)};
  return bound_job_state(*r, req.job_id);
}

msg::bound_job_reply cluster_service::cancel_bound_job(const msg::bound_job_cancel_request& req,
                                                       timestamp now) {
  const auto* r = owned(req.reservation_id, req.user, now);
  if (!r) return {{}, missing(req.reservation_id)};
  auto out = bound_job_state(*r, req.job_id);
  if (!out.error.ok()) return out;
  if (out.job.state != observed_state::queued && out.job.state != observed_state::running)
    return out;  // ended already: nothing to cancel
  if (auto ok = lrms_->cancel_job(req.job_id); !ok) {
    out.error = msg::to_wire(ok.err());
    return out;
  }
  out.job.state = observed_state::cancelled;  // the LRMS took the cancel
  view_.jobs_changed();                       // its CPUs are free in the reservation
  return out;
}

msg::ack_reply cluster_service::unbind_jobs(const msg::unbind_jobs_request& req, timestamp now) {
  auto* r = owned(req.reservation_id, req.user, now);
  if (!r) return {missing(req.reservation_id)};
  msg::ack_reply out;
  for (const auto& id : req.jobs) {
    if (!ledger_.remove_job(r->serial, id)) continue;  // not its job: nothing to undo
    if (auto ok = lrms_->cancel_job(id); !ok && out.error.ok()) out.error = msg::to_wire(ok.err());
  }
  if (r->jobs.empty()) job_ends_.forget(r->serial);  // after_jobs = release: nothing ran here
  view_.jobs_changed();
  return out;
}

msg::query_reply cluster_service::commit(const msg::commit_request& req, timestamp now) {
  auto* r = owned(req.reservation_id, req.user, now);
  if (!r) return {{}, missing(req.reservation_id)};
  const auto state = r->life.state();
  if (req.jobs.empty()) {
    // A client's second commit changed nothing, and says so (2PC's commit_txn stays
    // idempotent: it goes through confirm alone).
    if (state == reservation_state::committed || state == reservation_state::active)
      return {info_of(*r), illegal(*r, "committed already, nothing to commit")};
    auto confirmed = confirm(*r, now);  // before info_of: the reply shows it committed
    return {info_of(*r), confirmed.error};
  }
  if (state != reservation_state::accepted && state != reservation_state::committed &&
      state != reservation_state::active)
    return {info_of(*r), illegal(*r, "cannot commit")};
  auto which = [&](std::size_t i) {
    return "job " + std::to_string(i) + " ('" + req.jobs[i].name + "')";
  };
  // Every job checked before any is submitted.
  for (std::size_t i = 0; i < req.jobs.size(); ++i)
    if (auto e = unfit_job(*r, which(i), req.jobs[i].np, req.jobs[i].walltime); !e.ok())
      return {info_of(*r), e};
  msg::query_reply out;
  auto undo = [&] {
    for (const auto& id : out.jobs)
      (void)lrms_->cancel_job(id);
    out.jobs.clear();
  };
  for (std::size_t i = 0; i < req.jobs.size(); ++i) {
    auto id = submit_bound(*r, req.jobs[i]);
    if (!id) {
      undo();
      out.info = info_of(*r);
      out.error = msg::wire(id.err().code, which(i) +
                                               " was not submitted, so none is and the "
                                               "reservation is not committed: " +
                                               id.err().message);
      return out;
    }
    out.jobs.push_back(std::move(*id));
  }
  out.error = confirm(*r, now).error;
  if (out.error.ok())
    note_bound_jobs(*r, out.jobs, now);
  else
    undo();
  out.info = info_of(*r);
  return out;
}

void cluster_service::note_bound_jobs(const record& r, const std::vector<std::string>& ids,
                                      timestamp now) {
  ledger_.add_jobs(r.serial, ids);
  if (cfg_.after_jobs != job_end_policy::release || ids.empty()) return;
  job_ends_.watch(r.serial, now);
}

void cluster_service::release_after_jobs(timestamp now) {
  if (!job_ends_.due(now)) return;
  auto snap = lrms_->snapshot();
  if (!snap) {
    job_ends_.looked(now);  // the LRMS did not answer: look again later
    return;
  }
  const auto done = job_ends_.look(
      *snap,
      [&](std::uint64_t n) -> const std::vector<std::string>* {
        const record* r = ledger_.find(n);
        if (!r) return nullptr;
        ledger_.advance(n, now);
        return is_terminal(r->life.state()) ? nullptr : &r->jobs;
      },
      now);
  for (const auto n : done)  // their jobs are done
    if (const record* r = ledger_.find(n)) (void)withdraw(*r, now);
}

}  // namespace arbroker
