// Recovery of a cluster service after a restart: the journal's rows settled by the
// recovery plan and matched with what the LRMS still holds (see cluster_service::recover).

#include <algorithm>

#include "arbroker/actors/cluster_service.hpp"

namespace arbroker {
namespace {

// A lifecycle in state `target` for a reservation over [start, end) as of `now`, replayed
// through the legal events (the state machine has no setter, on purpose).
result<reservation_lifecycle> restored_lifecycle(timestamp start, timestamp end,
                                                 reservation_state target, timestamp now) {
  auto life = reservation_lifecycle::create(start, end);
  if (!life) return life.err();
  const timestamp t0 = start - 1;  // before anything time-driven can happen
  (void)life->accept(t0, start);
  using rs = reservation_state;
  switch (target) {
    case rs::cancelled:
      (void)life->apply(reservation_event::cancel, t0);
      break;
    case rs::expired:
      life->advance(start);
      break;
    case rs::terminated:
      (void)life->apply(reservation_event::commit, t0);
      life->advance(start);
      (void)life->apply(reservation_event::terminate, start);
      break;
    default:  // committed, and what time makes of it by now (active, completed)
      (void)life->apply(reservation_event::commit, t0);
      life->advance(now);
      break;
  }
  if (target != rs::committed && life->state() != target)
    return fail(errc::illegal_transition,
                "cannot restore a reservation in state " + std::string(to_string(target)));
  return life;
}

}  // namespace

void cluster_service::adopt(record r, timestamp now) {
  const std::uint64_t n = r.serial = serial_of(r.id);
  const bool finished = is_terminal(r.life.state());
  if (!finished) timeline_.emplace(r.life.end(), n);
  if (!r.txn.empty()) by_txn_.emplace(r.txn, n);
  if (r.deadline != 0 && !finished) movable_.insert(n);
  auto& rec = records_.emplace(n, std::move(r)).first->second;
  index_record(rec);
  if (finished)
    mark_finished(rec, now);
  else
    watch_overrun(rec);
}

status cluster_service::recover(const std::vector<reservation_row>& rows, const recovery_plan& plan,
                                timestamp now, recovery_report& report) {
  now_ = now;
  auto snap = lrms_->snapshot();
  if (!snap) return snap.err();
  if (cfg_.journal) {  // ids of finished reservations are history: never given again
    auto last = cfg_.journal->last_serial(name());
    if (!last) return last.err();
    next_id_ = std::max(next_id_, *last + 1);
  }
  std::unordered_map<std::string, const lrms_reservation*> by_id;
  std::unordered_map<std::string, const lrms_reservation*> by_name;
  for (const auto& lr : snap->reservations) {
    by_id.emplace(lr.id, &lr);
    by_name.emplace(lr.name, &lr);
  }
  std::set<std::string> claimed;  // LRMS ids some row accounts for
  for (const auto& row : rows) {
    const auto n = serial_of(row.id);
    if (row.cluster != name() || n == 0) continue;  // not an id this service gives
    next_id_ = std::max(next_id_, n + 1);
    const std::string name_there = lrms_name(n);
    const lrms_reservation* found = nullptr;
    if (auto it = by_id.find(row.lrms_id); it != by_id.end())
      found = it->second;
    else if (auto jt = by_name.find(name_there); jt != by_name.end())
      found = jt->second;
    if (found) claimed.insert(found->id);

    std::string lrms_id = row.lrms_id;
    int np = row.np;
    timestamp start = row.start;
    timestamp end = row.end;
    auto target =
        row.state == reservation_state::change_requested ? reservation_state::committed : row.state;
    if (target == reservation_state::accepted) {
      if (plan.commit_txns.count(decision_txn(row.txn))) {
        target = reservation_state::committed;  // the coordinator decided commit
        ++report.completed_holds;
      } else {
        target = reservation_state::cancelled;  // presumed abort
        ++report.aborted_holds;
      }
    } else if (holds_capacity(target) && plan.compensate_ids.count(row.id)) {
      target = start <= now ? reservation_state::terminated : reservation_state::cancelled;
      ++report.compensated;
    }
    const bool live = holds_capacity(target) && end > now;
    if (live && found) {
      // The LRMS is the truth on terms (a modify may have landed just before the crash).
      lrms_id = found->id;
      start = found->start;
      end = found->end;
      np = found->np;
      ++report.restored;
    } else if (live && lrms_->kind() == "simulated") {
      const timestamp from = std::max(start, now);
      auto made =
          lrms_->create_reservation({name_there, row.owner, from, end - from, row.np, row.account});
      if (made) {
        lrms_id = *made;
        ++report.recreated;
      } else {
        target = start <= now ? reservation_state::terminated : reservation_state::cancelled;
        ++report.lost;
      }
    } else if (live) {
      target = start <= now ? reservation_state::terminated : reservation_state::cancelled;
      ++report.lost;
    } else if (found && end > now) {
      (void)lrms_->delete_reservation(found->id);  // an aborted hold or a compensated part
    }
    auto life = restored_lifecycle(start, end, target, now);
    if (!life) return life.err();
    record r{row.id, row.txn,  row.owner,          lrms_id,      std::move(*life),
             np,     row.cost, row.admitted_after, time_infinity};
    r.account = row.account;
    r.created = row.created;
    r.window_start = row.window_start;
    r.window_end = row.window_end;
    // A movable one stays movable where the cluster moves reservations and its terms are
    // still within its window.
    if (cfg_.laxity && row.deadline != 0 && row.earliest <= start && end <= row.deadline) {
      r.earliest = row.earliest;
      r.deadline = row.deadline;
    }
    // Ended meanwhile (completed while the node was down, aborted, lost): history from now.
    const bool ended = is_terminal(r.life.state());
    const bool changed = target != row.state || lrms_id != row.lrms_id || start != row.start ||
                         end != row.end || np != row.np || ended;
    if (changed) {
      const auto state = target == reservation_state::committed && !ended ? target : r.life.state();
      if (auto ok = persist(r, state); !ok) return ok.err();
    }
    adopt(std::move(r), now);
  }
  // Ours in the LRMS but in no row: created just before a crash, never answered for.
  for (const auto& lr : snap->reservations) {
    if (claimed.count(lr.id) || lr.name.compare(0, cfg_.name_prefix.size(), cfg_.name_prefix))
      continue;
    const auto n = number_in(std::string_view(lr.name).substr(cfg_.name_prefix.size()));
    if (n == 0) continue;  // not a name we give
    (void)lrms_->delete_reservation(lr.id);
    next_id_ = std::max(next_id_, n + 1);
    ++report.orphans;
  }
  return refresh(now, true);
}

}  // namespace arbroker
