#pragma once
// Text output of a run: one CSV row per job and per request. Byte-identical for identical
// runs (fixed formats, input order), which the determinism test relies on.

#include <iosfwd>

#include "arbroker/simulator/driver.hpp"

namespace arbroker::sim {

/// Header: id,cluster,submit,start,end,np,wait
void write_jobs_csv(std::ostream& out, const sim_output& run);

/// Header: id,submit,ok,cluster,start,end,np,candidates,above_threshold,rejected_by_service,
/// rejected_by_lrms,error
void write_requests_csv(std::ostream& out, const sim_output& run);

}  // namespace arbroker::sim
