#pragma once

// The node's insides (private to node/): the engine it starts, what it owns, and how it
// starts and stops. node.cpp starts and stops a node; node_requests.cpp carries clients'
// requests into the engine.

#include "arbroker/node/node.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <chrono>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "arbroker/actors/broker.hpp"
#include "arbroker/actors/cluster_service_actor.hpp"
#include "arbroker/actors/decision_settler.hpp"
#include "arbroker/actors/fan_in.hpp"
#include "arbroker/actors/gis.hpp"
#include "arbroker/actors/grid_jobs.hpp"
#include "arbroker/adapters/batch_systems.hpp"
#include "arbroker/adapters/fenced_lrms.hpp"
#include "arbroker/adapters/timed_lrms.hpp"
#include "arbroker/messages/checked_requests.hpp"
#include "arbroker/sim/simulated_lrms.hpp"
#include "arbroker/store/recovery_plan.hpp"
#include "arbroker/store/store.hpp"
#include "event_feed.hpp"
#include "gateway.hpp"
#include "history.hpp"
#include "lrms_names.hpp"
#include "remote_clusters.hpp"

namespace arbroker {
namespace node_detail {

struct engine_config : caf::actor_system_config {
  explicit engine_config(std::size_t threads) { configure_engine(*this, threads); }
};

// The data directory belongs to one node at a time; the lock dies with the process.
class directory_lock {
 public:
  static result<directory_lock> take(const std::filesystem::path& dir) {
    const auto path = (dir / "LOCK").string();
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return fail(errc::storage_failure, "cannot open " + path);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      return fail(errc::in_use, "data directory " + dir.string() + " is in use by another node");
    }
    return directory_lock{fd};
  }
  directory_lock(directory_lock&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  directory_lock& operator=(directory_lock&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  ~directory_lock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  explicit directory_lock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

inline result<std::unique_ptr<lrms>> make_lrms(const cluster_entry& c) {
  switch (c.kind) {
    case cluster_kind::simulated: {
      simulated_lrms_config sc{
          c.info.name, c.info.cpus, {c.info.bunch, c.info.counts}, wall_clock()};
      sc.nodes = c.info.nodes;  // refuses a job no node can take, as a real LRMS does
      // Each start of the node its own ids (J<start in microseconds><3 digits>...): a grid
      // job's copy of an earlier run, lost with it, is never taken for a new job of the same
      // number, even when the node restarts within the second.
      const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::system_clock::now().time_since_epoch());
      sc.first_serial = static_cast<std::uint64_t>(us.count()) * 1000ULL;
      auto l = simulated_lrms::create(std::move(sc));
      if (!l) return l.err();
      return std::unique_ptr<lrms>(std::move(*l));
    }
    case cluster_kind::batch: {
      auto system = find_batch_system(c.batch_system);
      if (!system) return system.err();
      return make_batch_lrms(**system, c.batch, c.name_prefix);
    }
    case cluster_kind::remote:
      break;  // no LRMS here: its agent has it
  }
  return fail(errc::invalid_parameter, "unknown cluster kind");
}

inline void add(recovery_report& sum, const recovery_report& r) {
  sum.restored += r.restored;
  sum.recreated += r.recreated;
  sum.lost += r.lost;
  sum.aborted_holds += r.aborted_holds;
  sum.completed_holds += r.completed_holds;
  sum.compensated += r.compensated;
  sum.orphans += r.orphans;
  sum.adopted += r.adopted;
  sum.kept_holds += r.kept_holds;
}

}  // namespace node_detail

struct node::impl {
  node_config cfg;
  node_hooks hooks;
  std::optional<node_detail::directory_lock> lock;
  std::shared_ptr<reservation_journal> journal;
  std::shared_ptr<grid_job_journal> grid_journal;  // the same store
  std::shared_ptr<event_journal> event_store;      // the same store
  /// The watches (docs/watch.md); fed by the store once its writes are durable.
  std::shared_ptr<node_detail::event_feed> feed;
  /// Reads the store's history of finished reservations (null without a store).
  std::unique_ptr<detail::history_reader> history;
  node_recovery recovered;
  bool store_before_claims = false;  ///< the store had no node id: names as before claims
  std::vector<msg::cluster_info> infos;
  std::unique_ptr<node_detail::engine_config> sys_cfg;
  std::unique_ptr<caf::actor_system> sys;
  gis_actor gis;
  broker_routes routes;               ///< the broker instances and whom each serves
  std::vector<broker_actor> brokers;  ///< one per instance, in routes.instances() order
  grid_jobs_actor grid_jobs;
  std::shared_ptr<grid_job_counters> grid_counters = std::make_shared<grid_job_counters>();
  caf::actor gateway;
  std::vector<std::pair<std::string, cluster_service_actor>> services;  // configuration order
  std::unique_ptr<remote::agent_server> agent;  ///< [agent]: the local clusters, served
  std::vector<std::unique_ptr<remote::remote_agent>> agents;  ///< links to remote clusters
  mutable std::mutex remote_mu;
  std::map<std::string, msg::cluster_info> remote_infos;  ///< as their agents describe them

