#include "arbroker/sim/lublin.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "arbroker/core/number_text.hpp"

namespace arbroker::sim {

using detail::number_text;

lublin_params lublin_params::interactive() {
  lublin_params p;
  p.serial_prob = 0.1541;
  p.pow2_prob = 0.625;
  p.u_low = 1.0;
  p.u_med = 3.0;
  p.u_hi = 5.5;
  p.u_prob = 0.705;
  p.a1 = 3.8351;
  p.b1 = 0.6605;
  p.a2 = 7.073;
  p.b2 = 0.6856;
  p.pa = -0.0118;
  p.pb = 0.9156;
  p.aarr = 6.5510;
  p.barr = 0.6621;
  p.anum = 8.9186;
  p.bnum = 3.6680;
  p.arar = 0.9797;
  p.queue = 0;
  return p;
}

namespace {

error bad(const std::string& what) {
  return fail(errc::invalid_parameter, "lublin model: " + what);
}

bool probability(double x) {
  return x >= 0.0 && x <= 1.0;  // false for NaN
}

double effective_u_hi(const lublin_params& p, int machine_procs) {
  return p.u_hi > 0 ? p.u_hi : std::log2(static_cast<double>(machine_procs));
}

// Series of P(a, x), for x < a + 1.
double gamma_series(double a, double x) {
  double term = 1.0 / a;
  double sum = term;
  for (int n = 1; n < 10000; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * 1e-16) break;
  }
  return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

// Continued fraction of Q(a, x) = 1 - P(a, x) (modified Lentz), for x >= a + 1.
double gamma_continued_fraction(double a, double x) {
  constexpr double tiny = 1e-300;
  double b = x + 1.0 - a;
  double c = 1.0 / tiny;
  double d = 1.0 / b;
  double h = d;
  for (int i = 1; i < 10000; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < 1e-16) break;
  }
  return std::exp(-x + a * std::log(x) - std::lgamma(a)) * h;
}

}  // namespace

double gamma_cdf(double shape, double x) {
  if (x <= 0) return 0.0;
  if (x < shape + 1.0) return gamma_series(shape, x);
  return 1.0 - gamma_continued_fraction(shape, x);
}

status validate(const lublin_params& p, int machine_procs) {
  if (machine_procs < 1)
    return bad("machine size " + std::to_string(machine_procs) + " must be >= 1");
  if (!probability(p.serial_prob))
    return bad("serial_prob " + number_text(p.serial_prob) + " outside [0, 1]");
  if (!probability(p.pow2_prob))
    return bad("pow2_prob " + number_text(p.pow2_prob) + " outside [0, 1]");
  if (p.serial_prob + p.pow2_prob > 1.0) {
    return bad("serial_prob + pow2_prob = " + number_text(p.serial_prob) + " + " +
               number_text(p.pow2_prob) + " exceeds 1");
  }
  if (!probability(p.u_prob)) return bad("u_prob " + number_text(p.u_prob) + " outside [0, 1]");
  const double log2_machine = std::log2(static_cast<double>(machine_procs));
  const double u_hi = effective_u_hi(p, machine_procs);
  if (!(p.u_low >= 0 && p.u_low <= p.u_med && p.u_med <= u_hi)) {
    return bad("need 0 <= u_low <= u_med <= u_hi, got u_low " + number_text(p.u_low) + ", u_med " +
               number_text(p.u_med) + ", u_hi " + number_text(u_hi) + " (for " +
               std::to_string(machine_procs) +
               " processors; the authors advise u_med = u_hi - 2.5)");
  }
  if (!(u_hi <= log2_machine + 1e-12)) {
    return bad("u_hi " + number_text(u_hi) + " exceeds log2 of the machine size " +
               std::to_string(machine_procs) + " (" + number_text(log2_machine) + ")");
  }
  const std::pair<const char*, double> positive[] = {
      {"a1", p.a1},
      {"b1", p.b1},
      {"a2", p.a2},
      {"b2", p.b2},
      {"aarr", p.aarr},
      {"barr", p.barr},
      {"anum", p.anum},
      {"bnum", p.bnum},
      {"arar", p.arar},
      {"max_log_runtime", p.max_log_runtime},
      {"max_log_interarrival", p.max_log_interarrival}};
  for (const auto& [name, value] : positive) {
    if (!(std::isfinite(value) && value > 0))
      return bad(std::string(name) + " " + number_text(value) + " must be finite and > 0");
  }
  if (!std::isfinite(p.pa) || !std::isfinite(p.pb)) {
    return bad("pa " + number_text(p.pa) + " and pb " + number_text(p.pb) + " must be finite");
  }
  if (p.start_hour < 0 || p.start_hour > 23)
    return bad("start_hour " + std::to_string(p.start_hour) + " outside [0, 23]");
  return {};
}

