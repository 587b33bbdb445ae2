#include "arbroker/actors/cluster_service_actor.hpp"

#include <exception>
#include <functional>
#include <map>
#include <memory>

#include "arbroker/actors/deadline_timer.hpp"

// A full read made aside, and the view to drop after it: in-process only, never serialized.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<arbroker::lrms_view::read_aside>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<arbroker::capacity_view>)

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

using read_aside_atom = caf::atom_constant<caf::atom("readaside")>;
using read_aside_ptr = std::shared_ptr<lrms_view::read_aside>;

/// The actor's interface: the service's, its own expiry timer, the journal's word that
/// writes are durable (the ticket, and why not when they never will be), and a full read
/// of the LRMS made aside, done.
using service_impl_actor =
    cluster_service_actor::extend<caf::reacts_to<expire_atom>,
                                  caf::reacts_to<durable_atom, write_ticket, std::string>,
                                  caf::reacts_to<read_aside_atom, read_aside_ptr>>;

// Runs a full read aside on a thread of its own and hands it to the service; then drops the
// view the service hands back (the one the read replaced, or the read's own when it was
// dropped), or quits when the service is gone.
caf::behavior read_aside_worker(caf::event_based_actor* self, read_aside_ptr read,
                                service_impl_actor service) {
  self->monitor(service);
  self->set_down_handler([self](caf::down_msg&) { self->quit(); });
  read->run();
  self->send(service, read_aside_atom::value, std::move(read));
  return {
      [self](read_aside_atom, std::shared_ptr<capacity_view>& dropped) {
        dropped.reset();
        self->quit();
      },
  };
}

class cluster_service_state {
 public:
  using self_pointer = service_impl_actor::stateful_pointer<cluster_service_state>;
  static inline const char* name = "arb.cluster_service";

  explicit cluster_service_state(self_pointer self) : self_(self) {}

 private:  // (the handlers' makers come first: make_behavior deduces their types)
  // The handler of a tagged call (a coordinator's, the grid-job manager's): the service's
  // answer goes back with the call's tag.
  // A hold a call made is due to expire some time: the timer is armed after each.
  template <class Request, class Reply>
  auto call(Reply (cluster_service::*op)(const Request&, timestamp)) {
    return [this, op](msg::call_tag t, const Request& r) -> caf::result<msg::call_tag, Reply> {
      auto reply = guarded([&] { return (*service_.*op)(r, now()); });
      arm();
      read_aside();
      return when_written(std::move(reply), t);
    };
  }

  // The handler of a client's operation (a bound job may be due to be looked at: the timer
  // is armed after each as well).
  template <class Request, class Reply>
  auto serve(Reply (cluster_service::*op)(const Request&, timestamp)) {
    return [this, op](const Request& r) -> caf::result<Reply> {
      auto reply = guarded([&] { return (*service_.*op)(r, now()); });
      arm();
      read_aside();
      return when_written(std::move(reply));
    };
  }

  // The service's answer (after `tag...`, a call's tag): at once when it wrote nothing for
  // it, else once what it wrote is durable (write, then answer), or a storage failure.
  template <class Reply, class... Tag>
  caf::result<Tag..., Reply> when_written(Reply reply, Tag... tag) {
    const write_ticket ticket = service_->take_unsynced();
    if (ticket == 0) return {tag..., std::move(reply)};
    auto rp = self_->template make_response_promise<Tag..., Reply>();
    after_sync(ticket, [rp, tag..., reply = std::move(reply)](const status& ok) mutable {
      if (ok)
        rp.deliver(tag..., std::move(reply));
      else
        rp.deliver(tag..., msg::error_reply<Reply>(errc::storage_failure, ok.err().message));
    });
    return rp;
  }

  // Keeps an answer until the journal says the writes up to `ticket` are durable. The
  // journal calls back on its own thread; the word comes here as a message.
  void after_sync(write_ticket ticket, std::function<void(const status&)> deliver) {
    awaiting_.emplace(ticket, std::move(deliver));
    service_->journal()->when_durable(
        ticket, [me = caf::actor_cast<service_impl_actor>(self_), ticket](status ok) {
          caf::anon_send(me, durable_atom::value, ticket, ok ? std::string() : ok.err().message);
        });
  }

