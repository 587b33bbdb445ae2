#pragma once

// The grid-job manager: the broker's half for best-effort jobs (core/grid_job.hpp has the
// rules, docs/grid-jobs.md the flow). One actor per node, over a plain state class
// (src/grid_job_manager.hpp). It ranks the clusters by time to delivery from one outlook per
// cluster, places copies by the job's strategy, watches them with one batched state request
// per cluster per poll interval (or when an LRMS event hook reports a change, in the
// simulator), cancels losers and duplicates, and moves queued adaptive jobs. Every change of
// a job is written to the store before the LRMS call it leads to, and every decision before
// its cancels.

#include <atomic>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/protocols.hpp"
#include "arbroker/core/grid_job.hpp"
#include "arbroker/messages/grid_job_protocol.hpp"
#include "arbroker/messages/grid_job_record.hpp"
#include "arbroker/store/journal.hpp"

namespace arbroker {

/// Asks the manager for a round of job states now (answered when the round and what it led
/// to are done, with the number of copies asked about).
using poll_atom = caf::atom_constant<caf::atom("poll")>;
/// Asks the manager for an adaptation round now (answered, once the round and the
/// migrations it started are done, with the number of queued adaptive jobs it evaluated).
using adapt_atom = caf::atom_constant<caf::atom("adapt")>;

using grid_jobs_actor = caf::typed_actor<
    caf::replies_to<msg::grid_submit_request>::with<msg::grid_job_reply>,
    caf::replies_to<msg::grid_submit_many_request>::with<msg::grid_submit_many_reply>,
    caf::replies_to<msg::grid_query_request>::with<msg::grid_job_reply>,
    caf::replies_to<msg::grid_cancel_request>::with<msg::grid_job_reply>,
    caf::replies_to<msg::grid_list_request>::with<msg::grid_list_reply>,
    caf::replies_to<poll_atom>::with<std::int32_t>, caf::replies_to<adapt_atom>::with<std::int32_t>,
    caf::reacts_to<msg::lrms_job_events>>;

/// Counts for metrics, cumulative since start; written by the manager, read by anyone.
struct grid_job_counters {
  std::atomic<std::int64_t> submitted{0}, refused{0}, copies_submitted{0}, copies_cancelled{0},
      duplicate_starts{0}, migrations{0}, migration_gain{0}, lrms_calls{0},
      lrms_call_microseconds{0};  ///< summed over the calls: mean latency = this / lrms_calls
  /// Of lrms_calls, the batched ones: outlooks (one per cluster per batch of submissions or
  /// adaptation round) and job-state requests (one per cluster per poll or LRMS event).
  std::atomic<std::int64_t> outlook_calls{0}, state_calls{0};
  /// Placements again: after infrastructure failures, after the jobs' own failures.
  std::atomic<std::int64_t> resubmits{0}, retries{0};
  /// Grid jobs the manager holds now (active, and ended within ended_in_memory), by
  /// strategy and state (indices: the enums' numbers).
  std::atomic<std::int64_t> jobs[4][6] = {};
};

struct grid_jobs_config {
  std::string node = "arb";  ///< ids are "<node>/g<n>"
  gis_actor gis;
  clock_fn clock;
  duration poll_interval = 10;        ///< 0: only when asked (poll_atom)
  duration adaptation_interval = 60;  ///< 0: only when asked (adapt_atom)
  duration default_min_gain = 0;
  std::int32_t default_max_migrations = -1;
  /// At most this share of the queued adaptive jobs an adaptation round evaluates moves in
  /// that round (at least one), those with the largest gains first: (0, 1].
  double migration_share = 0.1;
  /// Jobs that name no max_resubmits are placed again this many times after infrastructure
  /// failures.
  std::int32_t default_max_resubmits = 2;
  /// A cluster that cannot be asked about its copies (left the directory, or its LRMS
  /// unreachable) this long loses them: the jobs are placed again elsewhere. 0: at once.
  duration lost_after = 300;
  /// reserve: keep the hold that finishes first by paper 004's eq. 7 as printed (start + the
  /// site's delay) for every job, not only for those that ask (finish_by_eq7).
  bool finish_by_eq7 = false;
  /// A copy sent where its inputs are not (its input files, its parents' outputs held on
  /// other clusters) is submitted not to start before they arrived: now + their size over the
  /// cluster's bandwidth (Slurm --begin, Grid Engine -a). For a grid whose middleware moves
  /// the data while the job is queued (the simulator's); arbroker moves no files itself, so a
  /// node leaves it off and a job fetches its own inputs.
  bool hold_for_stage_in = false;
  /// Where jobs are kept (null: nowhere).
  std::shared_ptr<grid_job_journal> journal;
  /// Jobs found in the store at start (the active ones); watched again at once.
  std::vector<msg::grid_job_record> recovered;
  /// The highest id number the store knows (ended jobs included): ids go on after it.
  std::uint64_t last_serial = 0;
  /// An ended job (no copy left in any queue) stays in memory, for `list`, this long and
  /// among at most `ended_in_memory_max` ended ones (the oldest leave first); with a journal
  /// it then stays in the store for `retention` (show finds it there, node/src/history.hpp).
  duration ended_in_memory = 3600;
  std::size_t ended_in_memory_max = 10000;
  duration retention = 30 * 86400;

  /// Every ended job stays in memory: for a bounded run that reads them all at its end (the
  /// simulator, arb-stress).
  void keep_ended_jobs() {
    ended_in_memory = 100LL * 365 * 86400;
    ended_in_memory_max = std::numeric_limits<std::size_t>::max();
  }
  /// Read by metrics from any thread.
  std::shared_ptr<grid_job_counters> counters;
};

grid_jobs_actor spawn_grid_jobs(caf::actor_system& sys, grid_jobs_config cfg);

/// Loads the grid jobs recovery watches again (the active ones) from the store;
/// storage_failure naming a row that cannot be read.
result<std::vector<msg::grid_job_record>> load_grid_jobs(grid_job_journal& journal);

}  // namespace arbroker
