#pragma once

#include <memory>

#include "arbroker/actors/cluster_service.hpp"
#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/protocols.hpp"

namespace arbroker {

/// Starts the actor of a cluster reservation service (protocols.hpp, cluster_service_actor):
/// it hands every message to `service` and keeps one timer armed for the earliest hold
/// expiry, so that holds are released on time even when no other message arrives and no
/// coordinator is left. A handler that throws answers errc::internal (it never kills the
/// actor). The service is the actor's alone from now on. `detached`: on a thread of its own,
/// for a service whose LRMS calls block (a real batch system answers in milliseconds).
cluster_service_actor spawn_cluster_service(caf::actor_system& sys,
                                            std::shared_ptr<cluster_service> service,
                                            clock_fn clock, bool detached = false);

}  // namespace arbroker
