#include "arbroker/sim/batch_queue.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace arbroker {

namespace {

// Where a job started at t stops holding CPUs (time_infinity: never).
timestamp span_end(timestamp t, duration walltime) {
  return t > time_infinity - walltime ? time_infinity : t + walltime;
}

// The profiles hold exactly what this file put there; an update that fails is a bug, and
// going on could overbook.
void must(const status& s) {
  if (s) return;
  std::fprintf(stderr, "batch_queue: broken capacity invariant: %s\n", to_string(s.err()).c_str());
  std::abort();
}

// The shapes (walltime, np) that did not fit during one EASY pass. Capacity only shrinks
// within a pass, so a job at least as long and as wide as one of them cannot fit either and
// needs no look at the profile. Kept as a staircase: np ascending, walltime descending.
class refused_shapes {
 public:
  bool covers(duration walltime, int np) const {
    // Among the shapes no wider than np, the widest is the shortest.
    auto it = std::upper_bound(steps_.begin(), steps_.end(), np,
                               [](int n, const step& s) { return n < s.np; });
    return it != steps_.begin() && std::prev(it)->walltime <= walltime;
  }
  void add(duration walltime, int np) {
    if (covers(walltime, np)) return;
    auto first = std::lower_bound(steps_.begin(), steps_.end(), np,
                                  [](const step& s, int n) { return s.np < n; });
    auto last = first;  // the shapes the new one covers: wider and longer
    while (last != steps_.end() && last->walltime >= walltime)
      ++last;
    steps_.insert(steps_.erase(first, last), step{np, walltime});
  }

 private:
  struct step {
    int np;
    duration walltime;
  };
  std::vector<step> steps_;
};

}  // namespace

result<batch_queue> batch_queue::create(scheduling_policy policy, int cpus) {
  auto schedule = availability_profile::create(cpus);
  if (!schedule) return schedule.err();
  return batch_queue(policy, std::move(*schedule));
}

std::vector<batch_queue::job_number> batch_queue::order() const {
  std::vector<job_number> out;
  out.reserve(order_.size());
  for (const auto& [seq, e] : order_)
    out.push_back(e.id);
  return out;
}

void batch_queue::push(job_number id, int np, duration walltime, timestamp now) {
  const sequence seq = next_sequence_++;
  entry& e = order_.emplace(seq, entry{id, np, walltime, std::nullopt}).first->second;
  where_.emplace(id, seq);
  pushed_.push_back(id);
  if (policy_ == scheduling_policy::conservative && !replan_) plan(seq, e, now);
}

bool batch_queue::erase(job_number id) {
  auto w = where_.find(id);
  if (w == where_.end()) return false;
  auto it = order_.find(w->second);
  unplan(it->first, it->second);
  order_.erase(it);
  where_.erase(w);
  released_ = true;  // the head may have changed, or a plan left room
  return true;
}

std::optional<timestamp> batch_queue::planned_start(job_number id) const {
  auto w = where_.find(id);
  if (w == where_.end()) return std::nullopt;
  return order_.at(w->second).plan;
}

void batch_queue::committed_added(timestamp start, timestamp end, int np) {
  // EASY: the reservation may push the head's shadow later and so open room for backfilling.
  if (policy_ == scheduling_policy::easy) released_ = true;
  if (policy_ != scheduling_policy::conservative) return;
  if (schedule_.add(start, end, np)) return;
  // The reservation collides with plans: it wins (queued jobs never make a reservation
  // busy). Drop every plan; start_jobs makes them again in queue order.
  for (auto& [seq, e] : order_)
    unplan(seq, e);
  must(schedule_.add(start, end, np));
  replan_ = true;
}

void batch_queue::committed_released(timestamp start, timestamp end, int np, timestamp now) {
  // Capacity ending exactly now (a job killed at its walltime, a reservation ending) changes
  // no profile at or after now, but jobs last tried before now may have been blocked by it.
  // Plans already knew of that end, so conservative only cares about capacity after now.
  if (policy_ == scheduling_policy::conservative) {
    must(schedule_.remove(start, end, np));
    if (end > now) released_ = true;
  } else if (end >= now) {
    released_ = true;
  }
}

void batch_queue::start_jobs(timestamp t, availability_profile& committed,
                             const std::function<void(job_number)>& start) {
  switch (policy_) {
    case scheduling_policy::fcfs: {
      if (order_.empty()) break;  // nothing to start: no need for the CPUs free now
      int free_now = committed.free_at(t);
      (void)start_fcfs(t, committed, start, free_now);
      break;
    }
    case scheduling_policy::easy:
      if (!order_.empty()) start_easy(t, committed, start);
      break;
    case scheduling_policy::conservative:
      start_conservative(t, committed, start);
      break;
  }
  pushed_.clear();
  released_ = false;
}

// Strict FCFS: the head starts when it fits; nothing passes it. True when any started.
// free_now (the CPUs free at t, kept up to date here) is a cheap bound to try before the
// profile: the head is usually too wide.
bool batch_queue::start_fcfs(timestamp t, availability_profile& committed,
                             const std::function<void(job_number)>& start, int& free_now) {
  bool started = false;
  while (!order_.empty()) {
    auto it = order_.begin();
    const entry e = it->second;
    if (e.np > free_now || !committed.add(t, span_end(t, e.walltime), e.np)) break;
    free_now -= e.np;
    where_.erase(e.id);
    order_.erase(it);
    start(e.id);
    started = true;
  }
  return started;
}

