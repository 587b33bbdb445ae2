// Placement of new grid jobs: batched outlooks, the ranking, the strategies' copies.
#include "grid_job_manager_impl.hpp"

namespace arbroker {

void grid_job_manager::impl::submit(msg::grid_submit_request r, reply_fn rp) {
  auto refuse = [&](const error& e) {
    ++cfg_.counters->refused;
    rp(msg::error_reply<msg::grid_job_reply>(e));
  };
  if (auto ok = check_request(r); !ok) return refuse(ok.err());
  auto inputs = inputs_of(r);
  if (!inputs) return refuse(inputs.err());
  if (!directory_.error.empty()) return refuse({errc::unreachable, directory_.error});
  if (r.min_gain < 0) r.min_gain = cfg_.default_min_gain;
  if (r.max_migrations < -1) r.max_migrations = cfg_.default_max_migrations;
  // Which clusters may take it, and what it would cost on each.
  struct eligible {
    const directory_entry* entry;
    placement_terms terms;
  };
  std::vector<eligible> cands;
  std::string why_not;
  std::int32_t largest = 0;
  const auto query = eligibility(r, r.user);
  for (const auto& e : *directory_.clusters) {
    const auto& c = e.info;
    largest = std::max(largest, c.cpus);
    auto skip = [&](const std::string& why) { why_not += " " + c.name + ": " + why + ";"; };
    if (!r.clusters.empty() &&
        std::find(r.clusters.begin(), r.clusters.end(), c.name) == r.clusters.end())
      continue;
    if (!satisfies(c, query)) {
      skip(c.cpus < r.np ? "has " + std::to_string(c.cpus) + " CPUs" : "not open to " + r.user);
      continue;
    }
    auto t = terms_for(*inputs, e);
    if (!t) {
      skip(t.err().message);
      continue;
    }
    cands.push_back({&e, *t});
  }
  for (const auto& wanted : r.clusters)
    if (!find_cluster(*directory_.clusters, wanted))
      return refuse({errc::not_found, "clusters: no cluster '" + wanted + "'"});
  if (cands.empty()) {
    if (!why_not.empty()) why_not.pop_back();
    if (r.np > largest)
      return refuse({errc::infeasible, "a job of " + std::to_string(r.np) +
                                           " CPUs is larger than every cluster (largest: " +
                                           std::to_string(largest) + " CPUs)"});
    return refuse({errc::infeasible, "no cluster can take this job:" + why_not});
  }
  // Ranked by TTD from the clusters' outlooks, asked for every submission that arrived
  // since the last flush at once: one plan per cluster per batch, not per job.
  std::vector<std::pair<std::string, placement_terms>> where;
  for (const auto& c : cands)
    where.emplace_back(c.entry->info.name, c.terms);
  batch_.push_back({std::move(r), std::move(rp), std::move(where), std::move(*inputs)});
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
    // look as full as a full one. `sed` ranks as paper 004 does (eq. 1-6). A grid job names
    // no reference CPU: alpha = 1 everywhere, and the run term is its execution time.
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
          sed_application app{1.0, terms.execution, {}};
          for (const auto& f : p.request.inputs)
            app.input_file_bytes.push_back(f.bytes);
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
  auto& r = p.request;
  auto& rp = p.rp;
  if (ok.empty()) {
    ++cfg_.counters->refused;
    if (!refused.empty()) refused.pop_back();
    rp(msg::error_reply<msg::grid_job_reply>(errc::infeasible,
                                             "no cluster can take this job:" + refused));
    return {};
  }
  std::sort(ok.begin(), ok.end(), [](const ranked& a, const ranked& b) {
    return a.key != b.key ? a.key < b.key : a.cluster < b.cluster;
  });
  const std::size_t copies =
      r.strategy == grid_strategy::flood ? static_cast<std::size_t>(r.width) : 1;
  const std::size_t keep =
      r.strategy == grid_strategy::reserve ? static_cast<std::size_t>(r.width) : copies;
  if (ok.size() > keep) ok.resize(keep);
  std::vector<std::pair<std::string, duration>> went;
  for (const auto& o : ok)
    went.emplace_back(o.cluster, o.walltime);

  tracked t;
  t.job.id = cfg_.node + "/g" + std::to_string(next_serial_);
  t.job.owner = r.user;
  t.job.spec = {
      r.name,     r.command, r.np,       r.walltime > 0 ? r.walltime : ok.front().walltime,
      r.strategy, r.width,   r.min_gain, r.max_migrations};
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
  if (t.request.strategy != grid_strategy::reserve)
    for (std::size_t i = 0; i < ok.size(); ++i)
      t.job.add_copy(ok[i].cluster, t.job.submitted,
                     "rank " + std::to_string(i + 1) + " by " + ok[i].by + " (" +
                         std::to_string(ok[i].key) + " s)");
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
    reserve(serial, std::move(ok));
    return went;
  }
  for (std::size_t i = 0; i < placed.job.copies.size(); ++i)
    send_copy(serial, i);
  return went;
}

}  // namespace arbroker
