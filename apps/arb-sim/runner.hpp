#pragma once
// Running experiments: options shared by all, one entry point per experiment kind.

#include <filesystem>

#include "arbroker/core/error.hpp"
#include "config.hpp"

namespace arbroker::simapp {

struct run_options {
  std::filesystem::path out_dir;     ///< the experiment writes into out_dir/<name>/
  std::filesystem::path traces_dir;  ///< where workload.trace is looked up
  unsigned threads = 1;              ///< independent runs in parallel (output unaffected)
  bool plots = true;                 ///< run gnuplot (the .gp scripts are written anyway)
  bool progress = false;             ///< progress bar with ETA on stderr
  bool strict = false;               ///< a bad trace record refuses the trace (else: skipped)
};

/// Paper 000 Sec. 4: the grid, Fig. 6, Fig. 7, the waiting-time table, Fig. 8, a Gantt chart.
status run_paper000(const paper000_config& c, const run_options& opt);

/// Paper 001 Sec. 4: MWT, MOT, utilization and rejections per reservation share.
status run_paper001(const paper001_config& c, const run_options& opt);

/// Paper 002 Sec. 4-5: W_R, U, Q, P_b, R_AR, R_OD per matchmaking policy, laxity and PAR,
/// with 95 % confidence intervals over the repetitions.
status run_paper002(const paper002_config& c, const run_options& opt);

/// Paper 004 Sec. IV-D: ESE accuracy ac and ranking correctness per overestimate.
status run_paper004(const paper004_config& c, const run_options& opt);

/// Experiment 5 (ours): grid-job strategies over clusters replaying different traces.
status run_grid5(const grid5_config& c, const run_options& opt);

/// One long replay (performance runs): summary CSV, progress by simulated time.
status run_replay(const replay_config& c, const run_options& opt);

}  // namespace arbroker::simapp
