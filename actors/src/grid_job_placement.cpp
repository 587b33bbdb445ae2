// Placement of new grid jobs: batched outlooks, the ranking, the strategies' copies.
#include "grid_job_manager_impl.hpp"

namespace arbroker {

void grid_job_manager::impl::submit(msg::grid_submit_request r, reply_fn rp) {
  auto refuse = [&](const error& e) {
    ++cfg_.counters->refused;
    rp(msg::error_reply<msg::grid_job_reply>(e));
  };
  if (auto ok = check_request(r); !ok) return refuse(ok.err());
  wait_verdict parents;
  if (!r.after.empty()) {  // it may have to wait for its parents (grid_job_dependencies.cpp)
    std::vector<msg::input_file> outputs;
    parents = parents_of(r, r.user, &outputs);
    if (parents.state == wait_state::broken) return refuse({parents.code, parents.why});
    if (parents.state == wait_state::met)  // preferred where they are only with locality
      r.inputs.insert(r.inputs.end(), outputs.begin(), outputs.end());
  }
  auto admitted = admit(r);
  if (!admitted) return refuse(admitted.err());
  if (parents.state == wait_state::waiting)
    return wait_for_parents(std::move(r), std::move(rp), parents.why);
  // Ranked by TTD from the clusters' outlooks, asked for every submission that arrived
  // since the last flush at once: one plan per cluster per batch, not per job.
  batch_.push_back(
      {std::move(r), std::move(rp), std::move(admitted->where), std::move(admitted->inputs)});
  if (!flush_pending_) {
    flush_pending_ = true;
    port_.flush_soon();
  }
}

result<grid_job_manager::impl::admission> grid_job_manager::impl::admit(
    msg::grid_submit_request& r) const {
  if (auto ok = check_request(r); !ok) return ok.err();
  if (!r.after.empty() && r.walltime <= 0)
    return error{errc::invalid_parameter, "after: a job that waits for others needs a walltime"};
  auto inputs = inputs_of(r);
  if (!inputs) return inputs.err();
  if (!directory_.error.empty()) return error{errc::unreachable, directory_.error};
  if (r.min_gain < 0) r.min_gain = cfg_.default_min_gain;
  if (r.max_migrations < -1) r.max_migrations = cfg_.default_max_migrations;
  if (r.max_resubmits < 0) r.max_resubmits = cfg_.default_max_resubmits;
  for (const auto& wanted : r.clusters)
    if (!find_cluster(*directory_.clusters, wanted))
      return error{errc::not_found, "clusters: no cluster '" + wanted + "'"};
  auto cands = eligible(r, *inputs, {});
  if (cands.where.empty()) {
    if (r.np > cands.largest)
      return error{errc::infeasible, "a job of " + std::to_string(r.np) +
                                         " CPUs is larger than every cluster (largest: " +
                                         std::to_string(cands.largest) + " CPUs)"};
    return error{errc::infeasible, "no cluster can take this job:" + cands.why_not};
  }
  return admission{std::move(cands.where), std::move(*inputs)};
}

grid_job_manager::impl::eligible_clusters grid_job_manager::impl::eligible(
    const msg::grid_submit_request& r, const placement_inputs& in,
    const std::vector<std::string>& excluded) const {
  eligible_clusters out;
  const auto query = eligibility(r, r.user);
  for (const auto& e : *directory_.clusters) {
    const auto& c = e.info;
    out.largest = std::max(out.largest, c.cpus);
    auto skip = [&](const std::string& why) { out.why_not += " " + c.name + ": " + why + ";"; };
    if (!r.clusters.empty() &&
        std::find(r.clusters.begin(), r.clusters.end(), c.name) == r.clusters.end())
      continue;
    if (std::find(excluded.begin(), excluded.end(), c.name) != excluded.end()) {
      skip("failed this job");
      continue;
    }
    if (auto why = why_not(c, query); !why.empty()) {
      skip(why);
      continue;
    }
    auto t = terms_for(in, e);
    if (!t) {
      skip(t.err().message);
      continue;
    }
    out.where.emplace_back(c.name, *t);
  }
  if (!out.why_not.empty()) out.why_not.pop_back();
  return out;
}

// A job whose copies were lost (or whose winner failed, with retries asked for) is placed
// again by its strategy among the clusters that did not fail it, in the next batch.
void grid_job_manager::impl::place_again(std::uint64_t serial) {
  auto& t = jobs_.at(serial);
  if (!t.job.to_place || placing_again_.contains(serial)) return;
  if (t.flow && !t.flow->done()) return;  // reserve: its holds are being asked for
  if (!directory_.error.empty() || !directory_.clusters) {
    to_place_.insert(serial);  // once the directory is known (poll rounds)
    return;
  }
  to_place_.erase(serial);
  if (!t.inputs) {
    auto in = inputs_of(t.request);
    if (!in) {
      t.job.placement_failed(not_placed(t) + in.err().message, now());
      return after_change(serial, {});
    }
    t.inputs = std::move(*in);
  }
  auto cands = eligible(t.request, *t.inputs, t.job.failed_at());
  if (cands.where.empty()) {
    t.job.placement_failed(not_placed(t) +
                               (t.job.copies.empty() ? "no cluster" : "no other cluster") +
                               " can take it:" + cands.why_not,
                           now());
    return after_change(serial, {});
  }
  placing_again_.insert(serial);
  batch_.push_back({t.request, nullptr, std::move(cands.where), *t.inputs, serial});
  if (!flush_pending_) {
    flush_pending_ = true;
    port_.flush_soon();
  }
}

// One batch's outlooks in flight at a time (as a group commit): the submissions that arrive
// meanwhile wait for them and go in the next batch. Its copies are sent before the next
// batch's outlooks, which a service takes in order, so the next batch sees them queued; with
// several batches in flight each was ranked blind to the others' copies (they piled onto the
// same clusters, and adaptation moved them again), and each trickle of submissions cost an
// outlook from every cluster.
void grid_job_manager::impl::flush() {
  flush_pending_ = false;
  if (batch_.empty()) return;
  if (ranking_) {
    flush_pending_ = true;  // flushed once the batch in flight is ranked (no flush_soon)
    return;
  }
  // Jobs to place again that were cancelled meanwhile need no outlook.
  std::erase_if(batch_, [this](const pending_submit& p) {
    if (!p.again) return false;
    auto it = jobs_.find(p.again);
    if (it != jobs_.end() && it->second.job.to_place) return false;
    placing_again_.erase(p.again);
    return true;
  });
  if (batch_.empty()) return;
  ranking_ = true;
  auto rd = std::make_shared<outlook_round>();
  rd->submits = std::move(batch_);
  batch_.clear();
  for (const auto& p : rd->submits)
    for (const auto& [at, terms] : p.candidates) {
      const msg::queue_shape shape{p.request.np, terms.walltime};
      auto& idx = rd->shape_index[at];
      if (idx.emplace(shape, rd->asks[at].shapes.size()).second)
        rd->asks[at].shapes.push_back(shape);
    }
  // (Every submission has a candidate: the batch asks at least one cluster.)
  const fan_in join(rd->asks.size(), [this, rd] {
    rank_batch(*rd);
    ranking_ = false;
    if (flush_pending_) flush();
  });
  for (auto& [at, q] : rd->asks)
    ask(at, std::move(q), [rd, at, join](const result<msg::job_outlook_reply>& rep) {
      rd->answers.emplace(at, rep);
      join.arrived();
    });
}

// How much later a cluster starts the next job once one of np CPUs for `walltime` joined
// its queue: the jobs of one batch (or one adaptation round) see one outlook, and without
// this they would all pick the same cluster.
duration grid_job_manager::impl::queue_growth(const std::string& at, std::int32_t np,
                                              duration walltime) const {
  const auto* e = cluster(at);
  const auto cpus = e ? std::max(e->info.cpus, 1) : 1;
  return (static_cast<duration>(np) * walltime + cpus - 1) / cpus;
}

void grid_job_manager::impl::rank_batch(outlook_round& rd) {
  std::map<std::string, duration> grown;  // by the jobs placed earlier in this batch
  std::map<std::string, std::int32_t> grown_cores;
  for (auto& p : rd.submits) {
    std::vector<ranked> ok;
    std::string refused;
    // By default the time to delivery from the planned earliest start each outlook gives
    // (paper 003's TTD): SED's W_max x ceil(busy / CPUs) makes a cluster with one busy CPU
    // look as full as a full one. `sed` ranks as paper 004 does (eq. 1-6). The run term is
    // the job's execution time there, already scaled by alpha = pp_ref / pp (terms_on).
    const bool by_sed = p.request.ranking == grid_ranking::sed;
    for (const auto& [at, terms] : p.candidates) {
      const auto& rep = rd.answers.at(at);
      const auto idx = rd.shape_index[at].at({p.request.np, terms.walltime});
      if (!rep) {
        refused += " " + at + ": " + rep.err().message + ";";
      } else if (!rep->error.ok() || idx >= rep->starts.size() || rep->starts[idx] < 0) {
        refused +=
            " " + at + ": " + (rep->error.ok() ? "the job never fits" : rep->error.message) + ";";
      } else {
        const timestamp start = rep->starts[idx] + grown[at];
        auto ttd = ttd_at(terms, rep->now, start);
        if (!ttd) continue;
        ranked r{at, *ttd, terms.walltime, start, terms, *ttd, *ttd, "TTD"};
        if (const auto* e = cluster(at)) {
          // Eq. 5's transfer: what is not there already (inputs held at a cluster, the
          // parents' outputs, move to every other one; locality off: left out).
          sed_application app{1.0, terms.execution, {}};
          if (const auto bytes = p.inputs.input_bytes_to(at); bytes > 0)
            app.input_file_bytes.push_back(bytes);
          const auto busy = rep->busy_cores + grown_cores[at];
          const sed_machine m{at,
                              {1.0},
                              e->info.cpus,
                              msg::sed_max_walltime(e->info, rep->longest_walltime),
                              busy > 0 ? std::vector<int>{busy} : std::vector<int>{},
                              e->info.bandwidth};
          if (auto d = expected_delay(app, m)) r.sed_delay = d->delay;
        }
        if (by_sed) {
          r.key = r.sed_delay;
          r.by = "SED";
        }
        ok.push_back(std::move(r));
      }
    }
    const auto np = p.request.np;
    for (const auto& [at, walltime] : place(std::move(p), std::move(ok), std::move(refused))) {
      grown[at] += queue_growth(at, np, walltime);
      grown_cores[at] += np;
    }
  }
}

// The ranking is in: keep the best (or the best `width` for a flood) and submit there.
// Returns where it went: (cluster, walltime) of each copy or hold.
std::vector<std::pair<std::string, duration>> grid_job_manager::impl::place(pending_submit p,
                                                                            std::vector<ranked> ok,
                                                                            std::string refused) {
  if (p.again) return place_existing(std::move(p), std::move(ok), std::move(refused));
  auto& r = p.request;
  auto& rp = p.rp;
  if (ok.empty()) {
    ++cfg_.counters->refused;
    if (!refused.empty()) refused.pop_back();
    rp(msg::error_reply<msg::grid_job_reply>(errc::infeasible,
                                             "no cluster can take this job:" + refused));
    return {};
  }
  sort_ranked(ok);
  const std::size_t keep =
      r.strategy == grid_strategy::reserve ? static_cast<std::size_t>(r.width) : copies_of(r);
  std::vector<ranked> rest;  // reserve: asked in turn when no hold is granted
  if (ok.size() > keep) {
    if (r.strategy == grid_strategy::reserve)
      rest.assign(std::make_move_iterator(ok.begin() + static_cast<std::ptrdiff_t>(keep)),
                  std::make_move_iterator(ok.end()));
    ok.resize(keep);
  }
  auto went = places(ok);

  tracked t;
  t.job.id = cfg_.node + "/g" + std::to_string(next_serial_);
  t.job.owner = r.user;
  t.job.spec = spec_of(r, r.walltime > 0 ? r.walltime : ok.front().walltime);
  t.job.submitted = now();
  t.request = std::move(r);
  // The terms as ranked, not computed again: every candidate's for a job that may move, the
  // chosen clusters' for the others.
  t.inputs = std::move(p.inputs);
  if (t.request.strategy != grid_strategy::adaptive)
    std::erase_if(p.candidates, [&](const auto& c) {
      return std::none_of(ok.begin(), ok.end(),
                          [&](const ranked& o) { return o.cluster == c.first; });
    });
  t.terms = std::move(p.candidates);
  if (t.request.strategy != grid_strategy::reserve) add_ranked_copies(t.job, ok, t.job.submitted);
  // Durable before any LRMS sees a copy: recovery must know every copy that may exist.
  if (auto saved = persist_job(t); !saved) {
    ++cfg_.counters->refused;
    rp(msg::error_reply<msg::grid_job_reply>(saved.err()));
    return {};
  }
  const auto serial = next_serial_++;
  ++cfg_.counters->submitted;
  auto& placed = jobs_.emplace(serial, std::move(t)).first->second;
  recount(placed);
  placed.answer_when_placed.push_back(std::move(rp));
  if (placed.request.strategy == grid_strategy::reserve) {
    placed.reserve_first = ok;
    placed.reserve_rest = std::move(rest);
    reserve(serial, std::move(ok));
    return went;
  }
  for (std::size_t i = 0; i < placed.job.copies.size(); ++i)
    send_copy(serial, i);
  return went;
}

// The batch's ranking for a job placed again: its new copies, or it fails.
std::vector<std::pair<std::string, duration>> grid_job_manager::impl::place_existing(
    pending_submit p, std::vector<ranked> ok, std::string refused) {
  const auto serial = p.again;
  placing_again_.erase(serial);
  auto it = jobs_.find(serial);
  if (it == jobs_.end() || !it->second.job.to_place) return {};  // cancelled meanwhile
  auto& t = it->second;
  if (ok.empty()) {
    t.job.placement_failed(not_placed(t) + "no cluster can take it:" + refused, now());
    after_change(serial, {});
    return {};
  }
  sort_ranked(ok);
  if (t.request.strategy == grid_strategy::reserve) return reserve_again(serial, std::move(ok));
  ok.resize(std::min(ok.size(), copies_of(t.request)));
  add_copies(serial, ok);
  return places(ok);
}

void grid_job_manager::impl::add_copies(std::uint64_t serial, const std::vector<ranked>& ok) {
  auto& t = jobs_.at(serial);
  const auto first = t.job.copies.size();
  add_ranked_copies(t.job, ok, now());
  recount(t);
  if (auto saved = persist_job(t); !saved) {
    for (auto i = first; i < t.job.copies.size(); ++i)
      (void)t.job.on_submitted(i, saved.err(), now());
    return after_change(serial, {});
  }
  for (auto i = first; i < t.job.copies.size(); ++i)
    send_copy(serial, i);
}

std::size_t grid_job_manager::impl::copies_of(const msg::grid_submit_request& r) {
  return r.strategy == grid_strategy::flood ? static_cast<std::size_t>(r.width) : 1;
}

std::vector<std::pair<std::string, duration>> grid_job_manager::impl::places(
    const std::vector<ranked>& ok) {
  std::vector<std::pair<std::string, duration>> out;
  for (const auto& o : ok)
    out.emplace_back(o.cluster, o.walltime);
  return out;
}

void grid_job_manager::impl::sort_ranked(std::vector<ranked>& ok) {
  std::sort(ok.begin(), ok.end(), [](const ranked& a, const ranked& b) {
    return a.key != b.key ? a.key < b.key : a.cluster < b.cluster;
  });
}

void grid_job_manager::impl::add_ranked_copies(grid_job& job, const std::vector<ranked>& ok,
                                               timestamp at) {
  for (std::size_t i = 0; i < ok.size(); ++i)
    job.add_copy(ok[i].cluster, at,
                 "rank " + std::to_string(i + 1) + " by " + ok[i].by + " (" +
                     std::to_string(ok[i].key) + " s)");
}

}  // namespace arbroker
