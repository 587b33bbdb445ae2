// The co-allocation step (paper 002, Sec. 3, the co-allocation agent): the jobs of every
// part of a co-reservation are started in their reservations, all or nothing.
//
// Three rounds, each sent to all parts at once and gathered before the next:
//   1. check: every part is the caller's and committed or active (query);
//   2. bind: each part's jobs go into its reservation, all or none of that part's (the
//      cluster's commit with jobs, reservation_jobs.cpp);
//   3. undo, only if a part failed: the jobs the other parts took are cancelled and
//      forgotten (unbind_jobs), and the client hears the first failure.
// A part that turned into something else between 1 and 2 (cancelled, expired) fails in 2.

#include <memory>

#include "arbroker/actors/fan_in.hpp"
#include "broker_state.hpp"

namespace arbroker {

namespace {

struct coallocation {
  msg::coallocate_request req;
  std::vector<cluster_service_actor> services;  // by part
  std::vector<msg::wire_error> errors;          // by part, this round
  msg::coallocate_reply reply;                  // jobs by part
  caf::typed_response_promise<msg::coallocate_reply> client;

  std::string part(std::size_t i) const {
    return "part " + std::to_string(i) + " (reservation '" + req.parts[i].reservation_id + "')";
  }
  // The first failure of the round, named by its part; ok when there is none.
  msg::wire_error first_error() const {
    for (std::size_t i = 0; i < errors.size(); ++i)
      if (!errors[i].ok()) return {errors[i].code, part(i) + ": " + errors[i].message};
    return {};
  }
};

using coallocation_ptr = std::shared_ptr<coallocation>;

void answer(const coallocation_ptr& c, msg::wire_error error) {
  if (!error.ok()) c->reply.jobs.clear();
  c->reply.error = std::move(error);
  c->client.deliver(std::move(c->reply));
}

// Sends make(i) to the service of every part i with parts_in[i], hands each reply to
// on_reply(i, reply) (a lost reply becomes errors[i]), and calls done() after the last.
template <class Reply, class Self, class Make, class OnReply, class Done>
void each_part(Self* self, const coallocation_ptr& c, Make make, OnReply on_reply, Done done,
               const std::vector<bool>& parts_in) {
  c->errors.assign(c->req.parts.size(), {});
  const fan_in join(static_cast<std::size_t>(std::count(parts_in.begin(), parts_in.end(), true)),
                    std::move(done));
  for (std::size_t i = 0; i < c->req.parts.size(); ++i) {
    if (!parts_in[i]) continue;
    self->request(c->services[i], caf::infinite, make(i))
        .then(
            [i, on_reply, join](Reply& r) {
              on_reply(i, r);
              join.arrived();
            },
            [c, i, join](caf::error& e) {
              c->errors[i] = msg::wire(errc::unreachable,
                                       "the cluster did not answer (" + caf::to_string(e) + ")");
              join.arrived();
            });
  }
}

}  // namespace

caf::typed_response_promise<msg::coallocate_reply> broker_state::coallocate(
    msg::coallocate_request req) {
  auto c = std::make_shared<coallocation>();
  c->client = self_->make_response_promise<msg::coallocate_reply>();
  c->req = std::move(req);
  const std::size_t n = c->req.parts.size();
  c->reply.jobs.resize(n);
  if (n == 0) {
    answer(c, msg::wire(errc::invalid_parameter, "a co-allocation needs at least one part"));
    return c->client;
  }
  if (!directory_.error.empty()) {
    answer(c, msg::wire(errc::unreachable, directory_.error));
    return c->client;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const directory_entry* e = nullptr;
    if (const auto cluster = cluster_of(c->req.parts[i].reservation_id); !cluster.empty())
      e = find_cluster(*directory_.clusters, cluster);
    if (!e) {
      answer(c, msg::wire(errc::not_found, c->part(i) + ": no such reservation"));
      return c->client;
    }
    c->services.push_back(e->service);
  }
  const std::vector<bool> all(n, true);
  auto* self = self_;

  auto undo = [self, c] {
    const msg::wire_error failure = c->first_error();
    std::vector<bool> bound(c->req.parts.size());
    for (std::size_t i = 0; i < bound.size(); ++i)
      bound[i] = !c->reply.jobs[i].empty();
    each_part<msg::ack_reply>(
        self, c,
        [c](std::size_t i) {
          return msg::unbind_jobs_request{c->req.user, c->req.parts[i].reservation_id,
                                          c->reply.jobs[i]};
        },
        [c](std::size_t i, msg::ack_reply& r) { c->errors[i] = r.error; },
        [c, failure] {
          std::string left;
          for (std::size_t i = 0; i < c->errors.size(); ++i)
            if (!c->errors[i].ok())
              left += "; " + c->part(i) + " may keep its jobs: " + c->errors[i].message;
          answer(c, {failure.code,
                     failure.message + "; the jobs the other parts took were cancelled" + left});
        },
        bound);
  };
  auto bind = [self, c, all, undo] {
    each_part<msg::query_reply>(
        self, c,
        [c](std::size_t i) {
          return msg::commit_request{c->req.user, c->req.parts[i].reservation_id,
                                     c->req.parts[i].jobs};
        },
        [c](std::size_t i, msg::query_reply& r) {
          if (r.error.ok())
            c->reply.jobs[i] = std::move(r.jobs);
          else
            c->errors[i] = r.error;
        },
        [c, undo] {
          if (c->first_error().ok())
            answer(c, {});
          else
            undo();
        },
        all);
  };
  each_part<msg::query_reply>(
      self, c,
      [c](std::size_t i) {
        return msg::query_request{c->req.user, c->req.parts[i].reservation_id};
      },
      [c](std::size_t i, msg::query_reply& r) {
        const auto s = r.info.state;
        if (!r.error.ok())
          c->errors[i] = r.error;
        else if (s != reservation_state::committed && s != reservation_state::active)
          c->errors[i] =
              msg::wire(errc::illegal_transition,
                        "is " + std::string(to_string(s)) +
                            "; jobs are co-allocated to committed or active reservations only");
      },
      [c, bind] {
        if (auto e = c->first_error(); !e.ok())
          answer(c, e);
        else
          bind();
      },
      all);
  return c->client;
}

}  // namespace arbroker
