#pragma once

// The co-allocation step of paper 002 (Sec. 3, the co-allocation agent): the tasks of a
// co-reservation are started in every one of its parts, all or nothing. See
// docs/protocol.md, "coallocate".

#include <string>
#include <vector>

#include "arbroker/messages/cluster_protocol.hpp"
#include "arbroker/messages/fields.hpp"
#include "arbroker/messages/wire_error.hpp"

namespace arbroker::msg {

/// The jobs to start inside one part (a reservation id as the co-reservation reply gave it).
struct coallocation_part {
  std::string reservation_id;
  std::vector<job_terms> jobs;
  friend bool operator==(const coallocation_part&, const coallocation_part&) = default;
};
ARB_FIELDS(coallocation_part, x.reservation_id, x.jobs)

/// Binds every part's jobs, or none: each part must be the caller's and committed (or
/// active); if any job of any part cannot be submitted, the jobs already submitted on the
/// other parts are cancelled and the error names the part and the job.
struct coallocate_request {
  std::string user;
  std::vector<coallocation_part> parts;
  friend bool operator==(const coallocate_request&, const coallocate_request&) = default;
};
ARB_FIELDS(coallocate_request, x.user, x.parts)

/// The LRMS ids of the jobs, per part and in request order (empty on error).
struct coallocate_reply {
  std::vector<std::vector<std::string>> jobs;
  wire_error error;
  friend bool operator==(const coallocate_reply&, const coallocate_reply&) = default;
};
ARB_FIELDS(coallocate_reply, x.jobs, x.error)

}  // namespace arbroker::msg
