#include "broker_state.hpp"

#include <algorithm>
#include <cstdio>
#include <random>

#include "arbroker/actors/fan_in.hpp"
#include "coreservation_worker.hpp"
#include "directory_subscription.hpp"
#include "elastic_worker.hpp"
#include "matchmaker.hpp"

namespace arbroker {
namespace {

const auto spawn_elastic_worker =
    spawn_coordinator<elastic_worker_state, elastic_coordinator_actor>;
const auto spawn_matchmaker = spawn_coordinator<matchmaker_state, elastic_coordinator_actor>;
const auto spawn_coreservation_worker =
    spawn_coordinator<coreservation_worker_state, coreservation_coordinator_actor>;

broker_impl_actor::behavior_type broker_behavior(
    broker_impl_actor::stateful_pointer<broker_state> self, broker_config cfg) {
  return self->state.make_behavior(std::move(cfg));
}

// Transaction ids must never repeat, not even across restarts of the node: a cluster
// service answers a repeated prepare with the hold it already made for that txn.
std::string random_incarnation() {
  std::random_device rd;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%08x%08x", rd(), rd());
  return hex;
}

}  // namespace

broker_actor spawn_broker(caf::actor_system& sys, broker_config cfg) {
  return sys.spawn(broker_behavior, std::move(cfg));
}

std::string cluster_of(const std::string& reservation_id) {
  auto slash = reservation_id.rfind('/');
  if (slash == std::string::npos || slash == 0) return {};
  return reservation_id.substr(0, slash);
}

broker_impl_actor::behavior_type broker_state::make_behavior(broker_config cfg) {
  cfg_ = std::move(cfg);
  if (cfg_.incarnation.empty()) cfg_.incarnation = random_incarnation();
  ignore_stray_messages(self_);
  self_->set_down_handler([this](const caf::down_msg& dm) { on_down(dm); });
  spawn_coordinators();
  subscribe_directory(self_, cfg_.gis, directory_);
  return {
      [this](msg::checked_elastic_request& req) {
        if (req.policy) return hand_off<msg::elastic_reply>(matchmaker, std::move(req));
        const auto& worker = elastic_workers[next_elastic_++ % elastic_workers.size()];
        return hand_off<msg::elastic_reply>(worker, std::move(req));
      },
      [this](msg::checked_coreservation_request& req) {
        const auto& worker =
            coreservation_workers[next_coreservation_++ % coreservation_workers.size()];
        return hand_off<msg::coreservation_reply>(worker, std::move(req));
      },
      [this](msg::commit_request& req) { return route<msg::query_reply>(std::move(req)); },
      [this](msg::cancel_request& req) { return route<msg::ack_reply>(std::move(req)); },
      [this](msg::modify_request& req) { return route<msg::query_reply>(std::move(req)); },
      [this](msg::query_request& req) { return route<msg::query_reply>(std::move(req)); },
      [this](msg::bind_job_request& req) { return route<msg::bind_job_reply>(std::move(req)); },
      [this](msg::bound_job_query_request& req) {
        return route<msg::bound_job_reply>(std::move(req));
      },
      [this](msg::bound_job_cancel_request& req) {
        return route<msg::bound_job_reply>(std::move(req));
      },
      [this](msg::list_request& req) { return list_all(std::move(req)); },
      [this](msg::coallocate_request& req) { return coallocate(std::move(req)); },
      [this](msg::request_no no, msg::elastic_reply& r) { on_answer(no, std::move(r)); },
      [this](msg::request_no no, msg::coreservation_reply& r) { on_answer(no, std::move(r)); },
      [this](timeout_atom) { on_deadline(); },
      directory_updates(directory_),
  };
}

// The pools of coordinators. They monitor the broker (and end with it); the broker monitors
// them and replaces one that dies.
void broker_state::spawn_coordinators() {
  const auto me = caf::actor_cast<broker_actor>(self_);
  auto watched = [this](const auto& c) {
    self_->monitor(c);
    return c;
  };
  elastic_workers.resize(static_cast<std::size_t>(std::max(1, cfg_.elastic_workers)));
  for (auto& w : elastic_workers)
    w = watched(spawn_elastic_worker(self_, cfg_, me));
  matchmaker = watched(spawn_matchmaker(self_, cfg_, me));
  coreservation_workers.resize(static_cast<std::size_t>(std::max(1, cfg_.coreservation_workers)));
  for (auto& w : coreservation_workers)
    w = watched(spawn_coreservation_worker(self_, cfg_, me));
}

// Hands a request to a coordinator under a new request number and keeps the client's
// promise, the deadline, and how to answer if the coordinator dies first. The answer comes
// back as an ordinary message tagged with the request number (on_answer), not as a CAF
// response: the broker has every request in flight (docs/architecture.md, "CAF 0.17
// constraints", 1).
template <class Reply, class Coordinator, class Request>
caf::typed_response_promise<Reply> broker_state::hand_off(const Coordinator& to, Request req) {
  const msg::request_no no{next_request_++};
  auto rp = self_->template make_response_promise<Reply>();
  const timestamp deadline = cfg_.clock() + cfg_.request_timeout;
  in_flight_.emplace(
      no, in_flight{to, deadline, rp, [](caf::response_promise& client, std::string why) {
                      client.deliver(msg::error_reply<Reply>(errc::internal, std::move(why)));
                    }});
  arm(deadlines_.add(deadline, no));
  self_->send(to, no, std::move(req));
  return rp;
}

template <class Reply>
void broker_state::on_answer(msg::request_no no, Reply reply) {
  auto it = in_flight_.find(no);
  if (it == in_flight_.end()) return;  // answered already (its coordinator died)
  auto client = std::move(it->second.client);
  deadlines_.remove(it->second.deadline, no);
  in_flight_.erase(it);
  client.deliver(std::move(reply));
}

void broker_state::arm(std::optional<timestamp> t) {
  if (t) self_->delayed_send(self_, delay_until(*t, cfg_.clock()), timeout_atom::value);
}

// Tells the coordinator of every request past its deadline to give up: it releases what it
// holds and answers with errc::timeout.
void broker_state::on_deadline() {
  arm(deadlines_.fire(cfg_.clock(), [this](msg::request_no no) {
    if (auto it = in_flight_.find(no); it != in_flight_.end())
      std::visit([&](const auto& c) { self_->send(c, timeout_atom::value, no); },
                 it->second.coordinator);
  }));
}

// A coordinator ended: its clients get an answer from here, and a new one takes its place.
void broker_state::on_down(const caf::down_msg& dm) {
  const std::string why = "the request's coordinator terminated before answering (" +
                          self_->system().render(dm.reason) +
                          "); holds it made expire by themselves";
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    auto& r = it->second;
    if (std::visit([](const auto& c) { return c.address(); }, r.coordinator) != dm.source) {
      ++it;
      continue;
    }
    auto client = std::move(r.client);
    auto fail = r.fail;
    deadlines_.remove(r.deadline, it->first);
    it = in_flight_.erase(it);
    fail(client, why);
  }
  const auto me = caf::actor_cast<broker_actor>(self_);
  auto replace = [&](auto& slot, auto spawn) {
    if (slot.address() != dm.source) return false;
    slot = spawn(self_, cfg_, me);
    self_->monitor(slot);
    return true;
  };
  for (auto& w : elastic_workers)
    if (replace(w, spawn_elastic_worker)) return;
  if (replace(matchmaker, spawn_matchmaker)) return;
  for (auto& w : coreservation_workers)
    if (replace(w, spawn_coreservation_worker)) return;
}

