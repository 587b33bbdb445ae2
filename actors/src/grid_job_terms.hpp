#pragma once

// What a grid-job request means, apart from any actor (internal to actors/): its checks, the
// clusters that may take it, and its terms on one cluster. Used by the grid-job manager
// (grid_job_manager.hpp).

#include <cstdint>
#include <string>

#include "arbroker/actors/gis.hpp"
#include "arbroker/core/grid_placement.hpp"
#include "arbroker/messages/gis_protocol.hpp"
#include "arbroker/messages/grid_job_protocol.hpp"

namespace arbroker {

/// The number n of "<node>/g<n>", or 0.
std::uint64_t serial_in(const std::string& id);

/// Which clusters may take a grid job at all, as the GIS's requirement check (satisfies, fit).
msg::gis_query eligibility(const msg::grid_submit_request& r, const std::string& owner);

/// What the request brings for its terms: walltime, benchmarks, staging (once per request;
/// the errors of msg::hints_of). Without `locality` the inputs held on a cluster (its
/// parents' outputs) are left out, so no cluster is preferred for them.
result<placement_inputs> inputs_of(const msg::grid_submit_request& r);

/// The job's terms on a cluster of the directory: execution, walltime, staging
/// (core/grid_placement.hpp).
result<placement_terms> terms_for(const placement_inputs& in, const directory_entry& c);

/// The job's spec as the request asks for it, with the walltime sent to the LRMS.
grid_job_spec spec_of(const msg::grid_submit_request& r, duration walltime);

/// What the manager checks of a request beyond the API's limits: meaning, not format (its
/// benchmarks and staging are checked by inputs_of).
status check_request(const msg::grid_submit_request& r);

}  // namespace arbroker
