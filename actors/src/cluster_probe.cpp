// The probe of a cluster reservation service (paper 000, Sec. 3.2.2-3.2.3): the candidates
// of a request adapted to this cluster, their properties, and what the broker needs to rank
// them, in the steps below.

#include <algorithm>
#include <optional>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/core/esr_static.hpp"
#include "arbroker/core/slot_generation.hpp"

namespace arbroker {

msg::probe_reply cluster_service::probe(const msg::probe_request& req, timestamp now) {
  msg::probe_reply out;
  out.cluster = name();
  auto failed = [&out](const error& e) {
    out.error = msg::to_wire(e);
    return out;
  };
  sweep(now);
  if (auto ok = refresh(now); !ok) return failed(ok.err());
  out.t_wkl = view_.capacity().t_wkl();
  if (req.keep < 0)
    return failed(
        fail(errc::invalid_parameter, "keep must be >= 0, not " + std::to_string(req.keep)));
  // Without the cluster's name: every candidate is this cluster's, and a probe makes
  // hundreds of them (the name goes into the few slots it sends).
  auto cands = generate_candidates({}, req.site, req.slotting);
  if (!cands) return failed(cands.err());
  out.generated = static_cast<std::int32_t>(cands->size());
  auto rule = admission_for(req.local_jobs_preferred, req.admin, now);
  if (!rule) return failed(rule.err());
  const auto passed = rate_and_filter(*cands, req, now);
  out.above_threshold = static_cast<std::int32_t>(passed.size());
  auto fit = check_and_price(*cands, passed, req, *rule, out.available, now);
  if (!fit) return failed(fit.err());
  if (auto ok = select_best(*fit, req, out.slots); !ok) return failed(ok.err());
  if (req.want_windows) out.windows = feasible_windows(req, *rule, now);
  return out;
}

msg::probe_batch_reply cluster_service::probe_batch(const msg::probe_batch_request& req,
                                                    timestamp now) {
  msg::probe_batch_reply out;
  out.replies.reserve(req.probes.size());
  for (const auto& p : req.probes)
    out.replies.push_back(probe(p, now));
  return out;
}

// Step 5, first half: every candidate's esr (when asked for), and the threshold filter.
// Returns the indices into `cands` that passed, in generation order.
std::vector<std::size_t> cluster_service::rate_and_filter(std::vector<candidate>& cands,
                                                          const msg::probe_request& req,
                                                          timestamp now) const {
  std::vector<std::size_t> passed;
  passed.reserve(cands.size());
  for (std::size_t i = 0; i < cands.size(); ++i) {
    auto& c = cands[i];
    if (req.want_esr) {
      c.props.esr = esr_of(req.esr, c.start, c.end, c.np, now);
      if (req.esr_threshold >= 0 && *c.props.esr < req.esr_threshold) continue;
    }
    passed.push_back(i);
  }
  return passed;
}

// Step 5, second half: availability under the site's LJP rule (`rule`, as prepare checks
// it) and the price, of the candidates that passed the threshold. When only the best `keep` are
// wanted and the preferences start with what the slot alone decides (the end, say), candidates are
// checked in that order and only as far down as the best `keep` can still reach: those
// strictly worse on that prefix than the keep-th fitting one cannot be among the best (the
// rest is fetched by a refill). `available` is set to those that fit plus those left
// unchecked, so that it exceeds what is sent whenever more may fit. The result keeps the
// generation order.
result<std::vector<candidate>> cluster_service::check_and_price(
    std::vector<candidate>& cands, std::vector<std::size_t> passed, const msg::probe_request& req,
    const admission& rule, std::int32_t& available, timestamp now) const {
  const preferences prefix = slot_prefix(req.prefer);
  const bool lazy = req.keep > 0 && !prefix.empty();
  std::vector<slot_key> keys;  // by index into cands: the prefix as numbers
  if (lazy) {
    keys.resize(cands.size());
    for (auto i : passed)
      keys[i] = slot_key_of(cands[i], prefix);
    std::sort(passed.begin(), passed.end(), [&](std::size_t a, std::size_t b) {
      return std::tie(keys[a], a) < std::tie(keys[b], b);  // ties in generation order
    });
  }
  const auto& profile = *rule.free;
  // Paper 002: on a laxity cluster a slot that does not fit as things are may still be had
  // by moving accepted reservations within their windows, as prepare would (make_room).
  std::optional<laxity_planner::movable_set> lax;
  auto fits_with_moves = [&](const candidate& c) {
    if (!cfg_.laxity || ledger_.movable().empty()) return false;
    if (!lax) lax = laxity_planner::movable(ledger_, profile, now);
    if (lax->jobs.empty()) return false;
    return static_cast<bool>(
        admit_with_laxity(lax->fixed, lax->jobs, pinned_job(c.start, c.end, c.np), now));
  };
  std::vector<std::size_t> fit_index;  // into cands, of the candidates that fit
  std::size_t checked = 0;
  for (; checked < passed.size(); ++checked) {
    auto& c = cands[passed[checked]];
    if (lazy && fit_index.size() >= static_cast<std::size_t>(req.keep) &&
        keys[passed[checked]] > keys[fit_index.back()])
      break;  // this one and all after it are worse than keep fitting ones
    if (req.check_availability) {
      if (c.start < rule.not_before) continue;
      if (!profile.fits(c.start, c.end, c.np) && !fits_with_moves(c)) continue;
    }
    if (req.want_cost) {  // priced last: only what may be returned
      auto cost = cost_for(c.start, c.end, c.np, req.user);
      if (!cost) return cost.err();
      c.props.cost = *cost;
    }
    fit_index.push_back(passed[checked]);
  }
  // Ties keep the generation order, as if every candidate had been checked.
  std::sort(fit_index.begin(), fit_index.end());
  std::vector<candidate> fit;
  fit.reserve(fit_index.size());
  for (auto i : fit_index)
    fit.push_back(std::move(cands[i]));
  available = static_cast<std::int32_t>(fit.size() + (passed.size() - checked));
  return fit;
}

// Step 6 on this side: the best `keep` (all when 0) in the requester's order, or all in
// generation order when it sent no preferences.
status cluster_service::select_best(const std::vector<candidate>& fit,
                                    const msg::probe_request& req,
                                    std::vector<msg::slot>& slots) const {
  const std::size_t send =
      req.keep > 0 ? std::min<std::size_t>(fit.size(), static_cast<std::size_t>(req.keep))
                   : fit.size();
  slots.reserve(send);
  auto add = [&](const candidate& c) {
    slots.push_back(msg::to_slot(c));
    slots.back().cluster = name();
  };
  if (req.prefer.empty()) {
    for (std::size_t i = 0; i < send; ++i)
      add(fit[i]);
    return {};
  }
  auto order = preference_order(fit, req.prefer, send);
  if (!order) return order.err();
  for (std::size_t i = 0; i < send; ++i)
    add(fit[(*order)[i]]);
  return {};
}

// Paper 000, Sec. 3.2.3: the estimated success rate of [start, end) x np by `method`.
double cluster_service::esr_of(esr_method method, timestamp start, timestamp end, int np,
                               timestamp now) const {
  switch (method) {
    case esr_method::static_:
      return esr_static(start - now, cfg_.esr_static_h).value_or(0.0);
    case esr_method::history:
      return view_.esr_history().esr(start, end, np).value_or(0.0);
    case esr_method::load:
      return esr_load(start, view_.capacity().t_wkl());
  }
  return 0.0;
}

msg::busy_hint_reply cluster_service::busy_hint(const msg::busy_hint_request& req, timestamp now) {
  msg::busy_hint_reply out;
  out.cluster = name();
  sweep(now);
  if (auto ok = refresh(now); !ok) {
    out.error = msg::to_wire(ok.err());
    return out;
  }
  if (req.site.shapes.empty()) return out;
  auto rule = admission_for(req.local_jobs_preferred, req.admin, now);
  if (!rule) {
    out.error = msg::to_wire(rule.err());
    return out;
  }
  const auto& smallest = req.site.shapes.front();
  const timestamp from = std::max(req.site.est, rule->not_before);
  if (auto t = rule->free->earliest_start(from, smallest.dur, smallest.np)) out.earliest_fit = *t;
  return out;
}

// Per shape, the stretches of start times in the window at which it fits (co-reservations
// intersect them across clusters), with the price of one second at each stretch's start.
// With a success-rate threshold (want_esr), each stretch keeps only the starts whose esr
// reaches it, looked at every tss_gap seconds (at most 4096 looks a stretch): the load
// method's esr steps up once at T_wkl and the static one falls with the booking distance,
// so for them the cut is exact to a step; the history method's is sampled.
std::vector<msg::start_window> cluster_service::feasible_windows(const msg::probe_request& req,
                                                                 const admission& rule,
                                                                 timestamp now) const {
  std::vector<msg::start_window> out;
  const timestamp from = std::max(req.site.est, rule.not_before);
  for (const auto& shape : req.site.shapes) {
    const timestamp lst = req.site.let - shape.dur;
    if (shape.dur > req.site.let - req.site.est || from > lst) continue;
    auto win = rule.free->feasible_starts(from, lst, shape.dur, shape.np);
    if (!win) continue;
    for (const auto& w : *win) {
      auto add = [&](timestamp first, timestamp last) {
        double per_second = 0;
        if (auto c = cost_for(first, first + 1, shape.np, req.user)) per_second = *c;
        out.push_back({shape.np, shape.dur, first, last, per_second});
      };
      if (!req.want_esr || req.esr_threshold < 0) {
        add(w.first, w.last);
        continue;
      }
      duration step = std::max<duration>(req.slotting.tss_gap, 1);
      step = std::max<duration>(step, (w.last - w.first) / 4096 + 1);
      std::optional<timestamp> run;  // first passing start of the current run
      timestamp prev = w.first;
      for (timestamp t = w.first;; t = std::min(t + step, w.last)) {
        const bool pass = esr_of(req.esr, t, t + shape.dur, shape.np, now) >= req.esr_threshold;
        if (pass && !run) run = t;
        if (!pass && run) {
          add(*run, prev);
          run.reset();
        }
        prev = t;
        if (t == w.last) break;
      }
      if (run) add(*run, w.last);
    }
  }
  return out;
}

}  // namespace arbroker