// Sends `req` on to the service of the cluster named in its reservation id; the service
// answers the client directly.
template <class Reply, class Request>
caf::result<Reply> broker_state::route(Request req) {
  const directory_entry* c = nullptr;
  if (const std::string cluster = cluster_of(req.reservation_id); !cluster.empty())
    c = find_cluster(*directory_.clusters, cluster);
  if (c) return self_->delegate(c->service, std::move(req));
  if (!directory_.error.empty())
    return msg::error_reply<Reply>(errc::unreachable, directory_.error);
  return msg::error_reply<Reply>(errc::not_found, "no reservation '" + req.reservation_id + "'");
}

// Asks every cluster for the user's reservations and merges the answers.
caf::typed_response_promise<msg::list_reply> broker_state::list_all(msg::list_request req) {
  auto rp = self_->make_response_promise<msg::list_reply>();
  if (!directory_.error.empty()) {
    rp.deliver(msg::error_reply<msg::list_reply>(errc::unreachable, directory_.error));
    return rp;
  }
  auto merged = std::make_shared<msg::list_reply>();
  fan_in join(directory_.clusters->size(),
              [rp, merged]() mutable { rp.deliver(std::move(*merged)); });
  for (const auto& c : *directory_.clusters)
    self_->request(c.service, caf::infinite, req)
        .then(
            [merged, join](msg::list_reply& r) {
              for (auto& x : r.reservations)
                merged->reservations.push_back(std::move(x));
              if (!r.error.ok()) merged->error = r.error;
              join.arrived();
            },
            [merged, join](caf::error&) {
              merged->error =
                  msg::wire(errc::unreachable, "a cluster did not answer; the list is incomplete");
              join.arrived();
            });
  return rp;
}

}  // namespace arbroker
