// Replays a whole SWF trace through one simulated cluster and reports wall time, peak RSS,
// mean wait (MWT) and utilization. Not run by ctest; see docs/performance.md.
//
//   arb_bench_sim_replay TRACE.swf[.gz] POLICY [CPUS] [RESERVATION_SHARE] [WALLTIME_RULE]
//
// POLICY is fcfs, easy or conservative. CPUS (0 or absent: the header's MaxProcs). Every job
// with a known run time (> 0) and processor count (1..CPUS) is submitted at its submit
// time, with its run time as actual runtime and its walltime by WALLTIME_RULE
// (sim/walltime_rule.hpp; default kill: the requested time, the run time when unknown, so
// jobs that overran their request are killed at the walltime; extend: max(requested, run)).
// RESERVATION_SHARE (default 0) turns that share of the jobs (every k-th) into an advance
// reservation made at submit time for [submit + 2 h, + run time) with a job bound to it;
// a reservation the cluster refuses (busy) is counted and its job is dropped.

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "arbroker/sim/simulated_lrms.hpp"
#include "arbroker/sim/swf.hpp"
#include "arbroker/sim/walltime_rule.hpp"

namespace {

using namespace arbroker;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

long peak_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

int usage() {
  std::fprintf(stderr,
               "usage: arb_bench_sim_replay TRACE.swf[.gz] fcfs|easy|conservative [CPUS] "
               "[RESERVATION_SHARE] [kill|extend]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 6) return usage();
  const auto policy = parse_scheduling_policy(argv[2]);
  if (!policy) return usage();
  const auto rule = argc > 5 ? sim::parse_walltime_rule(argv[5]) : sim::walltime_rule::kill;
  if (!rule) return usage();
  const double share = argc > 4 ? std::atof(argv[4]) : 0.0;
  const int every = share > 0 ? static_cast<int>(1.0 / share + 0.5) : 0;

  const auto t_read = clock_type::now();
  auto trace = sim::read_swf(argv[1]);
  if (!trace) {
    std::fprintf(stderr, "%s\n", to_string(trace.err()).c_str());
    return 1;
  }
  const double read_s = seconds_since(t_read);
  const int asked = argc > 3 ? std::atoi(argv[3]) : 0;
  const int cpus = asked > 0 ? asked : static_cast<int>(trace->header.max_procs);
  if (cpus < 1) return usage();

  // What the replay measures, from the cluster's job events.
  std::vector<timestamp> submitted{0};  // by job number (J<n>), 1-based
  std::vector<timestamp> first_start{0};
  std::vector<timestamp> segment_start{0};
  double busy_cpu_s = 0;
  timestamp last_end = 0;
  auto on_event = [&](const simulated_job_event& e) {
    switch (e.what) {
      case simulated_job_event::kind::started:
        if (first_start[e.job] < 0) first_start[e.job] = e.time;
        segment_start[e.job] = e.time;
        break;
      case simulated_job_event::kind::paused:
      case simulated_job_event::kind::ended:
        if (segment_start[e.job] >= 0) {
          busy_cpu_s +=
              static_cast<double>(e.np) * static_cast<double>(e.time - segment_start[e.job]);
          segment_start[e.job] = -1;
        }
        last_end = std::max(last_end, e.time);
        break;
    }
  };

  timestamp now = trace->jobs.empty() ? 0 : trace->jobs.front().submit_time;
  const timestamp first_submit = now;
  auto made =
      simulated_lrms::create({"replay", cpus, {}, [&now] { return now; }, *policy, on_event});
  if (!made) {
    std::fprintf(stderr, "%s\n", to_string(made.err()).c_str());
    return 1;
  }
  simulated_lrms& cluster = **made;

  const auto t_replay = clock_type::now();
  std::size_t skipped = 0, refused = 0, reservations = 0, index = 0;
  for (const auto& swf : trace->jobs) {
    const auto np = sim::procs(swf);
    if (swf.run_time <= 0 || np < 1 || np > cpus) {
      ++skipped;
      continue;
    }
    const duration runtime = swf.run_time;
    const duration walltime = sim::times_of(swf, *rule).walltime;
    now = std::max(now, swf.submit_time);
    cluster.advance_to(now);
    job_spec spec{"j", "u", static_cast<int>(np), walltime, std::nullopt, ""};
    ++index;
    if (every > 0 && index % static_cast<std::size_t>(every) == 0) {
      const timestamp start = now + 2 * 3600;
      auto r = cluster.create_reservation({"ar", "u", start, runtime, static_cast<int>(np)});
      if (!r) {
        ++refused;
        continue;
      }
      ++reservations;
      spec.reservation = *r;
      spec.walltime = runtime;
    }
    // The job may start inside the call: its slots exist first.
    submitted.push_back(now);
    first_start.push_back(-1);
    segment_start.push_back(-1);
    auto j = cluster.submit_local_job(spec, runtime);
    if (!j) {
      std::fprintf(stderr, "job %lld refused: %s\n", static_cast<long long>(swf.job_id),
                   to_string(j.err()).c_str());
      return 1;
    }
  }
  while (auto next = cluster.next_event_time()) {
    now = *next;
    cluster.advance_to(now);
  }
  const double replay_s = seconds_since(t_replay);

  double wait_sum = 0;
  std::size_t started = 0;
  for (std::size_t i = 1; i < submitted.size(); ++i) {
    if (first_start[i] < 0) continue;
    wait_sum += static_cast<double>(first_start[i] - submitted[i]);
    ++started;
  }
  const double span = static_cast<double>(last_end - first_submit);
  std::printf(
      "trace=%s policy=%s walltime_rule=%s cpus=%d jobs=%zu skipped=%zu reservations=%zu "
      "refused=%zu\n"
      "read_s=%.2f replay_s=%.2f peak_rss_mb=%.1f mwt_s=%.0f utilization=%.3f\n",
      argv[1], argv[2], std::string(sim::to_string(*rule)).c_str(), cpus, submitted.size() - 1,
      skipped, reservations, refused, read_s, replay_s, static_cast<double>(peak_rss_kb()) / 1024.0,
      started ? wait_sum / static_cast<double>(started) : 0.0,
      span > 0 ? busy_cpu_s / (span * cpus) : 0.0);
  return 0;
}
