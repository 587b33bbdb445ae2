#pragma once

// What a job needs of the nodes it runs on besides CPUs (memory, node features, an OS), and
// what a cluster offers: groups of alike nodes, as Slurm's slurm.conf names them (CPUs,
// RealMemory, Features) or Grid Engine's hosts and boolean complexes. A job is placed only
// where enough CPUs meet its needs; the LRMS is told the same needs, so it runs the job on
// the right nodes (docs/grid-jobs.md, "Requirements").
//
// Complexity: usable_cpus() and unmet() are linear in the groups times the features.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arbroker/core/error.hpp"

namespace arbroker {

/// A job's needs. Memory in MiB (Slurm's unit for --mem and --mem-per-cpu); 0: none.
struct job_requirements {
  std::int64_t mem_per_cpu = 0;            ///< at least this much memory for each of its CPUs ...
  std::int64_t mem_per_node = 0;           ///< ... or on each node it uses (not both, as in Slurm)
  std::vector<std::string> features = {};  ///< every node it uses has all of them
  std::string os = {};                     ///< the cluster's OS ("" = any); a cluster-wide property
  bool any() const noexcept {
    return mem_per_cpu > 0 || mem_per_node > 0 || !features.empty() || !os.empty();
  }
  friend bool operator==(const job_requirements&, const job_requirements&) = default;
};

/// The largest memory a requirement may name: 1 PiB in MiB.
inline constexpr std::int64_t max_memory_mib = std::int64_t{1} << 30;

/// A memory size as Slurm writes one: "4096" (MiB), "512K" (rounded up to whole MiB), "512M",
/// "16G", "2T" (binary units, lower case too). invalid_parameter saying why otherwise.
result<std::int64_t> parse_memory_mib(std::string_view text);

/// invalid_parameter naming the field for negative or oversized memory, both memory fields
/// set, an empty or repeated feature.
status check(const job_requirements& r);

/// `count` nodes of `cpus` CPUs and `memory` MiB each, all with `features`.
struct node_group {
  std::int32_t count = 1;
  std::int32_t cpus = 1;
  std::int64_t memory = 0;  ///< MiB per node; 0: not known (memory needs are not checked)
  std::vector<std::string> features = {};
  friend bool operator==(const node_group&, const node_group&) = default;
};

/// invalid_parameter saying what is wrong with a group a cluster publishes: count or cpus
/// below 1, memory outside 0..max_memory_mib, an empty feature. (Feature names are the
/// batch system's, so their characters are not checked.)
status check(const node_group& g);

/// CPUs of `nodes` a job with needs `r` can use: of each node that has every feature and the
/// memory per node, as many CPUs as its memory holds at mem_per_cpu each.
std::int64_t usable_cpus(const std::vector<node_group>& nodes, const job_requirements& r);

/// What a cluster publishes about its nodes.
struct node_offer {
  std::string os;
  std::vector<std::string> features;  ///< of the cluster (of some node, when `nodes` is given)
  std::vector<node_group> nodes;      ///< empty: not published
};

/// Why a job of `np` CPUs with needs `r` cannot run on a cluster offering `o` ("" when it
/// can). With `every_node` (a job in a reservation, whose CPUs the LRMS picks by count
/// alone) each node must meet the needs for all its CPUs. Without published nodes the
/// features are checked against the cluster's and memory is left to the LRMS.
std::string unmet(const node_offer& o, const job_requirements& r, std::int32_t np,
                  bool every_node = false);

}  // namespace arbroker
