// Experiment 5 (ours, no paper has it): grid-job strategies on a grid of clusters that each
// replay a different real trace as their local load. Every n-th job of each trace becomes a
// grid job instead (its own shape, submitted at its own time); the strategies place the same
// grid jobs. Reported per strategy: time to delivery (mean, p95), wait, wasted CPU time of
// duplicate starts, migrations, calls to the clusters per job, the local jobs' mean wait
// (against a run without the grid jobs), the jobs refused or failed, and the CPU time of
// copies lost when a strategy row fails a cluster halfway (fail_cluster), and the makespan of
// workflows when a row groups the grid jobs into fork-join DAGs (dag). The clusters admit
// reservations by a node's default rule unless [grid] names another (ljp, ljp_method: the
// run prints it). See docs/experiments.md.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>

#include "arbroker/sim/sound_jobs.hpp"
#include "arbroker/sim/swf.hpp"
#include "arbroker/simulator/driver.hpp"
#include "format.hpp"
#include "parallel.hpp"
#include "plots.hpp"
#include "runner.hpp"
#include "trace_reader.hpp"

namespace arbroker::simapp {
namespace {

struct strategy_result {
  std::size_t grid_jobs = 0, completed = 0, refused = 0;
  std::size_t failed = 0;  ///< placed, then failed (or cancelled) instead of completing
  double mean_ttd = 0, p95_ttd = 0, mean_wait = 0;
  double wasted_cpu_s = 0;  ///< CPU-seconds of copies that ran and were cancelled
  double lost_cpu_s = 0;    ///< CPU-seconds of copies that ran and were lost (a failed cluster)
  double migrations_per_job = 0, calls_per_job = 0, copies_per_job = 0;
  double local_mean_wait = 0;
  std::size_t local_started = 0;
  std::size_t workflows = 0, workflows_done = 0;  ///< dag rows: workflows, all jobs completed
  double mean_makespan = 0;  ///< of the workflows done: submission to the last job's end
};

// The grid jobs in fork-join workflows of `st.dag` (a short last group: jobs on their own).
std::vector<sim::grid_arrival> workflows(const std::vector<sim::grid_arrival>& jobs,
                                         const grid5_strategy& st) {
  std::vector<sim::grid_arrival> out;
  const auto n = static_cast<std::size_t>(st.dag);
  const auto bytes = static_cast<std::int64_t>(st.output_gb * 1e9);
  for (std::size_t i = 0; i < jobs.size(); i += n) {
    if (jobs.size() - i < n) {
      out.insert(out.end(), jobs.begin() + static_cast<std::ptrdiff_t>(i), jobs.end());
      break;
    }
    sim::grid_arrival w = jobs[i];  // the first; the others after it, the last after them
    std::vector<std::string> middle;
    for (std::size_t k = i + 1; k < i + n; ++k) {
      auto r = jobs[k].request;
      r.after = k + 1 < i + n ? std::vector<std::string>{w.request.name} : middle;
      if (k + 1 < i + n) middle.push_back(r.name);
      w.with.push_back(std::move(r));
    }
    w.request.output_bytes = bytes;
    w.request.locality = st.locality;
    for (auto& r : w.with) {
      r.output_bytes = bytes;
      r.locality = st.locality;
    }
    out.push_back(std::move(w));
  }
  return out;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

strategy_result summarize(const sim::sim_output& out,
                          const std::vector<sim::grid_arrival>& arrivals) {
  strategy_result r;
  // Workflows: from their submission to their last job's end, when every job completed.
  double makespans = 0;
  for (std::size_t a = 0, first = 0; a < arrivals.size(); first += 1 + arrivals[a++].with.size()) {
    if (arrivals[a].with.empty()) continue;
    ++r.workflows;
    timestamp last = 0;
    bool done = true;
    for (std::size_t k = first; k <= first + arrivals[a].with.size(); ++k) {
      done = done && out.grid_jobs[k].state == grid_job_state::completed;
      last = std::max<timestamp>(last, out.grid_jobs[k].ended);
    }
    if (!done) continue;
    ++r.workflows_done;
    makespans += static_cast<double>(last - arrivals[a].submit);
  }
  if (r.workflows_done) r.mean_makespan = makespans / static_cast<double>(r.workflows_done);
  double wait_sum = 0;
  std::size_t local = 0;
  for (const auto& j : out.jobs)
    if (j.start >= 0) {
      wait_sum += static_cast<double>(j.start - j.submit);
      ++local;
    }
  r.local_started = local;
  r.local_mean_wait = local ? wait_sum / static_cast<double>(local) : 0;
  r.grid_jobs = out.grid_jobs.size();
  std::vector<double> ttd;
  double waits = 0, migrations = 0, copies = 0;
  for (const auto& j : out.grid_jobs) {
    if (j.id.empty()) {
      ++r.refused;
      continue;
    }
    copies += static_cast<double>(j.copies.size());
    migrations += j.migrations;
    for (const auto& c : j.copies) {
      if (c.started < 0 || c.ended < c.started) continue;
      const auto cpu_s = static_cast<double>((c.ended - c.started) * j.np);
      if (c.lost)
        r.lost_cpu_s += cpu_s;
      else if (c.state == copy_state::cancelled)
        r.wasted_cpu_s += cpu_s;
    }
    if (j.state == grid_job_state::failed || j.state == grid_job_state::cancelled) ++r.failed;
    if (j.state != grid_job_state::completed) continue;
    ++r.completed;
    ttd.push_back(static_cast<double>(j.ended - j.submitted));
    waits += static_cast<double>(j.started - j.submitted);
  }
  const double n = static_cast<double>(std::max<std::size_t>(r.completed, 1));
  const double placed = static_cast<double>(std::max<std::size_t>(r.grid_jobs - r.refused, 1));
  for (double t : ttd)
    r.mean_ttd += t / n;
  r.p95_ttd = percentile(ttd, 0.95);
  r.mean_wait = waits / n;
  r.migrations_per_job = migrations / placed;
  r.copies_per_job = copies / placed;
  r.calls_per_job = static_cast<double>(out.grid_service_calls) / placed;
  return r;
}

}  // namespace

status run_grid5(const grid5_config& c, const run_options& opt) {
  const auto dir = opt.out_dir / c.name;
  std::filesystem::create_directories(dir);
  // Each cluster's local load: its trace's sound batch jobs of the first `days` days, from 0;
  // every grid_every-th of them (in submit order, over all clusters) becomes a grid job.
  sim::scenario base;
  base.grid_poll_interval = c.poll_s;
  base.grid_event_hooks = c.event_hooks;
  base.grid_adaptation_interval = c.adaptation_s;
  const timestamp period = static_cast<timestamp>(c.days * 86400);
  std::vector<sim::grid_arrival> grid;
  int largest = 0;
  for (std::size_t k = 0; k < c.clusters.size(); ++k) {
    const auto& cl = c.clusters[k];
    largest = std::max(largest, cl.cpus);
    sim::cluster_spec spec;
    spec.name = cl.name;
    spec.cpus = cl.cpus;
    spec.scheduler = c.scheduler;
    spec.policy = c.policy;
    spec.bandwidth = c.bandwidth_mb_s * 1e6;  // a copy's inputs arrive before it starts
    base.clusters.push_back(spec);
    auto trace = read_trace(opt.traces_dir / cl.trace, opt.strict);
    if (!trace) return trace.err();
    auto jobs = sim::sound_batch_jobs(trace->jobs, sim::soundness::loose);
    if (jobs.empty()) return fail(errc::invalid_parameter, cl.trace + ": no sound batch jobs");
    const timestamp t0 = jobs.front().submit_time;
    std::size_t n = 0;
    for (const auto& j : jobs) {
      const timestamp at = j.submit_time - t0;
      if (at >= period) break;
      const int np =
          static_cast<int>(j.allocated_procs > 0 ? j.allocated_procs : j.requested_procs);
      if (np < 1 || np > cl.cpus) continue;
      const duration run = std::max<duration>(j.run_time, 1);
      auto shaped = j;
      shaped.run_time = run;
      const duration wall = sim::times_of(shaped, c.walltime).walltime;
      if (++n % c.grid_every == 0) {
        // A grid job of the trace's own shape; its copies run the job's real run time,
        // which is what the user asks for (the simulated copies run their walltime).
        msg::grid_submit_request r;
        r.user = "grid";
        r.name = cl.name + "-" + std::to_string(j.job_id);
        r.np = np;
        r.walltime = run;
        r.ranking = grid_ranking::sed;  // paper 004's experiments rank by SED
        grid.push_back({j.job_id, at, r});
        continue;
      }
      sim::local_job l;
      l.id = j.job_id;
      l.cluster = static_cast<int>(k);
      l.submit = at;
      l.np = np;
      l.walltime = wall;
      l.runtime = run;
      base.jobs.push_back(l);
    }
  }
  std::vector<strategy_result> results(c.strategies.size());
  std::vector<error> errors;
  std::mutex mu;
  progress_bar bar(c.name, c.strategies.size(), opt.progress);
  parallel_for(c.strategies.size(), opt.threads, bar, [&](std::size_t i) {
    const auto& st = c.strategies[i];
    auto s = base;
    if (st.strategy != "none") {
      s.grid_jobs = grid;
      for (auto& g : s.grid_jobs) {
        g.request.strategy = *grid_strategy_from(st.strategy);
        g.request.width = st.width;
        g.request.min_gain = st.min_gain;
        g.request.finish_by_eq7 = st.finish_eq7;
        g.request.max_resubmits = st.max_resubmits;
        g.request.max_migrations = st.max_migrations;
      }
      if (st.dag > 0) s.grid_jobs = workflows(s.grid_jobs, st);
    }
    if (!st.fail_cluster.empty()) {  // its nodes all fail halfway, say: jobs lost there
      const auto at = std::find_if(c.clusters.begin(), c.clusters.end(),
                                   [&](const auto& k) { return k.name == st.fail_cluster; });
      s.failures.push_back(
          {static_cast<int>(at - c.clusters.begin()), static_cast<timestamp>(st.fail_at_h * 3600)});
    }
    auto out = sim::run_simulation(s);
    std::lock_guard lock{mu};
    if (!out) {
      errors.push_back(out.err());
      return;
    }
    results[i] = summarize(*out, s.grid_jobs);
  });
  if (!errors.empty()) return errors.front();

  std::ofstream csv(dir / "summary.csv");
  csv << "strategy,grid_jobs,completed,refused,mean_ttd_h,p95_ttd_h,mean_wait_h,wasted_cpu_h,"
         "migrations_per_job,copies_per_job,calls_per_job,local_jobs,local_mean_wait_h,failed,"
         "lost_cpu_h,workflows,workflows_done,mean_makespan_h\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    csv << c.strategies[i].name << ',' << r.grid_jobs << ',' << r.completed << ',' << r.refused
        << ',' << fmt(r.mean_ttd / 3600, 3) << ',' << fmt(r.p95_ttd / 3600, 3) << ','
        << fmt(r.mean_wait / 3600, 3) << ',' << fmt(r.wasted_cpu_s / 3600, 1) << ','
        << fmt(r.migrations_per_job, 3) << ',' << fmt(r.copies_per_job, 2) << ','
        << fmt(r.calls_per_job, 1) << ',' << r.local_started << ','
        << fmt(r.local_mean_wait / 3600, 3) << ',' << r.failed << ',' << fmt(r.lost_cpu_s / 3600, 1)
        << ',' << r.workflows << ',' << r.workflows_done << ',' << fmt(r.mean_makespan / 3600, 3)
        << '\n';
  }
  csv.close();
  // Two panels: the TTDs (hours to a day) and the waits on a log scale of their own, where
  // minutes and hours both show (on the TTDs' axis the grid waits were slivers).
  auto ok = gnuplot(
      dir, "ttd",
      "set terminal pngcairo noenhanced size 1100,900\nset datafile separator ','\n"
      "set output 'ttd.png'\nset style data histograms\nset style histogram clustered gap 1\n"
      "set style fill solid 0.8 border -1\nset key top left\nset grid ytics\n"
      "set xtics rotate by -30 font ',9'\nset bmargin 7\nset rmargin 8\n"
      "set multiplot layout 2,1 title 'Experiment 5: grid-job strategies on four real traces'\n"
      "set ylabel 'hours'\nset title 'Grid jobs: time to delivery (submission to end)'\n"
      "plot 'summary.csv' every ::1 using 5:xtic(1) title 'mean TTD', '' every ::1 using 6 "
      "title 'p95 TTD'\n"
      "set title 'Waits: grid jobs (submission to start) and local jobs, on their own (log) "
      "scale'\nset logscale y\nset ylabel 'hours (log scale)'\nset yrange [0.01:*]\n"
      "plot 'summary.csv' every ::1 using 7:xtic(1) title 'mean wait (grid)', '' every ::1 "
      "using 13 title 'mean wait (local)'\nunset multiplot\n",
      opt.plots);
  if (!ok && ok.err().code != errc::not_found) return ok;
  std::cout << c.name << ": " << results.size() << " strategies, " << grid.size() << " grid jobs, "
            << base.jobs.size() << " local jobs; walltime rule " << sim::to_string(c.walltime)
            << "; admission " << admission_of(c.policy) << "; output in " << dir.string() << '\n';
  return {};
}

}  // namespace arbroker::simapp
