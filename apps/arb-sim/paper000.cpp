// Experiment 1: paper 000 (Roeblitz et al.), Sec. 4, on SDSC Blue Horizon.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "arbroker/sim/elastic.hpp"
#include "arbroker/simulator/metrics.hpp"
#include "arbroker/simulator/output.hpp"
#include "format.hpp"
#include "parallel.hpp"
#include "plots.hpp"
#include "progress.hpp"
#include "runner.hpp"
#include "tables.hpp"
#include "workload.hpp"

namespace arbroker::simapp {
namespace {

struct run_result {
  grid_point point;
  sim::run_summary summary;
  std::vector<duration> extra_waits;  // only for the waiting-table runs
  status error;
};

std::string num(double v) {  // shortest form for grid values (2, 0.5)
  std::ostringstream os;
  os << v;
  return os.str();
}

bool same_shape(const grid_point& a, const grid_point& b) {
  return a == b;
}

void write_summary_row(std::ostream& os, const run_result& r) {
  const auto& s = r.summary;
  os << num(r.point.book_ahead_h) << ',' << num(r.point.time_range_h) << ','
     << num(r.point.np_min_factor) << ',' << num(r.point.np_max_factor) << ',' << r.point.esr << ','
     << s.requests << ',' << s.successes << ',' << s.jobs << ',' << s.jobs_started << ','
     << fmt(s.mean_wait) << ',' << fmt(s.succeeded.candidates, 2) << ','
     << fmt(s.succeeded.after_threshold, 2) << ',' << fmt(s.succeeded.rejected_by_crs, 2) << ','
     << fmt(s.succeeded.rejected_by_local_scheduler, 2) << ',' << fmt(s.failed.candidates, 2) << ','
     << fmt(s.failed.after_threshold, 2) << ',' << fmt(s.failed.rejected_by_crs, 2) << ','
     << fmt(s.failed.rejected_by_local_scheduler, 2) << '\n';
}

constexpr const char* summary_header =
    "book_ahead_h,time_range_h,np_min_factor,np_max_factor,esr,requests,successes,jobs,"
    "jobs_started,mean_wait_s,ok_candidates,ok_above_threshold,ok_rejected_by_crs,"
    "ok_rejected_by_lrms,failed_candidates,failed_above_threshold,failed_rejected_by_crs,"
    "failed_rejected_by_lrms\n";

const run_result* find(const std::vector<run_result>& rs, const grid_point& p) {
  for (const auto& r : rs)
    if (same_shape(r.point, p)) return &r;
  return nullptr;
}

const std::string png_head =
    "set terminal pngcairo noenhanced size 900,600\nset datafile separator ','\nset datafile "
    "columnheaders\n";

}  // namespace

status run_paper000(const paper000_config& c, const run_options& opt) {
  const auto dir = opt.out_dir / c.name;
  std::filesystem::create_directories(dir);
  auto jobs = load_jobs(c.workload, c.cluster.cpus, opt.traces_dir, opt.strict);
  if (!jobs) return jobs.err();
  auto picks = sim::pick_one_per_group(jobs->size(), c.request.group_size, c.request.pick_seed);
  if (!picks) return picks.err();

  // The grid, plus the points of the figures and the table that it does not hold.
  std::vector<grid_point> points;
  auto add = [&](const grid_point& p) {
    if (std::find(points.begin(), points.end(), p) == points.end()) points.push_back(p);
  };
  for (const auto& esr : c.esr_methods)
    for (const auto& [fmin, fmax] : c.np_factors)
      for (double ba : c.book_ahead_h)
        for (double k : c.time_range_h)
          add({ba, k, fmin, fmax, esr});
  for (double ba : c.book_ahead_h) {
    for (double k : c.time_range_h)
      add({ba, k, c.fig6.np_min_factor, c.fig6.np_max_factor, c.fig6.esr});
    add({ba, c.table.time_range_h, c.table.np_min_factor, c.table.np_max_factor, c.table.esr});
  }
  for (const auto& esr : {"static", "history", "load"})
    add({c.fig7.book_ahead_h, c.fig7.time_range_h, c.fig7.np_min_factor, c.fig7.np_max_factor,
         esr});
  auto is_table_point = [&](const grid_point& p) {
    return p.time_range_h == c.table.time_range_h && p.esr == c.table.esr &&
           p.np_min_factor == c.table.np_min_factor && p.np_max_factor == c.table.np_max_factor;
  };

  auto is_fig7_point = [&](const grid_point& p) {
    return p.book_ahead_h == c.fig7.book_ahead_h && p.time_range_h == c.fig7.time_range_h &&
           p.np_min_factor == c.fig7.np_min_factor && p.np_max_factor == c.fig7.np_max_factor;
  };

  // The baseline: the same local jobs, no reservations.
  auto base_scn =
      build_scenario(*jobs, *picks, c.cluster, c.workload.walltime, c.request, std::nullopt);
  if (!base_scn) return base_scn.err();
  auto baseline = sim::run_simulation(*base_scn);
  if (!baseline) return baseline.err();
  {
    std::ofstream os(dir / "baseline_jobs.csv");
    sim::write_jobs_csv(os, *baseline);
  }
  const auto base_summary = sim::summarize(*baseline);

  std::vector<run_result> results(points.size());
  {
    progress_bar bar(c.name, points.size(), opt.progress);
    parallel_for(points.size(), opt.threads, bar, [&](std::size_t i) {
      auto& r = results[i];
      r.point = points[i];
      auto scn =
          build_scenario(*jobs, *picks, c.cluster, c.workload.walltime, c.request, points[i]);
      if (!scn) {
        r.error = scn.err();
        return;
      }
      auto out = sim::run_simulation(*scn);
      if (!out) {
        r.error = out.err();
        return;
      }
      r.summary = sim::summarize(*out);
      if (is_table_point(points[i])) r.extra_waits = sim::additional_waits(*out, *baseline);
      if (is_fig7_point(points[i])) {  // per-request counts of Fig. 7
        std::ofstream os(dir / ("fig7_requests_" + points[i].esr + ".csv"));
        sim::write_requests_csv(os, *out);
      }
    });
  }
  for (const auto& r : results)
    if (!r.error) return fail(r.error.err().code, r.point.key() + ": " + r.error.err().message);

  // runs.csv: every run.
  {
    std::ofstream os(dir / "runs.csv");
    os << summary_header;
    for (const auto& r : results)
      write_summary_row(os, r);
  }

  std::vector<std::string> plot_errors;
  auto plot = [&](const std::string& name, const std::string& script) {
    if (auto ok = gnuplot(dir, name, script, opt.plots); !ok)
      plot_errors.push_back(ok.err().message);
  };

  // Fig. 6: successes against the time range, one curve per book-ahead time.
  {
    std::ofstream os(dir / "fig6.csv");
    os << "time_range_h";
    for (double ba : c.book_ahead_h)
      os << ",book-ahead " << num(ba) << " h";
    os << '\n';
    for (double k : c.time_range_h) {
      os << num(k);
      for (double ba : c.book_ahead_h) {
        auto* r = find(results, {ba, k, c.fig6.np_min_factor, c.fig6.np_max_factor, c.fig6.esr});
        os << ',' << (r ? r->summary.successes : 0);
      }
      os << '\n';
    }
    std::ostringstream gp;
    gp << png_head << "set output 'fig6.png'\n"
       << "set title 'Successful reservations (esr " << c.fig6.esr << ", processor range <"
       << num(c.fig6.np_min_factor) << ", " << num(c.fig6.np_max_factor) << ">)'\n"
       << "set xlabel 'time range k (h)'\nset ylabel 'successful requests (of " << picks->size()
       << ")'\nset key bottom right\nset grid\n"
       << "plot for [i=2:" << c.book_ahead_h.size() + 1
       << "] 'fig6.csv' using 1:i with linespoints title columnheader(i)\n";
    os.close();
    plot("fig6", gp.str());
  }

  // Fig. 7: per esr method, mean counts per request, successful and failed requests apart.
  {
    std::ofstream os(dir / "fig7.csv");
    os << "esr,successes,paper_successes,ok_candidates,ok_above_threshold,ok_rejected_by_crs,"
          "ok_rejected_by_lrms,failed_candidates,failed_above_threshold,failed_rejected_by_crs,"
          "failed_rejected_by_lrms\n";
    const char* methods[] = {"static", "history", "load"};
    // The eight series (CSV columns 4..11); one that is zero for every method is left out of
    // the plot (and named in its title), not drawn as an empty legend entry.
    const char* series[] = {"ok: candidates",          "ok: above threshold",
                            "ok: rejected by CRS",     "ok: rejected by LRMS",
                            "failed: candidates",      "failed: above threshold",
                            "failed: rejected by CRS", "failed: rejected by LRMS"};
    bool nonzero[8] = {};
    for (int m = 0; m < 3; ++m) {
      auto* r = find(results, {c.fig7.book_ahead_h, c.fig7.time_range_h, c.fig7.np_min_factor,
                               c.fig7.np_max_factor, methods[m]});
      if (!r) continue;
      const auto& s = r->summary;
      const std::optional<double> v[8] = {
          s.succeeded.candidates,      s.succeeded.after_threshold,
          s.succeeded.rejected_by_crs, s.succeeded.rejected_by_local_scheduler,
          s.failed.candidates,         s.failed.after_threshold,
          s.failed.rejected_by_crs,    s.failed.rejected_by_local_scheduler};
      for (int i = 0; i < 8; ++i)
        nonzero[i] = nonzero[i] || v[i].value_or(0) != 0;
      os << methods[m] << ',' << s.successes << ','
         << (m < static_cast<int>(c.paper_fig7.size()) ? num(c.paper_fig7[m]) : "") << ','
         << fmt(s.succeeded.candidates, 2) << ',' << fmt(s.succeeded.after_threshold, 2) << ','
         << fmt(s.succeeded.rejected_by_crs, 2) << ','
         << fmt(s.succeeded.rejected_by_local_scheduler, 2) << ',' << fmt(s.failed.candidates, 2)
         << ',' << fmt(s.failed.after_threshold, 2) << ',' << fmt(s.failed.rejected_by_crs, 2)
         << ',' << fmt(s.failed.rejected_by_local_scheduler, 2) << '\n';
    }
    std::string plotted, omitted;
    for (int i = 0; i < 8; ++i) {
      if (!nonzero[i]) {
        omitted += std::string("\\n") + series[i];
        continue;
      }
      plotted += plotted.empty() ? "plot 'fig7.csv' using " + std::to_string(i + 4) + ":xtic(1)"
                                 : ", '' using " + std::to_string(i + 4);
      plotted += " title '" + std::string(series[i]) + "'";
    }
    if (plotted.empty()) plotted = "plot 'fig7.csv' using 4:xtic(1) title 'ok: candidates'";
    std::ostringstream gp;
    gp << png_head << "set output 'fig7.png'\n"
       << "set title \"Fig. 7: mean counts per request by esr method\\nbook-ahead "
       << num(c.fig7.book_ahead_h) << " h, range " << num(c.fig7.time_range_h)
       << " h; ok = successful requests, failed = refused ones\"\n"
       << "set style data histograms\nset style histogram clustered gap 1\n"
       << "set style fill solid 0.8 border -1\nset key outside right top\nset grid y\n"
       << "set yrange [0:*]\nset offsets 0, 0, graph 0.05, 0\n"
       << "set xlabel 'estimated success rate method (esr)'\nset ylabel 'count per request'\n";
    if (!omitted.empty())  // beside the key: what is zero everywhere, instead of empty entries
      gp << "set label 1 \"not drawn (0 for every method):" << omitted
         << "\" at screen 0.69, screen 0.62 left\n";
    gp << plotted << "\n";
    os.close();
    plot("fig7", gp.str());
  }

  // The waiting-time table and Fig. 8.
  {
    std::ofstream os(dir / "waits.csv");
    os << "book_ahead_h,successes,requests,mean_wait_s,paper_mean_wait_s,jobs_waiting_longer,"
          "jobs_waiting_less\n";
    std::ofstream f8(dir / "fig8.csv");
    f8 << "book_ahead_h,rank,additional_wait_s\n";
    for (std::size_t b = 0; b < c.book_ahead_h.size(); ++b) {
      double ba = c.book_ahead_h[b];
      auto* r = find(results, {ba, c.table.time_range_h, c.table.np_min_factor,
                               c.table.np_max_factor, c.table.esr});
      if (!r) continue;
      auto longer = std::count_if(r->extra_waits.begin(), r->extra_waits.end(),
                                  [](duration d) { return d > 0; });
      auto less = std::count_if(r->extra_waits.begin(), r->extra_waits.end(),
                                [](duration d) { return d < 0; });
      os << num(ba) << ',' << r->summary.successes << ',' << r->summary.requests << ','
         << fmt(r->summary.mean_wait) << ','
         << (b < c.paper_waits.size() ? num(c.paper_waits[b]) : "") << ',' << longer << ',' << less
         << '\n';
      std::size_t rank = 0;
      for (duration d : r->extra_waits)
        if (d > 0) f8 << num(ba) << ',' << ++rank << ',' << d << '\n';
    }
    os << "none," << 0 << ',' << 0 << ',' << fmt(base_summary.mean_wait) << ','
       << (c.paper_baseline_wait >= 0 ? num(c.paper_baseline_wait) : "") << ",0,0\n";
    std::ostringstream gp;
    gp << png_head << "set output 'fig8.png'\n"
       << "set title 'Additional waiting time of the batch jobs that wait longer (range "
       << num(c.table.time_range_h) << " h, esr " << c.table.esr << ")'\n"
       << "set xlabel 'position in the sorted list of jobs waiting longer'\n"
       << "set ylabel 'additional waiting time (h)'\nset key top left\nset grid\n"
       << "plot ";
    for (std::size_t b = 0; b < c.book_ahead_h.size(); ++b)
      gp << (b ? ", " : "") << "'fig8.csv' using 2:($1==" << num(c.book_ahead_h[b])
         << "?$3/3600.0:1/0) with lines lw 2 title 'book-ahead " << num(c.book_ahead_h[b]) << " h'";
    gp << '\n';
    os.close();
    f8.close();
    plot("fig8", gp.str());
  }

  // The tables of docs/experiments.md (tables.md): Fig. 6's successes, Fig. 7's counts and
  // the waiting-time table, as the CSVs above have them.
  {
    std::vector<md_table> tables;
    md_table f6{"fig6",
                "Successful reservations of " + std::to_string(picks->size()) + " (esr " +
                    c.fig6.esr + ", processor range <" + num(c.fig6.np_min_factor) + ", " +
                    num(c.fig6.np_max_factor) + ">)",
                {"time range k"},
                {}};
    for (double ba : c.book_ahead_h)
      f6.header.push_back("ba " + num(ba) + " h");
    for (double k : c.time_range_h) {
      std::vector<std::string> cells{num(k)};
      for (double ba : c.book_ahead_h) {
        auto* r = find(results, {ba, k, c.fig6.np_min_factor, c.fig6.np_max_factor, c.fig6.esr});
        cells.push_back(r ? std::to_string(r->summary.successes) : "-");
      }
      f6.rows.push_back(std::move(cells));
    }
    tables.push_back(std::move(f6));

    md_table f7{"fig7",
                "Book-ahead " + num(c.fig7.book_ahead_h) + " h, range " + num(c.fig7.time_range_h) +
                    " h: successes, and mean counts per request",
                {"esr", "successes (ours)", "successes (paper)",
                 "ok: candidates / above threshold / rejected by CRS / by LRMS",
                 "failed: candidates / above threshold / rejected by CRS / by LRMS"},
                {}};
    const char* methods[] = {"static", "history", "load"};
    for (std::size_t m = 0; m < 3; ++m) {
      auto* r = find(results, {c.fig7.book_ahead_h, c.fig7.time_range_h, c.fig7.np_min_factor,
                               c.fig7.np_max_factor, methods[m]});
      if (!r) continue;
      const auto counts = [](const auto& x) {
        return fmt(x.candidates, 2) + " / " + fmt(x.after_threshold, 2) + " / " +
               fmt(x.rejected_by_crs, 2) + " / " + fmt(x.rejected_by_local_scheduler, 2);
      };
      f7.rows.push_back({methods[m], std::to_string(r->summary.successes),
                         m < c.paper_fig7.size() ? num(c.paper_fig7[m]) : "-",
                         counts(r->summary.succeeded), counts(r->summary.failed)});
    }
    tables.push_back(std::move(f7));

    const std::string sched = c.cluster.scheduler == "easy"   ? "EASY"
                              : c.cluster.scheduler == "fcfs" ? "FCFS"
                                                              : c.cluster.scheduler;
    md_table waits{"waits",
                   "Mean wait of the batch jobs and how many wait longer or less than without "
                   "reservations (range " +
                       num(c.table.time_range_h) + " h, esr " + c.table.esr + ")",
                   {"book-ahead"},
                   {{"paper: mean wait (s)"},
                    {"ours, " + sched + ": mean wait (s)"},
                    {"ours, " + sched + ": jobs waiting longer"},
                    {"ours, " + sched + ": jobs waiting less"}}};
    for (std::size_t b = 0; b < c.book_ahead_h.size(); ++b) {
      auto* r = find(results, {c.book_ahead_h[b], c.table.time_range_h, c.table.np_min_factor,
                               c.table.np_max_factor, c.table.esr});
      waits.header.push_back(num(c.book_ahead_h[b]) + " h");
      waits.rows[0].push_back(b < c.paper_waits.size() ? num(c.paper_waits[b]) : "-");
      if (!r) {
        for (int i = 1; i < 4; ++i)
          waits.rows[i].push_back("-");
        continue;
      }
      const auto& w = r->extra_waits;
      waits.rows[1].push_back(fmt(r->summary.mean_wait, 0));
      waits.rows[2].push_back(
          std::to_string(std::count_if(w.begin(), w.end(), [](duration d) { return d > 0; })));
      waits.rows[3].push_back(
          std::to_string(std::count_if(w.begin(), w.end(), [](duration d) { return d < 0; })));
    }
    waits.header.push_back("none");
    waits.rows[0].push_back(c.paper_baseline_wait >= 0 ? "~" + num(c.paper_baseline_wait) : "-");
    waits.rows[1].push_back(fmt(base_summary.mean_wait, 0));
    waits.rows[2].push_back("-");
    waits.rows[3].push_back("-");
    tables.push_back(std::move(waits));
    write_tables(dir, c.name, tables);
  }

  // Gantt chart of one run over a chosen interval.
  if (c.gantt) {
    auto scn =
        build_scenario(*jobs, *picks, c.cluster, c.workload.walltime, c.request, c.gantt->run);
    if (!scn) return scn.err();
    auto out = sim::run_simulation(*scn);
    if (!out) return out.err();
    {
      std::ofstream os(dir / "gantt_jobs.csv");
      sim::write_jobs_csv(os, *out);
      std::ofstream rs(dir / "gantt_requests.csv");
      sim::write_requests_csv(rs, *out);
    }
    const timestamp origin = jobs->empty() ? 0 : jobs->front().submit_time;
    auto ok = gantt_chart(dir, *out, 0, c.cluster.cpus, origin,
                          origin + static_cast<timestamp>(c.gantt->from_h * 3600),
                          origin + static_cast<timestamp>(c.gantt->to_h * 3600),
                          "Local jobs and reservations on " + c.cluster.name + " (" +
                              num(c.cluster.cpus) + " CPUs): " + c.gantt->run.describe(),
                          opt.plots);
    if (!ok) plot_errors.push_back(ok.err().message);
  }

  std::cout << c.name << ": " << results.size() << " runs + baseline, " << jobs->size() << " jobs, "
            << picks->size() << " requests; baseline mean wait " << fmt(base_summary.mean_wait)
            << " s; walltime rule " << sim::to_string(c.workload.walltime) << "; admission "
            << admission_of(c.cluster.policy) << "; output in " << dir.string() << '\n';
  for (const auto& e : plot_errors)
    std::cerr << "warning: " << e << '\n';
  return {};
}

}  // namespace arbroker::simapp
