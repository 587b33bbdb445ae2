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
#include "plots.hpp"
#include "progress.hpp"
#include "runner.hpp"

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

struct share_result {
  double share = 0;
  // per resource, then the total at index resources.size()
  std::vector<std::size_t> local_jobs, requests, granted;
  std::vector<double> wait_sum, offset_sum, busy_cpu_s, capacity_cpu_s;
};

std::string fmt(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

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

  std::vector<share_result> results;
  progress_bar bar(c.name, c.shares.size(), opt.progress);
  for (double share : c.shares) {
    sim::scenario s;
    for (const auto& r : c.resources)
      s.clusters.push_back({.name = r.name, .cpus = r.cpus, .pp = r.rating});
    std::vector<const gridsim_job*> ar_jobs;
    for (const auto& j : *jobs) {
      const auto& res = c.resources[static_cast<std::size_t>(j.resource)];
      const duration run = run_time(j, res);
      if (j.ar_draw >= share) {
        s.jobs.push_back(
            {j.id, j.resource, j.submit, 1, run, run, "user" + std::to_string(j.user)});
        continue;
      }
      msg::elastic_request q;
      q.user = "user" + std::to_string(j.user);
      q.est = j.submit + static_cast<duration>(c.book_ahead_min * 60);
      q.dur_ref = std::max<duration>(1, static_cast<duration>(std::ceil(run * c.overestimate)));
      q.let = q.est + q.dur_ref + static_cast<duration>(c.window_h * 3600);
      q.np_min = q.np_max = q.np_ref = 1;
      q.pp_ref = res.rating;
      q.speedup = msg::to_spec(*speedup_model::amdahl(0.0));
      q.prefer = "end,cost";
      q.esr_threshold = -1;
      q.tsn_max = 8;
      q.tss_gap = 600;
      q.clusters = {res.name};
      // GridSim reservations take free CPUs ahead of queued jobs: no local-jobs-preferred.
      q.local_jobs_preferred = false;
      s.requests.push_back({j.id, j.submit, std::move(q)});
      ar_jobs.push_back(&j);
    }
    auto out = sim::run_simulation(s);
    if (!out)
      return fail(out.err().code, c.name + " share " + pct(share) + ": " + out.err().message);

    share_result sr;
    sr.share = share;
    for (auto* v : {&sr.local_jobs, &sr.requests, &sr.granted})
      v->assign(R + 1, 0);
    for (auto* v : {&sr.wait_sum, &sr.offset_sum, &sr.busy_cpu_s, &sr.capacity_cpu_s})
      v->assign(R + 1, 0.0);
    // Utilization of a resource over its own busy period: first arrival to its last end.
    const timestamp t0 = jobs->front().submit;
    std::vector<timestamp> last_end(R, t0 + 1);
    for (const auto& jr : out->jobs)
      last_end[static_cast<std::size_t>(jr.cluster)] =
          std::max(last_end[static_cast<std::size_t>(jr.cluster)], jr.end);
    for (const auto& rr : out->requests)
      if (rr.ok() && rr.cluster >= 0)
        last_end[static_cast<std::size_t>(rr.cluster)] =
            std::max(last_end[static_cast<std::size_t>(rr.cluster)], rr.reply.reservation.end);
    for (std::size_t r = 0; r < R; ++r) {
      sr.capacity_cpu_s[r] = c.resources[r].cpus * static_cast<double>(last_end[r] - t0);
      sr.capacity_cpu_s[R] += sr.capacity_cpu_s[r];
    }
    for (std::size_t i = 0; i < out->jobs.size(); ++i) {
      const auto& jr = out->jobs[i];
      auto r = static_cast<std::size_t>(jr.cluster);
      for (auto k : {r, R}) {
        ++sr.local_jobs[k];
        sr.wait_sum[k] += static_cast<double>(jr.wait());
        sr.busy_cpu_s[k] += static_cast<double>(jr.end - jr.start) * jr.np;
      }
    }
    for (std::size_t i = 0; i < out->requests.size(); ++i) {
      const auto& rr = out->requests[i];
      const auto& j = *ar_jobs[i];
      auto r = static_cast<std::size_t>(j.resource);
      for (auto k : {r, R}) {
        ++sr.requests[k];
        if (!rr.ok()) continue;
        ++sr.granted[k];
        const auto& res = rr.reply.reservation;
        sr.offset_sum[k] += static_cast<double>(res.start - s.requests[i].request.est);
        // Non-restartable: the job runs its real time inside the reservation, the rest idles.
        sr.busy_cpu_s[k] += static_cast<double>(std::min<duration>(run_time(j, c.resources[r]),
                                                                   res.end - res.start)) *
                            res.np;
      }
    }
    results.push_back(std::move(sr));
    bar.update(results.size());
  }
  bar.finish();

  auto mwt = [](const share_result& s, std::size_t k) {
    return s.local_jobs[k] ? s.wait_sum[k] / static_cast<double>(s.local_jobs[k]) : 0.0;
  };
  auto mot_min = [](const share_result& s, std::size_t k) {
    return s.granted[k] ? s.offset_sum[k] / static_cast<double>(s.granted[k]) / 60.0 : 0.0;
  };
  auto util = [](const share_result& s, std::size_t k) {
    return s.capacity_cpu_s[k] > 0 ? s.busy_cpu_s[k] / s.capacity_cpu_s[k] : 0.0;
  };
  auto name_of = [&](std::size_t k) { return k < R ? c.resources[k].name : std::string("all"); };

  // The table: one row per share and resource (and "all").
  {
    std::ofstream os(dir / "results.csv");
    os << "share,resource,local_jobs,mwt_s,mwt_increase,paper_mwt_increase,requests,granted,"
          "rejections,mot_min,paper_mot_min,utilization\n";
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto& s = results[i];
      for (std::size_t k = 0; k <= R; ++k) {
        const double base = mwt(results.front(), k);
        os << s.share << ',' << name_of(k) << ',' << s.local_jobs[k] << ',' << fmt(mwt(s, k), 1)
           << ',' << (base > 0 ? fmt(mwt(s, k) / base - 1, 3) : "") << ','
           << (k == R && i < c.paper_mwt_increase.size() ? fmt(c.paper_mwt_increase[i], 2) : "")
           << ',' << s.requests[k] << ',' << s.granted[k] << ',' << s.requests[k] - s.granted[k]
           << ',' << fmt(mot_min(s, k), 1) << ','
           << (k == R && i < c.paper_mot_min.size() && c.paper_mot_min[i] >= 0
                   ? fmt(c.paper_mot_min[i], 0)
                   : "")
           << ',' << fmt(util(s, k), 3) << '\n';
      }
    }
  }
  // Figures 9-12: one clustered bar chart per metric, resources on the x axis.
  std::vector<std::string> plot_errors;
  auto figure = [&](const std::string& name, const std::string& ylabel, auto metric) {
    {
      std::ofstream os(dir / (name + ".csv"));
      os << "resource";
      for (const auto& s : results)
        os << ",AR " << pct(s.share);
      os << '\n';
      for (std::size_t k = 0; k <= R; ++k) {
        os << name_of(k);
        for (const auto& s : results)
          os << ',' << fmt(metric(s, k), 3);
        os << '\n';
      }
    }
    std::ostringstream gp;
    gp << "set terminal pngcairo noenhanced size 900,600\nset datafile separator ','\n"
       << "set output '" << name << ".png'\nset title '" << ylabel << "'\n"
       << "set style data histograms\nset style histogram clustered gap 1\n"
       << "set style fill solid 0.8 border -1\nset key top left\nset grid y\nset yrange [0:*]\n"
       << "plot for [i=2:" << results.size() + 1 << "] '" << name
       << ".csv' using i:xtic(1) title columnheader(i)\n";
    if (auto ok = gnuplot(dir, name, gp.str(), opt.plots); !ok)
      plot_errors.push_back(ok.err().message);
  };
  figure("fig9_mwt", "Mean waiting time of the jobs without reservation (s)", mwt);
  figure("fig10_mot", "Mean offset from the requested reservation start (min)", mot_min);
  figure("fig11_utilization", "Utilization", util);
  figure("fig12_rejections", "Rejected reservation requests",
         [](const share_result& s, std::size_t k) {
           return static_cast<double>(s.requests[k] - s.granted[k]);
         });

  std::cout << c.name << ": " << jobs->size() << " jobs on " << R << " resources, "
            << results.size() << " runs; output in " << dir.string() << '\n';
  for (const auto& e : plot_errors)
    std::cerr << "warning: " << e << '\n';
  return {};
}

}  // namespace arbroker::simapp
