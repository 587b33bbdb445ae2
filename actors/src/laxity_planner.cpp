#include "arbroker/actors/laxity_planner.hpp"

#include <algorithm>

namespace arbroker {

laxity_planner::movable_set laxity_planner::movable(const reservation_ledger& ledger,
                                                    const availability_profile& base,
                                                    timestamp now) {
  movable_set out{{}, base};
  for (std::uint64_t n : ledger.movable()) {
    const auto& r = *ledger.find(n);
    if (r.life.state() != reservation_state::committed || r.life.start() <= now) continue;
    if (!out.fixed.remove(r.life.start(), r.life.end(), r.np)) continue;
    out.jobs.push_back(
        {n, r.earliest, r.life.end() - r.life.start(), r.deadline, r.np, r.life.start()});
  }
  return out;
}

std::size_t laxity_planner::apply(const std::vector<laxity_job>& jobs,
                                  const std::vector<timestamp>& starts, const mover& move) {
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < jobs.size() && i < starts.size(); ++i)
    if (starts[i] != jobs[i].start) pending.push_back(i);
  std::sort(pending.begin(), pending.end(), [&](std::size_t a, std::size_t b) {
    const bool fa = starts[a] < jobs[a].start, fb = starts[b] < jobs[b].start;
    if (fa != fb) return fa;
    return fa ? starts[a] < starts[b] : starts[a] > starts[b];
  });
  std::size_t moved = 0;
  for (bool progress = true; progress && !pending.empty();) {
    progress = false;
    for (auto it = pending.begin(); it != pending.end();) {
      if (move(jobs[*it].key, starts[*it])) {
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

bool laxity_planner::make_room(const reservation_ledger& ledger, timestamp start, timestamp end,
                               int np, const availability_profile& free, timestamp now,
                               const mover& move) {
  auto lv = movable(ledger, free, now);
  if (lv.jobs.empty()) return false;
  // The new span is pinned at its terms: for a hold, the plan around it is the one the advisor
  // showed (advise() placed it at this start in the same EDF order).
  auto plan = admit_with_laxity(lv.fixed, lv.jobs, pinned_job(start, end, np), now);
  if (!plan) return false;  // no plan takes it: the span is refused on the view as it is
  return apply(lv.jobs, plan->starts, move) > 0;
}

std::size_t laxity_planner::pull_forward(const reservation_ledger& ledger,
                                         const availability_profile& base, timestamp now,
                                         const mover& move) {
  auto lv = movable(ledger, base, now);
  if (lv.jobs.empty()) return 0;
  auto starts = arbroker::pull_forward(lv.fixed, lv.jobs, now);
  return starts ? apply(lv.jobs, *starts, move) : 0;
}

void laxity_planner::advise(const reservation_ledger& ledger, int cpus, timestamp ready,
                            timestamp deadline, const std::vector<job_shape>& shapes,
                            const availability_profile& free, timestamp now,
                            msg::advice_reply& out) {
  out.meets_qos = false;
  out.zeta = 0;
  const auto lv = movable(ledger, free, now);
  for (const auto& shape : shapes) {
    if (shape.np < 1 || shape.np > cpus || shape.dur <= 0 || ready > deadline - shape.dur) continue;
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