  mutable std::mutex mu;
  std::condition_variable idle;
  std::size_t in_flight = 0;
  bool stopping = false;
  bool stopped = false;

  // Counts a request in; false once shutdown began.
  bool enter() {
    std::lock_guard lock_{mu};
    if (stopping) return false;
    ++in_flight;
    return true;
  }
  void leave() {
    std::lock_guard lock_{mu};
    if (--in_flight == 0) idle.notify_all();
  }

  // Sends `r` to `dest` through the gateway; `done` gets the reply or a typed error.
  template <class Reply, class Handle, class Request>
  void ask(const Handle& dest, Request r, callback<Reply> done) {
    if (!enter())
      return done(msg::error_reply<Reply>(errc::unreachable, "the node is shutting down"));
    auto finish = [this, done = std::move(done)](Reply rep) {
      done(std::move(rep));
      leave();
    };
    // The broker and the cluster services always answer (the broker within its request
    // timeout); an error here means the actor is gone.
    caf::anon_send(gateway, gateway_task{[dest, r = std::move(r),
                                          finish](caf::event_based_actor* self) mutable {
                     self->request(dest, caf::infinite, std::move(r))
                         .then([finish](Reply& rep) { finish(std::move(rep)); },
                               [finish, self](caf::error& e) {
                                 finish(msg::error_reply<Reply>(
                                     errc::unreachable, "engine: " + self->system().render(e)));
                               });
                   }});
  }

  // A callback for the engine's reply to a request on reservation `id`: when the engine
  // knows no such reservation but the store has it as finished (and `user` may see it),
  // `explain` says so in the reply; otherwise the reply as it is.
  template <class Reply, class Explain>
  callback<Reply> unless_finished(std::string id, std::string user, callback<Reply> done,
                                  Explain explain) {
    return unless_in_history<Reply, reservation_row>(
        [this, id = std::move(id), user = std::move(user)](auto found) {
          history->finished(id, user, std::move(found));
        },
        std::move(done), std::move(explain));
  }

  // A request about a reservation that exists (commit, cancel, modify, query, bind): through
  // the user's broker instance (any serves it), explained from the store's history when the
  // services know it no more (unless_finished).
  template <class Reply, class Request, class Explain>
  void about_reservation(Request r, callback<Reply> done, Explain explain) {
    auto id = r.reservation_id, user = r.user;
    const auto& b = any_broker(user);
    ask(b, std::move(r),
        unless_finished<Reply>(std::move(id), std::move(user), std::move(done),
                               std::move(explain)));
  }

  // The same for a grid job the manager no longer holds: ended, in the store's history.
  template <class Explain>
  callback<msg::grid_job_reply> unless_ended_job(std::string id, std::string user,
                                                 callback<msg::grid_job_reply> done,
                                                 Explain explain) {
    return unless_in_history<msg::grid_job_reply, msg::grid_job_record>(
        [this, id = std::move(id), user = std::move(user)](auto found) {
          history->ended_grid_job(id, user, std::move(found));
        },
        std::move(done), std::move(explain));
  }

