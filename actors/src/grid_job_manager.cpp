#include "grid_job_manager.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "arbroker/actors/fan_in.hpp"
#include "arbroker/actors/reserve_flow.hpp"
#include "arbroker/core/expected_delay.hpp"
#include "arbroker/core/grid_placement.hpp"
#include "arbroker/core/site_adaptation.hpp"
#include "grid_job_terms.hpp"

namespace arbroker {
namespace {

/// The reply a cluster service gives to each request the manager sends.
template <class Request>
struct reply_to_t;
template <>
struct reply_to_t<msg::job_outlook_request> {
  using type = msg::job_outlook_reply;
};
template <>
struct reply_to_t<msg::job_submit_request> {
  using type = msg::job_submit_reply;
};
template <>
struct reply_to_t<msg::job_states_request> {
  using type = msg::job_states_reply;
};
template <>
struct reply_to_t<msg::job_cancel_request> {
  using type = msg::job_cancel_reply;
};
template <>
struct reply_to_t<msg::job_find_request> {
  using type = msg::job_find_reply;
};
template <>
struct reply_to_t<msg::bind_job_request> {
  using type = msg::bind_job_reply;
};
template <>
struct reply_to_t<msg::prepare_request> {
  using type = msg::prepare_reply;
};
template <class Request>
requires std::is_same_v<Request, msg::cancel_request> ||
    std::is_same_v<Request, msg::commit_txn_request> ||
    std::is_same_v<Request, msg::abort_txn_request> ||
    std::is_same_v<Request, msg::release_txn_request>
struct reply_to_t<Request> {
  using type = msg::ack_reply;
};
template <class Request>
using reply_to = typename reply_to_t<Request>::type;

/// A field of a cluster service's reply, or why there is none: the call failed, or the reply
/// carries an error.
template <class Reply, class T>
result<T> outcome(const result<Reply>& rep, T Reply::*field) {
  if (!rep) return rep.err();
  if (!rep->error.ok()) return msg::from_wire(rep->error);
  return (*rep).*field;
}

/// One cluster's answer to a ranking outlook.
struct ranked {
  std::string cluster;
  duration ttd = 0;
  duration walltime = 0;
  timestamp start = 0;  ///< the cluster's earliest start for the job
  placement_terms terms;
  duration sed_delay = 0;  ///< paper 004 eq. 6 (the TTD where SED cannot be computed)
  duration key = 0;        ///< what the ranking sorts by: SED delay, or TTD with staging data
  const char* by = "TTD";
};

/// How long the holds of the reserve flow may stay undecided.
constexpr duration hold_expiry = 60;
/// A reserve-flow reservation lasts the job's walltime and this much more: a reservation
/// that starts at once has begun by the time its job is submitted into it, and a batch
/// system refuses a job that would run past the reservation's end (Grid Engine: "the job
/// duration exceeds the end time of the advance reservation").
constexpr duration submit_slack = 60;
/// ... and starts at least this far ahead: a hold for "now" is in the past by the time the
/// batch system sees it once the clock has ticked ("reservation start ... is in the past").
constexpr duration start_lead = 5;

}  // namespace

struct grid_job_manager::impl {
  using reply_fn = grid_job_manager::reply_fn;

  impl(grid_jobs_config cfg, grid_job_port& port) : cfg_(std::move(cfg)), port_(port) {
    if (!cfg_.counters) cfg_.counters = std::make_shared<grid_job_counters>();
    next_serial_ = std::max(next_serial_, cfg_.last_serial + 1);
    for (auto& rec : cfg_.recovered)
      adopt(std::move(rec));
    cfg_.recovered.clear();
  }

  msg::grid_job_reply query(const msg::grid_query_request& r) {
    auto* t = find(r.id, r.user);
    if (!t) return missing(r.id);
    return {msg::info_of(t->job), {}};
  }

