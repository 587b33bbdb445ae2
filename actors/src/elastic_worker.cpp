#include "elastic_worker.hpp"

#include <algorithm>

#include "arbroker/actors/fan_in.hpp"
#include "arbroker/core/slot_generation.hpp"

namespace arbroker {
namespace {

constexpr std::size_t first_ranked = 8;  // most requests are placed by their first try

bool was_tried(const elastic_job& j, const candidate& c) {
  return std::any_of(j.tried.begin(), j.tried.end(), [&](const candidate& t) {
    return t.site == c.site && t.start == c.start && t.end == c.end && t.np == c.np;
  });
}

// The bound on the first objective a cluster's candidates can reach: the window and the
// shapes decide end, start, np and duration (smaller is better; descending ones negated).
// None for objectives that only a probe can tell (cost, esr) or that are not numbers (site).
std::optional<std::int64_t> first_objective_bound(const site_request& s, const objective& o) {
  const duration window = s.let - s.est;
  std::optional<job_shape> shortest, longest, smallest, largest;  // among shapes that fit
  for (const auto& shape : s.shapes) {
    if (shape.dur > window) continue;
    if (!shortest || shape.dur < shortest->dur) shortest = shape;
    if (!longest || shape.dur > longest->dur) longest = shape;
    if (!smallest || shape.np < smallest->np) smallest = shape;
    if (!largest || shape.np > largest->np) largest = shape;
  }
  if (!shortest) return INT64_MAX;  // it can offer nothing: ask it last
  switch (o.attribute) {
    case objective_attribute::end:
      return o.descending ? -s.let : s.est + shortest->dur;
    case objective_attribute::start:
      return o.descending ? -(s.let - shortest->dur) : s.est;
    case objective_attribute::np:
      return o.descending ? -std::int64_t{largest->np} : smallest->np;
    case objective_attribute::length:
      return o.descending ? -longest->dur : shortest->dur;
    default:
      return std::nullopt;
  }
}

// Why a probe sent no slot: none of the request's shapes fits the window, the esr threshold
// removed them all, or the CPUs are taken (running jobs, reservations, the admission rule).
std::string nothing_fits(const msg::probe_reply& r) {
  if (r.generated == 0) return "no slot of the request fits the window";
  if (r.above_threshold == 0)
    return "all " + std::to_string(r.generated) +
           " slots in the window are below the esr threshold";
  return "the CPUs are taken at all " + std::to_string(r.above_threshold) +
         " slots in the window (jobs, reservations, the local jobs' preference)";
}

}  // namespace

const cluster_service_actor& elastic_worker_state::service_of(const elastic_job& j,
                                                              std::size_t site) const {
  return j.sites.at(site).entry->service;
}

// -- the steps ---------------------------------------------------------------------------------

// Steps 3-5 (steps 1-2, the check and the clusters from the directory, were done before):
// adapt the request to every cluster fit for it and probe them in parallel:
// first those that could offer the best first objective (a bound from the window and the
// shapes alone), the others only if a try gets that far (refill). With "end" first, a
// cluster that cannot end the job before a candidate in hand cannot beat it: most requests
// are placed after probing the few fastest clusters, with the same outcome as probing all.
void elastic_worker_state::start(const job_ptr& j,
                                 const std::vector<const directory_entry*>& clusters) {
  j->stats.clusters = static_cast<std::int32_t>(clusters.size());
  const bool whatif = j->req.mode == msg::request_mode::whatif;
  for (auto& h : adapt_to_clusters(j, clusters)) {
    elastic_job::site s;
    s.entry = h.entry;
    s.adapted = std::move(h.adapted);
    s.send_all = whatif;  // a what-if shows every candidate
    if (!whatif) s.bound = first_objective_bound(s.adapted, j->req.prefer.front());
    j->sites.push_back(std::move(s));
  }
  if (j->sites.empty()) return;  // failed: no cluster fits
  if (reserve_fixed_slot(j)) return;
  j->candidates.reserve(j->sites.size() * static_cast<std::size_t>(std::max(1, cfg().probe_keep)));
  j->origins.reserve(j->candidates.capacity());
  std::optional<std::int64_t> best;  // the best bound; clusters without one go first too
  for (const auto& s : j->sites)
    if (s.bound && (!best || *s.bound < *best)) best = s.bound;
  for (std::size_t i = 0; i < j->sites.size(); ++i) {
    auto& s = j->sites[i];
    if (s.bound && best && *s.bound > *best) continue;
    s.probed = true;
    ++j->probes_pending;
    probe(j, i);
  }
}

// A request for exactly one slot on exactly one cluster ("4 CPUs on berlin64 from 10:00 to
// 11:00"): the probe could only confirm what the prepare checks anyway (availability,
// T_wkl; the LRMS has the last word), so the worker prepares at once and saves a round trip
// to the service (a thread hand-off when the service runs a real LRMS). Not with an esr
// threshold, which only a probe applies.
bool elastic_worker_state::reserve_fixed_slot(const job_ptr& j) {
  if (j->sites.size() != 1 || j->req.mode == msg::request_mode::whatif || esr_threshold(*j) >= 0 ||
      j->req.job.est < now())
    return false;
  auto cands =
      generate_candidates(j->sites[0].entry->info.name, j->sites[0].adapted, j->req.slotting);
  if (!cands || cands->size() != 1) return false;
  j->stats.candidates = j->stats.above_threshold = 1;
  j->candidates = std::move(*cands);
  j->origins.assign(1, {0, false});
  j->order = {0};  // nothing to rank (and no cost to rank by: only a probe prices)
  j->next = 0;
  j->sites[0].probed = true;  // it has no other candidate
  try_next(j);
  return true;
}

// The esr threshold of step 5: the request's, else the broker's default (< 0: none).
double elastic_worker_state::esr_threshold(const elastic_job& j) const {
  return j.req.esr_threshold >= 0 ? j.req.esr_threshold : cfg().default_esr_threshold;
}

// Step 4: the request as adapted to one cluster, asking for its best few candidates under
// the requester's preferences, or for all of them.
msg::probe_request elastic_worker_state::probe_for(const elastic_job& j,
                                                   const elastic_job::site& s) const {
  msg::probe_request p;
  p.user = j.req.job.user;
  p.site = s.adapted;
  p.slotting = j.req.slotting;
  p.esr = j.req.esr;
  p.esr_threshold = esr_threshold(j);
  p.local_jobs_preferred = j.req.local_jobs_preferred;
  p.admin = j.req.admin;
  if (!s.send_all) {
    p.prefer = j.req.prefer;
    p.keep = std::min(cfg().probe_keep, cfg().max_tries);
  }
  return p;
}

// Step 4 sends the probe with the others for the same service at the next flush.
void elastic_worker_state::probe(const job_ptr& j, std::size_t site) {
  const auto& service = j->sites[site].entry->service;
  auto& box = outboxes_[service.address()];
  if (!box.service) box.service = service;
  box.batch.probes.push_back(probe_for(*j, j->sites[site]));
  box.asked.emplace_back(j, site);
  if (box.asked.size() >= max_batch) return send_batch(box);
  if (!flush_due_) {
    flush_due_ = true;
    self()->send(self(), flush_atom::value);
  }
}

// The requests this worker had in its mailbox when the flush was asked for have all been
// taken: what they want to probe goes out now, one batch per service.
void elastic_worker_state::flush() {
  flush_due_ = false;
  for (auto& [addr, box] : outboxes_)
    if (!box.asked.empty()) send_batch(box);
}

void elastic_worker_state::send_batch(probe_outbox& box) {
  auto asked = std::move(box.asked);
  box.asked.clear();
  msg::probe_batch_request batch = std::move(box.batch);
  box.batch.probes.clear();
  box.batch.probes.reserve(asked.size());
  const auto& cluster = asked.front().first->sites[asked.front().second].entry->info.name;
  call_probes(box.service, cluster, std::move(batch),
              [this, asked = std::move(asked)](std::size_t k, const msg::probe_reply& r) {
                const auto& [j, site] = asked[k];
                guarded(j, [&] { on_probe_reply(j, r, site); });
              });
}

void elastic_worker_state::on_probe_reply(const job_ptr& j, const msg::probe_reply& r,
                                          std::size_t site) {
  if (j->answered) return;  // answered (timed out) meanwhile
  ++j->answered_probes;
  if (r.error.code == static_cast<std::uint8_t>(errc::permission_denied)) ++j->denied;
  j->note_probe_error(r.error);
  if (r.error.ok()) {
    if (!j->sites[site].counted) {
      j->sites[site].counted = true;
      j->stats.candidates += r.generated;
      j->stats.above_threshold += r.above_threshold;
    }
    for (const auto& s : r.slots) {
      auto c = msg::to_candidate(s, j->sites[site].entry->info.name);
      if (j->refilling && was_tried(*j, c)) continue;
      j->candidates.push_back(c);
      j->origins.push_back({site, false});
    }
    if (r.available > static_cast<std::int32_t>(r.slots.size()) && !r.slots.empty()) {
      j->origins.back().cut_after = true;
      j->sites[site].held_back = true;
    }
    if (r.slots.empty()) {
      j->sites[site].nothing_fits = true;
      if (j->req.mode == msg::request_mode::whatif)
        j->pass_over(j->sites[site].entry->info.name, msg::wire(errc::busy, nothing_fits(r)));
    }
  } else {
    j->pass_over(j->sites[site].entry->info.name, r.error);
  }
  if (--j->probes_pending == 0) rank(j);
}

// Ranks the candidates, but sorts only the first `upto` of them: most requests are placed by
// their first try. The order is total (ties by index), so a longer prefix sorted later
// starts with this one. False when it failed (and answered).
bool elastic_worker_state::rank_upto(const job_ptr& j, std::size_t upto) {
  auto order = preference_order(j->candidates, j->req.prefer, upto);
  if (!order) {
    fail(j, order.err().code, order.err().message);
    return false;
  }
  j->order = std::move(*order);
  // Clusters not asked yet: a candidate no better on the first objective than the best they
  // could offer is tried only after asking them (refill).
  std::optional<std::int64_t> unasked;
  for (const auto& s : j->sites)
    if (!s.probed && s.bound && (!unasked || *s.bound < *unasked)) unasked = s.bound;
  const auto& first = j->req.prefer.front();
  // A cluster that sent only its best few: past the last of them, what it did not send may
  // rank better than the candidates that follow, so those are fetched first (refill).
  j->refill_at = SIZE_MAX;
  for (std::size_t pos = 0; pos < j->order.size(); ++pos) {
    const auto& c = j->candidates[j->order[pos]];
    if (unasked && slot_value(c, first).value_or(0) >= *unasked) {
      j->refill_at = pos;
      break;
    }
    if (j->origins[j->order[pos]].cut_after) {
      j->refill_at = pos + 1;
      break;
    }
  }
  return true;
}

// Step 6: the ranking; a what-if answers with all of it.
void elastic_worker_state::rank(const job_ptr& j) {
  j->next = 0;
  const bool whatif = j->req.mode == msg::request_mode::whatif;
  if (!rank_upto(j, whatif ? SIZE_MAX : first_ranked)) return;
  if (whatif) {
    msg::elastic_reply r;
    r.ranked.reserve(j->order.size());
    for (auto i : j->order)
      r.ranked.push_back(msg::to_slot(j->candidates[i]));
    r.stats = j->stats;
    r.passed_over = by_cluster(std::move(j->passed_over));
    if (!r.ranked.empty()) return answer(j, std::move(r));
    // Nothing in the window: when could it be had?
    return after_busy_hints(j, [this, j, r]() mutable {
      r.earliest_alternative = j->earliest_alternative;
      answer(j, std::move(r));
    });
  }
  try_next(j);
}

// Asks every cluster that held candidates back for all of them, and every cluster not asked
// yet for its best few, keeping what is left of the others and leaving out what was tried,
// then ranks again.
void elastic_worker_state::refill(const job_ptr& j) {
  std::vector<candidate> kept;
  std::vector<elastic_job::origin> kept_origins;
  for (std::size_t i = 0; i < j->candidates.size(); ++i) {
    const auto site = j->origins[i].site;
    if (was_tried(*j, j->candidates[i]) || j->sites[site].held_back) continue;
    kept.push_back(j->candidates[i]);
    kept_origins.push_back({site, false});
  }
  j->candidates = std::move(kept);
  j->origins = std::move(kept_origins);
  j->refilling = true;
  for (std::size_t i = 0; i < j->sites.size(); ++i) {
    auto& s = j->sites[i];
    if (s.held_back) {
      s.held_back = false;
      s.send_all = true;
    } else if (s.probed) {
      continue;
    }
    s.probed = true;
    ++j->probes_pending;
    probe(j, i);
  }
}

bool elastic_worker_state::more_to_ask(const elastic_job& j) const {
  return std::any_of(j.sites.begin(), j.sites.end(),
                     [](const elastic_job::site& s) { return s.held_back || !s.probed; });
}

// Steps 6b-7: the next candidate in preference order, until one is granted or all failed.
void elastic_worker_state::try_next(const job_ptr& j) {
  if (j->answered) return;
  if (j->next >= j->order.size() && j->order.size() < j->candidates.size() &&
      !rank_upto(j, std::max(first_ranked, 4 * j->order.size())))
    return;
  const int tries = j->attempt.tries();
  if ((j->next >= j->refill_at || j->next >= j->order.size()) && tries < cfg().max_tries &&
      more_to_ask(*j))
    return refill(j);
  if (j->next >= j->order.size() || tries >= cfg().max_tries) {
    if (j->candidates.empty())
      // Refused by every cluster it asked: say so with the clusters' own code.
      return refuse(j,
                    j->denied > 0 && j->denied == j->answered_probes
                        ? errc::permission_denied
                        : j->failure_code(errc::infeasible),
                    "no candidate time slot in the window" + j->reasons);
    return refuse(
        j, j->failure_code(errc::busy),
        "all " + std::to_string(tries) + " reserve tries were refused" + in_doubt_note(j->attempt));
  }
  const std::size_t i = j->order[j->next++];
  const candidate& c = j->candidates[i];
  j->tried.push_back(c);
  const std::size_t site = j->origins[i].site;
  try_part(j, {site, std::string(c.site), c.start, c.end, c.np}, j->sites[site].adapted);
}

// Paper 001's busy-time hint: the clusters whose probes had nothing to offer say when they
// could, all at once, then `then` runs. Asked only for a client about to hear "no" (on a
// well-filled cluster the search walks every busy stretch and costs more than a probe).
template <class Then>
void elastic_worker_state::after_busy_hints(const job_ptr& j, Then then) {
  std::vector<std::size_t> ask;
  for (std::size_t i = 0; i < j->sites.size(); ++i)
    if (j->sites[i].nothing_fits) ask.push_back(i);
  const fan_in join(ask.size(), std::move(then));
  for (auto i : ask) {
    const auto& s = j->sites[i];
    call<msg::busy_hint_reply>(
        s.entry->service,
        msg::busy_hint_request{s.adapted, j->req.local_jobs_preferred, j->req.admin},
        [this, j, join](msg::busy_hint_reply* r) {
          guarded(j, [&] {
            if (r && r->error.ok()) j->note_alternative(r->earliest_fit);
            join.arrived();
          });
        });
  }
}

void elastic_worker_state::refuse(const job_ptr& j, errc code, std::string message) {
  after_busy_hints(
      j, [this, j, code, why = std::move(message)]() mutable { fail(j, code, std::move(why)); });
}

}  // namespace arbroker
