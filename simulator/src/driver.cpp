#include "arbroker/simulator/driver.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <string>

#include "arbroker/actors/broker.hpp"
#include "arbroker/actors/cluster_service_actor.hpp"
#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/gis.hpp"
#include "arbroker/actors/grid_jobs.hpp"
#include "arbroker/messages/checked_requests.hpp"
#include "arbroker/sim/simulated_lrms.hpp"

namespace arbroker::sim {
namespace {

// One actor system per run, on CAF's deterministic single-threaded coordinator: messages
// run in FIFO order when run() is called, and delayed sends wait for advance_time().
struct virtual_time_config : caf::actor_system_config {
  virtual_time_config() {
    configure_engine(*this, 1);
    set("scheduler.policy", caf::atom("testing"));
  }
};

// Who a job of an LRMS is, by its serial (the n of "J<n>"): a local job of the scenario or
// the job bound to a request's reservation.
struct job_owner {
  enum class kind : std::uint8_t { none, local, bound } what = kind::none;
  std::size_t index = 0;
};

struct cluster_slot {
  cluster_service_actor service;
  simulated_lrms* lrms = nullptr;  // owned by the cluster_service behind `service`
  // The LRMS's job events, buffered: its callback must not call back into it, and a job
  // may start inside the very submit call that names it.
  std::shared_ptr<std::vector<simulated_job_event>> events;
  std::vector<job_owner> owners;         // by serial
  std::vector<timestamp> running_since;  // by serial
};

result<scheduling_policy> policy_of(const std::string& key) {
  if (auto p = parse_scheduling_policy(key)) return *p;
  return fail(errc::invalid_parameter,
              "unknown scheduler policy '" + key + "' (known: fcfs, easy, conservative)");
}

std::uint64_t serial_of(const std::string& job_id) {
  std::uint64_t n = 0;  // "J<n>"
  std::from_chars(job_id.data() + 1, job_id.data() + job_id.size(), n);
  return n;
}

class virtual_grid {
 public:
  virtual_grid()
      : sys_(cfg_),
        sched_(dynamic_cast<caf::scheduler::test_coordinator&>(sys_.scheduler())),
        self_(sys_, true) {}

  ~virtual_grid() {
    for (auto& c : clusters_)
      self_->send_exit(c.service, caf::exit_reason::user_shutdown);
    if (broker_) self_->send_exit(broker_, caf::exit_reason::user_shutdown);
    if (grid_) self_->send_exit(grid_, caf::exit_reason::user_shutdown);
    if (gis_) self_->send_exit(gis_, caf::exit_reason::user_shutdown);
    sched_.run();
  }

  status setup(const scenario& s) {
    gis_ = spawn_gis(sys_);
    broker_config bc;
    bc.gis = gis_;
    bc.clock = clock();
    bc.incarnation = "sim";  // transaction ids the same in every run
    broker_ = spawn_broker(sys_, bc);
    if (!s.grid_jobs.empty()) {
      grid_jobs_config gc;
      gc.node = "sim";
      gc.gis = gis_;
      gc.clock = clock();
      gc.poll_interval = s.grid_poll_interval;
      gc.adaptation_interval = s.grid_adaptation_interval;
      gc.migration_share = s.grid_migration_share;
      gc.hold_for_stage_in = s.grid_stages_inputs;
      gc.counters = grid_counters_;
      gc.keep_ended_jobs();  // the results read every job at the end
      if (!s.grid_event_hooks && s.grid_poll_interval <= 0)
        return fail(errc::invalid_parameter,
                    "grid jobs without event hooks need a positive grid_poll_interval");
      event_hooks_ = s.grid_event_hooks;
      grid_ = spawn_grid_jobs(sys_, gc);
    }
    for (const auto& spec : s.clusters)
      if (auto ok = add_cluster(spec); !ok) return ok;
    sched_.run();
    return {};
  }

