#include "client.hpp"

#include <memory>

#include "arbroker/core/reservation_state.hpp"

namespace arbroker::stress {
namespace {

using self_ptr = caf::stateful_actor<client_state>*;

void next_op(self_ptr self, std::size_t c);

// An outcome meaning "the operation goes on; it records itself when done".
constexpr std::uint8_t deferred = 255;

void record(self_ptr self, std::size_t c, op_kind kind, std::uint8_t outcome) {
  auto& st = self->state.clients[c];
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - st.started)
                      .count();
  st.report.kinds.push_back(static_cast<std::uint8_t>(kind));
  st.report.outcomes.push_back(outcome);
  st.report.latency_us.push_back(us);
  next_op(self, c);
}

void problem(self_ptr self, std::size_t c, std::string what) {
  auto& p = self->state.clients[c].report.problems;
  if (p.size() < 20) p.push_back(std::move(what));
}

// Requests `req` from the broker; `on_reply` gets the reply and returns the outcome.
template <class Reply, class Request, class F>
void ask(self_ptr self, std::size_t c, op_kind kind, Request req, F on_reply) {
  self->request(self->state.broker, caf::infinite, std::move(req))
      .then(
          [self, c, kind, on_reply](Reply& r) mutable {
            const std::uint8_t outcome = on_reply(r);
            if (outcome != deferred) record(self, c, kind, outcome);
          },
          [self, c, kind](caf::error& e) {
            problem(self, c, std::string(to_string(kind)) + ": " + self->system().render(e));
            record(self, c, kind, static_cast<std::uint8_t>(errc::unreachable));
          });
}

void run_elastic(self_ptr self, std::size_t c, const planned_op& op) {
  // `op` lives in the client's plan, which is never resized while the actor runs.
  ask<msg::elastic_reply>(
      self, c, op.kind, op.checked_elastic, [self, c, &op](msg::elastic_reply& r) {
        if (!r.error.ok()) return r.error.code;
        auto& st = self->state.clients[c];
        if (op.kind == op_kind::whatif) return std::uint8_t{0};
        const auto& res = r.reservation;
        const auto state = res.state;
        if (res.start < op.elastic.est || res.end > op.elastic.let || res.np < op.elastic.np_min ||
            res.np > op.elastic.np_max)
          problem(self, c, res.id + " outside the requested window or range");
        if (op.kind == op_kind::hold) {
          if (state != reservation_state::accepted)
            problem(self, c, res.id + " held but not accepted");
          if (op.commit_hold) {
            // Commit within the hold; an expired hold here would be a broker bug.
            auto id = res.id;
            auto terms = res;
            self->request(self->state.broker, caf::infinite,
                          msg::commit_request{op.elastic.user, id, {}})
                .then(
                    [self, c, id, terms](msg::query_reply& a) {
                      if (a.error.ok())
                        self->state.clients[c].bookings.push_back({{id}, terms, true});
                      else
                        problem(self, c, "commit of " + id + " failed: " + a.error.message);
                      record(self, c, op_kind::hold, a.error.code);
                    },
                    [self, c](caf::error& e) {
                      problem(self, c, "commit: " + self->system().render(e));
                      record(self, c, op_kind::hold, static_cast<std::uint8_t>(errc::unreachable));
                    });
            return deferred;
          }
          return std::uint8_t{0};
        }
        if (state != reservation_state::committed)
          problem(self, c, res.id + " reserved but not committed");
        st.bookings.push_back({{res.id}, res, true});
        return std::uint8_t{0};
      });
}

void run_coreserve(self_ptr self, std::size_t c, const planned_op& op) {
  ask<msg::coreservation_reply>(
      self, c, op.kind, op.checked_coreservation, [self, c, &op](msg::coreservation_reply& r) {
        if (!r.error.ok()) return r.error.code;
        const auto k = op.coreservation.components.size();
        if (r.parts.size() != k)
          problem(self, c,
                  "co-reservation with " + std::to_string(r.parts.size()) + " of " +
                      std::to_string(k) + " parts");
        client_state::booking b;
        b.elastic = false;
        for (const auto& p : r.parts) {
          if (p.start != r.parts.front().start)
            problem(self, c, p.id + " does not start with its co-parts");
          b.ids.push_back(p.id);
        }
        self->state.clients[c].bookings.push_back(std::move(b));
        return std::uint8_t{0};
      });
}

void run_cancel(self_ptr self, std::size_t c, const planned_op& op) {
  auto& st = self->state.clients[c];
  if (st.bookings.empty()) return record(self, c, op.kind, 0);  // nothing to cancel
  auto b = st.bookings.front();
  st.bookings.pop_front();
  // Cancel every part of the booking, one after the other; the outcome is the last one's.
  auto ids = std::make_shared<std::vector<std::string>>(b.ids);
  auto user = op.elastic.user;
  auto step = std::make_shared<std::function<void(std::size_t, std::uint8_t)>>();
  *step = [self, c, ids, user, step, kind = op.kind](std::size_t i, std::uint8_t outcome) {
    if (i == ids->size()) return record(self, c, kind, outcome);
    self->request(self->state.broker, caf::infinite, msg::cancel_request{user, (*ids)[i]})
        .then(
            [self, c, ids, step, i](msg::ack_reply& a) {
              if (!a.error.ok()) {
                problem(self, c, "cancel of my own " + (*ids)[i] + ": " + a.error.message);
                self->state.clients[c].report.live.push_back((*ids)[i]);  // still mine
              }
              (*step)(i + 1, a.error.code);
            },
            [self, step, i](caf::error&) {
              (*step)(i + 1, static_cast<std::uint8_t>(errc::unreachable));
            });
  };
  (*step)(0, 0);
}

void run_modify(self_ptr self, std::size_t c, const planned_op& op) {
  auto& st = self->state.clients[c];
  auto it = std::find_if(st.bookings.rbegin(), st.bookings.rend(),
                         [](const client_state::booking& b) { return b.elastic; });
  if (it == st.bookings.rend()) return record(self, c, op.kind, 0);
  auto& b = *it;
  msg::modify_request m{op.elastic.user,   b.ids.front(), b.terms.start + 300,
                        b.terms.end + 300, b.terms.np,    true};
  const std::size_t index =
      static_cast<std::size_t>(std::distance(st.bookings.begin(), it.base()) - 1);
  ask<msg::query_reply>(self, c, op.kind, m, [self, c, index](msg::query_reply& r) {
    auto& bookings = self->state.clients[c].bookings;
    if (r.error.ok() && index < bookings.size()) bookings[index].terms = r.info;
    return r.error.code;
  });
}

void run_grid(self_ptr self, std::size_t c, const planned_op& op) {
  self->request(self->state.grid, caf::infinite, op.grid)
      .then(
          [self, c, &op](msg::grid_job_reply& r) {
            if (r.error.ok()) {
              const auto copies = r.job.copies.size();
              const auto want = op.grid.strategy == grid_strategy::flood
                                    ? static_cast<std::size_t>(op.grid.width)
                                    : std::size_t{1};
              if (copies < 1 || copies > want)
                problem(self, c, r.job.id + " placed " + std::to_string(copies) + " copies");
              self->state.clients[c].report.grid_jobs.push_back(r.job.id);
            }
            record(self, c, op.kind, r.error.code);
          },
          [self, c, kind = op.kind](caf::error& e) {
            problem(self, c, "grid job: " + self->system().render(e));
            record(self, c, kind, static_cast<std::uint8_t>(errc::unreachable));
          });
}

void next_op(self_ptr self, std::size_t c) {
  auto& st = self->state.clients[c];
  if (st.next >= st.ops.size()) {
    for (const auto& b : st.bookings)
      for (const auto& id : b.ids)
        st.report.live.push_back(id);
    self->send(self->state.collector, std::move(st.report));
    if (--self->state.running == 0) self->quit();
    return;
  }
  const planned_op& op = st.ops[st.next++];
  st.started = std::chrono::steady_clock::now();
  switch (op.kind) {
    case op_kind::reserve:
    case op_kind::hold:
    case op_kind::whatif:
      return run_elastic(self, c, op);
    case op_kind::coreserve:
      return run_coreserve(self, c, op);
    case op_kind::cancel:
      return run_cancel(self, c, op);
    case op_kind::modify:
      return run_modify(self, c, op);
    case op_kind::grid_flood:
    case op_kind::grid_adaptive:
    case op_kind::grid_reserve:
      return run_grid(self, c, op);
  }
}

}  // namespace

