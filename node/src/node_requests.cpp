// Clients' requests into a running node's engine.
#include "arbroker/node/node.hpp"

#include "node_impl.hpp"

namespace arbroker {
namespace {

// A request for new reservations from a user no broker instance serves (node_config).
error no_instance(const std::string& user) {
  return {errc::permission_denied, "no broker instance of this node serves user '" + user + "'"};
}

}  // namespace

// Client requests enter the engine here: checked once (a bad one is answered at once and
// never reaches an actor), then carried inward in the engine's terms.
void node::elastic(msg::elastic_request r, callback<msg::elastic_reply> done) {
  const auto* b = impl_->broker_for(r.user);
  if (!b) return done(msg::error_reply<msg::elastic_reply>(no_instance(r.user)));
  auto c = msg::check(r);
  if (!c) return done(msg::error_reply<msg::elastic_reply>(c.err()));
  impl_->ask(*b, std::move(*c), std::move(done));
}
void node::coreserve(msg::coreservation_request r, callback<msg::coreservation_reply> done) {
  const auto* b = impl_->broker_for(r.user);
  if (!b) return done(msg::error_reply<msg::coreservation_reply>(no_instance(r.user)));
  auto c = msg::check(r);
  if (!c) return done(msg::error_reply<msg::coreservation_reply>(c.err()));
  impl_->ask(*b, std::move(*c), std::move(done));
}
namespace {

/// "reservation 'berlin/4' is cancelled: nothing to cancel", as a service says it of a
/// reservation it still has.
msg::wire_error ended(const reservation_row& row, const std::string& what) {
  return msg::wire(errc::illegal_transition, "reservation '" + row.id + "' is " +
                                                 std::string(to_string(row.state)) + ": " + what);
}

/// For a reply that shows the reservation: it as the store has it, and why `what` fails.
auto shown_as_ended(std::string what) {
  return [what = std::move(what)](msg::query_reply& out, const reservation_row& row) {
    out.info = detail::info_of(row);
    out.error = ended(row, what);
  };
}

}  // namespace

void node::commit(msg::commit_request r, callback<msg::query_reply> done) {
  impl_->about_reservation<msg::query_reply>(std::move(r), std::move(done),
                                             shown_as_ended("cannot commit"));
}
void node::cancel(msg::cancel_request r, callback<msg::ack_reply> done) {
  impl_->about_reservation<msg::ack_reply>(
      std::move(r), std::move(done), [](msg::ack_reply& out, const reservation_row& row) {
        out.error = ended(
            row, row.state == reservation_state::cancelled ? "nothing to cancel" : "cannot cancel");
      });
}
void node::modify(msg::modify_request r, callback<msg::query_reply> done) {
  impl_->about_reservation<msg::query_reply>(
      std::move(r), std::move(done),
      shown_as_ended("only a committed reservation that has not started can change"));
}
void node::query(msg::query_request r, callback<msg::query_reply> done) {
  impl_->about_reservation<msg::query_reply>(std::move(r), std::move(done),
                                             [](msg::query_reply& out, const reservation_row& row) {
                                               out = msg::query_reply{detail::info_of(row), {}, {}};
                                             });
}
void node::list(msg::list_request r, callback<msg::list_reply> done) {
  if (!r.history || !impl_->history)
    return impl_->ask(impl_->any_broker(r.user), std::move(r), std::move(done));
  auto add_page = [impl = impl_.get()](msg::list_reply rep, const msg::list_request& req,
                                       callback<msg::list_reply> reply) {
    impl->add_history_page(
        std::move(rep), &msg::list_reply::reservations,
        [impl, req](auto read) { impl->history_pages(req, std::move(read)); }, std::move(reply));
  };
  // Later pages are history only; the first has the live ones before it.
  if (!r.before.empty()) return add_page({}, r, std::move(done));
  auto live = r;
  live.history = false;  // the services keep no history when the store does
  const auto& b = impl_->any_broker(live.user);
  impl_->ask(
      b, std::move(live),
      callback<msg::list_reply>([add_page, r, done = std::move(done)](msg::list_reply rep) mutable {
        if (!rep.error.ok()) return done(std::move(rep));
        add_page(std::move(rep), r, std::move(done));
      }));
}
void node::bind_job(msg::bind_job_request r, callback<msg::bind_job_reply> done) {
  impl_->about_reservation<msg::bind_job_reply>(
      std::move(r), std::move(done), [](msg::bind_job_reply& out, const reservation_row& row) {
        out.error = ended(row, "jobs bind to committed reservations");
      });
}
// A reservation that has ended took its jobs with it: the store knows the reservation, the
// LRMS no longer the jobs. Showing or cancelling one of them answers that.
namespace {
template <class Impl, class Request>
void about_bound_job(Impl& impl, Request r, node::callback<msg::bound_job_reply> done) {
  auto id = r.job_id;
  impl.template about_reservation<msg::bound_job_reply>(
      std::move(r), std::move(done), [id](msg::bound_job_reply& out, const reservation_row& row) {
        out.job.id = id;
        out.job.reservation_id = row.id;
        out.error = ended(row, "its jobs ended with it");
      });
}
}  // namespace
void node::bound_job(msg::bound_job_query_request r, callback<msg::bound_job_reply> done) {
  about_bound_job(*impl_, std::move(r), std::move(done));
}
void node::cancel_bound_job(msg::bound_job_cancel_request r, callback<msg::bound_job_reply> done) {
  about_bound_job(*impl_, std::move(r), std::move(done));
}
void node::coallocate(msg::coallocate_request r, callback<msg::coallocate_reply> done) {
  const auto& b = impl_->any_broker(r.user);
  impl_->ask(b, std::move(r), std::move(done));
}

void node::grid_submit(msg::grid_submit_request r, callback<msg::grid_job_reply> done) {
  // A reserve job makes a reservation, so it is served as an elastic request of its user
  // would be: refused when no broker instance serves the user. The other strategies only
  // queue jobs, which the user may do in any case.
  if (r.strategy == grid_strategy::reserve && !impl_->broker_for(r.user))
    return done(msg::error_reply<msg::grid_job_reply>(no_instance(r.user)));
  impl_->ask(impl_->grid_jobs, std::move(r), std::move(done));
}
void node::grid_submit_many(msg::grid_submit_many_request r,
                            callback<msg::grid_submit_many_reply> done) {
  for (const auto& j : r.jobs)  // as grid_submit: reserve jobs only for a user brokers serve
    if (j.strategy == grid_strategy::reserve && !impl_->broker_for(r.user))
      return done(msg::error_reply<msg::grid_submit_many_reply>(no_instance(r.user)));
  impl_->ask(impl_->grid_jobs, std::move(r), std::move(done));
}
void node::grid_query(msg::grid_query_request r, callback<msg::grid_job_reply> done) {
  auto id = r.id, user = r.user;
  impl_->ask(impl_->grid_jobs, std::move(r),
             impl_->unless_ended_job(std::move(id), std::move(user), std::move(done),
                                     [](msg::grid_job_reply& rep, const msg::grid_job_record& g) {
                                       rep = {msg::info_of(g.job), {}};
                                     }));
}
void node::grid_cancel(msg::grid_cancel_request r, callback<msg::grid_job_reply> done) {
  auto id = r.id, user = r.user;
  impl_->ask(
      impl_->grid_jobs, std::move(r),
      impl_->unless_ended_job(std::move(id), std::move(user), std::move(done),
                              [](msg::grid_job_reply& rep, const msg::grid_job_record& g) {
                                rep = {msg::info_of(g.job),
                                       msg::wire(errc::illegal_transition,
                                                 "grid job " + g.job.id + " has already ended (" +
                                                     std::string(to_string(g.job.state)) + ")")};
                              }));
}
void node::grid_list(msg::grid_list_request r, callback<msg::grid_list_reply> done) {
  if (!r.history || !impl_->history)
    return impl_->ask(impl_->grid_jobs, std::move(r), std::move(done));
  // The manager's active jobs (the first page only), then a page of the store's ended ones.
  auto add_page = [impl = impl_.get()](msg::grid_list_reply rep, const msg::grid_list_request& req,
                                       callback<msg::grid_list_reply> reply) {
    impl->add_history_page(
        std::move(rep), &msg::grid_list_reply::jobs,
        [impl, req](auto read) { impl->history->ended_grid_jobs(req, std::move(read)); },
        std::move(reply));
  };
  if (!r.before.empty()) return add_page({}, r, std::move(done));
  impl_->ask(impl_->grid_jobs, r,
             callback<msg::grid_list_reply>(
                 [add_page, r, done = std::move(done)](msg::grid_list_reply rep) mutable {
                   if (!rep.error.ok()) return done(std::move(rep));
                   add_page(std::move(rep), r, std::move(done));
                 }));
}
const grid_job_counters& node::grid_counters() const noexcept {
  return *impl_->grid_counters;
}

void node::estimate(msg::estimate_request r, std::vector<std::string> clusters,
                    callback<std::vector<msg::estimate_reply>> done) {
  std::vector<std::pair<std::string, cluster_service_actor>> dests;
  if (clusters.empty()) {
    dests = impl_->services;
  } else {
    for (auto& name : clusters) {
      cluster_service_actor h;
      for (const auto& [n, a] : impl_->services)
        if (n == name) h = a;
      dests.emplace_back(std::move(name), h);
    }
  }
  impl_->gather<msg::estimate_reply>(std::move(dests), r, std::move(done));
}

void node::status(callback<std::vector<msg::cluster_status>> done) {
  impl_->gather<msg::cluster_status>(impl_->services, msg::cluster_status_request{},
                                     std::move(done));
}

std::vector<msg::cluster_status> node::status() {
  std::promise<std::vector<msg::cluster_status>> p;
  auto f = p.get_future();
  status([&p](std::vector<msg::cluster_status> s) { p.set_value(std::move(s)); });
  return f.get();
}

}  // namespace arbroker
