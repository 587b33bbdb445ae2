// The laxity planner's moves carried out by the cluster service (the planner itself, paper
// 002's RLC scheduler, is laxity_planner.hpp): each as an owner's modify is,
// make-before-break on the LRMS, then durable, then in the view and the ledger.

#include "arbroker/actors/cluster_service.hpp"

namespace arbroker {

laxity_planner::mover cluster_service::mover(timestamp now) {
  return [this, now](std::uint64_t serial, timestamp start) {
    const record& r = *ledger_.find(serial);
    record moved = r;
    (void)moved.life.apply(reservation_event::request_change, now);
    (void)moved.life.change_terms(now, start, start + (r.life.end() - r.life.start()));
    if (!replace_terms(r, std::move(moved), now)) return false;
    ++events_.moves;
    return true;
  };
}

result<cluster_service::admission> cluster_service::with_room(timestamp start, timestamp end,
                                                              int np, admission rule, bool ljp,
                                                              bool admin, timestamp now) {
  if (!cfg_.laxity || ledger_.movable().empty() ||
      !laxity_planner::make_room(ledger_, start, end, np, *rule.free, now, mover(now)))
    return rule;
  // Reservations moved: the view changed (and the plan of the queue is made again).
  if (auto ok = refresh(now); !ok) return ok.err();
  return admission_for(ljp, admin, now);
}

void cluster_service::pull_forward_moves(timestamp now) {
  if (!laxity_.take_pull() || !refresh(now)) return;
  // Under LJP's `ese` the queued local jobs keep their planned starts here too.
  const auto& base = view_.plans_queue() ? view_.capacity().planned(now) : view_.profile();
  (void)laxity_planner::pull_forward(ledger_, base, now, mover(now));
}

}  // namespace arbroker