  result<sim_output> run(const scenario& s, const driver_options& opt) {
    sim_output out;
    out.jobs.resize(s.jobs.size());
    out.requests.resize(s.requests.size());
    std::map<std::string, int> cluster_index;
    for (std::size_t c = 0; c < s.clusters.size(); ++c)
      cluster_index[s.clusters[c].name] = static_cast<int>(c);
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {
      const auto& j = s.jobs[i];
      if (j.cluster < 0 || j.cluster >= static_cast<int>(clusters_.size()))
        return fail(errc::invalid_parameter, "job " + std::to_string(j.id) + " names cluster " +
                                                 std::to_string(j.cluster) + " of " +
                                                 std::to_string(clusters_.size()));
      out.jobs[i] = {j.id, j.cluster, j.submit, -1, -1, j.np};
    }
    // Arrivals in time order; ties keep input order (stable), local jobs before requests.
    auto job_order = order_by_submit(s.jobs);
    auto req_order = order_by_submit(s.requests);
    auto grid_order = order_by_submit(s.grid_jobs);
    std::size_t next_job = 0, next_req = 0, next_grid = 0, next_failure = 0;
    auto failures = s.failures;
    for (const auto& f : failures)
      if (f.cluster < 0 || f.cluster >= static_cast<int>(clusters_.size()))
        return fail(errc::invalid_parameter, "a failure names cluster " +
                                                 std::to_string(f.cluster) + " of " +
                                                 std::to_string(clusters_.size()));
    std::stable_sort(failures.begin(), failures.end(),
                     [](const auto& a, const auto& b) { return a.at < b.at; });
    const std::size_t arrivals = s.jobs.size() + s.requests.size() + s.grid_jobs.size();
    std::vector<std::size_t> first_grid_job;  // per grid arrival, in out.grid_jobs
    for (const auto& g : s.grid_jobs) {
      first_grid_job.push_back(out.grid_jobs.size());
      out.grid_jobs.resize(out.grid_jobs.size() + 1 + g.with.size());
    }
    out.busy.reserve(s.jobs.size() + s.requests.size());  // one run per job, but for pauses
    for (const auto& c : s.clusters)
      out.cluster_cpus.push_back(c.cpus);
    // The tables by job serial, sized once: a cluster's serials count its local jobs and
    // the jobs bound to reservations (grid jobs' copies and requeues add a few).
    std::vector<std::size_t> serials(clusters_.size(), s.requests.size() + 1);
    for (const auto& j : s.jobs)
      ++serials[static_cast<std::size_t>(j.cluster)];
    for (std::size_t c = 0; c < clusters_.size(); ++c) {
      clusters_[c].owners.reserve(serials[c]);
      clusters_[c].running_since.reserve(serials[c]);
    }

    now_ = std::min({s.jobs.empty() ? time_infinity : s.jobs[job_order.front()].submit,
                     s.requests.empty() ? time_infinity : s.requests[req_order.front()].submit,
                     s.grid_jobs.empty() ? time_infinity : s.grid_jobs[grid_order.front()].submit});
    if (now_ == time_infinity) return out;
    for (auto& c : clusters_)
      c.lrms->advance_to(now_);

    // Several passes at one instant are normal (e.g. a reservation starting the second it
    // was made); an endless series would be a bug, reported instead of hanging.
    constexpr std::uint64_t max_passes_per_instant = 1'000'000;
    std::uint64_t same_instant = 0;
    while (true) {
      timestamp t = time_infinity;
      if (next_job < job_order.size()) t = std::min(t, s.jobs[job_order[next_job]].submit);
      if (next_req < req_order.size()) t = std::min(t, s.requests[req_order[next_req]].submit);
      if (next_grid < grid_order.size()) t = std::min(t, s.grid_jobs[grid_order[next_grid]].submit);
      if (next_failure < failures.size()) t = std::min(t, failures[next_failure].at);
      for (auto& c : clusters_)
        if (auto e = c.lrms->next_event_time()) t = std::min(t, *e);
      if (t == time_infinity) break;  // nothing left but stray timers
      if (auto timer = next_timer()) t = std::min(t, *timer);
      t = std::max(t, now_);

      // 1. The clock moves; the LRMSs process their events; CAF's due timers fire.
      if (t == now_ && ++same_instant > max_passes_per_instant)
        return fail(errc::lrms_failure,
                    "simulation makes no progress at time " + std::to_string(now_));
      if (t > now_) same_instant = 0;
      move_clock(t - now_);
      now_ = t;
      for (auto& c : clusters_)
        c.lrms->advance_to(now_);
      run_actors();
      // 1b. Clusters failing now lose their jobs (recorded, and told to the grid-job manager,
      //     in step 4).
      while (next_failure < failures.size() && failures[next_failure].at <= now_) {
        const auto& f = failures[next_failure++];
        clusters_[static_cast<std::size_t>(f.cluster)].lrms->fail_all_nodes(f.why);
      }
      // 2. Local jobs arriving now go straight to their LRMS (none to a failed one).
      while (next_job < job_order.size() && s.jobs[job_order[next_job]].submit == now_) {
        auto i = job_order[next_job++];
        if (clusters_[static_cast<std::size_t>(s.jobs[i].cluster)].lrms->failed()) continue;
        if (s.jobs[i].estimate) {
          ask_estimate(s.jobs[i], &out.jobs[i]);
          sched_.run();
        }
        if (auto ok = submit(s.jobs[i], i); !ok) return ok.err();
      }
      // 3. Reservation requests arriving now go to the broker; each is worked out at once
      //    (the engine runs until idle), as in the paper: one client at a time.
      while (next_req < req_order.size() && s.requests[req_order[next_req]].submit == now_) {
        auto i = req_order[next_req++];
        auto& rec = out.requests[i];
        rec.id = s.requests[i].id;
        rec.submit = now_;
        rec.requested_start = s.requests[i].request.est;
        rec.on_demand = s.requests[i].on_demand;
        rec.np = s.requests[i].request.np_ref;
        rec.runtime = s.requests[i].request.dur_ref;
        // Overwritten by the reply; stays if the broker never answers before the run ends.
        out.requests[i].reply.error = msg::wire(errc::internal, "no reply from the broker");
        ask_broker(s.requests[i].request, &rec);
        sched_.run();
        if (s.requests[i].job && rec.ok())
          if (auto ok = bind(*s.requests[i].job, rec, i); !ok) return ok.err();
      }
      // 3b. Grid jobs arriving now go to the grid-job manager, one after the other.
      while (next_grid < grid_order.size() && s.grid_jobs[grid_order[next_grid]].submit == now_) {
        auto i = grid_order[next_grid++];
        const auto& g = s.grid_jobs[i];
        auto* rec = &out.grid_jobs[first_grid_job[i]];
        for (std::size_t k = 0; k <= g.with.size(); ++k)
          rec[k].name = "refused";
        if (g.with.empty()) {
          ask<msg::grid_job_reply>(
              grid_, g.request, [rec](msg::grid_job_reply& r) { *rec = std::move(r.job); },
              [](const std::string&) {});
        } else {
          msg::grid_submit_many_request many{g.request.user, {g.request}};
          many.jobs.insert(many.jobs.end(), g.with.begin(), g.with.end());
          ask<msg::grid_submit_many_reply>(
              grid_, std::move(many),
              [rec](msg::grid_submit_many_reply& r) {
                for (std::size_t k = 0; k < r.jobs.size(); ++k)
                  rec[k] = std::move(r.jobs[k]);
              },
              [](const std::string&) {});
        }
        sched_.run();
      }
      // 4. Whatever started, paused or ended (after events, submits, deletions) is recorded;
      //    the grid-job manager hears of its copies' changes at once (the LRMS's event hook)
      //    and may act on them (cancel a flood's losers, ...), which makes more events. A
      //    bound keeps a bug from spinning here; the final poll would still see the rest.
      for (int round = 0; record_events(out) && round < 64; ++round)
        sched_.run();
      ++out.steps;
      if (opt.progress) opt.progress(now_, next_job + next_req + next_grid, arrivals);
    }
    out.end_time = now_;
    if (grid_) {
      // A last look at every copy, then the grid jobs as the manager knows them.
      ask<std::int32_t>(
          grid_, poll_atom::value, [](std::int32_t) {}, [](const std::string&) {});
      sched_.run();
      std::vector<msg::grid_job_info> known;
      ask<msg::grid_list_reply>(
          grid_, msg::grid_list_request{"", "", ""},
          [&known](msg::grid_list_reply& l) { known = std::move(l.jobs); },
          [](const std::string&) {});
      sched_.run();
      std::map<std::string, msg::grid_job_info*> by_id;
      for (auto& j : known)
        by_id[j.id] = &j;
      for (auto& rec : out.grid_jobs)
        if (auto it = by_id.find(rec.id); it != by_id.end()) rec = *it->second;
      out.grid_service_calls = grid_counters_->lrms_calls.load();
    }
    for (auto& r : out.requests) {
      auto it = cluster_index.find(r.reply.reservation.cluster);
      r.cluster = r.ok() && it != cluster_index.end() ? it->second : -1;
    }
    return out;
  }

