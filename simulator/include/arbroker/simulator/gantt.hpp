#pragma once
// The layout of a Gantt chart: a cluster's jobs and reservations placed on CPU rows.

#include <cstdint>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/simulator/driver.hpp"

namespace arbroker::sim {

enum class gantt_kind : std::uint8_t { job = 1, reservation = 2 };

/// One rectangle: CPU rows [row_begin, row_end) over [start, end), clipped to the interval.
/// An item on non-adjacent rows gives several boxes.
struct gantt_box {
  timestamp start = 0;
  timestamp end = 0;
  int row_begin = 0;
  int row_end = 0;
  gantt_kind kind = gantt_kind::job;
  std::int64_t id = 0;
  friend bool operator==(const gantt_box&, const gantt_box&) = default;
};

/// Lays out every started job and granted reservation of `cluster` over the whole run
/// (in start order, ends before starts at one instant, lowest free rows first) and returns
/// the boxes that overlap [from, to). A job is one box from its first start to its end, so
/// a restartable job that was paused is drawn over its pause (and such a run may be refused
/// as overbooked). invalid_parameter if more than `cpus` CPUs are ever
/// in use at once (which the LRMS never allows).
result<std::vector<gantt_box>> gantt_layout(const sim_output& run, int cluster, int cpus,
                                            timestamp from, timestamp to);

}  // namespace arbroker::sim
