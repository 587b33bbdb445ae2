#include "arbroker/actors/cluster_service_actor.hpp"

#include <exception>

#include "arbroker/actors/deadline_timer.hpp"

namespace arbroker {
namespace {

// Runs a handler body; an exception becomes a typed error reply instead of killing us.
template <class F>
auto guarded(F&& body) -> decltype(body()) {
  using reply = decltype(body());
  try {
    return body();
  } catch (const std::exception& e) {
    return msg::error_reply<reply>(errc::internal, std::string("internal error: ") + e.what());
  }
}

// The same for a coordinator's call: the answer goes back with the call's tag.
template <class F>
auto tagged(msg::call_tag t, F&& body) -> caf::result<msg::call_tag, decltype(body())> {
  return {t, guarded(std::forward<F>(body))};
}

/// The actor's interface: the service's, and its own expiry timer.
using service_impl_actor = cluster_service_actor::extend<caf::reacts_to<expire_atom>>;

class cluster_service_state {
 public:
  using self_pointer = service_impl_actor::stateful_pointer<cluster_service_state>;
  static inline const char* name = "arb.cluster_service";

  explicit cluster_service_state(self_pointer self) : self_(self) {}

  service_impl_actor::behavior_type make_behavior(std::shared_ptr<cluster_service> service,
                                                  clock_fn clock) {
    service_ = std::move(service);
    clock_ = std::move(clock);
    ignore_stray_messages(self_);
    auto& svc = *service_;
    return {
        // Coordinators, tagged.
        [this, &svc](msg::call_tag t, const msg::probe_batch_request& r) {
          return tagged(t, [&] {
            msg::probe_batch_reply out;
            out.replies.reserve(r.probes.size());
            for (const auto& p : r.probes)
              out.replies.push_back(svc.probe(p, now()));
            return out;
          });
        },
        [this, &svc](msg::call_tag t, const msg::busy_hint_request& r) {
          return tagged(t, [&] { return svc.busy_hint(r, now()); });
        },
        [this, &svc](msg::call_tag t, const msg::advice_request& r) {
          return tagged(t, [&] { return svc.advise(r, now()); });
        },
        [this, &svc](msg::call_tag t, const msg::prepare_request& r) {
          return tagged(t, [&] {
            auto reply = svc.prepare(r, now());
            arm();
            return reply;
          });
        },
        [this, &svc](msg::call_tag t, const msg::commit_txn_request& r) {
          return tagged(t, [&] { return svc.commit_txn(r, now()); });
        },
        [this, &svc](msg::call_tag t, const msg::abort_txn_request& r) {
          return tagged(t, [&] { return svc.abort_txn(r, now()); });
        },
        [this, &svc](msg::call_tag t, const msg::release_txn_request& r) {
          return tagged(t, [&] { return svc.release_txn(r, now()); });
        },
        // Clients, through the broker.
        [this, &svc](const msg::commit_request& r) {
          return guarded([&] { return svc.commit(r, now()); });
        },
        [this, &svc](const msg::cancel_request& r) {
          return guarded([&] { return svc.cancel(r, now()); });
        },
        [this, &svc](const msg::modify_request& r) {
          return guarded([&] { return svc.modify(r, now()); });
        },
        [this, &svc](const msg::query_request& r) {
          return guarded([&] { return svc.query(r, now()); });
        },
        [this, &svc](const msg::list_request& r) {
          return guarded([&] { return svc.list(r, now()); });
        },
        [this, &svc](const msg::bind_job_request& r) {
          return guarded([&] { return svc.bind_job(r, now()); });
        },
        [this, &svc](const msg::estimate_request& r) {
          return guarded([&] { return svc.estimate(r, now()); });
        },
        [this, &svc](const msg::cluster_status_request&) {
          return guarded([&] { return svc.status_report(now()); });
        },
        [this, &svc](expire_atom) {
          timer_.fired();
          try {
            svc.sweep(now());
          } catch (const std::exception&) {
            // Nothing to answer; the next message or timer sweeps again.
          }
          arm();
        },
    };
  }

 private:
  timestamp now() const { return clock_(); }

  // Keeps one timer for the earliest pending expiry; a later arming for an earlier expiry
  // adds another timer (the stale one finds nothing to do).
  void arm() {
    auto next = service_->next_expiry();
    if (!next) return;
    if (auto t = timer_.arm(*next))
      self_->delayed_send(self_, delay_until(*t, now()), expire_atom::value);
  }

  self_pointer self_;
  std::shared_ptr<cluster_service> service_;
  clock_fn clock_;
  earliest_timer timer_;
};

service_impl_actor::behavior_type cluster_service_behavior(
    service_impl_actor::stateful_pointer<cluster_service_state> self,
    std::shared_ptr<cluster_service> service, clock_fn clock) {
  return self->state.make_behavior(std::move(service), std::move(clock));
}

}  // namespace

cluster_service_actor spawn_cluster_service(caf::actor_system& sys,
                                            std::shared_ptr<cluster_service> service,
                                            clock_fn clock, bool detached) {
  if (detached)
    return sys.spawn<caf::detached>(cluster_service_behavior, std::move(service), std::move(clock));
  return sys.spawn(cluster_service_behavior, std::move(service), std::move(clock));
}

}  // namespace arbroker