  // A page of history: the store's, merged with each remote cluster's from its agent's store
  // (detail::merge_history_pages). An agent that cannot answer fails the page, saying so.
  void history_pages(const msg::list_request& req,
                     std::function<void(result<detail::history_page>)> done) {
    std::vector<std::pair<std::string, cluster_service_actor>> remote;
    for (const auto& c : cfg.clusters)
      if (c.kind == cluster_kind::remote)
        for (const auto& s : services)
          if (s.first == c.info.name) remote.push_back(s);
    const std::size_t limit = req.limit > 0
                                  ? static_cast<std::size_t>(req.limit)
                                  : static_cast<std::size_t>(detail::default_history_page);
    // The store's page first (on the reader's thread), then the agents' (each its cluster's).
    history->page(
        req, "",
        [this, req, remote = std::move(remote), limit, done = std::move(done)](auto page) mutable {
          if (!page) return done(page.err());
          std::vector<detail::history_page> pages(1);
          for (const auto& row : page->first)
            pages[0].rows.push_back(detail::info_of(row));
          pages[0].next = std::move(page->second);
          gather<msg::list_reply>(
              std::move(remote), req,
              [pages = std::move(pages), limit,
               done](std::vector<msg::list_reply> replies) mutable {
                for (auto& rep : replies) {
                  if (!rep.error.ok()) return done(error{rep.error.err(), rep.error.message});
                  pages.push_back({std::move(rep.reservations), std::move(rep.next)});
                }
                done(detail::merge_history_pages(std::move(pages), limit));
              });
        });
  }

  // The live reply `rep` and then a page of history, which `read` reads (calling back with
  // the page's rows and next). One that ended while the page was read may be in both: the
  // live one stays.
  template <class Reply, class Item, class Read>
  void add_history_page(Reply rep, std::vector<Item> Reply::*items, Read read,
                        callback<Reply> reply) {
    if (!enter()) return reply(std::move(rep));
    read([this, rep = std::move(rep), items, reply = std::move(reply)](auto page) mutable {
      if (!page) {
        rep.error = msg::to_wire(page.err());
      } else {
        std::set<std::string> live;
        for (const auto& x : rep.*items)
          live.insert(x.id);
        for (auto& x : page->rows)
          if (!live.count(x.id)) (rep.*items).push_back(std::move(x));
        rep.next = std::move(page->next);
      }
      reply(std::move(rep));
      leave();
    });
  }

  // The engine's not_found, answered from the history reader instead when `lookup` (which
  // calls back with what the store has) finds the thing: `explain` makes the reply of it.
  template <class Reply, class Row, class Lookup, class Explain>
  callback<Reply> unless_in_history(Lookup lookup, callback<Reply> done, Explain explain) {
    return [this, lookup = std::move(lookup), done = std::move(done),
            explain = std::move(explain)](Reply rep) mutable {
      if (!history || rep.error.ok() || rep.error.err() != errc::not_found || !enter())
        return done(std::move(rep));
      lookup([this, rep = std::move(rep), done = std::move(done),
              explain](const result<std::optional<Row>>& found) mutable {
        if (!found)
          rep.error = msg::to_wire(found.err());
        else if (*found)
          explain(rep, **found);
        done(std::move(rep));
        leave();
      });
    };
  }

  // Asks several actors the same question and answers with all replies, in order.
  template <class Reply, class Request>
  void gather(std::vector<std::pair<std::string, cluster_service_actor>> dests, Request r,
              callback<std::vector<Reply>> done) {
    if (!enter())
      return done(std::vector<Reply>(
          dests.size(), msg::error_reply<Reply>(errc::unreachable, "the node is shutting down")));
    struct join {
      std::vector<Reply> replies;
      callback<std::vector<Reply>> done;
    };
    auto j = std::make_shared<join>(join{std::vector<Reply>(dests.size()), std::move(done)});
    auto complete = [this, j] {
      j->done(std::move(j->replies));
      leave();
    };
    if (dests.empty()) return complete();
    caf::anon_send(
        gateway, gateway_task{[dests = std::move(dests), r = std::move(r), j,
                               complete](caf::event_based_actor* self) {
          const fan_in all(dests.size(), complete);  // (on the gateway's thread)
          for (std::size_t i = 0; i < dests.size(); ++i) {
            auto one = [j, i, all](Reply rep) {
              j->replies[i] = std::move(rep);
              all.arrived();
            };
            if (!dests[i].second) {
              one(msg::error_reply<Reply>(errc::not_found, "no cluster '" + dests[i].first + "'"));
              continue;
            }
            self->request(dests[i].second, caf::infinite, r)
                .then([one](Reply& rep) { one(std::move(rep)); },
                      [one, self](caf::error& e) {
                        one(msg::error_reply<Reply>(errc::unreachable,
                                                    "engine: " + self->system().render(e)));
                      });
          }
        }});
  }