 private:
  clock_fn clock() {
    return [this] { return now_; };
  }

  template <class T>
  static std::vector<std::size_t> order_by_submit(const std::vector<T>& xs) {
    std::vector<std::size_t> idx(xs.size());
    for (std::size_t i = 0; i < idx.size(); ++i)
      idx[i] = i;
    // Traces come in submit order: then the identity is the order, and no sort is needed.
    const auto earlier = [&](std::size_t a, std::size_t b) { return xs[a].submit < xs[b].submit; };
    if (!std::is_sorted(idx.begin(), idx.end(), earlier))
      std::stable_sort(idx.begin(), idx.end(), earlier);
    return idx;
  }

  status add_cluster(const cluster_spec& spec) {
    auto policy = policy_of(spec.scheduler);
    if (!policy) return policy.err();
    auto events = std::make_shared<std::vector<simulated_job_event>>();
    auto l =
        simulated_lrms::create({spec.name,
                                spec.cpus,
                                {spec.bunch, {}},
                                clock(),
                                *policy,
                                [events](const simulated_job_event& e) { events->push_back(e); }});
    if (!l) return l.err();
    simulated_lrms* raw = l->get();
    cluster_service_config c;
    static_cast<cluster_policy&>(c) = spec.policy;
    c.info.name = spec.name;
    c.info.cpus = spec.cpus;
    c.info.pp = spec.pp;
    c.info.bunch = spec.bunch;
    c.info.bandwidth = spec.bandwidth;
    auto cost = cost_model::create(spec.unit_cost, 3600, {}, 0);
    if (!cost) return cost.err();
    c.cost = *cost;
    auto svc = cluster_service::create(c, std::move(*l));
    if (!svc) return svc.err();
    auto handle = spawn_cluster_service(sys_, std::shared_ptr<cluster_service>(std::move(*svc)),
                                        clock(), {.reads_aside = false});  // runs repeat exactly
    self_->send(gis_, register_atom::value, c.info, handle);
    clusters_.push_back({handle, raw, std::move(events), {}, {}});
    return {};
  }

