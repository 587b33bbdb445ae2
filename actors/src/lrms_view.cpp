#include "arbroker/actors/lrms_view.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace arbroker {

result<lrms_view> lrms_view::create(settings s) {
  auto h = history::create(s.policy.history_delta, 24 * 14);
  if (!h) return h.err();
  return lrms_view(std::move(s), std::move(*h));
}

status lrms_view::refresh(lrms& backend, timestamp now, bool force) {
  // refresh 0: the jobs on every call, the whole still only every full_refresh (0: on every
  // call too). The service's own reservations are in the view either way.
  const bool whole = force || !capacity_ || capacity_->wrong() ||
                     now - full_read_ >= std::max(s_.policy.refresh, s_.policy.full_refresh);
  if (whole) {
    if (auto ok = read_whole(backend, now); !ok) return ok;
  } else if (s_.policy.refresh == 0 || now - jobs_read_ >= s_.policy.refresh) {
    if (auto ok = read_jobs(backend, now); !ok) return ok;
  }
  if (plans_queue()) (void)capacity_->planned(now);
  return {};
}

status lrms_view::read_whole(lrms& backend, timestamp now) {
  auto snap = backend.snapshot();
  if (!snap) return snap.err();
  if (!capacity_) {
    auto c = capacity_view::create(s_.cpus, s_.policy.load);
    if (!c) return c.err();
    capacity_ = std::move(*c);
  }
  auto w = to_workload(*snap);
  std::vector<keyed_reservation> reservations;
  reservations.reserve(snap->reservations.size());
  for (const auto& r : snap->reservations)
    reservations.push_back({r.id, {r.start, r.end, r.np}});
  capacity_->reset(now, std::move(w.running), std::move(w.queued), reservations);
  full_read_ = jobs_read_ = now;
  took_jobs(*snap, now);
  return {};
}

status lrms_view::read_jobs(lrms& backend, timestamp now) {
  auto snap = backend.jobs_snapshot();
  if (!snap) return snap.err();
  auto w = to_workload(*snap);
  // A running job the view has no room for marks it wrong(): refresh reads it all next time.
  (void)capacity_->set_jobs(now, std::move(w.running), std::move(w.queued));
  jobs_read_ = now;
  took_jobs(*snap, now);
  return {};
}

void lrms_view::took_jobs(const lrms_snapshot& snap, timestamp now) {
  running_ = static_cast<int>(snap.running.size());
  queued_ = static_cast<int>(snap.queued.size());
  // esr history: one sample of idle CPUs per history interval.
  const timestamp slot_begin =
      now - ((now % s_.policy.history_delta) + s_.policy.history_delta) % s_.policy.history_delta;
  const auto& recs = history_.records();
  if (recs.empty() || recs.back().begin < slot_begin)
    (void)history_.record(slot_begin, profile().free_at(now));
}

result<lrms_view::admission> lrms_view::admission_for(bool ljp, bool admin, timestamp now) const {
  auto applies = ljp_applies(s_.policy.ljp, ljp, admin);
  if (!applies)
    return fail(applies.err().code, "cluster '" + s_.cluster + "': " + applies.err().message);
  if (!*applies) return admission{&profile(), now, false};
  if (s_.policy.ljp_check == ljp_method::twkl)
    return admission{&profile(), std::max(now, capacity_->t_wkl()), true};
  return admission{&capacity_->planned(now), now, true};
}

void lrms_view::put(const std::string& lrms_id, const reservation_span& span, timestamp now) {
  if (!capacity_) return;  // read whole before its first use
  (void)capacity_->put(lrms_id, span, now);
}

void lrms_view::erase(const std::string& lrms_id) {
  if (capacity_) capacity_->erase(lrms_id);
  if (queued_ > 0) jobs_changed();
}

}  // namespace arbroker
