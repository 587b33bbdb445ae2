// Jobs that overrun their reservation (paper 002, Sec. 5.3): "if a job takes longer to finish
// than its estimated runtime, the schedulability analysis is triggered to see if a small
// quantum of time can be allocated to the job without violating the QoS constraints of the
// other jobs in schedule ... more than one quanta if doing so does not result in violation
// ... Otherwise, the job is aborted."
//
// The LRMS ends a job at its reservation's end, so the service looks `overrun_notice` before
// it: jobs still running there whose own time limit does not stop them first (whoever
// submitted them into the reservation) get one `overrun_quantum` after the end, checked as a
// new pinned span would be (the site's LJP rule; on a laxity cluster the movable reservations
// may move within their windows for it). The LRMS extends the reservation in place and
// raises the jobs' time limits (lrms::extend_reservation; Grid Engine cannot, so there the
// jobs end with the reservation). One look per quantum, at most overrun_max quanta. A job
// that would have ended within the notice gets a quantum it does not need: the service
// cannot tell it from one that overruns before the LRMS would kill it.

#include "arbroker/actors/cluster_service.hpp"

namespace arbroker {

void cluster_service::watch_overrun(const record& r) {
  overruns_.watch(r.serial, r.life.end());
}

void cluster_service::handle_overruns(timestamp now) {
  std::optional<lrms_snapshot> snap;  // one for every look due now
  while (auto due = overruns_.take_due(now)) {
    const auto [at, n] = *due;
    const record* found = ledger_.find(n);
    if (!found) continue;
    const record& r = *found;
    ledger_.advance(n, now);
    const timestamp end = r.life.end();
    const auto verdict = overruns_.what_now(at, r.life.state(), r.life.start(), end);
    if (verdict == overrun_watch::verdict::at_start) overruns_.again(n, r.life.start());
    if (verdict != overrun_watch::verdict::look) continue;
    if (!snap) {
      auto s = lrms_->snapshot();
      if (!s) {  // the LRMS did not answer: look again in a second, while there is time
        if (now + 1 < end) overruns_.again(n, now + 1);
        continue;
      }
      snap = std::move(*s);
    }
    const auto seen = overrun_watch::jobs_at_end(*snap, r.lrms_id, end);
    if (seen != overrun_watch::jobs_seen::overrunning) {
      if (seen == overrun_watch::jobs_seen::waiting && now + 1 < end) overruns_.again(n, now + 1);
      continue;
    }
    if (r.overruns < cfg_.overrun_max && extend_for_overrun(r, now)) {
      ++events_.overruns;
      snap.reset();  // the LRMS changed
    } else {
      ++events_.overruns_refused;
    }
  }
}

bool cluster_service::extend_for_overrun(const record& r, timestamp now) {
  const timestamp from = r.life.end(), to = from + cfg_.overrun_quantum;
  if (!refresh(now)) return false;
  // The quantum is admitted as a new span asking for LJP would be (a site that keeps local
  // jobs preferred does not postpone them for an overrun either).
  auto rule = admission_for(true, false, now);
  if (!rule || from < rule->not_before) return false;
  if (!rule->free->fits(from, to, r.np)) {  // movable reservations may make room for it
    rule = with_room(from, to, r.np, *rule, true, false, now);
    if (!rule || !rule->free->fits(from, to, r.np)) return false;
  }
  if (!lrms_->extend_reservation(r.lrms_id, to)) {
    view_.wrong();  // the LRMS knows better: read it again
    return false;
  }
  const auto cost = cost_for(from, to, r.np, r.owner);
  (void)ledger_.extend(r.serial, now, to, cost ? *cost : 0.0);
  // Best effort: the LRMS has the new end; a journal without it recovers the old end, and
  // the LRMS ends the reservation at the new one all the same.
  (void)persist(r, reservation_state::committed);
  view_put(r, now);
  watch_overrun(r);
  return true;
}

}  // namespace arbroker