  void synced(write_ticket ticket, const std::string& failure) {
    const status ok = failure.empty() ? status{} : status{error{errc::storage_failure, failure}};
    const auto end = awaiting_.upper_bound(ticket);
    for (auto it = awaiting_.begin(); it != end; ++it)
      it->second(ok);
    awaiting_.erase(awaiting_.begin(), end);
  }

 public:
  service_impl_actor::behavior_type make_behavior(std::shared_ptr<cluster_service> service,
                                                  clock_fn clock) {
    service_ = std::move(service);
    clock_ = std::move(clock);
    ignore_stray_messages(self_);
    arm();  // what recovery left due (overrun looks of active reservations) needs no message
    auto& svc = *service_;
    return {
        // Coordinators, tagged.
        call(&cluster_service::probe_batch),
        call(&cluster_service::busy_hint),
        call(&cluster_service::advise),
        call(&cluster_service::prepare),
        call(&cluster_service::commit_txn),
        call(&cluster_service::abort_txn),
        call(&cluster_service::release_txn),
        // Clients, through the broker.
        serve(&cluster_service::commit),
        serve(&cluster_service::cancel),
        serve(&cluster_service::modify),
        serve(&cluster_service::query),
        serve(&cluster_service::list),
        serve(&cluster_service::bind_job),
        serve(&cluster_service::unbind_jobs),
        serve(&cluster_service::bound_job),
        serve(&cluster_service::cancel_bound_job),
        serve(&cluster_service::estimate),
        serve(&cluster_service::status_report),
        // The grid-job manager, tagged.
        call(&cluster_service::submit_job),
        call(&cluster_service::job_states),
        call(&cluster_service::cancel_job),
        call(&cluster_service::find_jobs),
        call(&cluster_service::job_outlook),
        [this, &svc](expire_atom) {
          timer_.fired();
          try {
            svc.sweep(now());
          } catch (const std::exception&) {
            // Nothing to answer; the next message or timer sweeps again.
          }
          (void)svc.take_unsynced();  // expiries answer nobody: no reply waits for them
          arm();
          read_aside();
        },
        [this](durable_atom, write_ticket ticket, const std::string& failure) {
          synced(ticket, failure);
        },
        [this, &svc](read_aside_atom, read_aside_ptr& read) {
          try {
            svc.end_read_aside(*read, now());
          } catch (const std::exception&) {
            // The view stays as it was; the next full read is due at once.
          }
          // The view to drop goes back to the worker's thread to be freed there.
          auto dropped = read->take_dropped();
          read.reset();
          if (auto worker = caf::actor_cast<caf::actor>(self_->current_sender()))
            caf::anon_send(worker, read_aside_atom::value, std::move(dropped));
          arm();
        },
    };
  }

 private:
  timestamp now() const { return clock_(); }

  // The full read of the LRMS due now, if any, begun here and run beside us (lrms_view.hpp).
  void read_aside() {
    read_aside_ptr read;
    try {
      read = service_->begin_read_aside(now());
    } catch (const std::exception&) {
      return;  // the next message tries again
    }
    if (read)
      self_->spawn<caf::detached>(read_aside_worker, std::move(read),
                                  caf::actor_cast<service_impl_actor>(self_));
  }

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
  /// Answers waiting for the journal, by the ticket of the last write they depend on.
  std::multimap<write_ticket, std::function<void(const status&)>> awaiting_;
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
                                            clock_fn clock, cluster_service_options options) {
  if (options.reads_aside) service->allow_reads_aside();
  if (options.detached)
    return sys.spawn<caf::detached>(cluster_service_behavior, std::move(service), std::move(clock));
  return sys.spawn(cluster_service_behavior, std::move(service), std::move(clock));
}

}  // namespace arbroker
