#pragma once
// Reading a trace for an experiment. Real traces have bad records (negative status codes,
// unknown submit times, missing fields): they are left out and counted, and the counts by
// reason are printed, unless the run is strict (arb-sim --strict), when one refuses the trace.

#include <filesystem>

#include "arbroker/sim/swf.hpp"

namespace arbroker::simapp {

/// The trace at `path`; with !strict its skipped records' counts go to stderr, once per trace
/// and process (runs in parallel read the same traces).
result<sim::swf_trace> read_trace(const std::filesystem::path& path, bool strict);

}  // namespace arbroker::simapp
