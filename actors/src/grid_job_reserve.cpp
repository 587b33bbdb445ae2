// The reserve strategy (JBS): the flow's calls, the bound job, the reservation's release.
#include "grid_job_manager_impl.hpp"

namespace arbroker {

// The JBS flow (reserve_flow.hpp; paper 004 Sec. III-A, paper 003 Sec. 3 step 4): hold at
// the best k clusters at once, each at the start its estimator gave (after stage-in), keep
// the hold that finishes first, let the others go, and run the job in the kept reservation
// with the walltime of the largest benchmark estimate.
void grid_job_manager::impl::reserve(std::uint64_t serial, std::vector<ranked> ok) {
  auto& t = jobs_.at(serial);
  std::vector<std::string> unfit;
  auto options = reserve_options(t, ok, unfit);
  if (options.empty()) {
    std::string why = "no cluster granted a hold:";
    for (const auto& u : unfit)
      why += " " + u + ";";
    why.pop_back();
    if (reserve_fallback(serial, why)) return;
    return fail_reserve(serial, why);
  }
  for (auto& u : unfit)
    t.job.history.push_back({now(), -1, "no hold at " + std::move(u)});
  t.flow = std::make_shared<reserve_flow>(t.job.id, t.job.owner, hold_expiry);
  flow_step(serial, t.flow, t.flow->start(std::move(options), now()));
}

std::vector<reserve_option> grid_job_manager::impl::reserve_options(
    const tracked& t, const std::vector<ranked>& ok, std::vector<std::string>& unfit) const {
  std::vector<reserve_option> options;
  for (const auto& o : ok) {
    // The reservation: the smallest size the cluster reserves that holds the job.
    const auto* e = cluster(o.cluster);
    auto sizes =
        !e ? result<std::vector<std::int32_t>>(error{errc::not_found, o.cluster + " left the grid"})
           : reservable_counts({e->info.bunch, e->info.counts}, t.job.spec.np, e->info.cpus,
                               e->info.cpus);
    if (!sizes) {
      unfit.push_back(o.cluster + ": " + sizes.err().message);
      continue;
    }
    // Eq. 7 as printed (start + the site's delay, here its TTD) or start + run time; a move
    // compares finishes by start + run time.
    const bool eq7 = (t.request.finish_by_eq7 || cfg_.finish_by_eq7) && !t.moving_from_finish;
    const duration finish = eq7 ? o.sed_delay : o.terms.execution + o.terms.stage_out.value_or(0);
    options.push_back({o.cluster, std::max(o.start, now() + o.terms.stage_in + start_lead),
                       o.walltime + submit_slack, sizes->front(), finish});
  }
  return options;
}

// Sends the calls of a job's reserve flow; their answers go back to it and then here,
// where what the flow decided becomes the job's.
void grid_job_manager::impl::flow_step(std::uint64_t serial, const std::shared_ptr<reserve_flow>& f,
                                       reserve_flow::calls cs) {
  for (auto& c : cs)
    std::visit(
        [&](auto& q) {
          using R = std::decay_t<decltype(q)>;
          const auto& where = f->option(c.hold).cluster;
          if constexpr (std::is_same_v<R, msg::prepare_request>) {
            txn<msg::prepare_reply>(
                where, std::move(q),
                [this, serial, f, h = c.hold, id = c.what.id](const msg::prepare_reply* r) {
                  flow_step(serial, f, f->answer(h, id, r, now()));
                });
          } else if constexpr (!std::is_same_v<R, reservation_attempt::durable_wait>) {
            // (A one-part attempt logs no decision: no durable_wait.)
            txn<msg::ack_reply>(
                where, std::move(q),
                [this, serial, f, h = c.hold, id = c.what.id](const msg::ack_reply* r) {
                  flow_step(serial, f, f->answer(h, id, r));
                });
          }
        },
        c.what.request);
  auto it = jobs_.find(serial);
  if (it == jobs_.end() || it->second.flow != f) return;
  auto& t = it->second;
  for (auto& n : f->take_notes())
    t.job.history.push_back({now(), -1, std::move(n)});
  if (t.flow_seen == f->current()) return;
  t.flow_seen = f->current();
  if (t.moving_from_finish) {
    // A move's flow: its commit is let go unless the job moves into it (written before the
    // commit lands, so that a crash leaves it to be released).
    if (f->current() == reserve_flow::phase::committing) {
      t.job.releasing.push_back(f->reservation_id());
      (void)persist_job(t);
    } else if (f->done()) {
      end_move(serial, f);
    }
    return;
  }
  switch (f->current()) {
    case reserve_flow::phase::committing:
      t.job.reservation = f->reservation_id();
      (void)persist_job(t);
      break;
    case reserve_flow::phase::kept: {
      t.reserve_first.clear();  // no fallback any more: the job is in its reservation
      t.reserve_rest.clear();
      const auto& kept = f->option(*f->kept());
      bind(serial, kept.cluster, kept.length - submit_slack, kept.start);
      break;
    }
    case reserve_flow::phase::failed:
      if (!f->kept() && reserve_fallback(serial, f->failure())) break;  // no hold granted
      fail_reserve(serial, f->failure());
      break;
    default:
      break;
  }
}

void grid_job_manager::impl::fail_reserve(std::uint64_t serial, const std::string& why) {
  auto& job = jobs_.at(serial).job;
  if (is_terminal(job.state)) return;
  job.to_place = false;  // a placement again that found no hold ends here
  job.state = grid_job_state::failed;
  job.ended = now();
  if (job.history.empty() || job.history.back().what != why)
    job.history.push_back({now(), -1, why});
  after_change(serial, {});
}

// No hold granted (`why`): holds at the next `width` clusters of the ranking, or (asked for:
// fallback_flood) a flood of the best `width`. False when neither is left.
bool grid_job_manager::impl::reserve_fallback(std::uint64_t serial, const std::string& why) {
  auto& t = jobs_.at(serial);
  if (is_terminal(t.job.state)) return false;
  if (!t.reserve_rest.empty()) {
    const auto k = std::min(t.reserve_rest.size(), static_cast<std::size_t>(t.job.spec.width));
    std::vector<ranked> next(
        std::make_move_iterator(t.reserve_rest.begin()),
        std::make_move_iterator(t.reserve_rest.begin() + static_cast<std::ptrdiff_t>(k)));
    t.reserve_rest.erase(t.reserve_rest.begin(),
                         t.reserve_rest.begin() + static_cast<std::ptrdiff_t>(k));
    std::string names;
    for (const auto& o : next)
      names += (names.empty() ? "" : ", ") + o.cluster;
    t.job.history.push_back({now(), -1, why + "; holds asked at the next: " + names});
    (void)persist_job(t);
    reserve(serial, std::move(next));
    return true;
  }
  if (!t.request.fallback_flood || t.reserve_first.empty()) return false;
  // A flood of the best `width` instead: the job is a flood from now on (its rules, its
  // count among the flood jobs).
  uncount(t);
  t.job.spec.strategy = grid_strategy::flood;
  t.flow.reset();
  t.job.history.push_back({now(), -1, why + "; placed as a flood instead (fallback_flood)"});
  add_copies(serial, std::exchange(t.reserve_first, {}));
  return true;
}

// A reserve job placed again (its bound job lost): its old reservation is let go, and the
// flow holds at the best `width` of the new ranking (the next ones in turn), as at submission.
// The old one's cancel is sent once: where its cluster cannot be reached it ends at its own
// end (the job's walltime and a minute), and its bound job, given up unconfirmed, is cancelled
// if that cluster shows it again.
std::vector<std::pair<std::string, duration>> grid_job_manager::impl::reserve_again(
    std::uint64_t serial, std::vector<ranked> ok) {
  auto& t = jobs_.at(serial);
  const auto k = std::min(ok.size(), static_cast<std::size_t>(t.job.spec.width));
  t.reserve_rest.assign(std::make_move_iterator(ok.begin() + static_cast<std::ptrdiff_t>(k)),
                        std::make_move_iterator(ok.end()));
  ok.resize(k);
  t.reserve_first = ok;
  if (auto old = std::exchange(t.job.reservation, {}); !old.empty()) {
    t.job.reservation_to_release = false;
    const auto where = old.substr(0, old.rfind('/'));
    if (cluster(where)) ask(where, msg::cancel_request{t.job.owner, old}, [](const auto&) {});
    t.job.history.push_back({now(), -1, "reservation " + old + " let go"});
  }
  t.flow.reset();
  t.flow_seen = reserve_flow::phase::holding;
  (void)persist_job(t);
  auto went = places(ok);
  reserve(serial, std::move(ok));
  return went;
}

// The job into the kept reservation: a copy whose LRMS id is the bound job's.
void grid_job_manager::impl::bind(std::uint64_t serial, const std::string& where, duration walltime,
                                  timestamp start) {
  auto& t = jobs_.at(serial);
  const auto i = t.job.add_copy(where, now(), "runs in reservation " + t.job.reservation);
  t.job.copies[i].reservation = t.job.reservation;
  t.job.copies[i].reserved_start = start;
  (void)persist_job(t);
  bind_copy(serial, i, walltime);
}

void grid_job_manager::impl::bind_copy(std::uint64_t serial, std::size_t i, duration walltime) {
  auto& t = jobs_.at(serial);
  const auto& c = t.job.copies[i];
  const auto* e = cluster(c.cluster);
  if (!e)
    return after_change(
        serial, t.job.on_submitted(i, error{errc::not_found, c.cluster + " left the grid"}, now()));
  ++cfg_.counters->copies_submitted;
  const auto& needs = t.job.spec.needs;
  msg::bind_job_request q{
      t.job.owner,       c.reservation,      "g" + std::to_string(serial) + "." + std::to_string(i),
      t.job.spec.np,     walltime,           t.job.spec.command,
      needs.mem_per_cpu, needs.mem_per_node, needs.features};
  ask(c.cluster, std::move(q), [this, serial, i](const result<msg::bind_job_reply>& rep) {
    const auto id = outcome(rep, &msg::bind_job_reply::job_id);
    auto it = jobs_.find(serial);
    if (it == jobs_.end()) return;
    after_change(serial, it->second.job.on_submitted(i, id, now()));
  });
}

// Make-before-break (issue 35 item 7): the job keeps its reservation and its queued copy
// until the new reservation is committed and the job queued in it; only then is the old copy
// withdrawn, and the old reservation released once it is gone. Never both running (the
// withdrawal cancels only a queued copy; one that started wins and the new copy goes), never
// none held (the old reservation goes only after the new copy is queued).
void grid_job_manager::impl::start_move(std::uint64_t serial, const ranked& to,
                                        timestamp current_finish) {
  auto& t = jobs_.at(serial);
  t.moving_from_finish = current_finish;
  std::vector<std::string> unfit;
  auto options = reserve_options(t, {to}, unfit);
  if (options.empty()) {
    t.moving_from_finish.reset();
    return;
  }
  options.front().latest_start = current_finish - t.job.spec.min_gain - options.front().finish - 1;
  // Its own transactions: the holds of the job's first flow keep their names.
  t.flow = std::make_shared<reserve_flow>(t.job.id + ".m" + std::to_string(t.job.copies.size()),
                                          t.job.owner, hold_expiry);
  t.flow_seen = reserve_flow::phase::holding;
  flow_step(serial, t.flow, t.flow->start(std::move(options), now()));
}

void grid_job_manager::impl::end_move(std::uint64_t serial,
                                      const std::shared_ptr<reserve_flow>& f) {
  auto& t = jobs_.at(serial);
  const auto current_finish = *std::exchange(t.moving_from_finish, std::nullopt);
  const auto kept = f->current() == reserve_flow::phase::kept ? f->kept() : std::nullopt;
  // The job stays (`why`, if any, in its history); a commit made for it is released
  // (job.releasing). Until it has moved, the next try waits twice as long as the last
  // (60 s rounds: 2, 4, ... 64 minutes).
  const auto stay = [&](std::string why) {
    const duration round = cfg_.adaptation_interval > 0 ? cfg_.adaptation_interval : 60;
    t.futile_moves = std::min(t.futile_moves + 1, 6);
    t.next_move = now() + round * (duration{1} << t.futile_moves);
    if (!why.empty()) t.job.history.push_back({now(), -1, std::move(why)});
    after_change(serial, {});
  };
  if (!kept) return stay(f->failure().empty() ? "" : "no move: " + f->failure());
  const auto& o = f->option(*kept);
  const auto gain = current_finish - f->finish_of(*kept);
  if (!t.job.can_migrate())
    return stay("no move to " + f->reservation_id() +
                ": the job is no longer queued in its reservation");
  if (gain <= t.job.spec.min_gain)
    return stay("no move to " + f->reservation_id() + ": it gains " + std::to_string(gain) +
                " s, no more than min_gain (" + std::to_string(t.job.spec.min_gain) + " s)");
  t.futile_moves = 0;
  t.next_move = 0;
  const auto i = t.job.move_into(o.cluster, f->reservation_id(), o.start, gain, now());
  if (auto saved = persist_job(t); !saved)  // not written: not sent, the move abandoned
    return after_change(serial, t.job.on_submitted(i, saved.err(), now()));
  bind_copy(serial, i, o.length - submit_slack);
}

// The reservation of a reserve job that ended before its course (job.reservation_to_release),
// once no copy of the job is live any more, and those it let go (job.releasing), once no live
// copy runs in them. The obligation is in the store with the job: it ends only when the
// cluster has cancelled the reservation (or says it has ended), so a cancel lost to a crash or
// an unreachable cluster is sent again (poll rounds, restarts).
void grid_job_manager::impl::release_reservation_if_done(std::uint64_t serial) {
  auto& t = jobs_.at(serial);
  if (t.job.reservation_to_release && t.job.live_copies() == 0) release(serial, t.job.reservation);
  if (t.job.releasing.empty()) return;  // (every change of every job passes here)
  // A copy: a call's answer may come at once (a cluster gone) and take a name off the list.
  for (const auto& r : std::vector<std::string>(t.job.releasing)) {
    const bool in_use = std::any_of(t.job.copies.begin(), t.job.copies.end(), [&](const auto& c) {
      return c.reservation == r && is_live(c.state);
    });
    // (A move's flow still deciding whether to take it holds it too.)
    const bool deciding = t.flow && !t.flow->done() && t.flow->reservation_id() == r;
    if (!in_use && !deciding) release(serial, r);
  }
}

void grid_job_manager::impl::release(std::uint64_t serial, const std::string& reservation) {
  const auto& owner = jobs_.at(serial).job.owner;
  const auto where = reservation.substr(0, reservation.rfind('/'));
  if (releasing_.contains(reservation) || !cluster(where))
    return;  // (not in the grid now:
             // the next round asks again)
  releasing_.insert(reservation);
  ask(where, msg::cancel_request{owner, reservation},
      [this, serial, reservation](const result<msg::ack_reply>& rep) {
        releasing_.erase(reservation);
        auto it = jobs_.find(serial);
        if (it == jobs_.end()) return;
        const auto code = !rep ? rep.err().code : static_cast<errc>(rep->error.code);
        // Cancelled now, or already gone (ended, cancelled, unknown): done either way.
        const bool done =
            (rep && rep->error.ok()) || code == errc::not_found || code == errc::illegal_transition;
        if (!done) return;  // unreachable, timeout: the next round sends it again
        auto& job = it->second.job;
        if (job.reservation == reservation) job.reservation_to_release = false;
        std::erase(job.releasing, reservation);
        (void)persist_job(it->second);
      });
}

}  // namespace arbroker
