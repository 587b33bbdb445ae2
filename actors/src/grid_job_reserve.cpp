// The reserve strategy (JBS): the flow's calls, the bound job, the reservation's release.
#include "grid_job_manager_impl.hpp"

namespace arbroker {

// The JBS flow (reserve_flow.hpp; paper 004 Sec. III-A, paper 003 Sec. 3 step 4): hold at
// the best k clusters at once, each at the start its estimator gave (after stage-in), keep
// the hold that finishes first, let the others go, and run the job in the kept reservation
// with the walltime of the largest benchmark estimate.
void grid_job_manager::impl::reserve(std::uint64_t serial, std::vector<ranked> ok) {
  auto& t = jobs_.at(serial);
  std::vector<reserve_option> options;
  std::string unfit;
  std::vector<std::string> unfit_notes;
  for (const auto& o : ok) {
    // The reservation: the smallest size the cluster reserves that holds the job.
    const auto* e = cluster(o.cluster);
    auto sizes =
        !e ? result<std::vector<std::int32_t>>(error{errc::not_found, o.cluster + " left the grid"})
           : reservable_counts({e->info.bunch, e->info.counts}, t.job.spec.np, e->info.cpus,
                               e->info.cpus);
    if (!sizes) {
      unfit += " " + o.cluster + ": " + sizes.err().message + ";";
      unfit_notes.push_back("no hold at " + o.cluster + ": " + sizes.err().message);
      continue;
    }
    // Eq. 7 as printed (start + the site's delay, here its TTD) or start + run time.
    const duration finish = t.request.finish_by_eq7 || cfg_.finish_by_eq7
                                ? o.sed_delay
                                : o.terms.execution + o.terms.stage_out.value_or(0);
    options.push_back({o.cluster, std::max(o.start, now() + o.terms.stage_in + start_lead),
                       o.walltime + submit_slack, sizes->front(), finish});
  }
  if (options.empty()) {
    unfit.pop_back();
    if (reserve_fallback(serial, "no cluster granted a hold:" + unfit)) return;
    return fail_reserve(serial, "no cluster granted a hold:" + unfit);
  }
  for (auto& n : unfit_notes)
    t.job.history.push_back({now(), -1, std::move(n)});
  t.flow = std::make_shared<reserve_flow>(t.job.id, t.job.owner, hold_expiry);
  flow_step(serial, t.flow, t.flow->start(std::move(options), now()));
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
  switch (f->current()) {
    case reserve_flow::phase::committing:
      t.job.reservation = f->reservation_id();
      (void)persist_job(t);
      break;
    case reserve_flow::phase::kept: {
      t.reserve_first.clear();  // no fallback any more: the job is in its reservation
      t.reserve_rest.clear();
      const auto& kept = f->option(*f->kept());
      bind(serial, kept.cluster, kept.length - submit_slack);
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
void grid_job_manager::impl::bind(std::uint64_t serial, const std::string& where,
                                  duration walltime) {
  auto& t = jobs_.at(serial);
  const auto i = t.job.add_copy(where, now(), "runs in reservation " + t.job.reservation);
  (void)persist_job(t);
  const auto* e = cluster(where);
  if (!e)
    return after_change(
        serial, t.job.on_submitted(i, error{errc::not_found, where + " left the grid"}, now()));
  ++cfg_.counters->copies_submitted;
  const auto& needs = t.job.spec.needs;
  msg::bind_job_request q{
      t.job.owner,       t.job.reservation,  "g" + std::to_string(serial) + "." + std::to_string(i),
      t.job.spec.np,     walltime,           t.job.spec.command,
      needs.mem_per_cpu, needs.mem_per_node, needs.features};
  ask(where, std::move(q), [this, serial, i](const result<msg::bind_job_reply>& rep) {
    const auto id = outcome(rep, &msg::bind_job_reply::job_id);
    auto it = jobs_.find(serial);
    if (it == jobs_.end()) return;
    after_change(serial, it->second.job.on_submitted(i, id, now()));
  });
}

// The reservation of a reserve job that ended before its course (job.reservation_to_release),
// once no copy of the job is live any more. The obligation is in the store with the job:
// it ends only when the cluster has cancelled the reservation (or says it has ended), so a
// cancel lost to a crash or an unreachable cluster is sent again (poll rounds, restarts).
void grid_job_manager::impl::release_reservation_if_done(std::uint64_t serial) {
  auto& t = jobs_.at(serial);
  if (!t.job.reservation_to_release || t.job.live_copies() > 0 || releasing_.contains(serial))
    return;
  const auto where = t.job.reservation.substr(0, t.job.reservation.rfind('/'));
  const auto* e = cluster(where);
  if (!e) return;  // not in the grid now: the next round asks again
  releasing_.insert(serial);
  ask(where, msg::cancel_request{t.job.owner, t.job.reservation},
      [this, serial](const result<msg::ack_reply>& rep) {
        releasing_.erase(serial);
        auto it = jobs_.find(serial);
        if (it == jobs_.end()) return;
        const auto code = !rep ? rep.err().code : static_cast<errc>(rep->error.code);
        // Cancelled now, or already gone (ended, cancelled, unknown): done either way.
        const bool done =
            (rep && rep->error.ok()) || code == errc::not_found || code == errc::illegal_transition;
        if (!done) return;  // unreachable, timeout: the next round sends it again
        it->second.job.reservation_to_release = false;
        (void)persist_job(it->second);
      });
}

}  // namespace arbroker
