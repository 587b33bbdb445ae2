#include "arbroker/actors/crs.hpp"

#include <exception>

namespace arbroker {
namespace {

using self_ptr = caf::stateful_actor<crs_state>*;

// Keeps one timer for the earliest pending expiry; a later arming for an earlier expiry
// adds another timer (the stale one finds nothing to do).
void arm(self_ptr self) {
  auto& st = self->state;
  auto next = st.service->next_expiry();
  if (!next || *next >= st.armed) return;
  st.armed = *next;
  self->delayed_send(self, delay_until(*next, st.now()), expire_atom::value);
}

// Runs a handler body; an exception becomes a typed error reply instead of killing us.
template <class Reply, class F>
Reply guarded(F&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    Reply r{};
    r.error = {static_cast<std::uint8_t>(errc::lrms_failure),
               std::string("internal error: ") + e.what()};
    return r;
  }
}

}  // namespace

caf::behavior crs_actor(self_ptr self, std::shared_ptr<cluster_service> service, clock_fn clock) {
  ignore_stray_messages(self);
  self->state.service = std::move(service);
  self->state.now = std::move(clock);
  auto& svc = *self->state.service;
  auto now = [self] { return self->state.now(); };
  return {
      [=, &svc](const msg::probe_request& r) {
        return guarded<msg::probe_reply>([&] { return svc.probe(r, now()); });
      },
      [=, &svc](std::uint64_t tag, const msg::probe_request& r) {
        return caf::make_message(tag,
                                 guarded<msg::probe_reply>([&] { return svc.probe(r, now()); }));
      },
      [=, &svc](std::uint64_t tag, const msg::prepare_request& r) {
        return caf::make_message(tag, guarded<msg::prepare_reply>([&] {
                                   auto reply = svc.prepare(r, now());
                                   arm(self);
                                   return reply;
                                 }));
      },
      [=, &svc](std::uint64_t tag, const msg::commit_request& r) {
        return caf::make_message(tag,
                                 guarded<msg::ack_reply>([&] { return svc.commit(r, now()); }));
      },
      [=, &svc](const msg::probe_batch_request& r) {
        return guarded<msg::probe_batch_reply>([&] {
          msg::probe_batch_reply out;
          out.replies.reserve(r.probes.size());
          for (const auto& p : r.probes)
            out.replies.push_back(svc.probe(p, now()));
          return out;
        });
      },
      [=, &svc](const msg::advice_request& r) {
        return guarded<msg::advice_reply>([&] { return svc.advise(r, now()); });
      },
      [=, &svc](const msg::prepare_request& r) {
        return guarded<msg::prepare_reply>([&] {
          auto reply = svc.prepare(r, now());
          arm(self);
          return reply;
        });
      },
      [=, &svc](const msg::commit_request& r) {
        return guarded<msg::ack_reply>([&] { return svc.commit(r, now()); });
      },
      [=, &svc](const msg::abort_request& r) {
        return guarded<msg::ack_reply>([&] { return svc.abort(r, now()); });
      },
      [=, &svc](const msg::cancel_request& r) {
        return guarded<msg::ack_reply>([&] { return svc.cancel(r, now()); });
      },
      [=, &svc](const msg::modify_request& r) {
        return guarded<msg::query_reply>([&] { return svc.modify(r, now()); });
      },
      [=, &svc](const msg::query_request& r) {
        return guarded<msg::query_reply>([&] { return svc.query(r, now()); });
      },
      [=, &svc](const msg::list_request& r) {
        return guarded<msg::list_reply>([&] { return svc.list(r, now()); });
      },
      [=, &svc](const msg::bind_job_request& r) {
        return guarded<msg::bind_job_reply>([&] { return svc.bind_job(r, now()); });
      },
      [=, &svc](const msg::estimate_request& r) {
        return guarded<msg::estimate_reply>([&] { return svc.estimate(r, now()); });
      },
      [=, &svc](const msg::cluster_status_request&) {
        return guarded<msg::cluster_status>([&] { return svc.status_report(now()); });
      },
      [=, &svc](expire_atom) {
        self->state.armed = time_infinity;
        try {
          svc.sweep(now());
        } catch (const std::exception&) {
          // Nothing to answer; the next message or timer sweeps again.
        }
        arm(self);
      },
  };
}

}  // namespace arbroker