  // The store: data_dir's SQLite file, or the PostgreSQL database [node] store names (the
  // data directory and its LOCK are still the node's own).
  arbroker::status open_store() {
    if (cfg.data_dir.empty() && cfg.store.empty()) return {};
    if (!cfg.data_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(cfg.data_dir, ec);
      if (ec)
        return fail(errc::storage_failure,
                    "cannot create data directory " + cfg.data_dir + ": " + ec.message());
      auto l = node_detail::directory_lock::take(cfg.data_dir);
      if (!l) return l.err();
      lock.emplace(std::move(*l));
    }
    auto j = arbroker::open_store(
        cfg.store.empty() ? store_file(cfg) : cfg.store,
        {cfg.durability == "normal" ? durability::normal : durability::full, "", cfg.lease_epoch});
    if (!j) return j.err();
    std::shared_ptr<node_store> store(std::move(*j));
    journal = store;
    grid_journal = store;
    event_store = store;
    history = std::make_unique<detail::history_reader>(journal, grid_journal);
    return {};
  }

  // The node's identity (node_config::id): configured, else the store's, else a new one,
  // kept in the store. A store without one was written before claims (or is new).
  arbroker::status settle_identity() {
    std::string kept;
    if (journal) {
      auto id = journal->node_id();
      if (!id) return id.err();
      kept = std::move(*id);
      store_before_claims = kept.empty();
    }
    if (cfg.id.empty()) cfg.id = kept.empty() ? detail::random_node_id() : kept;
    if (journal && kept != cfg.id)
      if (auto ok = journal->save_node_id(cfg.id); !ok) return ok;
    return {};
  }

  // The watches, told of every batch of events once it is durable (a node without a store
  // writes none: its watches stay silent).
  void start_feed() {
    feed = node_detail::event_feed::start(
        event_store.get(), {cfg.watch_buffer, 256, cfg.max_watchers, cfg.watch_keep});
    if (event_store)
      event_store->set_event_listener(
          [weak = std::weak_ptr<node_detail::event_feed>(feed)](std::vector<event_row> batch) {
            if (auto f = weak.lock()) f->publish(std::move(batch));
          });
  }

