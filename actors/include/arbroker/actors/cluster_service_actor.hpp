#pragma once

#include <memory>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/protocols.hpp"

namespace arbroker {

/// How a cluster service's actor runs.
struct cluster_service_options {
  /// On a thread of its own, for a service whose LRMS calls block (a real batch system
  /// answers in milliseconds).
  bool detached = false;
  /// The periodic full reads of the LRMS beside the service, on a thread of their own, while
  /// it goes on serving from its view (lrms_view.hpp, "Reads aside"); inline otherwise, as a
  /// simulation needs them (its runs must not depend on the threads' timing).
  bool reads_aside = true;
};

/// Starts the actor of a cluster reservation service (protocols.hpp, cluster_service_actor):
/// it hands every message to `service` and keeps one timer armed for the earliest hold
/// expiry, so that holds are released on time even when no other message arrives and no
/// coordinator is left. A handler that throws answers errc::internal (it never kills the
/// actor). The service is the actor's alone from now on.
cluster_service_actor spawn_cluster_service(caf::actor_system& sys,
                                            std::shared_ptr<cluster_service> service,
                                            clock_fn clock, cluster_service_options options = {});

}  // namespace arbroker
