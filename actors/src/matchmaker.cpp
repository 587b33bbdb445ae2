#include "matchmaker.hpp"

#include <algorithm>

#include "arbroker/actors/fan_in.hpp"

namespace arbroker {

const cluster_service_actor& matchmaker_state::service_of(const match_job& j,
                                                          std::size_t site) const {
  return j.window.at(site).entry->service;
}

// -- the steps ---------------------------------------------------------------------------------

// The selection window (paper 002, Sec. 3.1): the clusters the GIS found that can host the
// request at all, in name order (the sequence FF and NF agree on), or at most
// cfg().selection_window of them from a start that moves on by one per request; their
// advisors are asked in parallel.
void matchmaker_state::start(const job_ptr& j, const std::vector<const directory_entry*>& found) {
  j->stats.clusters = static_cast<std::int32_t>(found.size());
  std::vector<const directory_entry*> clusters = found;
  const auto limit = static_cast<std::size_t>(std::max(0, cfg().selection_window));
  if (limit > 0 && clusters.size() > limit) {
    const std::size_t first = window_start_++ % clusters.size();
    std::rotate(clusters.begin(), clusters.begin() + static_cast<std::ptrdiff_t>(first),
                clusters.end());
    clusters.resize(limit);
    std::sort(clusters.begin(), clusters.end(),
              [](const auto* a, const auto* b) { return a->info.name < b->info.name; });
  }
  j->window = adapt_to_clusters(j, clusters);
  if (j->window.empty()) return;  // failed: no cluster fits
  j->advice.resize(j->window.size());
  const fan_in join(j->window.size(), [this, j] {
    guarded(j, [&] {
      if (!j->answered) decide(j);
    });
  });
  for (std::size_t i = 0; i < j->window.size(); ++i) {
    msg::advice_request ask{j->req.job.user, j->window[i].adapted, j->req.local_jobs_preferred,
                            j->req.admin};
    call<msg::advice_reply>(j->window[i].entry->service, std::move(ask),
                            [this, j, i, join](msg::advice_reply* r) {
                              guarded(j, [&] {
                                if (r) return on_advice(j, i, std::move(*r));
                                msg::advice_reply none;
                                none.error = service_gone();
                                on_advice(j, i, std::move(none));
                              });
                              join.arrived();
                            });
  }
}

void matchmaker_state::on_advice(const job_ptr& j, std::size_t i, msg::advice_reply r) {
  if (j->answered) return;
  if (!r.error.ok()) j->pass_over(j->window[i].entry->info.name, r.error);
  j->advice[i] = std::move(r);
}

// Every advisor answered: order the window by the policy.
void matchmaker_state::decide(const job_ptr& j) {
  // pp_ref 0: the run time is for each cluster's own CPUs, as if all were equally fast.
  const bool scaled = j->req.job.pp_ref > 0;
  const double pp_ref = scaled ? j->req.job.pp_ref : 1.0;
  std::vector<match_report> reports;
  for (std::size_t i = 0; i < j->window.size(); ++i) {
    const auto& info = j->window[i].entry->info;
    const auto& a = j->advice[i];
    match_report r;
    r.name = info.name;
    r.meets_qos = a.error.ok() && a.meets_qos;
    if (r.meets_qos) ++j->stats.candidates;
    r.completion = a.end;
    r.zeta = a.zeta;
    r.utilization = a.utilization;
    r.relative_speed = scaled ? info.pp / pp_ref : 1.0;
    // SED knows only the sum of the jobs' cores ({} when idle); W_max is the cluster's
    // published limit, else the longest walltime now in its queue.
    r.machine = {info.name,
                 {scaled ? info.pp : 1.0},
                 info.cpus,
                 msg::sed_max_walltime(info, a.longest_walltime),
                 a.busy_cores > 0 ? std::vector<int>{a.busy_cores} : std::vector<int>{},
                 0};
    // Paper 003 Sec. 3.2: the wait the advisor planned, the mean of the benchmark estimates,
    // and the staging (the slot already starts after the stage-in, so max(stage-in, wait) is
    // the wait here).
    r.ttd = ttd_terms(j->window[i].delivery, a.now, a.start, a.end);
    reports.push_back(std::move(r));
  }
  j->stats.above_threshold = j->stats.candidates;
  const sed_application app{pp_ref, j->req.job.dur_ref, {}};
  auto order = match_order(reports, *j->req.policy, app, next_fit_, rng_);
  if (!order) return fail(j, order.err().code, order.err().message + j->reasons);
  j->order = std::move(*order);
  if (j->req.mode == msg::request_mode::whatif) {
    msg::elastic_reply r;
    for (auto i : j->order) {
      const auto& a = j->advice[i];
      r.ranked.push_back({a.cluster, a.start, a.end, a.np, 0, 0, 0});
    }
    r.stats = j->stats;
    r.passed_over = by_cluster(std::move(j->passed_over));
    return answer(j, std::move(r));
  }
  try_next(j);
}

// Reserves at the next cluster of the policy's order until one accepts or all refused.
void matchmaker_state::try_next(const job_ptr& j) {
  if (j->answered) return;
  if (j->next >= j->order.size() || j->attempt.tries() >= cfg().max_tries)
    return fail(j, j->failure_code(errc::busy),
                "policy " + std::string(to_string(*j->req.policy)) + ": all " +
                    std::to_string(j->attempt.tries()) + " clusters tried refused the reservation" +
                    in_doubt_note(j->attempt));
  const std::size_t i = j->order[j->next++];
  const auto& a = j->advice[i];
  try_part(j, {i, a.cluster, a.start, a.end, a.np}, j->window[i].adapted);
}

}  // namespace arbroker
