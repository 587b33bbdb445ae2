#include "elastic_worker.hpp"

#include "directory_subscription.hpp"

#include <algorithm>
#include <stdexcept>

#include "arbroker/core/reservation_state.hpp"
#include "arbroker/core/site_adaptation.hpp"
#include "arbroker/core/slot_generation.hpp"
#include "arbroker/messages/speedup_spec.hpp"

namespace arbroker {
namespace {

using self_ptr = caf::stateful_actor<elastic_worker_state>*;
using job_ptr = std::shared_ptr<elastic_job>;

// Answers the client once; the job leaves the worker's table (what is still on its way
// holds it until it arrives).
void finish(self_ptr self, const job_ptr& j, msg::elastic_reply reply) {
  if (j->done) return;
  j->done = true;
  reply.stats = j->stats;
  if (reply.earliest_alternative < 0) reply.earliest_alternative = j->earliest_alternative;
  j->rp.deliver(j->id, std::move(reply));  // to the broker, tagged (see broker.cpp)
  self->state.jobs.erase(j->id);
}

void fail_with(self_ptr self, const job_ptr& j, errc code, std::string message) {
  msg::elastic_reply r;
  r.error = msg::wire(code, std::move(message));
  finish(self, j, std::move(r));
}

// Runs one step of a job; an exception (which would kill the worker and every job on it)
// becomes that job's error reply.
template <class F>
void guarded(self_ptr self, const job_ptr& j, F&& step) {
  try {
    step();
  } catch (const std::exception& e) {
    fail_with(self, j, errc::lrms_failure, std::string("internal error: ") + e.what());
  }
}

void try_next(self_ptr self, const job_ptr& j);
void probe(self_ptr self, const job_ptr& j, std::size_t cluster);

// Monitors a service before the first tagged call to it, so that calls to a service that
// goes away are answered (with nullptr) instead of waiting for the request's deadline.
caf::actor_addr watch(self_ptr self, const caf::actor& service) {
  auto addr = service.address();
  if (self->state.watched.insert(addr).second) self->monitor(service);
  return addr;
}

void on_service_down(self_ptr self, const caf::down_msg& dm) {
  auto& st = self->state;
  st.watched.erase(dm.source);  // a later call to it monitors it again and learns at once
  st.probes.lost(dm.source);
  st.prepares.lost(dm.source);
  st.commits.lost(dm.source);
}

elastic_job::fit_cluster* find_fit(elastic_job& st, const std::string& name) {
  for (auto& f : st.fit)
    if (f.entry->info.name == name) return &f;
  return nullptr;
}

// The service of a cluster a candidate came from (only probed clusters send candidates).
const caf::actor& service_of(elastic_job& st, const std::string& cluster) {
  if (auto* f = find_fit(st, cluster)) return f->entry->crs;
  throw std::out_of_range("no reservation service for cluster '" + cluster + "'");
}

// The client was already told "timeout" while a prepare or commit was on its way: what that
// grants now is nobody's, so it is cancelled (a timed-out request changes nothing). Fire and
// forget: the service's answer would only come back as a stray message.
void undo_late_grant(const job_ptr& j, const std::string& site, const std::string& reservation_id) {
  if (reservation_id.empty()) return;
  if (auto* f = find_fit(*j, site))
    caf::anon_send(f->entry->crs, msg::cancel_request{j->req.user, reservation_id});
}

// Ranks the candidates, but sorts only the first `upto` of them: most requests are placed by
// their first try. The order is total (ties by index), so a longer prefix sorted later
// starts with this one. False when it failed (and answered).
bool rank_upto(self_ptr self, const job_ptr& j, std::size_t upto) {
  auto& st = *j;
  auto order = preference_order(st.candidates, st.prefs, upto);
  if (!order) {
    fail_with(self, j, order.err().code, order.err().message);
    return false;
  }
  st.order = std::move(*order);
  // A cluster that sent only its best few: past the last of them, what it did not send may
  // rank better than the candidates that follow, so those are fetched first (refill).
  st.boundary = st.candidates.size();
  for (std::size_t pos = 0; pos < st.order.size(); ++pos)
    if (st.cut_after[st.order[pos]]) {
      st.boundary = pos;
      break;
    }
  return true;
}

constexpr std::size_t first_ranked = 8;

void rank(self_ptr self, const job_ptr& j) {
  auto& st = *j;
  st.next = 0;
  const bool whatif = st.req.mode == msg::mode_whatif;  // shows the whole ranking
  if (!rank_upto(self, j, whatif ? SIZE_MAX : first_ranked)) return;
  if (whatif) {
    msg::elastic_reply r;
    r.ranked.reserve(st.order.size());
    for (auto i : st.order)
      r.ranked.push_back(msg::to_slot(st.candidates[i]));
    return finish(self, j, std::move(r));
  }
  try_next(self, j);
}

void commit(self_ptr self, const job_ptr& j, const candidate& c, const std::string& txn,
            const msg::prepare_reply& prepared, timestamp expiry) {
  auto& st = *j;
  msg::reservation_info info{prepared.reservation_id,
                             c.site,
                             st.req.user,
                             c.start,
                             c.end,
                             c.np,
                             static_cast<std::uint8_t>(reservation_state::accepted),
                             expiry,
                             0,
                             prepared.cost};
  if (st.req.mode == msg::mode_hold || st.req.mode == msg::mode_reserve) {
    if (st.req.mode == msg::mode_reserve) {  // committed by the prepare itself
      info.state = static_cast<std::uint8_t>(reservation_state::committed);
      info.expiry = 0;
    }
    msg::elastic_reply r;
    r.reservation = std::move(info);
    return finish(self, j, std::move(r));
  }
  st.awaiting = true;
  const auto& service = service_of(st, c.site);
  const auto tag =
      self->state.commits.add(watch(self, service), [self, j, info](msg::ack_reply* ack) mutable {
        j->awaiting = false;
        if (!ack) {  // the service is gone: its hold went with it
          if (j->done) return;
          return guarded(self, j, [&] { try_next(self, j); });
        }
        if (j->done) return undo_late_grant(j, info.cluster, info.id);
        if (!ack->error.ok())  // e.g. the hold expired meanwhile
          return guarded(self, j, [&] { try_next(self, j); });
        info.state = static_cast<std::uint8_t>(reservation_state::committed);
        info.expiry = 0;
        msg::elastic_reply r;
        r.reservation = std::move(info);
        finish(self, j, std::move(r));
      });
  self->send(service, tag, msg::commit_request{txn, {}, {}});
}

bool was_tried(const elastic_job& st, const candidate& c) {
  return std::any_of(st.tried.begin(), st.tried.end(), [&](const candidate& t) {
    return t.site == c.site && t.start == c.start && t.end == c.end && t.np == c.np;
  });
}

// Asks every cluster that held candidates back for all of them, keeping what is left of the
// others and leaving out what was tried, then ranks again.
void refill(self_ptr self, const job_ptr& j) {
  auto& st = *j;
  std::vector<candidate> kept;
  for (const auto& c : st.candidates) {
    if (was_tried(st, c)) continue;
    if (auto* f = find_fit(st, c.site); f && !f->held_back) kept.push_back(c);
  }
  st.candidates = std::move(kept);
  st.cut_after.assign(st.candidates.size(), false);
  st.refilling = true;
  for (std::size_t i = 0; i < st.fit.size(); ++i) {
    auto& f = st.fit[i];
    if (!f.held_back) continue;
    f.held_back = false;
    f.send_all = true;
    ++st.pending;
    probe(self, j, i);
  }
}

// Step 6b/7: the next candidate in preference order, until one is held or all failed.
void try_next(self_ptr self, const job_ptr& j);

void on_prepared(self_ptr self, const job_ptr& j, const candidate& c, const std::string& txn,
                 timestamp expiry, const msg::prepare_reply& r) {
  auto& s = *j;
  s.awaiting = false;
  if (s.done) return undo_late_grant(j, c.site, r.error.ok() ? r.reservation_id : "");
  if (r.error.ok()) return commit(self, j, c, txn, r, expiry);
  if (r.refused_by == msg::refused_by_service) ++s.stats.rejected_by_service;
  if (r.refused_by == msg::refused_by_lrms) ++s.stats.rejected_by_lrms;
  if (r.busy_until >= 0 && (s.earliest_alternative < 0 || r.busy_until < s.earliest_alternative))
    s.earliest_alternative = r.busy_until;
  try_next(self, j);
}

void try_next(self_ptr self, const job_ptr& j) {
  auto& st = *j;
  if (st.done) return;
  if (st.next >= st.order.size() && st.order.size() < st.candidates.size() &&
      !rank_upto(self, j, std::max(first_ranked, 4 * st.order.size())))
    return;
  if (st.next > st.boundary && st.tries < self->state.cfg.max_tries) return refill(self, j);
  if (st.next >= st.order.size() || st.tries >= self->state.cfg.max_tries) {
    std::string why = st.candidates.empty()
                          ? "no candidate time slot in the window" + st.reasons
                          : "all " + std::to_string(st.tries) + " reserve tries were refused";
    return fail_with(self, j, st.candidates.empty() ? errc::infeasible : errc::busy, why);
  }
  const candidate c = st.candidates[st.order[st.next++]];
  st.tried.push_back(c);
  const std::string txn = st.txn_base + "." + std::to_string(++st.tries);
  const timestamp now = self->state.cfg.clock();
  const duration hold =
      st.req.mode == msg::mode_hold
          ? (st.req.hold_seconds > 0 ? st.req.hold_seconds : self->state.cfg.hold_seconds)
          : self->state.cfg.prepare_expiry;
  const timestamp expiry = now + hold;
  // One participant needs no second phase: a plain reservation is committed by its prepare.
  msg::prepare_request p{txn,
                         st.req.user,
                         c.start,
                         c.end,
                         c.np,
                         expiry,
                         st.req.local_jobs_preferred,
                         st.req.mode == msg::mode_reserve};
  st.awaiting = true;
  const auto& service = service_of(st, c.site);
  const auto tag = self->state.prepares.add(
      watch(self, service), [self, j, c, txn, expiry](msg::prepare_reply* r) {
        if (r) return guarded(self, j, [&] { on_prepared(self, j, c, txn, expiry, *r); });
        j->awaiting = false;
        if (j->done) return;
        guarded(self, j, [&] { try_next(self, j); });
      });
  self->send(service, tag, std::move(p));
}

void on_probe_reply(self_ptr self, const job_ptr& j, const msg::probe_reply& r,
                    std::size_t cluster) {
  auto& st = *j;
  if (st.done) return;  // answered (timed out) meanwhile
  if (r.error.ok()) {
    if (!st.refilling) {
      st.stats.candidates += r.generated;
      st.stats.above_threshold += r.above_threshold;
    }
    for (const auto& s : r.slots) {
      auto c = msg::to_candidate(s);
      if (st.refilling && was_tried(st, c)) continue;
      st.candidates.push_back(std::move(c));
      st.cut_after.push_back(false);
    }
    if (r.available > static_cast<std::int32_t>(r.slots.size()) && !r.slots.empty()) {
      st.cut_after.back() = true;
      st.fit[cluster].held_back = true;
    }
    if (r.earliest_fit >= 0 &&
        (st.earliest_alternative < 0 || r.earliest_fit < st.earliest_alternative))
      st.earliest_alternative = r.earliest_fit;
  } else {
    st.reasons += "; " + r.cluster + ": " + r.error.message;
  }
  if (--st.pending == 0) rank(self, j);
}

// The esr threshold of step 5: the request's, else the broker's default (< 0: none).
double esr_threshold(const broker_config& cfg, const elastic_job& st) {
  return st.req.esr_threshold >= 0 ? st.req.esr_threshold : cfg.default_esr_threshold;
}

// Step 4: the request as adapted to one cluster, asking for its best few candidates under
// the requester's preferences, or for all of them.
msg::probe_request probe_for(const broker_config& cfg, const elastic_job& st,
                             const elastic_job::fit_cluster& f) {
  msg::probe_request p;
  p.user = st.req.user;
  p.est = st.req.est;
  p.let = st.req.let;
  p.np_min = f.adapted.np_min;
  p.np_max = f.adapted.np_max;
  p.np_ref = f.adapted.np_ref;
  p.dur_ref = f.adapted.dur_ref;
  p.speedup = st.req.speedup;
  p.tsn_max = st.req.tsn_max;
  p.tss_gap = st.req.tss_gap;
  p.esr_method = st.req.esr_method;
  p.esr_threshold = esr_threshold(cfg, st);
  p.local_jobs_preferred = st.req.local_jobs_preferred;
  if (!f.send_all) {
    p.prefer = st.req.prefer;
    p.keep = std::min(cfg.probe_keep, cfg.max_tries);
  }
  return p;
}

void probe(self_ptr self, const job_ptr& j, std::size_t cluster) {
  auto& st = *j;
  const auto& f = st.fit[cluster];
  const auto tag =
      self->state.probes.add(watch(self, f.entry->crs), [self, j, cluster](msg::probe_reply* r) {
        if (r) return guarded(self, j, [&] { on_probe_reply(self, j, *r, cluster); });
        msg::probe_reply gone;
        gone.cluster = j->fit[cluster].entry->info.name;
        gone.error = msg::wire(errc::unreachable, "the cluster's reservation service is gone");
        guarded(self, j, [&] { on_probe_reply(self, j, gone, cluster); });
      });
  self->send(f.entry->crs, tag, probe_for(self->state.cfg, st, f));
}

// A request for exactly one slot on exactly one cluster ("4 CPUs on berlin64 from 10:00 to
// 11:00"): the probe could only confirm what the prepare checks anyway (availability,
// T_wkl; the LRMS has the last word), so the worker prepares at once and saves a round trip
// to the service (a thread hand-off when the service runs a real LRMS). Not with an esr
// threshold, which only a probe applies.
bool reserve_fixed_slot(self_ptr self, const job_ptr& j) {
  auto& st = *j;
  if (st.fit.size() != 1 || st.req.mode == msg::mode_whatif ||
      esr_threshold(self->state.cfg, st) >= 0 || st.req.est < self->state.cfg.clock())
    return false;
  const auto& info = st.fit[0].entry->info;
  site_description site{info.name, info.cpus, info.pp, {info.bunch, info.counts}};
  auto cands = generate_candidates(site, st.fit[0].adapted, st.core.sp, st.req.est, st.req.let,
                                   {st.req.tsn_max, st.req.tss_gap});
  if (!cands || cands->size() != 1) return false;
  st.stats.candidates = st.stats.above_threshold = 1;
  st.candidates = std::move(*cands);
  st.cut_after.assign(1, false);
  st.order = {0};  // nothing to rank (and no cost to rank by: only a probe prices)
  st.next = 0;
  st.boundary = 1;
  try_next(self, j);
  return true;
}

// Steps 3-5: adapt the request to every cluster fit for it and probe them in parallel.
void probe_all(self_ptr self, const job_ptr& j,
               const std::vector<const directory_entry*>& clusters) {
  auto& st = *j;
  st.stats.clusters = static_cast<std::int32_t>(clusters.size());
  for (const auto* c : clusters) {
    const auto& info = c->info;
    site_description site{info.name, info.cpus, info.pp, {info.bunch, info.counts}};
    auto adapted = adapt_to_site(st.core, site);
    if (!adapted) {
      st.reasons += "; " + info.name + ": " + adapted.err().message;
      continue;
    }
    // A what-if shows every candidate.
    st.fit.push_back({c, *adapted, false, st.req.mode == msg::mode_whatif});
  }
  if (reserve_fixed_slot(self, j)) return;
  st.pending = static_cast<int>(st.fit.size());
  for (std::size_t i = 0; i < st.fit.size(); ++i)
    probe(self, j, i);
  if (st.fit.empty()) {
    if (clusters.empty())
      return fail_with(self, j, errc::infeasible, "no cluster satisfies the core requirements");
    return fail_with(self, j, errc::infeasible, "no cluster can host the request" + st.reasons);
  }
}

// Step 1: check the request; on success pick the clusters from the directory (step 2).
void start(self_ptr self, const job_ptr& j, msg::elastic_request req) {
  auto& st = *j;
  st.req = std::move(req);
  auto sp = msg::to_model(st.req.speedup);
  if (!sp) return fail_with(self, j, sp.err().code, sp.err().message);
  st.core = {st.req.user,    st.req.est,    st.req.let,    st.req.np_min, st.req.np_max,
             st.req.dur_ref, st.req.pp_ref, st.req.np_ref, std::move(*sp)};
  if (st.req.user.empty())
    return fail_with(self, j, errc::permission_denied, "request without a user");
  if (auto ok = validate(st.core); !ok) return fail_with(self, j, ok.err().code, ok.err().message);
  if (st.req.mode > msg::mode_whatif)
    return fail_with(self, j, errc::invalid_parameter,
                     "unknown mode " + std::to_string(st.req.mode));
  if (!st.req.policy.empty())
    return fail_with(self, j, errc::invalid_parameter,
                     "matchmaking policy '" + st.req.policy + "' is not available in this broker");
  auto prefs = parse_preferences(st.req.prefer);
  if (!prefs) return fail_with(self, j, prefs.err().code, prefs.err().message);
  st.prefs = std::move(*prefs);
  if (st.req.tsn_max < 1 || st.req.tss_gap < 0)
    return fail_with(self, j, errc::invalid_parameter, "tsn_max must be >= 1 and tss_gap >= 0");
  const auto& dir = self->state.directory;
  if (!dir.error.empty()) return fail_with(self, j, errc::unreachable, dir.error);
  st.clusters = dir.clusters;
  probe_all(
      self, j,
      fit(*st.clusters, {st.req.user, st.req.np_min, st.req.os, st.req.features, st.req.clusters}));
}

}  // namespace

std::string txn_base_of(const broker_config& cfg, std::uint64_t id) {
  return cfg.incarnation + "-" + std::to_string(id);
}

caf::behavior elastic_worker(self_ptr self, broker_config cfg) {
  self->state.cfg = std::move(cfg);
  ignore_stray_messages(self);
  self->set_down_handler([self](const caf::down_msg& dm) { on_service_down(self, dm); });
  subscribe_directory(self, self->state.cfg.gis, self->state.directory);
  return {
      directory_updates(self->state.directory),
      [self](std::uint64_t id, msg::elastic_request& req) {
        auto j = std::make_shared<elastic_job>();
        j->id = id;
        j->txn_base = txn_base_of(self->state.cfg, id);
        j->rp = self->make_response_promise();
        self->state.jobs.emplace(id, j);
        guarded(self, j, [&] { start(self, j, std::move(req)); });
        return j->rp;
      },
      [self](std::uint64_t tag, msg::probe_reply& r) { self->state.probes.complete(tag, r); },
      [self](std::uint64_t tag, msg::prepare_reply& r) { self->state.prepares.complete(tag, r); },
      [self](std::uint64_t tag, msg::ack_reply& r) { self->state.commits.complete(tag, r); },
      [self](timeout_atom, std::uint64_t id) {
        auto it = self->state.jobs.find(id);
        if (it == self->state.jobs.end()) return;  // answered already
        auto j = it->second;
        const std::string why =
            "no answer within " + std::to_string(self->state.cfg.request_timeout) + " s";
        // With a prepare or commit on its way, the job stays for its answer (undo_late_grant).
        fail_with(self, j, errc::timeout, why);
      },
  };
}

}  // namespace arbroker
