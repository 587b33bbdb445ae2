#include "arbroker/sim/simulated_lrms.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <tuple>
#include <utility>

namespace arbroker {

namespace {

std::string str(std::int64_t v) {
  return std::to_string(v);
}

std::string span_text(timestamp start, timestamp end) {
  return "[" + str(start) + ", " + str(end) + ")";
}

// The number n of "<prefix>n"; nothing for any other text, so that one id has one spelling.
std::optional<std::uint64_t> parse_id(std::string_view id, char prefix) {
  if (id.size() < 2 || id[0] != prefix || id[1] == '0') return std::nullopt;
  std::uint64_t n = 0;
  const char* last = id.data() + id.size();
  auto [end, ec] = std::from_chars(id.data() + 1, last, n);
  if (ec != std::errc{} || end != last) return std::nullopt;
  return n;
}

std::string job_id(std::uint64_t n) {
  return "J" + std::to_string(n);
}
std::string reservation_id(std::uint64_t n) {
  return "R" + std::to_string(n);
}

// Where a job started at t stops holding CPUs in the profile (time_infinity: never).
timestamp span_end(timestamp t, duration walltime) {
  return t > time_infinity - walltime ? time_infinity : t + walltime;
}

// The profile holds exactly the live allocations, so the updates made on that knowledge
// cannot fail; if one does, this file has a bug and going on could overbook.
void must(const status& s) {
  if (s) return;
  std::fprintf(stderr, "simulated_lrms: broken capacity invariant: %s\n",
               to_string(s.err()).c_str());
  std::abort();
}

}  // namespace

result<std::unique_ptr<simulated_lrms>> simulated_lrms::create(simulated_lrms_config config) {
  const std::string who = "cluster '" + config.name + "'";
  if (config.cpus < 1)
    return fail(errc::invalid_processor_range,
                who + " has " + str(config.cpus) + " CPUs; needs at least 1");
  if (config.sizes.bunch < 1)
    return fail(errc::invalid_processor_range,
                who + " bunch size " + str(config.sizes.bunch) + " must be at least 1");
  for (int c : config.sizes.counts)
    if (c < 1)
      return fail(errc::invalid_processor_range,
                  who + " reservable count " + str(c) + " must be at least 1");
  if (!config.clock) return fail(errc::invalid_parameter, who + " has no clock");
  if (!std::isfinite(config.cpu_speed) || config.cpu_speed <= 0)
    return fail(errc::invalid_parameter,
                who + " cpu_speed " + std::to_string(config.cpu_speed) + " must be positive");
  auto profile = availability_profile::create(config.cpus);
  if (!profile) return profile.err();
  auto queue = batch_queue::create(config.policy, config.cpus);
  if (!queue) return queue.err();
  const timestamp now = config.clock();
  return std::unique_ptr<simulated_lrms>(
      new simulated_lrms(std::move(config), std::move(*profile), std::move(*queue), now));
}

simulated_lrms::simulated_lrms(simulated_lrms_config config, availability_profile profile,
                               batch_queue queue, timestamp now)
    : name_(std::move(config.name)),
      sizes_(std::move(config.sizes)),
      sorted_counts_(sizes_.counts),
      clock_(std::move(config.clock)),
      cpu_speed_(config.cpu_speed),
      nodes_(config.nodes),
      profile_(std::move(profile)),
      now_(now),
      queue_(std::move(queue)),
      on_job_event_(std::move(config.on_job_event)),
      first_serial_(config.first_serial),
      last_job_(config.first_serial),
      last_reservation_(config.first_serial),
      reports_reservation_changes_(config.reports_reservation_changes) {
  std::sort(sorted_counts_.begin(), sorted_counts_.end());
}

void simulated_lrms::fail_all_nodes(std::string why) {
  advance(clock_());
  if (failed_) return;
  // Queued jobs first (nothing may start while the rest goes), then the reservations with
  // their jobs, then the running jobs.
  std::vector<serial> queued, running, held;
  for (const auto& [jid, j] : jobs_)
    (j.started ? running : queued).push_back(jid);
  std::sort(queued.begin(), queued.end());
  std::sort(running.begin(), running.end());
  for (serial jid : queued)
    if (jobs_.contains(jid) && !jobs_.at(jid).reservation) drop_queued(jid, lrms_job_state::lost);
  for (const auto& [rid, r] : reservations_)
    held.push_back(rid);
  std::sort(held.begin(), held.end());
  for (serial rid : held)
    drop_reservation(rid, lrms_job_state::lost);
  ++reservations_version_;
  for (serial jid : running)
    if (jobs_.contains(jid)) end_running(jid, lrms_job_state::lost);
  failed_ = std::move(why);
}

error simulated_lrms::out_of_service() const {
  return {errc::unreachable, name_ + " is down: " + *failed_};
}

std::optional<lrms_job_state> simulated_lrms::finished(serial jid) const {
  if (jid <= first_serial_ || jid - first_serial_ >= finished_.size()) return std::nullopt;
  return finished_[jid - first_serial_];
}

// ---------------------------------------------------------------------------------------
// Time and events.

void simulated_lrms::advance_to(timestamp t) {
  advance(t);
}

std::optional<timestamp> simulated_lrms::next_event_time() const {
  drop_stale_top();
  std::optional<timestamp> next = queue_.next_planned_start();
  if (!events_.empty() && (!next || events_.front().time < *next)) next = events_.front().time;
  return next;
}

// The heap is ordered by std::greater: the earliest event (then by kind, then id) on top.
void simulated_lrms::schedule(const event& e) {
  events_.push_back(e);
  std::push_heap(events_.begin(), events_.end(), std::greater<>{});
}

// The event will not happen. Events at or before now_ have been taken from the heap already
// (advance() takes every event up to now_ before any change), so only a later one is left
// behind, stale.
void simulated_lrms::forget(const event& e) {
  if (e.time > now_) ++stale_events_;
}

// Whether a pending event still applies: its job still runs to that end, or its reservation
// still starts or ends then. Ids are never reused, so a stale event cannot come back to life
// (only an identical live one can be scheduled again, and handling one makes the other stale).
bool simulated_lrms::is_live(const event& e) const {
  switch (e.kind) {
    case event_kind::job_end: {
      auto it = jobs_.find(e.id);
      if (it == jobs_.end() || !it->second.started) return false;
      const job& j = it->second;
      return *j.started + std::min(j.runtime, j.walltime) == e.time;
    }
    case event_kind::reservation_end: {
      auto it = reservations_.find(e.id);
      return it != reservations_.end() && it->second.end == e.time;
    }
    case event_kind::reservation_start: {
      auto it = reservations_.find(e.id);
      return it != reservations_.end() && it->second.start == e.time;
    }
    case event_kind::job_begin: {
      auto it = jobs_.find(e.id);
      return it != jobs_.end() && !it->second.started && it->second.not_before == e.time &&
             !queue_.contains(e.id);
    }
  }
  return false;
}

void simulated_lrms::drop_stale_top() const {
  if (stale_events_ == 0) return;
  if (stale_events_ > 64 && 2 * stale_events_ > events_.size()) {
    std::erase_if(events_, [this](const event& e) { return !is_live(e); });
    std::make_heap(events_.begin(), events_.end(), std::greater<>{});
    stale_events_ = 0;
    return;
  }
  while (stale_events_ > 0 && !events_.empty() && !is_live(events_.front())) {
    std::pop_heap(events_.begin(), events_.end(), std::greater<>{});
    events_.pop_back();
    --stale_events_;
  }
}

void simulated_lrms::advance(timestamp t) {
  // Every event is inserted strictly after the time of its insertion, and plans lie at or
  // after the time they were made, so `at` never lies before now_. Between events no queued
  // job can become startable: the profile only loses allocations at events, so sliding a
  // window later can only find less room.
  for (auto next = next_event_time(); next && *next <= t; next = next_event_time()) {
    const timestamp at = *next;
    now_ = std::max(now_, at);
    profile_.advance_origin(now_);  // nothing asks about the past: it costs no change points
    while (!events_.empty() && events_.front().time == at) {
      std::pop_heap(events_.begin(), events_.end(), std::greater<>{});
      const event e = events_.back();
      events_.pop_back();
      if (is_live(e))
        handle(e);
      else if (stale_events_ > 0)
        --stale_events_;
    }
    start_queued_jobs(now_);
  }
  now_ = std::max(now_, t);
  profile_.advance_origin(now_);
}

void simulated_lrms::handle(const event& e) {
  switch (e.kind) {
    case event_kind::job_end: {
      job& j = jobs_.at(e.id);
      const auto rid = j.reservation;
      if (j.runtime > j.walltime && j.restartable)
        pause(e.id, j);
      else
        end_running(e.id,
                    j.runtime <= j.walltime ? lrms_job_state::completed : lrms_job_state::failed);
      if (rid) start_bound_jobs(*rid, now_);
      return;
    }
    case event_kind::reservation_end:
      // Bound jobs still running are killed; bound jobs still queued can never run.
      drop_reservation(e.id, lrms_job_state::failed);
      return;
    case event_kind::reservation_start:
      start_bound_jobs(e.id, now_);
      return;
    case event_kind::job_begin: {  // at the tail of the queue from now on
      job& j = jobs_.at(e.id);
      j.queued_order = ++last_queued_order_;
      ++jobs_version_;
      queue_.push(e.id, j.np, j.walltime, now_);
      return;
    }
  }
}

// Unbound jobs: the batch queue's policy (FCFS, EASY or conservative) decides, against the
// committed capacity, so that no job runs into reserved capacity.
void simulated_lrms::start_queued_jobs(timestamp t) {
  queue_.start_jobs(t, profile_, [this, t](serial jid) { start(jid, jobs_.at(jid), t); });
}

// Bound jobs run on their reservation's CPUs, FCFS among themselves, only while it is active.
void simulated_lrms::start_bound_jobs(serial rid, timestamp t) {
  reservation& r = reservations_.at(rid);
  if (t < r.start || t >= r.end) return;
  while (!r.queued.empty()) {
    const serial jid = *r.queued.begin();
    job& j = jobs_.at(jid);
    if (r.used + j.np > r.np) return;
    r.queued.erase(r.queued.begin());
    r.used += j.np;
    r.running.insert(jid);
    start(jid, j, t);
  }
}

void simulated_lrms::start(serial jid, job& j, timestamp t) {
  j.started = t;
  ++jobs_version_;
  // A job runs its actual runtime, but no longer than its walltime.
  schedule({t + std::min(j.runtime, j.walltime), event_kind::job_end, jid});
  emit(simulated_job_event::kind::started, jid, j);
}

void simulated_lrms::emit(simulated_job_event::kind what, serial jid, const job& j,
                          lrms_job_state outcome) const {
  if (on_job_event_) on_job_event_({what, now_, jid, j.np, j.reservation.has_value(), outcome});
}

// Committed capacity came back: the profile forgets it and the queue may start jobs.
void simulated_lrms::release(timestamp start, timestamp end, int np) {
  must(profile_.remove(start, end, np));
  queue_.committed_released(start, end, np, now_);
}

// A restartable job stopped with work left: it keeps what it did and queues again at the
// tail, unbound (its reservation, if any, is over or its walltime is used up).
void simulated_lrms::pause(serial jid, job& j) {
  const timestamp started = *j.started;
  forget({started + std::min(j.runtime, j.walltime), event_kind::job_end, jid});
  emit(simulated_job_event::kind::paused, jid, j);
  if (j.reservation) {
    reservation& r = reservations_.at(*j.reservation);
    r.used -= j.np;
    r.running.erase(jid);
  } else {
    release(started, span_end(started, j.walltime), j.np);
  }
  j.runtime -= now_ - started;
  j.started.reset();
  j.reservation.reset();
  j.queued_order = ++last_queued_order_;
  ++jobs_version_;
  queue_.push(jid, j.np, j.walltime, now_);
}

void simulated_lrms::end_running(serial jid, lrms_job_state outcome) {
  const job& j = jobs_.at(jid);
  forget({*j.started + std::min(j.runtime, j.walltime), event_kind::job_end, jid});
  if (j.reservation) {
    reservation& r = reservations_.at(*j.reservation);
    r.used -= j.np;
    r.running.erase(jid);
  } else {
    // The whole guaranteed span goes: the past part no longer matters, the rest is free.
    release(*j.started, span_end(*j.started, j.walltime), j.np);
  }
  emit(simulated_job_event::kind::ended, jid, j, outcome);
  retire(jid, outcome);
}

void simulated_lrms::drop_queued(serial jid, lrms_job_state outcome) {
  const job& j = jobs_.at(jid);
  if (j.reservation)
    reservations_.at(*j.reservation).queued.erase(jid);
  else if (!queue_.erase(jid))
    forget({j.not_before, event_kind::job_begin, jid});  // still before its begin time
  emit(simulated_job_event::kind::ended, jid, j, outcome);
  retire(jid, outcome);
}

void simulated_lrms::drop_reservation(serial rid, lrms_job_state outcome) {
  auto it = reservations_.find(rid);
  reservation& r = it->second;
  const std::set<serial> running = r.running;  // pause() edits r.running
  for (serial jid : running) {
    job& j = jobs_.at(jid);
    // At its end a reservation stops its restartable jobs instead of killing them.
    if (outcome == lrms_job_state::failed && j.restartable) {
      pause(jid, j);
      continue;
    }
    forget({*j.started + std::min(j.runtime, j.walltime), event_kind::job_end, jid});
    emit(simulated_job_event::kind::ended, jid, j, outcome);
    retire(jid, outcome);
  }
  for (serial jid : r.queued) {
    emit(simulated_job_event::kind::ended, jid, jobs_.at(jid), outcome);
    retire(jid, outcome);
  }
  release(r.start, r.end, r.np);
  forget({r.start, event_kind::reservation_start, rid});
  forget({r.end, event_kind::reservation_end, rid});
  unlist(r);
  reservations_.erase(it);
}

void simulated_lrms::list(serial rid, reservation& r, const reservation_spec& spec) {
  r.listed = listing_.add({rid, r.start, r.end, r.np, spec.name, spec.owner, spec.account});
}

void simulated_lrms::unlist(const reservation& r) {
  if (auto moved = listing_.remove(r.listed)) reservations_.at(*moved).listed = r.listed;
}

void simulated_lrms::retire(serial jid, lrms_job_state outcome) {
  jobs_.erase(jid);
  ++jobs_version_;
  const auto at = jid - first_serial_;
  if (finished_.size() <= at) finished_.resize(at + 1);  // amortized: vector grows geometrically
  finished_[at] = outcome;
}

// ---------------------------------------------------------------------------------------
// Reservations.

status simulated_lrms::check_terms(const reservation_spec& s, timestamp earliest_start) const {
  const std::string who = "reservation '" + s.name + "'";
  if (s.length <= 0)
    return fail(errc::invalid_window,
                who + " has length " + str(s.length) + " s; needs a positive length");
  if (s.start < earliest_start)
    return fail(errc::invalid_window, "Invalid time specified: " + who + " would start at " +
                                          str(s.start) + ", before now (" + str(now_) + ")");
  if (s.start > time_infinity - s.length)
    return fail(errc::invalid_window, who + " starting at " + str(s.start) + " for " +
                                          str(s.length) + " s ends beyond time_infinity");
  if (s.np < 1 || s.np > cpus())
    return fail(errc::invalid_processor_range, who + " asks for " + str(s.np) + " CPUs; cluster '" +
                                                   name_ + "' has " + str(cpus()));
  const bool reservable = sorted_counts_.empty() ? s.np % sizes_.bunch == 0
                                                 : std::binary_search(sorted_counts_.begin(),
                                                                      sorted_counts_.end(), s.np);
  if (!reservable)
    return fail(errc::invalid_processor_range,
                who + ": " + str(s.np) + " CPUs is not a reservable size on cluster '" + name_ +
                    "' (" +
                    (sorted_counts_.empty() ? "multiples of " + str(sizes_.bunch)
                                            : std::string("listed counts only")) +
                    ")");
  if (s.owner.empty()) return fail(errc::permission_denied, who + " has no owner");
  return {};
}

// Turns the profile's refusal into the LRMS's: capacity_exceeded is busy.
error simulated_lrms::refusal(const error& e, timestamp start, timestamp end, int np) const {
  if (e.code != errc::capacity_exceeded) return e;
  const auto free = profile_.min_free(start, end);
  return fail(errc::busy, "cannot reserve " + str(np) + " CPUs over " + span_text(start, end) +
                              " on cluster '" + name_ + "': only " + str(free ? *free : 0) +
                              " free");
}

result<std::string> simulated_lrms::create_reservation(const reservation_spec& spec) {
  if (failed_) return out_of_service();
  advance(clock_());
  if (auto ok = check_terms(spec, now_); !ok) return ok.err();
  const timestamp end = spec.start + spec.length;
  if (auto added = profile_.add(spec.start, end, spec.np); !added)
    return refusal(added.err(), spec.start, end, spec.np);
  queue_.committed_added(spec.start, end, spec.np);
  const serial rid = ++last_reservation_;
  reservation& r = reservations_[rid];
  r.start = spec.start;
  r.end = end;
  r.np = spec.np;
  list(rid, r, spec);
  ++reservations_version_;
  schedule({end, event_kind::reservation_end, rid});
  if (spec.start > now_) schedule({spec.start, event_kind::reservation_start, rid});
  start_queued_jobs(now_);  // conservative plans made again may start now
  return reservation_id(rid);
}

status simulated_lrms::delete_reservation(const std::string& id) {
  if (failed_) return out_of_service();
  advance(clock_());
  const auto rid = parse_id(id, 'R');
  if (!rid || !reservations_.contains(*rid))
    return fail(errc::not_found, "no reservation '" + id + "' on cluster '" + name_ + "'");
  drop_reservation(*rid, lrms_job_state::cancelled);
  ++reservations_version_;
  start_queued_jobs(now_);
  return {};
}

result<std::string> simulated_lrms::modify_reservation(const std::string& id,
                                                       const reservation_spec& new_terms) {
  if (failed_) return out_of_service();
  advance(clock_());
  const auto old_rid = parse_id(id, 'R');
  auto it = old_rid ? reservations_.find(*old_rid) : reservations_.end();
  if (it == reservations_.end())
    return fail(errc::not_found, "no reservation '" + id + "' on cluster '" + name_ + "'");
  reservation& old = it->second;

  // A started reservation may keep its start; otherwise the new terms start now or later.
  const timestamp earliest = new_terms.start == old.start ? std::min(now_, old.start) : now_;
  if (auto ok = check_terms(new_terms, earliest); !ok) return ok.err();
  const timestamp end = new_terms.start + new_terms.length;
  const std::string terms = span_text(new_terms.start, end) + " x " + str(new_terms.np);
  if (end <= now_)
    return fail(errc::invalid_window, "new terms " + terms + " of reservation '" + id +
                                          "' end before now (" + str(now_) + ")");

  // Bound jobs follow the reservation; refuse terms that would cut or strand one.
  if (old.used > new_terms.np)
    return fail(errc::in_use, "reservation '" + id + "' runs jobs on " + str(old.used) +
                                  " CPUs; new terms " + terms + " have fewer");
  for (serial jid : old.running) {
    const job& j = jobs_.at(jid);
    const timestamp guaranteed = std::min(*j.started + j.walltime, old.end);
    if (new_terms.start > *j.started || end < guaranteed)
      return fail(errc::in_use, "job '" + job_id(jid) + "' runs in reservation '" + id + "' over " +
                                    span_text(*j.started, guaranteed) + "; new terms " + terms +
                                    " would cut it");
  }
  for (serial jid : old.queued) {
    const job& j = jobs_.at(jid);
    if (j.np > new_terms.np || j.walltime > end - std::max(now_, new_terms.start))
      return fail(errc::in_use, "job '" + job_id(jid) + "' (" + str(j.np) + " CPUs, walltime " +
                                    str(j.walltime) + " s) waits in reservation '" + id +
                                    "' and would not fit the new terms " + terms);
  }

  // Release the old span and try the new one; put the old one back if it does not fit.
  must(profile_.remove(old.start, old.end, old.np));
  if (auto added = profile_.add(new_terms.start, end, new_terms.np); !added) {
    error refused = refusal(added.err(), new_terms.start, end, new_terms.np);
    must(profile_.add(old.start, old.end, old.np));
    return refused;
  }
  queue_.committed_released(old.start, old.end, old.np, now_);
  queue_.committed_added(new_terms.start, end, new_terms.np);

  const serial rid = ++last_reservation_;
  reservation fresh{new_terms.start,      end, new_terms.np, old.used, std::move(old.running),
                    std::move(old.queued)};
  forget({old.start, event_kind::reservation_start, *old_rid});
  forget({old.end, event_kind::reservation_end, *old_rid});
  unlist(old);
  reservations_.erase(it);
  for (serial jid : fresh.running)
    jobs_.at(jid).reservation = rid;
  for (serial jid : fresh.queued)
    jobs_.at(jid).reservation = rid;
  ++jobs_version_;  // its jobs name the new id
  schedule({end, event_kind::reservation_end, rid});
  if (new_terms.start > now_) schedule({new_terms.start, event_kind::reservation_start, rid});
  list(rid, reservations_.emplace(rid, std::move(fresh)).first->second, new_terms);
  ++reservations_version_;
  start_bound_jobs(rid, now_);  // it may have grown
  start_queued_jobs(now_);      // or shrunk
  return reservation_id(rid);
}

status simulated_lrms::extend_reservation(const std::string& id, timestamp new_end) {
  if (failed_) return out_of_service();
  advance(clock_());
  const auto rid = parse_id(id, 'R');
  auto it = rid ? reservations_.find(*rid) : reservations_.end();
  if (it == reservations_.end())
    return fail(errc::not_found, "no reservation '" + id + "' on cluster '" + name_ + "'");
  reservation& r = it->second;
  if (new_end <= r.end || new_end > time_infinity)
    return fail(errc::invalid_window, "reservation '" + id + "' ends at " + str(r.end) +
                                          "; cannot extend it to " + str(new_end));
  if (auto added = profile_.add(r.end, new_end, r.np); !added)
    return refusal(added.err(), r.end, new_end, r.np);
  queue_.committed_added(r.end, new_end, r.np);
  forget({r.end, event_kind::reservation_end, *rid});
  const timestamp old_end = r.end;
  r.end = new_end;
  listing_.set_end(r.listed, new_end);
  ++reservations_version_;
  schedule({new_end, event_kind::reservation_end, *rid});
  for (serial jid : r.running) {
    job& j = jobs_.at(jid);
    if (*j.started + j.walltime < old_end) continue;  // its own limit stops it before
    const timestamp before = *j.started + std::min(j.runtime, j.walltime);
    j.walltime = new_end - *j.started;
    ++jobs_version_;
    const timestamp after = *j.started + std::min(j.runtime, j.walltime);
    if (after == before) continue;  // it ends on its own then anyway
    forget({before, event_kind::job_end, jid});
    schedule({after, event_kind::job_end, jid});
  }
  start_queued_jobs(now_);  // conservative plans made again may start now
  return {};
}

// ---------------------------------------------------------------------------------------
// Jobs.

result<std::string> simulated_lrms::submit_job(const job_spec& spec) {
  if (!nodes_.empty() && spec.needs.any()) {
    auto needs = spec.needs;
    needs.os.clear();  // the cluster's, checked by the broker
    if (auto why = unmet({{}, {}, nodes_}, needs, spec.np); !why.empty())
      return fail(errc::infeasible, "job '" + spec.name + "': cluster '" + name_ + "' " + why);
  }
  auto jid = submit(spec, spec.walltime, {});
  if (!jid) return std::move(jid).err();
  return job_id(*jid);
}

result<std::vector<node_group>> simulated_lrms::node_groups() {
  return nodes_;
}

result<std::string> simulated_lrms::submit_local_job(const job_spec& spec, duration actual_runtime,
                                                     local_job_options options) {
  auto jid = submit_local_job_serial(spec, actual_runtime, options);
  if (!jid) return std::move(jid).err();
  return job_id(*jid);
}

result<std::uint64_t> simulated_lrms::submit_local_job_serial(const job_spec& spec,
                                                              duration actual_runtime,
                                                              local_job_options options) {
  if (actual_runtime <= 0)
    return fail(errc::invalid_duration, "job '" + spec.name + "' actual runtime " +
                                            str(actual_runtime) + " s must be positive");
  return submit(spec, scaled_runtime(actual_runtime), options);
}

// Runtimes were measured on a machine of speed 1; this one takes r / speed (whole seconds).
duration simulated_lrms::scaled_runtime(duration actual_runtime) const {
  const double scaled = std::ceil(static_cast<double>(actual_runtime) / cpu_speed_);
  return scaled >= static_cast<double>(time_infinity)
             ? time_infinity
             : std::max<duration>(1, static_cast<duration>(scaled));
}

result<simulated_lrms::serial> simulated_lrms::submit(const job_spec& spec, duration actual_runtime,
                                                      local_job_options options) {
  if (failed_) return out_of_service();
  advance(clock_());
  const auto who = [&spec] { return "job '" + spec.name + "'"; };  // only for errors
  if (spec.np < 1 || spec.np > cpus())
    return fail(
        errc::invalid_processor_range,
        who() + " asks for " + str(spec.np) + " CPUs; cluster '" + name_ + "' has " + str(cpus()));
  if (spec.walltime <= 0 || spec.walltime > time_infinity)
    return fail(errc::invalid_duration,
                who() + " walltime " + str(spec.walltime) + " s must be positive and finite");
  if (spec.owner.empty()) return fail(errc::permission_denied, who() + " has no owner");
  if (spec.reservation && spec.not_before > now_)
    return fail(errc::invalid_parameter,
                who() + " has a begin time and a reservation: the simulated LRMS takes one");

  std::optional<serial> rid;
  if (spec.reservation) {
    const std::string& rname = *spec.reservation;
    rid = parse_id(rname, 'R');
    auto it = rid ? reservations_.find(*rid) : reservations_.end();
    if (it == reservations_.end())
      return fail(errc::not_found, who() + " names reservation '" + rname + "', which cluster '" +
                                       name_ + "' does not hold");
    const reservation& r = it->second;
    const std::string& account = listing_.at(r.listed).account;  // only its jobs may use it
    if (!account.empty() && spec.account != account)
      return fail(errc::permission_denied, who() + " of account '" + spec.account +
                                               "' may not use reservation '" + rname +
                                               "' of account '" + account + "'");
    if (spec.np > r.np)
      return fail(errc::invalid_processor_range, who() + " asks for " + str(spec.np) +
                                                     " CPUs; reservation '" + rname + "' holds " +
                                                     str(r.np));
    const timestamp from = std::max(now_, r.start);
    if (spec.walltime > r.end - from)
      return fail(errc::invalid_window, who() + " walltime " + str(spec.walltime) + " s from " +
                                            str(from) + " passes the end " + str(r.end) +
                                            " of reservation '" + rname + "'");
  }

  const serial jid = ++last_job_;
  jobs_.emplace(jid, job{spec.owner,
                         spec.np,
                         spec.walltime,
                         actual_runtime,
                         now_,
                         ++last_queued_order_,
                         options.restartable,
                         {},
                         rid,
                         spec.name,
                         spec.not_before});
  ++jobs_version_;
  if (rid) {
    reservations_.at(*rid).queued.insert(jid);
    start_bound_jobs(*rid, now_);
  } else if (spec.not_before > now_) {
    schedule({spec.not_before, event_kind::job_begin, jid});  // joins the queue then
  } else {
    queue_.push(jid, spec.np, spec.walltime, now_);
    start_queued_jobs(now_);
  }
  return jid;
}

status simulated_lrms::cancel_job(const std::string& id) {
  advance(clock_());
  const auto jid = parse_id(id, 'J');
  if (jid) {
    if (auto it = jobs_.find(*jid); it != jobs_.end()) {
      const auto rid = it->second.reservation;
      if (it->second.started)
        end_running(*jid, lrms_job_state::cancelled);
      else
        drop_queued(*jid, lrms_job_state::cancelled);
      if (rid)
        start_bound_jobs(*rid, now_);
      else
        start_queued_jobs(now_);
      return {};
    }
    if (finished(*jid)) return {};  // already over, as scancel
  }
  return fail(errc::not_found, "no job '" + id + "' on cluster '" + name_ + "'");
}

result<lrms_job_state> simulated_lrms::job_status(const std::string& id) {
  advance(clock_());
  if (const auto jid = parse_id(id, 'J')) {
    if (auto it = jobs_.find(*jid); it != jobs_.end())
      return it->second.started ? lrms_job_state::running : lrms_job_state::queued;
    if (auto f = finished(*jid)) return *f;
  }
  return fail(errc::not_found, "no job '" + id + "' on cluster '" + name_ + "'");
}

std::optional<timestamp> simulated_lrms::planned_start(const std::string& id) const {
  const auto jid = parse_id(id, 'J');
  return jid ? queue_.planned_start(*jid) : std::nullopt;
}

// ---------------------------------------------------------------------------------------
// Snapshot.

lrms_job simulated_lrms::report(serial jid, const job& j) const {
  lrms_job out{job_id(jid), j.owner,   j.np,         j.walltime,
               j.submitted, j.started, std::nullopt, j.name};
  if (j.reservation) out.reservation = reservation_id(*j.reservation);
  if (!j.started) out.not_before = j.not_before;
  return out;
}

std::optional<std::uint64_t> simulated_lrms::jobs_version() {
  advance(clock_());
  return jobs_version_;
}

// No events to process first: none of them counts (reservations end at their ends).
std::optional<std::uint64_t> simulated_lrms::reservations_version() {
  if (!reports_reservation_changes_) return std::nullopt;
  return reservations_version_;
}

result<lrms_snapshot> simulated_lrms::jobs_snapshot() {
  advance(clock_());
  lrms_snapshot s;
  s.now = now_;
  s.cpus = cpus();
  s.sizes = sizes_;
  std::vector<serial> running;                           // by serial: submission order
  std::vector<std::pair<std::uint64_t, serial>> queued;  // (place in the queue, job)
  for (const auto& [jid, j] : jobs_) {
    if (j.started)
      running.push_back(jid);
    else
      queued.emplace_back(j.queued_order, jid);
  }
  std::sort(running.begin(), running.end());
  s.running.reserve(running.size());
  for (serial jid : running)
    s.running.push_back(report(jid, jobs_.at(jid)));
  std::sort(queued.begin(), queued.end());
  s.queued.reserve(queued.size());
  for (const auto& [place, jid] : queued)
    s.queued.push_back(report(jid, jobs_.at(jid)));
  return s;
}

result<lrms_snapshot> simulated_lrms::snapshot() {
  return begin_snapshot()();
}

lrms::snapshot_rest simulated_lrms::begin_snapshot() {
  if (failed_) return [e = out_of_service()]() -> result<lrms_snapshot> { return e; };
  auto jobs = jobs_snapshot();
  if (!jobs) return [e = jobs.err()]() -> result<lrms_snapshot> { return e; };
  // Now: the reservations' listing, shared. Later: its rows sorted by start, then id
  // (unique), and named, as snapshot() lists them.
  return [s = std::make_shared<lrms_snapshot>(std::move(*jobs)),
          taken = listing_.take()]() -> result<lrms_snapshot> {
    // Sorted by value (start, id), each row then read through its pointer.
    std::vector<std::tuple<timestamp, serial, const reservation_listing::row*>> rows;
    for (const auto& c : taken)
      for (const auto& r : *c)
        rows.emplace_back(r.start, r.rid, &r);
    std::sort(rows.begin(), rows.end());
    s->reservations.reserve(rows.size());
    for (const auto& [start, rid, r] : rows)
      s->reservations.push_back(
          {reservation_id(r->rid), r->name, r->owner, r->start, r->end, r->np, r->account});
    return std::move(*s);
  };
}

}  // namespace arbroker
