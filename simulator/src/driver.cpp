#include "arbroker/simulator/driver.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <string>

#include "arbroker/actors/broker.hpp"
#include "arbroker/actors/crs.hpp"
#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/gis.hpp"
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

// How the driver learns when local jobs start (simulated_lrms has no callback): after each
// instant it asks job_status() of the queued jobs in FIFO order. Under FCFS nothing behind a
// waiting head can start, so the scan stops at the first job still queued.
enum class start_scan { head_only, whole_queue };

struct cluster_slot {
  caf::actor crs;
  simulated_lrms* lrms = nullptr;  // owned by the cluster_service behind `crs`
  start_scan scan = start_scan::head_only;
  std::deque<std::size_t> queued;  // job indices still queued, FIFO
};

// The one place that maps a scheduler policy key to an LRMS. Backfilling policies go here.
result<start_scan> scan_for(const std::string& policy) {
  if (policy == "fcfs") return start_scan::head_only;
  return fail(errc::invalid_parameter,
              "unknown scheduler policy '" + policy + "' (this build knows: fcfs)");
}

class virtual_grid {
 public:
  virtual_grid()
      : sys_(cfg_),
        sched_(dynamic_cast<caf::scheduler::test_coordinator&>(sys_.scheduler())),
        self_(sys_, true) {}

  ~virtual_grid() {
    for (auto& c : clusters_)
      self_->send_exit(c.crs, caf::exit_reason::user_shutdown);
    if (broker_) self_->send_exit(broker_, caf::exit_reason::user_shutdown);
    if (gis_) self_->send_exit(gis_, caf::exit_reason::user_shutdown);
    sched_.run();
  }

