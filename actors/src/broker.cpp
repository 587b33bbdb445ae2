#include "arbroker/actors/broker.hpp"

#include <algorithm>
#include <cstdio>
#include <random>

#include "coreservation_agent.hpp"
#include "directory_subscription.hpp"
#include "elastic_worker.hpp"
#include "matchmaker.hpp"

namespace arbroker {
namespace {

using self_ptr = caf::stateful_actor<broker_state>*;

template <class Reply>
Reply error_reply(errc code, std::string message) {
  Reply r{};
  r.error = {static_cast<std::uint8_t>(code), std::move(message)};
  return r;
}

// Sends `req` on to the service of the cluster named in its reservation id; the service
// answers the client directly.
template <class Reply, class Request>
caf::response_promise route(self_ptr self, Request req) {
  auto rp = self->make_response_promise();
  const auto& dir = self->state.directory;
  const directory_entry* c = nullptr;
  if (const std::string cluster = cluster_of(req.reservation_id); !cluster.empty())
    c = find_cluster(*dir.clusters, cluster);
  if (c)
    rp.delegate(c->crs, std::move(req));
  else if (!dir.error.empty())
    rp.deliver(error_reply<Reply>(errc::unreachable, dir.error));
  else
    rp.deliver(error_reply<Reply>(errc::not_found, "no reservation '" + req.reservation_id + "'"));
  return rp;
}

// Asks every cluster for the user's reservations and merges the answers.
caf::response_promise list_all(self_ptr self, msg::list_request req) {
  auto rp = self->make_response_promise();
  const auto& dir = self->state.directory;
  if (!dir.error.empty()) {
    rp.deliver(error_reply<msg::list_reply>(errc::unreachable, dir.error));
    return rp;
  }
  if (dir.clusters->empty()) {
    rp.deliver(msg::list_reply{});
    return rp;
  }
  struct gather {
    msg::list_reply merged;
    std::size_t pending;
  };
  auto g = std::make_shared<gather>(gather{{}, dir.clusters->size()});
  for (const auto& c : *dir.clusters) {
    auto done = [rp, g]() mutable {
      if (--g->pending == 0) rp.deliver(std::move(g->merged));
    };
    self->request(c.crs, caf::infinite, req)
        .then(
            [g, done](msg::list_reply& r) mutable {
              for (auto& x : r.reservations)
                g->merged.reservations.push_back(std::move(x));
              if (!r.error.ok()) g->merged.error = r.error;
              done();
            },
            [g, done](caf::error&) mutable {
              g->merged.error = {static_cast<std::uint8_t>(errc::unreachable),
                                 "a cluster did not answer; the list is incomplete"};
              done();
            });
  }
  return rp;
}

void set_deadline_timer(self_ptr self, std::optional<timestamp> t) {
  if (t) self->delayed_send(self, delay_until(*t, self->state.cfg.clock()), timeout_atom::value);
}

// A request was answered, or its worker died: it needs no deadline any more.
void forget_request(self_ptr self,
                    std::map<std::uint64_t, broker_state::worker_entry>::iterator it) {
  self->state.deadlines.remove(it->second.deadline, it->first);
  if (!it->second.pooled) self->state.agents.erase(it->second.handle.address());
  self->state.workers.erase(it);
}

// Tells the worker of every request past its deadline to give up (it releases what it
// holds and answers its client with errc::timeout).
void on_deadline(self_ptr self) {
  auto& st = self->state;
  set_deadline_timer(self, st.deadlines.fire(st.cfg.clock(), [&](std::uint64_t id) {
    auto it = st.workers.find(id);
    if (it == st.workers.end()) return;
    if (it->second.pooled)
      self->send(it->second.handle, timeout_atom::value, id);
    else
      self->send(it->second.handle, timeout_atom::value);
  }));
}

// The worker of request `it` ended without answering: the client gets an answer from here.
void tell_gone(self_ptr self, std::map<std::uint64_t, broker_state::worker_entry>::iterator it,
               const caf::error& reason) {
  auto tell = std::move(it->second.tell);
  forget_request(self, it);
  tell("the request's coordinator terminated before answering (" + self->system().render(reason) +
       "); holds it made expire by themselves");
}

// An elastic worker died: every request it was running.
void on_elastic_worker_gone(self_ptr self, const caf::actor_addr& who, const caf::error& reason) {
  auto& ws = self->state.workers;
  for (auto it = ws.begin(); it != ws.end();) {
    auto cur = it++;
    if (cur->second.pooled && cur->second.handle.address() == who) tell_gone(self, cur, reason);
  }
}

// Keeps request `id` until its worker answers: its deadline, and how to answer the client
// if the worker dies first.
template <class Reply>
void track(self_ptr self, std::uint64_t id, const caf::actor& worker, bool pooled,
           caf::response_promise rp) {
  const timestamp deadline = self->state.cfg.clock() + self->state.cfg.request_timeout;
  auto tell = [rp](std::string why) mutable {
    rp.deliver(error_reply<Reply>(errc::lrms_failure, std::move(why)));
  };
  self->state.workers.emplace(id, broker_state::worker_entry{worker, deadline, pooled, rp, tell});
  set_deadline_timer(self, self->state.deadlines.add(deadline, id));
}

// Hands an elastic request to the next worker of the pool. Its answer comes back as an
// ordinary message tagged with the request number (on_elastic_reply), not as a response:
// CAF 0.17 keeps an actor's awaited responses in a flat map searched linearly, and the
// broker has every request in flight.
caf::response_promise to_elastic_worker(self_ptr self, msg::elastic_request req) {
  auto& st = self->state;
  const auto& worker = st.elastic_workers[st.next_elastic_worker++ % st.elastic_workers.size()];
  const std::uint64_t id = st.next_request++;
  auto rp = self->make_response_promise();
  track<msg::elastic_reply>(self, id, worker, true, rp);
  self->send(worker, id, std::move(req));
  return rp;
}

// Passes the worker's answer to request `it` on to its client.
template <class Reply>
void answer(self_ptr self, std::map<std::uint64_t, broker_state::worker_entry>::iterator it,
            Reply reply) {
  auto rp = it->second.rp;
  forget_request(self, it);
  rp.deliver(std::move(reply));
}

void on_elastic_reply(self_ptr self, std::uint64_t id, msg::elastic_reply& r) {
  auto it = self->state.workers.find(id);
  if (it == self->state.workers.end() || !it->second.pooled) return;  // answered already
  answer(self, it, std::move(r));
}

// Hands a co-reservation to an agent of its own and passes its answer on to the client; if
// the agent dies first, the client still gets an answer.
caf::response_promise to_agent(self_ptr self, msg::coreservation_request req) {
  using reply = msg::coreservation_reply;
  const std::uint64_t id = self->state.next_request++;
  auto agent = self->spawn(coreservation_agent, self->state.cfg, txn_base_of(self->state.cfg, id),
                           self->state.directory);
  self->monitor(agent);
  self->state.agents.emplace(agent.address(), id);
  auto rp = self->make_response_promise();
  track<reply>(self, id, agent, false, rp);
  self->request(agent, caf::infinite, std::move(req))
      .then(
          [self, id](reply& r) {
            if (auto it = self->state.workers.find(id); it != self->state.workers.end())
              answer(self, it, std::move(r));
          },
          [self, id](caf::error& e) {
            if (auto it = self->state.workers.find(id); it != self->state.workers.end())
              answer(self, it, error_reply<reply>(errc::lrms_failure, self->system().render(e)));
          });
  return rp;
}

// Replaces elastic worker `i` (at start, or after it died).
void spawn_elastic_worker(self_ptr self, std::size_t i) {
  self->state.elastic_workers[i] = self->spawn<caf::linked>(elastic_worker, self->state.cfg);
}

// A request naming a policy goes to the matchmaker, which answers the client; an unknown
// policy is refused here and touches nothing.
caf::response_promise to_matchmaker(self_ptr self, msg::elastic_request req) {
  auto rp = self->make_response_promise();
  if (auto p = parse_match_policy(req.policy); !p)
    rp.deliver(error_reply<msg::elastic_reply>(p.err().code, p.err().message));
  else
    rp.delegate(self->state.matchmaker, std::move(req));
  return rp;
}

}  // namespace

std::string cluster_of(const std::string& reservation_id) {
  auto slash = reservation_id.rfind('/');
  if (slash == std::string::npos || slash == 0) return {};
  return reservation_id.substr(0, slash);
}

caf::behavior broker_actor(self_ptr self, broker_config cfg) {
  self->state.cfg = std::move(cfg);
  ignore_stray_messages(self);
  // Co-reservation agents are monitored, elastic workers linked (they end with the broker).
  self->set_down_handler([self](const caf::down_msg& dm) {
    auto& st = self->state;
    auto a = st.agents.find(dm.source);
    if (a == st.agents.end()) return;  // answered before it ended
    if (auto it = st.workers.find(a->second); it != st.workers.end())
      tell_gone(self, it, dm.reason);
  });
  self->set_exit_handler([self](caf::exit_msg& em) {
    auto& pool = self->state.elastic_workers;
    for (std::size_t i = 0; i < pool.size(); ++i) {
      if (pool[i].address() != em.source) continue;
      on_elastic_worker_gone(self, em.source, em.reason);
      return spawn_elastic_worker(self, i);
    }
    if (em.reason) self->quit(std::move(em.reason));  // CAF's default for everyone else
  });
  // Transaction ids must never repeat, not even across restarts of the node: a cluster
  // service answers a repeated prepare with the hold it already made for that txn.
  if (self->state.cfg.incarnation.empty()) {
    std::random_device rd;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%08x%08x", rd(), rd());
    self->state.cfg.incarnation = hex;
  }
  // The matchmaker's transaction ids start with a txn base of ours, so they are as unique
  // as the workers'.
  self->state.matchmaker = self->spawn<caf::linked>(
      matchmaker_actor, self->state.cfg, txn_base_of(self->state.cfg, self->state.next_request++));
  self->state.elastic_workers.resize(
      static_cast<std::size_t>(std::max(1, self->state.cfg.elastic_workers)));
  for (std::size_t i = 0; i < self->state.elastic_workers.size(); ++i)
    spawn_elastic_worker(self, i);
  subscribe_directory(self, self->state.cfg.gis, self->state.directory);
  return {
      directory_updates(self->state.directory),
      [=](timeout_atom) { on_deadline(self); },
      [=](std::uint64_t id, msg::elastic_reply& r) { on_elastic_reply(self, id, r); },
      [=](msg::elastic_request& req) {
        if (!req.policy.empty()) return to_matchmaker(self, std::move(req));
        return to_elastic_worker(self, std::move(req));
      },
      [=](msg::coreservation_request& req) { return to_agent(self, std::move(req)); },
      [=](msg::cancel_request& req) { return route<msg::ack_reply>(self, std::move(req)); },
      [=](msg::modify_request& req) { return route<msg::query_reply>(self, std::move(req)); },
      [=](msg::query_request& req) { return route<msg::query_reply>(self, std::move(req)); },
      [=](msg::bind_job_request& req) { return route<msg::bind_job_reply>(self, std::move(req)); },
      [=](msg::commit_request& req) {
        // Clients commit a hold by reservation id (coordinators talk to services directly).
        req.txn.clear();
        return route<msg::ack_reply>(self, std::move(req));
      },
      [=](msg::list_request& req) { return list_all(self, std::move(req)); },
  };
}

}  // namespace arbroker
