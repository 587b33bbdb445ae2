// A long replay of a whole trace (performance runs): one cluster, every job, a share of them
// turned into elastic requests through the broker.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "arbroker/sim/elastic.hpp"
#include "arbroker/simulator/metrics.hpp"
#include "progress.hpp"
#include "runner.hpp"
#include "workload.hpp"

namespace arbroker::simapp {

status run_replay(const replay_config& c, const run_options& opt) {
  const auto dir = opt.out_dir / c.name;
  std::filesystem::create_directories(dir);
  using clock = std::chrono::steady_clock;
  auto seconds_since = [](clock::time_point t) {  // "0.123"
    char text[32];
    std::snprintf(text, sizeof text, "%.3f",
                  std::chrono::duration<double>(clock::now() - t).count());
    return std::string(text);
  };
  const auto t_read = clock::now();
  auto jobs = load_jobs(c.workload, c.cluster.cpus, opt.traces_dir, opt.strict);
  if (!jobs) return jobs.err();
  std::vector<std::size_t> picks;
  if (c.request.group_size > 1) {  // group_size 1 would make every job a request: none instead
    auto p = sim::pick_one_per_group(jobs->size(), c.request.group_size, c.request.pick_seed);
    if (!p) return p.err();
    picks = std::move(*p);
  }
  auto scn = build_scenario(*jobs, picks, c.cluster, c.workload.walltime, c.request, c.point);
  if (!scn) return scn.err();
  if (scn->jobs.empty() && scn->requests.empty()) return fail(errc::invalid_parameter, "no jobs");
  // Progress by simulated time, from the first to the last submit.
  const timestamp first = jobs->front().submit_time, last = jobs->back().submit_time;
  const double load = offered_load(*jobs, c.cluster.cpus);
  // The trace's records are done with: their memory serves the replay's tables (first
  // touches of fresh pages cost more than the simulation of a short trace; see
  // docs/performance.md).
  std::vector<sim::swf_job>().swap(*jobs);
  progress_bar bar(c.name + " (simulated time)", 1000, opt.progress);
  sim::driver_options dopt;
  dopt.progress = [&](timestamp now, std::size_t, std::size_t) {
    if (last > first)
      bar.update(
          static_cast<std::size_t>(1000.0 * static_cast<double>(std::min(now, last) - first) /
                                   static_cast<double>(last - first)));
  };
  const std::string read_s = seconds_since(t_read);
  const auto t_replay = clock::now();
  auto out = sim::run_simulation(*scn, dopt);
  if (!out) return out.err();
  const std::string replay_s = seconds_since(t_replay);
  bar.finish();
  auto s = sim::summarize(*out);
  std::ofstream os(dir / "summary.csv");
  os << "jobs,jobs_started,mean_wait_s,requests,successes,events,end_time\n"
     << s.jobs << ',' << s.jobs_started << ',' << s.mean_wait << ',' << s.requests << ','
     << s.successes << ',' << out->steps << ',' << out->end_time << '\n';
  char load_text[16];
  std::snprintf(load_text, sizeof load_text, "%.2f", load);
  std::cout << c.name << ": offered load " << load_text << ", " << s.jobs
            << " local jobs (mean wait " << s.mean_wait << " s), " << s.successes << " of "
            << s.requests << " reservations, " << out->steps << " event instants; walltime rule "
            << sim::to_string(c.workload.walltime) << "; read " << read_s << " s, replay "
            << replay_s << " s; output in " << dir.string() << '\n';
  return {};
}

}  // namespace arbroker::simapp
