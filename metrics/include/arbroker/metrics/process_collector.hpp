#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace arbroker::metrics {

/// What /proc says about a process, in the units of the exported metrics.
struct process_sample {
  double cpu_seconds = 0;  ///< user + system
  double virtual_bytes = 0;
  double resident_bytes = 0;
  double start_time = 0;  ///< seconds since the epoch
  double threads = 0;
};

/// Parses the one line of /proc/<pid>/stat (proc(5)): the command name in parentheses may
/// hold spaces and parentheses, so fields are counted after its last ')'. `boot_time` is
/// /proc/stat's btime. nullopt for a line that does not have the fields.
std::optional<process_sample> parse_proc_stat(std::string_view line, long ticks_per_second,
                                              long page_bytes, double boot_time);

/// The standard process metrics of Prometheus client libraries, read from /proc/self at each
/// scrape: process_cpu_seconds_total, process_resident_memory_bytes,
/// process_virtual_memory_bytes, process_start_time_seconds, process_open_fds,
/// process_max_fds, process_threads. prometheus-cpp 1.0 has no such collector.
class process_collector : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace arbroker::metrics
