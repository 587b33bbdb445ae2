#pragma once
// From an experiment's workload settings to the driver's scenario: the local jobs, and the
// jobs chosen to become elastic reservation requests.

#include <filesystem>
#include <optional>
#include <vector>

#include "arbroker/sim/swf.hpp"
#include "arbroker/simulator/scenario.hpp"
#include "config.hpp"

namespace arbroker::simapp {

/// The jobs of an experiment: the first `jobs` sound batch jobs of the trace (or all), or
/// that many jobs of the Lublin-Feitelson model for the cluster. Bad trace records are
/// skipped and counted unless `strict` (trace_reader.hpp). Submit times compressed by the
/// workload's arrival_scale.
result<std::vector<sim::swf_job>> load_jobs(const workload_config& w, int cpus,
                                            const std::filesystem::path& traces_dir, bool strict);

/// The load the jobs offer `cpus` CPUs: their CPU seconds over the CPUs times the submit span
/// (0.8: busy 80 % of the time if none waited past the last submit).
double offered_load(const std::vector<sim::swf_job>& jobs, int cpus);

/// The scenario of one run: every job not picked runs as a local job on the (one) cluster,
/// its walltime by `rule`;
/// the picked ones become requests shaped by `point`, or are left out when there is no
/// point (the baseline without reservations).
result<sim::scenario> build_scenario(const std::vector<sim::swf_job>& jobs,
                                     const std::vector<std::size_t>& picks,
                                     const sim::cluster_spec& cluster, sim::walltime_rule rule,
                                     const request_config& rc,
                                     const std::optional<grid_point>& point);

}  // namespace arbroker::simapp