  arbroker::status start() {
    if (auto ok = open_store(); !ok) return ok;
    start_feed();
    if (auto ok = settle_identity(); !ok) return ok;
    // Recovery plan over every cluster's rows, before any service exists.
    std::vector<reservation_row> rows;
    std::vector<std::string> decisions;
    if (journal) {
      auto d = journal->commits();
      if (!d) return d.err();
      decisions = std::move(*d);
      for (const auto& c : cfg.clusters) {
        if (c.kind == cluster_kind::remote) continue;
        auto r = journal->rows_of(c.info.name);
        if (!r) return r.err();
        rows.insert(rows.end(), r->begin(), r->end());
      }
    }
    const auto plan = plan_recovery(rows, decisions);
    recovered.commit_decisions = static_cast<int>(decisions.size());

    auto vo_of = std::make_shared<std::map<std::string, std::string>>();
    for (const auto& u : cfg.users)
      if (!u.vo.empty()) (*vo_of)[u.name] = u.vo;
    routes = broker_routes(cfg);
    std::vector<std::pair<std::shared_ptr<cluster_service>, bool>> made;  // (svc, detached)
    const timestamp now = wall_clock()();
    for (auto& c : cfg.clusters) {
      if (c.kind == cluster_kind::remote) continue;  // its agent recovers it
      auto prefix =
          detail::lrms_prefix(c, journal.get(), grid_journal.get(), store_before_claims, cfg.id);
      if (!prefix) return error{prefix.err().code, c.info.name + ": " + prefix.err().message};
      c.name_prefix = std::move(*prefix);  // config() tells the names in use
      auto backend = node_detail::make_lrms(c);
      if (!backend) return error{backend.err().code, c.info.name + ": " + backend.err().message};
      auto* sim = dynamic_cast<simulated_lrms*>(backend->get());
      if (hooks.lrms_may_change)
        *backend = std::make_unique<fenced_lrms>(std::move(*backend), hooks.lrms_may_change);
      if (hooks.lrms_observer)
        *backend =
            std::make_unique<timed_lrms>(std::move(*backend), hooks.lrms_observer(c.info.name));
      cluster_service_config sc;
      static_cast<cluster_policy&>(sc) = c;  // the site's policy, as configured
      sc.info = c.info;
      if (c.kind != cluster_kind::simulated) {
        auto snap = (*backend)->snapshot();
        if (!snap) return error{snap.err().code, c.info.name + ": " + snap.err().message};
        sc.info.cpus = snap->cpus;  // the LRMS knows its size
        // ... and its longest walltime, unless the config names one (paper 004's W_max).
        if (sc.info.max_walltime == 0) sc.info.max_walltime = snap->max_walltime;
        // ... and its nodes, unless the config names them.
        if (sc.info.nodes.empty()) {
          auto nodes = (*backend)->node_groups();
          if (!nodes) return error{nodes.err().code, c.info.name + ": " + nodes.err().message};
          sc.info.nodes = std::move(*nodes);
        }
      }
      msg::add_node_features(sc.info);
      sc.cost = c.cost;
      // With a store the history is there (the service forgets at once); without one it is
      // in memory, for an hour at most, so that memory does not grow with a long retention.
      sc.retention = journal ? c.retention : std::min<duration>(c.retention, seconds_per_hour);
      sc.info.max_hold = c.max_hold;  // published: the broker sends no longer hold there
      sc.name_prefix = c.name_prefix;
      sc.adopt_foreign = cfg.adopt;
      sc.keep_in_doubt_holds = cfg.agent.has_value();  // brokers elsewhere decide its holds
      sc.scoped_callers = cfg.agent.has_value();       // ... and may touch only their own
      sc.vo_of = vo_of;
      sc.journal = journal;
      sc.on_change = hooks.reservation_changed;
      auto svc = cluster_service::create(sc, std::move(*backend));
      if (!svc) return error{svc.err().code, c.info.name + ": " + svc.err().message};
      recovery_report rep;
      if (auto ok = (*svc)->recover(rows, plan, now, rep); !ok)
        return error{ok.err().code, c.info.name + ": recovery: " + ok.err().message};
      node_detail::add(recovered.clusters, rep);
      // Local work after recovery, so that it queues around the restored reservations.
      if (sim)
        for (std::size_t i = 0; i < c.local_jobs.size(); ++i) {
          const auto& j = c.local_jobs[i];
          (void)sim->submit_local_job(
              {"local-" + std::to_string(i + 1), "local", j.np, j.walltime, {}, ""}, j.runtime);
        }
      infos.push_back(sc.info);
      made.emplace_back(std::shared_ptr<cluster_service>(std::move(*svc)),
                        c.kind != cluster_kind::simulated);
    }
    // Every decision is settled now: committed where whole, compensated where not. With
    // clusters behind agents, their parts are not: a settler completes them (below).
    const bool has_remote =
        std::any_of(cfg.clusters.begin(), cfg.clusters.end(),
                    [](const auto& c) { return c.kind == cluster_kind::remote; });
    if (!has_remote)
      for (const auto& txn : decisions)
        if (auto ok = journal->forget_commit(txn); !ok) return ok;

    sys_cfg = std::make_unique<node_detail::engine_config>(cfg.threads);
    sys = std::make_unique<caf::actor_system>(*sys_cfg);
    gis = spawn_gis(*sys);
    for (std::size_t i = 0; i < made.size(); ++i) {
      auto& [svc, detached] = made[i];
      // Real adapters block for milliseconds per call: each such service gets its own thread.
      auto h = spawn_cluster_service(*sys, svc, wall_clock(), {.detached = detached});
      caf::anon_send(gis, register_atom::value, infos[i], h);
      services.emplace_back(infos[i].name, h);
    }
    if (auto ok = serve_agent(); !ok) return ok;
    if (auto ok = reach_agents(); !ok) return ok;
    if (has_remote && !decisions.empty()) {
      decision_settler_config dc;
      dc.clusters = services;
      dc.decisions = decisions;
      dc.journal = journal;
      dc.on_settled = [events = hooks.remote_event](const std::string& txn, bool whole) {
        if (events)
          events("settled the logged commit decision " + txn +
                 (whole ? ": committed" : ": a part was lost, released everywhere"));
      };
      spawn_decision_settler(*sys, std::move(dc));
    }
    for (const auto& b : routes.instances()) {
      broker_config bc;
      bc.gis = gis;
      bc.clock = wall_clock();
      bc.default_esr_threshold = b.esr_threshold;
      bc.hold_seconds = b.hold_seconds;
      bc.prepare_expiry = b.prepare_expiry;
      bc.request_timeout = b.request_timeout;
      bc.max_tries = b.max_tries;
      bc.selection_window = b.selection_window;
      bc.journal = journal;  // one log of commit decisions: each instance's ids are its own
      brokers.push_back(spawn_broker(*sys, bc));
    }
    grid_jobs_config gc;
    gc.node = cfg.name;
    gc.gis = gis;
    gc.clock = wall_clock();
    gc.poll_interval = cfg.job_poll_interval;
    gc.adaptation_interval = cfg.adaptation_interval;
    gc.default_min_gain = cfg.default_min_gain;
    gc.default_max_migrations = cfg.default_max_migrations;
    gc.migration_share = cfg.migration_share;
    gc.default_max_resubmits = cfg.default_max_resubmits;
    gc.lost_after = cfg.lost_after;
    gc.finish_by_eq7 = cfg.reserve_finish_eq7;
    gc.journal = grid_journal;
    gc.counters = grid_counters;
    gc.retention = cfg.job_retention;
    if (grid_journal) {
      auto last = grid_journal->last_grid_job_serial();
      if (!last) return last.err();
      gc.last_serial = *last;
      auto recs = load_grid_jobs(*grid_journal);
      if (!recs) return recs.err();
      for (const auto& r : *recs)
        recovered.grid_jobs += r.job.active() ? 1 : 0;
      gc.recovered = std::move(*recs);
    }
    grid_jobs = spawn_grid_jobs(*sys, std::move(gc));
    gateway = sys->spawn(gateway_actor);
    return {};
  }