  // CAF's clock moves by dt, and the timers due by then fire. With no timer pending, moving
  // the clock is all advance_time would do; a replay without requests has none, at every
  // one of its hundreds of thousands of instants.
  void move_clock(duration dt) {
    auto& clock = sched_.clock();
    if (clock.schedule().empty()) {
      clock.current_time += std::chrono::seconds(dt);
      return;
    }
    sched_.advance_time(std::chrono::seconds(dt));
    // Timers due exactly now (a zero delay) fire as well, whatever advance_time did.
    while (!clock.schedule().empty() && clock.schedule().begin()->first <= clock.current_time)
      sched_.trigger_timeout();
  }

  // The actors run until none has a message left (nothing to do when none has one).
  void run_actors() {
    if (sched_.has_job()) sched_.run();
  }

  std::optional<timestamp> next_timer() {
    const auto& pending = sched_.clock().schedule();
    if (pending.empty()) return std::nullopt;
    auto dt = pending.begin()->first - sched_.clock().current_time;
    auto secs = std::chrono::ceil<std::chrono::seconds>(dt).count();
    return now_ + std::max<std::int64_t>(0, secs);
  }

  status submit(const local_job& j, std::size_t index) {
    auto& c = clusters_[static_cast<std::size_t>(j.cluster)];
    job_spec spec;
    // "job<id>", written straight into the string's own buffer: no allocation, no temporary.
    char name[24] = "job";
    spec.name.assign(name, std::to_chars(name + 3, name + sizeof name, j.id).ptr);
    spec.owner = j.owner;
    spec.np = j.np;
    spec.walltime = j.walltime;
    auto n = c.lrms->submit_local_job_serial(spec, j.runtime, {.restartable = j.restartable});
    if (!n) return fail(n.err().code, "job " + std::to_string(j.id) + ": " + n.err().message);
    own(c, *n, {job_owner::kind::local, index});
    return {};
  }

