// Experiment 3: paper 002 (Farooq, Majumdar, Parsons), Sec. 4-5: matchmaking policies for
// advance reservations with laxity and on-demand jobs on several clusters.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <tuple>

#include "arbroker/sim/lublin.hpp"
#include "arbroker/sim/random_variates.hpp"
#include "arbroker/simulator/metrics.hpp"
#include "format.hpp"
#include "parallel.hpp"
#include "plots.hpp"
#include "runner.hpp"
#include "tables.hpp"

namespace arbroker::simapp {
namespace {

// What one job of a repetition becomes, drawn once so that every policy, L and PAR sees the
// same jobs (common random numbers): whether it is an AR (AR if ar_draw < PAR), how far
// ahead it starts (share of the AR window) and its laxity (share of 2 L).
struct job_draw {
  sim::swf_job job;
  double ar_draw = 0;
  double start_share = 0;
  double laxity_share = 0;
};

result<std::vector<job_draw>> draw_jobs(const paper002_config& c, std::uint64_t seed) {
  auto gen = sim::lublin_generator::create(sim::lublin_params::batch(), c.cpus, seed);
  if (!gen) return gen.err();
  auto jobs = gen->generate(c.jobs);
  sim::rng_engine rng(seed ^ 0x5bd1e995ULL);
  std::vector<job_draw> out;
  for (auto& j : jobs) {
    job_draw d;
    d.job = j;
    d.job.submit_time =
        static_cast<timestamp>(static_cast<double>(j.submit_time) / c.arrival_scale);
    d.ar_draw = sim::uniform01(rng);
    d.start_share = sim::uniform01(rng);
    d.laxity_share = sim::uniform01(rng);
    out.push_back(d);
  }
  return out;
}

struct point {
  double par = 1;
  double laxity = 0;  // mean L, % of the run time
  std::string policy;
  std::size_t rep = 0;
};

// The measures of one run, in the order of `metric_names`.
// W_R in %, U and P_b as fractions, R_AR and R_OD in seconds.
constexpr const char* metric_names[] = {"W_R", "U", "Q", "P_b", "R_AR", "R_OD"};
constexpr std::size_t metric_count = std::size(metric_names);
// How the tables print each measure: its name with its unit, and its decimals (-1: whole
// numbers with thousands separators).
constexpr const char* metric_headers[] = {"W_R %", "U", "Q", "P_b", "R_AR s", "R_OD s"};
constexpr int metric_decimals[] = {2, 3, 2, 3, -1, -1};
using measures = std::array<std::optional<double>, metric_count>;

sim::scenario scenario_of(const paper002_config& c, const std::vector<job_draw>& jobs,
                          const point& p) {
  sim::scenario s;
  for (int k = 0; k < c.clusters; ++k) {
    sim::cluster_spec spec;
    spec.name = "c" + std::to_string(k);
    spec.cpus = c.cpus;
    spec.scheduler = c.scheduler;
    spec.policy = c.policy;
    s.clusters.push_back(std::move(spec));
  }
  for (const auto& d : jobs) {
    const auto& j = d.job;
    const bool ar = d.ar_draw < p.par;
    const duration run = std::max<duration>(1, j.run_time);
    const int np = static_cast<int>(std::clamp<std::int64_t>(sim::procs(j), 1, c.cpus));
    msg::elastic_request q;
    q.user = "u" + std::to_string(j.user_id >= 0 ? j.user_id : 0);
    if (ar) {
      q.est = j.submit_time + static_cast<duration>(d.start_share * c.ar_window_h * 3600);
      q.let = q.est + run +
              static_cast<duration>(d.laxity_share * 2 * p.laxity / 100 * static_cast<double>(run));
    } else {
      q.est = j.submit_time;
      q.let = q.est + static_cast<duration>(c.od_deadline_h * 3600);
    }
    q.np_min = q.np_max = q.np_ref = np;
    q.dur_ref = run;
    q.pp_ref = 1;
    q.speedup = msg::to_spec(*speedup_model::amdahl(0.0));
    q.prefer = *parse_preferences("end");
    q.policy = p.policy;
    q.esr_threshold = -1;
    q.tsn_max = 8;
    q.tss_gap = 600;
    q.movable = c.policy.laxity;  // the paper's ARs: (t, e, d), placed and moved by the clusters
    s.requests.push_back({j.job_id, j.submit_time, std::move(q), sim::bound_job{run, false}, !ar});
  }
  return s;
}

result<measures> run_point(const paper002_config& c, const std::vector<job_draw>& jobs,
                           const point& p) {
  auto out = sim::run_simulation(scenario_of(c, jobs, p));
  if (!out) return out.err();
  // A request the broker finds malformed (e.g. a policy it does not know) is a mistake in
  // the experiment, not a rejection to count.
  for (const auto& r : out->requests)
    if (!r.ok() && (r.reply.error.code == static_cast<std::uint8_t>(errc::invalid_parameter) ||
                    r.reply.error.code == static_cast<std::uint8_t>(errc::invalid_processor_range)))
      return fail(errc::invalid_parameter,
                  "request " + std::to_string(r.id) + ": " + r.reply.error.message);
  auto m = sim::collect(*out);
  if (!m) return m.err();
  const timestamp begin = jobs.front().job.submit_time;
  auto sum = m->summary(begin, std::max(out->end_time, begin + 1));
  if (!sum) return sum.err();
  return measures{sum->work_rejected_percent,
                  sum->utilization,
                  sum->fairness,
                  sum->blocking_probability,
                  sum->mean_response_advance_reservation,
                  sum->mean_response_on_demand};
}

// Two-sided 95 % quantile of Student's t with df degrees of freedom (1.96 beyond 30).
double t975(std::size_t df) {
  static constexpr double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                     2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                     2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                     2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  return df >= 1 && df <= std::size(table) ? table[df - 1] : 1.96;
}

struct interval {
  std::size_t n = 0;
  double mean = 0;
  double half_width = 0;  // 95 % confidence
};

interval confidence(const std::vector<double>& xs) {
  interval ci;
  ci.n = xs.size();
  if (xs.empty()) return ci;
  for (double x : xs)
    ci.mean += x;
  ci.mean /= static_cast<double>(xs.size());
  if (xs.size() < 2) return ci;
  double ss = 0;
  for (double x : xs)
    ss += (x - ci.mean) * (x - ci.mean);
  const double sd = std::sqrt(ss / static_cast<double>(xs.size() - 1));
  ci.half_width = t975(xs.size() - 1) * sd / std::sqrt(static_cast<double>(xs.size()));
  return ci;
}

std::string label(const std::string& policy) {
  return policy.empty() ? std::string("broker") : policy;
}

std::string number(double v) {  // 1, 0.5, 1000: as the configs write them
  std::ostringstream os;
  os << v;
  return os.str();
}

std::string cell(const interval& ci, int decimals) {
  return ci.n ? plus_minus(ci.mean, ci.half_width, decimals) : "-";
}

}  // namespace

status run_paper002(const paper002_config& c, const run_options& opt) {
  const auto dir = opt.out_dir / c.name;
  std::filesystem::create_directories(dir);
  std::vector<std::vector<job_draw>> reps;
  for (std::size_t r = 0; r < c.repetitions; ++r) {
    auto jobs = draw_jobs(c, c.seed + r);
    if (!jobs) return jobs.err();
    if (jobs->empty()) return fail(errc::invalid_parameter, c.name + ": no jobs");
    reps.push_back(std::move(*jobs));
  }
  std::vector<point> points;
  for (double par : c.par)
    for (double l : c.laxity_percent)
      for (const auto& policy : c.policies)
        for (std::size_t r = 0; r < c.repetitions; ++r)
          points.push_back({par, l, policy, r});

  std::vector<result<measures>> results(points.size(), measures{});
  {
    progress_bar bar(c.name, points.size(), opt.progress);
    parallel_for(points.size(), opt.threads, bar,
                 [&](std::size_t i) { results[i] = run_point(c, reps[points[i].rep], points[i]); });
    bar.finish();
  }
  for (std::size_t i = 0; i < results.size(); ++i)
    if (!results[i])
      return fail(results[i].err().code,
                  c.name + " policy " + label(points[i].policy) + ": " + results[i].err().message);

  // One row per (PAR, L, policy): mean and 95 % half width of every measure.
  struct row {
    double par, laxity;
    std::string policy;
    std::array<interval, metric_count> ci;
  };
  std::vector<row> rows;
  for (std::size_t i = 0; i < points.size(); i += c.repetitions) {
    row r{points[i].par, points[i].laxity, points[i].policy, {}};
    for (std::size_t m = 0; m < metric_count; ++m) {
      std::vector<double> xs;
      for (std::size_t k = i; k < i + c.repetitions; ++k)
        if ((*results[k])[m]) xs.push_back(*(*results[k])[m]);
      r.ci[m] = confidence(xs);
    }
    rows.push_back(std::move(r));
  }
  {
    std::ofstream os(dir / "results.csv");
    os << "par,laxity_percent,policy,repetitions";
    for (auto name : metric_names)
      os << ',' << name << ',' << name << "_ci95";
    os << '\n';
    for (const auto& r : rows) {
      os << r.par << ',' << r.laxity << ',' << label(r.policy) << ',' << c.repetitions;
      for (const auto& ci : r.ci)
        os << ',' << (ci.n ? fmt(ci.mean, 4) : "") << ','
           << (ci.n > 1 ? fmt(ci.half_width, 4) : "");
      os << '\n';
    }
  }
  // Paired differences against IMCT, the paper's comparison: every repetition draws its jobs
  // once for all policies, so a policy's W_R minus IMCT's in the same repetition is one
  // sample, and the interval of their mean (Student's t) says whether the two differ at all,
  // which two unpaired intervals that overlap cannot.
  std::map<std::tuple<double, double, std::string>, interval> paired;
  if (std::find(c.policies.begin(), c.policies.end(), "imct") != c.policies.end()) {
    std::map<std::tuple<double, double, std::string, std::size_t>, double> w_r;
    for (std::size_t i = 0; i < points.size(); ++i)
      if ((*results[i])[0])
        w_r[{points[i].par, points[i].laxity, points[i].policy, points[i].rep}] = *(*results[i])[0];
    std::ofstream os(dir / "paired.csv");
    os << "par,laxity_percent,policy,vs,n,W_R_difference,ci95,differs\n";
    for (double par : c.par)
      for (double l : c.laxity_percent)
        for (const auto& p : c.policies) {
          if (p == "imct") continue;
          std::vector<double> diffs;
          for (std::size_t r = 0; r < c.repetitions; ++r) {
            auto a = w_r.find({par, l, p, r}), b = w_r.find({par, l, "imct", r});
            if (a != w_r.end() && b != w_r.end()) diffs.push_back(a->second - b->second);
          }
          const auto ci = confidence(diffs);
          paired[{par, l, p}] = ci;
          os << par << ',' << l << ',' << label(p) << ",imct," << ci.n << ','
             << (ci.n ? fmt(ci.mean, 4) : "") << ',' << (ci.n > 1 ? fmt(ci.half_width, 4) : "")
             << ',' << (ci.n > 1 && std::abs(ci.mean) > ci.half_width ? "yes" : "no") << '\n';
        }
  }
  // Paper 002 Figs. 2 and 3: each measure against L, one line per policy, per PAR.
  std::vector<std::string> plot_errors;
  for (double par : c.par) {
    const std::string tag = "par" + fmt(par, 2);
    for (std::size_t m = 0; m < metric_count; ++m) {
      // No sample at this PAR (R_OD without on-demand jobs): no figure.
      if (std::none_of(rows.begin(), rows.end(),
                       [&](const row& r) { return r.par == par && r.ci[m].n > 0; }))
        continue;
      const std::string name = std::string("fig_") + metric_names[m] + "_" + tag;
      {
        std::ofstream os(dir / (name + ".csv"));
        os << "laxity_percent";
        for (const auto& p : c.policies)
          os << ',' << label(p);
        os << '\n';
        for (double l : c.laxity_percent) {
          os << l;
          for (const auto& p : c.policies)
            for (const auto& r : rows)
              if (r.par == par && r.laxity == l && r.policy == p)
                os << ',' << (r.ci[m].n ? fmt(r.ci[m].mean, 4) : "");
          os << '\n';
        }
      }
      std::ostringstream gp;
      gp << png_script_head(name) << "set title '" << metric_names[m] << " (PAR = " << par
         << ")'\nset xlabel 'mean laxity L (% of run time)'\nset grid\nset key outside right\n"
         << "plot for [i=2:" << c.policies.size() + 1 << "] '" << name
         << ".csv' using 1:i with linespoints title columnheader(i)\n";
      if (auto ok = gnuplot(dir, name, gp.str(), opt.plots); !ok)
        plot_errors.push_back(ok.err().message);
    }
  }
  // The tables of docs/experiments.md (tables.md): per PAR and measure, policies against L
  // (the paper's Figs. 2 and 3); per PAR, every policy against IMCT, paired; at the largest L,
  // every measure of every policy; per policy, every measure by PAR and L.
  std::vector<md_table> tables;
  const auto find_row = [&](double par, double l, const std::string& p) -> const row* {
    for (const auto& r : rows)
      if (r.par == par && r.laxity == l && r.policy == p) return &r;
    return nullptr;
  };
  for (double par : c.par)
    for (std::size_t m = 0; m < metric_count; ++m) {
      md_table t{std::string(metric_names[m]) + "_par" + number(par),
                 std::string(metric_headers[m]) + " at PAR = " + number(par) +
                     ", mean ± 95 % half width over " + std::to_string(c.repetitions) +
                     " repetitions",
                 {"policy"},
                 {}};
      for (double l : c.laxity_percent)
        t.header.push_back("L = " + number(l) + " %");
      bool any = false;
      for (const auto& p : c.policies) {
        std::vector<std::string> cells{label(p)};
        for (double l : c.laxity_percent) {
          const row* r = find_row(par, l, p);
          cells.push_back(r ? cell(r->ci[m], metric_decimals[m]) : "-");
          any = any || (r && r->ci[m].n);
        }
        t.rows.push_back(std::move(cells));
      }
      if (any) tables.push_back(std::move(t));
    }
  if (!paired.empty())
    for (double par : c.par) {
      md_table t{"paired_par" + number(par),
                 "W_R % at PAR = " + number(par) +
                     " against IMCT's in the same repetition: each policy's mean, its share of "
                     "IMCT's and the paired difference with its 95 % interval (bold: it excludes "
                     "0), over " +
                     std::to_string(c.repetitions) + " repetitions",
                 {"L (%)", "W_R imct"},
                 {}};
      for (const auto& p : c.policies)
        if (p != "imct")
          for (auto h : {"W_R " + label(p), label(p) + " / imct", label(p) + " - imct, paired"})
            t.header.push_back(h);
      for (double l : c.laxity_percent) {
        const row* base = find_row(par, l, "imct");
        std::vector<std::string> cells{number(l), base ? cell(base->ci[0], 2) : "-"};
        for (const auto& p : c.policies) {
          if (p == "imct") continue;
          const row* r = find_row(par, l, p);
          cells.push_back(r ? cell(r->ci[0], 2) : "-");
          cells.push_back(r && base && r->ci[0].n && base->ci[0].n && base->ci[0].mean > 0
                              ? fmt(r->ci[0].mean / base->ci[0].mean, 3)
                              : "-");
          const auto d = paired.find({par, l, p});
          const bool differs = d != paired.end() && d->second.n > 1 &&
                               std::abs(d->second.mean) > d->second.half_width;
          cells.push_back(d == paired.end() || d->second.n < 2
                              ? "-"
                              : (differs ? "**" : "") + cell(d->second, 3) + (differs ? "**" : ""));
        }
        t.rows.push_back(std::move(cells));
      }
      tables.push_back(std::move(t));
    }
  if (!c.laxity_percent.empty()) {
    const double l = c.laxity_percent.back();
    md_table t{"at_L" + number(l),
               "Every measure at L = " + number(l) + " %, mean ± 95 % half width over " +
                   std::to_string(c.repetitions) + " repetitions",
               {"policy"},
               {}};
    for (double par : c.par)
      for (auto h : metric_headers)
        t.header.push_back(std::string(h) + " (PAR " + number(par) + ")");
    for (const auto& p : c.policies) {
      std::vector<std::string> cells{label(p)};
      for (double par : c.par) {
        const row* r = find_row(par, l, p);
        for (std::size_t m = 0; m < metric_count; ++m)
          cells.push_back(r ? cell(r->ci[m], metric_decimals[m]) : "-");
      }
      t.rows.push_back(std::move(cells));
    }
    tables.push_back(std::move(t));
  }
  for (const auto& p : c.policies) {
    md_table t{"measures_" + label(p),
               "Every measure of " + label(p) + " by PAR and L, mean ± 95 % half width over " +
                   std::to_string(c.repetitions) + " repetitions",
               {"PAR, L"},
               {}};
    for (auto h : metric_headers)
      t.header.push_back(h);
    for (double par : c.par)
      for (double l : c.laxity_percent) {
        std::vector<std::string> cells{number(par) + ", " + number(l) + " %"};
        const row* r = find_row(par, l, p);
        for (std::size_t m = 0; m < metric_count; ++m)
          cells.push_back(r ? cell(r->ci[m], metric_decimals[m]) : "-");
        t.rows.push_back(std::move(cells));
      }
    tables.push_back(std::move(t));
  }
  write_tables(dir, c.name, tables);

  // The paper's headline: W_R of MLI relative to IMCT at the largest L, PAR = 1.
  std::optional<double> mli, imct;
  const double l_max = c.laxity_percent.empty() ? 0 : c.laxity_percent.back();
  for (const auto& r : rows)
    if (r.par == 1 && r.laxity == l_max && r.ci[0].n) {
      if (r.policy == "mli") mli = r.ci[0].mean;
      if (r.policy == "imct") imct = r.ci[0].mean;
    }
  std::cout << c.name << ": " << points.size() << " runs of " << c.jobs << " jobs";
  if (mli && imct && *imct > 0)
    std::cout << "; W_R(MLI) / W_R(IMCT) at L = " << l_max
              << " %, PAR = 1: " << fmt(*mli / *imct, 3) << " (paper: " << c.paper_mli_over_imct
              << ")";
  if (auto d = paired.find({1.0, l_max, "mli"}); d != paired.end() && d->second.n > 1)
    std::cout << "; paired W_R(MLI) - W_R(IMCT): " << fmt(d->second.mean, 3) << " +- "
              << fmt(d->second.half_width, 3) << " % (" << d->second.n << " repetitions, "
              << (std::abs(d->second.mean) > d->second.half_width ? "they differ"
                                                                  : "no difference shown")
              << ")";
  std::cout << "; admission " << admission_of(c.policy) << "; output in " << dir.string() << '\n';
  for (const auto& e : plot_errors)
    std::cerr << "warning: " << e << '\n';
  return {};
}

}  // namespace arbroker::simapp
