#pragma once

#include <cstddef>
#include <vector>

#include "arbroker/core/time.hpp"

namespace arbroker {

// Plain snapshots of a site's known workload, as a cluster reservation service sees it at
// the current time (paper 000, Sec. 3.2.3, method "load"). Functions that consume them
// validate them; the structs themselves carry no invariants.

/// A job currently executing: np CPUs, expected to run for `remaining` more seconds.
struct running_job {
  int np = 0;
  duration remaining = 0;

  friend bool operator==(const running_job&, const running_job&) = default;
};

/// A queued job: asks for np CPUs for at most `walltime` seconds (its wall time limit),
/// not before `not_before` (a begin time, or the worst-case end of a running job it depends
/// on; 0: none), and only after the queued jobs `after` (indices into the same queue, its
/// dependencies) have run their walltime.
struct waiting_job {
  int np = 0;
  duration walltime = 0;
  timestamp not_before = 0;
  std::vector<std::size_t> after = {};

  friend bool operator==(const waiting_job&, const waiting_job&) = default;
};

/// An accepted reservation holding np CPUs over the half-open interval [start, end).
struct reservation_span {
  timestamp start = 0;
  timestamp end = 0;
  int np = 0;

  friend bool operator==(const reservation_span&, const reservation_span&) = default;
};

}  // namespace arbroker