  struct tracked {
    msg::grid_submit_request request;
    grid_job job;
    std::vector<reply_fn> answer_when_placed;
    std::optional<grid_job_state> counted;  // the state it is counted under in counters.jobs
    bool noted_ended = false;               // in ended_ (it leaves memory from there)
    /// strategy reserve: its holds, until the job is in its reservation (or failed), and
    /// the flow's phase this job has acted on.
    std::shared_ptr<reserve_flow> flow;
    reserve_flow::phase flow_seen = reserve_flow::phase::holding;
    /// What the request brings for its terms, read once (a recovered job's on first use) ...
    std::optional<placement_inputs> inputs;
    /// ... and its terms on each cluster, computed once per cluster (dropped when the
    /// directory changes: a cluster's speed or bandwidth may have).
    std::map<std::string, placement_terms> terms;
  };

  // The job's terms on cluster `e`: computed at most once per directory.
  result<placement_terms> terms_at(tracked& t, const directory_entry& e) {
    if (auto it = t.terms.find(e.info.name); it != t.terms.end()) return it->second;
    if (!t.inputs) {
      auto in = inputs_of(t.request);
      if (!in) return in.err();
      t.inputs = std::move(*in);
    }
    auto terms = terms_for(*t.inputs, e);
    if (terms) t.terms.emplace(e.info.name, *terms);
    return terms;
  }

  // Keeps counters.jobs in step with the job's state.
  void recount(tracked& t) {
    if (t.counted == t.job.state) return;
    const auto s = static_cast<std::size_t>(t.job.spec.strategy);
    if (t.counted) --cfg_.counters->jobs[s][static_cast<std::size_t>(*t.counted)];
    ++cfg_.counters->jobs[s][static_cast<std::size_t>(t.job.state)];
    t.counted = t.job.state;
  }

  void uncount(tracked& t) {
    if (!t.counted) return;
    const auto s = static_cast<std::size_t>(t.job.spec.strategy);
    --cfg_.counters->jobs[s][static_cast<std::size_t>(*t.counted)];
    t.counted.reset();
  }

  timestamp now() const { return cfg_.clock(); }

  // -- requests ---------------------------------------------------------------------------

