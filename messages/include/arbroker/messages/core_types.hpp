#pragma once

// The core's value types that travel inside messages, with their inspect() field lists (the
// same list drives CAF's serialization and the msgpack codec). The types stay in core,
// which knows nothing of wires.

#include "arbroker/core/preference.hpp"
#include "arbroker/core/request.hpp"
#include "arbroker/core/site_adaptation.hpp"
#include "arbroker/core/slot_generation.hpp"

namespace arbroker {

template <class Inspector>
auto inspect(Inspector& f, objective& x) {
  return f(x.attribute, x.descending);
}

template <class Inspector>
auto inspect(Inspector& f, job_shape& x) {
  return f(x.np, x.dur);
}

template <class Inspector>
auto inspect(Inspector& f, site_request& x) {
  return f(x.est, x.let, x.shapes);
}

template <class Inspector>
auto inspect(Inspector& f, probe_limits& x) {
  return f(x.tsn_max, x.tss_gap);
}

}  // namespace arbroker
