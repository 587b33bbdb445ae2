#pragma once

#include <string>

#include "arbroker/actors/broker_config.hpp"
#include "arbroker/actors/protocols.hpp"

namespace arbroker {

/// Starts the grid reservation service, the broker (protocols.hpp, broker_actor). Elastic
/// requests go in turn to a pool of `elastic_workers` long-lived coordinators that run the 8
/// steps of paper 000 Sec. 2.2, or, when they name a matchmaking policy, to its one
/// matchmaker; co-reservations go in turn to `coreservation_workers` coordinators that run
/// two-phase commit. The broker keeps every request's deadline and answers the client
/// itself (errc::internal) if a coordinator dies first; a dead coordinator is replaced.
/// Operations on an existing reservation ("<cluster>/<n>") go to that cluster's service,
/// which answers the client; a cluster the GIS does not know answers not_found. The broker
/// subscribes to the GIS's directory at start and serves nothing before the first copy has
/// arrived; afterwards no request costs a round trip to the GIS.
broker_actor spawn_broker(caf::actor_system& sys, broker_config cfg);

/// The cluster part of a reservation id "<cluster>/<n>" (empty if there is none).
std::string cluster_of(const std::string& reservation_id);

}  // namespace arbroker