  void submit(msg::grid_submit_request r, reply_fn rp) {
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

  struct pending_submit {
    msg::grid_submit_request request;
    reply_fn rp;
    std::vector<std::pair<std::string, placement_terms>> candidates;
    placement_inputs inputs;
  };

  struct outlook_round {
    std::vector<pending_submit> submits;
    std::map<std::string, msg::job_outlook_request> asks;
    std::map<std::string, std::map<msg::queue_shape, std::size_t>> shape_index;
    std::map<std::string, result<msg::job_outlook_reply>> answers;
  };

  void flush() {
    flush_pending_ = false;
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
    const fan_in join(rd->asks.size(), [this, rd] { rank_batch(*rd); });
    for (auto& [at, q] : rd->asks)
      ask(at, std::move(q), [rd, at, join](const result<msg::job_outlook_reply>& rep) {
        rd->answers.emplace(at, rep);
        join.arrived();
      });
  }

  // How much later a cluster starts the next job once one of np CPUs for `walltime` joined
  // its queue: the jobs of one batch (or one adaptation round) see one outlook, and without
  // this they would all pick the same cluster.
  duration queue_growth(const std::string& at, std::int32_t np, duration walltime) const {
    const auto* e = cluster(at);
    const auto cpus = e ? std::max(e->info.cpus, 1) : 1;
    return (static_cast<duration>(np) * walltime + cpus - 1) / cpus;
  }

  void rank_batch(outlook_round& rd) {
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
  std::vector<std::pair<std::string, duration>> place(pending_submit p, std::vector<ranked> ok,
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
    t.inputs = std::move(p.inputs);  // the terms as ranked: not computed again
    for (auto& [at, terms] : p.candidates)
      t.terms.emplace(at, terms);
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

  // The JBS flow (reserve_flow.hpp; paper 004 Sec. III-A, paper 003 Sec. 3 step 4): hold at
  // the best k clusters at once, each at the start its estimator gave (after stage-in), keep
  // the hold that finishes first, let the others go, and run the job in the kept reservation
  // with the walltime of the largest benchmark estimate.
  void reserve(std::uint64_t serial, std::vector<ranked> ok) {
    auto& t = jobs_.at(serial);
    std::vector<reserve_option> options;
    std::string unfit;
    std::vector<std::string> unfit_notes;
    for (const auto& o : ok) {
      // The reservation: the smallest size the cluster reserves that holds the job.
      const auto* e = cluster(o.cluster);
      auto sizes = !e ? result<std::vector<std::int32_t>>(
                            error{errc::not_found, o.cluster + " left the grid"})
                      : reservable_counts({e->info.bunch, e->info.counts}, t.job.spec.np,
                                          e->info.cpus, e->info.cpus);
      if (!sizes) {
        unfit += " " + o.cluster + ": " + sizes.err().message + ";";
        unfit_notes.push_back("no hold at " + o.cluster + ": " + sizes.err().message);
        continue;
      }
      // Eq. 7 as printed (start + the site's delay, here its TTD) or start + run time.
      const duration finish =
          t.request.finish_by_eq7 ? o.sed_delay : o.terms.execution + o.terms.stage_out.value_or(0);
      options.push_back({o.cluster, std::max(o.start, now() + o.terms.stage_in + start_lead),
                         o.walltime + submit_slack, sizes->front(), finish});
    }
    if (options.empty()) {
      unfit.pop_back();
      return fail_reserve(serial, "no cluster granted a hold:" + unfit);
    }
    for (auto& n : unfit_notes)
      t.job.history.push_back({now(), -1, std::move(n)});
    t.flow = std::make_shared<reserve_flow>(t.job.id, t.job.owner, hold_expiry);
    flow_step(serial, t.flow, t.flow->start(std::move(options), now()));
  }

  // Sends the calls of a job's reserve flow; their answers go back to it and then here,
  // where what the flow decided becomes the job's.
  void flow_step(std::uint64_t serial, const std::shared_ptr<reserve_flow>& f,
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
        const auto& kept = f->option(*f->kept());
        bind(serial, kept.cluster, kept.length - submit_slack);
        break;
      }
      case reserve_flow::phase::failed:
        fail_reserve(serial, f->failure());
        break;
      default:
        break;
    }
  }

  void fail_reserve(std::uint64_t serial, const std::string& why) {
    auto& job = jobs_.at(serial).job;
    if (is_terminal(job.state)) return;
    job.state = grid_job_state::failed;
    job.ended = now();
    if (job.history.empty() || job.history.back().what != why)
      job.history.push_back({now(), -1, why});
    after_change(serial, {});
  }

  // The job into the kept reservation: a copy whose LRMS id is the bound job's.
  void bind(std::uint64_t serial, const std::string& where, duration walltime) {
    auto& t = jobs_.at(serial);
    const auto i = t.job.add_copy(where, now(), "runs in reservation " + t.job.reservation);
    (void)persist_job(t);
    const auto* e = cluster(where);
    if (!e)
      return after_change(
          serial, t.job.on_submitted(i, error{errc::not_found, where + " left the grid"}, now()));
    ++cfg_.counters->copies_submitted;
    msg::bind_job_request q{
        t.job.owner,   t.job.reservation, "g" + std::to_string(serial) + "." + std::to_string(i),
        t.job.spec.np, walltime,          t.job.spec.command};
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
  void release_reservation_if_done(std::uint64_t serial) {
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
          const bool done = (rep && rep->error.ok()) || code == errc::not_found ||
                            code == errc::illegal_transition;
          if (!done) return;  // unreachable, timeout: the next round sends it again
          it->second.job.reservation_to_release = false;
          (void)persist_job(it->second);
        });
  }

  // A call of a reserve flow, tagged as a coordinator's; counted like ask(). The handler gets
  // the reply, nullptr when the cluster left the grid (nothing is held there), or an
  // `unreachable` reply when the call failed: its answer was lost, and the flow treats what it
  // asked for as in doubt.
  template <class Reply, class Request, class F>
  void txn(const std::string& where, Request q, F handler) {
    ask(where, std::move(q), [handler](const result<Reply>& rep) mutable {
      if (rep) return handler(&*rep);
      if (rep.err().code == errc::not_found) return handler(static_cast<const Reply*>(nullptr));
      Reply lost;
      lost.error = msg::to_wire(rep.err());
      handler(static_cast<const Reply*>(&lost));
    });
  }