// EASY: heads start while they fit; then the head that does not fit gets a shadow at its
// earliest start, and later jobs start now where they fit beside it. With only pushes since
// the last pass, nothing else changed, so only the pushed jobs are tried.
void batch_queue::start_easy(timestamp t, availability_profile& committed,
                             const std::function<void(job_number)>& start) {
  int free_now = committed.free_at(t);
  const bool head_changed = start_fcfs(t, committed, start, free_now);
  if (order_.size() < 2) return;
  if (free_now <= 0) return;  // a full machine: no shadow needed, nothing can start

  // The head's shadow is found only once a job narrow enough to start needs it; most passes
  // have none. It stays out of the profile: a job fits beside it when it fits the committed
  // capacity over its whole span and, where it overlaps the shadow, with the head's CPUs
  // too. That is the answer the profile would give with the shadow added, without adding and
  // removing it in every pass.
  const entry head = order_.begin()->second;
  bool shadow_found = false;
  std::optional<timestamp> shadow;  // none: the head can never start (reservations hold on)
  auto fits_beside_shadow = [&](timestamp end, int np) {
    if (!shadow_found) {
      shadow_found = true;
      if (auto s = committed.earliest_start(t, head.walltime, head.np)) shadow = *s;
    }
    if (!committed.fits(t, end, np)) return false;
    if (!shadow) return true;
    const timestamp from = std::max(t, *shadow);
    const timestamp to = std::min(end, span_end(*shadow, head.walltime));
    if (from >= to) return true;
    return np <= committed.total() - head.np && committed.fits(from, to, np + head.np);
  };
  refused_shapes refused;

  auto try_start = [&](std::map<sequence, entry>::iterator it) {
    const entry e = it->second;
    if (e.np > free_now || refused.covers(e.walltime, e.np)) return false;
    const timestamp end = span_end(t, e.walltime);
    if (!fits_beside_shadow(end, e.np)) {
      refused.add(e.walltime, e.np);
      return false;
    }
    must(committed.add(t, end, e.np));
    free_now -= e.np;
    where_.erase(e.id);
    order_.erase(it);
    start(e.id);
    return true;
  };
  if (released_ || head_changed) {
    for (auto it = std::next(order_.begin()); it != order_.end() && free_now > 0;) {
      auto next = std::next(it);
      try_start(it);
      it = next;
    }
  } else {
    for (job_number id : pushed_) {
      if (free_now <= 0) break;
      auto w = where_.find(id);
      if (w == where_.end() || w->second == order_.begin()->first) continue;
      try_start(order_.find(w->second));
    }
  }
}

// Conservative: jobs start at their plans; released capacity first lets plans move earlier.
void batch_queue::start_conservative(timestamp t, availability_profile& committed,
                                     const std::function<void(job_number)>& start) {
  if (replan_)
    replan(t);
  else if (released_)
    compress(t);
  while (!by_plan_.empty() && by_plan_.begin()->first <= t) {
    const auto [planned, seq] = *by_plan_.begin();
    by_plan_.erase(by_plan_.begin());
    auto it = order_.find(seq);
    const entry e = it->second;
    const timestamp end = span_end(t, e.walltime);
    if (planned != t) {  // a plan in the past would be a missed event; keep both profiles equal
      must(schedule_.remove(planned, span_end(planned, e.walltime), e.np));
      must(schedule_.add(t, end, e.np));
    }
    must(committed.add(t, end, e.np));  // the plan becomes the commitment
    where_.erase(e.id);
    order_.erase(it);
    start(e.id);
  }
}

void batch_queue::plan(sequence seq, entry& e, timestamp now) {
  const auto s = schedule_.earliest_start(now, e.walltime, e.np);
  if (!s) return;  // reservations hold the CPUs for ever; retried when capacity comes free
  must(schedule_.add(*s, span_end(*s, e.walltime), e.np));
  e.plan = *s;
  by_plan_.emplace(*s, seq);
}

void batch_queue::unplan(sequence seq, entry& e) {
  if (!e.plan) return;
  must(schedule_.remove(*e.plan, span_end(*e.plan, e.walltime), e.np));
  by_plan_.erase({*e.plan, seq});
  e.plan.reset();
}

// Each job in queue order moves to its earliest start with every other plan in place. Its
// own old slot is free once it is lifted, so it never moves later, and the jobs after it
// find every slot they held still free.
void batch_queue::compress(timestamp now) {
  for (auto& [seq, e] : order_) {
    const auto old = e.plan;
    if (old && *old == now) continue;  // cannot move earlier
    unplan(seq, e);
    plan(seq, e, now);
  }
}

void batch_queue::replan(timestamp now) {
  for (auto& [seq, e] : order_)
    unplan(seq, e);
  for (auto& [seq, e] : order_)
    plan(seq, e, now);
  replan_ = false;
}

}  // namespace arbroker
