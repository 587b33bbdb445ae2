#include "arbroker/actors/broker.hpp"

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

// A worker answered or died: it needs no deadline any more.
void forget_worker(self_ptr self,
                   std::map<caf::actor_addr, broker_state::worker_entry>::iterator it) {
  self->state.deadlines.remove(it->second.deadline, it->first);
  self->state.workers.erase(it);
}

// Tells every worker past its deadline to give up (it releases what it holds and answers
// its client with errc::timeout).
void on_deadline(self_ptr self) {
  auto& st = self->state;
  set_deadline_timer(self, st.deadlines.fire(st.cfg.clock(), [&](const caf::actor_addr& a) {
    if (auto it = st.workers.find(a); it != st.workers.end())
      self->send(it->second.handle, timeout_atom::value);
  }));
}

// Hands a request to a worker and passes its answer on to the client; if the worker dies
// first, the client still gets an answer.
template <class Reply, class Request>
caf::response_promise run_worker(self_ptr self, const caf::actor& worker, Request req) {
  auto rp = self->make_response_promise();
  const auto addr = worker.address();
  self->monitor(worker);
  const timestamp deadline = self->state.cfg.clock() + self->state.cfg.request_timeout;
  self->state.workers.emplace(
      addr, broker_state::worker_entry{worker, deadline, [rp](std::string why) mutable {
                                         rp.deliver(error_reply<Reply>(errc::lrms_failure,
                                                                       std::move(why)));
                                       }});
  set_deadline_timer(self, self->state.deadlines.add(deadline, addr));
  self->request(worker, caf::infinite, std::move(req))
      .then(
          [self, rp, addr](Reply& r) mutable {
            if (auto it = self->state.workers.find(addr); it != self->state.workers.end())
              forget_worker(self, it);
            rp.deliver(std::move(r));
          },
          [self, rp, addr](caf::error& e) mutable {
            auto it = self->state.workers.find(addr);
            if (it == self->state.workers.end()) return;  // already answered
            forget_worker(self, it);
            rp.deliver(error_reply<Reply>(errc::lrms_failure, self->system().render(e)));
          });
  return rp;
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
  self->set_down_handler([self](const caf::down_msg& dm) {
    auto& ws = self->state.workers;
    auto it = ws.find(dm.source);
    if (it == ws.end()) return;
    auto tell = std::move(it->second.tell);
    forget_worker(self, it);
    tell("the request's coordinator terminated before answering (" +
         self->system().render(dm.reason) + "); holds it made expire by themselves");
  });
  // Transaction ids must never repeat, not even across restarts of the node: a cluster
  // service answers a repeated prepare with the hold it already made for that txn.
  if (self->state.cfg.incarnation.empty()) {
    std::random_device rd;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%08x%08x", rd(), rd());
    self->state.cfg.incarnation = hex;
  }
  auto txn_base = [self] {
    return self->state.cfg.incarnation + "-" + std::to_string(self->state.next_request++);
  };
  // The matchmaker's transaction ids start with a txn base of ours, so they are as unique
  // as the workers'.
  self->state.matchmaker = self->spawn<caf::linked>(matchmaker_actor, self->state.cfg, txn_base());
  subscribe_directory(self, self->state.cfg.gis, self->state.directory);
  return {
      directory_updates(self->state.directory),
      [=](timeout_atom) { on_deadline(self); },
      [=](msg::elastic_request& req) {
        if (!req.policy.empty()) return to_matchmaker(self, std::move(req));
        auto worker =
            self->spawn(elastic_worker, self->state.cfg, txn_base(), self->state.directory);
        return run_worker<msg::elastic_reply>(self, worker, std::move(req));
      },
      [=](msg::coreservation_request& req) {
        auto agent =
            self->spawn(coreservation_agent, self->state.cfg, txn_base(), self->state.directory);
        return run_worker<msg::coreservation_reply>(self, agent, std::move(req));
      },
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
