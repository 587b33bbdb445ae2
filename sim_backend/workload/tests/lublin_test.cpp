#include "arbroker/sim/lublin.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

namespace arbroker::sim {
namespace {

// ---------------------------------------------------------------------------------------
// The model's expectations, computed here independently of the generator: the job size
// distribution exactly from the two-stage uniform's CDF, and the gamma integrals by
// Simpson's rule on the densities.

template <class F>
double simpson(F f, double a, double b, int n = 20000) {
  const double h = (b - a) / n;
  double s = f(a) + f(b);
  for (int i = 1; i < n; ++i)
    s += f(a + i * h) * (i % 2 == 1 ? 4.0 : 2.0);
  return s * h / 3.0;
}

double gamma_pdf(double x, double k, double theta) {
  if (x <= 0) return 0.0;
  return std::exp((k - 1) * std::log(x) - x / theta - std::lgamma(k) - k * std::log(theta));
}

// E[exp(m X) ; X <= limit] for X ~ Gamma(k, theta), m = 0, 1, 2 (m = 0: the mass).
double truncated_exp_moment(double k, double theta, double limit, int m) {
  return simpson([&](double x) { return std::exp(m * x) * gamma_pdf(x, k, theta); }, 0.0, limit,
                 200000);
}

// CDF of the two-stage uniform on [low, med] (probability prob) and [med, hi].
double two_stage_cdf(double u, double low, double med, double hi, double prob) {
  auto part = [](double x, double a, double b) {
    if (x <= a) return 0.0;
    if (x >= b) return 1.0;
    return (x - a) / (b - a);
  };
  return prob * part(u, low, med) + (1 - prob) * part(u, med, hi);
}

// P(size = n) of the model on a machine of `machine` processors.
std::map<int, double> size_distribution(const lublin_params& p, int machine) {
  const double hi = p.u_hi > 0 ? p.u_hi : std::log2(machine);
  auto F = [&](double u) { return two_stage_cdf(u, p.u_low, p.u_med, hi, p.u_prob); };
  int max_pow2 = 1;
  while (max_pow2 * 2 <= machine)
    max_pow2 *= 2;
  std::map<int, double> dist;
  dist[1] += p.serial_prob;
  // Power-of-two jobs: 2^round(U), capped at the largest power of two of the machine.
  for (int k = 0; k <= 31; ++k) {
    const double mass = F(k + 0.5) - F(k - 0.5);
    if (mass > 0) dist[std::min(1 << k, max_pow2)] += p.pow2_prob * mass;
  }
  // The others: round(2^U).
  const double rest = 1 - p.serial_prob - p.pow2_prob;
  for (int n = 1; n <= machine; ++n) {
    const double lo = n == 1 ? -1.0 : std::log2(n - 0.5);
    const double mass = F(std::log2(n + 0.5)) - F(lo);
    if (mass > 0) dist[n] += rest * mass;
  }
  return dist;
}

bool power_of_two(int n) {
  return n >= 2 && (n & (n - 1)) == 0;
}

struct expectation {
  double mean = 0;
  double sd = 0;
};

// Runtime: a mixture, truncated at max_log_runtime, of exp(Gamma(a1, b1)) (weight p) and
// exp(Gamma(a2, b2)), rounded down (which takes 0.5 s off the mean, to well under 0.1 s).
expectation runtime_expectation(const lublin_params& p, int machine) {
  const double L = p.max_log_runtime;
  double g1[3];
  double g2[3];
  for (int m = 0; m < 3; ++m) {
    g1[m] = truncated_exp_moment(p.a1, p.b1, L, m);
    g2[m] = truncated_exp_moment(p.a2, p.b2, L, m);
  }
  double e1 = 0;
  double e2 = 0;
  for (const auto& [n, prob] : size_distribution(p, machine)) {
    const double term = p.p_term == lublin_p_term::nodes ? n : std::log2(n);
    const double w = std::clamp(p.pa * term + p.pb, 0.0, 1.0);
    const double mass = w * g1[0] + (1 - w) * g2[0];
    e1 += prob * (w * g1[1] + (1 - w) * g2[1]) / mass;
    e2 += prob * (w * g1[2] + (1 - w) * g2[2]) / mass;
  }
  return {e1 - 0.5, std::sqrt(e2 - e1 * e1)};
}

// Inter-arrival: over whole days the points of exp(G), G ~ Gamma(aarr * arar, barr) truncated
// at max_log_interarrival, buy seconds one for one, so the mean gap is E[exp(G)].
expectation interarrival_expectation(const lublin_params& p) {
  const double k = p.aarr * p.arar;
  const double L = p.max_log_interarrival;
  const double m0 = truncated_exp_moment(k, p.barr, L, 0);
  const double m1 = truncated_exp_moment(k, p.barr, L, 1) / m0;
  const double m2 = truncated_exp_moment(k, p.barr, L, 2) / m0;
  return {m1, std::sqrt(m2 - m1 * m1)};
}

// ---------------------------------------------------------------------------------------

struct sample_stats {
  double mean_size = 0;
  double serial_fraction = 0;
  double pow2_fraction = 0;
  double mean_runtime = 0;
  double mean_gap = 0;
  std::vector<double> bucket_fraction = std::vector<double>(48, 0.0);
};

sample_stats measure(const std::vector<swf_job>& jobs, int start_hour) {
  sample_stats s;
  const double n = static_cast<double>(jobs.size());
  for (const swf_job& j : jobs) {
    const auto np = static_cast<int>(j.allocated_procs);
    s.mean_size += np / n;
    s.serial_fraction += (np == 1) / n;
    s.pow2_fraction += power_of_two(np) / n;
    s.mean_runtime += static_cast<double>(j.run_time) / n;
    const auto second_of_day = (j.submit_time + start_hour * 3600) % seconds_per_day;
    s.bucket_fraction[static_cast<std::size_t>(second_of_day / 1800)] += 1 / n;
  }
  s.mean_gap = static_cast<double>(jobs.back().submit_time - jobs.front().submit_time) / (n - 1);
  return s;
}

constexpr std::size_t sample_size = 200000;

void expect_model_moments(const lublin_params& p, int machine, std::uint64_t seed) {
  auto gen = lublin_generator::create(p, machine, seed);
  ASSERT_TRUE(gen) << to_string(gen.err());
  const auto jobs = gen->generate(sample_size);
  const sample_stats s = measure(jobs, p.start_hour);
  const double n = sample_size;

  // Sizes: exact distribution; tolerance 5 standard errors.
  const auto dist = size_distribution(p, machine);
  double mean_size = 0;
  double size2 = 0;
  double pow2 = 0;
  for (const auto& [np, prob] : dist) {
    mean_size += np * prob;
    size2 += double(np) * np * prob;
    if (power_of_two(np)) pow2 += prob;
  }
  const double sd_size = std::sqrt(size2 - mean_size * mean_size);
  EXPECT_NEAR(s.mean_size, mean_size, 5 * sd_size / std::sqrt(n));
  const double serial = dist.at(1);
  EXPECT_NEAR(serial, p.serial_prob, 1e-12);  // parallel sizes start at round(2^u_low) >= 2
  EXPECT_NEAR(s.serial_fraction, serial, 5 * std::sqrt(serial * (1 - serial) / n));
  EXPECT_NEAR(s.pow2_fraction, pow2, 5 * std::sqrt(pow2 * (1 - pow2) / n));

  // Runtime.
  const expectation rt = runtime_expectation(p, machine);
  EXPECT_NEAR(s.mean_runtime, rt.mean, 5 * rt.sd / std::sqrt(n));

  // Inter-arrival: iid points, plus at most a day of slack from the daily cycle.
  const expectation ia = interarrival_expectation(p);
  EXPECT_NEAR(s.mean_gap, ia.mean, 5 * ia.sd / std::sqrt(n) + 2.0 * seconds_per_day / n + 1);

  // Every job fits the machine and runs at least 1 s, at most e^max_log_runtime.
  for (const swf_job& j : jobs) {
    ASSERT_GE(j.allocated_procs, 1);
    ASSERT_LE(j.allocated_procs, machine);
    ASSERT_GE(j.run_time, 1);
    ASSERT_LE(j.run_time, std::exp(p.max_log_runtime));
  }
}

TEST(Lublin, BatchMomentsMatchTheModelOn128Processors) {
  // The published program's machine: u_hi = 7.
  expect_model_moments(lublin_params::batch(), 128, 1);
}

TEST(Lublin, BatchMomentsMatchTheModelOnSdscBlue) {
  // 1152 processors: u_hi = log2(1152) = 10.17, the largest power of two is 1024, and p
  // reaches 0 for jobs above 232 processors.
  expect_model_moments(lublin_params::batch(), 1152, 2);
}

TEST(Lublin, MomentsMatchWithTheLog2Term) {
  auto p = lublin_params::batch();
  p.p_term = lublin_p_term::log2_nodes;
  expect_model_moments(p, 1152, 3);
}

TEST(Lublin, InteractiveMomentsMatchTheModel) {
  expect_model_moments(lublin_params::interactive(), 64, 4);
}

TEST(Lublin, IntegrationAgreesWithClosedForms) {
  // E[exp(X)] = (1 - theta)^-k for X ~ Gamma(k, theta), theta < 1. The second runtime gamma
  // (ln runtime about 10, sd 0.4) loses only 6e-7 of its mass to the cut at 12; integrated
  // to 20 it must give the closed form.
  const auto p = lublin_params::batch();
  EXPECT_NEAR(truncated_exp_moment(p.a2, p.b2, p.max_log_runtime, 0), 1.0, 1e-6);
  EXPECT_NEAR(truncated_exp_moment(p.a2, p.b2, 20.0, 0), 1.0, 1e-9);
  const double closed = std::pow(1 - p.b2, -p.a2);
  EXPECT_NEAR(truncated_exp_moment(p.a2, p.b2, 20.0, 1), closed, 1e-7 * closed);
  // The mean of the gamma itself, k * theta.
  const double mean = simpson([&](double x) { return x * gamma_pdf(x, p.a1, p.b1); }, 0, 60);
  EXPECT_NEAR(mean, p.a1 * p.b1, 1e-9);
}

TEST(Lublin, DailyCycleWeights) {
  const auto p = lublin_params::batch();
  auto gen = lublin_generator::create(p, 128, 1);
  ASSERT_TRUE(gen);
  const auto& w = gen->bucket_weights();
  // Independently: the mass of Gamma(anum, bnum) over [i - 0.5, i + 0.5], i = k + 1 for the
  // buckets from 05:00 on and k + 49 before, normalized to mean 1.
  std::vector<double> expected(48);
  double sum = 0;
  for (int k = 0; k < 48; ++k) {
    const int i = k + 1 >= 11 ? k + 1 : k + 49;
    expected[k] =
        simpson([&](double x) { return gamma_pdf(x, p.anum, p.bnum); }, i - 0.5, i + 0.5, 2000);
    sum += expected[k];
  }
  double mean = 0;
  for (int k = 0; k < 48; ++k) {
    EXPECT_NEAR(w[k], expected[k] * 48 / sum, 1e-8) << k;
    mean += w[k] / 48;
  }
  EXPECT_NEAR(mean, 1.0, 1e-12);
  // Quietest at 04:30-05:00 (the end of the cycle that starts at 05:00), busiest in the early
  // afternoon.
  const auto lowest = std::min_element(w.begin(), w.end()) - w.begin();
  const auto highest = std::max_element(w.begin(), w.end()) - w.begin();
  EXPECT_EQ(lowest, 9);
  EXPECT_GE(highest, 24);
  EXPECT_LE(highest, 30);
}

TEST(Lublin, ArrivalsFollowTheDailyCycle) {
  // The share of arrivals in each half hour is its weight / 48. Arrivals come in bursts (the
  // gaps are far from exponential), so the noise is several times binomial: with 200000
  // jobs up to about 11% of the share in the quietest buckets (about 1000 arrivals each)
  // for the seeds tried. The shares themselves span a factor of 7 between 04:30 and 13:00.
  for (int start_hour : {0, 9}) {
    auto p = lublin_params::batch();
    p.start_hour = start_hour;
    auto gen = lublin_generator::create(p, 128, 5);
    ASSERT_TRUE(gen);
    const auto s = measure(gen->generate(sample_size), start_hour);
    double day = 0;
    double expected_day = 0;
    for (int k = 0; k < 48; ++k) {
      const double share = gen->bucket_weights()[k] / 48;
      EXPECT_NEAR(s.bucket_fraction[k], share, 0.15 * share) << "bucket " << k;
      if (k >= 16 && k < 40) {  // 08:00 - 20:00
        day += s.bucket_fraction[k];
        expected_day += share;
      }
    }
    EXPECT_NEAR(expected_day, 0.71, 0.01);
    EXPECT_NEAR(day, expected_day, 0.01);
  }
}

TEST(Lublin, DeterministicForASeed) {
  auto a = lublin_generator::create(lublin_params::batch(), 1152, 77);
  auto b = lublin_generator::create(lublin_params::batch(), 1152, 77);
  auto c = lublin_generator::create(lublin_params::batch(), 1152, 78);
  ASSERT_TRUE(a && b && c);
  const auto ja = a->generate(5000);
  EXPECT_EQ(ja, b->generate(5000));
  EXPECT_NE(ja, c->generate(5000));
  // One generate(n) is the same as n next() calls.
  auto d = lublin_generator::create(lublin_params::batch(), 1152, 77);
  for (std::size_t i = 0; i < 100; ++i)
    EXPECT_EQ(d->next(), ja[i]);
}

TEST(Lublin, JobsAreNumberedInSubmitOrder) {
  auto gen = lublin_generator::create(lublin_params::batch(), 128, 9);
  ASSERT_TRUE(gen);
  const auto jobs = gen->generate(1000);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i].job_id, static_cast<std::int64_t>(i + 1));
    EXPECT_EQ(jobs[i].requested_procs, jobs[i].allocated_procs);
    EXPECT_EQ(jobs[i].status, 1);
    EXPECT_EQ(jobs[i].queue, 1);
    EXPECT_EQ(jobs[i].wait_time, -1);
    EXPECT_EQ(jobs[i].requested_time, -1);
    if (i > 0) {
      EXPECT_LE(jobs[i - 1].submit_time, jobs[i].submit_time);
    }
  }
  EXPECT_GT(jobs.front().submit_time, 0);  // one gap after time 0
}

