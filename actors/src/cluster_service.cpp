#include "arbroker/actors/cluster_service.hpp"

#include <algorithm>

#include "arbroker/core/esr_static.hpp"
#include "arbroker/core/preference.hpp"
#include "arbroker/core/slot_generation.hpp"
#include "arbroker/messages/speedup_spec.hpp"

namespace arbroker {
namespace {

std::string ts(timestamp t) {
  return std::to_string(t);
}

}  // namespace

result<std::unique_ptr<cluster_service>> cluster_service::create(cluster_service_config cfg,
                                                                 std::unique_ptr<lrms> backend) {
  const auto& i = cfg.info;
  if (i.name.empty() || i.name.find('/') != std::string::npos)
    return fail(errc::invalid_parameter,
                "cluster name '" + i.name + "' must be non-empty and contain no '/'");
  if (!backend) return fail(errc::invalid_parameter, "cluster '" + i.name + "' has no LRMS");
  site_description s{i.name, i.cpus, i.pp, {i.bunch, i.counts}};
  if (auto ok = validate(s); !ok) return ok.err();
  if (cfg.refresh < 0 || cfg.max_hold <= 0 || cfg.retention < 0)
    return fail(errc::invalid_parameter, "cluster '" + i.name +
                                             "': refresh and retention must be >= 0 and "
                                             "max_hold > 0");
  auto h = history::create(cfg.history_delta, 24 * 14);
  if (!h) return h.err();
  return std::unique_ptr<cluster_service>(
      new cluster_service(std::move(cfg), std::move(backend), std::move(*h)));
}

cluster_service::cluster_service(cluster_service_config cfg, std::unique_ptr<lrms> backend,
                                 history h)
    : cfg_(std::move(cfg)), lrms_(std::move(backend)), history_(std::move(h)) {}

site_description cluster_service::site() const {
  const auto& i = cfg_.info;
  return {i.name, i.cpus, i.pp, {i.bunch, i.counts}};
}

status cluster_service::refresh(timestamp now, bool force) {
  if (!force && view_.profile && now - view_.taken < cfg_.refresh) return {};
  auto snap = lrms_->snapshot();
  if (!snap) return snap.err();
  auto w = to_workload(*snap);
  auto profile = availability_profile::create(cfg_.info.cpus);
  if (!profile) return profile.err();
  // The LRMS is the authority on capacity; the view is a hint for probes and for refusing
  // obvious conflicts early. An allocation the view cannot take (a stale or overbooked
  // snapshot) is skipped rather than failing the refresh.
  for (const auto& j : w.running)
    (void)profile->add(now, now + j.remaining, j.np);
  for (const auto& r : w.reservations)
    if (r.end > now) (void)profile->add(std::max(r.start, now), r.end, r.np);
  auto twkl = t_wkl(now, cfg_.info.cpus, w.running, w.queued, w.reservations, cfg_.load);
  view_.t_wkl = twkl ? *twkl : now;
  view_.profile = std::move(*profile);
  view_.taken = now;
  view_.running = static_cast<int>(snap->running.size());
  view_.queued = static_cast<int>(snap->queued.size());
  // esr history: one sample of idle CPUs per history interval.
  const timestamp slot_begin =
      now - ((now % cfg_.history_delta) + cfg_.history_delta) % cfg_.history_delta;
  const auto& recs = history_.records();
  if (recs.empty() || recs.back().begin < slot_begin)
    (void)history_.record(slot_begin, view_.profile->free_at(now));
  return {};
}

msg::probe_reply cluster_service::probe(const msg::probe_request& req, timestamp now) {
  msg::probe_reply out;
  out.cluster = name();
  sweep(now);
  if (auto ok = refresh(now); !ok) {
    out.error = msg::to_wire(ok.err());
    return out;
  }
  out.t_wkl = view_.t_wkl;
  auto model = msg::to_model(req.speedup);
  if (!model) {
    out.error = msg::to_wire(model.err());
    return out;
  }
  if (req.esr_method > msg::esr_load_method) {
    out.error =
        msg::wire(errc::invalid_parameter, "unknown esr method " + std::to_string(req.esr_method));
    return out;
  }
  const site_request sr{req.np_min, req.np_max, req.np_ref, req.dur_ref, req.let - req.est};
  auto cands =
      generate_candidates(site(), sr, *model, req.est, req.let, {req.tsn_max, req.tss_gap});
  if (!cands) {
    out.error = msg::to_wire(cands.err());
    return out;
  }
  out.generated = static_cast<std::int32_t>(cands->size());
  const bool want_cost = req.properties & msg::want_cost;
  const bool want_esr = req.properties & msg::want_esr;
  const auto& profile = *view_.profile;
  std::optional<preferences> prefs;
  if (!req.prefer.empty()) {
    auto p = parse_preferences(req.prefer);
    if (!p) {
      out.error = msg::to_wire(p.err());
      return out;
    }
    prefs = std::move(*p);
  }
  if (req.keep < 0) {
    out.error =
        msg::wire(errc::invalid_parameter, "keep must be >= 0, not " + std::to_string(req.keep));
    return out;
  }
  // Step 5 on this side: the esr filter for all, then availability and price. When only the
  // best `keep` are wanted and the preferences start with what the slot alone decides (the
  // end, say), availability and price are computed in that order and only as far down as
  // the best `keep` can still reach: candidates strictly worse on that prefix than the
  // keep-th available one cannot be among the best (the rest is fetched by a refill).
  std::vector<std::size_t> passed;  // indices into *cands that passed the esr threshold
  passed.reserve(cands->size());
  for (std::size_t i = 0; i < cands->size(); ++i) {
    auto& c = (*cands)[i];
    if (want_esr) {
      switch (req.esr_method) {
        case msg::esr_static_method:
          c.props.esr = esr_static(c.start - now, cfg_.esr_static_h).value_or(0.0);
          break;
        case msg::esr_history_method:
          c.props.esr = history_.esr(c.start, c.end, c.np).value_or(0.0);
          break;
        default:
          c.props.esr = esr_load(c.start, view_.t_wkl);
      }
      if (req.esr_threshold >= 0 && *c.props.esr < req.esr_threshold) continue;
    }
    passed.push_back(i);
  }
  out.above_threshold = static_cast<std::int32_t>(passed.size());
  const preferences prefix = prefs ? slot_prefix(*prefs) : preferences{};
  const bool lazy = req.keep > 0 && !prefix.empty();
  if (lazy)
    std::sort(passed.begin(), passed.end(), [&](std::size_t a, std::size_t b) {
      const int c = compare_candidates((*cands)[a], (*cands)[b], prefix);
      return c != 0 ? c < 0 : a < b;  // stable: ties in generation order
    });
  std::vector<std::size_t> fit_index;  // into *cands, of the candidates that fit
  std::size_t checked = 0;
  for (; checked < passed.size(); ++checked) {
    auto& c = (*cands)[passed[checked]];
    if (lazy && fit_index.size() >= static_cast<std::size_t>(req.keep) &&
        compare_candidates(c, (*cands)[fit_index.back()], prefix) > 0)
      break;  // this one and all after it are worse than keep fitting ones
    if (req.check_availability) {
      if (c.start < now) continue;
      if (req.local_jobs_preferred && c.start < view_.t_wkl) continue;
      auto free = profile.min_free(c.start, c.end);
      if (!free || *free < c.np) continue;
    }
    if (want_cost) {  // priced last: only what may be returned
      auto cost = cfg_.cost.cost(c.start, c.end, c.np, req.user);
      if (!cost) {
        out.error = msg::to_wire(cost.err());
        return out;
      }
      c.props.cost = *cost;
    }
    fit_index.push_back(passed[checked]);
  }
  // Ties keep the generation order, as if every candidate had been checked.
  std::sort(fit_index.begin(), fit_index.end());
  std::vector<candidate> fit;
  fit.reserve(fit_index.size());
  for (auto i : fit_index)
    fit.push_back(std::move((*cands)[i]));
  // Exact when every candidate was checked; otherwise those that fit plus those unchecked
  // (the worker only asks whether the cluster held some back).
  out.available = static_cast<std::int32_t>(fit.size() + (passed.size() - checked));
  const std::size_t send = req.keep > 0 ? std::min<std::size_t>(fit.size(), req.keep) : fit.size();
  out.slots.reserve(send);
  if (prefs) {
    auto order = preference_order(fit, *prefs, send);
    if (!order) {
      out.error = msg::to_wire(order.err());
      return out;
    }
    for (std::size_t i = 0; i < send; ++i)
      out.slots.push_back(msg::to_slot(fit[(*order)[i]]));
  } else {
    for (std::size_t i = 0; i < send; ++i)
      out.slots.push_back(msg::to_slot(fit[i]));
  }
  // Paper 001's busy-time hint: where the smallest reservable size would fit first, even
  // beyond the window, so a refused client learns when to ask again. Only when nothing in
  // the window fits: the search walks every busy stretch from the earliest start on, which
  // on a well-filled cluster cost more than the rest of the probe (and a probe with slots
  // has shown where its cluster is free).
  auto rnp = reservable_counts(site().sizes, req.np_min, req.np_max, cfg_.info.cpus);
  if (out.slots.empty() && rnp) {
    const int n = rnp->front();
    if (auto dur = adapt_duration(*model, req.dur_ref, req.np_ref, n)) {
      timestamp from = std::max(req.est, now);
      if (req.local_jobs_preferred) from = std::max(from, view_.t_wkl);
      if (auto t = profile.earliest_start(from, *dur, n)) out.earliest_fit = *t;
    }
  }
  if (req.want_windows) {
    if (rnp) {
      for (int n : *rnp) {
        auto dur = adapt_duration(*model, req.dur_ref, req.np_ref, n);
        if (!dur || *dur > req.let - req.est) continue;
        timestamp from = std::max(req.est, now);
        if (req.local_jobs_preferred) from = std::max(from, view_.t_wkl);
        const timestamp lst = req.let - *dur;
        if (from > lst) continue;
        auto win = profile.feasible_starts(from, lst, *dur, n);
        if (!win) continue;
        for (const auto& w : *win) {
          double per_second = 0;
          if (auto c = cfg_.cost.cost(w.first, w.first + 1, n, req.user)) per_second = *c;
          out.windows.push_back({n, *dur, w.first, w.last, per_second});
        }
      }
    }
  }
  return out;
}

msg::prepare_reply cluster_service::prepare(const msg::prepare_request& req, timestamp now) {
  msg::prepare_reply out;
  out.txn = req.txn;
  sweep(now);
  if (auto it = by_txn_.find(req.txn); it != by_txn_.end()) {
    // Idempotent: a repeated prepare of a live hold answers as the first did.
    const auto& r = records_.at(it->second);
    if (r.life.state() == reservation_state::accepted ||
        r.life.state() == reservation_state::committed) {
      out.reservation_id = r.id;
      out.cost = r.cost;
      return out;
    }
    out.error = msg::wire(errc::illegal_transition, "transaction '" + req.txn + "' is already " +
                                                        std::string(to_string(r.life.state())));
    return out;
  }
  if (req.txn.empty()) {
    out.error = msg::wire(errc::invalid_parameter, "prepare without a transaction id");
    return out;
  }
  if (req.owner.empty()) {
    out.error = msg::wire(errc::permission_denied, "prepare without an owner");
    return out;
  }
  if (req.start >= req.end || req.start < now) {
    out.error = msg::wire(errc::invalid_window,
                          "hold [" + ts(req.start) + ", " + ts(req.end) +
                              ") must be non-empty and not start before now (" + ts(now) + ")");
    return out;
  }
  if (req.np < 1 || req.np > cfg_.info.cpus) {
    out.error = msg::wire(errc::invalid_processor_range, "hold of " + std::to_string(req.np) +
                                                             " CPUs on a cluster of " +
                                                             std::to_string(cfg_.info.cpus));
    return out;
  }
  if (req.expiry <= now || req.expiry > now + cfg_.max_hold) {
    out.error = msg::wire(errc::invalid_parameter,
                          "hold expiry " + ts(req.expiry) + " must be in (now, now + " +
                              std::to_string(cfg_.max_hold) + " s] with now = " + ts(now));
    return out;
  }
  if (auto ok = refresh(now); !ok) {
    out.error = msg::to_wire(ok.err());
    return out;
  }
  auto& profile = *view_.profile;
  if (req.local_jobs_preferred && req.start < view_.t_wkl) {
    // Paper 000, Sec. 3.3.2: a reservation may not bypass waiting local jobs.
    out.refused_by = msg::refused_by_service;
    out.busy_until = view_.t_wkl;
    out.error = msg::wire(errc::busy, "start " + ts(req.start) + " is before T_wkl " +
                                          ts(view_.t_wkl) + ": it would bypass waiting local jobs");
    return out;
  }
  auto busy_hint = [&] {
    auto t = profile.earliest_start(req.start, req.end - req.start, req.np);
    return t ? *t : -1;
  };
  if (auto free = profile.min_free(req.start, req.end); free && *free < req.np) {
    out.refused_by = msg::refused_by_lrms;
    out.busy_until = busy_hint();
    out.error =
        msg::wire(errc::busy, std::to_string(req.np) + " CPUs are not free over [" + ts(req.start) +
                                  ", " + ts(req.end) + ") (" + std::to_string(*free) + " free)");
    return out;
  }
  const std::string id = name() + "/" + std::to_string(next_id_++);
  auto lrms_id = lrms_->create_reservation({cfg_.name_prefix + id.substr(name().size() + 1),
                                            req.owner, req.start, req.end - req.start, req.np});
  if (!lrms_id) {
    out.refused_by = msg::refused_by_lrms;
    out.busy_until = busy_hint();
    out.error = msg::to_wire(lrms_id.err());
    view_.taken = -time_infinity;  // the view missed something: refresh next time
    return out;
  }
  auto life = reservation_lifecycle::create(req.start, req.end);
  (void)life->accept(now, req.expiry);
  record r{id,           req.txn, req.owner, *lrms_id,
           *life,        req.np,  0,         req.local_jobs_preferred ? view_.t_wkl : 0,
           time_infinity};
  if (auto c = cfg_.cost.cost(req.start, req.end, req.np, req.owner)) r.cost = *c;
  const auto state =
      req.commit_at_once ? reservation_state::committed : reservation_state::accepted;
  if (auto ok = persist(r, state); !ok) {
    // Not durable, so not granted: undo the LRMS side and keep the id unused.
    (void)lrms_->delete_reservation(*lrms_id);
    out.error = msg::to_wire(ok.err());
    return out;
  }
  if (!profile.add(req.start, req.end, req.np)) view_.taken = -time_infinity;
  records_.emplace(id, std::move(r));
  by_txn_.emplace(req.txn, id);
  expiries_.emplace(req.expiry, id);
  timeline_.emplace(req.end, id);
  out.reservation_id = id;
  out.cost = records_.at(id).cost;
  ++events_.holds_created;
  if (req.commit_at_once) {
    ++events_.commits;
    auto& rec = records_.at(id);
    (void)rec.life.apply(reservation_event::commit, now);
    expiries_.erase({rec.life.expiry(), id});
  }
  return out;
}

reservation_row cluster_service::row_of(const record& r, reservation_state state) const {
  return {r.id,
          name(),
          r.owner,
          r.txn,
          r.lrms_id,
          r.life.start(),
          r.life.end(),
          r.np,
          state,
          state == reservation_state::accepted ? r.life.expiry() : 0,
          r.admitted_after,
          r.cost};
}

status cluster_service::persist(const record& r, reservation_state state) {
  if (!cfg_.journal) return {};
  return cfg_.journal->save(row_of(r, state));
}

void cluster_service::release(record& r, reservation_event e, timestamp now, bool persisted) {
  auto del = lrms_->delete_reservation(r.lrms_id);
  if (!del && del.err().code != errc::not_found) {
    // Could not reach the LRMS: the view will be rebuilt from its truth on the next refresh.
    view_.taken = -time_infinity;
  }
  if (view_.profile) {
    const timestamp from = std::max(r.life.start(), now);
    if (from < r.life.end() && !view_.profile->remove(from, r.life.end(), r.np))
      view_.taken = -time_infinity;
  }
  expiries_.erase({r.life.expiry(), r.id});
  timeline_.erase({r.life.end(), r.id});
  (void)r.life.apply(e, now);
  // Best effort: a hold the store still shows is aborted on recovery anyway.
  if (!persisted) (void)persist(r, r.life.state());
  r.finished = now;
  finished_.emplace(now, r.id);
}

msg::ack_reply cluster_service::commit(const msg::commit_request& req, timestamp now) {
  sweep(now);
  record* found = nullptr;
  if (!req.txn.empty()) {
    if (auto it = by_txn_.find(req.txn); it != by_txn_.end()) found = &records_.at(it->second);
  } else {
    found = find_owned(req.reservation_id, req.user);
  }
  if (!found)
    return {msg::wire(errc::not_found, req.txn.empty()
                                           ? "no reservation '" + req.reservation_id + "'"
                                           : "unknown transaction '" + req.txn + "'")};
  auto& r = *found;
  switch (r.life.state()) {
    case reservation_state::committed:
    case reservation_state::active:
      return {};  // idempotent
    case reservation_state::accepted:
      // Durable before it is acknowledged: a crash after this answer must not lose it.
      if (auto ok = persist(r, reservation_state::committed); !ok) return {msg::to_wire(ok.err())};
      if (auto ok = r.life.apply(reservation_event::commit, now); !ok)
        return {msg::to_wire(ok.err())};
      expiries_.erase({r.life.expiry(), r.id});
      ++events_.commits;
      return {};
    default:
      return {msg::wire(errc::illegal_transition, "reservation '" + r.id + "' is " +
                                                      std::string(to_string(r.life.state())) +
                                                      ", cannot commit")};
  }
}

msg::ack_reply cluster_service::abort(const msg::abort_request& req, timestamp now) {
  sweep(now);
  auto it = by_txn_.find(req.txn);
  if (it == by_txn_.end()) return {};  // presumed abort: nothing held
  auto& r = records_.at(it->second);
  switch (r.life.state()) {
    case reservation_state::accepted:
      release(r, reservation_event::cancel, now);
      ++events_.aborts;
      return {};
    case reservation_state::cancelled:
    case reservation_state::expired:
      return {};
    default:
      return {msg::wire(errc::illegal_transition, "transaction '" + req.txn + "' is " +
                                                      std::string(to_string(r.life.state())) +
                                                      ", cannot abort")};
  }
}

cluster_service::record* cluster_service::find_owned(const std::string& id,
                                                     const std::string& user) {
  auto it = records_.find(id);
  if (it == records_.end() || it->second.owner != user) return nullptr;
  return &it->second;
}

msg::reservation_info cluster_service::info_of(const record& r) const {
  const bool held = r.life.state() == reservation_state::accepted;
  return {r.id,
          name(),
          r.owner,
          r.life.start(),
          r.life.end(),
          r.np,
          static_cast<std::uint8_t>(r.life.state()),
          held ? r.life.expiry() : 0,  // only a hold has an expiry
          r.admitted_after,
          r.cost};
}

msg::ack_reply cluster_service::cancel(const msg::cancel_request& req, timestamp now) {
  sweep(now);
  auto* r = find_owned(req.reservation_id, req.user);
  if (!r) return {msg::wire(errc::not_found, "no reservation '" + req.reservation_id + "'")};
  r->life.advance(now);
  switch (r->life.state()) {
    case reservation_state::accepted:
    case reservation_state::committed:
    case reservation_state::change_requested:
      // Written before the LRMS lets go: a crash must not bring a cancelled one back.
      if (auto ok = persist(*r, reservation_state::cancelled); !ok) return {msg::to_wire(ok.err())};
      release(*r, reservation_event::cancel, now, true);
      ++events_.cancels;
      return {};
    case reservation_state::active:
      if (auto ok = persist(*r, reservation_state::terminated); !ok)
        return {msg::to_wire(ok.err())};
      release(*r, reservation_event::terminate, now, true);
      ++events_.cancels;
      return {};
    case reservation_state::cancelled:
      return {};
    default:
      return {msg::wire(errc::illegal_transition, "reservation '" + r->id + "' is " +
                                                      std::string(to_string(r->life.state())))};
  }
}

msg::query_reply cluster_service::modify(const msg::modify_request& req, timestamp now) {
  sweep(now);
  auto* r = find_owned(req.reservation_id, req.user);
  if (!r) return {{}, msg::wire(errc::not_found, "no reservation '" + req.reservation_id + "'")};
  r->life.advance(now);
  if (r->life.state() != reservation_state::committed)
    return {info_of(*r),
            msg::wire(errc::illegal_transition,
                      "only a committed reservation that has not started can change; '" + r->id +
                          "' is " + std::string(to_string(r->life.state())))};
  if (req.start >= req.end || req.start < now)
    return {info_of(*r),
            msg::wire(errc::invalid_window, "new terms [" + ts(req.start) + ", " + ts(req.end) +
                                                ") are empty or in the past")};
  if (req.np < 1 || req.np > cfg_.info.cpus)
    return {info_of(*r), msg::wire(errc::invalid_processor_range,
                                   "new size " + std::to_string(req.np) + " CPUs on a cluster of " +
                                       std::to_string(cfg_.info.cpus))};
  if (auto ok = refresh(now); !ok) return {info_of(*r), msg::to_wire(ok.err())};
  if (req.local_jobs_preferred && req.start < view_.t_wkl)
    return {info_of(*r), msg::wire(errc::busy, "new start " + ts(req.start) + " is before T_wkl " +
                                                   ts(view_.t_wkl))};
  (void)r->life.apply(reservation_event::request_change, now);
  auto new_id =
      lrms_->modify_reservation(r->lrms_id, {cfg_.name_prefix + r->id.substr(name().size() + 1),
                                             r->owner, req.start, req.end - req.start, req.np});
  if (!new_id) {
    (void)r->life.apply(reservation_event::change_refused, now);
    return {info_of(*r), msg::to_wire(new_id.err())};
  }
  const reservation_spec old_terms{cfg_.name_prefix + r->id.substr(name().size() + 1), r->owner,
                                   r->life.start(), r->life.end() - r->life.start(), r->np};
  if (cfg_.journal) {
    record changed = *r;
    changed.lrms_id = *new_id;
    changed.np = req.np;
    (void)changed.life.change_terms(now, req.start, req.end);
    if (auto c = cfg_.cost.cost(req.start, req.end, req.np, r->owner)) changed.cost = *c;
    if (auto ok = persist(changed, reservation_state::committed); !ok) {
      // Not durable: put the old terms back (make-before-break again) and refuse.
      auto back = lrms_->modify_reservation(*new_id, old_terms);
      if (back) r->lrms_id = *back;
      view_.taken = -time_infinity;
      (void)r->life.apply(reservation_event::change_refused, now);
      return {info_of(*r), msg::to_wire(ok.err())};
    }
  }
  if (view_.profile) {
    const timestamp from = std::max(r->life.start(), now);
    if (!view_.profile->remove(from, r->life.end(), r->np) ||
        !view_.profile->add(req.start, req.end, req.np))
      view_.taken = -time_infinity;
  }
  timeline_.erase({r->life.end(), r->id});
  (void)r->life.change_terms(now, req.start, req.end);
  timeline_.emplace(req.end, r->id);
  r->lrms_id = *new_id;
  r->np = req.np;
  r->admitted_after = req.local_jobs_preferred ? view_.t_wkl : 0;
  if (auto c = cfg_.cost.cost(req.start, req.end, req.np, r->owner)) r->cost = *c;
  return {info_of(*r), {}};
}

msg::query_reply cluster_service::query(const msg::query_request& req, timestamp now) {
  sweep(now);
  auto* r = find_owned(req.reservation_id, req.user);
  if (!r) return {{}, msg::wire(errc::not_found, "no reservation '" + req.reservation_id + "'")};
  r->life.advance(now);
  return {info_of(*r), {}};
}

msg::list_reply cluster_service::list(const msg::list_request& req, timestamp now) {
  sweep(now);
  msg::list_reply out;
  for (auto& [id, r] : records_) {
    if (!req.user.empty() && r.owner != req.user) continue;
    r.life.advance(now);
    out.reservations.push_back(info_of(r));
  }
  std::sort(out.reservations.begin(), out.reservations.end(), [](const auto& a, const auto& b) {
    return std::tie(a.start, a.id) < std::tie(b.start, b.id);
  });
  return out;
}

msg::bind_job_reply cluster_service::bind_job(const msg::bind_job_request& req, timestamp now) {
  sweep(now);
  auto* r = find_owned(req.reservation_id, req.user);
  if (!r) return {{}, msg::wire(errc::not_found, "no reservation '" + req.reservation_id + "'")};
  r->life.advance(now);
  if (r->life.state() != reservation_state::committed &&
      r->life.state() != reservation_state::active)
    return {{},
            msg::wire(errc::illegal_transition, "reservation '" + r->id + "' is " +
                                                    std::string(to_string(r->life.state())) +
                                                    "; jobs bind to committed reservations")};
  if (req.np < 1 || req.np > r->np)
    return {{},
            msg::wire(errc::invalid_processor_range, "job of " + std::to_string(req.np) +
                                                         " CPUs in a reservation of " +
                                                         std::to_string(r->np))};
  if (req.walltime <= 0)
    return {{},
            msg::wire(errc::invalid_duration,
                      "walltime " + std::to_string(req.walltime) + " s must be positive")};
  auto job = lrms_->submit_job({req.name, req.user, req.np, req.walltime, r->lrms_id, req.command});
  if (!job) return {{}, msg::to_wire(job.err())};
  return {*job, {}};
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
  if (req.np > cfg_.info.cpus) return out;  // never starts here
  auto snap = lrms_->snapshot();
  if (!snap) {
    out.error = msg::to_wire(snap.err());
    return out;
  }
  auto start = estimate_earliest_start(to_workload(*snap), now, now, req.walltime, req.np,
                                       ese_policy::local_jobs_preferred);
  if (start)
    out.start = *start;
  else if (start.err().code != errc::infeasible)
    out.error = msg::to_wire(start.err());
  return out;
}

msg::cluster_status cluster_service::status_report(timestamp now) {
  sweep(now);
  msg::cluster_status out;
  out.cluster = name();
  out.now = now;
  out.cpus = cfg_.info.cpus;
  if (auto ok = refresh(now); !ok) out.error = msg::to_wire(ok.err());
  if (auto snap = lrms_->snapshot()) {
    for (const auto& r : snap->reservations)
      out.lrms_reservations.push_back({r.name, name(), r.owner, r.start, r.end, r.np, 0, 0, 0, 0});
    for (const auto& j : snap->running) {
      if (j.reservation) continue;  // runs on its reservation's CPUs
      const timestamp started = j.started.value_or(now);
      out.lrms_running.push_back(
          {j.id, name(), j.owner, started, started + j.walltime, j.np, 0, 0, 0, 0});
    }
  }
  out.running_jobs = view_.running;
  out.queued_jobs = view_.queued;
  for (auto& [id, r] : records_) {
    r.life.advance(now);
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
  return out;
}

void cluster_service::sweep(timestamp now) {
  while (!expiries_.empty() && expiries_.begin()->first <= now) {
    const std::string id = expiries_.begin()->second;
    expiries_.erase(expiries_.begin());
    auto& r = records_.at(id);
    if (r.life.state() == reservation_state::accepted) {
      release(r, reservation_event::expire, now);
      ++events_.expiries;
    }
  }
  while (!timeline_.empty() && timeline_.begin()->first <= now) {
    const std::string id = timeline_.begin()->second;
    timeline_.erase(timeline_.begin());
    auto& r = records_.at(id);
    r.life.advance(now);
    if (is_terminal(r.life.state())) {
      r.finished = now;
      finished_.emplace(now, id);
    }
  }
  while (!finished_.empty() && finished_.begin()->first + cfg_.retention <= now) {
    const std::string id = finished_.begin()->second;
    finished_.erase(finished_.begin());
    auto it = records_.find(id);
    if (it == records_.end()) continue;
    by_txn_.erase(it->second.txn);
    records_.erase(it);
    if (cfg_.journal) (void)cfg_.journal->forget(id);
  }
}

std::optional<timestamp> cluster_service::next_expiry() const {
  if (expiries_.empty()) return std::nullopt;
  return expiries_.begin()->first;
}

}  // namespace arbroker