  // The job of a granted request, bound to its reservation. The broker names the
  // reservation by its own id; the LRMS's id is found in the snapshot by its terms (the
  // driver is the LRMS's only other user, and one request is worked out at a time).
  status bind(const bound_job& b, request_record& rec, std::size_t index) {
    const auto& res = rec.reply.reservation;
    auto it = std::find_if(clusters_.begin(), clusters_.end(),
                           [&](const cluster_slot& c) { return c.lrms->name() == res.cluster; });
    if (it == clusters_.end())
      return fail(errc::not_found,
                  "request " + std::to_string(rec.id) + ": no cluster '" + res.cluster + "'");
    auto snap = it->lrms->snapshot();
    if (!snap) return snap.err();
    std::optional<std::string> lrms_id;
    for (const auto& r : snap->reservations)
      if (r.start == res.start && r.end == res.end && r.np == res.np) lrms_id = r.id;
    if (!lrms_id)
      return fail(errc::not_found,
                  "request " + std::to_string(rec.id) + ": its reservation is not in the LRMS");
    job_spec spec;
    spec.name = "ar" + std::to_string(rec.id);
    spec.owner = res.owner.empty() ? "ar" : res.owner;
    spec.np = res.np;
    spec.walltime = res.end - res.start;
    spec.reservation = lrms_id;
    auto id = it->lrms->submit_local_job(spec, b.runtime, {.restartable = b.restartable});
    if (!id)
      return fail(id.err().code, "request " + std::to_string(rec.id) + ": " + id.err().message);
    own(*it, serial_of(*id), {job_owner::kind::bound, index});
    return {};
  }

  static void own(cluster_slot& c, std::uint64_t n, job_owner who) {
    if (c.owners.size() <= n) {  // at once to the reserved size, not one serial at a time
      const std::size_t size = std::max<std::size_t>(n + 1, c.owners.capacity());
      c.owners.resize(size);
      c.running_since.resize(size, -1);
    }
    c.owners[n] = who;
  }

  // The ESE's answer for a job about to be submitted, from the cluster's CRS.
  void ask_estimate(const local_job& j, job_record* rec) {
    msg::estimate_request q;
    q.np = j.np;
    q.walltime = j.walltime;
    ask<msg::estimate_reply>(
        clusters_[static_cast<std::size_t>(j.cluster)].service, q,
        [rec](msg::estimate_reply& r) {
          if (r.error.ok()) rec->estimated_start = r.start;
        },
        [](const std::string&) {});
  }

