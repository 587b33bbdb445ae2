#pragma once

// The core's value types that travel inside messages, with their inspect() field lists (the
// same list drives CAF's serialization and the msgpack codec). The types stay in core,
// which knows nothing of wires.

#include "arbroker/core/job_requirements.hpp"
#include "arbroker/core/preference.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/core/site_adaptation.hpp"
#include "arbroker/core/slot_generation.hpp"
#include "arbroker/messages/fields.hpp"

namespace arbroker {

ARB_FIELDS(objective, x.attribute, x.descending)

ARB_FIELDS(job_shape, x.np, x.dur)

ARB_FIELDS(site_request, x.est, x.let, x.shapes)

ARB_FIELDS(probe_limits, x.tsn_max, x.tss_gap)

ARB_FIELDS(node_group, x.count, x.cpus, x.memory, x.features)

}  // namespace arbroker