result<lublin_generator> lublin_generator::create(const lublin_params& p, int machine_procs,
                                                  std::uint64_t seed) {
  if (auto s = validate(p, machine_procs); !s) return s.err();
  return lublin_generator(p, machine_procs, seed);
}

lublin_generator::lublin_generator(const lublin_params& p, int machine_procs, std::uint64_t seed)
    : p_(p),
      machine_(machine_procs),
      u_hi_(effective_u_hi(p, machine_procs)),
      max_pow2_(1),
      rng_(seed) {
  while (max_pow2_ <= machine_ / 2)
    max_pow2_ *= 2;

  // The daily cycle, as the published program lays it out: Gamma(anum, bnum) is measured in
  // buckets over the positions i = 11 .. 58 (CYCLIC_DAY_START = 11, 48 buckets), and position
  // i belongs to bucket (i - 1) mod 48. Bucket k thus gets the mass of [i - 0.5, i + 0.5] with
  // i = k + 1, or k + 49 for the buckets before 05:00 that close the cycle.
  constexpr int cyclic_day_start = 11;
  double sum = 0;
  for (int k = 0; k < buckets_per_day; ++k) {
    int i = k + 1;
    if (i < cyclic_day_start) i += buckets_per_day;
    const double w =
        gamma_cdf(p_.anum, (i + 0.5) / p_.bnum) - gamma_cdf(p_.anum, (i - 0.5) / p_.bnum);
    weights_[static_cast<std::size_t>(k)] = w;
    sum += w;
  }
  for (double& w : weights_)
    w *= buckets_per_day / sum;

  bucket_ = p_.start_hour * buckets_per_day / 24;
  advance_clock();  // the first job arrives one inter-arrival time after time 0
}

void lublin_generator::advance_clock() {
  // Draw a (not too large) log inter-arrival time. Its exponential, in seconds, is turned
  // into points at the rate of a weight-1 bucket (1 point = one bucket's worth of seconds);
  // the points are then spent bucket by bucket, a bucket of weight w costing w points. Busy
  // buckets (w > 1) are thus crossed by more arrivals, quiet ones by fewer; over a day the
  // 48 points of the weights pay for 86400 s, so the mean gap is E[exp(G)].
  double g = 0;
  do {
    g = gamma_variate(rng_, p_.aarr * p_.arar, p_.barr);
  } while (g > p_.max_log_interarrival);
  points_ += std::exp(g) / static_cast<double>(seconds_per_bucket);
  double gap = 0;
  while (points_ > weights_[static_cast<std::size_t>(bucket_)]) {
    points_ -= weights_[static_cast<std::size_t>(bucket_)];
    bucket_ = (bucket_ + 1) % buckets_per_day;
    gap += static_cast<double>(seconds_per_bucket);
  }
  const double fraction = points_ / weights_[static_cast<std::size_t>(bucket_)];
  gap += static_cast<double>(seconds_per_bucket) * (fraction - fraction_);
  fraction_ = fraction;
  clock_ += gap;
}

int lublin_generator::draw_size() {
  const double u = uniform01(rng_);
  if (u < p_.serial_prob) return 1;
  // Two-stage uniform log2 size.
  const bool low = uniform01(rng_) < p_.u_prob;
  const double a = low ? p_.u_low : p_.u_med;
  const double b = low ? p_.u_med : u_hi_;
  double par = a + uniform01(rng_) * (b - a);
  const bool pow2 = u < p_.serial_prob + p_.pow2_prob;
  if (pow2) par = std::floor(par + 0.5);
  const int n = static_cast<int>(std::floor(std::exp2(par) + 0.5));
  if (pow2) return std::min(n, max_pow2_);
  return std::clamp(n, 1, machine_);
}

duration lublin_generator::draw_runtime(int n) {
  const double term = p_.p_term == lublin_p_term::nodes ? static_cast<double>(n)
                                                        : std::log2(static_cast<double>(n));
  const double p = std::clamp(p_.pa * term + p_.pb, 0.0, 1.0);
  double hg = 0;
  do {
    const bool first = uniform01(rng_) < p;
    hg = first ? gamma_variate(rng_, p_.a1, p_.b1) : gamma_variate(rng_, p_.a2, p_.b2);
  } while (hg > p_.max_log_runtime);
  return static_cast<duration>(std::floor(std::exp(hg)));
}

swf_job lublin_generator::next() {
  swf_job job;
  job.job_id = next_id_++;
  job.submit_time = static_cast<timestamp>(std::floor(clock_));
  advance_clock();
  const int n = draw_size();
  job.run_time = draw_runtime(n);
  job.allocated_procs = n;
  job.requested_procs = n;
  job.status = 1;
  job.queue = p_.queue;
  return job;
}

std::vector<swf_job> lublin_generator::generate(std::size_t n) {
  std::vector<swf_job> jobs;
  jobs.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    jobs.push_back(next());
  return jobs;
}

}  // namespace arbroker::sim
