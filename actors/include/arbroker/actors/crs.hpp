#pragma once

#include <memory>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/actors/engine.hpp"

namespace arbroker {

/// The cluster reservation service actor: forwards every cluster protocol message to its
/// cluster_service and keeps one timer armed for the earliest hold expiry, so that holds
/// are released on time even when no other message arrives and no coordinator is left.
/// Handlers never let an exception escape (it would kill the actor): an internal error is
/// answered as errc::lrms_failure.
///
/// Probe, prepare and commit also come tagged, `(tag, request)`, sent as ordinary messages
/// and answered `(tag, reply)`: coordinators with thousands of calls in flight (the
/// broker's elastic workers) match answers to calls themselves, because CAF 0.17 keeps an
/// actor's awaited responses in a flat map that it searches linearly (tagged_calls.hpp).
struct crs_state {
  std::shared_ptr<cluster_service> service;
  clock_fn now;
  timestamp armed = time_infinity;  ///< expiry the pending timer is for
  static inline const char* name = "arb.crs";
};

caf::behavior crs_actor(caf::stateful_actor<crs_state>* self,
                        std::shared_ptr<cluster_service> service, clock_fn clock);

}  // namespace arbroker
