#include "arbroker/actors/lrms_view.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <utility>
#include <vector>

namespace arbroker {

result<lrms_view> lrms_view::create(settings s) {
  auto h = history::create(s.policy.history_delta, 24 * 14);
  if (!h) return h.err();
  return lrms_view(std::move(s), std::move(*h));
}

namespace {

// A full read into `view` at `now`: the jobs and every reservation anew.
void reset_from(capacity_view& view, const lrms_snapshot& snap, timestamp now) {
  auto w = to_workload(snap);
  std::vector<keyed_reservation> reservations;
  reservations.reserve(snap.reservations.size());
  for (const auto& r : snap.reservations)
    reservations.push_back({r.id, {r.start, r.end, r.np}});
  view.reset(now, std::move(w.running), std::move(w.queued), reservations);
}

}  // namespace

status lrms_view::refresh(lrms& backend, timestamp now, bool force) {
  // refresh 0: the jobs on every call, the whole still only every full_refresh (0: on every
  // call too). The service's own reservations are in the view either way. Made aside, the
  // periodic full read is the owner's to begin.
  const bool needed = force || whole_now_ || !capacity_ || capacity_->wrong();
  if (needed || (!aside() && now - full_read_ >= full_interval())) {
    if (!needed && reservations_kept(backend)) {
      // What a full read would list is what the view keeps: the jobs are read, the ended
      // reservations dropped, and the read counts as made.
      if (auto ok = read_jobs(backend, now); !ok) return ok;
      capacity_->drop_ended(now);
      full_read_ = now;
    } else if (auto ok = read_whole(backend, now); !ok) {
      return ok;
    }
  } else if (s_.policy.refresh == 0 || now - jobs_read_ >= s_.policy.refresh) {
    if (auto ok = read_jobs(backend, now); !ok) return ok;
  }
  if (plans_queue()) (void)capacity_->planned(now);
  return {};
}

bool lrms_view::reservations_kept(lrms& backend) {
  const auto version = backend.reservations_version();
  return version && version == reservations_version_ && capacity_ && capacity_->holds_all();
}

status lrms_view::read_whole(lrms& backend, timestamp now) {
  const auto version = backend.jobs_version();
  const auto reservations = backend.reservations_version();
  auto snap = backend.snapshot();
  if (!snap) return snap.err();
  jobs_version_ = version;
  reservations_version_ = reservations;
  if (!capacity_) {
    auto c = capacity_view::create(s_.cpus, s_.policy.load);
    if (!c) return c.err();
    capacity_ = std::move(*c);
  }
  reset_from(*capacity_, *snap, now);
  ++generation_;  // a read aside begun before this one is older: it is dropped
  whole_now_ = false;
  full_read_ = jobs_read_ = now;
  took_jobs(static_cast<int>(snap->running.size()), static_cast<int>(snap->queued.size()), now);
  return {};
}

status lrms_view::read_jobs(lrms& backend, timestamp now) {
  // Read at this instant already, and no job changed since: the same read (refresh 0 reads
  // on every call, and one request makes several).
  const auto version = backend.jobs_version();
  if (version && version == jobs_version_ && now == jobs_read_) return {};
  auto snap = backend.jobs_snapshot();
  if (!snap) return snap.err();
  jobs_version_ = version;
  auto w = to_workload(*snap);
  // A running job the view has no room for marks it wrong(): refresh reads it all next time.
  (void)capacity_->set_jobs(now, std::move(w.running), std::move(w.queued));
  jobs_read_ = now;
  if (reading_) jobs_read_meanwhile_ = true;
  took_jobs(static_cast<int>(snap->running.size()), static_cast<int>(snap->queued.size()), now);
  return {};
}

void lrms_view::took_jobs(int running, int queued, timestamp now) {
  running_ = running;
  queued_ = queued;
  // esr history: one sample of idle CPUs per history interval.
  const timestamp slot_begin =
      now - ((now % s_.policy.history_delta) + s_.policy.history_delta) % s_.policy.history_delta;
  const auto& recs = history_.records();
  if (recs.empty() || recs.back().begin < slot_begin)
    (void)history_.record(slot_begin, profile().free_at(now));
}

std::unique_ptr<lrms_view::read_aside> lrms_view::begin_read_aside(lrms& backend, timestamp now) {
  if (!aside() || reading_ || !capacity_ || now - full_read_ < full_interval()) return nullptr;
  if (reservations_kept(backend)) {  // nothing to list that the view does not keep
    capacity_->drop_ended(now);
    full_read_ = now;
    return nullptr;
  }
  const auto version = backend.reservations_version();
  auto rest = backend.begin_snapshot();
  reading_ = true;
  changes_.clear();
  jobs_read_meanwhile_ = false;
  return std::unique_ptr<read_aside>(new read_aside(std::move(rest), now, s_.cpus, s_.policy.load,
                                                    generation_, plans_queue(), version));
}

void lrms_view::read_aside::run() {
  try {
    auto snap = rest_();
    rest_ = nullptr;  // what it holds is dropped here too
    if (!snap) {
      outcome_ = snap.err();
      return;
    }
    auto view = capacity_view::create(cpus_, load_);
    if (!view) {
      outcome_ = view.err();
      return;
    }
    reset_from(*view, *snap, at_);
    if (plans_) (void)view->planned(at_);
    running_ = static_cast<int>(snap->running.size());
    queued_ = static_cast<int>(snap->queued.size());
    view_ = std::move(*view);
    outcome_ = {};
  } catch (const std::exception& e) {
    outcome_ = fail(errc::internal, std::string("full read of the LRMS: ") + e.what());
  }
}

void lrms_view::end_read_aside(read_aside& read, timestamp now) {
  reading_ = false;
  auto changes = std::exchange(changes_, {});
  if (read.generation_ != generation_) {  // an inline full read came after it began
    if (read.view_) read.dropped_ = std::make_shared<capacity_view>(std::move(*read.view_));
    read.view_.reset();  // what it built is dropped where the replaced view would be
    return;
  }
  if (!read.outcome_ || !read.view_) {
    wrong();  // read inline at the next refresh, which answers with the LRMS's error
    return;
  }
  auto& fresh = *read.view_;
  for (const auto& c : changes) {
    if (c.span)
      (void)fresh.put(c.key, *c.span, c.at);  // one that does not fit marks it wrong()
    else
      fresh.erase(c.key);
  }
  if (jobs_read_meanwhile_)  // the jobs as the owner last read them, newer than the read's
    (void)fresh.set_jobs(capacity_->jobs_read(), capacity_->running(), capacity_->queue());
  std::swap(*capacity_, fresh);
  read.dropped_ = std::make_shared<capacity_view>(std::move(fresh));
  read.view_.reset();
  full_read_ = read.at_;
  reservations_version_ = read.reservations_version_;
  if (!jobs_read_meanwhile_) {
    jobs_read_ = read.at_;
    jobs_version_.reset();  // what the read saw is not known
    took_jobs(read.running_, read.queued_, now);
  }
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
  if (reading_) changes_.push_back({lrms_id, span, now});
}

void lrms_view::erase(const std::string& lrms_id) {
  if (capacity_) capacity_->erase(lrms_id);
  if (reading_) changes_.push_back({lrms_id, std::nullopt, 0});
  if (queued_ > 0) jobs_changed();
}

}  // namespace arbroker
