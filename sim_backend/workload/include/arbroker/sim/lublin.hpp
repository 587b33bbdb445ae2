#pragma once

// The Lublin-Feitelson workload model of rigid jobs (U. Lublin, D. G. Feitelson, "The
// workload on parallel supercomputers: modeling the characteristics of rigid jobs", JPDC
// 63(11), 2003), as published by its authors in the program m_lublin99.c of the Parallel
// Workloads Archive. Written anew from that program's description and parameters; see
// README.md for the algorithm and the choices made here.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "arbroker/core/error.hpp"
#include "arbroker/core/time.hpp"
#include "arbroker/sim/random_variates.hpp"
#include "arbroker/sim/swf.hpp"

namespace arbroker::sim {

/// What the mixing probability p of the runtime's hyper-gamma is a linear function of.
enum class lublin_p_term {
  nodes,       ///< p = pa * n + pb, as in the published program (and its fitted pa, pb)
  log2_nodes,  ///< p = pa * log2(n) + pb
};

/// The model's parameters; the defaults are the published ones for batch jobs.
struct lublin_params {
  // Job size n (processors). Serial with probability serial_prob; otherwise log2(n) is drawn
  // from a two-stage uniform: U(u_low, u_med) with probability u_prob, else U(u_med, u_hi);
  // with probability pow2_prob (of all jobs) it is rounded to an integer (a power-of-two job).
  double serial_prob = 0.2927;
  double pow2_prob = 0.6686;
  double u_low = 1.2;
  double u_med = 5.0;
  double u_hi = 0.0;  ///< <= 0: log2 of the machine size
  double u_prob = 0.875;

  // Runtime: ln(runtime) ~ hyper-gamma, Gamma(a1, b1) with probability p, else Gamma(a2, b2)
  // (shape, scale), p = clamp(pa * term + pb, 0, 1); draws above max_log_runtime are redrawn.
  double a1 = 6.57;
  double b1 = 0.823;
  double a2 = 639.1;
  double b2 = 0.0156;
  double pa = -0.003;
  double pb = 0.6986;
  lublin_p_term p_term = lublin_p_term::nodes;
  double max_log_runtime = 12.0;  ///< e^12 s, about 45 h

  // Arrivals: G ~ Gamma(aarr * arar, barr) (redrawn above max_log_interarrival) is the log of
  // the gap in seconds at average intensity; the gap is stretched or shrunk by the 48
  // half-hour buckets of the day it crosses, whose weights are the masses of Gamma(anum,
  // bnum) over the buckets (the daily cycle). See README.md.
  double aarr = 6.0415;
  double barr = 0.8531;
  double anum = 6.1271;
  double bnum = 5.2740;
  double arar = 1.0519;                ///< arrive-rush-to-all ratio, multiplies aarr
  double max_log_interarrival = 13.0;  ///< e^13 s, about 5 days
  int start_hour = 0;                  ///< the hour of the day at time 0

  /// The SWF queue written into the jobs (the published program: 1 batch, 0 interactive).
  std::int64_t queue = 1;

  /// The published batch parameters (the defaults).
  static lublin_params batch() { return {}; }
  /// The published parameters for interactive jobs. u_hi is 5.5: other jobs have up to
  /// round(2^5.5) = 45 processors, power-of-two jobs up to 64 (if the machine has them).
  static lublin_params interactive();

  friend bool operator==(const lublin_params&, const lublin_params&) = default;
};

/// Checks the parameters for a machine of `machine_procs` processors: probabilities in
/// [0, 1] with serial_prob + pow2_prob <= 1, 0 <= u_low <= u_med <= u_hi <= log2(machine),
/// positive finite gamma parameters and arar, positive limits, start_hour in [0, 23],
/// machine_procs >= 1. errc::invalid_parameter naming the first offending value.
status validate(const lublin_params& p, int machine_procs);

/// A seeded stream of jobs of the model, in submit order.
class lublin_generator {
 public:
  static constexpr int buckets_per_day = 48;
  static constexpr duration seconds_per_bucket = seconds_per_day / buckets_per_day;

  static result<lublin_generator> create(const lublin_params& p, int machine_procs,
                                         std::uint64_t seed);

  /// The next job: job_id 1, 2, ...; submit_time (whole seconds, rounded down); run_time;
  /// allocated_procs = requested_procs = n; status 1; queue = params().queue; all other
  /// fields -1.
  swf_job next();

  /// The next `n` jobs.
  std::vector<swf_job> generate(std::size_t n);

  const lublin_params& params() const noexcept { return p_; }
  int machine_procs() const noexcept { return machine_; }
  /// The u_hi in force (log2 of the machine size unless set).
  double u_hi() const noexcept { return u_hi_; }
  /// The daily cycle: weight of each half-hour bucket (0 = 00:00-00:30), mean 1.
  const std::array<double, buckets_per_day>& bucket_weights() const noexcept { return weights_; }

 private:
  lublin_generator(const lublin_params& p, int machine_procs, std::uint64_t seed);

  int draw_size();
  duration draw_runtime(int n);
  void advance_clock();

  lublin_params p_;
  int machine_;
  double u_hi_;
  int max_pow2_;  ///< the largest power of two <= machine_
  rng_engine rng_;
  std::array<double, buckets_per_day> weights_{};
  int bucket_ = 0;       ///< bucket of the clock
  double points_ = 0;    ///< points spent in the current bucket
  double fraction_ = 0;  ///< the clock's position in the current bucket, in [0, 1]
  double clock_ = 0;     ///< seconds since time 0 of the next arrival
  std::int64_t next_id_ = 1;
};

/// The regularized lower incomplete gamma function P(a, x) = CDF of Gamma(a, 1) at x
/// (a > 0, x >= 0), by its series or continued fraction; used for the daily cycle.
double gamma_cdf(double shape, double x);

}  // namespace arbroker::sim
