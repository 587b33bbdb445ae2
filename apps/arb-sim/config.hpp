#pragma once
// Experiment configurations (configs/experiments/*.toml) as plain structs.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/sim/sound_jobs.hpp"
#include "arbroker/sim/walltime_rule.hpp"
#include "arbroker/simulator/scenario.hpp"

namespace arbroker::simapp {

/// The simulator's cluster policy with the admission rule (Local Jobs Preferred) given.
inline cluster_policy with_ljp(ljp_policy ljp, ljp_method method) {
  cluster_policy p = sim::simulated_policy();
  p.ljp = ljp;
  p.ljp_check = method;
  return p;
}

/// Where the local jobs come from.
struct workload_config {
  std::string source = "swf";  ///< "swf" (a trace) or "lublin" (the model)
  std::string trace;           ///< swf: file name, relative to the traces directory
  std::size_t jobs = 0;        ///< how many sound batch jobs (0: all)
  sim::soundness rule = sim::soundness::strict;
  /// How trace walltimes are set (sim/walltime_rule.hpp): extend, or kill jobs at their request.
  sim::walltime_rule walltime = sim::walltime_rule::extend;
  std::uint64_t seed = 1;  ///< lublin: generator seed
  int model_procs = 0;     ///< lublin: machine size of the model (0: the cluster's)
  /// Inter-arrival times divided by this (> 1: the same jobs offered faster, a heavier load).
  double arrival_scale = 1;
};

/// The transformation of chosen jobs into elastic requests, and the request's knobs.
struct request_config {
  std::size_t group_size = 10;  ///< one job per group becomes a request
  std::uint64_t pick_seed = 1;
  std::string prefer = "end,cost,-esr";
  double esr_threshold = 0.85;
  int tsn_max = 8;
  duration tss_gap = 600;
};

/// One point of the experiment grid (paper 000 Sec. 4).
struct grid_point {
  double book_ahead_h = 0;
  double time_range_h = 0;
  double np_min_factor = 1;
  double np_max_factor = 1;
  std::string esr = "load";
  std::string key() const;       ///< e.g. "ba2_k10_p1-1_load"
  std::string describe() const;  ///< for people: "book-ahead 2 h, time range 10 h, ..."
  friend bool operator==(const grid_point&, const grid_point&) = default;
};

struct gantt_config {
  grid_point run;
  double from_h = 0;  ///< interval, hours after the first submit
  double to_h = 48;
};

/// A trace on one cluster, a share of its jobs turned into reservations: what paper 000's
/// experiment and the replay of a whole trace share.
struct trace_experiment {
  std::string name;
  workload_config workload;
  sim::cluster_spec cluster;
  request_config request;
};

/// Paper 000 Sec. 4: a trace experiment over a parameter grid.
struct paper000_config : trace_experiment {
  std::vector<double> book_ahead_h;
  std::vector<double> time_range_h;
  std::vector<std::pair<double, double>> np_factors;
  std::vector<std::string> esr_methods;
  grid_point fig6;   ///< esr and factors of Fig. 6 (book-ahead and range vary)
  grid_point fig7;   ///< book-ahead, range and factors of Fig. 7 (esr varies)
  grid_point table;  ///< range, esr and factors of the waiting-time table and Fig. 8
  std::optional<gantt_config> gantt;
  // The paper's numbers, printed beside ours.
  std::vector<double> paper_waits;  ///< per book_ahead_h of the table
  double paper_baseline_wait = -1;
  std::vector<double> paper_fig7;  ///< successes per esr method
};

/// Replay of a whole trace with a share of the jobs turned into requests (performance).
struct replay_config : trace_experiment {
  grid_point point;
};

/// Paper 001 Sec. 4 (GridSim): independent sequential jobs on a few resources of different
/// SPEC ratings; a share of them become advance reservations (non-restartable: the
/// reservation is the run time times an overestimate; what is left unused stays reserved).
struct paper001_resource {
  std::string name;
  int cpus = 1;
  double rating = 1;  ///< SPEC rating, MIPS: run time = MI / rating seconds
  int tz_h = 0;       ///< GMT offset (informational; no time-of-day effect modelled)
};

struct paper001_config {
  std::string name;
  std::vector<paper001_resource> resources;
  std::size_t users = 50;
  std::size_t jobs_per_user = 100;
  double mi_min = 500000;
  double mi_max = 8000000;
  double jobs_per_minute = 5;
  double max_arrival_min = 500;  ///< no job arrives after this (0: all users' jobs)
  std::uint64_t seed = 1;
  std::vector<double> shares;  ///< fractions of jobs that are reservations, e.g. 0, 0.1, 0.2
  double overestimate = 1.5;   ///< reservation length / run time (non-restartable)
  /// Restartable runs: reservation length / run time (< 1: the job is paused at the
  /// reservation's end and requeued); 0: no restartable runs.
  double underestimate = 0;
  /// The parallel part (Fig. 13): every job needs this many CPUs at once; 0: none.
  int parallel_np = 0;
  std::string scheduler = "fcfs";  ///< the resources' local scheduler
  double book_ahead_min = 60;      ///< requested start = arrival + this
  double window_h = 24;            ///< how far the broker may move the start
  /// The resources' admission rule (policy keys in an optional [grid]): paper 001's own by
  /// default, none (a reservation conflicts only with reservations; GridSim's take free CPUs
  /// ahead of queued jobs).
  cluster_policy policy = with_ljp(ljp_policy::off, ljp_method::twkl);
  // The paper's numbers, printed beside ours.
  std::vector<double> paper_mwt_increase;  ///< per share, relative to share 0 (e.g. 0, 0.2, 0.71)
  std::vector<double> paper_mot_min;       ///< per share (e.g. -, 48, 62)
};

/// Paper 004 Sec. IV-D: ESE accuracy and ranking. Two clusters, each with a background
/// workload cut from a trace, walltimes = the jobs' run times times an overestimate; test
/// jobs submitted to both clusters at regular instants, their estimated start asked first.
struct paper004_workload {
  std::string name;
  std::string trace;
  std::size_t skip = 0;  ///< sound batch jobs skipped at the start of the trace
  std::size_t jobs = 0;  ///< how many follow (submit times shifted to start at 0)
};

struct paper004_test_job {
  std::string name;
  int np = 1;
  duration runtime = 3600;  ///< also its walltime (the test user knows it)
};

struct paper004_config {
  std::string name;
  /// The clusters' admission rule (policy keys in an optional [grid]): paper 004's own by
  /// default, Local Jobs Preferred by the vacancy rule (Sec. III-C). Its probes are local jobs,
  /// so the rule decides nothing they see; it is stated for the record.
  cluster_policy policy = with_ljp(ljp_policy::enforce, ljp_method::ese);
  std::vector<std::string> clusters;  ///< two names
  int cpus = 0;                       ///< of each cluster
  std::string scheduler = "easy";
  sim::soundness rule = sim::soundness::loose;
  std::vector<paper004_workload> workloads;
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  ///< workload indices per cluster
  std::vector<double> overestimates;                       ///< walltime / run time
  std::vector<paper004_test_job> test_jobs;                ///< used in turn, one per probe
  double probe_start_h = 24;                               ///< warm-up before the first probe
  double probe_every_h = 2;
  // The paper's numbers, printed beside ours.
  double paper_ranking_correct = 0.75;        ///< over all cases
  double paper_ranking_correct_at_max = 0.6;  ///< at the largest overestimate ("more than")
};

/// Paper 002 Sec. 4-5: matchmaking policies. Every job is a request to the broker naming a
/// policy (the matchmaker); advance reservations (share `par`) start uniformly within the
/// next `ar_window_h` hours with a laxity uniform over [0, 2 L] x run time, on-demand jobs
/// may start now and must end within `od_deadline_h`.
struct paper002_config {
  std::string name;
  int clusters = 4;
  int cpus = 64;
  std::string scheduler = "easy";
  /// The clusters' services (any cluster policy key in [grid], as a node's [[cluster]] has
  /// them), over the simulator's defaults with paper 002's own rule: no Local Jobs Preferred
  /// (paper 002 has none). `laxity`: the clusters' RLC scheduler (paper 002), reservations
  /// movable within their windows (false: all rigid).
  cluster_policy policy = with_ljp(ljp_policy::off, ljp_method::twkl);
  std::size_t jobs = 1000;      ///< Lublin-Feitelson jobs per repetition
  std::size_t repetitions = 5;  ///< seeds seed, seed + 1, ...
  std::uint64_t seed = 1;
  double arrival_scale = 4;  ///< inter-arrival times divided by this (the model is for one machine)
  std::vector<double> laxity_percent;  ///< mean L, % of the run time
  std::vector<double> par;             ///< proportion of ARs among the requests
  std::vector<std::string> policies;   ///< matchmaking policies ("" = the broker's own ranking)
  double ar_window_h = 12;
  double od_deadline_h = 48;
  double paper_mli_over_imct = 0.892;  ///< W_R of MLI / W_R of IMCT at L = 1000 %, PAR = 1
};

/// Experiment 5 (ours): grid jobs over clusters that each replay a different trace.
struct grid5_cluster {
  std::string name;
  std::string trace;
  int cpus = 0;
};
struct grid5_strategy {
  std::string name;
  std::string strategy = "single";  ///< single, flood, adaptive, reserve, or none (no grid jobs)
  int width = 3;
  duration min_gain = 0;
  bool finish_eq7 = false;  ///< reserve: keep the hold by paper 004's eq. 7 as printed
  /// A cluster (by name) whose nodes all fail `fail_at_h` hours in: its running and queued
  /// copies are lost ("" = none fails).
  std::string fail_cluster = {};
  double fail_at_h = 0;
  std::int32_t max_resubmits = -1;  ///< the grid jobs' (-1: the node's default, 2)
  /// adaptive and reserve: moves per job (-1: unbounded, the node's default; 0: none)
  std::int32_t max_migrations = -1;
  /// Workflows: the grid jobs, in groups of `dag` (>= 3) in their order, each a fork-join
  /// submitted at once at its first job's time: the first, then the middle ones after it, the
  /// last after them all. Every job declares `output_gb` of output, its children's input
  /// where it ran. 0: every grid job on its own.
  int dag = 0;
  double output_gb = 0;
  bool locality = true;  ///< children prefer where their parents' outputs are
};
struct grid5_config {
  std::string name;
  std::vector<grid5_cluster> clusters;
  std::string scheduler = "easy";
  double days = 7;              ///< the first `days` of every trace, all from time 0
  std::size_t grid_every = 10;  ///< every n-th job of each trace becomes a grid job
  duration poll_s = 0;          ///< the manager's job-state polls (0: none)
  bool event_hooks = true;      ///< the simulated LRMSs' job events tell the manager
  sim::walltime_rule walltime = sim::walltime_rule::extend;  ///< of the local jobs
  duration adaptation_s = 60;                                ///< its adaptation rounds
  /// MB/s that data moves to each cluster (a copy's inputs arrive before it starts); 0: none.
  double bandwidth_mb_s = 0;
  /// The clusters' services: a node's defaults (LJP enforced by the vacancy rule, ese), but
  /// the view read on every call as in every experiment; any policy key in [grid] over them.
  cluster_policy policy = daemon_policy();
  std::vector<grid5_strategy> strategies;

  static cluster_policy daemon_policy() {
    cluster_policy p;
    p.refresh = 0;
    return p;
  }
};

struct experiment_config {
  std::string kind;  ///< "paper000", "paper001", "paper002", "paper004", "grid5" or "replay"
  std::string name;  ///< its output directory's name
  paper002_config paper002;
  paper004_config paper004;
  paper000_config paper000;
  paper001_config paper001;
  replay_config replay;
  grid5_config grid5;
};

/// Reads an experiment file. `overrides` ("grid.ljp=off", "requests.par=[1]") replace or add
/// keys of the file before it is read, each a dotted path and a TOML value (a bare word is a
/// string); the result is checked as the file would be.
result<experiment_config> load_experiment(const std::filesystem::path& file,
                                          const std::vector<std::string>& overrides = {});

/// The admission rule an experiment's clusters run under: "ljp enforce, ljp_method twkl",
/// "ljp off" (printed in its summary line and its provenance.txt).
std::string admission_of(const cluster_policy& p);
std::string admission_of(const experiment_config& c);

}  // namespace arbroker::simapp