  status setup(const scenario& s) {
    gis_ = sys_.spawn(gis_actor);
    broker_config bc;
    bc.gis = gis_;
    bc.clock = clock();
    broker_ = sys_.spawn(broker_actor, bc);
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
    std::size_t next_job = 0, next_req = 0;
    const std::size_t arrivals = s.jobs.size() + s.requests.size();
    lrms_ids_.assign(s.jobs.size(), {});

    now_ = std::min(s.jobs.empty() ? time_infinity : s.jobs[job_order.front()].submit,
                    s.requests.empty() ? time_infinity : s.requests[req_order.front()].submit);
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
      sched_.advance_time(std::chrono::seconds(t - now_));
      // Timers due exactly now (a zero delay) fire as well, whatever advance_time did.
      while (!sched_.clock().schedule().empty() &&
             sched_.clock().schedule().begin()->first <= sched_.clock().current_time)
        sched_.trigger_timeout();
      now_ = t;
      for (auto& c : clusters_)
        c.lrms->advance_to(now_);
      sched_.run();
      // 2. Local jobs arriving now go straight to their LRMS.
      while (next_job < job_order.size() && s.jobs[job_order[next_job]].submit == now_) {
        auto i = job_order[next_job++];
        if (auto ok = submit(s.jobs[i], i); !ok) return ok.err();
      }
      // 3. Reservation requests arriving now go to the broker; each is worked out at once
      //    (the engine runs until idle), as in the paper: one client at a time.
      while (next_req < req_order.size() && s.requests[req_order[next_req]].submit == now_) {
        auto i = req_order[next_req++];
        out.requests[i].id = s.requests[i].id;
        out.requests[i].submit = now_;
        // Overwritten by the reply; stays if the broker never answers before the run ends.
        out.requests[i].reply.error = msg::wire(errc::lrms_failure, "no reply from the broker");
        ask_broker(s.requests[i].request, &out.requests[i]);
        sched_.run();
      }
      // 4. Whatever started now (after events, submits, deletions) is recorded.
      record_starts(s, out);
      ++out.steps;
      if (opt.progress) opt.progress(now_, next_job + next_req, arrivals);
    }
    out.end_time = now_;
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
    std::stable_sort(idx.begin(), idx.end(),
                     [&](std::size_t a, std::size_t b) { return xs[a].submit < xs[b].submit; });
    return idx;
  }

  status add_cluster(const cluster_spec& spec) {
    auto scan = scan_for(spec.scheduler);
    if (!scan) return scan.err();
    auto l = simulated_lrms::create({spec.name, spec.cpus, {spec.bunch, {}}, clock()});
    if (!l) return l.err();
    simulated_lrms* raw = l->get();
    cluster_service_config c;
    c.info.name = spec.name;
    c.info.cpus = spec.cpus;
    c.info.pp = spec.pp;
    c.info.bunch = spec.bunch;
    c.refresh = 0;  // the view is rebuilt on every call: no staleness in the experiments
    auto cost = cost_model::create(spec.unit_cost, 3600, {}, 0);
    if (!cost) return cost.err();
    c.cost = *cost;
    c.esr_static_h = spec.esr_static_h;
    c.history_delta = spec.history_delta;
    c.load.acc_r = spec.acc_r;
    c.load.acc_w = spec.acc_w;
    auto svc = cluster_service::create(c, std::move(*l));
    if (!svc) return svc.err();
    auto handle = sys_.spawn(crs_actor, std::shared_ptr<cluster_service>(std::move(*svc)), clock());
    self_->send(gis_, register_atom::value, c.info, handle);
    clusters_.push_back({handle, raw, *scan, {}});
    return {};
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
    spec.name = "job" + std::to_string(j.id);
    spec.owner = j.owner;
    spec.np = j.np;
    spec.walltime = j.walltime;
    auto id = c.lrms->submit_local_job(spec, j.runtime);
    if (!id) return fail(id.err().code, "job " + std::to_string(j.id) + ": " + id.err().message);
    lrms_ids_[index] = std::move(*id);
    c.queued.push_back(index);
    return {};
  }

  // An event-based client per request: the reply lands in `out` whenever it comes.
  void ask_broker(const msg::elastic_request& req, request_record* out) {
    auto broker = broker_;
    sys_.spawn([broker, req, out](caf::event_based_actor* client) -> caf::behavior {
      client->request(broker, caf::infinite, req)
          .then(
              [client, out](msg::elastic_reply& reply) {
                out->reply = std::move(reply);
                client->quit();
              },
              [client, out](caf::error& e) {
                out->reply.error = msg::wire(errc::lrms_failure, to_string(e));
                client->quit();
              });
      return {[](caf::unit_t) {}};
    });
  }

  void record_starts(const scenario& s, sim_output& out) {
    for (auto& c : clusters_) {
      if (c.scan == start_scan::head_only) {
        // FCFS: nothing behind a waiting head has started.
        while (!c.queued.empty() && !still_queued(c, c.queued.front())) {
          started(s, out, c.queued.front());
          c.queued.pop_front();
        }
        continue;
      }
      std::size_t keep = 0;
      for (std::size_t k = 0; k < c.queued.size(); ++k) {
        auto i = c.queued[k];
        if (still_queued(c, i))
          c.queued[keep++] = i;
        else
          started(s, out, i);
      }
      c.queued.resize(keep);
    }
  }

  bool still_queued(cluster_slot& c, std::size_t i) {
    auto st = c.lrms->job_status(lrms_ids_[i]);
    return st && *st == lrms_job_state::queued;
  }

  // Every state change happens at the current instant, so a job no longer queued started now.
  void started(const scenario& s, sim_output& out, std::size_t i) {
    auto& rec = out.jobs[i];
    rec.start = now_;
    rec.end = now_ + std::min(s.jobs[i].runtime, s.jobs[i].walltime);
    std::string().swap(lrms_ids_[i]);
  }

  virtual_time_config cfg_;
  caf::actor_system sys_;
  caf::scheduler::test_coordinator& sched_;
  caf::scoped_actor self_;
  caf::actor gis_;
  caf::actor broker_;
  std::vector<cluster_slot> clusters_;
  std::vector<std::string> lrms_ids_;  // per job index, while queued
  timestamp now_ = 0;
};

}  // namespace

result<sim_output> run_simulation(const scenario& s, const driver_options& opt) {
  virtual_grid grid;
  if (auto ok = grid.setup(s); !ok) return ok.err();
  return grid.run(s, opt);
}

}  // namespace arbroker::sim
