// Experiment 4: paper 004 (Migol's ARS and JBS), Sec. IV-D: how accurate the earliest start
// estimation (ESE) is, and how often it ranks two clusters right, when the background jobs'
// walltimes overestimate their run times by 10 % to 50 %.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "arbroker/sim/metrics.hpp"
#include "arbroker/sim/sound_jobs.hpp"
#include "arbroker/sim/swf.hpp"
#include "arbroker/simulator/driver.hpp"
#include "format.hpp"
#include "plots.hpp"
#include "progress.hpp"
#include "runner.hpp"
#include "tables.hpp"
#include "trace_reader.hpp"

namespace arbroker::simapp {
namespace {

std::string mean_or_empty(const std::optional<double>& v) {
  return v ? fmt(*v, 3) : std::string();
}

// The workloads' jobs, each cut from its trace and shifted to submit from 0.
result<std::vector<std::vector<sim::swf_job>>> load_workloads(const paper004_config& c,
                                                              const run_options& opt) {
  std::map<std::string, std::vector<sim::swf_job>> sound;  // per trace, read once
  std::vector<std::vector<sim::swf_job>> out;
  for (const auto& w : c.workloads) {
    auto it = sound.find(w.trace);
    if (it == sound.end()) {
      auto trace = read_trace(opt.traces_dir / w.trace, opt.strict);
      if (!trace) return trace.err();
      it = sound.emplace(w.trace, sim::sound_batch_jobs(trace->jobs, c.rule)).first;
    }
    const auto& all = it->second;
    if (w.skip + w.jobs > all.size())
      return fail(
          errc::invalid_parameter,
          w.name + ": " + w.trace + " has " + std::to_string(all.size()) +
              " sound batch jobs, fewer than skip + jobs = " + std::to_string(w.skip + w.jobs));
    std::vector<sim::swf_job> jobs(all.begin() + static_cast<std::ptrdiff_t>(w.skip),
                                   all.begin() + static_cast<std::ptrdiff_t>(w.skip + w.jobs));
    const timestamp t0 = jobs.front().submit_time;
    for (auto& j : jobs)
      j.submit_time -= t0;
    out.push_back(std::move(jobs));
  }
  return out;
}

// One probe: the same test job sent to both clusters at one instant.
struct probe {
  timestamp at = 0;
  std::size_t test_job = 0;
  std::size_t job[2] = {0, 0};  // indices in the scenario's jobs
};

struct run_result {
  std::size_t pair = 0;
  double overestimate = 1;
  // Per test job: ac per cluster (mean of eq. 8), ranking right / probes ranked.
  std::vector<std::optional<double>> accuracy[2];
  // Per test job and cluster: probes whose real start was the submit (no wait at all), and
  // the mean real and estimated waits, to tell why ac is what it is.
  std::vector<std::size_t> at_once[2];
  std::vector<double> real_wait[2], estimated_wait[2];
  std::vector<std::size_t> ranked, right;
};

}  // namespace

status run_paper004(const paper004_config& c, const run_options& opt) {
  const auto dir = opt.out_dir / c.name;
  std::filesystem::create_directories(dir);
  auto workloads = load_workloads(c, opt);
  if (!workloads) return workloads.err();
  const std::size_t T = c.test_jobs.size();

  std::vector<run_result> results;
  progress_bar bar(c.name, c.pairs.size() * c.overestimates.size(), opt.progress);
  for (std::size_t p = 0; p < c.pairs.size(); ++p) {
    for (double f : c.overestimates) {
      sim::scenario s;
      for (const auto& name : c.clusters)
        s.clusters.push_back(
            {.name = name, .cpus = c.cpus, .scheduler = c.scheduler, .policy = c.policy});
      timestamp last_submit = time_infinity;
      const std::size_t w_of[2] = {c.pairs[p].first, c.pairs[p].second};
      for (int k = 0; k < 2; ++k) {
        const auto& jobs = (*workloads)[w_of[k]];
        for (const auto& j : jobs) {
          sim::local_job l;
          l.id = j.job_id;
          l.cluster = k;
          l.submit = j.submit_time;
          l.np = static_cast<int>(std::min<std::int64_t>(sim::procs(j), c.cpus));
          l.runtime = j.run_time;
          l.walltime = std::max<duration>(
              1, static_cast<duration>(std::ceil(static_cast<double>(j.run_time) * f)));
          l.owner = "u" + std::to_string(j.user_id);
          s.jobs.push_back(l);
        }
        last_submit = std::min(last_submit, jobs.back().submit_time);
      }
      // Probes while both background workloads still arrive.
      std::vector<probe> probes;
      const auto every = static_cast<duration>(c.probe_every_h * 3600);
      for (timestamp t = static_cast<timestamp>(c.probe_start_h * 3600); t < last_submit;
           t += every) {
        probe pr{t, probes.size() % T, {}};
        const auto& tj = c.test_jobs[pr.test_job];
        for (int k = 0; k < 2; ++k) {
          sim::local_job l;
          l.id = 1'000'000'000 + static_cast<std::int64_t>(probes.size());
          l.cluster = k;
          l.submit = t;
          l.np = tj.np;
          l.runtime = l.walltime = tj.runtime;
          l.owner = "tester";
          l.estimate = true;
          pr.job[k] = s.jobs.size();
          s.jobs.push_back(l);
        }
        probes.push_back(pr);
      }
      auto out = sim::run_simulation(s);
      if (!out) return out.err();

      run_result r;
      r.pair = p;
      r.overestimate = f;
      r.ranked.assign(T, 0);
      r.right.assign(T, 0);
      for (int k = 0; k < 2; ++k) {
        for (std::size_t t = 0; t < T; ++t) {
          auto m = sim::metrics_collector::create(c.cpus);
          if (!m) return m.err();
          std::size_t n = 0, zero = 0;
          double real = 0, est = 0;
          for (const auto& pr : probes) {
            const auto& jr = out->jobs[pr.job[k]];
            if (pr.test_job != t || jr.estimated_start < 0 || jr.start < 0) continue;
            if (auto ok = m->start_estimate(pr.at, jr.estimated_start, jr.start); !ok)
              return ok.err();
            ++n;
            zero += jr.start == pr.at ? 1 : 0;
            real += static_cast<double>(jr.start - pr.at);
            est += static_cast<double>(jr.estimated_start - pr.at);
          }
          r.at_once[k].push_back(zero);
          r.real_wait[k].push_back(n ? real / static_cast<double>(n) : 0);
          r.estimated_wait[k].push_back(n ? est / static_cast<double>(n) : 0);
          auto sum = m->summary(0, 1);
          if (!sum) return sum.err();
          r.accuracy[k].push_back(sum->estimate_accuracy);
        }
      }
      // Ranking: the JBS picks the cluster with the earlier estimate (the first on a tie);
      // right if that cluster's real start is no later than the other's.
      for (const auto& pr : probes) {
        const auto& a = out->jobs[pr.job[0]];
        const auto& b = out->jobs[pr.job[1]];
        if (a.estimated_start < 0 || b.estimated_start < 0) continue;
        const bool pick_a = a.estimated_start <= b.estimated_start;
        ++r.ranked[pr.test_job];
        if (pick_a ? a.start <= b.start : b.start <= a.start) ++r.right[pr.test_job];
      }
      results.push_back(std::move(r));
      bar.update(results.size());
    }
  }
  bar.finish();

  auto pair_name = [&](std::size_t p) {
    return c.workloads[c.pairs[p].first].name + "/" + c.workloads[c.pairs[p].second].name;
  };
  {
    std::ofstream os(dir / "ese.csv");
    os << "pair,overestimate,test_job,ac_" << c.clusters[0] << ",ac_" << c.clusters[1]
       << ",probes_ranked,ranking_right,ranking_right_share";
    for (const auto& name : c.clusters)
      os << ",no_wait_" << name << ",real_wait_s_" << name << ",estimated_wait_s_" << name;
    os << '\n';
    for (const auto& r : results)
      for (std::size_t t = 0; t < T; ++t) {
        os << pair_name(r.pair) << ',' << r.overestimate << ',' << c.test_jobs[t].name << ','
           << mean_or_empty(r.accuracy[0][t]) << ',' << mean_or_empty(r.accuracy[1][t]) << ','
           << r.ranked[t] << ',' << r.right[t] << ','
           << (r.ranked[t] ? fmt(static_cast<double>(r.right[t]) / r.ranked[t], 3) : "");
        for (int k = 0; k < 2; ++k)
          os << ',' << r.at_once[k][t] << ',' << fmt(r.real_wait[k][t], 0) << ','
             << fmt(r.estimated_wait[k][t], 0);
        os << '\n';
      }
  }
  // Per workload (paper 004 Fig. 7): ac averaged over the runs it appears in, per test job.
  auto accuracy_of = [&](double f, std::size_t w, std::size_t t) -> std::optional<double> {
    double sum = 0;
    int n = 0;
    for (const auto& r : results) {
      if (r.overestimate != f) continue;
      const std::size_t w_of[2] = {c.pairs[r.pair].first, c.pairs[r.pair].second};
      for (int k = 0; k < 2; ++k)
        if (w_of[k] == w && r.accuracy[k][t]) {
          sum += *r.accuracy[k][t];
          ++n;
        }
    }
    if (!n) return std::nullopt;
    return sum / n;
  };
  {
    std::ofstream os(dir / "accuracy_by_workload.csv");
    os << "overestimate";
    for (const auto& w : c.workloads)
      for (const auto& tj : c.test_jobs)
        os << ',' << w.name << ' ' << tj.name;
    os << '\n';
    for (double f : c.overestimates) {
      os << f;
      for (std::size_t w = 0; w < c.workloads.size(); ++w)
        for (std::size_t t = 0; t < T; ++t) {
          const auto ac = accuracy_of(f, w, t);
          os << ',' << (ac ? fmt(*ac, 3) : "");
        }
      os << '\n';
    }
  }
  // Over all pairs and test jobs, per overestimate: the headline numbers.
  std::size_t all_ranked = 0, all_right = 0;
  md_table ranking{"ranking",
                   "Rankings by ESE that were right, over both test jobs and all pairs",
                   {"walltime / run time"},
                   {{"rankings right (ours)"}, {"probes ranked"}}};
  {
    std::ofstream os(dir / "ranking.csv");
    os << "overestimate,probes_ranked,ranking_right_share,paper_overall,paper_at_max\n";
    for (double f : c.overestimates) {
      std::size_t ranked = 0, right = 0;
      for (const auto& r : results)
        if (r.overestimate == f)
          for (std::size_t t = 0; t < T; ++t) {
            ranked += r.ranked[t];
            right += r.right[t];
          }
      ranking.header.push_back(fmt(f, 1));
      ranking.rows[0].push_back(
          ranked ? fmt(100.0 * static_cast<double>(right) / static_cast<double>(ranked), 1) + " %"
                 : "-");
      ranking.rows[1].push_back(std::to_string(ranked));
      if (f > 1) {
        all_ranked += ranked;
        all_right += right;
      }
      os << f << ',' << ranked << ','
         << (ranked ? fmt(static_cast<double>(right) / static_cast<double>(ranked), 3) : "") << ','
         << c.paper_ranking_correct << ','
         << (f == c.overestimates.back() ? fmt(c.paper_ranking_correct_at_max, 2) : "") << '\n';
    }
  }
  // The tables of docs/experiments.md (tables.md): the rankings, and ac per workload and test
  // job against the overestimate.
  {
    md_table accuracy{"accuracy",
                      "Mean ac (paper 004 eq. 8) per workload and test job",
                      {"walltime / run time"},
                      {}};
    for (double f : c.overestimates)
      accuracy.header.push_back(fmt(f, 1));
    for (std::size_t t = T; t-- > 0;)  // the large test job first, as the docs show it
      for (std::size_t w = 0; w < c.workloads.size(); ++w) {
        std::vector<std::string> cells{c.workloads[w].name + " " + c.test_jobs[t].name};
        for (double f : c.overestimates) {
          const auto ac = accuracy_of(f, w, t);
          cells.push_back(ac ? fmt(*ac, 2) : "-");
        }
        accuracy.rows.push_back(std::move(cells));
      }
    write_tables(dir, c.name, {ranking, accuracy});
  }
  std::vector<std::string> plot_errors;
  {
    std::ostringstream gp;
    gp << png_script_head("accuracy_by_workload")
       << "set title 'ESE accuracy ac (paper 004 eq. 8)'\n"
       << "set xlabel 'walltime / run time of the background jobs'\nset ylabel 'mean ac'\n"
       << "set yrange [0:1]\nset grid\nset key outside right\n"
       << "plot for [i=2:" << 1 + c.workloads.size() * T
       << "] 'accuracy_by_workload.csv' using 1:i with linespoints title columnheader(i)\n";
    if (auto ok = gnuplot(dir, "accuracy_by_workload", gp.str(), opt.plots); !ok)
      plot_errors.push_back(ok.err().message);
  }
  {
    std::ostringstream gp;
    gp << png_script_head("ranking") << "set title 'Rankings by ESE that were right'\n"
       << "set xlabel 'walltime / run time of the background jobs'\nset ylabel 'share right'\n"
       << "set yrange [0:1]\nset grid\n"
       << "plot 'ranking.csv' using 1:3 every ::1 with linespoints title 'ours', "
       << "'ranking.csv' using 1:4 every ::1 with lines title 'paper, all cases'\n";
    if (auto ok = gnuplot(dir, "ranking", gp.str(), opt.plots); !ok)
      plot_errors.push_back(ok.err().message);
  }
  std::cout << c.name << ": " << results.size() << " runs; rankings right in "
            << (all_ranked
                    ? fmt(100.0 * static_cast<double>(all_right) / static_cast<double>(all_ranked),
                          1)
                    : std::string("-"))
            << " % of " << all_ranked << " probes with overestimated walltimes (paper: "
            << fmt(100 * c.paper_ranking_correct, 0) << " %); admission " << admission_of(c.policy)
            << "; output in " << dir.string() << '\n';
  for (const auto& e : plot_errors)
    std::cerr << "warning: " << e << '\n';
  return {};
}

}  // namespace arbroker::simapp
