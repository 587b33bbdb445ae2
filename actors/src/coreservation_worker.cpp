#include "coreservation_worker.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "arbroker/core/preference.hpp"
#include "arbroker/core/site_adaptation.hpp"

namespace arbroker {
namespace {

using option = coreservation_job::option;

// Chooses, for common start t, one option per component, in the order plan() sorted them
// (the most CPUs, then the cheapest). `cpus_left` starts as each probed cluster's size:
// with `share` several components may go to one cluster as long as their CPUs add up to
// no more than it has (whether they fit together then is its prepare's to say); without,
// each cluster takes at most one. Backtracking over k components.
bool assign(const std::vector<std::vector<option>>& opts, timestamp t, std::size_t i, bool share,
            std::vector<int>& cpus_left, std::vector<bool>& used, std::vector<const option*>& out) {
  if (i == opts.size()) return true;
  for (const auto& o : opts[i]) {
    if (t < o.first || t > o.last || cpus_left[o.site] < o.np || (!share && used[o.site])) continue;
    const bool was_used = used[o.site];
    cpus_left[o.site] -= o.np;
    used[o.site] = true;
    out.push_back(&o);
    if (assign(opts, t, i + 1, share, cpus_left, used, out)) return true;
    out.pop_back();
    used[o.site] = was_used;
    cpus_left[o.site] += o.np;
  }
  return false;
}

// A placement of every component at common start t, and its price.
struct placed {
  placement parts;
  /// The sum of each chosen window's price of a second at its first start times the part's
  /// length: exact without day rates, an estimate across them (prepare answers the real
  /// cost).
  double cost = 0;
};

// On distinct clusters if there is a way, else with several components on one cluster
// where its CPUs allow.
std::optional<placed> place_at(const coreservation_job& j, timestamp t) {
  std::vector<int> sizes;
  for (const auto* s : j.sites)
    sizes.push_back(s->info.cpus);
  for (const bool share : {false, true}) {
    std::vector<int> cpus_left = sizes;
    std::vector<bool> used(sizes.size(), false);
    std::vector<const option*> chosen;
    if (!assign(j.options, t, 0, share, cpus_left, used, chosen)) continue;
    placed out;
    for (const auto* o : chosen) {
      out.parts.push_back({o->site, {}, t + o->offset, t + o->offset + o->length, o->np});
      out.cost += o->per_second * static_cast<double>(o->length);
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace

// -- the coordinator base's hooks ------------------------------------------------------------

coreservation_worker_state::job_ptr coreservation_worker_state::make_job(
    msg::request_no no, const msg::checked_coreservation_request& req) const {
  return std::make_shared<coreservation_job>(
      no, terms_for(no, req.user, false, 0, req.local_jobs_preferred, req.admin, req.account,
                    req.est, req.let));
}

// A granted try is the co-reservation; a refused one moves the common start past what the
// refusals said is busy.
void coreservation_worker_state::settle(const job_ptr& j) {
  const auto& attempt = j->attempt;
  if (attempt.current() == reservation_attempt::phase::granted) {
    msg::coreservation_reply r;
    r.txn = attempt.txn();
    r.attempts = attempt.tries();
    for (std::size_t i = 0; i < attempt.parts().size(); ++i)
      r.parts.push_back(attempt.reservation_of(i));
    return answer(j, std::move(r));
  }
  if (attempt.current() != reservation_attempt::phase::idle) return;
  const auto& parts = attempt.parts();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& refused = parts[i].prepared;
    if (refused.error.ok() || refused.busy_until < 0) continue;
    j->note_alternative(refused.busy_until);
    // Part i starts at T + offset_i and cannot start before busy_until.
    j->skip_until = std::max(j->skip_until, refused.busy_until - j->req.components[i].offset);
  }
  if (!attempt.failure().empty()) j->reasons = "; " + attempt.failure();
  // The earliest start the refusals leave is tried next, if the windows allow it there and
  // it is not among the starts already (paper 001's busy-time hint, used).
  const timestamp t = j->skip_until;
  const bool known =
      std::any_of(j->starts.begin(), j->starts.end(), [t](const auto& s) { return s.first == t; });
  if (t > 0 && !known)
    if (auto p = place_at(*j, t))
      j->starts.insert(j->starts.begin() + static_cast<std::ptrdiff_t>(j->next_start),
                       {t, std::move(p->parts)});
  next_attempt(j);
}

msg::coreservation_reply coreservation_worker_state::failure(const coreservation_job& j, errc code,
                                                             std::string message) const {
  auto r = msg::error_reply<msg::coreservation_reply>(code, std::move(message));
  r.attempts = j.attempt.tries();
  r.earliest_alternative = j.earliest_alternative;
  return r;
}

const cluster_service_actor& coreservation_worker_state::service_of(const coreservation_job& j,
                                                                    std::size_t site) const {
  return j.sites.at(site)->service;
}

// -- the steps ---------------------------------------------------------------------------------

// One message per cluster with the probes of every component that may go there: their
// windows of feasible common starts.
void coreservation_worker_state::start(const job_ptr& j,
                                       const std::vector<const directory_entry*>& clusters) {
  j->options.assign(j->req.components.size(), {});
  for (const auto* c : clusters) {
    msg::probe_batch_request batch;
    std::vector<std::size_t> parts;  // the component of each probe in the batch
    for (std::size_t i = 0; i < j->req.components.size(); ++i) {
      const auto& comp = j->req.components[i];
      if (!comp.clusters.empty() && std::find(comp.clusters.begin(), comp.clusters.end(),
                                              c->info.name) == comp.clusters.end())
        continue;
      auto adapted = adapt_to_site(comp.job, c->site);
      if (!adapted) continue;
      msg::probe_request p;
      p.user = j->req.user;
      p.site = std::move(*adapted);
      p.slotting = {1, j->req.slotting.tss_gap};  // only the windows matter here
      p.want_cost = false;
      p.want_windows = true;
      // Paper 000's filter on every part: the windows keep only starts that pass it.
      p.esr = j->req.esr;
      p.esr_threshold =
          j->req.esr_threshold >= 0 ? j->req.esr_threshold : cfg().default_esr_threshold;
      p.want_esr = p.esr_threshold >= 0;
      p.local_jobs_preferred = j->req.local_jobs_preferred;
      p.admin = j->req.admin;
      batch.probes.push_back(std::move(p));
      parts.push_back(i);
    }
    if (parts.empty()) continue;
    const std::size_t site = j->sites.size();
    j->sites.push_back(c);
    j->probes_pending += static_cast<int>(parts.size());
    call_probes(
        c->service, c->info.name, std::move(batch),
        [this, j, parts = std::move(parts), site](std::size_t k, const msg::probe_reply& r) {
          guarded(j, [&] {
            if (!j->answered) on_probe(j, parts[k], site, r);
          });
        });
  }
  if (j->probes_pending == 0) fail(j, errc::infeasible, "no cluster can host any component");
}

void coreservation_worker_state::on_probe(const job_ptr& j, std::size_t component, std::size_t site,
                                          const msg::probe_reply& r) {
  if (r.error.ok()) {
    const duration offset = j->req.components[component].offset;
    for (const auto& w : r.windows)
      j->options[component].push_back(
          {site, w.np, w.length, offset, w.first - offset, w.last - offset, w.cost_per_second});
  } else {
    j->reasons += "; " + r.cluster + ": " + r.error.message;
    j->note_probe_error(r.error);
  }
  if (--j->probes_pending == 0) plan(j);
}

// The common start times to try (up to tsn_max per window of a component, tss_gap apart),
// each with its placement, best first by the request's preferences.
void coreservation_worker_state::plan(const job_ptr& j) {
  std::set<timestamp> starts;
  for (std::size_t i = 0; i < j->options.size(); ++i) {
    auto& opts = j->options[i];
    if (opts.empty())
      return fail(j, j->failure_code(errc::infeasible),
                  "component " + std::to_string(i) + " fits on no cluster" + j->reasons);
    // The most CPUs (the shortest run) first, then the cheapest, then the earliest.
    std::sort(opts.begin(), opts.end(), [&](const option& a, const option& b) {
      const auto& na = j->sites[a.site]->info.name;
      const auto& nb = j->sites[b.site]->info.name;
      const double pa = a.per_second * static_cast<double>(a.length);
      const double pb = b.per_second * static_cast<double>(b.length);
      return std::tie(b.np, pa, a.first, na) < std::tie(a.np, pb, b.first, nb);
    });
    // The earliest common start of a set of intervals is the first point of one of them;
    // later points (steps of tss_gap) give later attempts something to try after a refusal.
    const duration step = std::max<duration>(j->req.slotting.tss_gap, 1);
    for (const auto& o : opts)
      for (int k = 0; k < j->req.slotting.tsn_max && o.first + k * step <= o.last; ++k)
        starts.insert(o.first + k * step);
  }
  std::vector<candidate> combined;
  for (const timestamp t : starts) {
    auto chosen = place_at(*j, t);
    if (!chosen) continue;
    candidate c{{}, t, t, 0, {}};
    for (const auto& part : chosen->parts) {
      c.end = std::max(c.end, part.end);
      c.np += part.np;
    }
    c.props.cost = chosen->cost;
    combined.push_back(c);
    j->starts.emplace_back(t, std::move(chosen->parts));
  }
  auto order = preference_order(combined, j->req.prefer, combined.size());
  if (!order) return fail(j, order.err().code, order.err().message);
  std::vector<std::pair<timestamp, placement>> ranked;
  ranked.reserve(order->size());
  for (auto i : *order)
    ranked.push_back(std::move(j->starts[i]));
  j->starts = std::move(ranked);
  next_attempt(j);
}

// Phase one for the next common start time that every component can have.
void coreservation_worker_state::next_attempt(const job_ptr& j) {
  if (j->answered) return;
  while (j->next_start < j->starts.size() && j->attempt.tries() < j->req.max_attempts) {
    auto& [t, chosen] = j->starts[j->next_start++];
    if (t < j->skip_until) continue;
    for (auto& part : chosen)
      part.cluster = j->sites[part.site]->info.name;
    return run(j, j->attempt.try_placement(std::move(chosen), now()));
  }
  const int tries = j->attempt.tries();
  if (tries == 0)
    return fail(j, j->failure_code(errc::infeasible),
                "no common start time for all components" + j->reasons);
  fail(j, j->failure_code(errc::busy),
       "all " + std::to_string(tries) + " common start times were refused" + j->reasons +
           in_doubt_note(j->attempt));
}

}  // namespace arbroker
