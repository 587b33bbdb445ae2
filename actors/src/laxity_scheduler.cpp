// The RLC scheduler of paper 002 (Sec. 3, 4, 5.3) in a cluster reservation service with
// `laxity = true`: committed reservations that came with a window are kept in an
// earliest-deadline-first plan (core/laxity_plan.hpp) and moved on the LRMS when the plan
// changes, make-before-break, as an owner's modify is. Holds and started reservations never
// move. The match advisor reports where a new job would go in that plan and how far it
// pushes the accepted ones (zeta, eq. 3.3), which is what MLI ranks by.

#include <algorithm>

#include "arbroker/actors/cluster_service.hpp"

namespace arbroker {

cluster_service::laxity_view cluster_service::movable(const availability_profile& base,
                                                      timestamp now) const {
  laxity_view out{{}, base};
  for (std::uint64_t n : ledger_.movable()) {
    const record& r = *ledger_.find(n);
    if (r.life.state() != reservation_state::committed || r.life.start() <= now) continue;
    // A span the base does not hold (a stale view) stays where it is, as if rigid.
    if (!out.fixed.remove(r.life.start(), r.life.end(), r.np)) continue;
    out.jobs.push_back(
        {n, r.earliest, r.life.end() - r.life.start(), r.deadline, r.np, r.life.start()});
  }
  return out;
}

bool cluster_service::move(const record& r, timestamp start, timestamp now) {
  record moved = r;
  (void)moved.life.apply(reservation_event::request_change, now);
  (void)moved.life.change_terms(now, start, start + (r.life.end() - r.life.start()));
  if (!replace_terms(r, std::move(moved), now)) return false;
  ++events_.moves;
  return true;
}

std::size_t cluster_service::apply_moves(const std::vector<laxity_job>& jobs,
                                         const std::vector<timestamp>& starts, timestamp now) {
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (starts[i] != jobs[i].start) pending.push_back(i);
  // Make-before-break needs each new span free while the others are still where they were:
  // moves forward first (earliest first), then moves back (latest first); a move the LRMS
  // refuses is tried again after the others made room.
  std::sort(pending.begin(), pending.end(), [&](std::size_t a, std::size_t b) {
    const bool fa = starts[a] < jobs[a].start, fb = starts[b] < jobs[b].start;
    if (fa != fb) return fa;
    return fa ? starts[a] < starts[b] : starts[a] > starts[b];
  });
  std::size_t moved = 0;
  for (bool progress = true; progress && !pending.empty();) {
    progress = false;
    for (auto it = pending.begin(); it != pending.end();) {
      if (move(*ledger_.find(jobs[*it].key), starts[*it], now)) {
        it = pending.erase(it);
        progress = true;
        ++moved;
      } else {
        ++it;
      }
    }
  }
  return moved;
}

bool cluster_service::make_room(timestamp start, timestamp end, int np,
                                const availability_profile& free, timestamp now) {
  auto lv = movable(free, now);
  if (lv.jobs.empty()) return false;
  // The new span is pinned at its terms: for a hold, the plan around it is the one the advisor
  // showed (advise_with_laxity placed it at this start in the same EDF order).
  auto plan = admit_with_laxity(lv.fixed, lv.jobs, pinned_job(start, end, np), now);
  if (!plan) return false;  // no plan takes it: admit() refuses it on the view as it is
  return apply_moves(lv.jobs, plan->starts, now) > 0;
}

result<cluster_service::admission> cluster_service::with_room(timestamp start, timestamp end,
                                                              int np, admission rule, bool ljp,
                                                              bool admin, timestamp now) {
  if (!cfg_.laxity || ledger_.movable().empty() || !make_room(start, end, np, *rule.free, now))
    return rule;
  // Reservations moved: the view changed (and the plan of the queue is made again).
  if (auto ok = refresh(now); !ok) return ok.err();
  return admission_for(ljp, admin, now);
}

void cluster_service::pull_forward_moves(timestamp now) {
  pull_due_ = false;
  if (!refresh(now)) return;
  // Under LJP's `ese` the queued local jobs keep their planned starts here too.
  const auto& base = view_.plans_queue() ? view_.capacity().planned(now) : view_.profile();
  auto lv = movable(base, now);
  if (lv.jobs.empty()) return;
  auto starts = pull_forward(lv.fixed, lv.jobs, now);
  if (starts) (void)apply_moves(lv.jobs, *starts, now);
}

void cluster_service::advise_with_laxity(timestamp ready, timestamp deadline,
                                         const std::vector<job_shape>& shapes,
                                         const availability_profile& free, timestamp now,
                                         msg::advice_reply& out) const {
  out.meets_qos = false;
  out.zeta = 0;
  const auto lv = movable(free, now);
  for (const auto& shape : shapes) {
    if (shape.np < 1 || shape.np > cfg_.info.cpus || shape.dur <= 0 || ready > deadline - shape.dur)
      continue;
    // Key 0: serials start at 1.
    const laxity_job job{0, ready, shape.dur, deadline, shape.np, 0};
    auto a = admit_with_laxity(lv.fixed, lv.jobs, job, now);
    if (!a) continue;
    const timestamp end = a->start + shape.dur;
    if (out.meets_qos && (end > out.end || (end == out.end && shape.np >= out.np))) continue;
    out.meets_qos = true;
    out.np = shape.np;
    out.start = a->start;
    out.end = end;
    out.zeta = a->zeta;
  }
}

}  // namespace arbroker