  msg::grid_job_reply cancel(const msg::grid_cancel_request& r) {
    auto* t = find(r.id, r.user);
    if (!t) return missing(r.id);
    if (is_terminal(t->job.state))
      return msg::error_reply<msg::grid_job_reply>(
          errc::illegal_transition,
          "grid job " + r.id + " has already ended (" + std::string(to_string(t->job.state)) + ")");
    auto acts = t->job.cancel(now());
    // strategy reserve: the reservation was made for this job alone; it goes once the job
    // has (cluster services answer in order, and the job's cancel is sent first). Written
    // with the cancel, before the client hears of it.
    if (!t->job.reservation.empty()) t->job.reservation_to_release = true;
    recount(*t);
    (void)persist_job(*t);
    const auto serial = serial_in(r.id);
    // Cancelled while its holds were asked for: they go (a reservation kept already goes
    // as above), and the submission waiting for its placement hears of the cancel.
    if (t->flow && !t->flow->done()) flow_step(serial, t->flow, t->flow->give_up());
    perform(serial, std::move(acts));
    release_reservation_if_done(serial);
    answer_if_placed(*t);
    return {msg::info_of(t->job), {}};
  }

  msg::grid_list_reply list(const msg::grid_list_request& r) const {
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

  tracked* find(const std::string& id, const std::string& user) {
    auto it = jobs_.find(serial_in(id));
    if (it == jobs_.end() || it->second.job.id != id) return nullptr;
    // Another user's job looks exactly like a missing one; an admin's empty user sees all.
    if (!user.empty() && it->second.job.owner != user) return nullptr;
    return &it->second;
  }

  static msg::grid_job_reply missing(const std::string& id) {
    return msg::error_reply<msg::grid_job_reply>(errc::not_found, "no grid job '" + id + "'");
  }

  // -- copies ---------------------------------------------------------------------------

  const directory_entry* cluster(const std::string& which) const {
    return find_cluster(*directory_.clusters, which);
  }

  void send_copy(std::uint64_t serial, std::size_t i) {
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
    msg::job_submit_request q{t.job.owner, "g" + std::to_string(serial) + "." + std::to_string(i),
                              t.job.spec.command, t.job.spec.np, terms->walltime};
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
  void after_change(std::uint64_t serial, std::vector<grid_action> acts) {
    auto& t = jobs_.at(serial);
    recount(t);
    (void)persist_job(t);
    perform(serial, std::move(acts));
    release_reservation_if_done(serial);
    answer_if_placed(t);
  }

  // Answers the submission once no copy is still being submitted (and a reserve job's holds
  // are decided).
  void answer_if_placed(tracked& t) {
    const bool placing = std::any_of(t.job.copies.begin(), t.job.copies.end(), [](const auto& c) {
      return c.state == copy_state::submitting;
    });
    const bool holding = t.flow && !t.flow->done() && t.job.copies.empty();
    if (placing || holding || t.answer_when_placed.empty()) return;
    msg::grid_job_reply rep{msg::info_of(t.job), {}};
    if (t.job.state == grid_job_state::failed)
      rep.error = msg::wire(errc::infeasible, t.job.history.back().what);
    for (auto& rp : t.answer_when_placed)
      rp(rep);
    t.answer_when_placed.clear();
  }

  void perform(std::uint64_t serial, std::vector<grid_action> acts) {
    for (const auto& a : acts) {
      auto& t = jobs_.at(serial);
      const auto& c = t.job.copies[a.copy];
      const auto* e = cluster(c.cluster);
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

  void count(const grid_job& j, std::int32_t dup, std::int32_t mig, duration gain) {
    cfg_.counters->duplicate_starts += j.duplicate_starts - dup;
    cfg_.counters->migrations += j.migrations - mig;
    cfg_.counters->migration_gain += j.migration_gain - gain;
  }

  // -- rounds ---------------------------------------------------------------------------

  // After a restart: find the copies whose submission was never answered by their names,
  // and release the reservations of reserve jobs that never got their job.
  void recover_round() {
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::size_t>>> by_cluster;
    for (auto [serial, i] : unresolved_) {
      auto& t = jobs_.at(serial);
      const auto& c = t.job.copies[i];
      if (cluster(c.cluster)) {
        by_cluster[c.cluster].emplace_back(serial, i);
      } else {
        after_change(
            serial, t.job.on_submitted(i, error{errc::not_found, c.cluster + " is not in the grid"},
                                       now()));
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
                  ? result<std::string>(error{
                        errc::unreachable, "the submission never reached the LRMS (node stopped)"})
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
  }

  // One state request per cluster for every copy that may be in its queue.
  std::int32_t poll_round() {
    if (!unresolved_.empty() || !resend_.empty()) recover_round();
    forget_ended();
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::size_t>>> by_cluster;
    for (auto& [serial, t] : jobs_) {
      if (!t.job.active()) continue;
      if (t.job.reservation_to_release) release_reservation_if_done(serial);  // a lost cancel
      for (std::size_t i = 0; i < t.job.copies.size(); ++i) {
        const auto& c = t.job.copies[i];
        if ((c.state == copy_state::queued || c.state == copy_state::running) && !c.lrms_id.empty())
          by_cluster[c.cluster].emplace_back(serial, i);
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
    return asked;
  }

  // An LRMS's event hook: its copies that changed are looked at now, not at the next poll.
  void look_at(const msg::lrms_job_events& ev) {
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

  // What one LRMS said of one copy.
  struct observation {
    std::uint64_t serial;
    std::size_t copy;
    msg::job_state_report report;
  };
  // A poll round's observations, taken together once every cluster asked has answered, the
  // copies that started first first: a flood's winner is the copy that started first in its
  // LRMS, not the one whose cluster happened to answer first.
  struct poll_batch {
    std::size_t waiting = 0;
    std::vector<observation> seen;
  };

  // One state request to cluster `at` for `copies` (job serial, copy index); what it reports
  // goes through the job's rules, at once or (`batch`: the poll round's) with the round's.
  void ask_states(const std::string& at, std::vector<std::pair<std::uint64_t, std::size_t>> copies,
                  std::shared_ptr<poll_batch> batch) {
    msg::job_states_request q;
    for (auto [serial, i] : copies)
      q.lrms_ids.push_back(jobs_.at(serial).job.copies[i].lrms_id);
    ask(at, std::move(q),
        [this, at, batch, copies = std::move(copies)](const result<msg::job_states_reply>& rep) {
          std::vector<observation> seen;
          if (rep && rep->error.ok())  // else unreadable now: next round
            for (std::size_t k = 0; k < copies.size() && k < rep->jobs.size(); ++k)
              seen.push_back({copies[k].first, copies[k].second, rep->jobs[k]});
          if (!batch) return observe(std::move(seen));
          polling_.erase(at);
          batch->seen.insert(batch->seen.end(), std::make_move_iterator(seen.begin()),
                             std::make_move_iterator(seen.end()));
          if (--batch->waiting == 0) observe(std::move(batch->seen));
        });
  }

  // The LRMSs' reports through the jobs' rules: started copies in the order they started.
  void observe(std::vector<observation> seen) {
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
      auto acts = forgotten ? job.on_lost(i, "the LRMS no longer knows it", now())
                            : job.on_observed(i, s.state,
                                              s.started >= 0 ? std::optional<timestamp>(s.started)
                                                             : std::nullopt,
                                              now());
      count(job, dup, job.migrations, job.migration_gain);
      if (job.history.size() != before || !acts.empty()) after_change(o.serial, std::move(acts));
    }
  }

  // Paper 003 Sec. 3.3 for every queued adaptive job, from one outlook per cluster: the
  // planned start of each job where it stands, and when it would start elsewhere.
  std::int32_t adapt_round() {
    std::vector<std::uint64_t> movable;
    for (const auto& [serial, t] : jobs_)
      if (t.job.can_migrate()) movable.push_back(serial);
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
      const auto query = eligibility(t.request, t.job.owner);
      for (const auto& e : *rd->dir) {
        const auto& c = e.info;
        if (!satisfies(c, query)) continue;
        auto terms = terms_at(t, e);
        if (!terms) continue;
        auto& q = rd->asks[c.name];
        const msg::queue_shape shape{t.job.spec.np, terms->walltime};
        const auto idx = rd->shape_index[c.name].emplace(shape, q.shapes.size()).first->second;
        if (idx == q.shapes.size()) q.shapes.push_back(shape);
        rd->options.push_back({&c.name, *terms, idx});
        if (t.job.copies[live].cluster == c.name)
          q.queued_ids.push_back(t.job.copies[live].lrms_id);
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
  void decide_migrations(Round& rd) {
    // Where each cluster's queued copies stand: lrms id -> planned start.
    std::map<std::string, std::unordered_map<std::string, timestamp>> planned;
    for (const auto& [at, rep] : rd.answers) {
      const auto& ids = rd.asks.at(at).queued_ids;
      for (std::size_t k = 0; k < ids.size() && k < rep.queued_starts.size(); ++k)
        if (rep.queued_starts[k] >= 0) planned[at][ids[k]] = rep.queued_starts[k];
    }
    std::map<std::string, duration> grown;  // by the migrations decided earlier this round
    for (std::size_t j = 0; j < rd.jobs.size(); ++j) {
      const auto serial = rd.jobs[j];
      auto it = jobs_.find(serial);
      if (it == jobs_.end() || !it->second.job.can_migrate()) continue;
      auto& t = it->second;
      const auto& cur = t.job.copies[*t.job.only_live_copy()];
      auto stands = planned[cur.cluster].find(cur.lrms_id);
      if (stands == planned[cur.cluster].end()) continue;  // started or gone: next poll
      std::optional<duration> cur_ttd;
      std::vector<ttd_option> others;
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
        const timestamp start = rep.starts[o.shape] + grown[at];
        if (auto ttd = ttd_at(o.terms, rep.now, start)) others.push_back({at, *ttd});
      }
      if (!cur_ttd) continue;
      auto best = choose_migration(*cur_ttd, others, t.job.spec.min_gain);
      if (!best) continue;
      const auto n = t.job.migrate(best->cluster, *cur_ttd - best->ttd, now());
      for (auto k = rd.first[j]; k < rd.first[j + 1]; ++k)
        if (*rd.options[k].at == best->cluster)
          grown[best->cluster] +=
              queue_growth(best->cluster, t.job.spec.np, rd.options[k].terms.walltime);
      if (auto saved = persist_job(t); !saved) continue;  // retried next round
      send_copy(serial, n);
    }
  }

  // The directory changed: the terms on its clusters are computed again when next needed,
  // and copies on clusters that left it can no longer be watched: they fail.
  void directory_changed() {
    for (auto& [serial, t] : jobs_)
      t.terms.clear();
    drop_departed();
  }

  void drop_departed() {
    for (auto& [serial, t] : jobs_) {
      if (!t.job.active()) continue;
      std::vector<grid_action> acts;
      bool changed = false;
      for (std::size_t i = 0; i < t.job.copies.size(); ++i) {
        const auto& c = t.job.copies[i];
        if (!is_live(c.state) || c.state == copy_state::submitting || cluster(c.cluster)) continue;
        auto more = t.job.on_lost(i, c.cluster + " left the grid", now());
        acts.insert(acts.end(), more.begin(), more.end());
        changed = true;
      }
      if (changed) after_change(serial, std::move(acts));
    }
  }

  // -- plumbing -------------------------------------------------------------------------

  // A request to the service of cluster `at` (the one way the manager calls a cluster);
  // the handler gets the reply or the error. Counted so that poll_atom/adapt_atom can answer
  // when everything they set off is done.
  template <class Request, class F>
  void ask(const std::string& at, Request q, F handler) {
    using reply = reply_to<Request>;
    const auto sent = call_started();
    port_.call(at, std::move(q),
               [this, handler = std::move(handler), sent](result<grid_cluster_reply> r) mutable {
                 auto typed = r ? result<reply>(std::get<reply>(std::move(*r))) : r.err();
                 call_ended(handler, sent, std::move(typed));
               });
  }

  // Every call (ask, txn) is counted from here ...
  std::chrono::steady_clock::time_point call_started() {
    ++outstanding_;
    ++cfg_.counters->lrms_calls;
    return std::chrono::steady_clock::now();
  }

  // ... to here: its latency into the counters (wall time: what an operator wants to see,
  // whatever clock the manager plans with), the handler, and maybe the end of a round.
  template <class F, class Answer>
  void call_ended(F& handler, std::chrono::steady_clock::time_point sent, Answer r) {
    cfg_.counters->lrms_call_microseconds += std::chrono::duration_cast<std::chrono::microseconds>(
                                                 std::chrono::steady_clock::now() - sent)
                                                 .count();
    handler(r);
    settled();
  }

  void when_settled(std::int32_t value, std::function<void(std::int32_t)> done) {
    if (outstanding_ == 0)
      done(value);
    else
      waiters_.emplace_back(std::move(done), value);
  }

  void settled() {
    if (--outstanding_ > 0) return;
    auto ws = std::move(waiters_);
    waiters_.clear();
    for (auto& [done, v] : ws)
      done(v);
  }

  arbroker::status persist_job(tracked& t) {
    const bool active = t.job.active();
    const timestamp ended = active ? 0 : t.job.ended.value_or(now());
    if (!active && !t.noted_ended) {  // it may leave memory from now on
      t.noted_ended = true;
      ended_.emplace(ended, serial_in(t.job.id));
    }
    if (!cfg_.journal) return {};
    return cfg_.journal->save_grid_job(
        {t.job.id, t.job.owner, active, msg::encode_record({t.request, t.job}), ended});
  }

  // Ended jobs leave memory after ended_in_memory, or sooner beyond ended_in_memory_max
  // (oldest first), unless something still waits on them; the store keeps them (purged past
  // the retention once a minute). Memory and list then do not grow with the history.
  void forget_ended() {
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

  void adopt(msg::grid_job_record rec) {
    const auto serial = serial_in(rec.job.id);
    if (serial == 0) return;
    next_serial_ = std::max(next_serial_, serial + 1);
    tracked t;
    t.request = std::move(rec.request);
    t.job = std::move(rec.job);
    // A copy written down but never answered for may or may not be in its LRMS: the first
    // round looks for it there by name (recover_round).
    for (std::size_t i = 0; i < t.job.copies.size(); ++i)
      if (t.job.copies[i].state == copy_state::submitting) unresolved_.emplace_back(serial, i);
    // Cancels and withdrawals on their way when the node stopped go again in the first round.
    if (!t.job.resend_pending().empty()) resend_.push_back(serial);
    // A reserve job stopped between its holds and its bound job: its reservation (if the
    // commit was made) is released, and the job fails.
    const bool stopped_before_its_job = t.request.strategy == grid_strategy::reserve &&
                                        t.job.copies.empty() && !is_terminal(t.job.state);
    if (stopped_before_its_job) {
      t.job.state = grid_job_state::failed;
      t.job.ended = now();
      t.job.history.push_back(
          {now(), -1, "the node stopped before the job was in its reservation"});
      if (!t.job.reservation.empty()) t.job.reservation_to_release = true;
    }
    auto& adopted = jobs_.emplace(serial, std::move(t)).first->second;
    recount(adopted);
    if (stopped_before_its_job) (void)persist_job(adopted);  // failed above
  }

  grid_jobs_config cfg_;
  grid_job_port& port_;
  directory_view directory_;
  std::map<std::uint64_t, tracked> jobs_;                // by serial: oldest first
  std::set<std::pair<timestamp, std::uint64_t>> ended_;  // (ended, serial): leave memory
  timestamp next_purge_ = 0;
  std::uint64_t next_serial_ = 1;
  std::set<std::string> polling_;  // clusters with a state request in flight
  std::vector<std::pair<std::uint64_t, std::size_t>> unresolved_;  // recovered, submitting
  std::vector<std::uint64_t> resend_;  // recovered with cancels or withdrawals on their way
  std::set<std::uint64_t> releasing_;  // reserve jobs whose reservation's cancel is on its way
  bool adapting_ = false;
  std::size_t outstanding_ = 0;
  std::vector<pending_submit> batch_;  // submissions waiting for the next flush
  bool flush_pending_ = false;
  std::vector<std::pair<std::function<void(std::int32_t)>, std::int32_t>> waiters_;
};

grid_job_manager::grid_job_manager(grid_jobs_config cfg, grid_job_port& port)
    : impl_(std::make_unique<impl>(std::move(cfg), port)) {}
grid_job_manager::~grid_job_manager() = default;

void grid_job_manager::submit(msg::grid_submit_request r, reply_fn answer) {
  impl_->submit(std::move(r), std::move(answer));
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
