#include "node_handler.hpp"

#include <algorithm>
#include <chrono>

#include "arbroker/node/node.hpp"

namespace arbroker {
namespace {

using clock_type = std::chrono::steady_clock;

// A response carrying `body` with the code and message of its wire error: the response's
// code and message are the outcome (docs/protocol.md); the body keeps what the engine said
// besides (a refused request's earliest alternative, its statistics).
template <class Body>
api::response respond(Body body, const msg::wire_error& e) {
  api::response r;
  r.code = e.code;
  r.message = e.message;
  r.body = std::move(body);
  return r;
}

// What `clusters` says a cluster's LRMS is: its batch system's name, "remote" or "sim".
std::string lrms_label(const cluster_entry* c) {
  if (!c || c->kind == cluster_kind::remote) return "remote";
  return c->kind == cluster_kind::batch ? c->batch_system : "sim";
}

}  // namespace

void keep_what_caller_sees(msg::cluster_status& s, const api::caller& who) {
  if (who.admin) return;
  auto others = [&who](const msg::reservation_info& r) { return r.owner != who.user; };
  // Others' reservations and running jobs stay as anonymous busy blocks (when and how many
  // CPUs; no id, owner, account or cost), as a time line of the cluster shows them.
  for (auto* list : {&s.reservations, &s.lrms_running})
    for (auto& r : *list)
      if (others(r)) {
        msg::reservation_info busy;
        busy.cluster = r.cluster;
        busy.start = r.start;
        busy.end = r.end;
        busy.np = r.np;
        busy.state = r.state;
        r = std::move(busy);
      }
  std::erase_if(s.lrms_reservations, others);
  std::erase_if(s.lrms_queued, others);
  std::erase_if(s.lrms_running_bound, others);
  std::erase_if(s.approximated,
                [&who](const msg::queued_job_note& n) { return n.owner != who.user; });
}

std::string operation_label(const api::request_body& body) {
  if (auto* e = std::get_if<msg::elastic_request>(&body)) return std::string(to_string(e->mode));
  return std::string(api::to_string(api::operation_of(body)));
}

void node_handler::handle(const api::caller& who, api::request req,
                          std::function<void(api::response)> done) {
  // The server already made every body act for the caller; status is filtered here.
  auto answer = [this, done = std::move(done), label = operation_label(req.body), via = who.via,
                 t0 = clock_type::now()](api::response r) {
    if (metrics_) {
      const double s = std::chrono::duration<double>(clock_type::now() - t0).count();
      metrics_->answered(via, label,
                         r.code == 0 ? "ok" : std::string(to_string(static_cast<errc>(r.code))), s);
    }
    done(std::move(r));
  };
  // A reply that carries its own wire error becomes the response's code and message.
  auto relay = [answer](auto r) {
    auto e = r.error;
    answer(respond(std::move(r), e));
  };
  std::visit(
      [&](auto& body) {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, msg::elastic_request>) {
          if (metrics_)
            metrics_->routed(node_.broker_instance_of(body.user),
                             std::string(to_string(body.mode)));
          node_.elastic(std::move(body), relay);
        } else if constexpr (std::is_same_v<T, msg::coreservation_request>) {
          if (metrics_) metrics_->routed(node_.broker_instance_of(body.user), "coreserve");
          node_.coreserve(std::move(body), relay);
        } else if constexpr (std::is_same_v<T, api::estimate_request>) {
          node_.estimate({body.np, body.walltime, body.ready, body.deadline}, body.clusters,
                         [answer](std::vector<msg::estimate_reply> rs) {
                           api::estimate_reply out;
                           for (auto& r : rs)
                             out.estimates.push_back({r.cluster, r.start, r.error});
                           // Earliest first; clusters where it can never run last.
                           std::stable_sort(out.estimates.begin(), out.estimates.end(),
                                            [](const auto& a, const auto& b) {
                                              auto key = [](const api::cluster_estimate& e) {
                                                return e.earliest_start < 0 ? time_infinity
                                                                            : e.earliest_start;
                                              };
                                              return key(a) < key(b);
                                            });
                           answer(respond(std::move(out), {}));
                         });
        } else if constexpr (std::is_same_v<T, msg::commit_request>) {
          node_.commit(std::move(body), relay);  // the reservation and its jobs' ids
        } else if constexpr (std::is_same_v<T, msg::modify_request>) {
          node_.modify(std::move(body), relay);
        } else if constexpr (std::is_same_v<T, msg::cancel_request>) {
          node_.cancel(std::move(body), relay);
        } else if constexpr (std::is_same_v<T, msg::query_request>) {
          node_.query(std::move(body), relay);
        } else if constexpr (std::is_same_v<T, msg::list_request>) {
          node_.list(std::move(body), relay);
        } else if constexpr (std::is_same_v<T, msg::bind_job_request>) {
          node_.bind_job(std::move(body), relay);
        } else if constexpr (std::is_same_v<T, msg::bound_job_query_request>) {
          node_.bound_job(std::move(body), relay);
        } else if constexpr (std::is_same_v<T, msg::bound_job_cancel_request>) {
          node_.cancel_bound_job(std::move(body), relay);
        } else if constexpr (std::is_same_v<T, msg::grid_submit_request>) {
          node_.grid_submit(std::move(body), relay);
        } else if constexpr (std::is_same_v<T, msg::grid_submit_many_request>) {
          node_.grid_submit_many(std::move(body), relay);
        } else if constexpr (std::is_same_v<T, msg::grid_query_request>) {
          node_.grid_query(std::move(body), relay);
        } else if constexpr (std::is_same_v<T, msg::grid_cancel_request>) {
          node_.grid_cancel(std::move(body), relay);
        } else if constexpr (std::is_same_v<T, msg::grid_list_request>) {
          node_.grid_list(std::move(body), relay);
        } else if constexpr (std::is_same_v<T, msg::coallocate_request>) {
          node_.coallocate(std::move(body), relay);
        } else if constexpr (std::is_same_v<T, msg::watch_request>) {
          // A subscription, not a request: the servers start it with watch().
          answer(api::error_response(
              req.id, api::operation::watch,
              fail(errc::invalid_parameter, "watch is a subscription: its server starts it")));
        } else if constexpr (std::is_same_v<T, api::cluster_list_request>) {
          api::cluster_list_reply out;
          const auto infos = node_.clusters();
          const auto& entries = node_.config().clusters;
          for (const auto& c : infos) {
            auto e = std::find_if(entries.begin(), entries.end(),
                                  [&](const cluster_entry& x) { return x.info.name == c.name; });
            out.clusters.push_back({c.name, lrms_label(e == entries.end() ? nullptr : &*e), c.cpus,
                                    c.pp, c.os, c.features, c.max_walltime, c.max_hold, c.nodes});
          }
          answer(respond(std::move(out), {}));
        } else if constexpr (std::is_same_v<T, api::status_request>) {
          node_.status([answer, who, wanted = body.clusters](std::vector<msg::cluster_status> all) {
            api::status_reply out;
            for (auto& s : all) {
              if (!wanted.empty() &&
                  std::find(wanted.begin(), wanted.end(), s.cluster) == wanted.end())
                continue;
              keep_what_caller_sees(s, who);
              out.clusters.push_back(std::move(s));
            }
            msg::wire_error e;
            if (out.clusters.size() < wanted.size())
              e = msg::wire(errc::not_found, "some of the named clusters do not exist");
            answer(respond(std::move(out), e));
          });
        }
      },
      req.body);
}

result<std::shared_ptr<watch_handle>> node_handler::watch(const api::caller& who,
                                                          const msg::watch_request& r,
                                                          watch_sink sink) {
  (void)who;  // r.user is the caller's already (an admin's empty one: everyone's)
  return node_.watch(r, std::move(sink));
}

}  // namespace arbroker
