#include "arbroker/core/capacity_view.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "arbroker/core/earliest_start.hpp"

namespace arbroker {

result<capacity_view> capacity_view::create(int cpus, const load_params& load) {
  auto p = availability_profile::create(cpus);
  if (!p) return p.err();
  // The factors t_wkl() checks: checked once here, as the accumulator does not.
  if (auto ok = arbroker::t_wkl(0, cpus, {}, {}, {}, load); !ok) return ok.err();
  return capacity_view(std::move(*p), cpus, load);
}

bool capacity_view::hold(reservation_span& held, timestamp start, timestamp end, int np) {
  held = {};
  if (start >= end) return true;  // nothing left to hold
  if (!profile_.add(start, end, np)) return false;
  held = {start, end, np};
  return true;
}

void capacity_view::release(reservation_span& held) {
  if (held.np > 0) (void)profile_.remove(held.start, held.end, held.np);
  held = {};
}

bool capacity_view::valid(const reservation_span& s) const noexcept {
  return s.start < s.end && s.start >= -time_infinity && s.end <= time_infinity && s.np >= 1 &&
         s.np <= cpus_;
}

bool capacity_view::moves_t_wkl(const reservation_span& s) const noexcept {
  return !t_wkl_ || s.start < *t_wkl_;
}

void capacity_view::reset(timestamp now, std::vector<running_job> running,
                          std::vector<waiting_job> queued,
                          const std::vector<keyed_reservation>& reservations) {
  // Reconciled with what the view holds rather than made anew: when little has changed (the
  // service keeps its own reservations in the view), a full read costs a lookup per
  // reservation, not a new profile. The running jobs' holds stay while the reservations are
  // reconciled (set_jobs then changes what changed); should a reservation not fit beside
  // them, the jobs go last, as they would into a new profile: out first, the reservations
  // held again in the LRMS's order, then the jobs.
  ++generation_;
  std::vector<const keyed_reservation*> changed_terms;
  for (const auto& r : reservations) {
    auto it = entries_.find(r.key);
    if (it != entries_.end() && it->second.span == r.span &&
        (it->second.held.np > 0 || std::max(r.span.start, now) >= r.span.end))
      it->second.seen = generation_;  // held as the LRMS has it
    else
      changed_terms.push_back(&r);
  }
  // What the LRMS no longer has (or has on other terms) first, so that it makes room.
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.seen == generation_) {
      ++it;
      continue;
    }
    by_start_.erase({it->second.span.start, it->first});
    release(it->second.held);
    it = entries_.erase(it);
  }
  bool all_held = true;
  for (const auto* r : changed_terms) {
    auto [it, added] = entries_.try_emplace(r->key);
    auto& e = it->second;
    if (!added) {  // the same key twice in one read: the last terms count
      by_start_.erase({e.span.start, r->key});
      release(e.held);
    }
    e.span = r->span;
    e.seen = generation_;
    if (!hold(e.held, std::max(r->span.start, now), r->span.end, r->span.np)) all_held = false;
    if (valid(r->span)) by_start_.emplace(r->span.start, r->key);
  }
  if (!all_held) {  // as a new profile would have it: the jobs out, the reservations in order
    for (auto& h : running_held_)
      release(h);
    running_held_.clear();
    for (const auto* r : changed_terms)
      release(entries_[r->key].held);
    for (const auto* r : changed_terms) {
      auto& e = entries_[r->key];
      if (e.held.np == 0 && e.span == r->span)  // the last terms of a key held once
        (void)hold(e.held, std::max(r->span.start, now), r->span.end, r->span.np);
    }
  }
  const bool jobs_held = set_jobs(now, std::move(running), std::move(queued));
  complete_ = all_held && jobs_held;
  wrong_ = false;  // what does not fit in a full read is left out, not wrong
  t_wkl_.reset();
  changed();
}

