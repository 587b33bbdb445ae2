// The manager's rounds: polls and LRMS events, recovery, adaptation, departed clusters.
#include "grid_job_manager_impl.hpp"

namespace arbroker {

// After a restart: find the copies whose submission was never answered by their names,
// and release the reservations of reserve jobs that never got their job.
void grid_job_manager::impl::recover_round() {
  std::map<std::string, std::vector<std::pair<std::uint64_t, std::size_t>>> by_cluster;
  for (auto [serial, i] : unresolved_) {
    auto& t = jobs_.at(serial);
    const auto& c = t.job.copies[i];
    if (cluster(c.cluster)) {
      by_cluster[c.cluster].emplace_back(serial, i);
    } else {
      after_change(
          serial,
          t.job.on_submitted(i, error{errc::not_found, c.cluster + " is not in the grid"}, now()));
    }
  }
  unresolved_.clear();
  for (auto& [at, copies] : by_cluster) {
    msg::job_find_request q;
    for (auto [serial, i] : copies)
      q.names.push_back("g" + std::to_string(serial) + "." + std::to_string(i));
    ask(at, std::move(q), [this, copies = copies](const result<msg::job_find_reply>& rep) {
      for (std::size_t k = 0; k < copies.size(); ++k) {
        auto [serial, i] = copies[k];
        if (!rep || !rep->error.ok() || k >= rep->lrms_ids.size()) {
          unresolved_.emplace_back(serial, i);  // the LRMS cannot tell now: again later
          continue;
        }
        const auto& id = rep->lrms_ids[k];
        auto found =
            id.empty()
                ? result<std::string>(error{errc::unreachable,
                                            "the submission never reached the LRMS (node stopped)"})
                : result<std::string>(id);
        if (!jobs_.contains(serial)) continue;
        after_change(serial, jobs_.at(serial).job.on_submitted(i, found, now()));
      }
    });
  }

  // Only once the directory names their clusters (a copy on an unknown cluster would count
  // as lost while it may still run there).
  std::vector<std::uint64_t> later;
  for (auto serial : resend_) {
    auto acts = jobs_.at(serial).job.resend_pending();
    const bool known = std::all_of(acts.begin(), acts.end(), [&](const grid_action& a) {
      return cluster(jobs_.at(serial).job.copies[a.copy].cluster) != nullptr;
    });
    if (known)
      after_change(serial, std::move(acts));
    else
      later.push_back(serial);
  }
  resend_ = std::move(later);
  for (auto serial : std::vector<std::uint64_t>(to_place_.begin(), to_place_.end()))
    if (jobs_.contains(serial)) place_again(serial);
}

// Cluster `at` could not be asked about its copies (left the directory, LRMS unreachable).
void grid_job_manager::impl::unreachable(const std::string& at) {
  away_since_.emplace(at, now());  // the first time counts
}

// The copies of jobs on clusters that could not be asked past lost_after are lost: given
// up unconfirmed (cancelled if they are seen again), and their jobs placed again elsewhere.
void grid_job_manager::impl::lose_unreachable() {
  const auto t = now();
  std::vector<std::string> gone;
  for (const auto& [at, since] : away_since_)
    if (t - since >= cfg_.lost_after) gone.push_back(at);
  for (const auto& at : gone) {
    const auto why = at + " could not be asked for " + std::to_string(t - away_since_[at]) + " s";
    away_since_.erase(at);
    for (auto& [serial, tr] : jobs_) {
      if (!tr.job.active()) continue;
      std::vector<grid_action> acts;
      bool changed = false;
      for (std::size_t i = 0; i < tr.job.copies.size(); ++i) {
        const auto& c = tr.job.copies[i];
        if (c.cluster != at || (c.state != copy_state::queued && c.state != copy_state::running))
          continue;
        auto more = tr.job.on_lost(i, why, t, true);
        acts.insert(acts.end(), more.begin(), more.end());
        changed = true;
      }
      if (changed) after_change(serial, std::move(acts));
    }
  }
}

// One state request per cluster for every copy that may be in its queue.
std::int32_t grid_job_manager::impl::poll_round() {
  if (!unresolved_.empty() || !resend_.empty() || !to_place_.empty()) recover_round();
  if (std::exchange(recheck_waiting_, false)) wake_children();  // parents that ended while down
  lose_unreachable();
  forget_ended();
  std::map<std::string, std::vector<std::pair<std::uint64_t, std::size_t>>> by_cluster, given_up;
  for (auto& [serial, t] : jobs_) {
    if (!t.job.active()) continue;
    if (t.job.reservation_to_release || !t.job.releasing.empty())
      release_reservation_if_done(serial);  // a lost cancel
    for (std::size_t i = 0; i < t.job.copies.size(); ++i) {
      const auto& c = t.job.copies[i];
      if ((c.state == copy_state::queued || c.state == copy_state::running) && !c.lrms_id.empty())
        by_cluster[c.cluster].emplace_back(serial, i);
      else if (c.unconfirmed && !c.cancel_sent)
        given_up[c.cluster].emplace_back(serial, i);
    }
  }
  std::int32_t asked = 0;
  auto batch = std::make_shared<poll_batch>();
  std::erase_if(by_cluster, [this](const auto& kv) {
    return !cluster(kv.first) || polling_.contains(kv.first);  // departed: dropped elsewhere
  });
  batch->waiting = by_cluster.size();
  for (auto& [at, copies] : by_cluster) {
    asked += static_cast<std::int32_t>(copies.size());
    polling_.insert(at);
    ask_states(at, std::move(copies), batch);
  }
  for (auto& [at, copies] : given_up)
    if (cluster(at) && !finding_.contains(at)) look_for_given_up(at, std::move(copies));
  return asked;
}

// Copies given up while their cluster was silent, looked for there by name: an LRMS may give
// a lost copy's id to another job after a restart (a simulated cluster, Slurm started with
// --clean), and that job must not be cancelled for it.
void grid_job_manager::impl::look_for_given_up(
    const std::string& at, std::vector<std::pair<std::uint64_t, std::size_t>> copies) {
  msg::job_find_request q;
  for (auto [serial, i] : copies)
    q.names.push_back("g" + std::to_string(serial) + "." + std::to_string(i));
  finding_.insert(at);
  ask(at, std::move(q), [this, at, copies](const result<msg::job_find_reply>& rep) {
    finding_.erase(at);
    if (!rep || !rep->error.ok()) return;  // still silent: the next round asks again
    for (std::size_t k = 0; k < copies.size() && k < rep->lrms_ids.size(); ++k) {
      auto it = jobs_.find(copies[k].first);
      if (it == jobs_.end()) continue;
      auto acts = it->second.job.on_found_again(copies[k].second, rep->lrms_ids[k], now());
      after_change(copies[k].first, std::move(acts));
    }
  });
}

// An LRMS's event hook: its copies that changed are looked at now, not at the next poll.
void grid_job_manager::impl::look_at(const msg::lrms_job_events& ev) {
  if (!cluster(ev.cluster)) return;
  const std::set<std::string> changed(ev.lrms_ids.begin(), ev.lrms_ids.end());
  std::vector<std::pair<std::uint64_t, std::size_t>> copies;
  for (auto& [serial, t] : jobs_) {
    if (!t.job.active()) continue;
    for (std::size_t i = 0; i < t.job.copies.size(); ++i) {
      const auto& c = t.job.copies[i];
      if (c.cluster == ev.cluster && changed.contains(c.lrms_id) &&
          (c.state == copy_state::queued || c.state == copy_state::running))
        copies.emplace_back(serial, i);
    }
  }
  if (!copies.empty()) ask_states(ev.cluster, std::move(copies), nullptr);
}

// One state request to cluster `at` for `copies` (job serial, copy index); what it reports
// goes through the job's rules, at once or (`batch`: the poll round's) with the round's.
void grid_job_manager::impl::ask_states(const std::string& at,
                                        std::vector<std::pair<std::uint64_t, std::size_t>> copies,
                                        std::shared_ptr<poll_batch> batch) {
  msg::job_states_request q;
  for (auto [serial, i] : copies)
    q.lrms_ids.push_back(jobs_.at(serial).job.copies[i].lrms_id);
  ask(at, std::move(q),
      [this, at, batch, copies = std::move(copies)](const result<msg::job_states_reply>& rep) {
        std::vector<observation> seen;
        if (rep && rep->error.ok()) {
          away_since_.erase(at);
          for (std::size_t k = 0; k < copies.size() && k < rep->jobs.size(); ++k)
            seen.push_back({copies[k].first, copies[k].second, rep->jobs[k]});
        } else {
          unreachable(at);  // unreadable now: next round, and lost past lost_after
        }
        if (!batch) return observe(std::move(seen));
        polling_.erase(at);
        batch->seen.insert(batch->seen.end(), std::make_move_iterator(seen.begin()),
                           std::make_move_iterator(seen.end()));
        if (--batch->waiting == 0) observe(std::move(batch->seen));
      });
}

// The LRMSs' reports through the jobs' rules: started copies in the order they started.
void grid_job_manager::impl::observe(std::vector<observation> seen) {
  auto started = [](const observation& o) {
    return o.report.started >= 0 ? o.report.started : std::numeric_limits<std::int64_t>::max();
  };
  std::stable_sort(seen.begin(), seen.end(), [&](const observation& a, const observation& b) {
    return started(a) < started(b);
  });
  for (const auto& o : seen) {
    const auto& s = o.report;
    auto it = jobs_.find(o.serial);
    if (it == jobs_.end()) continue;
    auto& job = it->second.job;
    const auto i = o.copy;
    if (job.copies[i].lrms_id != s.lrms_id) continue;
    // The LRMS forgot it (a simulated cluster restarted, or the job aged out of a real
    // one's memory): it cannot run any more.
    const bool forgotten = s.error.code == static_cast<std::uint8_t>(errc::not_found);
    if (!s.error.ok() && !forgotten) continue;  // unknown now: next round
    const auto before = job.history.size();
    const auto dup = job.duplicate_starts;
    auto acts =
        forgotten ? job.on_lost(i, "the LRMS no longer knows it", now())
                  : job.on_observed(
                        i, s.state,
                        s.started >= 0 ? std::optional<timestamp>(s.started) : std::nullopt, now());
    count(job, dup, job.migrations, job.migration_gain);
    if (job.history.size() != before || !acts.empty()) after_change(o.serial, std::move(acts));
  }
}

// Paper 003 Sec. 3.3 for every queued adaptive job, from one outlook per cluster: the
// planned start of each job where it stands, and when it would start elsewhere. A reserve job
// queued in its reservation stands at the reservation's start, and moves only to another
// cluster, into a new reservation (make-before-break: start_move).
std::int32_t grid_job_manager::impl::adapt_round() {
  std::vector<std::uint64_t> movable;
  for (const auto& [serial, t] : jobs_)
    if (t.job.can_migrate() && !(t.flow && !t.flow->done()) && now() >= t.next_move)
      movable.push_back(serial);
  if (movable.empty() || adapting_) return 0;
  // A place a job could move to: the cluster, the job's terms there, its shape's index in
  // that cluster's outlook request.
  struct option {
    const std::string* at;  // a name in `dir`
    placement_terms terms;
    std::size_t shape = 0;
  };
  struct round {
    std::shared_ptr<const cluster_directory> dir;  // the names the options point into
    std::vector<std::uint64_t> jobs;
    std::vector<option> options;     // computed once per round, job after job ...
    std::vector<std::size_t> first;  // ... job j's from first[j] to first[j + 1]
    std::map<std::string, msg::job_outlook_request> asks;
    std::map<std::string, msg::job_outlook_reply> answers;
    std::map<std::string, std::map<msg::queue_shape, std::size_t>> shape_index;
  };
  auto rd = std::make_shared<round>();
  rd->jobs = std::move(movable);
  rd->dir = directory_.clusters;
  rd->first.reserve(rd->jobs.size() + 1);
  for (auto serial : rd->jobs) {
    rd->first.push_back(rd->options.size());
    auto& t = jobs_.at(serial);
    const auto live = *t.job.only_live_copy();
    const bool reserved = t.job.spec.strategy == grid_strategy::reserve;
    const auto query = eligibility(t.request, t.job.owner);
    for (const auto& e : *rd->dir) {
      const auto& c = e.info;
      if (!satisfies(c, query) || (reserved && t.job.copies[live].cluster == c.name)) continue;
      auto terms = terms_at(t, e);
      if (!terms) continue;
      // A move restarts the transfer of what is not there: the copy would wait for it even
      // when the ranking does not count it (locality off), so a move counts it.
      if (cfg_.hold_for_stage_in) terms->stage_in = stage_in_to(t, e, *terms);
      auto& q = rd->asks[c.name];
      const msg::queue_shape shape{t.job.spec.np, terms->walltime};
      const auto idx = rd->shape_index[c.name].emplace(shape, q.shapes.size()).first->second;
      if (idx == q.shapes.size()) q.shapes.push_back(shape);
      rd->options.push_back({&c.name, *terms, idx});
      if (t.job.copies[live].cluster == c.name) q.queued_ids.push_back(t.job.copies[live].lrms_id);
    }
  }
  rd->first.push_back(rd->options.size());
  if (rd->asks.empty()) return static_cast<std::int32_t>(rd->jobs.size());
  adapting_ = true;
  const fan_in join(rd->asks.size(), [this, rd] {
    adapting_ = false;
    decide_migrations(*rd);
  });
  for (auto& [at, q] : rd->asks) {
    ask(at, q, [rd, at, join](const result<msg::job_outlook_reply>& rep) {
      if (rep && rep->error.ok()) rd->answers[at] = *rep;
      join.arrived();
    });
  }
  return static_cast<std::int32_t>(rd->jobs.size());
}

template <class Round>
void grid_job_manager::impl::decide_migrations(Round& rd) {
  // Where each cluster's queued copies stand: lrms id -> planned start.
  std::map<std::string, std::unordered_map<std::string, timestamp>> planned;
  for (const auto& [at, rep] : rd.answers) {
    const auto& ids = rd.asks.at(at).queued_ids;
    for (std::size_t k = 0; k < ids.size() && k < rep.queued_starts.size(); ++k)
      if (rep.queued_starts[k] >= 0) planned[at][ids[k]] = rep.queued_starts[k];
  }
  std::map<std::string, duration> grown;  // by the migrations decided earlier this round
  // Job j's best move by the outlooks and the moves decided so far, with its TTD where it
  // stands; nothing when it stays (started, gone, no gain above its min_gain).
  struct move {
    ttd_option to;
    duration from_ttd = 0;
  };
  auto best_move = [&](std::size_t j) -> std::optional<move> {
    auto it = jobs_.find(rd.jobs[j]);
    if (it == jobs_.end() || !it->second.job.can_migrate()) return std::nullopt;
    const auto& t = it->second;
    if (t.flow && !t.flow->done()) return std::nullopt;  // a move on its way
    const auto& cur = t.job.copies[*t.job.only_live_copy()];
    std::optional<duration> cur_ttd;
    std::vector<ttd_option> others;
    const bool reserved = t.job.spec.strategy == grid_strategy::reserve;
    if (reserved) {
      // Where it stands: its reservation's start (stage-in done before it). Its terms there
      // are the ones it was placed with.
      const auto* e = cluster(cur.cluster);
      auto here = e ? terms_at(it->second, *e)
                    : result<placement_terms>(error{errc::not_found, "cluster left"});
      if (!here) return std::nullopt;
      here->stage_in = 0;
      auto ttd = ttd_at(*here, now(), *cur.reserved_start);
      if (!ttd) return std::nullopt;
      cur_ttd = *ttd;
    }
    auto stands = planned[cur.cluster].find(cur.lrms_id);
    if (!reserved && stands == planned[cur.cluster].end()) return std::nullopt;  // started, gone
    for (auto k = rd.first[j]; k < rd.first[j + 1]; ++k) {
      const auto& o = rd.options[k];
      const auto& at = *o.at;
      auto ans = rd.answers.find(at);
      if (ans == rd.answers.end()) continue;
      const auto& rep = ans->second;
      if (at == cur.cluster) {
        auto here = o.terms;
        here.stage_in = 0;  // its inputs are there already
        if (auto ttd = ttd_at(here, rep.now, stands->second)) cur_ttd = *ttd;
        continue;
      }
      if (o.shape >= rep.starts.size() || rep.starts[o.shape] < 0) continue;
      // (A hold starts a little ahead: the batch system must see its start in the future.)
      const timestamp start =
          std::max(rep.starts[o.shape] + grown[at], reserved ? rep.now + start_lead : 0);
      if (auto ttd = ttd_at(o.terms, rep.now, start)) others.push_back({at, *ttd});
    }
    if (!cur_ttd) return std::nullopt;
    auto best = choose_migration(*cur_ttd, others, t.job.spec.min_gain);
    if (!best) return std::nullopt;
    return move{std::move(*best), *cur_ttd};
  };
  // The largest gains first, and at most a share of the jobs evaluated per round: a batch
  // placed from one outlook per cluster can leave many jobs a little better off elsewhere,
  // and moving them all at once (each destination's growth only guessed) sets off the next
  // round's moves back (a migration storm).
  std::vector<std::pair<duration, std::size_t>> by_gain;  // (gain, job index)
  for (std::size_t j = 0; j < rd.jobs.size(); ++j)
    if (auto m = best_move(j)) by_gain.emplace_back(m->from_ttd - m->to.ttd, j);
  std::sort(by_gain.begin(), by_gain.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::size_t moved = 0;
  const std::size_t most = migrations_allowed(rd.jobs.size());
  for (const auto& [gain_first_seen, j] : by_gain) {
    if (moved == most) break;
    auto m = best_move(j);  // again: the moves decided before it may have taken its gain
    if (!m) continue;
    auto& t = jobs_.at(rd.jobs[j]);
    ++moved;
    const auto* to = &rd.options[rd.first[j]];
    for (auto k = rd.first[j]; k < rd.first[j + 1]; ++k)
      if (*rd.options[k].at == m->to.cluster) to = &rd.options[k];
    const timestamp start_there =
        rd.answers.at(m->to.cluster).starts[to->shape] + grown[m->to.cluster];
    grown[m->to.cluster] += queue_growth(m->to.cluster, t.job.spec.np, to->terms.walltime);
    if (t.job.spec.strategy == grid_strategy::reserve) {
      ranked r;
      r.cluster = m->to.cluster;
      r.ttd = m->to.ttd;
      r.walltime = to->terms.walltime;
      r.start = start_there;
      r.terms = to->terms;
      start_move(rd.jobs[j], r, now() + m->from_ttd);  // its finish where it stands
      continue;
    }
    const auto n = t.job.migrate(m->to.cluster, m->from_ttd - m->to.ttd, now());
    // Not written: not sent; the migration is abandoned (a later round may try again).
    if (auto saved = persist_job(t); !saved) {
      after_change(rd.jobs[j], t.job.on_submitted(n, saved.err(), now()));
      continue;
    }
    send_copy(rd.jobs[j], n);
  }
}

// At most migration_share of the `evaluated` jobs move in one round, and at least one.
std::size_t grid_job_manager::impl::migrations_allowed(std::size_t evaluated) const {
  const double share = std::clamp(cfg_.migration_share, 0.0, 1.0);
  const auto most = static_cast<std::size_t>(std::ceil(share * static_cast<double>(evaluated)));
  return std::max<std::size_t>(most, 1);
}

// The directory changed: the terms on its clusters are computed again when next needed,
// and copies on clusters that left it can no longer be watched: they fail.
void grid_job_manager::impl::directory_changed() {
  for (auto& [serial, t] : jobs_)
    t.terms.clear();
  drop_departed();
}

// Copies on clusters that left the directory cannot be watched: their clusters count as
// unreachable from now on, and the copies are lost once that lasts lost_after (a cluster
// whose agent restarts comes back before that, copies and all: its first answer ends it).
void grid_job_manager::impl::drop_departed() {
  for (auto& [serial, t] : jobs_) {
    if (!t.job.active()) continue;
    for (const auto& c : t.job.copies)
      if ((c.state == copy_state::queued || c.state == copy_state::running) && !cluster(c.cluster))
        unreachable(c.cluster);
  }
  if (cfg_.lost_after == 0) lose_unreachable();
}

}  // namespace arbroker