caf::behavior client_actor(self_ptr self, broker_actor broker, grid_jobs_actor grid,
                           caf::actor collector, std::int32_t first_id,
                           std::vector<std::vector<planned_op>> plans) {
  auto& st = self->state;
  st.broker = std::move(broker);
  st.grid = std::move(grid);
  st.collector = std::move(collector);
  st.clients.resize(plans.size());
  for (std::size_t i = 0; i < plans.size(); ++i) {
    st.clients[i].ops = std::move(plans[i]);
    st.clients[i].report.client = first_id + static_cast<std::int32_t>(i);
  }
  st.running = st.clients.size();
  return {[self](start_atom) {
    if (self->state.clients.empty()) return self->quit();
    for (std::size_t c = 0; c < self->state.clients.size(); ++c)
      next_op(self, c);
  }};
}

caf::behavior launcher_actor(caf::event_based_actor* self, broker_actor broker,
                             grid_jobs_actor grid, caf::actor collector,
                             std::vector<std::vector<planned_op>> plans, std::size_t per_actor) {
  auto state = std::make_shared<std::pair<std::vector<std::vector<planned_op>>, std::size_t>>(
      std::move(plans), 0);
  per_actor = std::max<std::size_t>(per_actor, 1);
  return {[=](start_atom) {
    auto& [all, next] = *state;
    // At most 500 actors per batch, then a turn for everyone else.
    for (int spawned = 0; spawned < 500 && next < all.size(); ++spawned) {
      const std::size_t end = std::min(all.size(), next + per_actor);
      std::vector<std::vector<planned_op>> mine;
      for (std::size_t i = next; i < end; ++i)
        mine.push_back(std::move(all[i]));
      auto c = self->spawn(client_actor, broker, grid, collector, static_cast<std::int32_t>(next),
                           std::move(mine));
      self->send(c, start_atom::value);
      next = end;
    }
    if (next < all.size())
      self->send(self, start_atom::value);
    else
      self->quit();
  }};
}

}  // namespace arbroker::stress
