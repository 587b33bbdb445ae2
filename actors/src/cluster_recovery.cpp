// Recovery of a cluster service after a restart: the journal's rows settled by the
// recovery plan and matched with what the LRMS still holds (see cluster_service::recover),
// and the service's claim of its names there (lrms_claim: the prefix, the lease of ids).

#include <algorithm>
#include <limits>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/actors/row_recovery.hpp"

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

// A hold restored as a hold (keep_in_doubt_holds): accepted until `expiry`.
result<reservation_lifecycle> held_lifecycle(timestamp start, timestamp end, timestamp expiry) {
  auto life = reservation_lifecycle::create(start, end);
  if (!life) return life.err();
  if (auto ok = life->accept(std::min(expiry, start) - 1, expiry); !ok) return ok.err();
  return life;
}

}  // namespace

status cluster_service::adopt(record r, timestamp now) {
  r.serial = serial_of(r.id);
  auto rec = ledger_.add(std::move(r), now);
  if (!rec) return rec.err();
  if (!is_terminal((*rec)->life.state())) watch_overrun(**rec);
  return {};
}

status cluster_service::recover(const std::vector<reservation_row>& rows, const recovery_plan& plan,
                                timestamp now, recovery_report& report) {
  now_ = now;
  auto snap = lrms_->snapshot();
  if (!snap) return snap.err();
  // Which names under our prefix we may have given: those below the lease (lrms_names).
  // Without a journal, every one (the node claims its prefix by configuration alone).
  std::uint64_t lease = std::numeric_limits<std::uint64_t>::max();
  if (cfg_.journal) {  // ids of finished reservations are history: never given again
    auto last = cfg_.journal->last_serial(name());
    if (!last) return last.err();
    next_id_ = std::max(next_id_, *last + 1);
    auto claim = cfg_.journal->claim_of(name());
    if (!claim) return claim.err();
    auto at_restart = names_.lease_at_restart(*claim, *last);
    if (!at_restart) return at_restart.err();
    lease = *at_restart;
    // The transactions that ended most recently, as before the restart: a late prepare of
    // one is still refused, and a decision settler's commit of a part a compensation
    // released still hears "cancelled", not "no part here" (decision_settler.hpp).
    history_query newest;
    newest.limit = ledger_.remembered_txns();
    newest.cluster = name();
    auto ended = cfg_.journal->finished_rows(newest);
    if (!ended) return ended.err();
    for (auto it = ended->rbegin(); it != ended->rend(); ++it)  // oldest first, as they ended
      ledger_.remember_ended(it->txn, it->id, it->state);
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
    const std::string name_there = names_.name_of(n);
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
    const auto rule = recover_row(row, plan, cfg_.keep_in_doubt_holds, found != nullptr,
                                  lrms_->kind() == "simulated", now, report);
    auto target = rule.target;
    const bool kept_hold = rule.kept_hold;
    switch (rule.step) {
      case lrms_step::restore:  // the LRMS is the truth on terms
        lrms_id = found->id;
        start = found->start;
        end = found->end;
        np = found->np;
        break;
      case lrms_step::recreate: {
        const timestamp from = std::max(start, now);
        auto made = lrms_->create_reservation(
            {name_there, row.owner, from, end - from, row.np, row.account});
        if (made) {
          lrms_id = *made;
          ++report.recreated;
        } else {
          target = ended_early(start, now);
          ++report.lost;
        }
        break;
      }
      case lrms_step::remove:
        // Deleted now, or tried again on every sweep.
        if (auto del = lrms_->delete_reservation(found->id);
            !del && del.err().code != errc::not_found)
          undeleted_[found->id] = end;
        break;
      case lrms_step::none:
        break;
    }
    auto life = kept_hold ? held_lifecycle(start, end, row.expiry)
                          : restored_lifecycle(start, end, target, now);
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
    if (auto ok = adopt(std::move(r), now); !ok) return ok;  // (a kept hold: pending)
  }
  if (auto ok = settle_unclaimed(*snap, claimed, lease, now, report); !ok) return ok;
  if (cfg_.journal) {  // the claim, and the first block of ids, before anything is given
    const std::uint64_t upto = next_id_ + lrms_names::lease_block;
    if (auto ok = cfg_.journal->save_claim(name(), {names_.prefix(), upto}); !ok) return ok;
    names_.leased(upto);
  }
  return refresh(now, true);
}

status cluster_service::lease(std::uint64_t n) {
  const auto upto = names_.lease_for(n);
  if (!cfg_.journal || !upto) return {};
  if (auto ok = cfg_.journal->save_claim(name(), {names_.prefix(), *upto}); !ok) return ok;
  names_.leased(*upto);
  return {};
}

status cluster_service::settle_unclaimed(const lrms_snapshot& snap,
                                         const std::set<std::string>& claimed, std::uint64_t lease,
                                         timestamp now, recovery_report& report) {
  std::vector<std::pair<std::uint64_t, const lrms_reservation*>> foreign;
  for (const auto& lr : snap.reservations) {
    if (claimed.count(lr.id)) continue;
    const auto [what, n] = names_.classify(lr.name, lease);
    if (what == lrms_names::unclaimed::not_ours) continue;
    if (what == lrms_names::unclaimed::foreign) {
      foreign.emplace_back(n, &lr);
      continue;
    }
    // Ours but in no row: created just before a crash, never answered for.
    (void)lrms_->delete_reservation(lr.id);
    next_id_ = std::max(next_id_, n + 1);
    ++report.orphans;
  }
  if (foreign.empty()) return {};
  if (!cfg_.adopt_foreign) {
    std::string names;
    for (std::size_t i = 0; i < foreign.size() && i < 5; ++i) {
      const auto& lr = *foreign[i].second;
      names += (i ? ", " : "") + lr.name + " (" + lr.owner + ", " + std::to_string(lr.np) +
               " CPUs, [" + std::to_string(lr.start) + ", " + std::to_string(lr.end) + "))";
    }
    if (foreign.size() > 5) names += " and " + std::to_string(foreign.size() - 5) + " more";
    return fail(errc::in_use, "the LRMS holds " + std::to_string(foreign.size()) +
                                  " reservation(s) named '" + cfg_.name_prefix +
                                  "<n>' that this node did not make: " + names +
                                  "; another node uses the same name_prefix (give each node its "
                                  "own), or this node's store was lost (start with --adopt to "
                                  "take them over)");
  }
  // Taken over: committed reservations of ours from now on, with the LRMS's terms.
  for (const auto& [n, lr] : foreign) {
    auto life = restored_lifecycle(lr->start, lr->end, reservation_state::committed, now);
    if (!life) return life.err();
    record r{name() + "/" + std::to_string(n),
             "",
             lr->owner,
             lr->id,
             std::move(*life),
             lr->np,
             0,
             0,
             time_infinity};
    r.account = lr->account;
    r.created = now;
    if (auto c = cost_for(lr->start, lr->end, lr->np, lr->owner)) r.cost = *c;
    if (auto ok = persist(r, r.life.state()); !ok) return ok;
    next_id_ = std::max(next_id_, n + 1);
    if (auto ok = adopt(std::move(r), now); !ok) return ok;
    ++report.adopted;
  }
  return {};
}

}  // namespace arbroker