  // An event-based client per request: the reply lands in `out` whenever it comes.
  void ask_broker(const msg::elastic_request& req, request_record* out) {
    auto checked = msg::check(req);  // as the node checks a request where it arrives
    if (!checked) {
      out->reply = msg::error_reply<msg::elastic_reply>(checked.err());
      return;
    }
    ask<msg::elastic_reply>(
        broker_, std::move(*checked),
        [out](msg::elastic_reply& reply) { out->reply = std::move(reply); },
        [out](const std::string& e) { out->reply.error = msg::wire(errc::internal, e); });
  }

  template <class Reply, class Handle, class Request, class OnReply, class OnError>
  void ask(const Handle& to, Request req, OnReply on_reply, OnError on_error) {
    sys_.spawn([to, req, on_reply, on_error](caf::event_based_actor* client) -> caf::behavior {
      client->request(to, caf::infinite, req)
          .then(
              [client, on_reply](Reply& reply) {
                on_reply(reply);
                client->quit();
              },
              [client, on_error](caf::error& e) {
                on_error(to_string(e));
                client->quit();
              });
      return {[](caf::unit_t) {}};
    });
  }

  // The LRMSs' job events since the last call, into the output.
  // Records the buffered job events; forwards those of jobs the driver did not submit (grid
  // jobs' copies) to the grid-job manager, and says whether it did.
  bool record_events(sim_output& out) {
    bool forwarded = false;
    for (std::size_t ci = 0; ci < clusters_.size(); ++ci) {
      auto& c = clusters_[ci];
      msg::lrms_job_events hook;  // named only when there is something to tell
      for (const auto& e : *c.events) {
        if (e.job >= c.owners.size() || c.owners[e.job].what == job_owner::kind::none) {
          if (grid_ && event_hooks_) hook.lrms_ids.push_back("J" + std::to_string(e.job));
          continue;
        }
        const auto who = c.owners[e.job];
        timestamp& since = c.running_since[e.job];
        timestamp* first_start = who.what == job_owner::kind::local
                                     ? &out.jobs[who.index].start
                                     : &out.requests[who.index].job_start;
        timestamp* end = who.what == job_owner::kind::local ? &out.jobs[who.index].end
                                                            : &out.requests[who.index].job_end;
        switch (e.what) {
          case simulated_job_event::kind::started:
            if (*first_start < 0) *first_start = e.time;
            since = e.time;
            break;
          case simulated_job_event::kind::paused:
            out.busy.push_back({static_cast<int>(ci), since, e.time, e.np});
            if (who.what == job_owner::kind::local) ++out.jobs[who.index].pauses;
            since = -1;
            break;
          case simulated_job_event::kind::ended:
            if (since >= 0) out.busy.push_back({static_cast<int>(ci), since, e.time, e.np});
            *end = e.time;
            since = -1;
            break;
        }
      }
      c.events->clear();
      if (!hook.lrms_ids.empty()) {
        hook.cluster = c.lrms->name();
        self_->send(grid_, std::move(hook));
        forwarded = true;
      }
    }
    return forwarded;
  }

  virtual_time_config cfg_;
  caf::actor_system sys_;
  caf::scheduler::test_coordinator& sched_;
  caf::scoped_actor self_;
  gis_actor gis_;
  broker_actor broker_;
  grid_jobs_actor grid_;
  bool event_hooks_ = true;  // the LRMSs' job events go to grid_
  std::shared_ptr<grid_job_counters> grid_counters_ = std::make_shared<grid_job_counters>();
  std::vector<cluster_slot> clusters_;
  timestamp now_ = 0;
};
}  // namespace

result<sim_output> run_simulation(const scenario& s, const driver_options& opt) {
  virtual_grid grid;
  if (auto ok = grid.setup(s); !ok) return ok.err();
  return grid.run(s, opt);
}

}  // namespace arbroker::sim
