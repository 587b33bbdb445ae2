// Experiment 2: paper 001 (Sulistio, Buyya), Sec. 4: five GridSim resources, independent
// sequential jobs, 0/10/20 % of them advance reservations (non-restartable).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "arbroker/sim/arrivals.hpp"
#include "arbroker/sim/random_variates.hpp"
#include "arbroker/simulator/driver.hpp"
#include "arbroker/simulator/metrics.hpp"
#include "format.hpp"
#include "plots.hpp"
#include "progress.hpp"
#include "runner.hpp"
#include "tables.hpp"

namespace arbroker::simapp {
namespace {

struct gridsim_job {
  std::int64_t id = 0;
  std::size_t user = 0;
  timestamp submit = 0;
  double mi = 0;
  int resource = 0;
  double ar_draw = 0;  // the job is a reservation in every run whose share exceeds this
};

// The jobs, drawn once for all shares, so that the 10 % reservations are among the 20 %.
result<std::vector<gridsim_job>> make_jobs(const paper001_config& c) {
  auto arrivals = sim::poisson_arrivals::create(60.0 / c.jobs_per_minute, c.seed);
  if (!arrivals) return arrivals.err();
  sim::rng_engine rng(c.seed ^ 0x9e3779b97f4a7c15ULL);
  std::vector<gridsim_job> jobs;
  const std::size_t n = c.users * c.jobs_per_user;
  for (std::size_t k = 0; k < n; ++k) {
    gridsim_job j;
    j.id = static_cast<std::int64_t>(k + 1);
    j.user = k % c.users;
    j.submit = arrivals->next();
    if (c.max_arrival_min > 0 && static_cast<double>(j.submit) > c.max_arrival_min * 60) break;
    j.mi = c.mi_min + sim::uniform01(rng) * (c.mi_max - c.mi_min);
    j.resource = static_cast<int>(sim::uniform_index(rng, c.resources.size()));
    j.ar_draw = sim::uniform01(rng);
    jobs.push_back(j);
  }
  return jobs;
}

duration run_time(const gridsim_job& j, const paper001_resource& r) {
  return std::max<duration>(1, static_cast<duration>(std::ceil(j.mi / r.rating)));
}

// How the reservations of a run are made (paper 001 Sec. 4): non-restartable ones reserve
// an overestimate of the run time; restartable ones an underestimate, and the job is paused
// at the reservation's end and requeued; in the parallel runs every job needs parallel_np
// CPUs at once (reservations non-restartable).
enum class ar_mode { non_restartable, restartable, parallel };

const char* name_of(ar_mode m) {
  switch (m) {
    case ar_mode::restartable:
      return "restartable";
    case ar_mode::parallel:
      return "parallel";
    default:
      return "non-restartable";
  }
}

struct share_result {
  ar_mode mode = ar_mode::non_restartable;
  double share = 0;
  std::vector<sim::metrics_summary> per;  // per resource, then all at index resources.size()
  std::size_t jobs = 0;
  std::size_t on_time = 0;  // jobs (with or without reservation) completed by their deadline
  std::size_t ar_jobs = 0, ar_on_time = 0;  // of those, the ones with a reservation request
};

std::string pct(double share) {
  return fmt(100 * share, 0) + "%";
}

}  // namespace

status run_paper001(const paper001_config& c, const run_options& opt) {
  const auto dir = opt.out_dir / c.name;
  std::filesystem::create_directories(dir);
  auto jobs = make_jobs(c);
  if (!jobs) return jobs.err();
  if (jobs->empty()) return fail(errc::invalid_parameter, c.name + ": no job arrives");
  const std::size_t R = c.resources.size();

  std::vector<std::pair<ar_mode, double>> variants;
  for (double share : c.shares)
    variants.emplace_back(ar_mode::non_restartable, share);
  if (c.underestimate > 0)
    for (double share : c.shares)
      variants.emplace_back(ar_mode::restartable, share);
  if (c.parallel_np > 0)
    for (double share : c.shares)
      variants.emplace_back(ar_mode::parallel, share);

  std::vector<share_result> results;
  progress_bar bar(c.name, variants.size(), opt.progress);
  for (auto [mode, share] : variants) {
    const int np = mode == ar_mode::parallel ? c.parallel_np : 1;
    const double length_factor = mode == ar_mode::restartable ? c.underestimate : c.overestimate;
    sim::scenario s;
    for (const auto& r : c.resources)
      s.clusters.push_back({.name = r.name,
                            .cpus = r.cpus,
                            .pp = r.rating,
                            .scheduler = c.scheduler,
                            .policy = c.policy});
    std::vector<int> request_resource;
    // Success in the parallel part: done by the latest end a reservation could have had.
    std::vector<timestamp> job_deadline, request_deadline;
    for (const auto& j : *jobs) {
      const auto& res = c.resources[static_cast<std::size_t>(j.resource)];
      const duration run = run_time(j, res);
      const timestamp est = j.submit + static_cast<duration>(c.book_ahead_min * 60);
      const timestamp deadline = est + static_cast<duration>(std::ceil(run * c.overestimate)) +
                                 static_cast<duration>(c.window_h * 3600);
      if (j.ar_draw >= share) {
        s.jobs.push_back(
            {j.id, j.resource, j.submit, np, run, run, "user" + std::to_string(j.user)});
        job_deadline.push_back(deadline);
        continue;
      }
      msg::elastic_request q;
      q.user = "user" + std::to_string(j.user);
      q.est = est;
      q.dur_ref = std::max<duration>(1, static_cast<duration>(std::ceil(run * length_factor)));
      q.let = q.est + q.dur_ref + static_cast<duration>(c.window_h * 3600);
      q.np_min = q.np_max = q.np_ref = np;
      q.pp_ref = res.rating;
      q.speedup = msg::to_spec(*speedup_model::amdahl(0.0));
      q.prefer = *parse_preferences("end,cost");
      q.esr_threshold = -1;
      q.tsn_max = 8;
      q.tss_gap = 600;
      q.clusters = {res.name};  // the resources' rule decides (c.policy: none, as GridSim)
      s.requests.push_back(
          {j.id, j.submit, std::move(q), sim::bound_job{run, mode == ar_mode::restartable}});
      request_resource.push_back(j.resource);
      request_deadline.push_back(deadline);
    }
    auto out = sim::run_simulation(s);
    if (!out)
      return fail(out.err().code,
                  c.name + " " + name_of(mode) + " share " + pct(share) + ": " + out.err().message);

    share_result sr;
    sr.mode = mode;
    sr.share = share;
    // Utilization of a resource over its own busy period: first arrival to its last end.
    const timestamp t0 = jobs->front().submit;
    std::vector<timestamp> last_end(R + 1, t0 + 1);
    for (const auto& b : out->busy)
      for (auto k : {static_cast<std::size_t>(b.cluster), R})
        last_end[k] = std::max(last_end[k], b.to);
    for (std::size_t k = 0; k <= R; ++k) {
      sim::collect_filter f{k < R ? std::optional<int>(static_cast<int>(k)) : std::nullopt,
                            &request_resource};
      auto m = sim::collect(*out, f);
      if (!m) return m.err();
      auto sum = m->summary(t0, last_end[k]);
      if (!sum) return sum.err();
      sr.per.push_back(*sum);
    }
    // All resources: each over its own busy period, i.e. the resources' U weighted by their
    // capacity over that period (one interval for all would count the idle tails of the
    // resources that finish early).
    double capacity = 0, busy = 0;
    for (std::size_t k = 0; k < R; ++k) {
      const double cap = c.resources[k].cpus * static_cast<double>(last_end[k] - t0);
      capacity += cap;
      busy += sr.per[k].utilization.value_or(0) * cap;
    }
    if (capacity > 0) sr.per[R].utilization = busy / capacity;
    for (std::size_t i = 0; i < out->jobs.size(); ++i)
      if (out->jobs[i].end >= 0 && out->jobs[i].end <= job_deadline[i]) ++sr.on_time;
    for (std::size_t i = 0; i < out->requests.size(); ++i)
      if (out->requests[i].job_end >= 0 && out->requests[i].job_end <= request_deadline[i])
        ++sr.ar_on_time;
    sr.ar_jobs = out->requests.size();
    sr.on_time += sr.ar_on_time;
    sr.jobs = out->jobs.size() + out->requests.size();
    results.push_back(std::move(sr));
    bar.update(results.size());
  }
  bar.finish();

  auto mwt = [](const share_result& s, std::size_t k) { return s.per[k].mean_wait.value_or(0); };
  auto mot_min = [](const share_result& s, std::size_t k) {
    return s.per[k].mean_offset.value_or(0) / 60.0;
  };
  auto util = [](const share_result& s, std::size_t k) { return s.per[k].utilization.value_or(0); };
  auto name_of_resource = [&](std::size_t k) {
    return k < R ? c.resources[k].name : std::string("all");
  };
  // The run of the same mode without reservations, for the MWT increase.
  auto base_of = [&](const share_result& s) -> const share_result* {
    for (const auto& b : results)
      if (b.mode == s.mode && b.share == 0) return &b;
    return nullptr;
  };

  // The table: one row per mode, share and resource (and "all").
  {
    std::ofstream os(dir / "results.csv");
    os << "mode,share,resource,local_jobs,mwt_s,mwt_increase,paper_mwt_increase,requests,granted,"
          "rejections,mot_min,paper_mot_min,utilization,completed_by_deadline\n";
    for (const auto& s : results) {
      const auto* base = base_of(s);
      std::size_t nth = 0;  // index of the share within its mode, for the paper's numbers
      while (nth < c.shares.size() && c.shares[nth] != s.share)
        ++nth;
      const bool paper = s.mode == ar_mode::non_restartable;
      for (std::size_t k = 0; k <= R; ++k) {
        const auto& m = s.per[k];
        const double b = base ? mwt(*base, k) : 0;
        os << name_of(s.mode) << ',' << s.share << ',' << name_of_resource(k) << ',' << m.batch_jobs
           << ',' << fmt(mwt(s, k), 1) << ',' << (b > 0 ? fmt(mwt(s, k) / b - 1, 3) : "") << ','
           << (paper && k == R && nth < c.paper_mwt_increase.size()
                   ? fmt(c.paper_mwt_increase[nth], 2)
                   : "")
           << ',' << m.requests << ',' << m.accepted << ',' << m.rejected << ','
           << fmt(mot_min(s, k), 1) << ','
           << (paper && k == R && nth < c.paper_mot_min.size() && c.paper_mot_min[nth] >= 0
                   ? fmt(c.paper_mot_min[nth], 0)
                   : "")
           << ',' << fmt(util(s, k), 3) << ','
           << (k == R ? fmt(static_cast<double>(s.on_time) / static_cast<double>(s.jobs), 3) : "")
           << '\n';
      }
    }
  }
  // Figures 9-12: one clustered bar chart per metric and mode, resources on the x axis.
  std::vector<std::string> plot_errors;
  auto figure = [&](ar_mode mode, const std::string& base_name, const std::string& ylabel,
                    auto metric) {
    std::vector<const share_result*> rs;
    for (const auto& s : results)
      if (s.mode == mode) rs.push_back(&s);
    if (rs.empty()) return;
    const std::string name =
        base_name + (mode == ar_mode::non_restartable ? "" : std::string("_") + name_of(mode));
    {
      std::ofstream os(dir / (name + ".csv"));
      os << "resource";
      for (const auto* s : rs)
        os << ",AR " << pct(s->share);
      os << '\n';
      for (std::size_t k = 0; k <= R; ++k) {
        os << name_of_resource(k);
        for (const auto* s : rs)
          os << ',' << fmt(metric(*s, k), 3);
        os << '\n';
      }
    }
    std::ostringstream gp;
    gp << png_script_head(name) << "set title '" << ylabel << " (" << name_of(mode) << ")'\n"
       << "set style data histograms\nset style histogram clustered gap 1\n"
       << "set style fill solid 0.8 border -1\nset key top left\nset grid y\nset yrange [0:*]\n"
       << "plot for [i=2:" << rs.size() + 1 << "] '" << name
       << ".csv' using i:xtic(1) title columnheader(i)\n";
    if (auto ok = gnuplot(dir, name, gp.str(), opt.plots); !ok)
      plot_errors.push_back(ok.err().message);
  };
  for (auto mode : {ar_mode::non_restartable, ar_mode::restartable, ar_mode::parallel}) {
    figure(mode, "fig9_mwt", "Mean waiting time of the jobs without reservation (s)", mwt);
    figure(mode, "fig10_mot", "Mean offset from the requested reservation start (min)", mot_min);
    figure(mode, "fig11_utilization", "Utilization", util);
    figure(mode, "fig12_rejections", "Rejected reservation requests",
           [](const share_result& s, std::size_t k) {
             return static_cast<double>(s.per[k].rejected);
           });
  }
  // Figure 13: parallel jobs completed by their deadline, per share of reservations.
  if (c.parallel_np > 0) {
    {
      std::ofstream os(dir / "fig13_parallel.csv");
      os << "share,jobs,completed_by_deadline,percent,with_ar,with_ar_by_deadline,with_ar_percent,"
            "without_ar,without_ar_by_deadline,without_ar_percent\n";
      auto percent = [](std::size_t part, std::size_t whole) {
        return whole ? fmt(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1)
                     : std::string();
      };
      for (const auto& s : results)
        if (s.mode == ar_mode::parallel)
          os << pct(s.share) << ',' << s.jobs << ',' << s.on_time << ','
             << percent(s.on_time, s.jobs) << ',' << s.ar_jobs << ',' << s.ar_on_time << ','
             << percent(s.ar_on_time, s.ar_jobs) << ',' << s.jobs - s.ar_jobs << ','
             << s.on_time - s.ar_on_time << ','
             << percent(s.on_time - s.ar_on_time, s.jobs - s.ar_jobs) << '\n';
    }
    std::ostringstream gp;
    gp << png_script_head("fig13_parallel") << "set title 'Parallel jobs (" << c.parallel_np
       << " CPUs) completed by their deadline (%)'\nset style data histograms\n"
       << "set style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
       << "set grid y\nset yrange [0:100]\n"
       << "set key top right\nplot 'fig13_parallel.csv' using 4:xtic(1) every ::1 title 'all', "
       << "'' using 7 every ::1 title 'with AR', '' using 10 every ::1 title 'without AR'\n";
    if (auto ok = gnuplot(dir, "fig13_parallel", gp.str(), opt.plots); !ok)
      plot_errors.push_back(ok.err().message);
  }

  // The tables of docs/experiments.md (tables.md): per mode, the totals over all resources
  // by share of reservations; the parallel part's completions by their deadline.
  {
    std::vector<md_table> tables;
    auto percent = [](std::size_t part, std::size_t whole) {
      return whole ? fmt(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + " %"
                   : std::string("-");
    };
    for (auto mode : {ar_mode::non_restartable, ar_mode::restartable, ar_mode::parallel}) {
      md_table t{name_of(mode),
                 std::string(name_of(mode)) +
                     " reservations, all resources, by share of jobs "
                     "with a reservation request",
                 {""},
                 {{"MWT increase (ours)"},
                  {"MOT (ours)"},
                  {"utilization, all resources (ours)"},
                  {"rejected requests (ours)"}}};
      if (mode == ar_mode::parallel)
        t.rows = {{"all jobs completed by the deadline"},
                  {"jobs with a reservation request"},
                  {"jobs without"}};
      for (const auto& s : results) {
        if (s.mode != mode) continue;
        t.header.push_back(fmt(100 * s.share, 0) + " %");
        if (mode == ar_mode::parallel) {
          t.rows[0].push_back(percent(s.on_time, s.jobs));
          t.rows[1].push_back(s.ar_jobs ? percent(s.ar_on_time, s.ar_jobs) + " (" +
                                              std::to_string(s.ar_on_time) + " of " +
                                              std::to_string(s.ar_jobs) + ")"
                                        : "-");
          t.rows[2].push_back(percent(s.on_time - s.ar_on_time, s.jobs - s.ar_jobs));
          continue;
        }
        const auto& all = s.per[R];
        const auto* base = base_of(s);
        const double b = base ? mwt(*base, R) : 0;
        t.rows[0].push_back(s.share > 0 && b > 0 ? "+" + fmt(100 * (mwt(s, R) / b - 1), 1) + " %"
                                                 : "-");
        t.rows[1].push_back(s.share > 0 ? fmt(mot_min(s, R), 0) + " min" : "-");
        t.rows[2].push_back(fmt(100 * util(s, R), 1) + " %");
        t.rows[3].push_back(all.requests ? std::to_string(all.rejected) + " of " +
                                               std::to_string(all.requests)
                                         : "0");
      }
      if (t.header.size() > 1) tables.push_back(std::move(t));
    }
    write_tables(dir, c.name, tables);
  }

  std::cout << c.name << ": " << jobs->size() << " jobs on " << R << " resources, "
            << results.size() << " runs; admission " << admission_of(c.policy) << "; output in "
            << dir.string() << '\n';
  for (const auto& e : plot_errors)
    std::cerr << "warning: " << e << '\n';
  return {};
}

}  // namespace arbroker::simapp