  // The broker instance that serves `user` (node_config::brokers); none for a user no
  // instance serves.
  const broker_actor* broker_for(const std::string& user) const {
    auto i = routes.of(user);
    return i ? &brokers[*i] : nullptr;
  }
  // For requests about reservations that exist (the cluster services hold them, so any
  // instance reaches them): the user's instance, else the first.
  const broker_actor& any_broker(const std::string& user) const {
    const auto* b = broker_for(user);
    return b ? *b : brokers.front();
  }

  arbroker::status serve_agent() {
    if (!cfg.agent) return {};
    std::vector<remote::agent_served_cluster> served;
    for (std::size_t i = 0; i < services.size(); ++i)
      served.push_back({infos[i], services[i].second});
    auto s = detail::serve_agent(*sys, cfg, std::move(served), hooks.remote_event, history.get());
    if (!s) return s.err();
    agent = std::move(*s);
    return {};
  }

  arbroker::status reach_agents() {
    auto links = detail::reach_agents(
        *sys, cfg, hooks.remote_event,
        [this](const msg::cluster_info& info, const cluster_service_actor& proxy) {
          {
            std::lock_guard guard{remote_mu};
            remote_infos[info.name] = info;
          }
          // Registered before the link counts as up: a request after that finds it.
          caf::scoped_actor self{*sys};
          self->request(gis, std::chrono::seconds(10), register_atom::value, info, proxy)
              .receive([](const msg::ack_reply&) {}, [](const caf::error&) {});
        },
        hooks.lrms_may_change);
    if (!links) return links.err();
    agents = std::move(links->agents);
    services.insert(services.end(), links->proxies.begin(), links->proxies.end());
    return {};
  }

  // The engine, then the watches (told of the engine's last writes first).
  void stop_engine() {
    stop_actors();
    if (feed) feed->stop();
  }

  void stop_actors() {
    if (stopped || !sys) return;
    stopped = true;
    agent.reset();   // no broker reaches the services any more
    agents.clear();  // the links and the proxies end
    for (auto& [name, h] : services)
      caf::anon_send_exit(h, caf::exit_reason::user_shutdown);
    for (auto& b : brokers)
      caf::anon_send_exit(b, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(grid_jobs, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(gis, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(gateway, caf::exit_reason::user_shutdown);
    // A detached actor's thread ends only once the last handle to it is gone: drop ours
    // before waiting, or the actor system waits forever.
    services.clear();
    brokers.clear();
    grid_jobs = nullptr;
    gis = nullptr;
    gateway = nullptr;
    sys.reset();  // waits for every actor to finish
  }
};

}  // namespace arbroker
