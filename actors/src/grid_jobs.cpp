// The grid-job manager's actor: its handlers, its timers, and the port through which its
// state (grid_job_manager.hpp) reaches the cluster services with CAF requests.
#include "arbroker/actors/grid_jobs.hpp"

#include <chrono>

#include "directory_subscription.hpp"
#include "grid_job_manager.hpp"
#include "service_calls.hpp"

namespace arbroker {
namespace {

/// The manager's own timers: a poll round or an adaptation round is due.
using tick_atom = caf::atom_constant<caf::atom("tick")>;

/// Its own timers and flushes, and the answers to its tagged calls.
using grid_jobs_impl_actor = grid_jobs_actor::extend<
    caf::reacts_to<tick_atom, poll_atom>, caf::reacts_to<tick_atom, adapt_atom>,
    caf::reacts_to<flush_atom>, caf::reacts_to<msg::call_tag, msg::job_outlook_reply>,
    caf::reacts_to<msg::call_tag, msg::job_submit_reply>,
    caf::reacts_to<msg::call_tag, msg::job_states_reply>,
    caf::reacts_to<msg::call_tag, msg::job_cancel_reply>,
    caf::reacts_to<msg::call_tag, msg::job_find_reply>,
    caf::reacts_to<msg::call_tag, msg::prepare_reply>,
    caf::reacts_to<msg::call_tag, msg::ack_reply>>::extend_with<directory_subscriber>;

/// The operations it makes on a reservation for the job's owner (the reserve flow's bound
/// job and its release): a client's, in the services' plain dialect. Every other call is the
/// engine's own, tagged (service_calls.hpp).
template <class Request>
constexpr bool clients_operation =
    std::is_same_v<Request, msg::bind_job_request> || std::is_same_v<Request, msg::cancel_request>;

class grid_jobs_state : public grid_job_port {
 public:
  using self_pointer = grid_jobs_impl_actor::stateful_pointer<grid_jobs_state>;
  static inline const char* name = "arb.grid_jobs";

  explicit grid_jobs_state(self_pointer self) : self_(self) {}

  grid_jobs_impl_actor::behavior_type make_behavior(grid_jobs_config cfg) {
    poll_interval_ = cfg.poll_interval;
    adaptation_interval_ = cfg.adaptation_interval;
    const auto gis = cfg.gis;
    manager_ = std::make_unique<grid_job_manager>(std::move(cfg), *this);
    ignore_stray_messages(self_);
    self_->set_down_handler([this](const caf::down_msg& dm) { calls_.lost(dm.source); });
    subscribe_directory(self_, gis, manager_->directory());
    // The first rounds: recovered jobs are looked at as soon as the directory is in.
    self_->send(self_, tick_atom::value, poll_atom::value);
    if (adaptation_interval_ > 0)
      self_->delayed_send(self_, std::chrono::seconds(adaptation_interval_), tick_atom::value,
                          adapt_atom::value);
    return {
        [this](msg::grid_submit_request& r) {
          auto rp = self_->make_response_promise<msg::grid_job_reply>();
          manager_->submit(std::move(r),
                           [rp](msg::grid_job_reply rep) mutable { rp.deliver(std::move(rep)); });
          return rp;
        },
        [this](msg::grid_submit_many_request& r) {
          auto rp = self_->make_response_promise<msg::grid_submit_many_reply>();
          manager_->submit_many(std::move(r), [rp](msg::grid_submit_many_reply rep) mutable {
            rp.deliver(std::move(rep));
          });
          return rp;
        },
        [this](flush_atom) { manager_->flush(); },
        [this](const msg::grid_query_request& r) { return manager_->query(r); },
        [this](const msg::grid_cancel_request& r) { return manager_->cancel(r); },
        [this](const msg::grid_list_request& r) { return manager_->list(r); },
        [this](poll_atom) { return when_settled(manager_->poll_round()); },
        [this](adapt_atom) { return when_settled(manager_->adapt_round()); },
        [this](const msg::lrms_job_events& ev) { manager_->look_at(ev); },
        [this](msg::call_tag t, msg::job_outlook_reply& r) { calls_.complete(t, r); },
        [this](msg::call_tag t, msg::job_submit_reply& r) { calls_.complete(t, r); },
        [this](msg::call_tag t, msg::job_states_reply& r) { calls_.complete(t, r); },
        [this](msg::call_tag t, msg::job_cancel_reply& r) { calls_.complete(t, r); },
        [this](msg::call_tag t, msg::job_find_reply& r) { calls_.complete(t, r); },
        [this](msg::call_tag t, msg::prepare_reply& r) { calls_.complete(t, r); },
        [this](msg::call_tag t, msg::ack_reply& r) { calls_.complete(t, r); },
        [this](tick_atom, poll_atom) {
          manager_->poll_round();
          if (poll_interval_ > 0)
            self_->delayed_send(self_, std::chrono::seconds(poll_interval_), tick_atom::value,
                                poll_atom::value);
        },
        [this](tick_atom, adapt_atom) {
          manager_->adapt_round();
          self_->delayed_send(self_, std::chrono::seconds(adaptation_interval_), tick_atom::value,
                              adapt_atom::value);
        },
        [this](directory_atom a, std::vector<msg::cluster_info>& infos,
               std::vector<cluster_service_actor>& services) {
          directory_updates(manager_->directory())(a, infos, services);
          manager_->directory_changed();
        },
    };
  }

