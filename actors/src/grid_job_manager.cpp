// The grid-job manager's jobs: queries, cancels, copies, the store, adoption (see
// grid_job_manager_impl.hpp for the other files).
#include "grid_job_manager_impl.hpp"

#include "arbroker/messages/runtime_hints.hpp"

namespace arbroker {

msg::grid_job_reply grid_job_manager::impl::query(const msg::grid_query_request& r) {
  auto* t = find(r.id, r.user);
  if (!t) return missing(r.id);
  return {msg::info_of(t->job), {}};
}

// The job's terms on cluster `e`: computed at most once per directory.
result<placement_terms> grid_job_manager::impl::terms_at(tracked& t, const directory_entry& e) {
  for (const auto& [at, terms] : t.terms)
    if (at == e.info.name) return terms;
  if (!t.inputs) {
    auto in = inputs_of(t.request);
    if (!in) return in.err();
    t.inputs = std::move(*in);
  }
  auto terms = terms_for(*t.inputs, e);
  if (terms) t.terms.emplace_back(e.info.name, *terms);
  return terms;
}

// How long a copy's inputs take to reach cluster `e`. The ranking's terms leave out the data
// held on clusters when the job does not prefer where it is (locality off); the data still
// has to move: every input not held on `e` (eq. 5's transfer, as terms_on counts it).
duration grid_job_manager::impl::stage_in_to(const tracked& t, const directory_entry& e,
                                             const placement_terms& as_ranked) const {
  if (t.request.locality) return as_ranked.stage_in;
  std::int64_t bytes = 0;
  for (const auto& f : t.request.inputs)
    if (msg::held_at_cluster(f.location) != std::optional<std::string_view>(e.info.name))
      bytes += f.bytes;
  return transfer_seconds(bytes, e.info.bandwidth);
}

// When a copy's inputs are on cluster `e`, moved there from now on (0: nothing to move).
timestamp grid_job_manager::impl::inputs_arrive(const tracked& t, const directory_entry& e,
                                                const placement_terms& as_ranked) const {
  const auto stage_in = stage_in_to(t, e, as_ranked);
  return stage_in > 0 ? now() + stage_in : 0;
}

// Keeps counters.jobs in step with the job's state.
void grid_job_manager::impl::recount(tracked& t) {
  if (t.counted == t.job.state) return;
  const auto s = static_cast<std::size_t>(t.job.spec.strategy);
  if (t.counted) --cfg_.counters->jobs[s][static_cast<std::size_t>(*t.counted)];
  ++cfg_.counters->jobs[s][static_cast<std::size_t>(t.job.state)];
  t.counted = t.job.state;
}

void grid_job_manager::impl::uncount(tracked& t) {
  if (!t.counted) return;
  const auto s = static_cast<std::size_t>(t.job.spec.strategy);
  --cfg_.counters->jobs[s][static_cast<std::size_t>(*t.counted)];
  t.counted.reset();
}

msg::grid_job_reply grid_job_manager::impl::cancel(const msg::grid_cancel_request& r) {
  auto* t = find(r.id, r.user);
  if (!t) return missing(r.id);
  if (is_terminal(t->job.state))
    return msg::error_reply<msg::grid_job_reply>(
        errc::illegal_transition,
        "grid job " + r.id + " has already ended (" + std::string(to_string(t->job.state)) + ")");
  const auto before = t->job;
  auto acts = t->job.cancel(now());
  // strategy reserve: the reservation was made for this job alone; it goes once the job
  // has (cluster services answer in order, and the job's cancel is sent first). Written
  // with the cancel, before the client hears of it.
  if (!t->job.reservation.empty()) t->job.reservation_to_release = true;
  if (auto saved = persist_job(*t); !saved) {
    // Not written, so not done: the job stays as the store has it, and the client hears why
    // (a node whose store broke, or that lost its lease, acknowledges nothing more).
    t->job = before;
    return msg::error_reply<msg::grid_job_reply>(saved.err());
  }
  recount(*t);
  const auto serial = serial_in(r.id);
  // Cancelled while its holds were asked for: they go (a reservation kept already goes
  // as above), and the submission waiting for its placement hears of the cancel.
  if (t->flow && !t->flow->done()) flow_step(serial, t->flow, t->flow->give_up());
  perform(serial, std::move(acts));
  release_reservation_if_done(serial);
  answer_if_placed(*t);
  auto out = msg::grid_job_reply{msg::info_of(t->job), {}};
  waiting_.erase(serial);                            // it no longer waits for anything
  if (!waiting_.empty()) wake_children(out.job.id);  // those waiting for it (may move jobs_)
  return out;
}

msg::grid_list_reply grid_job_manager::impl::list(const msg::grid_list_request& r) const {
  msg::grid_list_reply out;
  std::optional<grid_job_state> only;
  if (!r.state.empty()) {
    only = grid_job_state_from(r.state);
    if (!only)
      return msg::error_reply<msg::grid_list_reply>(
          errc::invalid_parameter,
          "state: '" + r.state +
              "' is not one of pending, queued, running, completed, failed, cancelled");
  }
  for (auto it = jobs_.rbegin(); it != jobs_.rend(); ++it) {
    const auto& j = it->second.job;
    if (!r.user.empty() && j.owner != r.user) continue;
    // With history, the ended ones come from the store (the node reads its pages).
    if (r.history && !j.active()) continue;
    if (only && j.state != *only) continue;
    if (!r.cluster.empty() &&
        std::none_of(j.copies.begin(), j.copies.end(),
                     [&](const grid_copy& c) { return c.cluster == r.cluster; }))
      continue;
    out.jobs.push_back(msg::info_of(j));
  }
  return out;
}

grid_job_manager::impl::tracked* grid_job_manager::impl::find(const std::string& id,
                                                              const std::string& user) {
  auto it = jobs_.find(serial_in(id));
  if (it == jobs_.end() || it->second.job.id != id) return nullptr;
  // Another user's job looks exactly like a missing one; an admin's empty user sees all.
  if (!user.empty() && it->second.job.owner != user) return nullptr;
  return &it->second;
}

msg::grid_job_reply grid_job_manager::impl::missing(const std::string& id) {
  return msg::error_reply<msg::grid_job_reply>(errc::not_found, "no grid job '" + id + "'");
}

const directory_entry* grid_job_manager::impl::cluster(const std::string& which) const {
  return find_cluster(*directory_.clusters, which);
}

void grid_job_manager::impl::send_copy(std::uint64_t serial, std::size_t i) {
  auto& t = jobs_.at(serial);
  const auto& c = t.job.copies[i];
  const auto* e = cluster(c.cluster);
  auto terms =
      e ? terms_at(t, *e) : result<placement_terms>(error{errc::not_found, "cluster left"});
  if (!e || !terms) {
    auto acts = t.job.on_submitted(
        i, error{errc::not_found, c.cluster + " is not in the directory"}, now());
    after_change(serial, std::move(acts));
    return;
  }
  const auto& needs = t.job.spec.needs;
  msg::job_submit_request q{
      t.job.owner,        "g" + std::to_string(serial) + "." + std::to_string(i),
      t.job.spec.command, t.job.spec.np,
      terms->walltime,    needs.mem_per_cpu,
      needs.mem_per_node, needs.features};
  if (cfg_.hold_for_stage_in) q.not_before = inputs_arrive(t, *e, *terms);
  ++cfg_.counters->copies_submitted;
  ask(c.cluster, std::move(q), [this, serial, i](const result<msg::job_submit_reply>& rep) {
    auto it = jobs_.find(serial);
    if (it == jobs_.end()) return;
    const auto id = outcome(rep, &msg::job_submit_reply::lrms_id);
    auto acts = it->second.job.on_submitted(i, id, now());
    after_change(serial, std::move(acts));
  });
}

// Writes the job, does what the rules asked, and answers a submit once no copy is
// still being submitted.
void grid_job_manager::impl::after_change(std::uint64_t serial, std::vector<grid_action> acts) {
  auto& t = jobs_.at(serial);
  recount(t);
  cfg_.counters->resubmits += t.job.resubmits - std::exchange(t.counted_resubmits, t.job.resubmits);
  cfg_.counters->retries += t.job.retries - std::exchange(t.counted_retries, t.job.retries);
  (void)persist_job(t);  // the job itself was durable before any LRMS saw a copy
  perform(serial, std::move(acts));
  release_reservation_if_done(serial);
  answer_if_placed(t);
  if (t.job.to_place) place_again(serial);
  if (is_terminal(t.job.state) && !waiting_.empty()) wake_children(std::string(t.job.id));
}

// Answers the submission once no copy is still being submitted (and a reserve job's holds
// are decided).
void grid_job_manager::impl::answer_if_placed(tracked& t) {
  const bool placing = std::any_of(t.job.copies.begin(), t.job.copies.end(),
                                   [](const auto& c) { return c.state == copy_state::submitting; });
  const bool holding = t.flow && !t.flow->done() && t.job.copies.empty();
  if (placing || holding || t.answer_when_placed.empty()) return;
  msg::grid_job_reply rep{msg::info_of(t.job), {}};
  if (t.job.state == grid_job_state::failed)
    rep.error = msg::wire(errc::infeasible, t.job.history.back().what);
  for (auto& rp : t.answer_when_placed)
    rp(rep);
  t.answer_when_placed.clear();
}

void grid_job_manager::impl::perform(std::uint64_t serial, std::vector<grid_action> acts) {
  for (const auto& a : acts) {
    auto& t = jobs_.at(serial);
    const auto& c = t.job.copies[a.copy];
    const auto* e = cluster(c.cluster);
    if (!e && !is_live(c.state)) {  // given up before: cancelled if it is seen again
      (void)t.job.on_cancel_answer(a.copy, error{errc::not_found, c.cluster + " left the grid"},
                                   now());
      continue;
    }
    if (!e) {
      auto more = t.job.on_lost(a.copy, c.cluster + " left the grid", now());
      (void)persist_job(t);
      perform(serial, std::move(more));
      continue;
    }
    msg::job_cancel_request q{c.lrms_id, a.what == grid_action::kind::withdraw};
    ask(c.cluster, std::move(q),
        [this, serial, i = a.copy](const result<msg::job_cancel_reply>& rep) {
          auto it = jobs_.find(serial);
          if (it == jobs_.end()) return;
          auto& job = it->second.job;
          auto found = outcome(rep, &msg::job_cancel_reply::found);
          // A job the LRMS does not know is in no queue: as good as cancelled.
          if (!found && found.err().code == errc::not_found) found = observed_state::cancelled;
          const auto dup = job.duplicate_starts;
          const auto mig = job.migrations;
          const auto gain = job.migration_gain;
          auto more = job.on_cancel_answer(i, found, now());
          if (found && job.copies[i].state == copy_state::cancelled)
            ++cfg_.counters->copies_cancelled;
          count(job, dup, mig, gain);
          after_change(serial, std::move(more));
        });
  }
}

void grid_job_manager::impl::count(const grid_job& j, std::int32_t dup, std::int32_t mig,
                                   duration gain) {
  cfg_.counters->duplicate_starts += j.duplicate_starts - dup;
  cfg_.counters->migrations += j.migrations - mig;
  cfg_.counters->migration_gain += j.migration_gain - gain;
}

// Every call (ask, txn) is counted from here ...
std::chrono::steady_clock::time_point grid_job_manager::impl::call_started() {
  ++outstanding_;
  ++cfg_.counters->lrms_calls;
  return std::chrono::steady_clock::now();
}

void grid_job_manager::impl::when_settled(std::int32_t value,
                                          std::function<void(std::int32_t)> done) {
  if (outstanding_ == 0)
    done(value);
  else
    waiters_.emplace_back(std::move(done), value);
}

void grid_job_manager::impl::settled() {
  if (--outstanding_ > 0) return;
  auto ws = std::move(waiters_);
  waiters_.clear();
  for (auto& [done, v] : ws)
    done(v);
}

grid_job_row grid_job_manager::impl::row_of(tracked& t) {
  const bool active = t.job.active();
  const timestamp ended = active ? 0 : t.job.ended.value_or(now());
  if (!active && !t.noted_ended) {  // it may leave memory from now on
    t.noted_ended = true;
    ended_.emplace(ended, serial_in(t.job.id));
  }
  auto events = grid_job_events(t.seen, t.job, now());
  t.seen = seen_of(t.job);
  return {t.job.id, t.job.owner,      active, msg::encode_record({t.request, t.job}),
          ended,    std::move(events)};
}

arbroker::status grid_job_manager::impl::persist_job(tracked& t) {
  auto row = row_of(t);
  if (!cfg_.journal) return {};
  return cfg_.journal->save_grid_job(row);
}

// Ended jobs leave memory after ended_in_memory, or sooner beyond ended_in_memory_max
// (oldest first), unless something still waits on them; the store keeps them (purged past
// the retention once a minute). Memory and list then do not grow with the history.
void grid_job_manager::impl::forget_ended() {
  const timestamp t = now();
  for (auto it = ended_.begin(); it != ended_.end();) {
    const bool too_many = ended_.size() > cfg_.ended_in_memory_max;
    if (!too_many && it->first + cfg_.ended_in_memory > t) break;
    const auto serial = it->second;
    auto j = jobs_.find(serial);
    const bool waited_on =
        j != jobs_.end() && (!j->second.answer_when_placed.empty() || j->second.job.active());
    if (waited_on) {
      ++it;
      continue;
    }
    if (j != jobs_.end()) {
      uncount(j->second);  // the gauge counts the jobs the manager holds
      jobs_.erase(j);
    }
    it = ended_.erase(it);
  }
  if (cfg_.journal && t >= next_purge_) {
    (void)cfg_.journal->purge_grid_jobs(t - cfg_.retention);
    next_purge_ = t + 60;
  }
}

void grid_job_manager::impl::adopt(msg::grid_job_record rec) {
  const auto serial = serial_in(rec.job.id);
  if (serial == 0) return;
  next_serial_ = std::max(next_serial_, serial + 1);
  tracked t;
  t.request = std::move(rec.request);
  t.job = std::move(rec.job);
  t.seen = seen_of(t.job);  // its events so far were written with it
  // A copy written down but never answered for may or may not be in its LRMS: the first
  // round looks for it there by name (recover_round).
  for (std::size_t i = 0; i < t.job.copies.size(); ++i)
    if (t.job.copies[i].state == copy_state::submitting) unresolved_.emplace_back(serial, i);
  // Cancels and withdrawals on their way when the node stopped go again in the first round.
  if (!t.job.resend_pending().empty()) resend_.push_back(serial);
  // A job to be placed again is, once the directory is known (a poll round).
  if (t.job.to_place) to_place_.insert(serial);
  // A job waiting for its parents waits again (the first poll round looks at them).
  const bool waits = !t.request.after.empty() && t.job.copies.empty() && !t.job.to_place &&
                     !is_terminal(t.job.state);
  if (waits) {
    waiting_.insert(serial);
    recheck_waiting_ = true;
  }
  t.counted_resubmits = t.job.resubmits;
  t.counted_retries = t.job.retries;
  // A reserve job stopped between its holds and its bound job: its reservation (if the
  // commit was made) is released, and the job fails.
  const bool stopped_before_its_job = t.request.strategy == grid_strategy::reserve &&
                                      t.job.copies.empty() && !is_terminal(t.job.state) && !waits &&
                                      !t.job.to_place;
  if (stopped_before_its_job) {
    t.job.state = grid_job_state::failed;
    t.job.ended = now();
    t.job.history.push_back({now(), -1, "the node stopped before the job was in its reservation"});
    if (!t.job.reservation.empty()) t.job.reservation_to_release = true;
  }
  auto& adopted = jobs_.emplace(serial, std::move(t)).first->second;
  recount(adopted);
  if (stopped_before_its_job) (void)persist_job(adopted);  // failed above
}

grid_job_manager::grid_job_manager(grid_jobs_config cfg, grid_job_port& port)
    : impl_(std::make_unique<impl>(std::move(cfg), port)) {}
grid_job_manager::~grid_job_manager() = default;

void grid_job_manager::submit(msg::grid_submit_request r, reply_fn answer) {
  impl_->submit(std::move(r), std::move(answer));
}
void grid_job_manager::submit_many(msg::grid_submit_many_request r, many_reply_fn answer) {
  impl_->submit_many(std::move(r), std::move(answer));
}
void grid_job_manager::flush() {
  impl_->flush();
}
msg::grid_job_reply grid_job_manager::query(const msg::grid_query_request& r) {
  return impl_->query(r);
}
msg::grid_job_reply grid_job_manager::cancel(const msg::grid_cancel_request& r) {
  return impl_->cancel(r);
}
msg::grid_list_reply grid_job_manager::list(const msg::grid_list_request& r) const {
  return impl_->list(r);
}
std::int32_t grid_job_manager::poll_round() {
  return impl_->poll_round();
}
std::int32_t grid_job_manager::adapt_round() {
  return impl_->adapt_round();
}
void grid_job_manager::look_at(const msg::lrms_job_events& ev) {
  impl_->look_at(ev);
}
directory_view& grid_job_manager::directory() {
  return impl_->directory_;
}
void grid_job_manager::directory_changed() {
  impl_->directory_changed();
}
void grid_job_manager::when_settled(std::int32_t value, std::function<void(std::int32_t)> done) {
  impl_->when_settled(value, std::move(done));
}

result<std::vector<msg::grid_job_record>> load_grid_jobs(grid_job_journal& journal) {
  auto rows = journal.grid_jobs();
  if (!rows) return rows.err();
  std::vector<msg::grid_job_record> out;
  out.reserve(rows->size());
  for (const auto& r : *rows) {
    auto rec = msg::decode_record(r.body);
    if (!rec) return error{errc::storage_failure, "grid job " + r.id + ": " + rec.err().message};
    out.push_back(std::move(*rec));
  }
  return out;
}

}  // namespace arbroker