bool capacity_view::set_jobs(timestamp now, std::vector<running_job> running,
                             std::vector<waiting_job> queued) {
  // A job that still runs ends when it did at the last read: its hold (end, np) stays, and
  // only the jobs that started or ended since change the profile, so that a read costs in
  // what changed, not in every running job. Ends first, to make room; then the starts.
  // (running_held_ is sorted by end and np.)
  std::vector<std::pair<timestamp, int>> wanted;
  wanted.reserve(running.size());
  // A job past its walltime still runs (remaining >= 1 s); one without an end holds nothing.
  const auto holds = [now](const running_job& j) {
    return j.remaining > 0 && j.remaining <= time_infinity - now;
  };
  for (const auto& j : running)
    if (holds(j)) wanted.emplace_back(now + j.remaining, j.np);
  std::sort(wanted.begin(), wanted.end());
  std::vector<reservation_span> kept;
  std::vector<std::pair<timestamp, int>> started;
  kept.reserve(wanted.size());
  auto held = running_held_.begin();
  for (const auto& w : wanted) {
    while (held != running_held_.end() && std::pair(held->end, held->np) < w)
      release(*held++);
    if (held != running_held_.end() && std::pair(held->end, held->np) == w)
      kept.push_back(*held++);
    else
      started.push_back(w);
  }
  for (; held != running_held_.end(); ++held)
    release(*held);
  bool fits = true;
  for (const auto& [end, np] : started) {
    reservation_span h;
    if (!hold(h, now, end, np)) fits = false;
    if (h.np > 0) kept.push_back(h);
  }
  if (!fits) {  // which jobs are left out: those late in the LRMS's list, as a new read has it
    for (auto& h : kept)
      release(h);
    kept.clear();
    for (const auto& j : running) {
      reservation_span h;
      if (holds(j)) (void)hold(h, now, now + j.remaining, j.np);
      if (h.np > 0) kept.push_back(h);
    }
  }
  std::sort(kept.begin(), kept.end(), [](const reservation_span& a, const reservation_span& b) {
    return std::pair(a.end, a.np) < std::pair(b.end, b.np);
  });
  running_held_ = std::move(kept);
  // A job t_wkl() would refuse (np beyond the cluster, no walltime) makes T_wkl the read's
  // time, as a failed estimate always has.
  jobs_valid_ = static_cast<bool>(arbroker::t_wkl(now, cpus_, running, queued, {}, load_));
  running_ = std::move(running);
  queue_ = std::move(queued);
  jobs_read_ = now;
  plan_failed_ = false;
  t_wkl_.reset();
  changed();
  if (!fits) wrong_ = true;
  return fits;
}

cluster_workload capacity_view::workload(timestamp now) const {
  cluster_workload w;
  w.cpus = cpus_;
  const duration since_read = std::max<duration>(now - jobs_read_, 0);
  w.running.reserve(running_.size());
  for (const auto& j : running_)
    w.running.push_back({j.np, std::max<duration>(j.remaining - since_read, 1)});
  w.queued = queue_;
  std::vector<std::pair<const std::string*, const reservation_span*>> kept;
  kept.reserve(entries_.size());
  for (const auto& [key, e] : entries_)
    if (e.span.end > now) kept.emplace_back(&key, &e.span);
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second->start, *a.first) < std::tie(b.second->start, *b.first);
  });
  w.reservations.reserve(kept.size());
  for (const auto& [key, span] : kept)
    w.reservations.push_back(*span);
  return w;
}

bool capacity_view::put(const std::string& key, const reservation_span& span, timestamp now) {
  auto [it, added] = entries_.try_emplace(key);
  auto& e = it->second;
  if (!added) {
    if (moves_t_wkl(e.span)) t_wkl_.reset();
    by_start_.erase({e.span.start, key});
    release(e.held);
    changed();  // CPUs came back: queued jobs may now start earlier
  }
  e.span = span;
  if (valid(span)) {
    if (moves_t_wkl(span)) t_wkl_.reset();
    by_start_.emplace(span.start, key);
  }
  if (!hold(e.held, std::max(span.start, now), span.end, span.np)) {
    wrong_ = true;
    changed();
    return false;
  }
  // In the vacancies the plan stays as it is; anywhere else the queue moves: plan again.
  if (planned_ && e.held.np > 0 && !planned_->add(e.held.start, e.held.end, e.held.np)) changed();
  return true;
}

void capacity_view::erase(const std::string& key) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  auto& e = it->second;
  if (moves_t_wkl(e.span)) t_wkl_.reset();
  by_start_.erase({e.span.start, key});
  if (e.held.np > 0) changed();  // queued jobs may now start earlier: plan again
  release(e.held);
  entries_.erase(it);
}

void capacity_view::drop_ended(timestamp now) {
  bool dropped = false;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.span.end > now) {
      ++it;
      continue;
    }
    by_start_.erase({it->second.span.start, it->first});
    release(it->second.held);  // (a hold in the past: nothing from now on changes)
    it = entries_.erase(it);
    dropped = true;
  }
  if (dropped) {  // as reset: T_wkl and the plan are made again
    t_wkl_.reset();
    changed();
  }
}

const availability_profile& capacity_view::planned(timestamp now) const {
  if (queue_.empty() || plan_failed_) return profile_;
  if (!planned_) {
    auto plan = profile_;
    if (!plan_queued_jobs(plan, queue_, now)) {
      plan_failed_ = true;
      return profile_;
    }
    planned_ = std::move(plan);
  }
  return *planned_;
}

timestamp capacity_view::t_wkl() const {
  if (t_wkl_) return *t_wkl_;
  if (!jobs_valid_) return *(t_wkl_ = jobs_read_);
  t_wkl_accumulator acc(jobs_read_, cpus_, running_, queue_, load_);
  for (const auto& [start, key] : by_start_) {
    if (!acc.counts(start)) break;
    acc.add(entries_.at(key).span);
  }
  t_wkl_ = acc.value();
  return *t_wkl_;
}

}  // namespace arbroker