TEST(Lublin, RejectsBadParameters) {
  auto expect_bad = [](const lublin_params& p, int machine, const std::string& message) {
    auto g = lublin_generator::create(p, machine, 1);
    ASSERT_FALSE(g) << message;
    EXPECT_EQ(g.err().code, errc::invalid_parameter);
    EXPECT_EQ(g.err().message, message);
  };
  expect_bad(lublin_params::batch(), 0, "lublin model: machine size 0 must be >= 1");
  expect_bad(lublin_params::batch(), 16,
             "lublin model: need 0 <= u_low <= u_med <= u_hi, got u_low 1.2, u_med 5, u_hi 4 "
             "(for 16 processors; the authors advise u_med = u_hi - 2.5)");
  auto p = lublin_params::batch();
  p.serial_prob = 0.5;
  p.pow2_prob = 0.6;
  expect_bad(p, 128, "lublin model: serial_prob + pow2_prob = 0.5 + 0.6 exceeds 1");
  p = lublin_params::batch();
  p.a2 = -1;
  expect_bad(p, 128, "lublin model: a2 -1 must be finite and > 0");
  p = lublin_params::batch();
  p.start_hour = 24;
  expect_bad(p, 128, "lublin model: start_hour 24 outside [0, 23]");
  p = lublin_params::batch();
  p.u_hi = 8;
  expect_bad(p, 128, "lublin model: u_hi 8 exceeds log2 of the machine size 128 (7)");
  // The interactive model reaches 2^5.5 = 45 processors: it needs a machine that large.
  expect_bad(lublin_params::interactive(), 32,
             "lublin model: u_hi 5.5 exceeds log2 of the machine size 32 (5)");
  // A small machine works with u_med moved down as the authors advise.
  p = lublin_params::batch();
  p.u_med = 4 - 2.5;
  EXPECT_TRUE(lublin_generator::create(p, 16, 1));
}

TEST(Lublin, GammaCdf) {
  EXPECT_EQ(gamma_cdf(2.0, 0.0), 0.0);
  EXPECT_NEAR(gamma_cdf(1.0, 1.0), 1 - std::exp(-1.0), 1e-14);  // exponential
  EXPECT_NEAR(gamma_cdf(1.0, 10.0), 1 - std::exp(-10.0), 1e-14);
  // Gamma(2): 1 - e^-x (1 + x).
  EXPECT_NEAR(gamma_cdf(2.0, 3.5), 1 - std::exp(-3.5) * 4.5, 1e-14);
  EXPECT_NEAR(gamma_cdf(6.1271, 100.0), 1.0, 1e-14);
  // Both branches (series below a + 1, continued fraction above) against the integral.
  for (double x : {0.5, 3.0, 6.0, 7.2, 7.5, 12.0, 20.0}) {
    const double integral = simpson([](double t) { return gamma_pdf(t, 6.1271, 1.0); }, 0, x);
    EXPECT_NEAR(gamma_cdf(6.1271, x), integral, 1e-10) << x;
  }
}

}  // namespace
}  // namespace arbroker::sim
