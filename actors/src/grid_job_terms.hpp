#pragma once

// What a grid-job request means, apart from any actor (internal to actors/): its checks, the
// clusters that may take it, and its terms on one cluster. Used by the grid-job manager
// (grid_jobs.cpp).

#include <cstdint>
#include <string>

#include "arbroker/core/grid_placement.hpp"
#include "arbroker/messages/gis_protocol.hpp"
#include "arbroker/messages/grid_job_protocol.hpp"

namespace arbroker {

/// The number n of "<node>/g<n>", or 0.
std::uint64_t serial_in(const std::string& id);

/// Which clusters may take a grid job at all, as the GIS's requirement check (satisfies, fit).
msg::gis_query eligibility(const msg::grid_submit_request& r, const std::string& owner);

/// The job's terms on a cluster: execution, walltime, staging (core/grid_placement.hpp).
result<placement_terms> terms_for(const msg::grid_submit_request& r, const msg::cluster_info& c);

/// What the manager checks of a request beyond the API's limits: meaning, not format.
status check_request(const msg::grid_submit_request& r);

}  // namespace arbroker