  // -- grid_job_port --------------------------------------------------------------------

  void call(const std::string& cluster, grid_cluster_request q,
            std::function<void(result<grid_cluster_reply>)> done) override {
    const auto& dir = manager_->directory().clusters;
    const auto* e = dir ? find_cluster(*dir, cluster) : nullptr;
    if (!e) return done(error{errc::not_found, cluster + " left the grid"});
    // One handler for the reply and the error, shared rather than copied (it may carry the
    // round's state).
    auto answer =
        std::make_shared<std::function<void(result<grid_cluster_reply>)>>(std::move(done));
    std::visit(
        [&](auto& req) {
          using R = std::decay_t<decltype(req)>;
          if constexpr (clients_operation<R>) {
            auto failed = [this, answer](caf::error& err) {
              (*answer)(
                  error{errc::unreachable, "cluster service: " + self_->system().render(err)});
            };
            self_->request(e->service, caf::infinite, std::move(req))
                .then([answer](reply_to<R>& rep) { (*answer)(grid_cluster_reply(std::move(rep))); },
                      failed);
          } else {
            calls_.call<reply_to<R>>(self_, e->service, std::move(req), [answer](reply_to<R>* rep) {
              if (!rep) return (*answer)(error{errc::unreachable, "the cluster service is gone"});
              (*answer)(grid_cluster_reply(std::move(*rep)));
            });
          }
        },
        q);
  }

  void flush_soon() override { self_->send(self_, flush_atom::value); }

 private:
  caf::typed_response_promise<std::int32_t> when_settled(std::int32_t value) {
    auto rp = self_->make_response_promise<std::int32_t>();
    manager_->when_settled(value, [rp](std::int32_t v) mutable { rp.deliver(v); });
    return rp;
  }

  self_pointer self_;
  std::unique_ptr<grid_job_manager> manager_;
  duration poll_interval_ = 0;
  duration adaptation_interval_ = 0;
  service_calls<msg::job_outlook_reply, msg::job_submit_reply, msg::job_states_reply,
                msg::job_cancel_reply, msg::job_find_reply, msg::prepare_reply, msg::ack_reply>
      calls_;
};

grid_jobs_impl_actor::behavior_type grid_jobs_behavior(
    grid_jobs_impl_actor::stateful_pointer<grid_jobs_state> self, grid_jobs_config cfg) {
  return self->state.make_behavior(std::move(cfg));
}

}  // namespace

grid_jobs_actor spawn_grid_jobs(caf::actor_system& sys, grid_jobs_config cfg) {
  return caf::actor_cast<grid_jobs_actor>(sys.spawn(grid_jobs_behavior, std::move(cfg)));
}

}  // namespace arbroker
